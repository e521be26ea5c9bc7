// SPDX-License-Identifier: Apache-2.0

package floodgate

import (
	"encoding/binary"
	"net"
	"net/netip"

	"github.com/gopacket/gopacket"
	glayers "github.com/gopacket/gopacket/layers"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

// HopByHopDst is the destination MAC of Floodgate frames,
// 01:80:C2:00:00:0E (wire.md code points).
var HopByHopDst = device.MAC{0x01, 0x80, 0xC2, 0x00, 0x00, 0x0E}

// builder serializes Floodgate frames with gopacket into a reused buffer.
type builder struct {
	buf      gopacket.SerializeBuffer
	eth      glayers.Ethernet
	credit   layers.FGCredit
	pause    layers.FGPause
	pe       [1]layers.DstPauseEntry
	src, dst [6]byte
}

func (b *builder) begin(src device.MAC) error {
	if b.buf == nil {
		b.buf = gopacket.NewSerializeBufferExpectedSize(14, 256)
	}
	b.src, b.dst = src, HopByHopDst
	b.eth = glayers.Ethernet{SrcMAC: net.HardwareAddr(b.src[:]), DstMAC: net.HardwareAddr(b.dst[:]), EthernetType: layers.EthernetTypeFCExp}
	return b.buf.Clear()
}

func (b *builder) finish() ([]byte, error) {
	if err := b.eth.SerializeTo(b.buf, gopacket.SerializeOptions{}); err != nil {
		return nil, err
	}
	return b.buf.Bytes(), nil
}

// creditFrame returns a credit frame (valid until the next build) with
// the entries, all of one family.
func (b *builder) creditFrame(src device.MAC, family uint8, entries []layers.CreditEntry) ([]byte, error) {
	if err := b.begin(src); err != nil {
		return nil, err
	}
	b.credit = layers.FGCredit{Version: layers.FCVersion, Family: family, Count: uint16(len(entries)), Entries: entries}
	if err := b.credit.SerializeTo(b.buf, gopacket.SerializeOptions{}); err != nil {
		return nil, err
	}
	return b.finish()
}

// pauseFrame returns a dst-pause frame with one entry.
func (b *builder) pauseFrame(src device.MAC, dst netip.Addr, us uint16) ([]byte, error) {
	if err := b.begin(src); err != nil {
		return nil, err
	}
	b.pe[0] = layers.DstPauseEntry{PauseUS: us, Dst: dst}
	b.pause = layers.FGPause{Version: layers.FCVersion, Family: family(dst), Count: 1, Entries: b.pe[:]}
	if err := b.pause.SerializeTo(b.buf, gopacket.SerializeOptions{}); err != nil {
		return nil, err
	}
	return b.finish()
}

func family(a netip.Addr) uint8 {
	if a.Is4() {
		return 4
	}
	return 6
}

// AppendCredit appends to dst a Floodgate credit frame (wire.md §7.2) from
// src with the given entries, all IPv4 or all IPv6, built with
// layers.FGCredit.
func AppendCredit(dst []byte, src device.MAC, entries []layers.CreditEntry) ([]byte, error) {
	fam := uint8(4)
	if len(entries) > 0 {
		fam = family(entries[0].Dst)
	}
	var b builder
	f, err := b.creditFrame(src, fam, entries)
	if err != nil {
		return dst, err
	}
	return append(dst, f...), nil
}

// AppendDstPause appends to dst a Floodgate dst-pause frame (wire.md §7.3)
// from src with one entry: pause time us (0 resume, 0xFFFF until resumed)
// for destination d.
func AppendDstPause(dst []byte, src device.MAC, d netip.Addr, us uint16) ([]byte, error) {
	var b builder
	f, err := b.pauseFrame(src, d, us)
	if err != nil {
		return dst, err
	}
	return append(dst, f...), nil
}

// subtype returns the subtype of a parsed frame of our experimental family,
// or 0.
func subtype(frame []byte, m *device.Meta) uint8 {
	if m.Kind != device.KindExperimental || m.L3+4 > len(frame) {
		return 0
	}
	b := frame[m.L3:]
	if binary.BigEndian.Uint16(b) != layers.FCMagic {
		return 0
	}
	return b[2]
}

// DecodeCredit decodes the credit frame in an Ethernet frame into l
// (reusing l.Entries). It returns ErrNotFloodgate for another frame.
func DecodeCredit(frame []byte, l *layers.FGCredit) error {
	var m device.Meta
	cp := device.Codepoints{}
	device.Parse(frame, &m, &cp)
	if subtype(frame, &m) != layers.SubtypeFGCredit {
		return ErrNotFloodgate
	}
	return l.DecodeFromBytes(frame[m.L3:], gopacket.NilDecodeFeedback)
}

// DecodeDstPause decodes the dst-pause frame in an Ethernet frame into l
// (reusing l.Entries). It returns ErrNotFloodgate for another frame.
func DecodeDstPause(frame []byte, l *layers.FGPause) error {
	var m device.Meta
	cp := device.Codepoints{}
	device.Parse(frame, &m, &cp)
	if subtype(frame, &m) != layers.SubtypeFGPause {
		return ErrNotFloodgate
	}
	return l.DecodeFromBytes(frame[m.L3:], gopacket.NilDecodeFeedback)
}
