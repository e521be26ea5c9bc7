// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"encoding/binary"
	"net"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// MAC Control (EtherType 0x8808) opcodes and addresses.
const (
	EthernetTypeMACControl layers.EthernetType = 0x8808
	OpcodePause            uint16              = 0x0001
	OpcodePFC              uint16              = 0x0101
	// macControlLen is the MAC Control frame body: 46 octets after the
	// EtherType, opcode and reserved pad included.
	macControlLen = 46
)

// MACControlDst is the destination MAC of PAUSE and PFC frames,
// 01:80:C2:00:00:01. Frames to other destinations decode with WarnDestMAC.
var MACControlDst = net.HardwareAddr{0x01, 0x80, 0xc2, 0x00, 0x00, 0x01}

// IsMACControlDst reports whether mac is 01:80:C2:00:00:01.
func IsMACControlDst(mac net.HardwareAddr) bool {
	return len(mac) == 6 && mac[0] == 0x01 && mac[1] == 0x80 && mac[2] == 0xc2 &&
		mac[3] == 0 && mac[4] == 0 && mac[5] == 0x01
}

// MACControl is the zero-length demultiplexing layer that DecodingLayerParser
// uses on EtherType 0x8808: it reads the opcode and hands the whole body to
// the Pause or PFC layer. Its Payload is the whole MAC Control body.
// gopacket.NewPacket skips it and produces Pause or PFC directly.
type MACControl struct {
	layers.BaseLayer
	Opcode uint16
}

// LayerType returns LayerTypeMACControl.
func (m *MACControl) LayerType() gopacket.LayerType { return LayerTypeMACControl }

// CanDecode returns LayerTypeMACControl.
func (m *MACControl) CanDecode() gopacket.LayerClass { return LayerTypeMACControl }

// NextLayerType returns LayerTypePause or LayerTypePFC by opcode, and
// gopacket.LayerTypePayload for other opcodes.
func (m *MACControl) NextLayerType() gopacket.LayerType { return macControlNext(m.Opcode) }

// DecodeFromBytes reads the opcode; it needs 2 octets.
func (m *MACControl) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*m = MACControl{}
	if len(data) < 2 {
		df.SetTruncated()
		return truncated("maccontrol", "opcode", 0, 2, len(data))
	}
	m.Opcode = binary.BigEndian.Uint16(data)
	m.Contents, m.Payload = data[:0], data
	return nil
}

func macControlNext(op uint16) gopacket.LayerType {
	switch op {
	case OpcodePause:
		return LayerTypePause
	case OpcodePFC:
		return LayerTypePFC
	}
	return gopacket.LayerTypePayload
}

// decodeMACControl is the NewPacket decoder of EtherType 0x8808.
func decodeMACControl(data []byte, p gopacket.PacketBuilder) error {
	if len(data) < 2 {
		p.SetTruncated()
		return truncated("maccontrol", "opcode", 0, 2, len(data))
	}
	return p.NextDecoder(macControlNext(binary.BigEndian.Uint16(data)))
}

// allZero reports whether b holds only zero octets. It reads 8 octets at
// a time, the last 8 overlapping the ones before when the length is not a
// multiple of 8: reserved pads are checked on every frame.
func allZero(b []byte) bool {
	n := len(b)
	if n < 8 {
		var acc byte
		for _, c := range b {
			acc |= c
		}
		return acc == 0
	}
	acc := binary.LittleEndian.Uint64(b[n-8:])
	for i := 0; i < n-8; i += 8 {
		acc |= binary.LittleEndian.Uint64(b[i:])
	}
	return acc == 0
}

// checkLinkDst adds WarnDestMAC to w when the packet being built has an
// Ethernet link layer whose destination is not the MAC Control address.
func checkLinkDst(p gopacket.PacketBuilder, w *Warnings) {
	if pk, ok := p.(gopacket.Packet); ok {
		if eth, ok := pk.LinkLayer().(*layers.Ethernet); ok && !IsMACControlDst(eth.DstMAC) {
			*w |= WarnDestMAC
		}
	}
}
