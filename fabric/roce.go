// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"encoding/binary"

	"github.com/opensfc/sfc/device"
)

// RoCEv2 frames of the simulator (wire.md §3): Ethernet | IPv4 | UDP 4791
// | BTH | [INT] | [AETH] | payload | ICRC. Data uses the RC SEND opcodes
// (FIRST, MIDDLE, LAST, ONLY), acknowledgements ACKNOWLEDGE with an AETH,
// congestion notification CNP (0x81). The simulator leaves the ICRC zero
// (nothing on the path checks it; computing it per frame would cost more
// than the rest of a hop). Two project conventions, written in
// docs/decisions.md: BTH octet 4 bit 0 (reserved) says an INT block of
// intLen octets follows the BTH (HPCC's telemetry, the same 42 octets its
// simulator adds), and a NAK's AETH MSN field carries the out-of-order PSN
// that triggered it (IRN's selective acknowledgement).
const (
	opSendFirst  = 0x00
	opSendMiddle = 0x01
	opSendLast   = 0x02
	opSendOnly   = 0x04
	opAck        = 0x11
	opCNP        = 0x81

	bthLen   = 12
	aethLen  = 4
	icrcLen  = 4
	intHops  = 5
	intLen   = 2 + 8*intHops
	hdrLen   = 14 + 20 + 8 // Ethernet, IPv4, UDP
	nakSeq   = 0x60        // AETH syndrome: NAK, PSN sequence error
	intFlag  = 0x01        // BTH octet 4
	tsFlag   = 0x02        // BTH octet 4: an 8-octet send timestamp follows the BTH (TIMELY)
	tsLen    = 8
	dscpData = 0  // class 0
	dscpCtl  = 48 // class 6: ACK, NAK, CNP go ahead of data
	ectECN   = 2  // ECT(0)
)

// hop is one HPCC INT record.
type hop struct {
	time  int64 // ns
	bytes int64 // octets sent by the port
	qlen  int64 // octets queued at the port
	speed int64 // bit/s
}

var intSpeeds = [8]int64{10, 25, 40, 50, 100, 200, 400, 800}

// The 64-bit hop record packs, like HPCC's IntHop: time 24 bits (ns), bytes
// 20 bits (128-octet units), qlen 17 bits (128-octet units, saturating),
// speed 3 bits (index into 10/25/40/50/100/200/400/800 Gb/s).
func packHop(h hop) uint64 {
	si := 0
	for i, s := range intSpeeds {
		if s*device.Gbps <= h.speed {
			si = i
		}
	}
	q := min(h.qlen>>7, 1<<17-1)
	return uint64(h.time)&(1<<24-1)<<40 | uint64(h.bytes>>7)&(1<<20-1)<<20 | uint64(q)<<3 | uint64(si)
}

func unpackHop(v uint64) hop {
	return hop{time: int64(v >> 40), bytes: int64(v>>20&(1<<20-1)) << 7, qlen: int64(v>>3&(1<<17-1)) << 7,
		speed: intSpeeds[v&7] * device.Gbps}
}

// pushHop appends a hop record to the INT block of a RoCEv2 frame whose UDP
// payload starts at pl, when it has one and room left.
func pushHop(f []byte, pl int, h hop) {
	if len(f) < pl+bthLen+intLen || f[pl+4]&intFlag == 0 || f[pl] > opSendOnly {
		return
	}
	b := f[pl+bthLen:]
	n := int(b[0])
	if n >= intHops {
		return
	}
	binary.BigEndian.PutUint64(b[2+8*n:], packHop(h))
	b[0] = byte(n + 1)
}

// readHops decodes the INT block at b into hs and returns the hop count.
func readHops(b []byte, hs *[intHops]hop) int {
	n := min(int(b[0]), intHops)
	for i := 0; i < n; i++ {
		hs[i] = unpackHop(binary.BigEndian.Uint64(b[2+8*i:]))
	}
	return n
}

// wrapDiff returns a − b for counters of the given width.
func wrapDiff(a, b int64, bits uint) int64 {
	return (a - b) & (1<<bits - 1)
}

// writeIPv4Len sets the IPv4 total length and UDP length of frame f (IPv4
// header at 14, no options) and recomputes the header checksum.
func writeIPv4Len(f []byte) {
	ip := f[14:34]
	binary.BigEndian.PutUint16(ip[2:], uint16(len(f)-14))
	binary.BigEndian.PutUint16(f[38:], uint16(len(f)-34))
	ip[10], ip[11] = 0, 0
	var s uint32
	for i := 0; i < 20; i += 2 {
		s += uint32(ip[i])<<8 | uint32(ip[i+1])
	}
	for s>>16 != 0 {
		s = s&0xffff + s>>16
	}
	binary.BigEndian.PutUint16(ip[10:], ^uint16(s))
}

// putBTH writes a BTH at b.
func putBTH(b []byte, op byte, flags byte, qp uint32, ackReq bool, psn int64) {
	b[0] = op
	b[1] = 0x40 // M (migration) set, pad 0, TVer 0
	b[2], b[3] = 0xff, 0xff
	b[4] = flags
	b[5], b[6], b[7] = byte(qp>>16), byte(qp>>8), byte(qp)
	b[8] = 0
	if ackReq {
		b[8] = 0x80
	}
	b[9], b[10], b[11] = byte(psn>>16), byte(psn>>8), byte(psn)
}

func getPSN(b []byte) int64 { return int64(b[9])<<16 | int64(b[10])<<8 | int64(b[11]) }

// unwrapPSN returns the absolute PSN nearest ref whose low 24 bits are v.
func unwrapPSN(v, ref int64) int64 {
	d := (v - ref) & (1<<24 - 1)
	if d >= 1<<23 {
		d -= 1 << 24
	}
	return ref + d
}
