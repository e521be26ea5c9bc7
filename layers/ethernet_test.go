// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"fmt"
	"slices"
	"testing"
	"unsafe"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// TestEthernetSkipsDemux decodes MAC Control and 0x88B5 frames, good, cut
// and foreign, through a DecodingLayerParser with gopacket's Ethernet and
// Dot1Q (so through MACControl and FCExp) and through one with ours, and
// checks that they agree: the same layers apart from the demultiplexing
// layer, which ours keeps only where it does not lead to one of our
// formats, the same error, truncation and fields.
func TestEthernetSkipsDemux(t *testing.T) {
	type stack struct {
		mc    MACControl
		pause Pause
		pfc   PFC
		fc    FCExp
		bfc   BFC
		fgc   FGCredit
		fgp   FGPause
		pl    gopacket.Payload
		dlp   *gopacket.DecodingLayerParser
		dec   []gopacket.LayerType
	}
	mk := func(eth, dot1q gopacket.DecodingLayer) *stack {
		s := &stack{}
		s.dlp = gopacket.NewDecodingLayerParser(layers.LayerTypeEthernet, eth, dot1q,
			&s.mc, &s.pause, &s.pfc, &s.fc, &s.bfc, &s.fgc, &s.fgp, &s.pl)
		s.dlp.IgnoreUnsupported = true
		return s
	}
	old, ours := mk(&layers.Ethernet{}, &layers.Dot1Q{}), mk(&Ethernet{}, &Dot1Q{})
	layerOf := func(s *stack, lt gopacket.LayerType) gopacket.Layer {
		return map[gopacket.LayerType]gopacket.Layer{LayerTypePause: &s.pause, LayerTypePFC: &s.pfc,
			LayerTypeBFC: &s.bfc, LayerTypeFGCredit: &s.fgc, LayerTypeFGPause: &s.fgp}[lt]
	}
	ourType := func(lt gopacket.LayerType) bool { return layerOf(old, lt) != nil }
	notDemux := func(lt gopacket.LayerType) bool { return lt == LayerTypeMACControl || lt == LayerTypeFCExp }

	var frames [][]byte
	for _, h := range []string{pauseHex, pfcHex, bfcHex, fgCreditHex, fgPauseHex} {
		f := unhex(t, h)
		frames = append(frames, f,
			cat(f[:12], []byte{0x81, 0x00, 0x60, 0x64}, f[12:]), // VLAN-tagged
			at(f, 14, 0x12), at(f, 15, 0x02), at(f, 16, 0x09), at(f, 17, 0x02), // other opcode, magic, subtype, version
			at(f, 12, 0x00, 0x10)) // an 802.3 length: LLC
		for n := 14; n <= 14+24 && n <= len(f); n++ {
			frames = append(frames, f[:n])
		}
	}
	for _, f := range frames {
		errOld := old.dlp.DecodeLayers(f, &old.dec)
		errOurs := ours.dlp.DecodeLayers(f, &ours.dec)
		if (errOld == nil) != (errOurs == nil) || errOld != nil && errOld.Error() != errOurs.Error() {
			t.Errorf("%x: error %v, want %v", f, errOurs, errOld)
		}
		if old.dlp.Truncated != ours.dlp.Truncated {
			t.Errorf("%x: truncated %v, want %v", f, ours.dlp.Truncated, old.dlp.Truncated)
		}
		want := old.dec
		// The demultiplexing layer stays where it does not name one of
		// our formats.
		if ourType(old.mc.NextLayerType()) && slices.Contains(want, LayerTypeMACControl) ||
			ourType(old.fc.NextLayerType()) && slices.Contains(want, LayerTypeFCExp) {
			want = slices.DeleteFunc(slices.Clone(want), notDemux)
		}
		if !slices.Equal(ours.dec, want) {
			t.Errorf("%x: decoded %v, want %v (gopacket's Ethernet: %v)", f, ours.dec, want, old.dec)
		}
		if errOld == nil && len(old.dec) > 0 {
			if lt := old.dec[len(old.dec)-1]; ourType(lt) {
				if d := sameLayer(layerOf(ours, lt), layerOf(old, lt)); d != "" {
					t.Errorf("%x: %v differs: %s", f, lt, d)
				}
			}
		}
	}
}

// TestEthernetNextLayerType checks that Ethernet and Dot1Q leave every
// EtherType but 0x8808 and 0x88B5 to gopacket.
func TestEthernetNextLayerType(t *testing.T) {
	for _, et := range []layers.EthernetType{layers.EthernetTypeIPv4, layers.EthernetTypeIPv6, layers.EthernetTypeDot1Q,
		layers.EthernetTypeARP, EthernetTypeCIM, 0x88b6, layers.EthernetTypeLLC} {
		body := unhex(t, bfcHex)[14:]
		e := Ethernet{layers.Ethernet{EthernetType: et, BaseLayer: layers.BaseLayer{Payload: body}}}
		if got, want := e.NextLayerType(), e.Ethernet.NextLayerType(); got != want {
			t.Errorf("Ethernet %v: next %v, want %v", et, got, want)
		}
		d := Dot1Q{Dot1Q: layers.Dot1Q{Type: et, BaseLayer: layers.BaseLayer{Payload: body}}}
		if got, want := d.NextLayerType(), d.Dot1Q.NextLayerType(); got != want {
			t.Errorf("Dot1Q %v: next %v, want %v", et, got, want)
		}
	}
}

// TestEthernetDecodeMatchesGopacket: our DecodeFromBytes leaves exactly
// what gopacket's does (every field, the slices' octets, starts and
// capacities, the truncation feedback, the error) for every length up to
// a full header and beyond, EtherTypes on both sides of 0x0600 (a length,
// LLC, below), with a payload longer, equal to and shorter than an LLC
// length.
func TestEthernetDecodeMatchesGopacket(t *testing.T) {
	same := func(a, b []byte) bool {
		return len(a) == len(b) && cap(a) == cap(b) && (len(a) == 0 && cap(a) == 0 || unsafe.SliceData(a) == unsafe.SliceData(b))
	}
	for _, et := range []uint16{0x0000, 0x0001, 0x002e, 0x05ff, 0x0600, 0x0601, 0x0800, 0x8100, 0x86dd, 0x8808, 0x88b5, 0xffff} {
		for n := 0; n <= 80; n++ {
			data := make([]byte, n, n+7)
			for i := range data {
				data[i] = byte(i*37 + 11)
			}
			if n >= 14 {
				data[12], data[13] = byte(et>>8), byte(et)
			}
			var ours Ethernet
			var theirs layers.Ethernet
			// Stale fields of an earlier frame, which both must overwrite.
			ours.Length, theirs.Length = 99, 99
			ours.EthernetType, theirs.EthernetType = 0x1234, 0x1234
			dfo, dft := &feedback{}, &feedback{}
			erro, errt := ours.DecodeFromBytes(data, dfo), theirs.DecodeFromBytes(data, dft)
			what := fmt.Sprintf("EtherType %#04x, %d octets", et, n)
			if fmt.Sprint(erro) != fmt.Sprint(errt) || *dfo != *dft {
				t.Fatalf("%s: error %v, truncated %v; gopacket %v, %v", what, erro, *dfo, errt, *dft)
			}
			if errt != nil {
				continue
			}
			o, g := &ours.Ethernet, &theirs
			if o.EthernetType != g.EthernetType || o.Length != g.Length || !same(o.SrcMAC, g.SrcMAC) || !same(o.DstMAC, g.DstMAC) ||
				!same(o.Contents, g.Contents) || !same(o.Payload, g.Payload) {
				t.Fatalf("%s:\nours    %+v\ngopacket %+v", what, *o, *g)
			}
		}
	}
}
