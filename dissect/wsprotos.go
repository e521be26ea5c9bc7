// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	glayers "github.com/gopacket/gopacket/layers"

	"github.com/opensfc/sfc/layers"
)

// Protocols tshark names in filters that sfcdump does not decode but
// recognises, so that a tshark user's filter (tcp, !arp, stp || lldp)
// compiles and selects the frames tshark selects: each is a Wireshark
// protocol name (LookupProto, WiresharkNames) without fields, true when the
// frame carries the protocol.
//
//	tcp      IPv4 or IPv6 upper-layer protocol 6, behind any extension headers
//	icmp     IPv4 protocol 1
//	icmpv6   upper-layer protocol 58
//	arp      EtherType 0x0806
//	lldp     EtherType 0x88CC
//	llc      an 802.3 frame (a length, at most 1500, where the EtherType is), or EtherType 0x8870, with an LLC header
//	stp      LLC DSAP and SSAP 0x42
//
// After the VLAN tags, as tshark; a Linux cooked capture's protocol as its
// EtherType (0x0004: 802.2 LLC). An IP fragment other than a whole packet
// carries no upper layer, as tshark (which reassembles) shows a lone
// fragment.
var wsPresence = []struct {
	name    string
	present func(p *layers.Parser) bool
}{
	{"tcp", func(p *layers.Parser) bool { return upperProto(p) == 6 }},
	{"icmp", func(p *layers.Parser) bool { return p.Has(glayers.LayerTypeIPv4) && upperProto(p) == 1 }},
	{"icmpv6", func(p *layers.Parser) bool { return upperProto(p) == 58 }},
	{"arp", func(p *layers.Parser) bool { et, _, ok := l2Type(p); return ok && et == glayers.EthernetTypeARP }},
	{"lldp", func(p *layers.Parser) bool {
		et, _, ok := l2Type(p)
		return ok && et == glayers.EthernetTypeLinkLayerDiscovery
	}},
	{"llc", func(p *layers.Parser) bool { _, ok := llcHeader(p); return ok }},
	{"stp", func(p *layers.Parser) bool {
		h, ok := llcHeader(p)
		return ok && len(h) >= 2 && h[0] == 0x42 && h[1] == 0x42
	}},
}

// upperProto returns the upper-layer protocol of the frame's IP packet, or
// -1 when it has none whole: no IP layer, a header cut short, or a
// fragment (IPv4 More Fragments or an offset; an IPv6 Fragment header
// other than an atomic one).
func upperProto(p *layers.Parser) int {
	proto, ok := p.IPProtocol()
	if !ok {
		return -1
	}
	if p.Has(glayers.LayerTypeIPv4) && (p.IPv4.Partial || p.IPv4.FragOffset != 0 || p.IPv4.Flags&glayers.IPv4MoreFragments != 0) {
		return -1
	}
	if p.Has(glayers.LayerTypeIPv6) && p.IPv6.Partial {
		return -1
	}
	if p.Has(layers.LayerTypeIPv6Ext) {
		for i := range p.IPv6Ext.N {
			if h := &p.IPv6Ext.Headers[i]; h.Type == layers.IPv6Fragment && (h.FragOffset != 0 || h.MoreFrags) {
				return -1
			}
		}
	}
	return int(proto)
}

// l2Type returns the frame's EtherType after its VLAN tags (or a Linux
// cooked capture's protocol), what follows it, and whether it has one.
// An 802.3 frame's is glayers.EthernetTypeLLC (0), its payload cut to the
// length field.
func l2Type(p *layers.Parser) (glayers.EthernetType, []byte, bool) {
	switch {
	case p.Has(glayers.LayerTypeDot1Q):
		return p.Dot1Q.Type, p.Dot1Q.Payload, true
	case p.Has(glayers.LayerTypeEthernet):
		return p.Eth.EthernetType, p.Eth.Payload, true
	case p.Has(glayers.LayerTypeLinuxSLL):
		return p.SLL.EthernetType, p.SLL.Payload, true
	case p.Has(glayers.LayerTypeLinuxSLL2):
		return p.SLL2.ProtocolType, p.SLL2.Payload, true
	}
	return 0, nil, false
}

// llcHeader returns the octets from an LLC header on, when the frame has
// one: an 802.3 frame (not Novell's raw 802.3, whose payload starts
// 0xFFFF), or a Linux cooked capture of protocol 0x0004 (802.2).
func llcHeader(p *layers.Parser) ([]byte, bool) {
	et, b, ok := l2Type(p)
	if !ok || len(b) == 0 {
		return nil, false
	}
	// A type/length of at most 1500 is a length (802.3), as Wireshark
	// reads it (IEEE_802_3_MAX_LEN): 1501-1535 are neither to the standard,
	// and an unknown EtherType to Wireshark (gopacket takes them as
	// lengths). EtherType 0x8870 is LLC in jumbo frames.
	switch {
	case p.Has(glayers.LayerTypeDot1Q) && (et <= 1500 || et == 0x8870), // a length after the tag
		!p.Has(glayers.LayerTypeDot1Q) && p.Has(glayers.LayerTypeEthernet) &&
			(et == glayers.EthernetTypeLLC && p.Eth.Length > 0 && p.Eth.Length <= 1500 || et == 0x8870),
		(p.Has(glayers.LayerTypeLinuxSLL) || p.Has(glayers.LayerTypeLinuxSLL2)) && et == 0x0004:
		if len(b) >= 2 && b[0] == 0xff && b[1] == 0xff {
			return nil, false // Novell raw 802.3: IPX, no LLC
		}
		return b, true
	}
	return nil, false
}

// initWiresharkProtos registers Wireshark's protocols of wsPresence;
// called by initWireshark.
func initWiresharkProtos() {
	for _, w := range wsPresence {
		present := w.present
		pr := &Proto{Name: w.name, present: func(f *Frame) bool { return present(f.P) }}
		wsByProto[w.name] = pr
		wsNames = append(wsNames, WiresharkName{Name: w.name})
	}
}
