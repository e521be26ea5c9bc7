// SPDX-License-Identifier: Apache-2.0

package device

import (
	"encoding/binary"
	"fmt"
	"net/netip"
)

// Kind classifies a frame the way the device core needs it: data to
// forward, or one of the signal formats of wire.md that schemes consume.
type Kind uint8

// The frame kinds. KindData is any IPv4 or IPv6 packet that is not one of
// the signal formats; KindOther is a well-formed frame the core cannot
// route (a non-IP EtherType); KindMalformed is a frame too short or
// inconsistent to parse.
const (
	KindOther Kind = iota
	KindData
	KindPause
	KindPFC
	KindBTS
	KindCIM
	KindPostcard
	KindExperimental
	KindMalformed
)

var kindNames = [...]string{"other", "data", "pause", "pfc", "bts", "cim", "postcard", "experimental", "malformed"}

// String returns the kind's lower-case name ("data", "bts", ...).
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Signal reports whether k is a control-frame kind that goes to the
// schemes' OnControl hooks.
func (k Kind) Signal() bool {
	return k >= KindPause && k <= KindExperimental
}

// EtherTypes and code points of wire.md.
const (
	EtherTypeIPv4       = 0x0800
	EtherTypeIPv6       = 0x86DD
	EtherTypeVLAN       = 0x8100
	EtherTypeQinQ       = 0x88A8
	EtherTypeQinQ9100   = 0x9100 // the pre-802.1ad QinQ TPID (IsVLANTPID)
	EtherTypeMACControl = 0x8808
	EtherTypeCIM        = 0x89A2
	EtherTypeExp        = 0x88B5

	OpcodePause = 0x0001
	OpcodePFC   = 0x0101

	DefaultBTSPort      = 1021
	DefaultPostcardPort = 1022
	DefaultCIMPort      = 35234
	RoCEv2Port          = 4791
)

// MaxVLANTags is how many VLAN tags Parse skips, as many as layers.Parser
// decodes (layers.MaxVLANTags, Wireshark's limit): a frame with yet
// another tag behind them is KindOther, its EtherType that tag's TPID, as
// layers.Parser leaves the rest undecoded. It was 2, while layers.Parser
// decoded any number: a frame with three tags was data to one and KindOther
// to the other.
const MaxVLANTags = 20

// IsVLANTPID reports whether EtherType et opens a VLAN tag: 0x8100
// (802.1Q), 0x88A8 (802.1ad) or 0x9100, the TPID of the QinQ switches that
// predate 802.1ad, which Wireshark and layers.Parser decode as a tag too.
// Parse skips up to MaxVLANTags such tags, in any order.
func IsVLANTPID(et uint16) bool {
	return et == EtherTypeVLAN || et == EtherTypeQinQ || et == EtherTypeQinQ9100
}

// Codepoints are the configurable UDP ports by which the parser recognises
// signal packets. The zero value means the defaults of wire.md.
type Codepoints struct {
	BTSPort      uint16 // default 1021
	PostcardPort uint16 // default 1022
	CIMPort      uint16 // default 35234
	RoCEPort     uint16 // default 4791
}

// WithDefaults returns c with every zero port replaced by its default.
func (c Codepoints) WithDefaults() Codepoints {
	if c.BTSPort == 0 {
		c.BTSPort = DefaultBTSPort
	}
	if c.PostcardPort == 0 {
		c.PostcardPort = DefaultPostcardPort
	}
	if c.CIMPort == 0 {
		c.CIMPort = DefaultCIMPort
	}
	if c.RoCEPort == 0 {
		c.RoCEPort = RoCEv2Port
	}
	return c
}

// Meta is what the core learns about a frame by parsing its headers by
// hand (Ethernet, up to MaxVLANTags VLAN tags, IPv4 and an AH or IPv6
// and its extension headers, the L4 ports, the RoCEv2 DestQP). Offsets
// are from the start of the frame; an offset is 0 when the header is
// absent.
type Meta struct {
	Kind      Kind
	EtherType uint16 // after any VLAN tags
	Tagged    bool
	VID       uint16 // VLAN identifier of the outer tag
	PCP       uint8  // priority code point of the outer tag
	L3        int    // first octet after the EtherType: IP header, MAC control opcode, CIM PDU
	IPVersion uint8  // 4, 6 or 0
	Src, Dst  netip.Addr
	DSCP      uint8
	ECN       uint8
	TTL       uint8
	Proto     uint8 // IP protocol (after IPv6 extension headers or an IPv4 AH; 50 for ESP)
	IPLen     int   // IP packet length by its header (may exceed the captured frame)
	L4        int   // offset of the L4 header, 0 when absent or cut
	SrcPort   uint16
	DstPort   uint16
	Payload   int    // offset of the UDP payload, 0 when not UDP
	Opcode    uint16 // MAC control opcode for KindPause and KindPFC
	QP        uint32 // RoCEv2 DestQP, valid when HasQP
	HasQP     bool
	// Fragment says the IP packet is a fragment (IPv4 MF or offset, or an
	// IPv6 Fragment header that is not atomic): the first fragment's L4
	// ports are read, for flow hashing, but no fragment is classified as
	// a signal or RoCEv2, as layers.Parser does not decode one.
	Fragment bool
}

// IP reports whether the frame carries an IPv4 or IPv6 packet.
func (m *Meta) IP() bool { return m.IPVersion != 0 }

// FlowKey names a flow: the 5-tuple plus the RoCEv2 destination QP when
// the packet is RoCEv2. It is comparable and keys maps.
type FlowKey struct {
	Src, Dst         netip.Addr
	Proto            uint8
	SrcPort, DstPort uint16
	QP               uint32
	HasQP            bool
}

// String renders the key as "src:sport > dst:dport/proto [qp N]".
func (k FlowKey) String() string {
	s := fmt.Sprintf("%s > %s/%d", netip.AddrPortFrom(k.Src, k.SrcPort), netip.AddrPortFrom(k.Dst, k.DstPort), k.Proto)
	if k.HasQP {
		s += fmt.Sprintf(" qp 0x%06x", k.QP)
	}
	return s
}

// FiveTuple returns k without the QP.
func (k FlowKey) FiveTuple() FlowKey {
	k.QP, k.HasQP = 0, false
	return k
}

// Flow returns the flow key of the frame (zero when it is not IP).
func (m *Meta) Flow() FlowKey {
	return FlowKey{Src: m.Src, Dst: m.Dst, Proto: m.Proto, SrcPort: m.SrcPort, DstPort: m.DstPort, QP: m.QP, HasQP: m.HasQP}
}

// Parse fills m from frame without allocating. It never fails: a frame it
// cannot make sense of gets KindMalformed (too short for what its headers
// announce) or KindOther (an EtherType the core does not route).
func Parse(frame []byte, m *Meta, cp *Codepoints) {
	*m = Meta{}
	if len(frame) < 14 {
		m.Kind = KindMalformed
		return
	}
	et := binary.BigEndian.Uint16(frame[12:])
	off := 14
	for i := 0; i < MaxVLANTags && IsVLANTPID(et); i++ {
		if len(frame) < off+4 {
			m.Kind = KindMalformed
			return
		}
		if !m.Tagged {
			tci := binary.BigEndian.Uint16(frame[off:])
			m.Tagged, m.VID, m.PCP = true, tci&0x0fff, uint8(tci>>13)
		}
		et = binary.BigEndian.Uint16(frame[off+2:])
		off += 4
	}
	m.EtherType, m.L3 = et, off
	switch et {
	case EtherTypeMACControl:
		if len(frame) < off+2 {
			m.Kind = KindMalformed
			return
		}
		m.Opcode = binary.BigEndian.Uint16(frame[off:])
		switch m.Opcode {
		case OpcodePause:
			m.Kind = KindPause
		case OpcodePFC:
			m.Kind = KindPFC
		default:
			m.Kind = KindOther
		}
		return
	case EtherTypeCIM:
		m.Kind = KindCIM
		return
	case EtherTypeExp:
		m.Kind = KindExperimental
		return
	case EtherTypeIPv4:
		parseIPv4(frame, off, m)
	case EtherTypeIPv6:
		parseIPv6(frame, off, m)
	default:
		m.Kind = KindOther
		return
	}
	if m.Kind == KindMalformed {
		return
	}
	m.Kind = KindData
	if m.L4 == 0 {
		return
	}
	switch m.Proto {
	case 6, 17, 33, 132, 136:
		if len(frame) < m.L4+4 {
			m.L4 = 0
			return
		}
		m.SrcPort = binary.BigEndian.Uint16(frame[m.L4:])
		m.DstPort = binary.BigEndian.Uint16(frame[m.L4+2:])
	}
	if m.Proto != 17 || m.Fragment || len(frame) < m.L4+8 {
		return
	}
	m.Payload = m.L4 + 8
	switch m.DstPort {
	case cp.BTSPort:
		m.Kind = KindBTS
	case cp.CIMPort:
		m.Kind = KindCIM
	case cp.PostcardPort:
		m.Kind = KindPostcard
	case cp.RoCEPort:
		if len(frame) >= m.Payload+8 {
			p := m.Payload
			m.QP = uint32(frame[p+5])<<16 | uint32(frame[p+6])<<8 | uint32(frame[p+7])
			m.HasQP = true
		}
	}
}

func parseIPv4(b []byte, off int, m *Meta) {
	if len(b) < off+20 || b[off]>>4 != 4 {
		m.Kind = KindMalformed
		return
	}
	ihl := int(b[off]&0x0f) * 4
	if ihl < 20 || len(b) < off+ihl {
		m.Kind = KindMalformed
		return
	}
	m.IPVersion = 4
	m.DSCP, m.ECN = b[off+1]>>2, b[off+1]&3
	m.IPLen = int(binary.BigEndian.Uint16(b[off+2:]))
	m.TTL, m.Proto = b[off+8], b[off+9]
	if m.IPLen != 0 && m.IPLen < ihl || m.IPLen != 0 && m.Proto == 17 && binary.BigEndian.Uint16(b[off+6:])&0x1fff == 0 && m.IPLen-ihl < 8 {
		// A total length shorter than the header, or than the UDP header
		// it says follows (the ports would be read from Ethernet padding):
		// malformed, as layers (gopacket's IPv4, then a UDP header cut or
		// missing) has it. 0 is TSO's: the length is the frame's.
		m.Kind = KindMalformed
		return
	}
	m.Src = netip.AddrFrom4([4]byte(b[off+12 : off+16]))
	m.Dst = netip.AddrFrom4([4]byte(b[off+16 : off+20]))
	// Fragments after the first carry no L4 header.
	frag := binary.BigEndian.Uint16(b[off+6:])
	m.Fragment = frag&0x3fff != 0
	if frag&0x1fff != 0 {
		return
	}
	l4 := off + ihl
	if m.Proto == 51 {
		var ok bool
		if l4, ok = skipIPv4AH(b, off, l4, m); !ok {
			if !m.Fragment {
				m.Kind = KindMalformed
			}
			return
		}
	}
	if m.Proto != 50 { // ESP: the rest is encrypted
		m.L4 = l4
	}
}

// skipIPv4AH walks the AH (RFC 4302) at l4 of the IPv4 packet at off, as
// layers.Parser does (layers.IPSecAH): its length counts 4-octet units,
// less 2, at least 12 octets. m.Proto becomes the protocol behind it, as
// behind an IPv6 AH (an AH behind it is walked too), and l4 the offset of
// that protocol's header. ok is false, m.Proto the AH's 51, for an AH cut
// short or running past the packet (its total length, or the frame), and
// for a UDP header behind it that the total length cuts: layers.Parser's
// errors, a malformed frame (a first fragment excepted, which
// layers.Parser does not decode past IPv4).
func skipIPv4AH(b []byte, off, l4 int, m *Meta) (int, bool) {
	end := len(b)
	if m.IPLen != 0 && off+m.IPLen < end {
		end = off + m.IPLen // Ethernet padding follows
	}
	for m.Proto == 51 { // each AH takes 12 octets or more: the walk ends
		if end < l4+12 {
			return 0, false
		}
		n := (int(b[l4+1]) + 2) * 4
		if n < 12 || end < l4+n {
			return 0, false
		}
		m.Proto, l4 = b[l4], l4+n
	}
	if m.Proto == 17 && m.IPLen != 0 && off+m.IPLen-l4 < 8 {
		return 0, false // the ports would be read from the padding
	}
	return l4, true
}

func parseIPv6(b []byte, off int, m *Meta) {
	if len(b) < off+40 || b[off]>>4 != 6 {
		m.Kind = KindMalformed
		return
	}
	plen, ok := ipv6Length(int(binary.BigEndian.Uint16(b[off+4:])), b[off+40:], b[off+6])
	if !ok || plen < 8 && b[off+6] == 17 {
		// (A payload too short for the UDP header it says follows, none
		// at all included: malformed as in layers, whose UDP header is
		// then cut or missing; another next header, which layers does not
		// decode, is no fault.)
		m.Kind = KindMalformed
		return
	}
	m.IPVersion = 6
	tc := (b[off]&0x0f)<<4 | b[off+1]>>4
	m.DSCP, m.ECN = tc>>2, tc&3
	m.IPLen = 40 + plen
	m.TTL = b[off+7]
	m.Src = netip.AddrFrom16([16]byte(b[off+8 : off+24]))
	m.Dst = netip.AddrFrom16([16]byte(b[off+24 : off+40]))
	next, l4 := b[off+6], off+40
	// The extension headers (RFC 8200 §4 and IANA's list), as
	// layers.IPv6Ext walks them; device's tests run one table of frames
	// through both.
	for i := 0; i < 10; i++ {
		switch next {
		case 0, 43, 60, 135, 139, 140, 253, 254: // HBH, routing, dest opts, mobility, HIP, shim6, experimental
			if len(b) < l4+2 {
				return
			}
			next, l4 = b[l4], l4+(int(b[l4+1])+1)*8
			continue
		case 51: // AH: its length counts 4-octet units, less 2
			if len(b) < l4+2 {
				return
			}
			next, l4 = b[l4], l4+(int(b[l4+1])+2)*4
			continue
		case 50: // ESP: the rest is encrypted
			m.Proto = next
			return
		case 44:
			if len(b) < l4+8 {
				return
			}
			fo := binary.BigEndian.Uint16(b[l4+2:])
			if fo&0xfff9 != 0 { // offset or M: not an atomic fragment
				m.Fragment = true
			}
			if fo&0xfff8 != 0 {
				m.Proto = b[l4]
				return // not the first fragment
			}
			next, l4 = b[l4], l4+8
			continue
		}
		break
	}
	m.Proto = next
	if l4 <= len(b) {
		m.L4 = l4
	}
}

// IPPacket returns the IP packet inside frame as parsed into m, trimmed to
// the IP length when the frame carries Ethernet padding. It returns nil
// when the frame is not IP.
func (m *Meta) IPPacket(frame []byte) []byte {
	if !m.IP() || m.L3 >= len(frame) {
		return nil
	}
	end := m.L3 + m.IPLen
	if end > len(frame) || end < m.L4+8 {
		end = len(frame) // a length field that lies: take what was captured
	}
	return frame[m.L3:end]
}

// ipv6Length returns an IPv6 packet's length after its header by RFC
// 2675: payload length 0 only for a jumbogram, whose length is in the
// Jumbo Payload option (type 0xC2, 4 octets, over 65,535) of a first
// Hop-by-Hop header, and that option only with payload length 0. ok is
// false otherwise: the packet is malformed, as layers' IPv6 decoder (and
// gopacket's) has it. The two read the option the same way, on one table
// of frames (TestIPv6LengthBoth). p follows the IPv6 header; nh is its
// next header.
func ipv6Length(plen int, p []byte, nh uint8) (int, bool) {
	at := -1
	if nh == 0 && len(p) >= 2 {
		n := (int(p[1]) + 1) * 8
		for i := 2; n <= len(p) && i < n; {
			if p[i] == 0 { // Pad1
				i++
				continue
			}
			if i+2 > n || i+2+int(p[i+1]) > n {
				break // IPv6Ext's error in layers; here the packet is not a jumbogram
			}
			if p[i] == 0xC2 {
				at = i
				break
			}
			i += 2 + int(p[i+1])
		}
	}
	if plen != 0 {
		return plen, at < 0
	}
	if nh != 0 {
		switch nh {
		case 43, 44, 50, 51, 60, 135, 139, 140, 253, 254:
			return 0, false // an extension header in no payload: malformed, as layers has it
		}
		// No Hop-by-Hop header, so no jumbogram: an empty payload (No Next
		// Header, 59, is whole; a UDP header that should follow is missing),
		// as layers.IPv6 and Wireshark read it.
		return 0, true
	}
	if at < 0 || p[at+1] != 4 {
		return 0, false
	}
	v := binary.BigEndian.Uint32(p[at+2:])
	switch {
	case v <= 0xffff:
		return 0, false
	case uint64(v) > uint64(len(p)):
		return len(p) + 1, true // past the capture either way
	}
	return int(v), true
}
