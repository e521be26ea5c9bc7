// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"encoding/binary"
	"fmt"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// UDP is gopacket's UDP layer with a faster choice of the next layer: the
// ports registered with this package's RegisterUDPPort (RoCEv2, BTS,
// postcard, CIM, and any moved at run time) are looked up in a flat table
// instead of gopacket's map, which costs about 16 ns a frame. Other ports
// go to gopacket's own lookup, in the same order (destination port, then
// source port). Use it in a DecodingLayerParser in place of layers.UDP;
// Parser does. Every field and method of layers.UDP is promoted.
type UDP struct {
	layers.UDP
	// Partial says the last decode found the header cut short: the fields
	// it holds whole are set, the others zero (partialEnd says where
	// each ends), and the decode returned ErrTruncated.
	Partial bool
}

// partial decodes a header cut short (1 to 7 octets), which gopacket's
// decoder refuses: the ports (and length) it holds whole, with Partial
// set, and an ErrTruncated naming the first field missing. Parser calls
// it after gopacket's decode failed, so that a whole header's decode
// takes no extra call.
func (u *UDP) partial(data []byte, df gopacket.DecodeFeedback) error {
	u.UDP, u.Partial = layers.UDP{}, true
	n := len(data)
	if n >= 2 {
		u.SrcPort = layers.UDPPort(binary.BigEndian.Uint16(data))
	}
	if n >= 4 {
		u.DstPort = layers.UDPPort(binary.BigEndian.Uint16(data[2:]))
	}
	if n >= 6 {
		u.Length = binary.BigEndian.Uint16(data[4:])
	}
	u.Contents, u.Payload = data, nil
	df.SetTruncated()
	return cutAt("udp", udpFieldEnds, n, 8)
}

// fieldEnd is where a fixed header's field ends, for naming the first
// one a cut leaves out.
type fieldEnd struct {
	name string
	end  int
}

var (
	udpFieldEnds  = []fieldEnd{{"srcport", 2}, {"dstport", 4}, {"length", 6}, {"checksum", 8}}
	ipv4FieldEnds = []fieldEnd{{"version", 1}, {"dsfield", 2}, {"len", 4}, {"id", 6}, {"flags", 8}, {"ttl", 9}, {"proto", 10},
		{"checksum", 12}, {"src", 16}, {"dst", 20}, {"options", 1 << 30}}
	ipv6FieldEnds = []fieldEnd{{"version", 1}, {"tclass", 2}, {"flow", 4}, {"plen", 6}, {"nxt", 7}, {"hlim", 8},
		{"src", 24}, {"dst", 40}}
)

// firstMissing names the first field of ends that n octets do not hold,
// and the offset where it starts.
func firstMissing(n int, ends []fieldEnd) (string, int) {
	off := 0
	for _, f := range ends {
		if f.end > n {
			return f.name, off
		}
		off = f.end
	}
	return "header", off
}

// cutAt is truncated for a fixed header of need octets cut at n, naming
// the first field it lacks.
func cutAt(layer string, ends []fieldEnd, n, need int) error {
	name, off := firstMissing(n, ends)
	return truncated(layer, name, off, need, n)
}

// NextLayerType returns the layer type of the destination port, else of
// the source port, as gopacket's UDP does.
func (u *UDP) NextLayerType() gopacket.LayerType {
	if t := udpTable[u.DstPort]; t != 0 {
		return udpTypes[t]
	}
	if t := udpTable[u.SrcPort]; t != 0 && u.DstPort.LayerType() == gopacket.LayerTypePayload {
		return udpTypes[t]
	}
	return u.UDP.NextLayerType()
}

// udpTable maps a port to an index into udpTypes; 0 is "not ours".
var (
	udpTable [65536]uint8
	udpTypes = []gopacket.LayerType{gopacket.LayerTypePayload}
)

// isBTHPort reports whether UDP port p is registered for the BTH (4791
// unless RegisterUDPPort moved it): a quote whose UDP destination port it
// is holds a BTH, and names its DestQP.
func isBTHPort(p uint16) bool { return udpTable[p] == bthIndex }

// bthIndex is the BTH's index in udpTypes, which init gives it first and
// which stays the same whatever ports come and go.
var bthIndex uint8

// setUDPPort records port → lt in gopacket's registry and in udpTable
// (lt == LayerTypePayload clears it). Callers hold portMu.
func setUDPPort(port uint16, lt gopacket.LayerType) {
	layers.RegisterUDPPortLayerType(layers.UDPPort(port), lt)
	if lt == gopacket.LayerTypePayload {
		udpTable[port] = 0
		return
	}
	for i, t := range udpTypes {
		if t == lt {
			udpTable[port] = uint8(i)
			return
		}
	}
	udpTypes = append(udpTypes, lt)
	udpTable[port] = uint8(len(udpTypes) - 1)
}

// IPv4 is gopacket's IPv4 layer that also checks the version nibble:
// gopacket decodes any version behind EtherType 0x0800, so a frame with
// version 5 would decode as IPv4 where Wireshark and the reference models
// call it malformed. Parser uses it; every field of layers.IPv4 is
// promoted.
type IPv4 struct {
	layers.IPv4
	// Partial says the last decode found the header cut short: the fields
	// it holds whole are set, the others zero, and the decode returned
	// ErrTruncated naming the first field missing.
	Partial bool
	// Warnings: WarnOption when an option is malformed (Option says which
	// and where); the header, whose IHL is valid, decoded, and its
	// payload decodes on.
	Warnings Warnings
	// Option is the malformed option; valid when Warnings has WarnOption.
	Option OptionFault
}

// NextLayerType returns what gopacket's IPv4.NextLayerType returns: a
// fragment for a packet with more fragments or an offset, else the layer
// type IPProtocolMetadata gives the protocol (LayerTypeZero for an IPv6
// extension header or a protocol without a decoder; an AH or ESP is
// IPSecAH's or IPSecESP's, which Parser decodes). It reads the metadata
// entry in place: gopacket's IPProtocol.LayerType copies the whole entry
// (3% of sfcdump read).
func (ip *IPv4) NextLayerType() gopacket.LayerType {
	if ip.Flags&layers.IPv4MoreFragments != 0 || ip.FragOffset != 0 {
		return gopacket.LayerTypeFragment
	}
	return ipProtocolNext(ip.Protocol)
}

// DecodeFromBytes rejects a version other than 4 (ErrVersion), then
// decodes as gopacket does. A malformed option (a length under 2 or past
// the header, which gopacket refuses) is a warning (WarnOption), not an
// error: the IHL gives the header's extent, and the payload decodes, as
// Wireshark has it.
func (ip *IPv4) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	ip.Warnings = 0
	if len(data) > 0 && data[0]>>4 != 4 {
		ip.IPv4, ip.Partial = layers.IPv4{}, false
		return errAt("ipv4", "version", 0, ErrVersion, "version nibble is not 4")
	}
	n := len(data)
	if n > 0 && data[0]&0x0f < 5 {
		// A header length under the 20 octets of the fixed header: the
		// version and the length are all that can be believed, as
		// Wireshark shows them ("Bogus IP header length"); the frame is
		// whole, so Contents is the one octet that holds them and the
		// error is ErrBadValue, not a truncation.
		l := &ip.IPv4
		*l, ip.Partial = layers.IPv4{}, true
		l.Version, l.IHL = 4, data[0]&0x0f
		l.Contents, l.Payload = data[:1:1], nil
		return errAt("ipv4", "ihl", 0, ErrBadValue, fmt.Sprintf("bogus header length %d octets (IHL %d), at least 20", int(l.IHL)*4, l.IHL))
	}
	if n == 0 || n >= 20 && n >= int(data[0]&0x0f)*4 {
		ip.Partial = false
		if n > 20 && data[0]&0x0f > 5 {
			return ip.decodeOptions(data, df) // gopacket's, unless an option is malformed
		}
		return ip.IPv4.DecodeFromBytes(data, df)
	}
	// A header cut short (by the capture, or by an IHL past the data):
	// the fields it holds whole, as Wireshark shows them.
	l := &ip.IPv4
	*l, ip.Partial = layers.IPv4{}, true
	if n >= 1 {
		l.Version, l.IHL = 4, data[0]&0x0f
	}
	if n >= 2 {
		l.TOS = data[1]
	}
	if n >= 4 {
		l.Length = binary.BigEndian.Uint16(data[2:])
	}
	if n >= 6 {
		l.Id = binary.BigEndian.Uint16(data[4:])
	}
	if n >= 8 {
		ff := binary.BigEndian.Uint16(data[6:])
		l.Flags, l.FragOffset = layers.IPv4Flag(ff>>13), ff&0x1fff
	}
	if n >= 9 {
		l.TTL = data[8]
	}
	if n >= 10 {
		l.Protocol = layers.IPProtocol(data[9])
	}
	if n >= 12 {
		l.Checksum = binary.BigEndian.Uint16(data[10:])
	}
	if n >= 16 {
		l.SrcIP = data[12:16:16]
	}
	if n >= 20 {
		l.DstIP = data[16:20:20]
	}
	l.Contents, l.Payload = data, nil
	df.SetTruncated()
	return cutAt("ipv4", ipv4FieldEnds, n, max(20, int(l.IHL)*4))
}

// IPv6 is gopacket's IPv6 layer that also checks the version nibble, as
// IPv4 does, and hands the extension headers to IPv6Ext: when Ext is set
// (Parser sets it) and the Next Header is an extension header, the next
// layer is LayerTypeIPv6Ext, whatever the chain (gopacket's IPv6 decodes a
// Hop-by-Hop header itself, allocating its options, and its
// DecodingLayer path stops at any other extension header). Parser uses
// it; every field of layers.IPv6 is promoted.
type IPv6 struct {
	layers.IPv6
	// Ext is the layer the extension headers decode into; nil leaves them
	// to gopacket, as layers.IPv6 does.
	Ext *IPv6Ext
	// ext says the last decode left an extension header chain to Ext.
	ext bool
	// Partial says the last decode found the fixed header cut short, as
	// IPv4.Partial.
	Partial bool
}

// ipv6Fixed sets the fields of IPv6's fixed header that data holds whole
// (all of them from 40 octets on).
func ipv6Fixed(l *layers.IPv6, data []byte) {
	n := len(data)
	if n >= 1 {
		l.Version = 6
	}
	if n >= 2 {
		l.TrafficClass = uint8(binary.BigEndian.Uint16(data[0:2]) >> 4)
	}
	if n >= 4 {
		l.FlowLabel = binary.BigEndian.Uint32(data[0:4]) & 0x000FFFFF
	}
	if n >= 6 {
		l.Length = binary.BigEndian.Uint16(data[4:6])
	}
	if n >= 7 {
		l.NextHeader = layers.IPProtocol(data[6])
	}
	if n >= 8 {
		l.HopLimit = data[7]
	}
	if n >= 24 {
		l.SrcIP = data[8:24:24]
	}
	if n >= 40 {
		l.DstIP = data[24:40:40]
	}
}

// DecodeFromBytes rejects a version other than 6 (ErrVersion), then
// decodes the fixed header as gopacket does. With Ext set it leaves a
// Hop-by-Hop header to Ext (HopByHop stays nil).
func (ip *IPv6) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) > 0 && data[0]>>4 != 6 {
		ip.IPv6, ip.ext, ip.Partial = layers.IPv6{}, false, false
		return errAt("ipv6", "version", 0, ErrVersion, "version nibble is not 6")
	}
	ip.Partial = false
	if n := len(data); n > 0 && n < 40 {
		// The fixed header cut short: the fields it holds whole.
		ip.IPv6, ip.ext, ip.Partial = layers.IPv6{}, false, true
		ipv6Fixed(&ip.IPv6, data)
		ip.Contents, ip.Payload = data, nil
		df.SetTruncated()
		return cutAt("ipv6", ipv6FieldEnds, n, 40)
	}
	if len(data) >= 40 && data[4] == 0 && data[5] == 0 && !IsIPv6Ext(data[6]) {
		// Payload length 0 with no extension header is no jumbogram
		// (gopacket calls it one, and fails): an empty payload, as
		// Wireshark reads it (device.ipv6Length too). With No Next Header (59) the packet is
		// whole; with a header that should follow, the Parser finds it
		// missing. What the frame holds past the header is a trailer.
		ip.ext = false
		l := &ip.IPv6
		*l = layers.IPv6{}
		ipv6Fixed(l, data)
		l.Contents, l.Payload = data[:40], data[40:40]
		return nil
	}
	if ip.Ext == nil || len(data) < 40 || !IsIPv6Ext(data[6]) {
		ip.ext = false
		return ip.IPv6.DecodeFromBytes(data, df)
	}
	ip.ext = true
	l := &ip.IPv6
	ipv6Fixed(l, data)
	l.HopByHop = nil
	l.Contents, l.Payload = data[:40], data[40:]
	// The payload length covers the extension headers (RFC 8200 §3); 0
	// is a jumbogram, whose length is in a Hop-by-Hop option (RFC 2675),
	// and an error without one, as gopacket's decoder has it (ipv6Length).
	end, err := ipv6Length(l.Length, l.Payload, data[6])
	if err != nil {
		return err
	}
	if end > len(l.Payload) {
		df.SetTruncated()
		end = len(l.Payload)
	}
	l.Payload = l.Payload[:end]
	ip.Ext.Proto = data[6]
	return nil
}

// NextLayerType returns LayerTypeIPv6Ext for an extension header when Ext
// is set, else what layers.IPv6 returns.
func (ip *IPv6) NextLayerType() gopacket.LayerType {
	if ip.ext {
		return LayerTypeIPv6Ext
	}
	return ip.IPv6.NextLayerType()
}
