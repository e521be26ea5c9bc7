package layers

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
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
//	|        magic = 0x4643         |  subtype = 1  |  version = 1  |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|  k (hashes)   |   reserved    |     filter length L (octets)  |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                           sequence                            |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|         filter: k stages of L/k octets each ...               |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// A flow is paused iff its bit is set in every stage (see VFID,
// StageIndex, Matches). Field names: bfc.version, .hashes, .filter_len,
// .seq, .bits_set.
type BFC struct {
	layers.BaseLayer
	Version   uint8
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
	m.Version, m.Hashes, m.FilterLen = FCVersion, k, l
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
		return err
	}
	m.Hashes = data[4]
	m.FilterLen = binary.BigEndian.Uint16(data[6:])
	m.Seq = binary.BigEndian.Uint32(data[8:])
	if data[5] != 0 {
		m.Warnings |= WarnReserved
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
// FilterLen is set from len(Filter); Version 0 is written as 1.
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
	putFCHeader(buf, SubtypeBFC, versionOr1(m.Version))
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
// in every stage.
func (m *BFC) Matches(f Flow) bool {
	return FilterMatches(m.Filter, int(m.Hashes), VFID(f))
}

// FilterMatches reports whether the flow with the given VFID has its bit
// set in all k stages of filter (len(filter) a positive multiple of k).
func FilterMatches(filter []byte, k int, vfid uint32) bool {
	if k < 1 || len(filter) < k || len(filter)%k != 0 {
		return false
	}
	stage := len(filter) / k
	for s := 0; s < k; s++ {
		i := StageIndex(vfid, s, len(filter), k)
		if filter[s*stage+int(i/8)]&(0x80>>(i%8)) == 0 {
			return false
		}
	}
	return true
}

// SetFilterBit sets the flow's bit in stage s of filter.
//
// It does nothing when the geometry is invalid (k < 1, len(filter) not a
// positive multiple of k) or s is not a stage (0 ≤ s < k).
func SetFilterBit(filter []byte, k int, vfid uint32, s int) {
	if k < 1 || len(filter) < k || len(filter)%k != 0 || s < 0 || s >= k {
		return
	}
	stage := len(filter) / k
	i := StageIndex(vfid, s, len(filter), k)
	filter[s*stage+int(i/8)] |= 0x80 >> (i % 8)
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// castagnoli8 are the slicing-by-8 tables of CRC-32C: table j gives the
// CRC of an octet followed by j zero octets.
var castagnoli8 = func() (t [8][256]uint32) {
	t[0] = *castagnoli
	for i := 0; i < 256; i++ {
		c := t[0][i]
		for j := 1; j < 8; j++ {
			c = t[0][c&0xff] ^ c>>8
			t[j][i] = c
		}
	}
	return t
}()

// crc32c returns the CRC-32C (Castagnoli) of p, 8 (then 4) octets at a
// time with the slicing-by-8 tables. Unlike crc32.Checksum, whose hardware
// path is called through a function value, it lets p stay on the caller's
// stack, so VFID and StageIndex do not allocate; for keys of 5 to 37
// octets it is about as fast.
func crc32c(p []byte) uint32 {
	c := ^uint32(0)
	for len(p) >= 8 {
		c ^= binary.LittleEndian.Uint32(p)
		c = castagnoli8[0][p[7]] ^ castagnoli8[1][p[6]] ^ castagnoli8[2][p[5]] ^ castagnoli8[3][p[4]] ^
			castagnoli8[4][c>>24] ^ castagnoli8[5][c>>16&0xff] ^ castagnoli8[6][c>>8&0xff] ^ castagnoli8[7][c&0xff]
		p = p[8:]
	}
	if len(p) >= 4 {
		c ^= binary.LittleEndian.Uint32(p)
		c = castagnoli8[3][c&0xff] ^ castagnoli8[2][c>>8&0xff] ^ castagnoli8[1][c>>16&0xff] ^ castagnoli8[0][c>>24]
		p = p[4:]
	}
	for _, b := range p {
		c = castagnoli[byte(c)^b] ^ c>>8
	}
	return ^c
}

// VFID returns the virtual flow id of f: CRC-32C (Castagnoli) of the flow
// key src IP ‖ dst IP ‖ protocol (1) ‖ src port (2) ‖ dst port (2), 13
// octets for IPv4 and 37 for IPv6. Every switch and NIC computes it alike.
// It does not allocate.
func VFID(f Flow) uint32 {
	var k [37]byte
	if f.Src.Is4() && f.Dst.Is4() {
		*(*[4]byte)(k[0:]) = f.Src.As4()
		*(*[4]byte)(k[4:]) = f.Dst.As4()
		k[8] = f.Proto
		binary.BigEndian.PutUint16(k[9:], f.SrcPort)
		binary.BigEndian.PutUint16(k[11:], f.DstPort)
		return crc32c(k[:13])
	}
	*(*[16]byte)(k[0:]) = f.Src.As16()
	*(*[16]byte)(k[16:]) = f.Dst.As16()
	k[32] = f.Proto
	binary.BigEndian.PutUint16(k[33:], f.SrcPort)
	binary.BigEndian.PutUint16(k[35:], f.DstPort)
	return crc32c(k[:37])
}

// StageIndex returns the bit index of a flow in stage s of a filter of
// filterLen octets and k stages: CRC-32C(VFID as 4 octets big-endian ‖ s
// as 1 octet) mod (8·L/k).
func StageIndex(vfid uint32, s int, filterLen, k int) uint32 {
	var b [5]byte
	binary.BigEndian.PutUint32(b[:], vfid)
	b[4] = byte(s)
	if k < 1 || filterLen < k {
		return 0 // an invalid geometry (k < 1, L < k) has no bits to index
	}
	return crc32c(b[:]) % uint32(8*filterLen/k)
}

func decodeBFC(data []byte, p gopacket.PacketBuilder) error {
	m := &BFC{}
	err := m.DecodeFromBytes(data, p)
	p.AddLayer(m)
	return err
}
