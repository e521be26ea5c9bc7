// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// TestDecodeLayersMatchesGopacket checks Parser.decodeLayers against the
// gopacket DecodingLayerParser it replaces, over the same layers: the
// golden frames, every prefix of them and random mutations of their first
// 64 octets, from each first layer DecodeLink uses. Both must list the
// same layers, return the same error and set the same truncation flag.
func TestDecodeLayersMatchesGopacket(t *testing.T) {
	var frames [][]byte
	for _, tc := range goldenCases() {
		frames = append(frames, mutations(unhex(t, tc.hex), 300)...)
	}
	n := 0
	for _, first := range []gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeIPv6,
		layers.LayerTypeLinuxSLL, layers.LayerTypeLinuxSLL2} {
		p, q := NewParser(), NewParser()
		p.dlp, p.first = p.newDLP(first), first
		q.dlp = q.newDLP(first)
		for _, f := range frames {
			// The IP and SLL parsers see the frame past its Ethernet header.
			if first != layers.LayerTypeEthernet {
				if len(f) < 14 {
					continue
				}
				f = f[14:]
			}
			q.Dot1Q.NTags, q.UDP.Partial = 0, false
			p.Dot1Q.NTags, p.UDP.Partial = 0, false
			werr := q.dlp.DecodeLayers(f, &q.Decoded)
			gerr := p.decodeLayers(f)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) || !slices.Equal(p.Decoded, q.Decoded) || p.dlp.Truncated != q.dlp.Truncated {
				t.Fatalf("first %v, frame %x:\n got %v %v truncated %v\nwant %v %v truncated %v",
					first, f, p.Decoded, gerr, p.dlp.Truncated, q.Decoded, werr, q.dlp.Truncated)
			}
			n++
		}
	}
	if n < 10000 {
		t.Fatalf("only %d frames", n)
	}
}

// panicLayer panics in DecodeFromBytes.
type panicLayer struct{ gopacket.Payload }

func (panicLayer) CanDecode() gopacket.LayerClass { return layers.LayerTypeDot1Q }
func (panicLayer) DecodeFromBytes([]byte, gopacket.DecodeFeedback) error {
	panic("boom")
}

// TestDecodeLayersPanic checks a decoder's panic comes back as the error
// gopacket's parser makes of it, with the layers before it listed.
func TestDecodeLayersPanic(t *testing.T) {
	p := NewParser()
	p.dlc = new(decoders)
	p.dlc.Put(&p.Eth)
	p.dlc.Put(panicLayer{})
	frame := make([]byte, 60)
	frame[12], frame[13] = 0x81, 0x00 // 802.1Q: found through the container
	err := p.decodeLayers(frame)
	if err == nil || err.Error() != "panic: boom" || !slices.Equal(p.Decoded, []gopacket.LayerType{layers.LayerTypeEthernet}) {
		t.Fatalf("got %v, %v", err, p.Decoded)
	}
}

// TestDecoders: the Parser's table finds each decoder NewParser puts by
// every type it decodes, and nothing for the types it has no decoder for
// (inside either range and outside both); a type outside the ranges is
// refused loudly.
func TestDecoders(t *testing.T) {
	p := NewParser()
	want := map[gopacket.LayerType]bool{}
	for _, d := range []gopacket.DecodingLayer{&p.Eth, &p.IPv4, &p.IPv6, &p.IPv6Ext, &p.UDP, &p.BTH, &p.PFC, &p.FGPause, sllDecoder{&p.SLL}, sll2Decoder{&p.SLL2}, &p.ESP} {
		for _, typ := range d.CanDecode().LayerTypes() {
			want[typ] = true
			got, ok := p.dlc.Decoder(typ)
			if !ok || got != d {
				t.Errorf("type %v (%d): decoder %v, %v", typ, typ, got, ok)
			}
		}
	}
	for _, typ := range []gopacket.LayerType{0, layers.LayerTypeTCP, lowTypes - 1, lowTypes, firstOurType - 1, LayerTypeRETH, LayerTypeCNP, firstOurType + ourTypes - 1, firstOurType + ourTypes, 1 << 20} {
		if d, ok := p.dlc.Decoder(typ); ok || d != nil {
			t.Errorf("type %d: decoder %v, %v; want none", typ, d, ok)
		}
	}
	for _, typ := range []gopacket.LayerType{lowTypes, firstOurType - 1, firstOurType + ourTypes} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Put of a decoder of type %d outside the table did not panic", typ)
				}
			}()
			new(decoders).Put(typedLayer(typ))
		}()
	}
}

// typedLayer is a decoder of one layer type.
type typedLayer gopacket.LayerType

func (l typedLayer) CanDecode() gopacket.LayerClass                      { return gopacket.LayerType(l) }
func (typedLayer) DecodeFromBytes([]byte, gopacket.DecodeFeedback) error { return nil }
func (typedLayer) NextLayerType() gopacket.LayerType                     { return gopacket.LayerTypeZero }
func (typedLayer) LayerPayload() []byte                                  { return nil }
