// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// parityFrames returns named frames covering every layer: the golden frames
// and a RoCEv2 frame for every opcode with extension headers, over IPv4 and
// IPv6.
func parityFrames(t testing.TB) []namedFrame {
	var fs []namedFrame
	for _, tc := range goldenCases() {
		fs = append(fs, namedFrame{tc.name, unhex(t, tc.hex), tc.lt})
	}
	for i, op := range roceOpcodes {
		r := roceFrame{v6: i%2 == 1, bth: BTH{Opcode: op, PKey: 0xffff, DestQP: uint32(i) + 1, PSN: 7, AckReq: true, BECN: op == OpcodeCNP,
			RETH: RETH{VA: 0x1000, RKey: 0x77, DMALen: 5}, AETH: AETH{Syndrome: 0x1f, MSN: 9}, ImmDt: ImmDt{Data: 0xcafe},
			DETH: DETH{QKey: 0x80010000, SrcQP: 0x11}}}
		if op != OpcodeCNP {
			r.payload = []byte{1, 2, 3, 4, 5}
		}
		fs = append(fs, namedFrame{fmt.Sprintf("roce-0x%02x", op), r.build(t, optsFix), LayerTypeBTH})
	}
	return fs
}

type namedFrame struct {
	name  string
	frame []byte
	lt    gopacket.LayerType
}

// TestParity decodes every frame through gopacket.NewPacket (eager and
// lazy), through this package's Parser and through a plain
// DecodingLayerParser, and checks that our layer holds the same fields in
// all of them.
func TestParity(t *testing.T) {
	p := NewParser()
	var (
		eth     layers.Ethernet
		ip4     layers.IPv4
		ip6     layers.IPv6
		udp     layers.UDP
		mc      MACControl
		pause   Pause
		pfc     PFC
		bth     BTH
		cim     CIM
		bts     BTS
		pc      Postcard
		fc      FCExp
		bfc     BFC
		fgc     FGCredit
		fgp     FGPause
		payload gopacket.Payload
	)
	dlp := gopacket.NewDecodingLayerParser(layers.LayerTypeEthernet, &eth, &ip4, &ip6, &udp, &mc, &pause, &pfc, &bth, &cim, &bts, &pc, &fc, &bfc, &fgc, &fgp, &payload)
	plain := map[gopacket.LayerType]gopacket.Layer{LayerTypePause: &pause, LayerTypePFC: &pfc, LayerTypeBTH: &bth, LayerTypeCIM: &cim,
		LayerTypeBTS: &bts, LayerTypePostcard: &pc, LayerTypeBFC: &bfc, LayerTypeFGCredit: &fgc, LayerTypeFGPause: &fgp}
	var decoded []gopacket.LayerType
	for _, f := range parityFrames(t) {
		t.Run(f.name, func(t *testing.T) {
			if err := p.Decode(f.frame); err != nil || !p.Has(f.lt) {
				t.Fatalf("Parser: %v, decoded %v", err, p.Decoded)
			}
			want := p.Layer(f.lt)
			if b, ok := want.(*BTH); ok {
				// In a DecodingLayerParser the extension headers are fields
				// of the BTH, not layers: their Contents and Payload stay
				// empty. NewPacket, where they are layers, sets them.
				checkNoExtBases(t, b)
				c := *b
				c.setExtBases()
				want = &c
			}
			for _, o := range []gopacket.DecodeOptions{gopacket.Default, gopacket.Lazy, gopacket.NoCopy} {
				pkt := gopacket.NewPacket(f.frame, layers.LayerTypeEthernet, o)
				l := pkt.Layer(f.lt)
				if l == nil || pkt.ErrorLayer() != nil {
					t.Fatalf("NewPacket %+v: %v, error %v", o, pkt.Layers(), pkt.ErrorLayer())
				}
				if d := sameLayer(l, want); d != "" {
					t.Errorf("NewPacket %+v and Parser differ: %s", o, d)
				}
			}
			if err := dlp.DecodeLayers(f.frame, &decoded); err != nil {
				t.Fatalf("DecodingLayerParser: %v", err)
			}
			got := plain[f.lt]
			if b, ok := got.(*BTH); ok {
				checkNoExtBases(t, b)
				c := *b
				c.setExtBases()
				got, b = &c, &c
				// A plain DecodingLayerParser does not see the IP header,
				// so it cannot check the ICRC: Parser does it afterwards.
				if b.ICRCChecked {
					t.Errorf("plain parser checked the ICRC")
				}
				b.VerifyICRC(p.Layer(p.Decoded[1]).(gopacket.Layer).LayerContents(), udp.Contents)
			}
			if _, ok := got.(*Pause); ok && !IsMACControlDst(eth.DstMAC) {
				pause.Warnings |= WarnDestMAC
			}
			if _, ok := got.(*PFC); ok && !IsMACControlDst(eth.DstMAC) {
				pfc.Warnings |= WarnDestMAC
			}
			if d := sameLayer(got, want); d != "" {
				t.Errorf("DecodingLayerParser and Parser differ: %s", d)
			}
		})
	}
}

// checkNoExtBases checks that a BTH decoded by DecodeFromBytes left the
// Contents and Payload of its extension headers empty.
func checkNoExtBases(t *testing.T, b *BTH) {
	t.Helper()
	for _, x := range []*layers.BaseLayer{&b.RETH.BaseLayer, &b.AETH.BaseLayer, &b.ImmDt.BaseLayer, &b.DETH.BaseLayer, &b.CNP.BaseLayer} {
		if x.Contents != nil || x.Payload != nil {
			t.Errorf("DecodeFromBytes set an extension header's BaseLayer: %x / %x", x.Contents, x.Payload)
		}
	}
}

// TestParityExtensionLayers checks that NewPacket lists each extension
// header the opcode implies as a layer of its own, with the BTH's values.
func TestParityExtensionLayers(t *testing.T) {
	for _, f := range parityFrames(t) {
		if f.lt != LayerTypeBTH {
			continue
		}
		pkt := gopacket.NewPacket(f.frame, layers.LayerTypeEthernet, gopacket.Default)
		b := pkt.Layer(LayerTypeBTH).(*BTH)
		for _, x := range []struct {
			lt   gopacket.LayerType
			has  bool
			want any
		}{
			{LayerTypeRETH, b.HasRETH(), &b.RETH}, {LayerTypeAETH, b.HasAETH(), &b.AETH}, {LayerTypeImmDt, b.HasImmDt(), &b.ImmDt},
			{LayerTypeDETH, b.HasDETH(), &b.DETH}, {LayerTypeCNP, b.IsCNP(), &b.CNP},
		} {
			l := pkt.Layer(x.lt)
			if (l != nil) != x.has {
				t.Errorf("%s: layer %v present %v, want %v (%v)", f.name, x.lt, l != nil, x.has, pkt.Layers())
				continue
			}
			if l != nil && !reflect.DeepEqual(l, x.want) {
				t.Errorf("%s: %v layer %+v, BTH has %+v", f.name, x.lt, l, x.want)
			}
		}
		app := pkt.ApplicationLayer()
		switch {
		case len(b.Payload) == 0 && app != nil:
			t.Errorf("%s: application layer %x, BTH payload empty", f.name, app.Payload())
		case len(b.Payload) > 0 && (app == nil || !bytes.Equal(app.Payload(), b.Payload)):
			t.Errorf("%s: application layer %v, BTH payload %x", f.name, app, b.Payload)
		}
	}
}

// TestReuse decodes B into a layer that held A, for every pair of rows of
// the decode table of the same layer type (valid and invalid), and checks
// that the layer and the error equal those of decoding B fresh.
func TestReuse(t *testing.T) {
	rows := decodeRows(t)
	byType := map[reflect.Type][]decodeRow{}
	for _, r := range rows {
		ty := reflect.TypeOf(r.layer).Elem()
		byType[ty] = append(byType[ty], r)
	}
	for ty, rs := range byType {
		for _, a := range rs {
			for _, b := range rs {
				fresh := reflect.New(ty).Interface().(gopacket.DecodingLayer)
				errFresh := fresh.DecodeFromBytes(b.data, &feedback{})
				reused := reflect.New(ty).Interface().(gopacket.DecodingLayer)
				reused.DecodeFromBytes(a.data, &feedback{})
				errReused := reused.DecodeFromBytes(b.data, &feedback{})
				if fmt.Sprint(errFresh) != fmt.Sprint(errReused) {
					t.Errorf("%s after %s: error %v, fresh %v", b.name, a.name, errReused, errFresh)
				}
				if d := sameLayer(reused, fresh); d != "" {
					t.Errorf("%s after %s: %s", b.name, a.name, d)
				}
			}
		}
	}
}

// TestReuseParser decodes every parity frame after every other one with
// one Parser and compares with a fresh Parser.
func TestReuseParser(t *testing.T) {
	fs := parityFrames(t)
	p := NewParser()
	for _, b := range fs {
		fresh := NewParser()
		fresh.Decode(b.frame)
		for _, a := range fs {
			p.Decode(a.frame)
			p.Decode(b.frame)
			if d := sameLayer(p.Layer(b.lt), fresh.Layer(b.lt)); d != "" {
				t.Errorf("%s after %s: %s", b.name, a.name, d)
			}
		}
	}
}

// TestParserAllocs: decoding through Parser does not allocate, for every
// format, valid or with warnings.
func TestParserAllocs(t *testing.T) {
	fs := parityFrames(t)
	cnpBad := unhex(t, cnpV4Hex)
	cnpBad[len(cnpBad)-1] ^= 0xff
	fs = append(fs, namedFrame{"cnp-bad-icrc", cnpBad, LayerTypeBTH},
		namedFrame{"pfc-wrong-mac", at(unhex(t, pfcHex), 5, 2), LayerTypePFC})
	// The golden frames quote IPv4 in BTS and CIM, IPv6 in the postcard:
	// the other IP version of each too.
	q4, q6 := unhex(t, quoteIPv4Hex), unhex(t, quoteIPv6Hex)
	fs = append(fs,
		namedFrame{"bts-ipv6-quote", serialize(t, optsFix, udpStack(true, DefaultBTSPort, &BTS{PauseUS: 5, Quote: q6})...), LayerTypeBTS},
		namedFrame{"postcard-ipv4-quote", serialize(t, optsFix, udpStack(false, DefaultPostcardPort, &Postcard{SwitchID: macA, Quote: q4})...), LayerTypePostcard},
		namedFrame{"cim-l2-ipv6-msdu", serialize(t, optsFix, ethFor(macB, EthernetTypeCIM), &CIM{DA: macA, SA: macB, MSDU: q6}), LayerTypeCIM},
		namedFrame{"cim-l3-ipv6-msdu", serialize(t, optsFix, udpStack(true, DefaultCIMPort, &CIM{DA: macA, SA: macB, MSDU: q6})...), LayerTypeCIM})
	p := NewParser()
	for _, f := range fs {
		if err := p.Decode(f.frame); err != nil || !p.Has(f.lt) {
			t.Fatalf("%s: %v, decoded %v", f.name, err, p.Decoded)
		}
		if n := testing.AllocsPerRun(50, func() {
			if err := p.Decode(f.frame); err != nil {
				panic(err)
			}
		}); n != 0 {
			t.Errorf("%s: %v allocations per Parser.Decode", f.name, n)
		}
	}
	// Nor does a plain DecodingLayerParser over Ethernet, IP, UDP and ours.
	bp := newBenchParser()
	for _, f := range fs {
		if n := testing.AllocsPerRun(50, func() {
			if err := bp.dlp.DecodeLayers(f.frame, &bp.decoded); err != nil {
				panic(err)
			}
		}); n != 0 {
			t.Errorf("%s: %v allocations per DecodeLayers", f.name, n)
		}
	}
	// The helpers the models call per packet do not allocate either.
	bts := btsBody(t)[16:]
	bfcFilter := unhex(t, bfcHex)[14+12 : 14+12+16]
	if n := testing.AllocsPerRun(50, func() {
		f, _ := DecodeQuote(bts)
		h := BFCFlowHashes(f)
		FilterMatches(BFCVersion, bfcFilter, 4, &h)
		_, _ = ComputeICRC(cnpBad[14:])
	}); n != 0 {
		t.Errorf("DecodeQuote, BFCFlowHashes, FilterMatches, ComputeICRC: %v allocations", n)
	}
}
