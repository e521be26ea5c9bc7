// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"encoding/binary"
	"sync"
)

// BFC pause frame versions (wire.md §7 and §7.1).
const (
	// BFCVersion is the version encoders write: stage s indexes its filter
	// with CRC_s, the reflected CRC-32 of BFCPolynomials[s].
	BFCVersion = 2
	// BFCVersion1 is the first version, whose stages all hashed the VFID
	// with CRC-32C: CRC-32C(VFID ‖ s). CRC is linear, so its stages differ
	// by a constant XOR and a flow hits all k of them iff it hits one: the
	// filter behaves as k = 1. Version 1 frames still decode, with
	// WarnBFCVersion1, and FilterMatches reads them with their own hashes;
	// nothing in this module writes them.
	BFCVersion1 = 1
)

// BFCPolynomials holds the reflected polynomial of each stage's CRC
// (wire.md §7.1): CRC_s is the reflected CRC-32 of BFCPolynomials[s] with
// init 0xFFFFFFFF and final XOR 0xFFFFFFFF. Stage 0 is CRC-32C
// (Castagnoli), which is also the VFID; stage 1 is the CRC-32 of IEEE
// 802.3.
var BFCPolynomials = [BFCMaxHashes]uint32{
	0x82F63B78, // CRC-32C (Castagnoli)
	0xEDB88320, // CRC-32 (IEEE 802.3)
	0xEB31D82E, // Koopman
	0x992C1A4C, // Koopman 2
	0xD5828281, // CRC-32Q polynomial
	0xD419CC15, // CRC-32D polynomial
	0xC8DF352F, // AUTOSAR polynomial
	0xD8018001, // CD-ROM EDC polynomial
}

// bfcTables returns the slicing-by-8 tables of every CRC_s: table 0 is
// that of crc32.MakeTable(BFCPolynomials[s]) and table j gives the CRC of
// an octet followed by j zero octets. They are made on first use, not at
// start-up (64 KiB that only BFC frames and models read), and without
// crc32.MakeTable, which for the Castagnoli polynomial would first set up
// hash/crc32's SSE 4.2 tables.
var bfcTables = sync.OnceValue(func() *[BFCMaxHashes][8][256]uint32 {
	t := new([BFCMaxHashes][8][256]uint32)
	for s, poly := range BFCPolynomials {
		for i := range 256 {
			c := uint32(i)
			for range 8 {
				if c&1 != 0 {
					c = c>>1 ^ poly
				} else {
					c >>= 1
				}
			}
			t[s][0][i] = c
		}
		for i := 0; i < 256; i++ {
			c := t[s][0][i]
			for j := 1; j < 8; j++ {
				c = t[s][0][c&0xff] ^ c>>8
				t[s][j][i] = c
			}
		}
	}
	return t
})

// bfcCRC returns the reflected CRC-32 (init and final XOR 0xFFFFFFFF)
// of p with the slicing-by-8 tables t, 8 (then 4) octets at a time. Unlike
// crc32.Checksum, whose hardware paths are called through function values,
// it lets p stay on the caller's stack, so the BFC hashes do not allocate;
// for keys of 13 to 37 octets it is about as fast.
func bfcCRC(t *[8][256]uint32, p []byte) uint32 {
	c := ^uint32(0)
	for len(p) >= 8 {
		c ^= binary.LittleEndian.Uint32(p)
		c = t[0][p[7]] ^ t[1][p[6]] ^ t[2][p[5]] ^ t[3][p[4]] ^
			t[4][c>>24] ^ t[5][c>>16&0xff] ^ t[6][c>>8&0xff] ^ t[7][c&0xff]
		p = p[8:]
	}
	if len(p) >= 4 {
		c ^= binary.LittleEndian.Uint32(p)
		c = t[3][c&0xff] ^ t[2][c>>8&0xff] ^ t[1][c>>16&0xff] ^ t[0][c>>24]
		p = p[4:]
	}
	for _, b := range p {
		c = t[0][byte(c)^b] ^ c>>8
	}
	return ^c
}

// BFCHash returns CRC_s(p), the CRC of stage s (0..7) of wire.md §7.1
// over p; 0 for another s. BFCHash(s, []byte("123456789")) is the check
// value of the table.
func BFCHash(s int, p []byte) uint32 {
	if uint(s) >= BFCMaxHashes {
		return 0
	}
	return bfcCRC(&bfcTables()[s], p)
}

// bfcKey writes the flow key of f (wire.md §7.1: src IP ‖ dst IP ‖
// protocol (1) ‖ src port (2) ‖ dst port (2)) into k and returns its
// length, 13 for IPv4 and 37 for IPv6.
func bfcKey(f *Flow, k *[37]byte) int {
	if f.Src.Is4() && f.Dst.Is4() {
		*(*[4]byte)(k[0:]) = f.Src.As4()
		*(*[4]byte)(k[4:]) = f.Dst.As4()
		k[8] = f.Proto
		binary.BigEndian.PutUint16(k[9:], f.SrcPort)
		binary.BigEndian.PutUint16(k[11:], f.DstPort)
		return 13
	}
	*(*[16]byte)(k[0:]) = f.Src.As16()
	*(*[16]byte)(k[16:]) = f.Dst.As16()
	k[32] = f.Proto
	binary.BigEndian.PutUint16(k[33:], f.SrcPort)
	binary.BigEndian.PutUint16(k[35:], f.DstPort)
	return 37
}

// BFCKey returns the flow key of f that the BFC hashes read (wire.md
// §7.1): src IP ‖ dst IP ‖ protocol (1) ‖ src port (2) ‖ dst port (2), 13
// octets for IPv4 and 37 for IPv6. DSCP and QP are not part of it.
func BFCKey(f Flow) []byte {
	var k [37]byte
	n := bfcKey(&f, &k)
	return append([]byte(nil), k[:n]...)
}

// VFID returns the virtual flow id of f: CRC_0 of its key, the CRC-32C
// (Castagnoli) of src IP ‖ dst IP ‖ protocol (1) ‖ src port (2) ‖ dst
// port (2), 13 octets for IPv4 and 37 for IPv6 (wire.md §7.1). Every
// switch and NIC computes it alike. It does not allocate.
func VFID(f Flow) uint32 {
	var k [37]byte
	n := bfcKey(&f, &k)
	return bfcCRC(&bfcTables()[0], k[:n])
}

// BFCHashes holds the eight stage hashes of one flow: h[s] = CRC_s(key)
// (wire.md §7.1), so h[0] is the VFID. Computed once per flow with
// BFCFlowHashes, they serve every filter geometry and frame version.
type BFCHashes [BFCMaxHashes]uint32

// BFCFlowHashes returns the stage hashes of f. It does not allocate.
func BFCFlowHashes(f Flow) BFCHashes {
	var k [37]byte
	n := bfcKey(&f, &k)
	var h BFCHashes
	t := bfcTables()
	for s := range h {
		h[s] = bfcCRC(&t[s], k[:n])
	}
	return h
}

// StageIndex returns the bit index of the flow with hashes h in stage s of
// a filter of filterLen octets and k stages, as a frame of the given
// version defines it: for version 2 (and any version but 1), CRC_s(key)
// mod (8·L/k); for version 1, CRC-32C(VFID as 4 octets big-endian ‖ s as
// 1 octet) mod (8·L/k). It returns 0 for a geometry without bits (k < 1,
// L < k) and for s outside 0..7.
func StageIndex(version uint8, h *BFCHashes, s, filterLen, k int) uint32 {
	if k < 1 || filterLen < k || uint(s) >= BFCMaxHashes {
		return 0
	}
	m := uint32(8 * filterLen / k)
	if version == BFCVersion1 {
		return stageIndexV1(h[0], s) % m
	}
	return h[s] % m
}

// stageIndexV1 is the hash of stage s of a version 1 frame,
// CRC-32C(VFID ‖ s). It is kept only to read version 1 frames.
func stageIndexV1(vfid uint32, s int) uint32 {
	var b [5]byte
	binary.BigEndian.PutUint32(b[:], vfid)
	b[4] = byte(s)
	return bfcCRC(&bfcTables()[0], b[:])
}

// FilterMatches reports whether the flow with hashes h has its bit set in
// all k stages of filter (len(filter) a positive multiple of k, at most
// 8 stages), the stages indexed as a frame of the given version defines
// them (StageIndex). It is false for an invalid geometry.
func FilterMatches(version uint8, filter []byte, k int, h *BFCHashes) bool {
	if k < 1 || k > BFCMaxHashes || len(filter) < k || len(filter)%k != 0 {
		return false
	}
	stage := len(filter) / k
	for s := 0; s < k; s++ {
		i := StageIndex(version, h, s, len(filter), k)
		if filter[s*stage+int(i/8)]&(0x80>>(i%8)) == 0 {
			return false
		}
	}
	return true
}

// SetFilterBit sets the bit of the flow with hashes h in stage s of filter,
// indexed as a frame of the given version defines it (StageIndex; encoders
// write BFCVersion).
//
// It does nothing when the geometry is invalid (k < 1 or above 8,
// len(filter) not a positive multiple of k) or s is not a stage (0 ≤ s < k).
func SetFilterBit(version uint8, filter []byte, k int, h *BFCHashes, s int) {
	if k < 1 || k > BFCMaxHashes || len(filter) < k || len(filter)%k != 0 || s < 0 || s >= k {
		return
	}
	stage := len(filter) / k
	i := StageIndex(version, h, s, len(filter), k)
	filter[s*stage+int(i/8)] |= 0x80 >> (i % 8)
}
