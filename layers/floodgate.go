// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"slices"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

const fgHeaderLen = 8

// PauseUntilResumed is the dst-pause time that lasts until a resume (0).
const PauseUntilResumed = 0xffff

// CreditEntry is one entry of a Floodgate credit frame.
type CreditEntry struct {
	Credits uint32 // octets
	Dst     netip.Addr
}

// DstPauseEntry is one entry of a Floodgate dst-pause frame.
type DstPauseEntry struct {
	PauseUS  uint16 // 0 resume, 0xFFFF until resumed
	Reserved uint16
	Dst      netip.Addr
}

// FGCredit is a Floodgate credit frame (wire.md §7.2), EtherType 0x88B5
// subtype 2, from a downstream switch to an upstream one:
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|        magic = 0x4643         |  subtype = 2  |  version = 1  |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	| family (4/6)  |   reserved    |           count N             |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                       credits (octets)                        |
//	|               destination address (4 or 16) ...               |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// Field names: fgcredit.version, .family, .count, .entries ({dst, credits}).
type FGCredit struct {
	layers.BaseLayer
	Version  uint8
	Family   uint8 // 4 or 6
	Count    uint16
	Entries  []CreditEntry
	Padding  []byte
	Warnings Warnings
}

// FGPause is a Floodgate dst-pause frame (wire.md §7.3), EtherType 0x88B5
// subtype 3, from a source ToR to its hosts; the same layout as FGCredit
// with entries of pause time µs (2) ‖ reserved (2) ‖ destination address.
// Field names: fgpause.version, .family, .count, .entries ({dst, pause_us}).
type FGPause struct {
	layers.BaseLayer
	Version  uint8
	Family   uint8
	Count    uint16
	Entries  []DstPauseEntry
	Padding  []byte
	Warnings Warnings
}

func addrLen(family uint8) int {
	switch family {
	case 4:
		return 4
	case 6:
		return 16
	}
	return 0
}

// decodeFGBody checks the family and count of a Floodgate frame and returns
// the entry region and the address length.
func decodeFGBody(layer string, data []byte, subtype uint8, df gopacket.DecodeFeedback) (version, family uint8, count uint16, ents []byte, rest []byte, err error) {
	version, err = decodeFCHeader(layer, data, subtype, fgHeaderLen, df)
	if err != nil {
		if errors.Is(err, ErrTruncated) && len(data) > 4 {
			family = data[4] // a header cut short keeps its whole fields
		}
		return
	}
	family = data[4]
	count = binary.BigEndian.Uint16(data[6:])
	a := addrLen(family)
	if a == 0 {
		err = errAt(layer, "family", 4, ErrBadValue, fmt.Sprintf("family %d, want 4 or 6", family))
		return
	}
	end := fgHeaderLen + int(count)*(4+a)
	if end > len(data) {
		df.SetTruncated()
		err = errAt(layer, "count", 6, ErrLength, fmt.Sprintf("%d entries need %d octets, %d follow", count, end-fgHeaderLen, len(data)-fgHeaderLen))
		// The entries that are there whole are returned with the error.
		whole := (len(data) - fgHeaderLen) / (4 + a)
		ents = data[fgHeaderLen : fgHeaderLen+whole*(4+a)]
		return
	}
	return version, family, count, data[fgHeaderLen:end], data[end:], nil
}

// fgWhole is how many entries of a Floodgate frame decodeFGBody returned:
// count, or those captured whole when the frame is cut in them.
func fgWhole(ents []byte, family uint8, count uint16) int {
	if a := addrLen(family); a > 0 {
		return min(int(count), len(ents)/(4+a))
	}
	return 0
}

// prependFG checks a Floodgate frame's family and count, prepends its
// header with room for n entries, and returns the buffer and the address
// length.
func prependFG(b gopacket.SerializeBuffer, layer string, subtype, version, family uint8, count uint16, n int) ([]byte, int, error) {
	a := addrLen(family)
	if a == 0 {
		return nil, 0, errAt(layer, "family", 4, ErrBadValue, fmt.Sprintf("family %d, want 4 or 6", family))
	}
	if int(count) != n || n > 0xffff {
		return nil, 0, errAt(layer, "count", 6, ErrBadValue, fmt.Sprintf("count %d, %d entries", count, n))
	}
	buf, err := b.PrependBytes(fgHeaderLen + n*(4+a))
	if err != nil {
		return nil, 0, err
	}
	putFCHeader(buf, subtype, versionOr1(version))
	buf[4], buf[5] = family, 0
	binary.BigEndian.PutUint16(buf[6:], count)
	return buf, a, nil
}

// fgShape returns the address length (4 or 16), the entry count and the
// end of the entries of a well-formed Floodgate frame of the subtype, or
// a = 0 when anything is wrong (decodeFGBody then names it).
func fgShape(data []byte, subtype uint8) (a, n, end int) {
	if len(data) < fgHeaderLen || !fcHeaderOK(data, subtype) {
		return 0, 0, 0
	}
	switch data[4] {
	case 4:
		a = 4
	case 6:
		a = 16
	default:
		return 0, 0, 0
	}
	n = int(binary.BigEndian.Uint16(data[6:]))
	end = fgHeaderLen + n*(4+a)
	if end > len(data) {
		return 0, 0, 0
	}
	return a, n, end
}

// fgEntries returns es resized to n entries, growing its backing array in
// one allocation when it is too small (fuzz/: ≤ 8 × input); the caller
// sets every entry.
func fgEntries[E any](es []E, n int) []E {
	if cap(es) < n {
		es = slices.Grow(es[:0], n)
	}
	return es[:n]
}

func addrAt(b []byte, a int) netip.Addr {
	if a == 4 {
		return netip.AddrFrom4([4]byte(b[:4]))
	}
	return netip.AddrFrom16([16]byte(b[:16]))
}

// LayerType returns LayerTypeFGCredit.
func (m *FGCredit) LayerType() gopacket.LayerType { return LayerTypeFGCredit }

// CanDecode returns LayerTypeFGCredit.
func (m *FGCredit) CanDecode() gopacket.LayerClass { return LayerTypeFGCredit }

// NextLayerType returns gopacket.LayerTypeZero.
func (m *FGCredit) NextLayerType() gopacket.LayerType { return gopacket.LayerTypeZero }

// DecodeFromBytes decodes a credit frame. Entries reuses its backing array
// across calls, so decoding into a reused layer does not allocate once the
// array is large enough.
func (m *FGCredit) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	// A well-formed frame takes the straight path, which sets every field;
	// anything else goes to decodeChecked, which names the error.
	a, n, end := fgShape(data, SubtypeFGCredit)
	if a == 0 {
		return m.decodeChecked(data, df)
	}
	m.Version, m.Family, m.Count = FCVersion, data[4], uint16(n)
	m.Warnings = 0
	if data[5] != 0 {
		m.Warnings = WarnReserved
	}
	es := fgEntries(m.Entries, n)
	ents := data[fgHeaderLen:end]
	if a == 4 {
		for i := range es {
			e := ents[i*8 : i*8+8 : i*8+8]
			es[i].Credits, es[i].Dst = binary.BigEndian.Uint32(e), netip.AddrFrom4([4]byte(e[4:8]))
		}
	} else {
		for i := range es {
			e := ents[i*20 : i*20+20 : i*20+20]
			es[i].Credits, es[i].Dst = binary.BigEndian.Uint32(e), netip.AddrFrom16([16]byte(e[4:20]))
		}
	}
	m.Entries = es
	m.Contents, m.Payload, m.Padding = data[:end], nil, data[end:]
	return nil
}

// decodeChecked decodes field by field, stopping at the first fault; the
// fields before it stay set.
func (m *FGCredit) decodeChecked(data []byte, df gopacket.DecodeFeedback) error {
	*m = FGCredit{Entries: m.Entries[:0]}
	v, fam, n, ents, rest, err := decodeFGBody("fgcredit", data, SubtypeFGCredit, df)
	m.Version, m.Family, m.Count = v, fam, n
	// The entries captured whole are kept, also when the frame is cut in
	// a later one (err then says so).
	a := addrLen(fam)
	whole := fgWhole(ents, fam, n)
	m.Entries = slices.Grow(m.Entries, whole) // one allocation, not append's doubling (fuzz/: ≤ 8 × input)
	for i := 0; i < whole; i++ {
		e := ents[i*(4+a):]
		m.Entries = append(m.Entries, CreditEntry{Credits: binary.BigEndian.Uint32(e), Dst: addrAt(e[4:], a)})
	}
	if err != nil {
		return err
	}
	if data[5] != 0 {
		m.Warnings |= WarnReserved
	}
	m.Contents, m.Payload, m.Padding = data[:len(data)-len(rest)], nil, rest
	return nil
}

// SerializeTo writes the frame. With FixLengths Count is set from
// len(Entries); every Dst must be of the frame's family.
func (m *FGCredit) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	if opts.FixLengths {
		m.Count = uint16(len(m.Entries))
	}
	buf, a, err := prependFG(b, "fgcredit", SubtypeFGCredit, m.Version, m.Family, m.Count, len(m.Entries))
	if err != nil {
		return err
	}
	for i, e := range m.Entries {
		o := fgHeaderLen + i*(4+a)
		binary.BigEndian.PutUint32(buf[o:], e.Credits)
		if err := putAddr(buf[o+4:], e.Dst, a); err != nil {
			return errAt("fgcredit", "entries.dst", o+4, ErrBadValue, err.Error())
		}
	}
	return nil
}

func putAddr(b []byte, addr netip.Addr, a int) error {
	switch {
	case a == 4 && addr.Is4():
		v := addr.As4()
		copy(b, v[:])
	case a == 16 && addr.Is6(): // an IPv4-mapped IPv6 address is an IPv6 address here
		v := addr.As16()
		copy(b, v[:])
	default:
		return fmt.Errorf("address %v is not of family %d", addr, map[int]int{4: 4, 16: 6}[a])
	}
	return nil
}

func decodeFGCredit(data []byte, p gopacket.PacketBuilder) error {
	m := &FGCredit{}
	err := m.DecodeFromBytes(data, p)
	p.AddLayer(m)
	return err
}

// LayerType returns LayerTypeFGPause.
func (m *FGPause) LayerType() gopacket.LayerType { return LayerTypeFGPause }

// CanDecode returns LayerTypeFGPause.
func (m *FGPause) CanDecode() gopacket.LayerClass { return LayerTypeFGPause }

// NextLayerType returns gopacket.LayerTypeZero.
func (m *FGPause) NextLayerType() gopacket.LayerType { return gopacket.LayerTypeZero }

// DecodeFromBytes decodes a dst-pause frame; Entries reuses its backing
// array across calls. Non-zero reserved octets decode with WarnReserved.
func (m *FGPause) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	// As FGCredit: the straight path for a well-formed frame.
	a, n, end := fgShape(data, SubtypeFGPause)
	if a == 0 {
		return m.decodeChecked(data, df)
	}
	m.Version, m.Family, m.Count = FCVersion, data[4], uint16(n)
	var rsv uint16 = uint16(data[5])
	es := fgEntries(m.Entries, n)
	ents := data[fgHeaderLen:end]
	if a == 4 {
		for i := range es {
			e := ents[i*8 : i*8+8 : i*8+8]
			r := binary.BigEndian.Uint16(e[2:])
			rsv |= r
			es[i].PauseUS, es[i].Reserved, es[i].Dst = binary.BigEndian.Uint16(e), r, netip.AddrFrom4([4]byte(e[4:8]))
		}
	} else {
		for i := range es {
			e := ents[i*20 : i*20+20 : i*20+20]
			r := binary.BigEndian.Uint16(e[2:])
			rsv |= r
			es[i].PauseUS, es[i].Reserved, es[i].Dst = binary.BigEndian.Uint16(e), r, netip.AddrFrom16([16]byte(e[4:20]))
		}
	}
	m.Warnings = 0
	if rsv != 0 {
		m.Warnings = WarnReserved
	}
	m.Entries = es
	m.Contents, m.Payload, m.Padding = data[:end], nil, data[end:]
	return nil
}

// decodeChecked decodes field by field, stopping at the first fault; the
// fields before it stay set.
func (m *FGPause) decodeChecked(data []byte, df gopacket.DecodeFeedback) error {
	*m = FGPause{Entries: m.Entries[:0]}
	v, fam, n, ents, rest, err := decodeFGBody("fgpause", data, SubtypeFGPause, df)
	m.Version, m.Family, m.Count = v, fam, n
	// As FGCredit: the entries captured whole are kept.
	a := addrLen(fam)
	whole := fgWhole(ents, fam, n)
	m.Entries = slices.Grow(m.Entries, whole) // one allocation, not append's doubling (fuzz/: ≤ 8 × input)
	for i := 0; i < whole; i++ {
		e := ents[i*(4+a):]
		d := DstPauseEntry{PauseUS: binary.BigEndian.Uint16(e), Reserved: binary.BigEndian.Uint16(e[2:]), Dst: addrAt(e[4:], a)}
		if d.Reserved != 0 {
			m.Warnings |= WarnReserved
		}
		m.Entries = append(m.Entries, d)
	}
	if err != nil {
		return err
	}
	if data[5] != 0 {
		m.Warnings |= WarnReserved
	}
	m.Contents, m.Payload, m.Padding = data[:len(data)-len(rest)], nil, rest
	return nil
}

// SerializeTo writes the frame. With FixLengths Count is set from
// len(Entries); reserved octets are written as zero.
func (m *FGPause) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	if opts.FixLengths {
		m.Count = uint16(len(m.Entries))
	}
	buf, a, err := prependFG(b, "fgpause", SubtypeFGPause, m.Version, m.Family, m.Count, len(m.Entries))
	if err != nil {
		return err
	}
	for i, e := range m.Entries {
		o := fgHeaderLen + i*(4+a)
		binary.BigEndian.PutUint16(buf[o:], e.PauseUS)
		buf[o+2], buf[o+3] = 0, 0
		if err := putAddr(buf[o+4:], e.Dst, a); err != nil {
			return errAt("fgpause", "entries.dst", o+4, ErrBadValue, err.Error())
		}
	}
	return nil
}

func decodeFGPause(data []byte, p gopacket.PacketBuilder) error {
	m := &FGPause{}
	err := m.DecodeFromBytes(data, p)
	p.AddLayer(m)
	return err
}
