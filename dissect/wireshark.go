// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"math/bits"
	"sort"
	"sync"
	"time"

	glayers "github.com/gopacket/gopacket/layers"

	"github.com/opensfc/sfc/layers"
)

// Wireshark's names. A tshark user's filters and -e fields name the
// fields both tools decode by Wireshark 4.0's names (`tshark -G fields`):
// LookupField and LookupProto accept them besides ours. Most are aliases:
// the name resolves to our field (infiniband.bth.destqp is bth.destqp). The
// others are fields of their own, where Wireshark's field has no exact
// counterpart among ours: IPv4-only twins of our family-blind ip.* fields
// (ip.src: Wireshark's, which filters and -e use) and IPv6-only ones
// (ipv6.src), unions of two of ours (eth.addr, udp.port, macc.opcode), and
// header fields sfcdump decodes but did not name (ip.id, udp.length,
// eth.dst.ig, vlan.dei, the IPv6 extension headers' ipv6.fraghdr.* and
// the like, whose protocols are Wireshark's: ipv6.fraghdr).
// None of them is in FieldNames, JSON or the verbose tree;
// WiresharkNames lists them.

// WiresharkName is one Wireshark field or protocol name that sfcdump knows.
type WiresharkName struct {
	Name string
	// Ours is the field or protocol the name stands for, when it is an
	// alias of one of ours; "" for a field of its own.
	Ours string
	// Field is the field the name resolves to (nil for a protocol).
	Field *Field
}

var (
	wsNames   []WiresharkName
	wsByField = map[string]*Field{}
	wsByProto = map[string]*Proto{}
	// wsIP is Wireshark's ip, IPv4's alone, and wsIPFields its twins of
	// our ip.* fields (ip.src, ip.ttl, ...), which LookupField gives
	// rather than ours.
	wsIP       *Proto
	wsIPFields = map[string]*Field{}
	// wsFirstFields and wsFirstProtos are Wireshark's fields and
	// protocols whose names are ours too, and which LookupField and
	// LookupProto give rather than ours, in Wireshark's meaning
	// (IsWiresharkName), as wsIP: vlan, vlan.dei and vlan.etype. Our vlan
	// (JSON, the verbose tree) is every VLAN tag; Wireshark's, which
	// filters and -e take, the 802.1Q and 0x9100 tags alone.
	wsFirstFields = map[string]*Field{}
	wsFirstProtos = map[string]*Proto{}
)

// IsWiresharkName reports whether name is one of Wireshark's names that is
// not also one of ours (ip.src is both). A filter gives such names
// Wireshark's meaning where ours differs: a bare boolean field tests that
// the field is present, not that it is true.
func IsWiresharkName(name string) bool {
	wsReady()
	if _, ok := wsFirstFields[name]; ok {
		return true
	}
	if _, ok := wsFirstProtos[name]; ok {
		return true
	}
	if _, ours := byName[name]; ours {
		return false
	}
	if _, ok := wsByField[name]; ok {
		return true
	}
	_, ok := wsByProto[name]
	return ok
}

// WiresharkNames returns the Wireshark names LookupField and LookupProto
// accept besides ours, sorted.
func WiresharkNames() []WiresharkName {
	wsReady()
	return append([]WiresharkName(nil), wsNames...)
}

// frameBytes returns the frame's octets: the first layer's header and its
// payload, which are one slice of the frame as decoded.
func frameBytes(f *Frame) []byte {
	var c, rest []byte
	switch p := f.P; {
	case p.Has(glayers.LayerTypeEthernet):
		c, rest = p.Eth.Contents, p.Eth.Payload
	case p.Has(glayers.LayerTypeLinuxSLL):
		c, rest = p.SLL.Contents, p.SLL.Payload
	case p.Has(glayers.LayerTypeLinuxSLL2):
		c, rest = p.SLL2.Contents, p.SLL2.Payload
	default:
		return nil
	}
	return joined(c, rest)
}

// joined returns a header c and its payload rest as one slice, when rest
// follows c in the frame as decoded (nil otherwise).
func joined(c, rest []byte) []byte {
	n := len(c) + len(rest)
	if cap(c) < n || len(rest) > 0 && &c[:n][len(c)] != &rest[0] {
		return nil
	}
	return c[:n]
}

func isIPv6(p *layers.Parser) bool { return p.Has(glayers.LayerTypeIPv6) }

// union is a field with the values of several of ours, in order (eth.addr:
// eth.src then eth.dst), each as present and cut as its own.
func union(short string, k Kind, of ...string) *Field {
	var fs []*Field
	for _, name := range of {
		fs = append(fs, byName[name])
	}
	return &Field{Short: short, Kind: k, get: func(f *Frame, dst []Value) []Value {
		for _, fd := range fs {
			dst = fd.Values(f, dst)
		}
		return dst
	}}
}

// addrs gives Wireshark's ip.addr and ipv6.addr: the source and destination
// addresses of a packet of the family ok tests.
func addrs(ok func(p *layers.Parser) bool, get func(p *layers.Parser) (src, dst []byte)) func(f *Frame, dst []Value) []Value {
	return func(f *Frame, dst []Value) []Value {
		if !ok(f.P) {
			return dst
		}
		s, d := get(f.P)
		return append(dst, ip(addrOf(s)), ip(addrOf(d)))
	}
}

func ipv6Fields() []*Field {
	v6 := func(get func(p *layers.Parser) Value) func(f *Frame, dst []Value) []Value {
		return when(isIPv6, get)
	}
	return []*Field{
		{Short: "version", get: v6(func(p *layers.Parser) Value { return u(uint64(p.IPv6.Version)) })},
		{Short: "src", Kind: KindIP, get: v6(func(p *layers.Parser) Value { return ip(addrOf(p.IPv6.SrcIP)) })},
		{Short: "dst", Kind: KindIP, get: v6(func(p *layers.Parser) Value { return ip(addrOf(p.IPv6.DstIP)) })},
		{Short: "addr", Kind: KindIP, get: addrs(isIPv6, func(p *layers.Parser) ([]byte, []byte) { return p.IPv6.SrcIP, p.IPv6.DstIP })},
		{Short: "tclass", Hex: true, get: v6(func(p *layers.Parser) Value { return u(uint64(p.IPv6.TrafficClass)) })},
		{Short: "tclass.dscp", get: v6(func(p *layers.Parser) Value { return u(uint64(p.IPv6.TrafficClass >> 2)) })},
		{Short: "tclass.ecn", get: v6(func(p *layers.Parser) Value { return u(uint64(p.IPv6.TrafficClass & 3)) })},
		{Short: "flow", Hex: true, get: v6(func(p *layers.Parser) Value { return u(uint64(p.IPv6.FlowLabel)) })},
		{Short: "plen", get: v6(func(p *layers.Parser) Value { return u(uint64(p.IPv6.Length)) })},
		// The upper-layer protocol, as ip.proto (docs/decisions.md): equal
		// to Wireshark's ipv6.nxt when there is no extension header.
		{Short: "nxt", upper: true, get: func(f *Frame, dst []Value) []Value {
			if !isIPv6(f.P) {
				return dst
			}
			return upperProtoField(f, dst)
		}},
		{Short: "hlim", get: v6(func(p *layers.Parser) Value { return u(uint64(p.IPv6.HopLimit)) })},
	}
}

// ipv6ExtProtos are Wireshark's protocols of the IPv6 extension headers
// that ours, ipv6ext.*, decode: ipv6.hopopts, ipv6.routing, ipv6.fraghdr
// and ipv6.dstopts, each present when the chain holds such a header whole
// (ipv6ExtChain), with a value of each field per header of the kind, in
// wire order, as tshark gives them (RFC 8200's order has two Destination
// Options headers: ipv6.dstopts.nxt is both Next Header fields). Where
// ours differ, the fields are Wireshark's: ipv6.fraghdr.offset counts
// 8-octet units (ipv6ext.frag_offset octets), and every header of the
// kind has a value (as ipv6ext.segleft, frag_id, ... have).
func ipv6ExtProtos() []*Proto {
	each := func(typ uint8, get func(h *layers.IPv6ExtHeader) Value) func(f *Frame, dst []Value) []Value {
		return func(f *Frame, dst []Value) []Value {
			for i, hs := 0, ipv6ExtChain(f.P); i < len(hs); i++ {
				if hs[i].Type == typ {
					dst = append(dst, get(&hs[i]))
				}
			}
			return dst
		}
	}
	proto := func(name string, typ uint8, fs ...*Field) *Proto {
		return &Proto{Name: name, Fields: fs, present: func(f *Frame) bool { return ipv6ExtHeader(f.P, typ) != nil }}
	}
	nxt := func(typ uint8) *Field {
		return &Field{Short: "nxt", get: each(typ, func(h *layers.IPv6ExtHeader) Value { return u(uint64(h.NextHeader)) })}
	}
	return []*Proto{
		proto("ipv6.hopopts", layers.IPv6HopByHop, nxt(layers.IPv6HopByHop)),
		proto("ipv6.routing", layers.IPv6Routing, nxt(layers.IPv6Routing),
			&Field{Short: "type", get: each(layers.IPv6Routing, func(h *layers.IPv6ExtHeader) Value { return u(uint64(h.RoutingType)) })},
			&Field{Short: "segleft", get: each(layers.IPv6Routing, func(h *layers.IPv6ExtHeader) Value { return u(uint64(h.SegmentsLeft)) })}),
		proto("ipv6.fraghdr", layers.IPv6Fragment, nxt(layers.IPv6Fragment),
			// In 8-octet units, the header's 13 bits, as tshark's -T
			// fields and filters give it.
			&Field{Short: "offset", get: each(layers.IPv6Fragment, func(h *layers.IPv6ExtHeader) Value { return u(uint64(h.FragOffset)) })},
			&Field{Short: "more", Kind: KindBool, get: each(layers.IPv6Fragment, func(h *layers.IPv6ExtHeader) Value { return b(h.MoreFrags) })},
			&Field{Short: "ident", Hex: true, get: each(layers.IPv6Fragment, func(h *layers.IPv6ExtHeader) Value { return u(uint64(h.FragID)) })}),
		proto("ipv6.dstopts", layers.IPv6DestOpts, nxt(layers.IPv6DestOpts)),
	}
}

// ethBit is Wireshark's eth.dst.ig, eth.src.lg, ...: bit mask of the first
// octet of each address of (the destination, the source, or both: eth.ig
// and eth.lg, destination first as tshark gives them), as a boolean. The
// I/G bit (0x01) is set in a group (multicast, broadcast) address, the
// U/L bit (0x02) in a locally administered one.
func ethBit(short string, mask byte, dst, src bool) *Field {
	return &Field{Short: short, Kind: KindBool, get: func(f *Frame, vs []Value) []Value {
		e := &f.P.Eth
		if dst && len(e.DstMAC) > 0 {
			vs = append(vs, b(e.DstMAC[0]&mask != 0))
		}
		if src && len(e.SrcMAC) > 0 {
			vs = append(vs, b(e.SrcMAC[0]&mask != 0))
		}
		return vs
	}}
}

// sllWiresharkFields are Wireshark's Linux cooked capture fields (SLL and
// SLL2 alike) that ours do not name: the address length, the address by
// its length as tshark 4.0 types it (6 octets sll.src.eth, 4 octets
// sll.src.ipv4, any other non-zero length sll.src.other, of at most the
// field's 8 octets; ours, sll.src, is the octets whatever their length),
// the unused octets of the 8-octet
// address field, and the Linux protocol type (sll.ltype) of a protocol
// of 1536 or less, which is not an EtherType.
func sllWiresharkFields() []*Field {
	// addr returns the header's address length, and its 8-octet address
	// field (nil when the header is not whole).
	addr := func(p *layers.Parser) (int, []byte) {
		if p.Has(glayers.LayerTypeLinuxSLL2) {
			if c := p.SLL2.Contents; len(c) >= 20 {
				return int(p.SLL2.AddrLength), c[12:20:20]
			}
			return int(p.SLL2.AddrLength), nil
		}
		if c := p.SLL.Contents; len(c) >= 16 {
			return int(p.SLL.AddrLen), c[6:14:14]
		}
		return int(p.SLL.AddrLen), nil
	}
	src := func(ok func(n int) bool, v func(a []byte) Value) func(f *Frame, dst []Value) []Value {
		return func(f *Frame, dst []Value) []Value {
			n, a := addr(f.P)
			if a == nil || !ok(n) {
				return dst
			}
			// A longer address (IPoIB's 20 octets) is cut to the field's
			// 8, which tshark shows as sll.src.other.
			n = min(n, len(a))
			return append(dst, v(a[:n:n]))
		}
	}
	return []*Field{
		{Short: "halen", get: func(f *Frame, dst []Value) []Value { n, _ := addr(f.P); return append(dst, u(uint64(n))) }},
		{Short: "src.eth", Kind: KindMAC, get: src(func(n int) bool { return n == 6 }, func(a []byte) Value { return mac(a) })},
		{Short: "src.ipv4", Kind: KindIP, get: src(func(n int) bool { return n == 4 }, func(a []byte) Value { return ip(addrOf(a)) })},
		{Short: "src.other", Kind: KindBytes, get: src(func(n int) bool { return n != 0 && n != 4 && n != 6 }, bytesV)},
		{Short: "unused", Kind: KindBytes, get: func(f *Frame, dst []Value) []Value {
			if n, a := addr(f.P); a != nil && n < len(a) {
				dst = append(dst, bytesV(a[n:]))
			}
			return dst
		}},
		{Short: "ltype", Hex: true, get: func(f *Frame, dst []Value) []Value {
			if pt := sllProtocol(f.P); pt <= 1536 {
				dst = append(dst, u(uint64(pt)))
			}
			return dst
		}},
	}
}

// sllProtocol is the protocol field of the frame's SLL or SLL2 header.
func sllProtocol(p *layers.Parser) glayers.EthernetType {
	if p.Has(glayers.LayerTypeLinuxSLL2) {
		return p.SLL2.ProtocolType
	}
	return p.SLL.EthernetType
}

// ipv4Fields are Wireshark's IPv4 header fields that our family-blind ip.*
// does not name: absent from an IPv6 packet, as in Wireshark (their
// protocol, wsIP, is).
func ipv4Fields() []*Field {
	v4 := func(get func(p *layers.Parser) Value) func(f *Frame, dst []Value) []Value {
		return when(isIPv4, get)
	}
	return []*Field{
		{Short: "hdr_len", get: v4(func(p *layers.Parser) Value { return u(uint64(p.IPv4.IHL) * 4) })},
		{Short: "addr", Kind: KindIP, get: addrs(isIPv4, func(p *layers.Parser) ([]byte, []byte) { return p.IPv4.SrcIP, p.IPv4.DstIP })},
		{Short: "dsfield", Hex: true, get: v4(func(p *layers.Parser) Value { return u(uint64(p.IPv4.TOS)) })},
		{Short: "dsfield.dscp", get: v4(func(p *layers.Parser) Value { return u(uint64(p.IPv4.TOS >> 2)) })},
		{Short: "dsfield.ecn", get: v4(func(p *layers.Parser) Value { return u(uint64(p.IPv4.TOS & 3)) })},
		{Short: "len", get: v4(func(p *layers.Parser) Value { return u(uint64(p.IPv4.Length)) })},
		{Short: "id", Hex: true, get: v4(func(p *layers.Parser) Value { return u(uint64(p.IPv4.Id)) })},
		{Short: "flags", Hex: true, get: v4(func(p *layers.Parser) Value { return u(uint64(p.IPv4.Flags)) })},
		{Short: "flags.rb", Kind: KindBool, get: v4(func(p *layers.Parser) Value { return b(p.IPv4.Flags&glayers.IPv4EvilBit != 0) })},
		{Short: "flags.df", Kind: KindBool, get: v4(func(p *layers.Parser) Value { return b(p.IPv4.Flags&glayers.IPv4DontFragment != 0) })},
		{Short: "flags.mf", Kind: KindBool, get: v4(func(p *layers.Parser) Value { return b(p.IPv4.Flags&glayers.IPv4MoreFragments != 0) })},
		// In 8-octet units, the header's 13 bits, as tshark's -T fields
		// and filters give it (its verbose tree shows octets).
		{Short: "frag_offset", get: v4(func(p *layers.Parser) Value { return u(uint64(p.IPv4.FragOffset)) })},
		{Short: "checksum", Hex: true, get: v4(func(p *layers.Parser) Value { return u(uint64(p.IPv4.Checksum)) })},
	}
}

// wsOnce makes Wireshark's names (initWireshark) on first use: the
// filters, -e and the field list need them, a plain read does not, and
// making them (some 300 fields, their maps and aliases) took about a third
// of this package's initialisation, which every sfcdump command paid at
// start-up. Every reader of wsByField, wsByProto, wsNames, wsIP and
// wsIPFields calls wsReady first.
var wsOnce sync.Once

// wsReady makes Wireshark's names if they are not made yet.
func wsReady() { wsOnce.Do(initWireshark) }

// initWireshark registers Wireshark's names: aliases of ours and fields
// and protocols of their own. It changes none of our fields and protocols
// (they are read by other goroutines meanwhile); what it sets up of ours
// is done at package initialisation (initOurSlices, and the ours-only
// passes of setIPEnds and fieldBits).
func initWireshark() {
	alias := func(ws, ours string) {
		fd, ok := byName[ours]
		if !ok {
			panic("dissect: Wireshark alias " + ws + " of unknown field " + ours)
		}
		wsByField[ws] = fd
		wsNames = append(wsNames, WiresharkName{Name: ws, Ours: ours, Field: fd})
	}
	own := func(p *Proto, fs ...*Field) {
		for _, fd := range fs {
			fd.Name = p.Name + "." + fd.Short
			fd.proto = p
			wsByField[fd.Name] = fd
			wsNames = append(wsNames, WiresharkName{Name: fd.Name, Field: fd})
		}
	}
	protoAlias := func(ws, ours string) {
		wsByProto[ws] = byProto[ours]
		wsNames = append(wsNames, WiresharkName{Name: ws, Ours: ours})
	}

	// Ethernet and 802.1Q.
	own(byProto["eth"], union("addr", KindMAC, "eth.dst", "eth.src"), // header order, as tshark prints them
		ethBit("dst.ig", 0x01, true, false), ethBit("dst.lg", 0x02, true, false),
		ethBit("src.ig", 0x01, false, true), ethBit("src.lg", 0x02, false, true),
		ethBit("ig", 0x01, true, true), ethBit("lg", 0x02, true, true))
	// vlan.* are the tags Wireshark decodes as 802.1Q (wsVLAN: TPID 0x8100
	// or 0x9100), outer first: a QinQ frame of two has two values, as
	// tshark gives them.
	vlan := &Proto{Name: "vlan", present: func(f *Frame) bool {
		p := f.P
		for i := range min(p.Dot1Q.NTags, len(p.Dot1Q.Tags)) {
			if p.Has(glayers.LayerTypeDot1Q) && wsVLAN(p.Dot1Q.Tags[i].TPID) {
				return true
			}
		}
		return false
	}}
	wsByProto["vlan"] = vlan
	wsNames = append(wsNames, WiresharkName{Name: "vlan"})
	own(vlan, &Field{Short: "id", get: vlanTags(true, func(t *layers.VLANTag) Value { return u(uint64(t.ID)) })},
		&Field{Short: "priority", get: vlanTags(true, func(t *layers.VLANTag) Value { return u(uint64(t.Priority)) })},
		&Field{Short: "dei", Kind: KindBool, get: vlanTags(true, func(t *layers.VLANTag) Value { return b(t.DEI) })},
		// The same bit by 802.1Q-1998's name, Canonical Format
		// Indicator: Wireshark 4.0 registers vlan.cfi but gives the bit
		// that name only when its "802.1Q tag format" preference says
		// 1998; by default (2011) the bit is vlan.dei, and vlan.cfi is in
		// no frame. So here: a filter on it compiles, as in tshark, and
		// selects what tshark selects.
		&Field{Short: "cfi", Kind: KindBool, get: func(_ *Frame, dst []Value) []Value { return dst }},
		// The EtherType after each tag, as tshark's vlan.etype: absent for
		// a tag followed by an 802.3 length (1500 or less: its vlan.len).
		&Field{Short: "etype", Hex: true, get: vlanEtype})
	vlan.Fields = []*Field{wsByField["vlan.id"], wsByField["vlan.priority"], wsByField["vlan.dei"], wsByField["vlan.etype"]}
	// Ours (Protos' vlan: every tag, in JSON and the tree) has a vlan.dei
	// and a vlan.etype too: filters and -e take Wireshark's.
	wsFirstProtos["vlan"] = vlan
	for _, fd := range vlan.Fields {
		if _, ours := byName[fd.Name]; ours {
			wsFirstFields[fd.Name] = fd
		}
	}

	// Linux cooked capture: Wireshark names the fields of SLL2 sll.* as
	// well.
	own(byProto["sll"], sllWiresharkFields()...)

	// IPv4. Wireshark's ip is IPv4 alone; ours (Protos' ip: JSON, the
	// verbose tree, stats) is either family's. Filters and -e take ip
	// and every ip.* name in Wireshark's meaning (LookupField,
	// LookupProto): wsIP, with twins of our ip.* fields, absent from an
	// IPv6 packet, whose names are ipv6.*. Wireshark's other IPv4 fields
	// are IPv4's own.
	wsIP = &Proto{Name: "ip", present: has(glayers.LayerTypeIPv4)}
	for _, fd := range byProto["ip"].Fields {
		if fd.Short == "version" {
			// Wireshark's IPv6 header has an ip.version too: ours.
			wsIP.Fields = append(wsIP.Fields, fd)
			continue
		}
		tw := *fd
		tw.proto = wsIP
		wsIP.Fields = append(wsIP.Fields, &tw)
		wsIPFields[tw.Name] = &tw
	}
	own(wsIP, ipv4Fields()...)

	// IPv6.
	v6 := &Proto{Name: "ipv6", present: has(glayers.LayerTypeIPv6)}
	v6.Fields = ipv6Fields()
	wsByProto["ipv6"] = v6
	wsNames = append(wsNames, WiresharkName{Name: "ipv6"})
	own(v6, v6.Fields...)
	for _, p := range ipv6ExtProtos() {
		wsByProto[p.Name] = p
		wsNames = append(wsNames, WiresharkName{Name: p.Name})
		own(p, p.Fields...)
	}

	// UDP.
	alias("udp.srcport", "udp.sport")
	alias("udp.dstport", "udp.dport")
	own(byProto["udp"], union("port", KindUint, "udp.sport", "udp.dport"),
		&Field{Short: "length", get: one(func(p *layers.Parser) Value { return u(uint64(p.UDP.Length)) })},
		&Field{Short: "checksum", Hex: true, get: one(func(p *layers.Parser) Value { return u(uint64(p.UDP.Checksum)) })})

	// PAUSE and PFC: Wireshark 4.0 decodes both as MAC Control (macc).
	// A PAUSE or PFC frame cut short is MAC Control still: macc.opcode,
	// decoded before the cut, is present, as pfc.opcode is (has: the
	// layer decoded, or the one that failed).
	hasPause, hasPFC := has(layers.LayerTypePause), has(layers.LayerTypePFC)
	macc := &Proto{Name: "macc", present: func(f *Frame) bool {
		return hasPause(f) || hasPFC(f) || f.P.Has(layers.LayerTypeMACControl)
	}}
	wsByProto["macc"] = macc
	wsNames = append(wsNames, WiresharkName{Name: "macc"})
	// macc.opcode: PAUSE's or PFC's, or the opcode of a MAC Control frame
	// of another kind (Gate, Report, ...: the layer decoded, no PAUSE or
	// PFC after it), as tshark gives it for every MAC Control frame.
	maccOp := union("opcode", KindUint, "pause.opcode", "pfc.opcode")
	pausePFC := maccOp.get
	maccOp.get = func(f *Frame, dst []Value) []Value {
		n := len(dst)
		if dst = pausePFC(f, dst); len(dst) == n && f.P.Has(layers.LayerTypeMACControl) {
			dst = append(dst, u(uint64(f.P.MACControl.Opcode)))
		}
		return dst
	}
	own(macc, maccOp)
	wsByField["macc.opcode"].Hex = true
	macc.Fields = []*Field{wsByField["macc.opcode"]}
	alias("macc.pause_time", "pause.quanta")
	alias("macc.cbfc.enbv", "pfc.enable_vector")
	for i := 0; i < 8; i++ {
		c := string(rune('0' + i))
		alias("macc.cbfc.enbv.c"+c, "pfc.c"+c)
		alias("macc.cbfc.pause_time.c"+c, "pfc.time_c"+c)
	}

	// InfiniBand (RoCEv2).
	protoAlias("infiniband", "bth")
	protoAlias("infiniband.bth", "bth")
	protoAlias("infiniband.reth", "reth")
	protoAlias("infiniband.aeth", "aeth")
	for ws, ours := range map[string]string{
		"infiniband.bth.opcode": "bth.opcode", "infiniband.bth.se": "bth.se", "infiniband.bth.m": "bth.m",
		"infiniband.bth.padcnt": "bth.padcnt", "infiniband.bth.tver": "bth.tver", "infiniband.bth.p_key": "bth.pkey",
		"infiniband.bth.destqp": "bth.destqp", "infiniband.bth.a": "bth.ackreq", "infiniband.bth.psn": "bth.psn",
		"infiniband.reth.va": "reth.va", "infiniband.reth.r_key": "reth.rkey", "infiniband.reth.dmalen": "reth.dmalen",
		"infiniband.aeth.syndrome": "aeth.syndrome", "infiniband.aeth.msn": "aeth.msn",
	} {
		alias(ws, ours)
	}
	// Wireshark reads the ICRC's octets big-endian; ours least
	// significant first (docs/interop.md).
	icrc := &Field{Short: "invariant.crc", Hex: true, tail: true, get: one(func(p *layers.Parser) Value {
		return u(uint64(bits.ReverseBytes32(p.BTH.ICRC)))
	})}
	icrc.Name, icrc.proto = "infiniband.invariant.crc", byProto["bth"]
	wsByField[icrc.Name] = icrc
	wsNames = append(wsNames, WiresharkName{Name: icrc.Name, Field: icrc})

	setIPEnds(wsOwnField, true)

	// Protocol slices and what contains and matches search (ours:
	// initOurSlices).
	wsIP.raw = func(f *Frame) []byte { return f.P.IPv4.Contents }
	v6.raw = func(f *Frame) []byte { return f.P.IPv6.Contents }
	wsIP.data = func(f *Frame) []byte { return joined(f.P.IPv4.Contents, f.P.IPv4.Payload) }
	v6.data = func(f *Frame) []byte { return joined(f.P.IPv6.Contents, f.P.IPv6.Payload) }

	// Frame metadata.
	alias("frame.cap_len", "frame.caplen")
	// frame.interface_id is ours, frame.interface, but for a classic
	// pcap, where Wireshark has no interface and gives none (ours is 0).
	own(FrameProto, &Field{Short: "interface_id", get: func(f *Frame, dst []Value) []Value {
		if f.Classic {
			return dst
		}
		return append(dst, u(uint64(f.Interface)))
	}}, &Field{Short: "interface_description", Kind: KindString, get: func(f *Frame, dst []Value) []Value {
		if f.IfDescription == "" {
			return dst
		}
		return append(dst, Value{Kind: KindString, S: f.IfDescription}) // escaped by AppendValue
	}})

	initWiresharkProtos()
	for name, bits := range fieldBits {
		if fd := wsOwnField(name); fd != nil {
			fd.Bits = bits
		}
	}
	sort.Slice(wsNames, func(i, j int) bool { return wsNames[i].Name < wsNames[j].Name })
}

// wsOwnField returns Wireshark's field of the name when it is not one of
// ours (an alias of ours is ours): the twin of ip.src, ipv6.src, udp.port;
// nil otherwise.
func wsOwnField(name string) *Field {
	fd, ok := wsIPFields[name]
	if !ok {
		fd, ok = wsByField[name]
	}
	if !ok || byName[fd.Name] == fd {
		return nil
	}
	return fd
}

// initOurSlices gives our protocols their octets, for filters' slices
// (frame[0:2], eth[12:2]) and what contains and matches search, as
// Wireshark's protocol values do: the header and what it carries, to the
// end of the frame (frame, eth) or of the packet by its length (ip, udp).
func initOurSlices() {
	FrameProto.raw = frameBytes
	byProto["eth"].raw = func(f *Frame) []byte { return f.P.Eth.Contents }
	byProto["udp"].raw = func(f *Frame) []byte { return f.P.UDP.Contents }
	byProto["ip"].raw = func(f *Frame) []byte {
		if isIPv4(f.P) {
			return f.P.IPv4.Contents
		}
		return f.P.IPv6.Contents
	}
	FrameProto.data = frameBytes
	byProto["eth"].data = func(f *Frame) []byte { return joined(f.P.Eth.Contents, f.P.Eth.Payload) }
	byProto["udp"].data = func(f *Frame) []byte { return joined(f.P.UDP.Contents, f.P.UDP.Payload) }
	byProto["ip"].data = func(f *Frame) []byte {
		if isIPv4(f.P) {
			return joined(f.P.IPv4.Contents, f.P.IPv4.Payload)
		}
		return joined(f.P.IPv6.Contents, f.P.IPv6.Payload)
	}
}

// TsharkStyle is how tshark 4.0's -T fields prints a field's values.
type TsharkStyle struct {
	// HexDigits: a BASE_HEX field, printed "0x" and this many digits;
	// 0 for decimal.
	HexDigits int
	// Bool01: a boolean, printed 1 or 0 (ours print true or false).
	Bool01 bool
	// AbsTime: a point in time (frame.time), printed in local time as
	// tshark 4.0 prints it: "Jan  1, 2026 00:00:00.000000000 UTC".
	AbsTime bool
	// PlainBytes: octets printed as hex digits without separators, as
	// tshark 4.0 prints an FT_BYTES field (sll.unused: 0000); ours print
	// 00:00.
	PlainBytes bool
}

// tsharkHex are the fields tshark 4.0 prints in hex, with its digits
// (its field type's width: FT_UINT16 four, FT_UINT24 six, ...), measured
// on the corpus; ipv6.tclass is an FT_UINT32 in 4.0.
var tsharkHex = map[string]int{
	"eth.type": 4, "ip.checksum": 4, "ip.dsfield": 2, "ip.flags": 2, "ip.id": 4, "udp.checksum": 4,
	"ipv6.flow": 6, "ipv6.tclass": 8, "ipv6.fraghdr.ident": 8, "vlan.etype": 4, "ah.spi": 8, "esp.spi": 8,
	"infiniband.bth.destqp": 6, "infiniband.invariant.crc": 8, "infiniband.reth.r_key": 8, "infiniband.reth.va": 16,
	"macc.cbfc.enbv": 4, "macc.opcode": 4,
	"sll.etype": 4, "sll.ltype": 4,
}

// TsharkStyleOf reports whether name is one of Wireshark's field names
// (its own, an alias of ours, or one both use that tshark prints in hex,
// as eth.type) and how tshark prints it. sfcdump -T fields prints a field
// asked for by such a name as tshark does, so a script written for tshark
// reads the same text; our own names keep ours (decimal, true/false).
func TsharkStyleOf(name string) (TsharkStyle, bool) {
	wsReady()
	if fd, ok := byName[name]; ok && fd.Absolute {
		return TsharkStyle{AbsTime: true}, true // frame.time: ours and tshark's
	}
	fd, ws := wsByField[name]
	digits, hex := tsharkHex[name]
	if !ws && !hex {
		return TsharkStyle{}, false
	}
	st := TsharkStyle{HexDigits: digits}
	if ws && fd.Kind == KindBool {
		st.Bool01 = true
	}
	if ws && fd.Kind == KindBytes {
		st.PlainBytes = true
	}
	return st, true
}

// tsharkTimeLayout is tshark 4.0's -T fields text of an absolute time.
const tsharkTimeLayout = "Jan _2, 2006 15:04:05.000000000 MST"

// AppendTshark appends v as tshark prints a value of style st.
func AppendTshark(dst []byte, v Value, st TsharkStyle) []byte {
	switch {
	case v.Kind == KindBool && st.Bool01:
		if v.U != 0 {
			return append(dst, '1')
		}
		return append(dst, '0')
	case v.Kind == KindUint && st.HexDigits > 0:
		n := min(st.HexDigits, 16)
		for n < 16 && v.U>>(4*uint(n)) != 0 {
			n++ // a value wider than its field: all its digits
		}
		dst = append(dst, "0x"...)
		for i := n - 1; i >= 0; i-- {
			dst = append(dst, hexDigits[v.U>>(4*uint(i))&15])
		}
		return dst
	case v.Kind == KindTime && st.AbsTime:
		return time.Unix(int64(v.U), int64(v.N)).In(time.Local).AppendFormat(dst, tsharkTimeLayout)
	case v.Kind == KindBytes && st.PlainBytes:
		for _, c := range v.B {
			dst = append(dst, hexDigits[c>>4], hexDigits[c&15])
		}
		return dst
	}
	return AppendValue(dst, v, false)
}

// fieldBits are the wire widths of number fields (Field.Bits), by our
// names; a Wireshark alias is the same Field. A name not registered is a
// mistake TestFieldBitsNamed catches.
var fieldBits = map[string]uint8{
	"eth.type": 16, "eth.vlan": 12, "eth.pcp": 3, "vlan.etype": 16,
	"ah.next_header": 8, "ah.length": 8, "ah.spi": 32, "ah.sequence": 32, "esp.spi": 32, "esp.sequence": 32,
	"ip.version": 4, "ip.dscp": 6, "ip.ecn": 2, "ip.ttl": 8, "ip.proto": 8,
	"ip.len": 16, "ip.id": 16, "ip.checksum": 16, "ip.dsfield": 8, "ip.dsfield.dscp": 6, "ip.dsfield.ecn": 2,
	"ipv6.flow": 20, "ipv6.hlim": 8, "ipv6.nxt": 8, "ipv6.plen": 16, "ipv6.tclass": 8, "ipv6.tclass.dscp": 6, "ipv6.tclass.ecn": 2,
	"ipv6.hopopts.nxt": 8, "ipv6.routing.nxt": 8, "ipv6.routing.type": 8, "ipv6.routing.segleft": 8,
	"ipv6.fraghdr.nxt": 8, "ipv6.fraghdr.offset": 13, "ipv6.fraghdr.ident": 32, "ipv6.dstopts.nxt": 8,
	"udp.sport": 16, "udp.dport": 16, "udp.port": 16, "udp.length": 16, "udp.checksum": 16,
	"bth.opcode": 8, "bth.destqp": 24, "bth.psn": 24, "bth.pkey": 16, "bth.padcnt": 2, "bth.tver": 4, "bth.icrc": 32,
	"reth.rkey": 32, "reth.dmalen": 32, "aeth.syndrome": 8, "aeth.msn": 24,
	"pause.opcode": 16, "pause.quanta": 16, "pfc.opcode": 16, "pfc.enable_vector": 16,
	"pfc.time_c0": 16, "pfc.time_c1": 16, "pfc.time_c2": 16, "pfc.time_c3": 16,
	"pfc.time_c4": 16, "pfc.time_c5": 16, "pfc.time_c6": 16, "pfc.time_c7": 16,
	"bts.pause_us": 16, "bts.queue_depth": 32, "bts.reporter": 32, "bts.cp_port": 16,
	"cim.pause_us": 16, "cim.vid": 12, "bfc.seq": 32,
}

func init() {
	initOurSlices()
	// Ours now; Wireshark's own fields when they are made (initWireshark).
	for name, bits := range fieldBits {
		if fd, ok := byName[name]; ok {
			fd.Bits = bits
		}
	}
}
