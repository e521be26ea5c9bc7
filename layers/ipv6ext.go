// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"encoding/binary"
	"fmt"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// IPv6 extension header codes (IANA "IPv6 Extension Header Types", RFC
// 8200 §4) that IPv6Ext walks.
const (
	IPv6HopByHop    = 0
	IPv6Routing     = 43
	IPv6Fragment    = 44
	IPv6ESP         = 50
	IPv6AH          = 51
	IPv6NoNext      = 59
	IPv6DestOpts    = 60
	IPv6Mobility    = 135
	IPv6HIP         = 139
	IPv6Shim6       = 140
	IPv6Experiment1 = 253
	IPv6Experiment2 = 254
)

// IsIPv6Ext reports whether next header code nh is an IPv6 extension header
// that IPv6Ext decodes (ESP included: it ends the walk).
func IsIPv6Ext(nh uint8) bool { return ipv6ExtTab[nh] }

var ipv6ExtTab = func() (t [256]bool) {
	for _, c := range []uint8{IPv6HopByHop, IPv6Routing, IPv6Fragment, IPv6ESP, IPv6AH, IPv6DestOpts,
		IPv6Mobility, IPv6HIP, IPv6Shim6, IPv6Experiment1, IPv6Experiment2} {
		t[c] = true
	}
	return t
}()

// MaxIPv6ExtHeaders is how many extension headers IPv6Ext decodes in one
// packet. RFC 8200's recommended order has at most seven (Hop-by-Hop,
// Destination Options, Routing, Fragment, AH, ESP, Destination Options);
// a chain longer than this is reported as an error.
const MaxIPv6ExtHeaders = 10

// IPv6ExtHeader is one decoded IPv6 extension header.
type IPv6ExtHeader struct {
	// Type is the header's own code (0 Hop-by-Hop, 43 Routing, 44 Fragment,
	// 50 ESP, 51 AH, 60 Destination Options, ...): the Next Header field
	// of the header before it.
	Type uint8
	// NextHeader is the header's Next Header field (0 for ESP, which
	// hides it in its encrypted trailer: HasNextHeader is false).
	NextHeader uint8
	// Offset is the header's first octet from the start of the IPv6
	// payload (the octet after the fixed 40-octet header); Length is its
	// length in octets.
	Offset, Length int
	// Routing: the routing type (0 source route, 2 mobility, 3 RPL, 4
	// segment routing) and Segments Left.
	RoutingType, SegmentsLeft uint8
	// Segment Routing Header (Routing type 4, RFC 8754 §2): Last Entry,
	// Flags and Tag; zero for the other types.
	SRHLastEntry, SRHFlags uint8
	SRHTag                 uint16
	// Fragment: the offset in 8-octet units, the M flag and the
	// identification.
	FragOffset uint16
	MoreFrags  bool
	FragID     uint32
	// AH and ESP: the security parameters index and sequence number.
	SPI, Seq uint32
	// Cut is, for a header the data ended inside (the chain's last, kept
	// for the fields it holds whole: its Next Header and length, a
	// routing header's type and Segments Left, an SRH's fixed part), the
	// octets of it there were; 0 for a whole header. Length is then the
	// length the header says.
	Cut int
}

// HasNextHeader reports whether the header carries a Next Header field in
// the clear: every one but ESP, whose next header is in the encrypted
// trailer (RFC 4303 §2).
func (h *IPv6ExtHeader) HasNextHeader() bool { return h.Type != IPv6ESP }

// Name returns the header's name as Wireshark's tree shows it: hopopts,
// routing, fragment, esp, ah, dstopts, mobility, hip, shim6, experimental.
func (h *IPv6ExtHeader) Name() string { return IPv6ExtName(h.Type) }

// IPv6ExtName names extension header code nh ("" for other codes).
func IPv6ExtName(nh uint8) string {
	switch nh {
	case IPv6HopByHop:
		return "hopopts"
	case IPv6Routing:
		return "routing"
	case IPv6Fragment:
		return "fragment"
	case IPv6ESP:
		return "esp"
	case IPv6AH:
		return "ah"
	case IPv6DestOpts:
		return "dstopts"
	case IPv6Mobility:
		return "mobility"
	case IPv6HIP:
		return "hip"
	case IPv6Shim6:
		return "shim6"
	case IPv6Experiment1, IPv6Experiment2:
		return "experimental"
	}
	return ""
}

// IPv6Ext is the chain of IPv6 extension headers between the fixed IPv6
// header and the upper-layer header, decoded in one step without
// allocating: Hop-by-Hop, Destination Options, Routing (any type: source
// route type 0, segment routing type 4, ...), Fragment, AH, and the other
// codes of IANA's extension header list, in whatever order they come (RFC
// 8200 §4.1 recommends one, receivers take any). Its Payload is the
// upper-layer header, and NextLayerType names its layer from Proto, with
// three exceptions that end the walk:
//
//   - a Fragment header that is not atomic (offset not 0, or M set): the
//     rest is a piece of the packet, gopacket.LayerTypeFragment, never
//     decoded as RoCEv2, BTS, CIM or a postcard;
//   - ESP: the rest is encrypted (ESP is set, Proto is 50);
//   - No Next Header (59).
//
// This package's IPv6 names this layer when the fixed header's Next Header
// is an extension header, so a Parser finds RoCEv2 and the signal formats
// behind any chain.
type IPv6Ext struct {
	layers.BaseLayer
	// Headers holds the decoded headers, in wire order, each with its own
	// type-specific fields (two Routing headers keep two routing types);
	// N of them are valid. A fixed array of MaxIPv6ExtHeaders: decoding
	// does not allocate.
	Headers [MaxIPv6ExtHeaders]IPv6ExtHeader
	N       int
	// Proto is the upper-layer protocol: the Next Header of the last
	// header (50 when the chain ends in ESP).
	Proto uint8
	// Fragment says a non-atomic Fragment header was found: the payload is
	// a piece of the original packet.
	Fragment bool
	// ESP says the chain ends in ESP: what follows is encrypted.
	ESP bool
	// Warnings: WarnEncrypted when the chain ends in ESP; WarnOption when
	// an option of a Hop-by-Hop or Destination Options header runs past
	// the header (Option says which and where): the header is skipped by
	// its length and the chain decodes on.
	Warnings Warnings
	// Option is the first malformed option of the chain; valid when
	// Warnings has WarnOption.
	Option OptionFault
}

// LayerType returns LayerTypeIPv6Ext.
func (e *IPv6Ext) LayerType() gopacket.LayerType { return LayerTypeIPv6Ext }

// CanDecode returns LayerTypeIPv6Ext.
func (e *IPv6Ext) CanDecode() gopacket.LayerClass { return LayerTypeIPv6Ext }

// List returns the valid headers.
func (e *IPv6Ext) List() []IPv6ExtHeader { return e.Headers[:e.N] }

// Atomic reports whether the chain holds a Fragment header with offset 0
// and M clear (RFC 6946): the whole packet, decoded as usual.
func (e *IPv6Ext) Atomic() bool {
	for i := range e.N {
		if h := &e.Headers[i]; h.Type == IPv6Fragment && h.FragOffset == 0 && !h.MoreFrags {
			return true
		}
	}
	return false
}

// NextLayerType returns the upper-layer protocol's layer type, or
// gopacket.LayerTypeFragment, or gopacket.LayerTypeZero (ESP, No Next
// Header).
func (e *IPv6Ext) NextLayerType() gopacket.LayerType {
	switch {
	case e.Fragment:
		return gopacket.LayerTypeFragment
	case e.ESP || e.Proto == IPv6NoNext:
		return gopacket.LayerTypeZero
	}
	return layers.IPProtocol(e.Proto).LayerType()
}

// DecodeFromBytes decodes the chain from its first header; the first
// header's code must be set in Proto before the call (IPv6 and
// decodeIPv6Ext do it). A header cut short or longer than the data is an
// error naming the header and its offset; the headers before it stay
// decoded. An option that runs past its Hop-by-Hop or Destination Options
// header is a warning (WarnOption, Option), not an error.
func (e *IPv6Ext) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	return e.decode(data, e.Proto, df)
}

// decode walks the chain that starts with header code nh.
func (e *IPv6Ext) decode(data []byte, nh uint8, df gopacket.DecodeFeedback) error {
	e.N, e.Fragment, e.ESP, e.Warnings = 0, false, false, 0
	off := 0
	for IsIPv6Ext(nh) {
		if e.N == MaxIPv6ExtHeaders {
			e.Proto = nh
			return errAt("ipv6", IPv6ExtName(nh), off, ErrBadValue, fmt.Sprintf("more than %d extension headers", MaxIPv6ExtHeaders))
		}
		if nh == IPv6HopByHop && e.N > 0 {
			e.Warnings |= WarnHopByHopOrder
		}
		h := &e.Headers[e.N]
		*h = IPv6ExtHeader{Type: nh, Offset: off}
		d := data[off:]
		var n int
		switch nh {
		case IPv6ESP:
			if len(d) < 8 {
				e.Proto = nh
				df.SetTruncated()
				return truncated("ipv6", "esp", off, 8, len(d))
			}
			h.SPI, h.Seq = binary.BigEndian.Uint32(d), binary.BigEndian.Uint32(d[4:])
			h.Length = len(d)
			e.N++
			e.ESP, e.Proto = true, nh
			e.Warnings |= WarnEncrypted
			e.Contents, e.Payload = data[:off], data[off:]
			return nil
		case IPv6Fragment:
			if len(d) < 8 {
				e.Proto = nh
				df.SetTruncated()
				return truncated("ipv6", "fragment", off, 8, len(d))
			}
			n = 8
			fo := binary.BigEndian.Uint16(d[2:])
			h.FragOffset, h.MoreFrags, h.FragID = fo>>3, fo&1 != 0, binary.BigEndian.Uint32(d[4:])
			if h.FragOffset != 0 || h.MoreFrags {
				e.Fragment = true
			}
		case IPv6AH:
			if len(d) < 12 {
				e.Proto = nh
				df.SetTruncated()
				return truncated("ipv6", "ah", off, 12, len(d))
			}
			n = (int(d[1]) + 2) * 4
			if n < 12 {
				// Its length leaves no room for the sequence number
				// (RFC 4302 §2: 12 fixed octets), as DecodeQuote and
				// gopacket refuse it.
				e.Proto = nh
				return errAt("ipv6", "ah.length", off+1, ErrBadValue, fmt.Sprintf("AH of %d octets, less than 12", n))
			}
			h.SPI, h.Seq = binary.BigEndian.Uint32(d[4:]), binary.BigEndian.Uint32(d[8:])
		default:
			min := 2
			if nh == IPv6Routing {
				min = 4
			}
			if len(d) < min {
				e.Proto = nh
				df.SetTruncated()
				return truncated("ipv6", IPv6ExtName(nh), off, min, len(d))
			}
			n = (int(d[1]) + 1) * 8
			if nh == IPv6Routing {
				h.RoutingType, h.SegmentsLeft = d[2], d[3]
				if h.RoutingType == 4 && len(d) >= 8 {
					// The SRH's fixed part (a whole SRH has it: n >= 8).
					h.SRHLastEntry, h.SRHFlags, h.SRHTag = d[4], d[5], binary.BigEndian.Uint16(d[6:])
				}
			}
			if n > len(d) {
				// Cut inside: the fields it holds whole are kept, as
				// Wireshark shows them (ipv6.hopopts.nxt), the header
				// listed last with Cut set.
				h.NextHeader, h.Length, h.Cut = d[0], n, len(d)
				e.N++
			}
		}
		if n > len(d) {
			e.Proto = nh
			df.SetTruncated()
			return errAt("ipv6", IPv6ExtName(nh), off, ErrLength, fmt.Sprintf("header of %d octets, %d left", n, len(d)))
		}
		if nh == IPv6HopByHop || nh == IPv6DestOpts {
			// An option past the header, whose own length is valid: a
			// warning, as Wireshark has it; the header's extent is known
			// and the chain decodes on.
			if at, ok := tlvOptionsFit(d[2:n]); !ok && e.Warnings&WarnOption == 0 {
				e.Warnings |= WarnOption
				e.Option = OptionFault{Header: IPv6ExtName(nh), Offset: off + 2 + at, Type: d[2+at], Length: -1, Left: n - 2 - at}
				if 2+at+1 < n {
					e.Option.Length = int(d[2+at+1])
				}
			}
		}
		h.NextHeader, h.Length = d[0], n
		nh = d[0]
		off += n
		e.N++
		if e.Fragment {
			break
		}
	}
	e.Proto = nh
	e.Contents, e.Payload = data[:off], data[off:]
	return nil
}

// decodeIPv6Ext is the gopacket decoder of LayerTypeIPv6Ext, for a packet
// whose previous layer is an IPv6 with an extension header next.
func decodeIPv6Ext(data []byte, p gopacket.PacketBuilder) error {
	e := &IPv6Ext{}
	nh := uint8(IPv6HopByHop)
	if ip, ok := p.(gopacket.Packet); ok {
		if l, ok := ip.NetworkLayer().(*layers.IPv6); ok {
			nh = uint8(l.NextHeader)
		}
	}
	err := e.decode(data, nh, p)
	p.AddLayer(e)
	if err != nil {
		return err
	}
	return p.NextDecoder(e.NextLayerType())
}

// decodeIPv6Fragment replaces gopacket's decoder of the IPv6 Fragment
// header in gopacket.NewPacket, which always leaves the rest as a
// fragment: an atomic fragment (offset 0, M clear; RFC 6946) holds the
// whole packet, and decodes on as the DecodingLayer path does.
func decodeIPv6Fragment(data []byte, p gopacket.PacketBuilder) error {
	f := &layers.IPv6Fragment{}
	if err := f.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(f)
	return p.NextDecoder(f.NextLayerType())
}

// skipIPv6Ext walks the extension headers of the IPv6 packet b, whose
// fixed header ends at off and names nh next, for a quote: it returns the
// upper-layer protocol, the offset of its header, and whether that header
// is there (not behind ESP nor in a fragment after the first: a first
// fragment holds the L4 header, as switches hashing it assume). It reports
// a header cut short with ErrQuoteTooShort. It does not allocate.
func skipIPv6Ext(b []byte, off int, nh uint8) (proto uint8, l4 int, hdr bool, err error) {
	for i := 0; IsIPv6Ext(nh); i++ {
		if i == MaxIPv6ExtHeaders {
			return nh, off, false, errAt("flow", "ipv6."+IPv6ExtName(nh), off, ErrBadValue, fmt.Sprintf("more than %d extension headers", MaxIPv6ExtHeaders))
		}
		var n int
		switch nh {
		case IPv6ESP:
			return nh, off, false, nil
		case IPv6Fragment:
			if len(b) < off+8 {
				return nh, off, false, errAt("flow", "ipv6.fragment", off, ErrQuoteTooShort, "fragment header cut")
			}
			if binary.BigEndian.Uint16(b[off+2:])&0xfff8 != 0 {
				return b[off], off + 8, false, nil
			}
			n = 8
		case IPv6AH:
			if len(b) < off+2 {
				return nh, off, false, errAt("flow", "ipv6.ah", off, ErrQuoteTooShort, "AH cut")
			}
			n = (int(b[off+1]) + 2) * 4
			if n < 12 { // its fixed part, as IPv6Ext and device.Parse
				return nh, off, false, errAt("flow", "ipv6.ah", off, ErrBadValue, fmt.Sprintf("AH of %d octets, less than 12", n))
			}
		default:
			if len(b) < off+2 {
				return nh, off, false, errAt("flow", "ipv6."+IPv6ExtName(nh), off, ErrQuoteTooShort, "extension header cut")
			}
			n = (int(b[off+1]) + 1) * 8
		}
		nh, off = b[off], off+n
	}
	return nh, off, true, nil
}

// tlvOptionsFit walks the options of a Hop-by-Hop or Destination Options
// header (RFC 8200 §4.2: Pad1 is one octet, every other option a type, a
// length and that many octets) and reports whether each fits in the
// header; when one does not, at is its offset within opts.
func tlvOptionsFit(opts []byte) (at int, ok bool) {
	return tlvFind(opts, 0) // Pad1 is stepped over, never found: a full walk
}

// tlvFind walks the options as tlvOptionsFit does and stops at the first
// one of type want: at is its offset within opts, or -1 when there is
// none. When an option before it does not fit in the header, ok is false
// and at is that option's offset.
func tlvFind(opts []byte, want byte) (at int, ok bool) {
	for i := 0; i < len(opts); {
		if opts[i] == 0 {
			i++
			continue
		}
		if i+2 > len(opts) || i+2+int(opts[i+1]) > len(opts) {
			return i, false
		}
		if opts[i] == want {
			return i, true
		}
		i += 2 + int(opts[i+1])
	}
	return -1, true
}

// ipv6JumboOption is the Hop-by-Hop option type of RFC 2675's Jumbo
// Payload option.
const ipv6JumboOption = 0xC2

// jumboOption finds the Jumbo Payload option in the Hop-by-Hop header
// that starts p: its offset in p, or -1. ok is false when the header or
// an option runs past its data (IPv6Ext reports that).
func jumboOption(p []byte) (at int, ok bool) {
	if len(p) < 2 {
		return -1, false
	}
	n := (int(p[1]) + 1) * 8
	if n > len(p) {
		return -1, false
	}
	if at, ok = tlvFind(p[2:n], ipv6JumboOption); !ok {
		return -1, false
	}
	if at >= 0 {
		at += 2
	}
	return at, true
}

// ipv6Length checks an IPv6 payload length against RFC 2675 and returns
// the packet's length after the IPv6 header. 0 is reserved for
// jumbograms: the first extension header (nh) must be Hop-by-Hop and carry
// the Jumbo Payload option, 4 octets of length over 65,535 counting every
// octet after the IPv6 header; and a packet with that option must have
// payload length 0. Anything else is an error naming the field, as
// gopacket's IPv6 decoder has it (RFC 2675 §3 has a node discard such a
// packet); device.Parse reads the option the same way. p is what follows
// the IPv6 header; offsets count from the IPv6 header.
func ipv6Length(plen uint16, p []byte, nh uint8) (int, error) {
	if plen != 0 {
		if nh == IPv6HopByHop {
			if at, ok := jumboOption(p); ok && at >= 0 {
				return 0, errAt("ipv6", "payload length", 4, ErrBadValue, fmt.Sprintf("%d with a Jumbo Payload option (RFC 2675: a jumbogram's is 0)", plen))
			}
		}
		return int(plen), nil
	}
	if nh != IPv6HopByHop {
		return 0, errAt("ipv6", "payload length", 4, ErrBadValue, fmt.Sprintf("0 (a jumbogram, RFC 2675) with next header %d, not Hop-by-Hop", nh))
	}
	at, ok := jumboOption(p)
	switch {
	case !ok && len(p) < 2:
		return 0, truncated("ipv6", "hopbyhop", 40, 2, len(p))
	case !ok:
		return 0, errAt("ipv6", "hopbyhop", 40, ErrLength, "header or option past its data")
	case at < 0:
		return 0, errAt("ipv6", "payload length", 4, ErrBadValue, "0 (a jumbogram, RFC 2675) but the Hop-by-Hop header has no Jumbo Payload option")
	case p[at+1] != 4:
		return 0, errAt("ipv6", "jumbo payload", 40+at, ErrBadValue, fmt.Sprintf("option data of %d octets, not 4", p[at+1]))
	}
	v := binary.BigEndian.Uint32(p[at+2:])
	if v <= 0xffff {
		return 0, errAt("ipv6", "jumbo payload", 40+at+2, ErrBadValue, fmt.Sprintf("length %d, not over 65,535", v))
	}
	if uint64(v) > uint64(len(p)) {
		return len(p) + 1, nil // past the capture either way (and past a 32-bit int)
	}
	return int(v), nil
}
