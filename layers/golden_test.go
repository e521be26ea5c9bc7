package layers

import (
	"bytes"
	"encoding/hex"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
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
