// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"encoding/binary"
	"fmt"
	"net"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// The experimental L2 family (wire.md §7): EtherType 0x88B5 (IEEE local
// experimental 1), a 4-octet common header with the magic 0x4643 ("FC"), a
// subtype and a version, sent to the nearest-bridge group address.
const (
	EthernetTypeFCExp layers.EthernetType = 0x88b5
	FCMagic           uint16              = 0x4643
	FCVersion                             = 1 // of Floodgate frames; BFC pause is BFCVersion
	SubtypeBFC        uint8               = 1
	SubtypeFGCredit   uint8               = 2
	SubtypeFGPause    uint8               = 3
	fcHeaderLen                           = 4
)

// HopByHopDst is the destination MAC of BFC and Floodgate frames,
// 01:80:C2:00:00:0E.
var HopByHopDst = net.HardwareAddr{0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e}

// FCExp is the zero-length demultiplexing layer that DecodingLayerParser
// uses on EtherType 0x88B5: it reads the common header and hands the whole
// frame body (common header included) to the subtype's layer. A body with
// another magic is not ours: NextLayerType is then gopacket.LayerTypePayload
// and nothing is an error. gopacket.NewPacket skips this layer.
type FCExp struct {
	layers.BaseLayer
	Magic   uint16
	Subtype uint8
	Version uint8
}

// LayerType returns LayerTypeFCExp.
func (m *FCExp) LayerType() gopacket.LayerType { return LayerTypeFCExp }

// CanDecode returns LayerTypeFCExp.
func (m *FCExp) CanDecode() gopacket.LayerClass { return LayerTypeFCExp }

// NextLayerType returns the subtype's layer type, or
// gopacket.LayerTypePayload for another magic or an unknown subtype.
func (m *FCExp) NextLayerType() gopacket.LayerType { return fcNext(m.Magic, m.Subtype) }

// DecodeFromBytes reads the common header, if there is one.
func (m *FCExp) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*m = FCExp{}
	m.Contents, m.Payload = data[:0], data
	if len(data) < fcHeaderLen {
		return nil // too short for our magic: an unknown payload
	}
	m.Magic = binary.BigEndian.Uint16(data)
	m.Subtype = data[2]
	m.Version = data[3]
	return nil
}

func fcNext(magic uint16, subtype uint8) gopacket.LayerType {
	if magic != FCMagic {
		return gopacket.LayerTypePayload
	}
	switch subtype {
	case SubtypeBFC:
		return LayerTypeBFC
	case SubtypeFGCredit:
		return LayerTypeFGCredit
	case SubtypeFGPause:
		return LayerTypeFGPause
	}
	return gopacket.LayerTypePayload
}

func decodeFCExp(data []byte, p gopacket.PacketBuilder) error {
	if len(data) < fcHeaderLen {
		return p.NextDecoder(gopacket.LayerTypePayload)
	}
	return p.NextDecoder(fcNext(binary.BigEndian.Uint16(data), data[2]))
}

// decodeFCHeader checks the common header of a subtype layer: length,
// magic, subtype and version. A well-formed header is one comparison of
// its 4 octets; anything else goes to fcHeaderErr, which names the fault.
func decodeFCHeader(layer string, data []byte, subtype uint8, need int, df gopacket.DecodeFeedback) (uint8, error) {
	if len(data) >= need && fcHeaderOK(data, subtype) {
		return fcVersion(subtype), nil
	}
	return fcHeaderErr(layer, data, subtype, need, df)
}

// fcVersion is the version encoders write for the subtype: BFCVersion for
// a BFC pause, FCVersion for the others.
func fcVersion(subtype uint8) uint8 {
	if subtype == SubtypeBFC {
		return BFCVersion
	}
	return FCVersion
}

// fcHeaderOK reports whether data starts with a whole common header of the
// subtype in the version encoders write: magic, subtype and version
// compared as one 4-octet word. The straight decode paths test it first.
func fcHeaderOK(data []byte, subtype uint8) bool {
	return len(data) >= fcHeaderLen && binary.BigEndian.Uint32(data) == uint32(FCMagic)<<16|uint32(subtype)<<8|uint32(fcVersion(subtype))
}

// fcHeaderErr is decodeFCHeader for a header that is cut or wrong: it
// returns the version octet (when there is one) and the error.
func fcHeaderErr(layer string, data []byte, subtype uint8, need int, df gopacket.DecodeFeedback) (uint8, error) {
	if len(data) < need {
		df.SetTruncated()
		field, off := "header", 0
		var v uint8
		if len(data) >= fcHeaderLen {
			// The common header was captured: its version is known.
			field, off, v = "body", fcHeaderLen, data[3]
		}
		return v, truncated(layer, field, off, need, len(data))
	}
	if m := binary.BigEndian.Uint16(data); m != FCMagic {
		return 0, errAt(layer, "magic", 0, ErrBadValue, fmt.Sprintf("magic 0x%04x, want 0x4643", m))
	}
	if data[2] != subtype {
		return 0, errAt(layer, "subtype", 2, ErrBadValue, fmt.Sprintf("subtype %d, want %d", data[2], subtype))
	}
	if v := fcVersion(subtype); data[3] != v && (subtype != SubtypeBFC || data[3] != BFCVersion1) {
		return data[3], errAt(layer, "version", 3, ErrVersion, fmt.Sprintf("version %d, want %d", data[3], v))
	}
	return data[3], nil
}

func putFCHeader(buf []byte, subtype, version uint8) {
	binary.BigEndian.PutUint16(buf, FCMagic)
	buf[2], buf[3] = subtype, version
}
