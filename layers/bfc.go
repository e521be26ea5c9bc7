// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// BFC defaults and limits (wire.md §7.1).
const (
	BFCDefaultHashes    = 4
	BFCDefaultFilterLen = 128
	BFCMaxHashes        = 8
	BFCMaxFilterLen     = 1024
	bfcHeaderLen        = 12
)

// BFC is a BFC Bloom-filter pause frame (wire.md §7.1), EtherType 0x88B5
// subtype 1, sent on a link to the upstream neighbour every τ:
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|        magic = 0x4643         |  subtype = 1  |  version = 2  |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|  k (hashes)   |   reserved    |     filter length L (octets)  |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                           sequence                            |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|         filter: k stages of L/k octets each ...               |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// A flow is paused iff its bit is set in every stage (see VFID,
// BFCFlowHashes, StageIndex, Matches). Version 2 indexes stage s with its
// own CRC (BFCPolynomials); a version 1 frame (stages hashed from the VFID
// with one CRC, so degenerate) decodes with WarnBFCVersion1. Field names:
// bfc.version, .hashes, .filter_len, .seq, .bits_set.
type BFC struct {
	layers.BaseLayer
	Version   uint8  // 2 (BFCVersion); 1 decodes with WarnBFCVersion1
	Hashes    uint8  // k, 1..8
	FilterLen uint16 // L, a positive multiple of k, at most 1024
	Seq       uint32
	Filter    []byte
	Padding   []byte
	Warnings  Warnings
}

// LayerType returns LayerTypeBFC.
func (m *BFC) LayerType() gopacket.LayerType { return LayerTypeBFC }

// CanDecode returns LayerTypeBFC.
func (m *BFC) CanDecode() gopacket.LayerClass { return LayerTypeBFC }

// NextLayerType returns gopacket.LayerTypeZero.
func (m *BFC) NextLayerType() gopacket.LayerType { return gopacket.LayerTypeZero }

// checkBFCGeometry checks k (1..8) and L (a positive multiple of k, at
// most 1024). It divides by multiplying: a 64-bit division costs more than
// the rest of a BFC decode.
func checkBFCGeometry(k int, l int) error {
	if uint(k-1) < BFCMaxHashes && uint(l-1) < BFCMaxFilterLen && multipleOf(l, k) {
		return nil
	}
	return bfcGeometryErr(k, l)
}

// bfcRecip holds ⌈2³²/k⌉ for k = 1..8: for 0 ≤ l ≤ 1024, l·⌈2³²/k⌉ >> 32 is
// ⌊l/k⌋ exactly (the error term l·(⌈2³²/k⌉·k − 2³²) stays below 2³²).
// Entries past 8 are 0, so that indexing with k&15 never panics.
var bfcRecip = func() (r [16]uint64) {
	for k := uint64(1); k <= BFCMaxHashes; k++ {
		r[k] = (1<<32 + k - 1) / k
	}
	return r
}()

// multipleOf reports whether l is a multiple of k, for 1 ≤ k ≤ 8 and
// 0 ≤ l ≤ 1024.
func multipleOf(l, k int) bool {
	return int(uint64(l)*bfcRecip[k&15]>>32)*k == l
}

// bfcGeometryErr names what is wrong with k and L.
func bfcGeometryErr(k int, l int) error {
	if k < 1 || k > BFCMaxHashes {
		return errAt("bfc", "hashes", 4, ErrBadValue, fmt.Sprintf("k = %d, want 1..8", k))
	}
	if l == 0 || l%k != 0 || l > BFCMaxFilterLen {
		return errAt("bfc", "filter_len", 6, ErrBadValue, fmt.Sprintf("L = %d, want a positive multiple of k = %d, at most 1024", l, k))
	}
	return nil
}

// DecodeFromBytes decodes a BFC pause frame from its common header on.
func (m *BFC) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	// A well-formed frame takes the straight path, which sets every field;
	// anything else goes to decodeChecked, which names the error.
	if len(data) < bfcHeaderLen || !fcHeaderOK(data, SubtypeBFC) {
		return m.decodeChecked(data, df)
	}
	k, l := data[4], binary.BigEndian.Uint16(data[6:])
	end := bfcHeaderLen + int(l)
	if uint(k-1) >= BFCMaxHashes || uint(l-1) >= BFCMaxFilterLen || !multipleOf(int(l), int(k)) || end > len(data) {
		return m.decodeChecked(data, df)
	}
	m.Version, m.Hashes, m.FilterLen = BFCVersion, k, l
	m.Seq = binary.BigEndian.Uint32(data[8:])
	m.Warnings = 0
	if data[5] != 0 {
		m.Warnings = WarnReserved
	}
	m.Filter = data[bfcHeaderLen:end]
	m.Contents, m.Payload, m.Padding = data[:end], nil, data[end:]
	return nil
}

// decodeChecked decodes field by field, stopping at the first fault; the
// fields before it stay set.
func (m *BFC) decodeChecked(data []byte, df gopacket.DecodeFeedback) error {
	*m = BFC{}
	v, err := decodeFCHeader("bfc", data, SubtypeBFC, bfcHeaderLen, df)
	m.Version = v
	if err != nil {
		// A header cut short keeps the fields it holds whole (the
		// dissector shows only those: dissect's field ends).
		if errors.Is(err, ErrTruncated) {
			if len(data) > 4 {
				m.Hashes = data[4]
			}
			if len(data) >= 8 {
				m.FilterLen = binary.BigEndian.Uint16(data[6:])
			}
		}
		return err
	}
	m.Hashes = data[4]
	m.FilterLen = binary.BigEndian.Uint16(data[6:])
	m.Seq = binary.BigEndian.Uint32(data[8:])
	if data[5] != 0 {
		m.Warnings |= WarnReserved
	}
	if v == BFCVersion1 {
		m.Warnings |= WarnBFCVersion1
	}
	if err := checkBFCGeometry(int(m.Hashes), int(m.FilterLen)); err != nil {
		return err
	}
	end := bfcHeaderLen + int(m.FilterLen)
	if end > len(data) {
		df.SetTruncated()
		return errAt("bfc", "filter_len", 6, ErrLength, fmt.Sprintf("filter of %d octets, %d follow", m.FilterLen, len(data)-bfcHeaderLen))
	}
	m.Filter = data[bfcHeaderLen:end]
	m.Contents, m.Payload, m.Padding = data[:end], nil, data[end:]
	return nil
}

// SerializeTo writes the frame from its common header on. With FixLengths
// FilterLen is set from len(Filter); Version 0 is written as BFCVersion (2).
func (m *BFC) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	if opts.FixLengths {
		m.FilterLen = uint16(len(m.Filter))
	}
	if err := checkBFCGeometry(int(m.Hashes), int(m.FilterLen)); err != nil {
		return err
	}
	if int(m.FilterLen) != len(m.Filter) {
		return errAt("bfc", "filter_len", 6, ErrBadValue, fmt.Sprintf("L = %d but the filter has %d octets", m.FilterLen, len(m.Filter)))
	}
	buf, err := b.PrependBytes(bfcHeaderLen + len(m.Filter))
	if err != nil {
		return err
	}
	v := m.Version
	if v == 0 {
		v = BFCVersion
	}
	putFCHeader(buf, SubtypeBFC, v)
	buf[4], buf[5] = m.Hashes, 0
	binary.BigEndian.PutUint16(buf[6:], m.FilterLen)
	binary.BigEndian.PutUint32(buf[8:], m.Seq)
	copy(buf[bfcHeaderLen:], m.Filter)
	return nil
}

func versionOr1(v uint8) uint8 {
	if v == 0 {
		return FCVersion
	}
	return v
}

// BitsSet returns the number of bits set in the filter (bfc.bits_set).
func (m *BFC) BitsSet() int {
	n := 0
	f := m.Filter
	for len(f) >= 8 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(f))
		f = f[8:]
	}
	for _, c := range f {
		n += bits.OnesCount8(c)
	}
	return n
}

// Matches reports whether flow f is paused by this filter: its bit is set
// in every stage, the stages indexed as the frame's version says (see
// FilterMatches).
func (m *BFC) Matches(f Flow) bool {
	h := BFCFlowHashes(f)
	return FilterMatches(m.Version, m.Filter, int(m.Hashes), &h)
}

func decodeBFC(data []byte, p gopacket.PacketBuilder) error {
	m := &BFC{}
	err := m.DecodeFromBytes(data, p)
	p.AddLayer(m)
	return err
}
