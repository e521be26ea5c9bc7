// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"strconv"

	"github.com/gopacket/gopacket"
)

// Layer-type ranges the decoders table indexes: gopacket's types below
// lowTypes (its LinuxSLL2 is 276), ours from firstOurType (layertypes.go)
// on, ourTypes of them.
const (
	lowTypes     = 288
	firstOurType = 1500
	ourTypes     = 32
)

// decoders is a Parser's DecodingLayerContainer: the decoders indexed by
// layer type in two arrays, one for gopacket's types and one for ours, so
// that finding a layer's decoder is an index, not gopacket's map lookup
// (10-25% of a decode). gopacket's DecodingLayerSparse indexes them the
// same way in one slice with an entry for every type up to our last:
// 1517 entries (24 KiB) grown by appending at each Put, fresh heap pages
// that made NewParser a tenth of sfcdump's start-up (it makes three).
type decoders struct {
	low  [lowTypes]gopacket.DecodingLayer
	ours [ourTypes]gopacket.DecodingLayer
}

// slot returns the entry of typ, nil for a type outside both ranges.
func (dc *decoders) slot(typ gopacket.LayerType) *gopacket.DecodingLayer {
	switch {
	case typ < lowTypes:
		return &dc.low[typ]
	case typ >= firstOurType && typ-firstOurType < ourTypes:
		return &dc.ours[typ-firstOurType]
	}
	return nil
}

// Put implements gopacket.DecodingLayerContainer. A type outside the
// ranges is a mistake in this package (a new layer type numbered past
// them): it panics, in NewParser, which every test runs.
func (dc *decoders) Put(d gopacket.DecodingLayer) gopacket.DecodingLayerContainer {
	for _, typ := range d.CanDecode().LayerTypes() {
		e := dc.slot(typ)
		if e == nil {
			panic("layers: layer type " + strconv.Itoa(int(typ)) + " is outside the Parser's decoder table")
		}
		*e = d
	}
	return dc
}

// Decoder implements gopacket.DecodingLayerContainer.
func (dc *decoders) Decoder(typ gopacket.LayerType) (gopacket.DecodingLayer, bool) {
	if e := dc.slot(typ); e != nil && *e != nil {
		return *e, true
	}
	return nil, false
}

// LayersDecoder implements gopacket.DecodingLayerContainer.
func (dc *decoders) LayersDecoder(first gopacket.LayerType, df gopacket.DecodeFeedback) gopacket.DecodingLayerFunc {
	return gopacket.LayersDecoder(dc, first, df)
}
