// SPDX-License-Identifier: Apache-2.0

package device

import (
	"encoding/binary"
	"errors"
	"net/netip"
)

// ErrFrameSpec is returned by BuildUDP for a spec it cannot build.
var ErrFrameSpec = errors.New("bad frame spec")

// UDPSpec describes an Ethernet / IPv4 or IPv6 / UDP frame for BuildUDP:
// the generator of scenario traffic and the base of the signal builders.
type UDPSpec struct {
	DstMAC, SrcMAC   MAC
	Tagged           bool // add an 802.1Q tag with VID and PCP
	VID              uint16
	PCP              uint8
	Src, Dst         netip.Addr // both IPv4 or both IPv6
	DSCP, ECN        uint8
	TTL              uint8 // 0 means 64
	ID               uint16
	SrcPort, DstPort uint16
	Payload          []byte
	// Len, when larger than the frame the headers and Payload make, pads
	// the UDP payload with zeros up to a captured length of Len octets.
	Len int
}

// BuildUDP appends the frame spec describes to dst and returns it, with the
// IPv4 header checksum and the UDP checksum computed.
func BuildUDP(dst []byte, s UDPSpec) ([]byte, error) {
	v4 := s.Src.Is4() && s.Dst.Is4()
	if !v4 && !(s.Src.Is6() && s.Dst.Is6()) {
		return dst, ErrFrameSpec
	}
	if s.DSCP > 63 || s.ECN > 3 || s.VID > 0xfff || s.PCP > 7 {
		return dst, ErrFrameSpec
	}
	hdr := 14
	if s.Tagged {
		hdr += 4
	}
	ipl := 20
	if !v4 {
		ipl = 40
	}
	plen := len(s.Payload)
	if n := s.Len - hdr - ipl - 8; n > plen {
		plen = n
	}
	if 8+plen > 0xffff-ipl {
		return dst, ErrFrameSpec
	}
	start := len(dst)
	total := hdr + ipl + 8 + plen
	dst = append(dst, make([]byte, total)...)
	b := dst[start:]
	copy(b[0:6], s.DstMAC[:])
	copy(b[6:12], s.SrcMAC[:])
	o := 12
	if s.Tagged {
		binary.BigEndian.PutUint16(b[o:], EtherTypeVLAN)
		binary.BigEndian.PutUint16(b[o+2:], uint16(s.PCP)<<13|s.VID)
		o += 4
	}
	ttl := s.TTL
	if ttl == 0 {
		ttl = 64
	}
	ip := b[o+2:]
	tos := s.DSCP<<2 | s.ECN
	if v4 {
		binary.BigEndian.PutUint16(b[o:], EtherTypeIPv4)
		ip[0] = 0x45
		ip[1] = tos
		binary.BigEndian.PutUint16(ip[2:], uint16(20+8+plen))
		binary.BigEndian.PutUint16(ip[4:], s.ID)
		ip[8], ip[9] = ttl, 17
		a, c := s.Src.As4(), s.Dst.As4()
		copy(ip[12:16], a[:])
		copy(ip[16:20], c[:])
		binary.BigEndian.PutUint16(ip[10:], ^fold(sum16(ip[:20], 0)))
	} else {
		binary.BigEndian.PutUint16(b[o:], EtherTypeIPv6)
		ip[0] = 0x60 | tos>>4
		ip[1] = tos << 4
		binary.BigEndian.PutUint16(ip[4:], uint16(8+plen))
		ip[6], ip[7] = 17, ttl
		a, c := s.Src.As16(), s.Dst.As16()
		copy(ip[8:24], a[:])
		copy(ip[24:40], c[:])
	}
	u := ip[ipl:]
	binary.BigEndian.PutUint16(u[0:], s.SrcPort)
	binary.BigEndian.PutUint16(u[2:], s.DstPort)
	binary.BigEndian.PutUint16(u[4:], uint16(8+plen))
	copy(u[8:], s.Payload)
	// Pseudo-header checksum.
	var acc uint32
	if v4 {
		acc = sum16(ip[12:20], 0)
	} else {
		acc = sum16(ip[8:40], 0)
	}
	acc += 17 + uint32(8+plen)
	cs := ^fold(sum16(u[:8+plen], acc))
	if cs == 0 {
		cs = 0xffff
	}
	binary.BigEndian.PutUint16(u[6:], cs)
	return dst, nil
}

func sum16(b []byte, acc uint32) uint32 {
	for len(b) >= 2 {
		acc += uint32(b[0])<<8 | uint32(b[1])
		b = b[2:]
	}
	if len(b) == 1 {
		acc += uint32(b[0]) << 8
	}
	return acc
}

func fold(acc uint32) uint16 {
	for acc>>16 != 0 {
		acc = acc&0xffff + acc>>16
	}
	return uint16(acc)
}
