// SPDX-License-Identifier: Apache-2.0

package bfc

import (
	"encoding/binary"
	"net"

	"github.com/gopacket/gopacket"
	glayers "github.com/gopacket/gopacket/layers"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

// HopByHopDst is the destination MAC of BFC pause frames,
// 01:80:C2:00:00:0E (wire.md code points).
var HopByHopDst = device.MAC{0x01, 0x80, 0xC2, 0x00, 0x00, 0x0E}

// VFID returns the virtual flow id of a device flow key: CRC-32C of the
// 5-tuple as wire.md §7.1 defines it, computed by layers.VFID (the QP is not
// part of the key).
func VFID(k device.FlowKey) uint32 {
	return layers.VFID(layers.Flow{Src: k.Src, Dst: k.Dst, Proto: k.Proto, SrcPort: k.SrcPort, DstPort: k.DstPort})
}

// Hashes returns the stage hashes of a device flow key (wire.md §7.1,
// layers.BFCFlowHashes): hash s indexes stage s of a version 2 filter, and
// hash 0 is the VFID.
func Hashes(k device.FlowKey) layers.BFCHashes {
	return layers.BFCFlowHashes(layers.Flow{Src: k.Src, Dst: k.Dst, Proto: k.Proto, SrcPort: k.SrcPort, DstPort: k.DstPort})
}

func metaVFID(m *device.Meta) uint32 {
	return layers.VFID(layers.Flow{Src: m.Src, Dst: m.Dst, Proto: m.Proto, SrcPort: m.SrcPort, DstPort: m.DstPort})
}

func metaHashes(m *device.Meta) layers.BFCHashes {
	return layers.BFCFlowHashes(layers.Flow{Src: m.Src, Dst: m.Dst, Proto: m.Proto, SrcPort: m.SrcPort, DstPort: m.DstPort})
}

// builder serializes BFC pause frames with gopacket into a reused buffer.
type builder struct {
	buf gopacket.SerializeBuffer
	eth glayers.Ethernet
	bfc layers.BFC
	src [6]byte
	dst [6]byte
}

// build returns the frame (valid until the next call): Ethernet from src to
// 01:80:C2:00:00:0E, EtherType 0x88B5, then the BFC pause of wire.md §7.1.
func (b *builder) build(src device.MAC, k int, seq uint32, filter []byte) ([]byte, error) {
	if b.buf == nil {
		b.buf = gopacket.NewSerializeBufferExpectedSize(14, 12+len(filter))
	}
	if err := b.buf.Clear(); err != nil {
		return nil, err
	}
	b.src, b.dst = src, HopByHopDst
	b.eth = glayers.Ethernet{SrcMAC: net.HardwareAddr(b.src[:]), DstMAC: net.HardwareAddr(b.dst[:]), EthernetType: layers.EthernetTypeFCExp}
	b.bfc = layers.BFC{Version: layers.BFCVersion, Hashes: uint8(k), FilterLen: uint16(len(filter)), Seq: seq, Filter: filter}
	opts := gopacket.SerializeOptions{}
	if err := b.bfc.SerializeTo(b.buf, opts); err != nil {
		return nil, err
	}
	if err := b.eth.SerializeTo(b.buf, opts); err != nil {
		return nil, err
	}
	return b.buf.Bytes(), nil
}

// AppendFrame appends to dst a BFC pause frame from src with k hashes,
// sequence seq and the given filter (L = len(filter) octets, a positive
// multiple of k, at most 1024). The frame is built with layers.BFC.
func AppendFrame(dst []byte, src device.MAC, k int, seq uint32, filter []byte) ([]byte, error) {
	var b builder
	f, err := b.build(src, k, seq, filter)
	if err != nil {
		return dst, err
	}
	return append(dst, f...), nil
}

// isBFC reports whether a parsed frame carries a BFC pause (the common
// header of wire.md §7 with subtype 1), without decoding it.
func isBFC(frame []byte, m *device.Meta) bool {
	if m.Kind != device.KindExperimental || m.L3+3 > len(frame) {
		return false
	}
	b := frame[m.L3:]
	return binary.BigEndian.Uint16(b) == layers.FCMagic && b[2] == layers.SubtypeBFC
}

// Decode decodes the BFC pause frame in an Ethernet frame into l (whose
// Filter then aliases frame). It returns ErrNotBFC for another frame and
// the layers error for a malformed one.
func Decode(frame []byte, l *layers.BFC) error {
	var m device.Meta
	cp := device.Codepoints{}
	device.Parse(frame, &m, &cp)
	if !isBFC(frame, &m) {
		return ErrNotBFC
	}
	return l.DecodeFromBytes(frame[m.L3:], gopacket.NilDecodeFeedback)
}
