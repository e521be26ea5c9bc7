// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"bytes"
	"encoding/hex"
	"flag"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The verified RoCEv2 CNP vectors of wire.md §3.3, Ethernet onward.
const (
	cnpV4Hex = `020000000002 020000000001 0800 45c0003c00000000401165ef0a0000010a000002
    c00012b700280000 8100ffff400000d200000000 00000000000000000000000000000000 5c763923`
	cnpV6Hex = `020000000002 020000000001 86dd
    66812345 0028 11 40 fd000000000000000000000000000001 fd000000000000000000000000000002
    c00012b70028cfa1 8100ffff4000abcd00000000 00000000000000000000000000000000 0f7de6f4`
)

func TestGoldenCNPDecode(t *testing.T) {
	for _, tc := range []struct {
		name   string
		hex    string
		destqp uint32
		icrc   uint32
	}{
		{"ipv4", cnpV4Hex, 0xd2, 0x2339765c},
		{"ipv6", cnpV6Hex, 0xabcd, 0xf4e67d0f},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frame := unhex(t, tc.hex)
			pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
			if el := pkt.ErrorLayer(); el != nil {
				t.Fatalf("decode error: %v", el.Error())
			}
			bth, _ := pkt.Layer(LayerTypeBTH).(*BTH)
			if bth == nil {
				t.Fatalf("no BTH in %v", pkt.Layers())
			}
			if bth.Opcode != OpcodeCNP || !bth.BECN || bth.FECN || bth.PKey != 0xffff || bth.DestQP != tc.destqp || bth.PSN != 0 {
				t.Errorf("BTH fields %+v", bth)
			}
			if bth.ICRC != tc.icrc || !bth.ICRCChecked || !bth.ICRCOK || bth.Warnings != 0 {
				t.Errorf("ICRC 0x%08x checked %v ok %v warnings %v, want 0x%08x ok", bth.ICRC, bth.ICRCChecked, bth.ICRCOK, bth.Warnings, tc.icrc)
			}
			cnp, _ := pkt.Layer(LayerTypeCNP).(*CNP)
			if cnp == nil || cnp.DestQP != tc.destqp {
				t.Errorf("CNP layer %+v", cnp)
			}
			// The Parser path agrees and also checks the ICRC.
			p := NewParser()
			if err := p.Decode(frame); err != nil {
				t.Fatal(err)
			}
			if !p.Has(LayerTypeBTH) || !p.BTH.ICRCChecked || !p.BTH.ICRCOK || p.BTH.DestQP != tc.destqp {
				t.Errorf("parser BTH %+v decoded %v", p.BTH, p.Decoded)
			}
			// A flipped payload bit is an ICRC mismatch, reported, not an error.
			bad := bytes.Clone(frame)
			bad[len(bad)-10] ^= 1
			if err := p.Decode(bad); err != nil {
				t.Fatal(err)
			}
			if p.BTH.ICRCOK || !p.BTH.Warnings.Has(WarnICRC) {
				t.Errorf("corrupted frame: ICRCOK %v warnings %v", p.BTH.ICRCOK, p.BTH.Warnings)
			}
		})
	}
}

func TestGoldenCNPEncode(t *testing.T) {
	eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
	ip4 := &layers.IPv4{Version: 4, TOS: 0xc0, TTL: 64, Protocol: layers.IPProtocolUDP,
		SrcIP: net.IP{10, 0, 0, 1}, DstIP: net.IP{10, 0, 0, 2}}
	udp := &layers.UDP{SrcPort: 49152, DstPort: 4791}
	bth := &BTH{Opcode: OpcodeCNP, PKey: 0xffff, BECN: true, DestQP: 0xd2}
	udp.SetNetworkLayerForChecksum(ip4)
	bth.SetNetworkLayerForICRC(ip4, udp)
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip4, udp, bth); err != nil {
		t.Fatal(err)
	}
	// RoCEv2 over IPv4 sends UDP checksum 0; the ICRC masks the UDP
	// checksum, so clearing it afterwards leaves the ICRC right.
	buf.Bytes()[14+20+6], buf.Bytes()[14+20+7] = 0, 0
	if want := unhex(t, cnpV4Hex); !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("IPv4 CNP\n got %x\nwant %x", buf.Bytes(), want)
	}

	eth.EthernetType = layers.EthernetTypeIPv6
	ip6 := &layers.IPv6{Version: 6, TrafficClass: 0x68, FlowLabel: 0x12345, NextHeader: layers.IPProtocolUDP, HopLimit: 64,
		SrcIP: netip.MustParseAddr("fd00::1").AsSlice(), DstIP: netip.MustParseAddr("fd00::2").AsSlice()}
	udp6 := &layers.UDP{SrcPort: 49152, DstPort: 4791}
	udp6.SetNetworkLayerForChecksum(ip6)
	bth6 := &BTH{Opcode: OpcodeCNP, PKey: 0xffff, BECN: true, DestQP: 0xabcd}
	bth6.SetNetworkLayerForICRC(ip6, udp6)
	buf = gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip6, udp6, bth6); err != nil {
		t.Fatal(err)
	}
	if want := unhex(t, cnpV6Hex); !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("IPv6 CNP\n got %x\nwant %x", buf.Bytes(), want)
	}
}

// Hand-written golden frames, Ethernet onward without FCS, one per format,
// written octet by octet from the tables of wire.md (field values in the
// comments). Each is decoded (NewPacket and Parser) and compared with the
// fields below, and encoded from a layer literal and compared byte for byte.
const (
	// §1 PAUSE to 01:80:C2:00:00:01: opcode 0x0001, pause_time 0x1234 =
	// 4660 quanta, 42 reserved octets.
	pauseHex = `0180c2000001 020000000001 8808
	0001 1234
	000000000000000000000000000000000000000000 000000000000000000000000000000000000000000`

	// §2 PFC: vector 0x0021 (priorities 0 and 5), time[0] = 16,
	// time[3] = 3 (not enabled: it does not count, but it is on the wire),
	// time[5] = 0xFFFF, 26 reserved octets.
	pfcHex = `0180c2000001 020000000001 8808
	0101 0021 0010 0000 0000 0003 0000 ffff 0000 0000
	0000000000000000000000000000000000000000000000000000`

	// The offending RoCEv2 WRITE ONLY packet that the CIM, BTS quote:
	// IPv4 TOS 0x68 (DSCP 26) 10.0.0.1 > 10.0.0.2, UDP 49152 > 4791, BTH
	// opcode 0x0a P_Key 0xFFFF DestQP 0x000123 AckReq PSN 1, RETH VA
	// 0x7f0000001000 R_Key 1 DMA length 1024, payload.
	quoteIPv4Hex = `45 68 043c 0001 4000 40 11 0000 0a000001 0a000002
	c000 12b7 0428 0000
	0a 00 ffff 00 000123 80 000001
	00007f0000001000 00000001 00000400
	0000000000000000`

	// §4 CIM PDU: version 0, E = 1, Add = 1; DA 02:..:02, SA 02:..:01;
	// VID 100; MSDU length 48 = the first 48 octets of the quote above; SFC
	// pause TLV: 100 µs, C, origin queue, reporter 42.
	cimPDUHex = `03 020000000002 020000000001 0064 0030
	45 68 043c 0001 4000 40 11 0000 0a000001 0a000002
	c000 12b7 0428 0000
	0a 00 ffff 00 000123 80 000001
	00007f0000001000
	01 08 0064 01 00 0000002a`

	// §4 L2 CIM, EtherType 0x89A2.
	cimL2Hex = `020000000001 020000000009 89a2` + cimPDUHex

	// §4 L3 CIM: IPv4 DSCP 48 10.0.0.2 > 10.0.0.1 (the congested receiver
	// to the offending sender), UDP 49152 > 35234.
	cimL3Hex = `020000000001 020000000009 0800
	45c00067 00000000 4011 65c4 0a000002 0a000001
	c000 89a2 0053 b2cc` + cimPDUHex

	// §5 BTS: IPv4 DSCP 48 TTL 64 10.0.0.2 > 10.0.0.1, UDP 49152 > 1021;
	// version 1, C; origin queue; 100 µs; reporter 42; port 5; queue 3;
	// depth 125000; the 64-octet quote above.
	btsHex = `020000000001 020000000002 0800
	45c0006c 00000000 4011 65bf 0a000002 0a000001
	c000 03fd 0058 57a1
	11 00 0064 0000002a 0005 03 00 0001e848` + quoteIPv4Hex

	// The marked packet a postcard quotes: IPv6 traffic class 0x04 (the
	// PBT mark, DSCP 1), fd00::1 > fd00::2, UDP 49154 > 4791, BTH SEND ONLY
	// P_Key 0xFFFF DestQP 0x000456 PSN 7, 4 octets of payload.
	quoteIPv6Hex = `60400000 0418 11 40 fd000000000000000000000000000001 fd000000000000000000000000000002
	c002 12b7 0418 0000
	04 00 ffff 00 000456 00 000007
	deadbeef`

	// §6 CC-postcard over IPv6 (traffic class 0xC0), switch fd00::10 >
	// sender fd00::1, UDP 49153 > 1022; version 1; port 7; switch id
	// 02:00:00:aa:bb:cc; T 100000 Mb/s; DC_RTT 25000 ns; I_p 312500; Q^1
	// 50000; recent 10000; marked 1000; the 64-octet IPv6 quote above.
	postcardHex = `020000000001 020000000003 86dd
	6c000000 006c 11 40 fd000000000000000000000000000010 fd000000000000000000000000000001
	c001 03fe 006c ead0
	10 00 0007 020000aabbcc 0000 000186a0 000061a8 0004c4b4 0000c350 00002710 000003e8` + quoteIPv6Hex

	// §7.1 BFC pause (version 2) to 01:80:C2:00:00:0E: k = 4, L = 16,
	// sequence 7; stage 0 bit 0, stage 1 bit 15, stage 3 bit 27; Ethernet
	// pad to 60.
	bfcHex = `0180c200000e 020000000001 88b5
	4643 01 02 04 00 0010 00000007
	80000000 00010000 00000000 00000010
	000000000000000000000000000000000000`

	// §7.2 Floodgate credit, IPv4: 60000 octets for 10.0.0.1, 1024 for
	// 10.0.0.2; Ethernet pad to 60.
	fgCreditHex = `0180c200000e 020000000001 88b5
	4643 02 01 04 00 0002
	0000ea60 0a000001
	00000400 0a000002
	00000000000000000000000000000000000000000000`

	// §7.3 Floodgate dst-pause, IPv6: fd00::1 until resumed, fd00::2 resume.
	fgPauseHex = `0180c200000e 020000000001 88b5
	4643 03 01 06 00 0002
	ffff 0000 fd000000000000000000000000000001
	0000 0000 fd000000000000000000000000000002`
)

var quoteIPv4Flow = map[string]string{
	"flow.src": "10.0.0.1", "flow.dst": "10.0.0.2", "flow.proto": "17", "flow.sport": "49152",
	"flow.dport": "4791", "flow.dscp": "26", "flow.qp": "0x000123",
}

func withFlow(m, flow map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	for k, v := range flow {
		out[k] = v
	}
	return out
}

type goldenCase struct {
	name   string
	hex    string
	lt     gopacket.LayerType
	fields map[string]string
	build  func(t *testing.T) []gopacket.SerializableLayer
}

func goldenCases() []goldenCase {
	cimWant := withFlow(map[string]string{
		"cim.version": "0", "cim.add": "1", "cim.ext": "1", "cim.da": "02:00:00:00:00:02", "cim.sa": "02:00:00:00:00:01",
		"cim.vid": "100", "cim.msdu_len": "48", "cim.pause_us": "100", "cim.cacheable": "1", "cim.origin": "queue", "cim.reporter": "42",
	}, quoteIPv4Flow)
	cim := func(t *testing.T) *CIM {
		return &CIM{Add: true, DA: macB, SA: macA, VID: 100, MSDU: unhex(t, quoteIPv4Hex)[:48],
			HasSFC: true, SFC: SFCPause{PauseUS: 100, Cacheable: true, Origin: OriginQueue, Reporter: 42}}
	}
	sw := net.HardwareAddr{2, 0, 0, 0, 0, 9}
	ipBack := func(proto layers.IPProtocol) *layers.IPv4 {
		return &layers.IPv4{Version: 4, TOS: 0xc0, TTL: 64, Protocol: proto, SrcIP: ip4B, DstIP: ip4A}
	}
	return []goldenCase{
		{"pause", pauseHex, LayerTypePause,
			map[string]string{"pause.opcode": "0x0001", "pause.quanta": "4660"},
			func(t *testing.T) []gopacket.SerializableLayer {
				return []gopacket.SerializableLayer{ethFor(MACControlDst, EthernetTypeMACControl), &Pause{Quanta: 0x1234}}
			}},
		{"pfc", pfcHex, LayerTypePFC,
			map[string]string{"pfc.opcode": "0x0101", "pfc.enable_vector": "0x0021",
				"pfc.c0": "1", "pfc.c1": "0", "pfc.c2": "0", "pfc.c3": "0", "pfc.c4": "0", "pfc.c5": "1", "pfc.c6": "0", "pfc.c7": "0",
				"pfc.time_c0": "16", "pfc.time_c1": "0", "pfc.time_c2": "0", "pfc.time_c3": "3", "pfc.time_c4": "0",
				"pfc.time_c5": "65535", "pfc.time_c6": "0", "pfc.time_c7": "0"},
			func(t *testing.T) []gopacket.SerializableLayer {
				p := &PFC{}
				p.Enable(0, 16)
				p.Enable(5, 0xffff)
				p.Times[3] = 3
				return []gopacket.SerializableLayer{ethFor(MACControlDst, EthernetTypeMACControl), p}
			}},
		{"cnp-ipv4", cnpV4Hex, LayerTypeBTH,
			map[string]string{"bth.opcode": "129", "bth.se": "0", "bth.m": "0", "bth.padcnt": "0", "bth.tver": "0", "bth.pkey": "65535",
				"bth.fecn": "0", "bth.becn": "1", "bth.destqp": "0x0000d2", "bth.ackreq": "0", "bth.psn": "0",
				"bth.icrc": "0x2339765c", "bth.icrc_ok": "1", "cnp.destqp": "0x0000d2"},
			nil}, // encoded by TestGoldenCNPEncode (UDP checksum 0)
		{"cnp-ipv6", cnpV6Hex, LayerTypeBTH,
			map[string]string{"bth.opcode": "129", "bth.se": "0", "bth.m": "0", "bth.padcnt": "0", "bth.tver": "0", "bth.pkey": "65535",
				"bth.fecn": "0", "bth.becn": "1", "bth.destqp": "0x00abcd", "bth.ackreq": "0", "bth.psn": "0",
				"bth.icrc": "0xf4e67d0f", "bth.icrc_ok": "1", "cnp.destqp": "0x00abcd"},
			nil},
		{"cim-l2", cimL2Hex, LayerTypeCIM, cimWant,
			func(t *testing.T) []gopacket.SerializableLayer {
				return []gopacket.SerializableLayer{&layers.Ethernet{DstMAC: macA, SrcMAC: sw, EthernetType: EthernetTypeCIM}, cim(t)}
			}},
		{"cim-l3", cimL3Hex, LayerTypeCIM, cimWant,
			func(t *testing.T) []gopacket.SerializableLayer {
				ip := ipBack(layers.IPProtocolUDP)
				udp := &layers.UDP{SrcPort: 49152, DstPort: DefaultCIMPort}
				udp.SetNetworkLayerForChecksum(ip)
				return []gopacket.SerializableLayer{&layers.Ethernet{DstMAC: macA, SrcMAC: sw, EthernetType: layers.EthernetTypeIPv4}, ip, udp, cim(t)}
			}},
		{"bts", btsHex, LayerTypeBTS,
			withFlow(map[string]string{"bts.version": "1", "bts.cacheable": "1", "bts.origin": "queue", "bts.pause_us": "100",
				"bts.reporter": "42", "bts.cp_port": "5", "bts.cp_queue": "3", "bts.queue_depth": "125000", "bts.quote_len": "64"}, quoteIPv4Flow),
			func(t *testing.T) []gopacket.SerializableLayer {
				ip := ipBack(layers.IPProtocolUDP)
				udp := &layers.UDP{SrcPort: 49152, DstPort: DefaultBTSPort}
				udp.SetNetworkLayerForChecksum(ip)
				return []gopacket.SerializableLayer{&layers.Ethernet{DstMAC: macA, SrcMAC: macB, EthernetType: layers.EthernetTypeIPv4}, ip, udp,
					&BTS{Cacheable: true, Origin: OriginQueue, PauseUS: 100, Reporter: 42, CPPort: 5, CPQueue: 3, QueueDepth: 125000, Quote: unhex(t, quoteIPv4Hex)}}
			}},
		{"postcard", postcardHex, LayerTypePostcard,
			map[string]string{"postcard.version": "1", "postcard.port": "7", "postcard.switch_id": "02:00:00:aa:bb:cc",
				"postcard.rate_mbps": "100000", "postcard.window_ns": "25000", "postcard.ip_bytes": "312500", "postcard.q1_bytes": "50000",
				"postcard.recent_bytes": "10000", "postcard.recent_marked_bytes": "1000", "postcard.quote_len": "64",
				"flow.src": "fd00::1", "flow.dst": "fd00::2", "flow.proto": "17", "flow.sport": "49154", "flow.dport": "4791",
				"flow.dscp": "1", "flow.qp": "0x000456"},
			func(t *testing.T) []gopacket.SerializableLayer {
				ip := &layers.IPv6{Version: 6, TrafficClass: 0xc0, NextHeader: layers.IPProtocolUDP, HopLimit: 64,
					SrcIP: net.IP(netip.MustParseAddr("fd00::10").AsSlice()), DstIP: ip6A}
				udp := &layers.UDP{SrcPort: 49153, DstPort: DefaultPostcardPort}
				udp.SetNetworkLayerForChecksum(ip)
				return []gopacket.SerializableLayer{&layers.Ethernet{DstMAC: macA, SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 3}, EthernetType: layers.EthernetTypeIPv6}, ip, udp,
					&Postcard{Port: 7, SwitchID: net.HardwareAddr{2, 0, 0, 0xaa, 0xbb, 0xcc}, RateMbps: 100000, WindowNS: 25000,
						IPBytes: 312500, Q1Bytes: 50000, RecentBytes: 10000, RecentMarkedBytes: 1000, Quote: unhex(t, quoteIPv6Hex)}}
			}},
		{"bfc", bfcHex, LayerTypeBFC,
			map[string]string{"bfc.version": "2", "bfc.hashes": "4", "bfc.filter_len": "16", "bfc.seq": "7", "bfc.bits_set": "3"},
			func(t *testing.T) []gopacket.SerializableLayer {
				f := make([]byte, 16)
				f[0], f[4+1], f[12+3] = 0x80, 0x01, 0x10
				return []gopacket.SerializableLayer{ethFor(HopByHopDst, EthernetTypeFCExp), &BFC{Hashes: 4, Seq: 7, Filter: f}}
			}},
		{"fgcredit", fgCreditHex, LayerTypeFGCredit,
			map[string]string{"fgcredit.version": "1", "fgcredit.family": "4", "fgcredit.count": "2",
				"fgcredit.entries": "{10.0.0.1 60000} {10.0.0.2 1024}"},
			func(t *testing.T) []gopacket.SerializableLayer {
				return []gopacket.SerializableLayer{ethFor(HopByHopDst, EthernetTypeFCExp), &FGCredit{Family: 4, Entries: []CreditEntry{
					{Credits: 60000, Dst: netip.MustParseAddr("10.0.0.1")}, {Credits: 1024, Dst: netip.MustParseAddr("10.0.0.2")}}}}
			}},
		{"fgpause", fgPauseHex, LayerTypeFGPause,
			map[string]string{"fgpause.version": "1", "fgpause.family": "6", "fgpause.count": "2",
				"fgpause.entries": "{fd00::1 65535} {fd00::2 0}"},
			func(t *testing.T) []gopacket.SerializableLayer {
				return []gopacket.SerializableLayer{ethFor(HopByHopDst, EthernetTypeFCExp), &FGPause{Family: 6, Entries: []DstPauseEntry{
					{PauseUS: PauseUntilResumed, Dst: netip.MustParseAddr("fd00::1")}, {PauseUS: 0, Dst: netip.MustParseAddr("fd00::2")}}}}
			}},
	}
}

func TestGoldenDecode(t *testing.T) {
	p := NewParser()
	for _, tc := range goldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			frame := unhex(t, tc.hex)
			pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
			if el := pkt.ErrorLayer(); el != nil {
				t.Fatalf("NewPacket: %v", el.Error())
			}
			l := pkt.Layer(tc.lt)
			if l == nil {
				t.Fatalf("NewPacket: no %v in %v", tc.lt, pkt.Layers())
			}
			if d := diffFields(specFields(l), tc.fields); d != nil {
				t.Errorf("NewPacket fields:\n%s", strings.Join(d, "\n"))
			}
			if w := warningsOf(l); w != 0 {
				t.Errorf("NewPacket warnings: %v", w)
			}
			if err := p.Decode(frame); err != nil {
				t.Fatalf("Parser: %v", err)
			}
			if !p.Has(tc.lt) || p.Truncated {
				t.Fatalf("Parser decoded %v truncated %v", p.Decoded, p.Truncated)
			}
			pl := p.Layer(tc.lt).(gopacket.Layer)
			if d := diffFields(specFields(pl), tc.fields); d != nil {
				t.Errorf("Parser fields:\n%s", strings.Join(d, "\n"))
			}
			if w := warningsOf(pl); w != 0 {
				t.Errorf("Parser warnings: %v", w)
			}
		})
	}
}

func TestGoldenEncode(t *testing.T) {
	for _, tc := range goldenCases() {
		if tc.build == nil {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			got := serialize(t, optsFix, tc.build(t)...)
			if want := unhex(t, tc.hex); !bytes.Equal(got, want) {
				t.Errorf("encoded\n got %x\nwant %x", got, want)
			}
		})
	}
}

// warningsOf returns the Warnings of a layer of this package.
func warningsOf(l gopacket.Layer) Warnings {
	if v := reflect.ValueOf(l).Elem().FieldByName("Warnings"); v.IsValid() {
		return Warnings(v.Uint())
	}
	return 0
}

var update = flag.Bool("update", false, "rewrite testdata/golden.pcap and testdata/vlan9100.pcap from the golden frames")

// TestGoldenPcap keeps testdata/golden.pcap, the golden frames of this file
// in order (one per format, as wire.md writes them), for tools that read
// captures: Wireshark dissectors, sfcdump, tshark. Regenerate with
//
//	go test ./layers/ -run TestGoldenPcap -update
func TestGoldenPcap(t *testing.T) {
	var buf bytes.Buffer
	w := pcapgo.NewWriter(&buf)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	for i, tc := range goldenCases() {
		frame := unhex(t, tc.hex)
		ci := gopacket.CaptureInfo{Timestamp: time.Unix(1700000000, int64(i)*1000).UTC(), CaptureLength: len(frame), Length: len(frame)}
		if err := w.WritePacket(ci, frame); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join("testdata", "golden.pcap")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (regenerate with -update)", err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Errorf("%s differs from the golden frames (regenerate with -update)", path)
	}
	// Every frame of the file decodes without error or warning.
	r, err := pcapgo.NewReader(bytes.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	p := NewParser()
	for i := 0; ; i++ {
		data, _, err := r.ReadPacketData()
		if err != nil {
			break
		}
		if err := p.Decode(data); err != nil {
			t.Errorf("frame %d: %v", i+1, err)
		}
	}
}
