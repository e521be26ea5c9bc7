// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// rtCase is a frame to build: a fresh layer stack each call (serializing
// changes lengths and checksums in the layers) and the index of our layer.
type rtCase struct {
	name  string
	stack func(t *testing.T) []gopacket.SerializableLayer
	lt    gopacket.LayerType
}

// udpStack returns Ethernet, IP, UDP (to dport) and the layers after it.
func udpStack(v6 bool, dport uint16, ls ...gopacket.SerializableLayer) []gopacket.SerializableLayer {
	eth, ip, udp := udpOver(v6, 49152, dport)
	return append([]gopacket.SerializableLayer{eth, ip, udp}, ls...)
}

func rtCases() []rtCase {
	var cs []rtCase
	add := func(name string, lt gopacket.LayerType, f func(t *testing.T) []gopacket.SerializableLayer) {
		cs = append(cs, rtCase{name, f, lt})
	}
	mc := func(l gopacket.SerializableLayer) []gopacket.SerializableLayer {
		return []gopacket.SerializableLayer{ethFor(MACControlDst, EthernetTypeMACControl), l}
	}
	fc := func(l gopacket.SerializableLayer) []gopacket.SerializableLayer {
		return []gopacket.SerializableLayer{ethFor(HopByHopDst, EthernetTypeFCExp), l}
	}
	for _, q := range []uint16{0, 1, 0xffff} {
		add(fmt.Sprintf("pause-%d", q), LayerTypePause, func(t *testing.T) []gopacket.SerializableLayer { return mc(&Pause{Quanta: q}) })
	}
	add("pfc-all", LayerTypePFC, func(t *testing.T) []gopacket.SerializableLayer {
		p := &PFC{}
		for i := 0; i < 8; i++ {
			p.Enable(i, uint16(1000*i))
		}
		return mc(p)
	})
	add("pfc-none", LayerTypePFC, func(t *testing.T) []gopacket.SerializableLayer { return mc(&PFC{}) })
	add("pfc-reserved-high", LayerTypePFC, func(t *testing.T) []gopacket.SerializableLayer {
		return mc(&PFC{EnableVector: 0xff80, Times: [8]uint16{7: 0xffff}})
	})

	other := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(0xa0 + i)
		}
		return b
	}
	for i, op := range roceOpcodes {
		for _, v6 := range []bool{false, true} {
			add(fmt.Sprintf("bth-0x%02x-v6-%v", op, v6), LayerTypeBTH, func(t *testing.T) []gopacket.SerializableLayer {
				b := BTH{Opcode: op, SE: i%2 == 0, M: i%3 == 0, PKey: uint16(0x8000 + i), FECN: i%4 == 1, BECN: i%4 == 2 || op == OpcodeCNP,
					DestQP: 0xffffff - uint32(i), AckReq: i%2 == 1, PSN: 0xffffff - uint32(7*i),
					RETH: RETH{VA: 0xfedcba9876543210, RKey: 0x12345678, DMALen: 0xffffffff}, AETH: AETH{Syndrome: uint8(i), MSN: 0xabcdef},
					ImmDt: ImmDt{Data: 0xdeadbeef}, DETH: DETH{QKey: 0x80010000, SrcQP: 0xffffff}}
				switch n := extLen(opcodeExt(op) &^ (extDETH | extRETH | extAETH | extImm | extCNP)); {
				case op == OpcodeCNP:
				case n > 0:
					b.OtherExt = other(n)
				}
				r := roceFrame{v6: v6, tos: uint8(i * 4), ttl: uint8(1 + i), flowLabel: uint32(i * 4099), bth: b}
				if op != OpcodeCNP {
					r.payload = other(i % 8)
				}
				eth, ip, udp, bth := r.layers()
				return []gopacket.SerializableLayer{eth, ip, udp, bth, gopacket.Payload(r.payload)}
			})
		}
	}

	msdu := func(t *testing.T) []byte { return unhex(t, quoteIPv4Hex)[:48] }
	add("cim-l2-sfc", LayerTypeCIM, func(t *testing.T) []gopacket.SerializableLayer {
		return []gopacket.SerializableLayer{ethFor(macB, EthernetTypeCIM), &CIM{Add: true, DA: macB, SA: macA, VID: 0xfff, MSDU: msdu(t),
			HasSFC: true, SFC: SFCPause{PauseUS: 0xffff, Origin: OriginEstimate, Reporter: 0xffffffff}}}
	})
	add("cim-l2-delete-no-ext", LayerTypeCIM, func(t *testing.T) []gopacket.SerializableLayer {
		return []gopacket.SerializableLayer{ethFor(macB, EthernetTypeCIM), &CIM{DA: macB, SA: macA, MSDU: CIMMSDU(unhex(t, quoteIPv4Hex)[:28])}}
	})
	add("cim-l3-v6-unknown-tlvs", LayerTypeCIM, func(t *testing.T) []gopacket.SerializableLayer {
		c := &CIM{Add: true, DA: macB, SA: macA, VID: 1, MSDU: unhex(t, quoteIPv6Hex),
			TLVs:   unhex(t, "09 02 abcd 01 08 0000000000000000 0a 00"),
			HasSFC: true, SFC: SFCPause{PauseUS: 5, Cacheable: true, Origin: OriginCache, Reporter: 9}}
		return udpStack(true, DefaultCIMPort, c)
	})
	for o := OriginQueue; o <= OriginEstimate; o++ {
		add("bts-"+o.String(), LayerTypeBTS, func(t *testing.T) []gopacket.SerializableLayer {
			return udpStack(o == OriginCache, DefaultBTSPort, &BTS{Cacheable: o != OriginQueue, Origin: o, PauseUS: uint16(o) * 1000,
				Reporter: uint32(o) + 1, CPPort: CPPortUnknown, CPQueue: 7, QueueDepth: 0xffffffff, Quote: Quote(unhex(t, quoteIPv6Hex))})
		})
	}
	add("postcard-v4", LayerTypePostcard, func(t *testing.T) []gopacket.SerializableLayer {
		return udpStack(false, DefaultPostcardPort, &Postcard{Port: 0xffff, SwitchID: macB, RateMbps: 400000, WindowNS: 1, IPBytes: 2,
			Q1Bytes: 3, RecentBytes: 0xffffffff, RecentMarkedBytes: 0, Quote: unhex(t, quoteIPv4Hex)[:28]})
	})
	for _, g := range []struct{ k, l int }{{1, 1}, {3, 12}, {4, 128}, {8, 1024}} {
		add(fmt.Sprintf("bfc-k%d-l%d", g.k, g.l), LayerTypeBFC, func(t *testing.T) []gopacket.SerializableLayer {
			f := make([]byte, g.l)
			for s := 0; s < g.k; s++ {
				h := BFCHashes{0x12345678, 0x9abcdef0, 3, 4, 5, 6, 7, 8}
				SetFilterBit(BFCVersion, f, g.k, &h, s)
			}
			return fc(&BFC{Hashes: uint8(g.k), Seq: 0xffffffff, Filter: f})
		})
	}
	add("fgcredit-v6", LayerTypeFGCredit, func(t *testing.T) []gopacket.SerializableLayer {
		return fc(&FGCredit{Family: 6, Entries: []CreditEntry{{0, netip.MustParseAddr("::")}, {1, netip.MustParseAddr("fd00::1")},
			{0xffffffff, netip.MustParseAddr("2001:db8::ffff")}}})
	})
	add("fgcredit-v4-empty", LayerTypeFGCredit, func(t *testing.T) []gopacket.SerializableLayer { return fc(&FGCredit{Family: 4}) })
	add("fgpause-v4", LayerTypeFGPause, func(t *testing.T) []gopacket.SerializableLayer {
		return fc(&FGPause{Family: 4, Entries: []DstPauseEntry{{PauseUS: 123, Dst: netip.MustParseAddr("192.0.2.1")}}})
	})
	return cs
}

// ourLayer returns the layer of this package in a stack.
func ourLayer(stack []gopacket.SerializableLayer, lt gopacket.LayerType) gopacket.Layer {
	for _, l := range stack {
		if l.LayerType() == lt {
			return l.(gopacket.Layer)
		}
	}
	panic("no " + lt.String())
}

// roundTripFields are the fields a literal and its decoding must share:
// the derived ones (the flow of a quote, the ICRC check) are left out. For
// a literal, the fields the encoder fixes are set as documented: the
// opcodes of PAUSE and PFC, version 0 written as 1, cnp.destqp = the BTH's.
func roundTripFields(l gopacket.Layer, literal bool) map[string]string {
	m := specFields(l)
	for k := range m {
		if strings.HasPrefix(k, "flow.") || k == "bth.icrc_ok" {
			delete(m, k)
		}
	}
	if literal {
		for _, k := range []string{"bts.version", "postcard.version", "bfc.version", "fgcredit.version", "fgpause.version"} {
			if m[k] == "0" {
				m[k] = "1"
				if k == "bfc.version" {
					m[k] = "2"
				}
			}
		}
		if _, ok := m["pause.opcode"]; ok {
			m["pause.opcode"] = "0x0001"
		}
		if _, ok := m["pfc.opcode"]; ok {
			m["pfc.opcode"] = "0x0101"
		}
		if _, ok := m["cnp.destqp"]; ok {
			m["cnp.destqp"] = m["bth.destqp"]
		}
	}
	return m
}

// TestRoundTrip serializes every case with FixLengths and ComputeChecksums,
// decodes it, and compares the fields; then serializes the same layers
// (their lengths and checksums now set) with every other combination of
// the options, and the decoded layers without options: all give the same
// octets.
func TestRoundTrip(t *testing.T) {
	p := NewParser()
	for _, c := range rtCases() {
		t.Run(c.name, func(t *testing.T) {
			stack := c.stack(t)
			frame := serialize(t, optsFix, stack...)
			if err := p.Decode(frame); err != nil || !p.Has(c.lt) {
				t.Fatalf("decode: %v, decoded %v", err, p.Decoded)
			}
			got := p.Layer(c.lt).(gopacket.Layer)
			if d := diffFields(roundTripFields(got, false), roundTripFields(ourLayer(stack, c.lt), true)); d != nil {
				t.Errorf("fields after the round trip:\n%s", strings.Join(d, "\n"))
			}
			if w := warningsOf(got); w != 0 && c.name != "pfc-reserved-high" {
				t.Errorf("warnings %v", w)
			}
			if b, ok := got.(*BTH); ok {
				if !b.ICRCChecked || !b.ICRCOK {
					t.Errorf("ICRC 0x%08x not verified", b.ICRC)
				}
				if !bytes.Equal(b.Payload, stack[4].(gopacket.Payload)) || len(b.Pad) != int(b.PadCnt) || (len(b.Payload)+int(b.PadCnt))%4 != 0 {
					t.Errorf("payload %x pad %x", b.Payload, b.Pad)
				}
			}
			for _, o := range []gopacket.SerializeOptions{{}, {FixLengths: true}, {ComputeChecksums: true}, optsFix} {
				if again := serialize(t, o, stack...); !bytes.Equal(again, frame) {
					t.Errorf("%+v after FixLengths:\n got %x\nwant %x", o, again, frame)
				}
			}
			// Decode, then encode the decoded layers as they are.
			var dec []gopacket.SerializableLayer
			for _, lt := range p.Decoded {
				if s, ok := p.Layer(lt).(gopacket.SerializableLayer); ok {
					dec = append(dec, s)
				}
			}
			if again := serialize(t, optsNone, dec...); !bytes.Equal(again, frame) {
				t.Errorf("decoded layers %v re-encoded:\n got %x\nwant %x", p.Decoded, again, frame)
			}
		})
	}
}

// TestRoundTripGoldenDecoded re-encodes the layers NewPacket decodes from
// every golden frame, with no options: the same octets come back.
func TestRoundTripGoldenDecoded(t *testing.T) {
	for _, tc := range goldenCases() {
		frame := unhex(t, tc.hex)
		pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
		var ls []gopacket.SerializableLayer
		for _, l := range []gopacket.Layer{pkt.LinkLayer(), pkt.NetworkLayer(), pkt.TransportLayer(), pkt.Layer(tc.lt), pkt.ApplicationLayer()} {
			if l != nil && l != gopacket.Layer(nil) {
				if s, ok := l.(gopacket.SerializableLayer); ok {
					ls = append(ls, s)
				}
			}
		}
		if got := serialize(t, optsNone, ls...); !bytes.Equal(got, frame) {
			t.Errorf("%s:\n got %x\nwant %x", tc.name, got, frame)
		}
	}
}

// TestSerializeWithoutFixLengths: length fields are written as set, and a
// count that disagrees with the data is an error rather than a bad frame.
func TestSerializeWithoutFixLengths(t *testing.T) {
	msdu := unhex(t, quoteIPv4Hex)[:48]
	// CIM: MSDULen and Ext are written verbatim.
	c := &CIM{Add: true, DA: macB, SA: macA, MSDU: msdu, MSDULen: 40, HasSFC: true, SFC: SFCPause{PauseUS: 1}}
	body := serialize(t, optsNone, c)
	if len(body) != 17+48 || body[0] != 0x01 || body[15] != 0 || body[16] != 40 {
		t.Errorf("CIM without FixLengths: %x", body)
	}
	c.Ext = true
	if body = serialize(t, optsNone, c); len(body) != 17+48+10 || body[0] != 0x03 || body[16] != 40 {
		t.Errorf("CIM with Ext without FixLengths: %x", body)
	}
	// BTH: PadCnt is written as set, with as many zero pad octets.
	b := &BTH{Opcode: OpcodeRCSendOnly, PadCnt: 2, ICRC: 0x04030201}
	body = serialize(t, optsNone, b, gopacket.Payload{9})
	if want := unhex(t, "04 20 0000 00 000000 00 000000 09 0000 01020304"); !bytes.Equal(body, want) {
		t.Errorf("BTH without FixLengths:\n got %x\nwant %x", body, want)
	}
	if body = serialize(t, gopacket.SerializeOptions{FixLengths: true}, b, gopacket.Payload{9}); b.PadCnt != 3 || len(body) != 12+1+3+4 {
		t.Errorf("BTH with FixLengths: PadCnt %d, %x", b.PadCnt, body)
	}
	// ICRC with ComputeChecksums but lengths set by hand.
	r := roceFrame{bth: BTH{Opcode: OpcodeRCWriteOnly, DestQP: 5, RETH: RETH{DMALen: 3}}, payload: []byte{1, 2, 3}}
	eth, ip, udp, bth := r.layers()
	bth.PadCnt = 1
	ip.(*layers.IPv4).IHL, ip.(*layers.IPv4).Length = 5, 20+8+12+16+4+4
	udp.Length = 8 + 12 + 16 + 4 + 4
	frame := serialize(t, gopacket.SerializeOptions{ComputeChecksums: true}, eth, ip, udp, bth, gopacket.Payload(r.payload))
	p := NewParser()
	if err := p.Decode(frame); err != nil || !p.BTH.ICRCOK || p.BTH.RETH.DMALen != 3 || p.IPv4.Checksum == 0 {
		t.Errorf("hand lengths + ComputeChecksums: %v ICRC ok %v %x", err, p.BTH.ICRCOK, frame)
	}
}

// TestSerializeErrors: values that do not fit their field are refused.
func TestSerializeErrors(t *testing.T) {
	bad := []struct {
		name string
		l    gopacket.SerializableLayer
		opts gopacket.SerializeOptions
		err  error
	}{
		{"bth/destqp", &BTH{DestQP: 1 << 24}, optsNone, ErrBadValue},
		{"bth/psn", &BTH{PSN: 1 << 24}, optsNone, ErrBadValue},
		{"bth/tver", &BTH{TVer: 16}, optsNone, ErrBadValue},
		{"bth/padcnt", &BTH{PadCnt: 4}, optsNone, ErrBadValue},
		{"bth/aeth-msn", &BTH{Opcode: OpcodeRCAck, AETH: AETH{MSN: 1 << 24}}, optsNone, ErrBadValue},
		{"bth/deth-srcqp", &BTH{Opcode: OpcodeUDSendOnly, DETH: DETH{SrcQP: 1 << 24}}, optsNone, ErrBadValue},
		{"bth/icrc-without-network", &BTH{Opcode: OpcodeCNP}, gopacket.SerializeOptions{ComputeChecksums: true}, ErrNoNetworkLayer},
		{"aeth/msn", &AETH{MSN: 1 << 24}, optsNone, ErrBadValue},
		{"deth/srcqp", &DETH{SrcQP: 1 << 24}, optsNone, ErrBadValue},
		{"cim/version", &CIM{Version: 16, DA: macA, SA: macB}, optsNone, ErrBadValue},
		{"cim/vid", &CIM{VID: 0x1000, DA: macA, SA: macB}, optsNone, ErrBadValue},
		{"cim/mac", &CIM{DA: macA[:5], SA: macB}, optsNone, ErrBadValue},
		{"cim/tlv-cut", &CIM{DA: macA, SA: macB, TLVs: []byte{9, 3, 0}}, optsFix, ErrTLVLength},
		{"cim/tlv-end", &CIM{DA: macA, SA: macB, TLVs: []byte{0, 0}}, optsFix, ErrTLVLength},
		{"cim/tlv-no-length", &CIM{DA: macA, SA: macB, TLVs: []byte{9}}, optsFix, ErrTLVLength},
		{"bts/version", &BTS{Version: 16}, optsNone, ErrBadValue},
		{"bts/flags", &BTS{Flags: 16}, optsNone, ErrBadValue},
		{"postcard/version", &Postcard{Version: 16}, optsNone, ErrBadValue},
		{"postcard/switch-id", &Postcard{SwitchID: macA[:5]}, optsNone, ErrBadValue},
		{"bfc/k0", &BFC{Filter: make([]byte, 4)}, optsFix, ErrBadValue},
		{"bfc/k9", &BFC{Hashes: 9, Filter: make([]byte, 9)}, optsFix, ErrBadValue},
		{"bfc/not-multiple", &BFC{Hashes: 4, Filter: make([]byte, 6)}, optsFix, ErrBadValue},
		{"bfc/too-long", &BFC{Hashes: 4, Filter: make([]byte, 1028)}, optsFix, ErrBadValue},
		{"bfc/empty", &BFC{Hashes: 4}, optsFix, ErrBadValue},
		{"bfc/length-mismatch", &BFC{Hashes: 4, FilterLen: 8, Filter: make([]byte, 4)}, optsNone, ErrBadValue},
		{"fgcredit/family", &FGCredit{Family: 5}, optsFix, ErrBadValue},
		{"fgcredit/count", &FGCredit{Family: 4, Count: 1}, optsNone, ErrBadValue},
		{"fgcredit/addr-family", &FGCredit{Family: 4, Entries: []CreditEntry{{1, netip.MustParseAddr("fd00::1")}}}, optsFix, ErrBadValue},
		{"fgcredit/v4-in-family-6", &FGCredit{Family: 6, Entries: []CreditEntry{{1, netip.MustParseAddr("10.0.0.1")}}}, optsFix, ErrBadValue},
		{"fgcredit/zero-addr", &FGCredit{Family: 4, Entries: []CreditEntry{{1, netip.Addr{}}}}, optsFix, ErrBadValue},
		{"fgpause/family", &FGPause{Family: 0}, optsFix, ErrBadValue},
		{"fgpause/count", &FGPause{Family: 6, Count: 3}, optsNone, ErrBadValue},
		{"fgpause/addr-family", &FGPause{Family: 6, Entries: []DstPauseEntry{{Dst: netip.MustParseAddr("10.0.0.1")}}}, optsFix, ErrBadValue},
	}
	for _, r := range bad {
		buf := gopacket.NewSerializeBuffer()
		err := r.l.SerializeTo(buf, r.opts)
		if !errors.Is(err, r.err) {
			t.Errorf("%s: error %v, want %v", r.name, err, r.err)
		}
	}
}

// TestSerializeClearsReused: serializing into a reused buffer does not leak
// octets of the previous frame into reserved fields or pads.
func TestSerializeClearsReused(t *testing.T) {
	buf := gopacket.NewSerializeBuffer()
	junk := func() {
		buf.Clear()
		b, _ := buf.PrependBytes(2000)
		for i := range b {
			b[i] = 0xee
		}
		buf.Clear()
	}
	for _, c := range rtCases() {
		want := serialize(t, optsFix, c.stack(t)...)
		junk()
		if err := gopacket.SerializeLayers(buf, optsFix, c.stack(t)...); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s into a used buffer:\n got %x\nwant %x", c.name, buf.Bytes(), want)
		}
	}
}

// TestSerializeEthernetDefaults: a BTS built the way wire.md §5 says (IP
// addresses swapped, DSCP 48, TTL 64, UDP source port of the data packet)
// names, through its quote, the flow of the data packet.
func TestBTSFromDataPacket(t *testing.T) {
	data := unhex(t, quoteIPv4Hex)
	flow, err := DecodeQuote(data)
	if err != nil {
		t.Fatal(err)
	}
	ip := &layers.IPv4{Version: 4, TOS: 48 << 2, TTL: 64, Protocol: layers.IPProtocolUDP,
		SrcIP: net.IP(flow.Dst.AsSlice()), DstIP: net.IP(flow.Src.AsSlice())}
	udp := &layers.UDP{SrcPort: layers.UDPPort(flow.SrcPort), DstPort: DefaultBTSPort}
	udp.SetNetworkLayerForChecksum(ip)
	frame := serialize(t, optsFix, &layers.Ethernet{SrcMAC: macB, DstMAC: macA, EthernetType: layers.EthernetTypeIPv4}, ip, udp,
		&BTS{PauseUS: 100, Quote: Quote(data)})
	p := NewParser()
	if err := p.Decode(frame); err != nil {
		t.Fatal(err)
	}
	if p.BTS.Flow != flow || len(p.BTS.Quote) != QuoteLen || p.BTS.Version != 1 {
		t.Errorf("flow %v quote %d version %d, want %v", p.BTS.Flow, len(p.BTS.Quote), p.BTS.Version, flow)
	}
	if !bytes.Equal(p.BTS.Quote, data[:64]) {
		t.Errorf("quote %x", p.BTS.Quote)
	}
}

// TestExtensionLayersAlone: RETH, AETH, ImmDt, DETH and CNP serialize and
// decode on their own too (NewPacket from their layer type), with the
// payload after them.
func TestExtensionLayersAlone(t *testing.T) {
	for _, c := range []struct {
		l   gopacket.SerializableLayer
		hex string
	}{
		{&RETH{VA: 0x0102030405060708, RKey: 0x090a0b0c, DMALen: 0x0d0e0f10}, "0102030405060708 090a0b0c 0d0e0f10"},
		{&AETH{Syndrome: 0x60, MSN: 0x0a0b0c}, "60 0a0b0c"},
		{&ImmDt{Data: 0xdeadbeef}, "deadbeef"},
		{&DETH{QKey: 0x80010000, SrcQP: 0x123456}, "80010000 00 123456"},
		{&CNP{}, "00000000000000000000000000000000"},
	} {
		lt := c.l.LayerType()
		got := serialize(t, optsFix, c.l, gopacket.Payload{0xaa, 0xbb})
		if want := cat(unhex(t, c.hex), []byte{0xaa, 0xbb}); !bytes.Equal(got, want) {
			t.Errorf("%v: %x, want %x", lt, got, want)
		}
		pkt := gopacket.NewPacket(got, lt, gopacket.Default)
		l := pkt.Layer(lt)
		if l == nil || pkt.ErrorLayer() != nil {
			t.Errorf("%v: NewPacket %v %v", lt, pkt.Layers(), pkt.ErrorLayer())
			continue
		}
		if again := serialize(t, optsNone, l.(gopacket.SerializableLayer)); !bytes.Equal(again, got[:len(got)-2]) {
			t.Errorf("%v: decoded and re-encoded %x", lt, again)
		}
		if lt != LayerTypeCNP && (pkt.ApplicationLayer() == nil || !bytes.Equal(pkt.ApplicationLayer().Payload(), []byte{0xaa, 0xbb})) {
			t.Errorf("%v: payload %v", lt, pkt.Layers())
		}
		if l.(gopacket.DecodingLayer).CanDecode() != lt {
			t.Errorf("%v: CanDecode", lt)
		}
		pkt = gopacket.NewPacket(got[:1], lt, gopacket.Default)
		if pkt.ErrorLayer() == nil {
			t.Errorf("%v: 1 octet decoded without error", lt)
		}
	}
}

// A family-6 Floodgate destination that is an IPv4-mapped IPv6 address
// (::ffff:a.b.c.d) decodes and serializes back byte for byte (found by
// fuzz/FuzzRoundTrip: SerializeTo refused the address its decoder made).
func TestFloodgateV4MappedRoundTrip(t *testing.T) {
	for _, sub := range []byte{SubtypeFGCredit, SubtypeFGPause} {
		data := unhex(t, `4643 0301 06 00 0001 00000000 00000000000000000000ffff0a000001`)
		data[2] = sub
		var l interface {
			gopacket.DecodingLayer
			gopacket.SerializableLayer
		} = &FGPause{}
		if sub == SubtypeFGCredit {
			l = &FGCredit{}
		}
		if err := l.DecodeFromBytes(data, gopacket.NilDecodeFeedback); err != nil {
			t.Fatal(err)
		}
		buf := gopacket.NewSerializeBuffer()
		if err := l.SerializeTo(buf, gopacket.SerializeOptions{}); err != nil {
			t.Fatalf("subtype %d: %v", sub, err)
		}
		if !bytes.Equal(buf.Bytes(), data) {
			t.Errorf("subtype %d: %x, want %x", sub, buf.Bytes(), data)
		}
	}
}
