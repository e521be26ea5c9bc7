// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/opensfc/sfc/internal/crc32x"
)

// The RoCEv2 invariant CRC (wire.md §3.3): CRC-32 (IEEE 802.3) over 8 octets
// of 0xFF, the IP header, the UDP header, the BTH, the extension headers,
// payload and pad, with the variant fields (IPv4 TOS, TTL and header
// checksum; IPv6 traffic class, flow label and hop limit; UDP checksum; BTH
// octet 4) set to all-ones for the computation only. It is written least
// significant octet first.

// icrcTables are the slicing-by-8 tables of the IEEE CRC-32: icrcTables[0]
// is crc32.IEEETable, icrcTables[k][i] continues icrcTables[k-1][i] over
// one more octet of zeros.
var icrcTables = func() *[8][256]uint32 {
	t := new([8][256]uint32)
	t[0] = *crc32.IEEETable
	for i := 0; i < 256; i++ {
		c := t[0][i]
		for k := 1; k < 8; k++ {
			c = t[0][c&0xff] ^ c>>8
			t[k][i] = c
		}
	}
	return t
}()

// crcSlice8 continues the IEEE CRC-32 crc over p, eight octets per step.
// It is crc32.Update's own algorithm below 64 octets, but a plain Go
// function: the compiler sees that p does not escape, so p may be a
// buffer on the caller's stack (crc32.Update calls through a function
// value, which moves any such buffer to the heap), and it saves the
// call's dispatch on the short runs of the ICRC.
func crcSlice8(crc uint32, p []byte) uint32 {
	t := icrcTables
	crc = ^crc
	for len(p) >= 8 {
		// Octets 4..7 do not depend on the CRC so far: their lookups
		// start without waiting for it.
		crc ^= uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | uint32(p[3])<<24
		crc = t[0][p[7]] ^ t[1][p[6]] ^ t[2][p[5]] ^ t[3][p[4]] ^
			t[4][crc>>24] ^ t[5][crc>>16&0xff] ^ t[6][crc>>8&0xff] ^ t[7][crc&0xff]
		p = p[8:]
	}
	for _, v := range p {
		crc = t[0][byte(crc)^v] ^ crc>>8
	}
	return ^crc
}

// icrcLong is the length from which, on a CPU without crc32x's kernel,
// the rest of a packet goes to crc32.Update, which runs carry-less
// multiplication (PCLMULQDQ) over runs of 64 octets and more: several
// times faster than a table on a kilobyte, slower than crcSlice8 on a few
// dozen octets.
const icrcLong = 64

// crcUpdate continues the IEEE CRC-32 crc over p: with crc32x's AVX-512
// kernel where the CPU has it (faster than either below at every length:
// 7 ns for a CNP's 56 octets, 27 for a 1 KB WRITE), else crcSlice8 below
// icrcLong and crc32.Update from there. p does not escape (crc32x.Update
// keeps a caller's stack buffer where it is).
func crcUpdate(crc uint32, p []byte) uint32 {
	if len(p) < icrcLong && !crc32x.Accelerated() {
		return crcSlice8(crc, p)
	}
	return crc32x.Update(crc, p)
}

// icrcLead is the CRC-32 of the 8 leading octets of 0xFF.
var icrcLead = crc32.ChecksumIEEE([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})

// icrcOver computes the ICRC from its pieces: the IP header (IPv4 with its
// options, or the 40-octet IPv6 header), the 8-octet UDP header and the
// RoCEv2 UDP payload without its 4-octet ICRC (at least the 12-octet BTH).
//
// Pieces that lie one after the other in memory, as in a frame, take the
// one-pass path of icrcInPlace. Otherwise (and for IPv4 options) it
// copies the IP and UDP headers and the BTH into one small buffer on
// the stack with the variant fields set to all-ones, runs the CRC over it
// in one pass from the CRC of the leading 0xFF octets, then over the rest of the
// packet in place in one more: two calls, where a call per field (a dozen,
// most of a few octets) cost more than the kilobyte of payload. It does
// not allocate.
func icrcOver(ipHdr, udpHdr, roce []byte) uint32 {
	if crc, ok := icrcInPlace(ipHdr, udpHdr, roce); ok {
		return crc
	}
	var buf [60 + 8 + 12]byte
	if len(ipHdr) > 60 {
		return icrcLongIP(ipHdr, udpHdr, roce)
	}
	ip := buf[:len(ipHdr)]
	// Fixed-size copies of the usual headers compile to moves; copy calls
	// memmove (a tenth of the ICRC's time on short packets).
	switch len(ipHdr) {
	case 20:
		*(*[20]byte)(ip) = [20]byte(ipHdr)
	case 40:
		*(*[40]byte)(ip) = [40]byte(ipHdr)
	default:
		copy(ip, ipHdr)
	}
	switch {
	case len(ip) >= 8 && ip[0]>>4 == 6:
		ip[0] |= 0x0f                          // traffic class, high nibble
		ip[1], ip[2], ip[3] = 0xff, 0xff, 0xff // traffic class low nibble, flow label
		ip[7] = 0xff                           // hop limit
	case len(ip) >= 20 && ip[0]>>4 != 6:
		ip[1] = 0xff                // TOS
		ip[8] = 0xff                // TTL
		ip[10], ip[11] = 0xff, 0xff // header checksum
	}
	n := len(ip)
	if len(udpHdr) >= 6 {
		*(*[6]byte)(buf[n:]) = [6]byte(udpHdr)
	} else {
		copy(buf[n:n+6], udpHdr) // a short UDP header counts as zeros
	}
	buf[n+6], buf[n+7] = 0xff, 0xff // UDP checksum
	n += 8
	bth := min(len(roce), 12)
	if bth == 12 {
		*(*[12]byte)(buf[n:]) = [12]byte(roce)
	} else {
		copy(buf[n:], roce[:bth])
	}
	if bth > 4 {
		buf[n+4] = 0xff // BTH octet 4: FECN, BECN, reserved
	}
	n += bth
	return crcUpdate(crcUpdate(icrcLead, buf[:n]), roce[bth:])
}

// The one-pass ICRC. The CRC register is linear in its start value and in
// the octets fed to it, so feeding the packet's real octets from a start
// value adjusted by the variant fields' difference gives the CRC of the
// masked packet: if octet o of the packet differs from its masked value
// by d (masked = real XOR d), the start value changes by U_o[d], the
// register that o+1 zero octets turn into the register of octet d fed
// to a zero register (the CRC step is invertible). So a packet whose IP
// header, UDP header and payload lie one after the other in memory, as
// they do in a frame, takes one crc32.Update over them all (one
// carry-less multiplication pass) and a lookup per variant octet: no
// copy, and no table-driven pass over the headers.

// icrcPos are the offsets of the variant octets from the first octet of
// the IP header: 0..6 for IPv4 without options (TOS, TTL, checksum, UDP
// checksum, BTH octet 4), 7..14 for IPv6.
var icrcPos = [...]int{
	1, 8, 10, 11, 20 + 6, 20 + 7, 28 + 4,
	0, 1, 2, 3, 7, 40 + 6, 40 + 7, 48 + 4,
}

// icrcAdjust[i][d] is U_o[d] for o = icrcPos[i]: a table in the binary
// (icrc_adjust.go, which TestICRCAdjustTable makes and checks), so neither
// start-up nor each packet pays for making it.

// icrcInPlace computes the ICRC in one pass over the packet when the IP
// header (20-octet IPv4 or 40-octet IPv6), the 8-octet UDP header and roce
// (at least the BTH) are contiguous; ok is false otherwise.
func icrcInPlace(ipHdr, udpHdr, roce []byte) (crc uint32, ok bool) {
	hl := len(ipHdr)
	if len(udpHdr) != 8 || len(roce) < 12 || cap(ipHdr)-hl < 8+len(roce) {
		return 0, false
	}
	pkt := ipHdr[:hl+8+len(roce)]
	if &pkt[hl] != &udpHdr[0] || &pkt[hl+8] != &roce[0] {
		return 0, false
	}
	u := &icrcAdjust
	var adj uint32
	switch {
	case hl == 20 && pkt[0]>>4 != 6:
		adj = u[0][^pkt[1]] ^ u[1][^pkt[8]] ^ u[2][^pkt[10]] ^ u[3][^pkt[11]] ^
			u[4][^pkt[26]] ^ u[5][^pkt[27]] ^ u[6][^pkt[32]]
	case hl == 40 && pkt[0]>>4 == 6:
		adj = u[7][^pkt[0]&0x0f] ^ u[8][^pkt[1]] ^ u[9][^pkt[2]] ^ u[10][^pkt[3]] ^
			u[11][^pkt[7]] ^ u[12][^pkt[46]] ^ u[13][^pkt[47]] ^ u[14][^pkt[52]]
	default:
		return 0, false
	}
	crc = icrcLead ^ adj
	if len(pkt) < icrcLong || crc32x.Accelerated() {
		return crcUpdate(crc, pkt), true
	}
	// crc32.Update runs whole 16-octet blocks through PCLMULQDQ and the
	// rest an octet at a time: give it whole blocks, the odd head to
	// crcSlice8 (one 8-octet step for a 1 KB WRITE).
	head := len(pkt) & 15
	crc = crcSlice8(crc, pkt[:head])
	return crc32x.Update(crc, pkt[head:]), true
}

// icrcLongIP is icrcOver for an IP header longer than any IPv4 header
// (which the decoders do not produce): the header is taken unmasked.
func icrcLongIP(ipHdr, udpHdr, roce []byte) uint32 {
	ff := [1]byte{0xff}
	crc := crcUpdate(icrcLead, ipHdr)
	var u [8]byte
	copy(u[:6], udpHdr)
	u[6], u[7] = 0xff, 0xff
	crc = crcUpdate(crc, u[:])
	if len(roce) <= 4 {
		return crcUpdate(crc, roce)
	}
	crc = crcUpdate(crc, roce[:4])
	crc = crcUpdate(crc, ff[:]) // BTH octet 4
	return crcUpdate(crc, roce[5:])
}

// ComputeICRC returns the ICRC of a RoCEv2 packet given from the first
// octet of its IP header to the end of its ICRC (the 4 ICRC octets are not
// read). IPv4 (with options) and IPv6 without extension headers are
// supported.
func ComputeICRC(ipPacket []byte) (uint32, error) {
	if len(ipPacket) < 1 {
		return 0, errAt("icrc", "ip", 0, ErrTruncated, "empty packet")
	}
	var hl int
	switch ipPacket[0] >> 4 {
	case 4:
		hl = int(ipPacket[0]&0x0f) * 4
		if hl < 20 {
			return 0, errAt("icrc", "ipv4.ihl", 0, ErrBadValue, fmt.Sprintf("IHL %d", hl/4))
		}
	case 6:
		hl = 40
	default:
		return 0, errAt("icrc", "ip.version", 0, ErrVersion, "")
	}
	if len(ipPacket) < hl+8+12+4 {
		return 0, truncated("icrc", "bth", hl+8, hl+8+12+4, len(ipPacket))
	}
	return icrcOver(ipPacket[:hl], ipPacket[hl:hl+8], ipPacket[hl+8:len(ipPacket)-4]), nil
}

// PutICRC writes crc as the 4 ICRC octets, least significant first.
func PutICRC(dst []byte, crc uint32) { binary.LittleEndian.PutUint32(dst, crc) }

// FixICRC recomputes and rewrites the ICRC at the end of a RoCEv2 packet
// given from its IP header on.
func FixICRC(ipPacket []byte) error {
	crc, err := ComputeICRC(ipPacket)
	if err != nil {
		return err
	}
	PutICRC(ipPacket[len(ipPacket)-4:], crc)
	return nil
}
