// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"encoding/binary"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// PFC is an IEEE 802.1Qbb priority flow control frame (wire.md §2), the MAC
// Control body after EtherType 0x8808:
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|        opcode = 0x0101        | reserved (0)  |  e7 ... e0    |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|            time[0]            |            time[1]            |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|              ...              |            time[7]            |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                    reserved (26 octets) ...                   |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// Bit n of the class-enable vector's low octet enables priority n; time[n]
// counts only where its bit is set. Field names: pfc.opcode,
// pfc.enable_vector (all 16 bits), pfc.c0..c7, pfc.time_c0..time_c7.
type PFC struct {
	layers.BaseLayer
	Opcode uint16 // always OpcodePFC once decoded; written as OpcodePFC
	// EnableVector is the whole 16-bit class-enable vector as on the wire;
	// its high octet is reserved (non-zero decodes with WarnReserved).
	EnableVector uint16
	// Times holds time[0..7] in quanta, priority 0 first.
	Times    [8]uint16
	Padding  []byte
	Warnings Warnings
}

// LayerType returns LayerTypePFC.
func (m *PFC) LayerType() gopacket.LayerType { return LayerTypePFC }

// CanDecode returns LayerTypePFC.
func (m *PFC) CanDecode() gopacket.LayerClass { return LayerTypePFC }

// NextLayerType returns gopacket.LayerTypeZero: nothing follows a PFC frame.
func (m *PFC) NextLayerType() gopacket.LayerType { return gopacket.LayerTypeZero }

// Enabled reports whether priority p (0..7) is enabled.
func (m *PFC) Enabled(p int) bool { return p >= 0 && p < 8 && m.EnableVector&(1<<p) != 0 }

// Enable sets priority p's enable bit and its time in quanta.
func (m *PFC) Enable(p int, quanta uint16) {
	m.EnableVector |= 1 << p
	m.Times[p] = quanta
}

// DecodeFromBytes decodes the MAC Control body, opcode first. It needs 20
// octets; a body shorter than 46 decodes with WarnTruncatedPad.
func (m *PFC) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < 20 || binary.BigEndian.Uint16(data) != OpcodePFC {
		return m.decodeBad(data, df)
	}
	// From here every field is set (clearing the whole layer first cost
	// more than the rest of the decode).
	m.Opcode = OpcodePFC
	m.EnableVector = binary.BigEndian.Uint16(data[2:])
	var w Warnings
	if m.EnableVector&0xff00 != 0 {
		w = WarnReserved
	}
	t, tm := data[4:20:20], &m.Times // unrolled: a loop costs more than the loads
	tm[0], tm[1], tm[2], tm[3] = binary.BigEndian.Uint16(t[0:]), binary.BigEndian.Uint16(t[2:]), binary.BigEndian.Uint16(t[4:]), binary.BigEndian.Uint16(t[6:])
	tm[4], tm[5], tm[6], tm[7] = binary.BigEndian.Uint16(t[8:]), binary.BigEndian.Uint16(t[10:]), binary.BigEndian.Uint16(t[12:]), binary.BigEndian.Uint16(t[14:])
	n := len(data)
	if n < macControlLen {
		w |= WarnTruncatedPad
		m.Padding = m.Padding[:0]
	} else {
		n = macControlLen
		m.Padding = data[n:]
	}
	if !allZero(data[20:n]) {
		w |= WarnReserved
	}
	m.Warnings = w
	m.Contents, m.Payload = data[:n], nil
	return nil
}

// decodeBad handles a body too short for the times, or with another
// opcode: every whole field before the cut (the opcode, the vector, the
// times), and the error.
func (m *PFC) decodeBad(data []byte, df gopacket.DecodeFeedback) error {
	*m = PFC{Padding: m.Padding[:0]}
	if len(data) < 20 {
		df.SetTruncated()
		if len(data) >= 2 {
			m.Opcode = binary.BigEndian.Uint16(data)
		}
		if len(data) >= 4 {
			m.EnableVector = binary.BigEndian.Uint16(data[2:])
		}
		for i := 0; 6+2*i <= len(data); i++ {
			m.Times[i] = binary.BigEndian.Uint16(data[4+2*i:])
		}
		m.Contents = data
		return truncated("pfc", pfcFieldAt(len(data)), len(data)&^1, 20, len(data))
	}
	m.Opcode = binary.BigEndian.Uint16(data)
	return errAt("pfc", "opcode", 0, ErrBadValue, "not 0x0101")
}

var pfcFields = [...]string{"opcode", "enable_vector", "time_c0", "time_c1", "time_c2", "time_c3", "time_c4", "time_c5", "time_c6", "time_c7"}

// pfcFieldAt names the field that starts at or covers offset off.
func pfcFieldAt(off int) string { return pfcFields[min(off/2, len(pfcFields)-1)] }

// SerializeTo writes the 46-octet body: opcode 0x0101, the vector, the
// eight times and the zero pad.
func (m *PFC) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(macControlLen)
	if err != nil {
		return err
	}
	clear(buf)
	binary.BigEndian.PutUint16(buf, OpcodePFC)
	binary.BigEndian.PutUint16(buf[2:], m.EnableVector)
	for i, t := range m.Times {
		binary.BigEndian.PutUint16(buf[4+2*i:], t)
	}
	return nil
}

func decodePFC(data []byte, p gopacket.PacketBuilder) error {
	m := &PFC{}
	err := m.DecodeFromBytes(data, p)
	if err == nil {
		checkLinkDst(p, &m.Warnings)
	}
	p.AddLayer(m)
	return err
}
