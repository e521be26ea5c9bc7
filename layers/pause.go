// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"encoding/binary"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Pause is an IEEE 802.3x PAUSE frame (wire.md §1), the MAC Control body
// after EtherType 0x8808:
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|        opcode = 0x0001        |     pause_time (quanta)       |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                    reserved (42 octets) ...                   |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// One quantum is 512 bit times at the receiving link's speed. Quanta 0
// means resume now. Field names: pause.opcode, pause.quanta.
type Pause struct {
	layers.BaseLayer
	Opcode uint16 // always OpcodePause once decoded; written as OpcodePause
	Quanta uint16
	// Padding holds octets after the 46-octet body (e.g. a VLAN-tagged
	// frame's extra pad); it is not an error.
	Padding  []byte
	Warnings Warnings
}

// LayerType returns LayerTypePause.
func (m *Pause) LayerType() gopacket.LayerType { return LayerTypePause }

// CanDecode returns LayerTypePause.
func (m *Pause) CanDecode() gopacket.LayerClass { return LayerTypePause }

// NextLayerType returns gopacket.LayerTypeZero: nothing follows a PAUSE.
func (m *Pause) NextLayerType() gopacket.LayerType { return gopacket.LayerTypeZero }

// DecodeFromBytes decodes the MAC Control body, opcode first. It needs the
// opcode and pause_time (4 octets); a body shorter than 46 octets decodes
// with WarnTruncatedPad, non-zero reserved octets with WarnReserved.
func (m *Pause) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*m = Pause{Padding: m.Padding[:0]}
	if len(data) < 4 {
		df.SetTruncated()
		if len(data) < 2 {
			return truncated("pause", "opcode", 0, 4, len(data))
		}
		m.Opcode, m.Contents = binary.BigEndian.Uint16(data), data
		return truncated("pause", "quanta", 2, 4, len(data))
	}
	m.Opcode = binary.BigEndian.Uint16(data)
	if m.Opcode != OpcodePause {
		return errAt("pause", "opcode", 0, ErrBadValue, "not 0x0001")
	}
	m.Quanta = binary.BigEndian.Uint16(data[2:])
	n := len(data)
	if n < macControlLen {
		m.Warnings |= WarnTruncatedPad
	} else {
		n = macControlLen
		m.Padding = data[n:]
	}
	if !allZero(data[4:n]) {
		m.Warnings |= WarnReserved
	}
	m.Contents, m.Payload = data[:n], nil
	return nil
}

// SerializeTo writes the 46-octet body: opcode 0x0001, quanta, zero pad.
func (m *Pause) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(macControlLen)
	if err != nil {
		return err
	}
	clear(buf)
	binary.BigEndian.PutUint16(buf, OpcodePause)
	binary.BigEndian.PutUint16(buf[2:], m.Quanta)
	return nil
}

func decodePause(data []byte, p gopacket.PacketBuilder) error {
	m := &Pause{}
	err := m.DecodeFromBytes(data, p)
	if err == nil {
		checkLinkDst(p, &m.Warnings)
	}
	p.AddLayer(m)
	return err
}
