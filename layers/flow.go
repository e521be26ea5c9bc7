// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"encoding/binary"
	"fmt"
	"net/netip"
)

// RoCEv2Port is the IANA UDP destination port of RoCEv2.
const RoCEv2Port = 4791

// Flow is the flow a signal is about, as named by a quote (the start of the
// offending packet from its IP header on): the 5-tuple, the DSCP and, when
// the quote holds a RoCEv2 BTH, the destination QP. The quote holds a BTH
// when its UDP destination port is registered for LayerTypeBTH: 4791,
// unless RegisterUDPPort moved or added one. Flow is comparable and can key
// a map.
type Flow struct {
	Src, Dst         netip.Addr
	Proto            uint8
	SrcPort, DstPort uint16
	DSCP             uint8
	QP               uint32 // destination QP; valid when HasQP
	HasQP            bool
	// NoL4 says the quoted packet has no L4 header to read: it is
	// encrypted (ESP) or a fragment after the first. Then it has no
	// ports (SrcPort and DstPort are 0, not values) and no QP.
	NoL4 bool
}

// String renders the flow as "src:sport > dst:dport proto N dscp N [qp 0x..]",
// without ports when the quote had no L4 header (NoL4).
func (f Flow) String() string {
	if f.NoL4 { // no ports to show
		return fmt.Sprintf("%s > %s proto %d dscp %d", f.Src, f.Dst, f.Proto, f.DSCP)
	}
	s := fmt.Sprintf("%s > %s proto %d dscp %d",
		netip.AddrPortFrom(f.Src, f.SrcPort), netip.AddrPortFrom(f.Dst, f.DstPort), f.Proto, f.DSCP)
	if f.HasQP {
		s += fmt.Sprintf(" qp 0x%06x", f.QP)
	}
	return s
}

// hasPorts reports whether the first 4 octets of the L4 header of proto are
// a source and a destination port.
func hasPorts(proto uint8) bool {
	switch proto {
	case 6, 17, 33, 132, 136: // TCP, UDP, DCCP, SCTP, UDP-Lite
		return true
	}
	return false
}

// DecodeQuote names the flow of a quoted packet q, which starts at the first
// octet of an IPv4 or IPv6 header. It needs the whole IP header (IPv6
// extension headers, or an IPv4 AH, included) plus 8 octets of L4 header,
// and reports ErrQuoteTooShort otherwise, or ErrVersion when q holds
// neither IPv4 nor IPv6; behind ESP the flow has no ports. It does not
// allocate.
func DecodeQuote(q []byte) (Flow, error) {
	var f Flow
	err := decodeQuote(q, &f)
	return f, err
}

// decodeQuote is DecodeQuote into *f. Writing in place spares copying the
// Flow on every BTS, postcard and CIM. On success it sets every field of
// *f; on error it leaves some set (callers zero it again).
//
// The quotes switches send, IPv4 without an AH or IPv6 without extension
// headers, long enough for the L4 ports, take a straight path that checks the
// lengths up front and writes each field once; anything else goes to
// decodeQuoteChecked.
func decodeQuote(q []byte, f *Flow) error {
	if !quoteStraight(q) {
		*f = Flow{}
		return decodeQuoteChecked(q, f)
	}
	var l4 int
	var proto, dscp uint8
	if q[0]>>4 == 4 {
		l4 = int(q[0]&0x0f) * 4
		proto, dscp = q[9], q[1]>>2
		f.Src = netip.AddrFrom4([4]byte(q[12:16]))
		f.Dst = netip.AddrFrom4([4]byte(q[16:20]))
	} else {
		l4 = 40
		proto, dscp = q[6], (q[0]&0x0f)<<2|q[1]>>6
		f.Src = netip.AddrFrom16([16]byte(q[8:24]))
		f.Dst = netip.AddrFrom16([16]byte(q[24:40]))
	}
	f.Proto, f.DSCP, f.NoL4 = proto, dscp, false
	// Both ports in one load, and the DestQP from a 3-octet slice: one
	// bounds check each.
	var ports uint32
	if hasPorts(proto) {
		ports = binary.BigEndian.Uint32(q[l4 : l4+4])
	}
	f.SrcPort, f.DstPort = uint16(ports>>16), uint16(ports)
	if proto == 17 && isBTHPort(uint16(ports)) && len(q) >= l4+8+12 {
		f.QP, f.HasQP = get24(q[l4+8+5:l4+8+8]), true
	} else {
		f.QP, f.HasQP = 0, false
	}
	return nil
}

// quoteNamesFlow reports whether decodeQuote(q) succeeds, without
// building the flow: the straight path's checks, else the checked walk.
func quoteNamesFlow(q []byte) bool {
	if quoteStraight(q) {
		return true
	}
	var f Flow
	return decodeQuoteChecked(q, &f) == nil
}

// quoteStraight reports whether q takes decodeQuote's straight path (an
// IPv4 header without an AH, not a fragment after the first, or an
// extension-free IPv6 header, and the L4 ports), which always
// names a flow. It is small enough to inline into decodeQuote and into the
// CIM decode, whose straight path takes only MSDUs it accepts.
func quoteStraight(q []byte) bool {
	return len(q) >= 28 && (q[0]>>4 == 4 && q[0]&0x0f >= 5 && len(q) >= int(q[0]&0x0f)*4+8 && q[9] != IPv6AH && q[6]&0x1f|q[7] == 0 ||
		q[0]>>4 == 6 && len(q) >= 48 && !ipv6Ext(q[6]))
}

// ipv6Ext reports whether next is an IPv6 extension header that
// decodeQuoteChecked walks.
func ipv6Ext(next uint8) bool { return ipv6ExtTab[next] }

// decodeQuoteChecked is decodeQuote into *f, which must be zero, field by
// field: it sets only the fields the quote has, and on error leaves some
// set.
func decodeQuoteChecked(q []byte, f *Flow) error {
	if len(q) < 1 {
		return errAt("flow", "version", 0, ErrQuoteTooShort, "empty quote")
	}
	var l4 int
	switch q[0] >> 4 {
	case 4:
		if len(q) < 20 {
			return errAt("flow", "ipv4", 0, ErrQuoteTooShort, fmt.Sprintf("IPv4 header needs 20 octets, quote has %d", len(q)))
		}
		ihl := int(q[0]&0x0f) * 4
		if ihl < 20 {
			return errAt("flow", "ipv4.ihl", 0, ErrBadValue, fmt.Sprintf("IHL %d", ihl/4))
		}
		f.DSCP = q[1] >> 2
		f.Proto = q[9]
		f.Src = netip.AddrFrom4([4]byte(q[12:16]))
		f.Dst = netip.AddrFrom4([4]byte(q[16:20]))
		l4 = ihl
		if q[6]&0x1f|q[7] != 0 {
			f.NoL4 = true
			return nil // a fragment after the first: no L4 header, no ports (as IPv6)
		}
		// An AH (RFC 4302) before the L4 header, as Parser and
		// device.Parse walk it: the flow is the protocol behind it.
		for i := 0; f.Proto == IPv6AH; i++ {
			if i == MaxIPv6ExtHeaders {
				return errAt("flow", "ipv4.ah", l4, ErrBadValue, fmt.Sprintf("more than %d AH headers", MaxIPv6ExtHeaders))
			}
			if len(q) < l4+2 {
				return errAt("flow", "ipv4.ah", l4, ErrQuoteTooShort, "AH cut")
			}
			n := (int(q[l4+1]) + 2) * 4
			if n < 12 { // as Parser and device.Parse: the fixed part is 12 octets
				return errAt("flow", "ipv4.ah", l4, ErrBadValue, fmt.Sprintf("AH of %d octets, less than 12", n))
			}
			f.Proto, l4 = q[l4], l4+n
		}
		if f.Proto == IPv6ESP {
			f.NoL4 = true
			return nil // encrypted: no L4 header, no ports
		}
	case 6:
		if len(q) < 40 {
			return errAt("flow", "ipv6", 0, ErrQuoteTooShort, fmt.Sprintf("IPv6 header needs 40 octets, quote has %d", len(q)))
		}
		f.DSCP = (q[0]&0x0f)<<2 | q[1]>>6
		f.Src = netip.AddrFrom16([16]byte(q[8:24]))
		f.Dst = netip.AddrFrom16([16]byte(q[24:40]))
		proto, off, hdr, err := skipIPv6Ext(q, 40, q[6])
		f.Proto = proto
		if err != nil {
			return err
		}
		if !hdr {
			f.NoL4 = true
			return nil // ESP, or a fragment after the first: no L4 header, no ports
		}
		l4 = off
	default:
		return errAt("flow", "version", 0, ErrVersion, fmt.Sprintf("IP version %d", q[0]>>4))
	}
	if len(q) < l4+8 {
		return errAt("flow", "l4", l4, ErrQuoteTooShort, fmt.Sprintf("need %d octets (IP header + 8), quote has %d", l4+8, len(q)))
	}
	if hasPorts(f.Proto) {
		f.SrcPort = binary.BigEndian.Uint16(q[l4:])
		f.DstPort = binary.BigEndian.Uint16(q[l4+2:])
	}
	if f.Proto == 17 && isBTHPort(f.DstPort) && len(q) >= l4+8+12 {
		f.QP = uint32(q[l4+8+5])<<16 | uint32(q[l4+8+6])<<8 | uint32(q[l4+8+7])
		f.HasQP = true
	}
	return nil
}

// QuoteLen is how many octets of the offending IP packet a builder quotes
// in a BTS or a CC-postcard: enough for IPv4 or IPv6 + UDP + BTH.
const QuoteLen = 64

// Quote returns the prefix of ipPacket a BTS or postcard carries:
// min(len(ipPacket), QuoteLen) octets. It does not copy.
func Quote(ipPacket []byte) []byte {
	if len(ipPacket) > QuoteLen {
		return ipPacket[:QuoteLen]
	}
	return ipPacket
}
