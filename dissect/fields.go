// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"net"
	"net/netip"
	"sort"
	"strconv"
	"time"

	"github.com/gopacket/gopacket"
	glayers "github.com/gopacket/gopacket/layers"

	"github.com/opensfc/sfc/layers"
)

// Kind is the type of a field's values.
type Kind uint8

// The kinds of field.
const (
	KindUint   Kind = iota // U
	KindBool               // U is 0 or 1
	KindIP                 // A
	KindMAC                // B, 6 octets
	KindString             // S (BTS origin names), U the number
	KindBytes              // B, any length (quotes, MSDUs, payloads)
	KindTime               // U, whole seconds (int64, floor) since the Unix epoch or between two times, N the nanoseconds to add
)

// String names the kind: uint, bool, ip, mac, string, bytes or time.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind" + strconv.Itoa(int(k))
}

var kindNames = [...]string{"uint", "bool", "ip", "mac", "string", "bytes", "time"}

// Value is one value of a field. Only the member its Kind names is set; B
// aliases the frame's buffer.
type Value struct {
	Kind Kind
	U    uint64
	N    uint32 // KindTime: nanoseconds, 0..999999999, after U's seconds
	A    netip.Addr
	B    []byte
	S    string
}

// TimeValue returns the KindTime value of sec seconds and ns nanoseconds
// (any ns: carried into the seconds, which are floored, so that -0.5 s is
// -1 s + 500000000 ns). Seconds and nanoseconds are kept apart: times
// before 1678 or after 2262 do not fit int64 nanoseconds, and a capture
// can hold them.
func TimeValue(sec, ns int64) Value {
	sec += ns / 1e9
	ns %= 1e9
	if ns < 0 {
		sec, ns = sec-1, ns+1e9
	}
	return Value{Kind: KindTime, U: uint64(sec), N: uint32(ns)}
}

// timeSince returns a − b as a KindTime value, exactly for any two times.
func timeSince(a, b time.Time) Value {
	return TimeValue(a.Unix()-b.Unix(), int64(a.Nanosecond())-int64(b.Nanosecond()))
}

// Frame is one decoded frame with its capture metadata.
type Frame struct {
	Number int
	// Time is when the frame was captured; the zero time.Time (IsZero)
	// when the capture gives none (a pcapng simple packet block): JSON
	// writes null, frame.time_epoch is absent.
	Time time.Time
	// Start is the time frame.time_relative counts from (the first frame
	// with a time); zero: no relative time.
	Start time.Time
	// Prev is the time of the frame read before this one that has a time
	// (frame.time_delta counts from it); zero for the first such frame.
	Prev time.Time
	// IfName is the name of the frame's interface as the capture has it
	// (not escaped: filters test its own octets, outputs escape it); ""
	// when unnamed. Comments are the frame's comments, as the capture has
	// them.
	IfName    string
	Comments  []string
	Interface int
	Len       int
	CapLen    int
	P         *layers.Parser
	// Err is the decode error of the frame, if any (the frame is malformed).
	Err error
	// LinkBPS is the speed of the frame's interface in bit/s, used to show
	// PAUSE and PFC quanta as time (1 quantum = 512 bit times); 0 when
	// unknown.
	LinkBPS uint64
	// IfDescription is the description of the frame's interface as the
	// capture has it (pcapng if_description), Wireshark's
	// frame.interface_description; "" when it has none.
	IfDescription string
	// Classic says the frame was read from a classic pcap file, which
	// has no interfaces: Wireshark gives it no frame.interface_id (ours,
	// frame.interface, is 0 still).
	Classic bool
}

// Field is a named field of a protocol.
type Field struct {
	Name  string // full name, e.g. "bts.pause_us"
	Short string // name within the protocol, e.g. "pause_us"
	Kind  Kind
	// Entry marks the fields of a list of entries (Floodgate entries,
	// IPv6 extension headers, VLAN tags), nested in JSON under "entries".
	Entry bool
	// at, for an entry field of a protocol with entries (Proto.entries),
	// is its value in entry i; ok is false when that entry has none (a
	// Routing header's routing type in a Fragment header's entry).
	at func(f *Frame, i int) (v Value, ok bool)
	// Hex asks text renderings to print the number in hex.
	Hex bool
	// Quanta marks a time in pause quanta: the verbose tree adds its
	// duration at the frame's link speed.
	Quanta bool
	// counts, when set, says whether a Quanta time asks for a pause in f
	// (a PFC class time counts only where its enable bit is set): the
	// tree adds no duration to one that does not.
	counts func(f *Frame) bool
	// Bits is the width of a number field on the wire (0: not recorded):
	// a filter that compares it with a larger number is refused, as
	// tshark refuses "70000" for a 16-bit field.
	Bits uint8
	// Absolute marks a KindTime field that is a point in time, not
	// seconds (frame.time, the time of capture): filters compare it with
	// a date and time, as Wireshark does, and -T fields prints it as
	// tshark ("Jan  1, 2026 00:00:00.000000000 UTC", TsharkStyleOf).
	Absolute bool
	// Forever is a value that means "until resumed" (a Floodgate
	// dst-pause time of 0xFFFF, wire.md §7.3), which the verbose tree
	// says; 0 when none does.
	Forever uint64
	get     func(f *Frame, dst []Value) []Value
	proto   *Proto
	// layer and end place a fixed-header field: it ends at octet end of
	// layer, and is absent when a cut leaves fewer (cut.go).
	layer gopacket.LayerType
	end   int
	// ends is layer and end for a field of several layers (ip.src is
	// IPv4's or IPv6's), by layer.
	ends map[gopacket.LayerType]int
	// tail marks a field at the end of the packet (the ICRC): absent when
	// the capture kept less than the frame.
	tail bool
	// upper marks the upper-layer protocol (ip.proto, ipv6.nxt): absent
	// when a cut leaves it unknown (Cut.UpperUnknown).
	upper bool
	// vlayer is the layer of a field read after its layer's version
	// (version.go): absent when that layer does not know the version.
	vlayer gopacket.LayerType
}

// Values appends the field's values in f to dst; none when f does not hold
// the field's protocol.
func (fd *Field) Values(f *Frame, dst []Value) []Value {
	if !fd.proto.present(f) {
		return dst
	}
	if f.Err != nil || f.CapLen < f.Len {
		if c, ok := CutOf(f); ok && fd.cutOff(&c) || fd.versionOff(f) {
			return dst
		}
	}
	return fd.get(f, dst)
}

// Proto returns the protocol the field belongs to.
func (fd *Field) Proto() *Proto { return fd.proto }

// Family is the address family of an address field that holds one family
// alone: 4 for Wireshark's ip.* (LookupField's ip.src, IPv4's), 6 for
// ipv6.*, 0 for a field of either family (ours: ip.src as JSON and the
// verbose tree show it, bts.quote.src) or not an address. A filter
// refuses an address of the other family, as tshark does.
func (fd *Field) Family() int {
	switch {
	case fd.Kind != KindIP:
		return 0
	case wsIP != nil && fd.proto == wsIP:
		return 4
	case fd.proto != nil && fd.proto.Name == "ipv6":
		return 6
	}
	return 0
}

// Proto is a protocol of the name space.
type Proto struct {
	Name   string
	Fields []*Field
	// present reports whether f holds the protocol.
	present func(f *Frame) bool
	// raw returns the protocol's octets in f, for filter slices
	// (frame[12:2]); nil when it has none to give.
	raw func(f *Frame) []byte
	// data returns the protocol's octets and what they carry, for
	// contains and matches (udp contains 12:b7); nil when it has none.
	data func(f *Frame) []byte
	// entries, when set, is the number of entries of the protocol in f
	// (IPv6 extension headers, VLAN tags), whose Entry fields have at:
	// JSON writes each entry with the fields it has, the verbose tree
	// one subtree per entry, headed entryName and its number.
	entries   func(f *Frame) int
	entryName string
}

// Data returns the octets that Wireshark's "PROTO contains" and "PROTO
// matches" search in frame f: the protocol's header and the data it
// carries (to the end of the frame for frame and eth; of the packet by
// its length for ip, ipv6 and udp). Its header alone when the two are not
// one slice of the frame; ok as for Bytes.
func (p *Proto) Data(f *Frame) (b []byte, ok bool) {
	if p.data != nil && p.present(f) {
		if b = p.data(f); b != nil {
			return b, true
		}
	}
	return p.Bytes(f)
}

// HasBytes reports whether the protocol's octets can be sliced (Bytes).
func (p *Proto) HasBytes() bool { return p.raw != nil }

// Bytes returns the octets of the protocol in frame f, as Wireshark's
// protocol slices (eth[12:2], udp[0:2], frame[14:1]) read them: the whole
// frame for frame, the header for eth, ip, ipv6 and udp. ok is false for a
// protocol whose octets are not kept, or that f does not hold.
func (p *Proto) Bytes(f *Frame) (b []byte, ok bool) {
	if p.raw == nil || !p.present(f) {
		return nil, false
	}
	b = p.raw(f)
	return b, b != nil
}

// Present reports whether frame f holds the protocol.
func (p *Proto) Present(f *Frame) bool { return p.present(f) }

func u(v uint64) Value { return Value{Kind: KindUint, U: v} }

func b(v bool) Value {
	if v {
		return Value{Kind: KindBool, U: 1}
	}
	return Value{Kind: KindBool}
}

func ip(a netip.Addr) Value { return Value{Kind: KindIP, A: a} }

func mac(m net.HardwareAddr) Value { return Value{Kind: KindMAC, B: m} }

// one adapts a single-valued getter.
func one(get func(p *layers.Parser) Value) func(f *Frame, dst []Value) []Value {
	return func(f *Frame, dst []Value) []Value { return append(dst, get(f.P)) }
}

// when adapts a getter that has a value only when ok(p).
func when(ok func(p *layers.Parser) bool, get func(p *layers.Parser) Value) func(f *Frame, dst []Value) []Value {
	return func(f *Frame, dst []Value) []Value {
		if !ok(f.P) {
			return dst
		}
		return append(dst, get(f.P))
	}
}

func has(t gopacket.LayerType) func(f *Frame) bool {
	min := gopacketHeader[t]
	return func(f *Frame) bool { return f.P.Has(t) || f.P.Failed == t && f.Err != nil && f.P.FailedLen >= min }
}

// gopacketHeader is the fixed header of each of gopacket's layers that
// the parser uses: given fewer octets, the layer returns before it reads
// a field, and its fields are the previous frame's (stale), so the layer
// is not present. Given the header, it read every field before it found
// the error. Our layers keep what they decoded before a cut (cut.go).
var gopacketHeader = map[gopacket.LayerType]int{
	glayers.LayerTypeEthernet: 14, glayers.LayerTypeDot1Q: 4, glayers.LayerTypeIPv4: 20, glayers.LayerTypeIPv6: 40,
	glayers.LayerTypeUDP: 8, glayers.LayerTypeLinuxSLL: 16, glayers.LayerTypeLinuxSLL2: 20,
}

// bthExt is the present function of the BTH's extension header of type t:
// the BTH decoded, or failed after decoding it whole (a PadCnt past the
// data keeps the RETH or AETH before it; layers.BTH.ExtDecoded).
func bthExt(t gopacket.LayerType) func(f *Frame) bool {
	bth := has(layers.LayerTypeBTH)
	return func(f *Frame) bool { return bth(f) && f.P.BTH.ExtDecoded(t) }
}

func addrOf(b []byte) netip.Addr {
	a, _ := netip.AddrFromSlice(b)
	return a.Unmap()
}

func quoteFlow(p *layers.Parser) (layers.Flow, bool) {
	switch {
	case p.Has(layers.LayerTypeBTS):
		return p.BTS.Flow, true
	case p.Has(layers.LayerTypePostcard):
		return p.Postcard.Flow, true
	case p.Has(layers.LayerTypeCIM):
		return p.CIM.Flow()
	}
	return layers.Flow{}, false
}

// QuoteFlow returns the flow a BTS, postcard or CIM in f is about.
func QuoteFlow(f *Frame) (layers.Flow, bool) { return quoteFlow(f.P) }

func flowField(short string, k Kind, get func(fl layers.Flow) (Value, bool)) *Field {
	return &Field{Short: short, Kind: k, get: func(f *Frame, dst []Value) []Value {
		fl, ok := quoteFlow(f.P)
		if !ok {
			return dst
		}
		if v, ok := get(fl); ok {
			dst = append(dst, v)
		}
		return dst
	}}
}

func isIPv4(p *layers.Parser) bool { return p.Has(glayers.LayerTypeIPv4) }

// ipProto is ip.proto: IPv4's Protocol field, as tshark's ip.proto (51
// for an AH: the protocol behind it is ah.next_header), or for IPv6 the
// upper-layer protocol behind the extension headers (Parser.IPProtocol).
func ipProto(p *layers.Parser) uint8 {
	if isIPv4(p) {
		return uint8(p.IPv4.Protocol)
	}
	proto, _ := p.IPProtocol()
	return proto
}

// upperUnknown reports an IPv6 packet whose upper-layer protocol is not
// known because its extension headers were cut short (by the capture or
// the packet's end): ip.proto and ipv6.nxt are then absent, not the Next
// Header of the fixed header or of the header the cut fell in (0, 43, 44,
// 60), which would name an extension header as the upper layer.
func upperUnknown(p *layers.Parser) bool {
	if isIPv4(p) || !p.Has(glayers.LayerTypeIPv6) {
		return false
	}
	if p.Failed == layers.LayerTypeIPv6Ext {
		return true
	}
	proto, _ := p.IPProtocol()
	return layers.IsIPv6Ext(proto) && proto != layers.IPv6ESP && !p.Has(layers.LayerTypeIPv6Ext)
}

// upperProtoField gets ip.proto and ipv6.nxt: the upper-layer protocol,
// absent when upperUnknown.
func upperProtoField(f *Frame, dst []Value) []Value {
	if upperUnknown(f.P) {
		return dst
	}
	return append(dst, u(uint64(ipProto(f.P))))
}

// Protos is the registry, in the order protocols appear in a frame.
var Protos = []*Proto{
	{Name: "sll", present: func(f *Frame) bool {
		return f.P.Has(glayers.LayerTypeLinuxSLL) || f.P.Has(glayers.LayerTypeLinuxSLL2)
	}, Fields: sllFields()},
	{Name: "eth", present: has(glayers.LayerTypeEthernet), Fields: []*Field{
		{Short: "src", Kind: KindMAC, get: one(func(p *layers.Parser) Value { return mac(p.Eth.SrcMAC) })},
		{Short: "dst", Kind: KindMAC, get: one(func(p *layers.Parser) Value { return mac(p.Eth.DstMAC) })},
		{Short: "type", Kind: KindUint, Hex: true, get: one(func(p *layers.Parser) Value { return u(uint64(p.Eth.EthernetType)) })},
	}},
	{Name: "vlan", present: has(glayers.LayerTypeDot1Q), Fields: vlanFields(), entries: vlanEntries, entryName: "tag"},
	{Name: "ip", present: func(f *Frame) bool {
		return f.P.Has(glayers.LayerTypeIPv4) || f.P.Has(glayers.LayerTypeIPv6)
	}, Fields: []*Field{
		{Short: "version", get: one(func(p *layers.Parser) Value {
			if isIPv4(p) {
				return u(4)
			}
			return u(6)
		})},
		{Short: "src", Kind: KindIP, get: one(func(p *layers.Parser) Value {
			if isIPv4(p) {
				return ip(addrOf(p.IPv4.SrcIP))
			}
			return ip(addrOf(p.IPv6.SrcIP))
		})},
		{Short: "dst", Kind: KindIP, get: one(func(p *layers.Parser) Value {
			if isIPv4(p) {
				return ip(addrOf(p.IPv4.DstIP))
			}
			return ip(addrOf(p.IPv6.DstIP))
		})},
		{Short: "dscp", get: one(func(p *layers.Parser) Value {
			if isIPv4(p) {
				return u(uint64(p.IPv4.TOS >> 2))
			}
			return u(uint64(p.IPv6.TrafficClass >> 2))
		})},
		{Short: "ecn", get: one(func(p *layers.Parser) Value {
			if isIPv4(p) {
				return u(uint64(p.IPv4.TOS & 3))
			}
			return u(uint64(p.IPv6.TrafficClass & 3))
		})},
		{Short: "ttl", get: one(func(p *layers.Parser) Value {
			if isIPv4(p) {
				return u(uint64(p.IPv4.TTL))
			}
			return u(uint64(p.IPv6.HopLimit))
		})},
		// IPv4's Protocol field (51 for an AH, as tshark's ip.proto);
		// for IPv6 the upper-layer protocol, behind the extension headers.
		{Short: "proto", upper: true, get: upperProtoField},
	}},
	{Name: "ipv6ext", present: has(layers.LayerTypeIPv6Ext), Fields: ipv6ExtFields(), entries: ipv6ExtEntries, entryName: "header"},
	{Name: "ah", present: hasAH, Fields: ahFields()},
	{Name: "esp", present: hasESP, Fields: espFields()},
	{Name: "udp", present: has(glayers.LayerTypeUDP), Fields: []*Field{
		{Short: "sport", get: one(func(p *layers.Parser) Value { return u(uint64(p.UDP.SrcPort)) })},
		{Short: "dport", get: one(func(p *layers.Parser) Value { return u(uint64(p.UDP.DstPort)) })},
	}},
	{Name: "pause", present: has(layers.LayerTypePause), Fields: []*Field{
		{Short: "opcode", Hex: true, get: one(func(p *layers.Parser) Value { return u(uint64(p.Pause.Opcode)) })},
		{Short: "quanta", Quanta: true, get: one(func(p *layers.Parser) Value { return u(uint64(p.Pause.Quanta)) })},
		{Short: "pause_ns", get: func(f *Frame, dst []Value) []Value {
			if f.LinkBPS == 0 {
				return dst
			}
			return append(dst, u(QuantaNS(uint64(f.P.Pause.Quanta), f.LinkBPS)))
		}},
	}},
	{Name: "pfc", present: has(layers.LayerTypePFC), Fields: pfcFields()},
	{Name: "bth", present: has(layers.LayerTypeBTH), Fields: []*Field{
		{Short: "opcode", get: one(func(p *layers.Parser) Value { return u(uint64(p.BTH.Opcode)) })},
		{Short: "se", Kind: KindBool, get: one(func(p *layers.Parser) Value { return b(p.BTH.SE) })},
		{Short: "m", Kind: KindBool, get: one(func(p *layers.Parser) Value { return b(p.BTH.M) })},
		{Short: "padcnt", get: one(func(p *layers.Parser) Value { return u(uint64(p.BTH.PadCnt)) })},
		{Short: "tver", get: one(func(p *layers.Parser) Value { return u(uint64(p.BTH.TVer)) })},
		{Short: "pkey", get: one(func(p *layers.Parser) Value { return u(uint64(p.BTH.PKey)) })},
		{Short: "fecn", Kind: KindBool, get: one(func(p *layers.Parser) Value { return b(p.BTH.FECN) })},
		{Short: "becn", Kind: KindBool, get: one(func(p *layers.Parser) Value { return b(p.BTH.BECN) })},
		{Short: "destqp", Hex: true, get: one(func(p *layers.Parser) Value { return u(uint64(p.BTH.DestQP)) })},
		{Short: "ackreq", Kind: KindBool, get: one(func(p *layers.Parser) Value { return b(p.BTH.AckReq) })},
		{Short: "psn", get: one(func(p *layers.Parser) Value { return u(uint64(p.BTH.PSN)) })},
		{Short: "icrc", Hex: true, get: one(func(p *layers.Parser) Value { return u(uint64(p.BTH.ICRC)) })},
		{Short: "icrc_ok", Kind: KindBool, get: when(func(p *layers.Parser) bool { return p.BTH.ICRCChecked },
			func(p *layers.Parser) Value { return b(p.BTH.ICRCOK) })},
	}},
	{Name: "reth", present: bthExt(layers.LayerTypeRETH), Fields: []*Field{
		{Short: "va", Hex: true, get: one(func(p *layers.Parser) Value { return u(p.BTH.RETH.VA) })},
		{Short: "rkey", Hex: true, get: one(func(p *layers.Parser) Value { return u(uint64(p.BTH.RETH.RKey)) })},
		{Short: "dmalen", get: one(func(p *layers.Parser) Value { return u(uint64(p.BTH.RETH.DMALen)) })},
	}},
	{Name: "aeth", present: bthExt(layers.LayerTypeAETH), Fields: []*Field{
		{Short: "syndrome", get: one(func(p *layers.Parser) Value { return u(uint64(p.BTH.AETH.Syndrome)) })},
		{Short: "msn", get: one(func(p *layers.Parser) Value { return u(uint64(p.BTH.AETH.MSN)) })},
	}},
	{Name: "cnp", present: bthExt(layers.LayerTypeCNP), Fields: []*Field{
		{Short: "destqp", Hex: true, get: one(func(p *layers.Parser) Value { return u(uint64(p.BTH.CNP.DestQP)) })},
	}},
	{Name: "cim", present: has(layers.LayerTypeCIM), Fields: []*Field{
		{Short: "version", get: one(func(p *layers.Parser) Value { return u(uint64(p.CIM.Version)) })},
		{Short: "add", Kind: KindBool, get: one(func(p *layers.Parser) Value { return b(p.CIM.Add) })},
		{Short: "ext", Kind: KindBool, get: one(func(p *layers.Parser) Value { return b(p.CIM.Ext) })},
		{Short: "da", Kind: KindMAC, get: when(func(p *layers.Parser) bool { return len(p.CIM.DA) == 6 }, func(p *layers.Parser) Value { return mac(p.CIM.DA) })},
		{Short: "sa", Kind: KindMAC, get: when(func(p *layers.Parser) bool { return len(p.CIM.SA) == 6 }, func(p *layers.Parser) Value { return mac(p.CIM.SA) })},
		{Short: "vid", get: one(func(p *layers.Parser) Value { return u(uint64(p.CIM.VID)) })},
		{Short: "msdu_len", get: one(func(p *layers.Parser) Value { return u(uint64(p.CIM.MSDULen)) })},
		{Short: "pause_us", get: when(cimSFC, func(p *layers.Parser) Value { return u(uint64(p.CIM.SFC.PauseUS)) })},
		{Short: "cacheable", Kind: KindBool, get: when(cimSFC, func(p *layers.Parser) Value { return b(p.CIM.SFC.Cacheable) })},
		{Short: "origin", Kind: KindString, get: when(cimSFC, func(p *layers.Parser) Value { return origin(p.CIM.SFC.Origin) })},
		{Short: "reporter", get: when(cimSFC, func(p *layers.Parser) Value { return u(uint64(p.CIM.SFC.Reporter)) })},
	}},
	{Name: "bts", present: has(layers.LayerTypeBTS), Fields: []*Field{
		{Short: "version", get: one(func(p *layers.Parser) Value { return u(uint64(p.BTS.Version)) })},
		{Short: "cacheable", Kind: KindBool, get: one(func(p *layers.Parser) Value { return b(p.BTS.Cacheable) })},
		{Short: "origin", Kind: KindString, get: one(func(p *layers.Parser) Value { return origin(p.BTS.Origin) })},
		{Short: "pause_us", get: one(func(p *layers.Parser) Value { return u(uint64(p.BTS.PauseUS)) })},
		{Short: "reporter", get: one(func(p *layers.Parser) Value { return u(uint64(p.BTS.Reporter)) })},
		{Short: "cp_port", get: one(func(p *layers.Parser) Value { return u(uint64(p.BTS.CPPort)) })},
		{Short: "cp_queue", get: one(func(p *layers.Parser) Value { return u(uint64(p.BTS.CPQueue)) })},
		{Short: "queue_depth", get: one(func(p *layers.Parser) Value { return u(uint64(p.BTS.QueueDepth)) })},
		{Short: "quote_len", get: one(func(p *layers.Parser) Value { return u(uint64(len(p.BTS.Quote))) })},
	}},
	{Name: "postcard", present: has(layers.LayerTypePostcard), Fields: []*Field{
		{Short: "version", get: one(func(p *layers.Parser) Value { return u(uint64(p.Postcard.Version)) })},
		{Short: "port", get: one(func(p *layers.Parser) Value { return u(uint64(p.Postcard.Port)) })},
		{Short: "switch_id", Kind: KindMAC, get: when(func(p *layers.Parser) bool { return len(p.Postcard.SwitchID) == 6 }, func(p *layers.Parser) Value { return mac(p.Postcard.SwitchID) })},
		{Short: "rate_mbps", get: one(func(p *layers.Parser) Value { return u(uint64(p.Postcard.RateMbps)) })},
		{Short: "window_ns", get: one(func(p *layers.Parser) Value { return u(uint64(p.Postcard.WindowNS)) })},
		{Short: "ip_bytes", get: one(func(p *layers.Parser) Value { return u(uint64(p.Postcard.IPBytes)) })},
		{Short: "q1_bytes", get: one(func(p *layers.Parser) Value { return u(uint64(p.Postcard.Q1Bytes)) })},
		{Short: "recent_bytes", get: one(func(p *layers.Parser) Value { return u(uint64(p.Postcard.RecentBytes)) })},
		{Short: "recent_marked_bytes", get: one(func(p *layers.Parser) Value { return u(uint64(p.Postcard.RecentMarkedBytes)) })},
		{Short: "quote_len", get: one(func(p *layers.Parser) Value { return u(uint64(len(p.Postcard.Quote))) })},
	}},
	{Name: "bfc", present: has(layers.LayerTypeBFC), Fields: []*Field{
		{Short: "version", get: one(func(p *layers.Parser) Value { return u(uint64(p.BFC.Version)) })},
		{Short: "hashes", get: one(func(p *layers.Parser) Value { return u(uint64(p.BFC.Hashes)) })},
		{Short: "filter_len", get: one(func(p *layers.Parser) Value { return u(uint64(p.BFC.FilterLen)) })},
		{Short: "seq", get: one(func(p *layers.Parser) Value { return u(uint64(p.BFC.Seq)) })},
		{Short: "bits_set", get: when(func(p *layers.Parser) bool { return p.BFC.FilterLen > 0 && len(p.BFC.Filter) == int(p.BFC.FilterLen) },
			func(p *layers.Parser) Value { return u(uint64(p.BFC.BitsSet())) })},
	}},
	{Name: "fgcredit", present: has(layers.LayerTypeFGCredit), Fields: []*Field{
		{Short: "version", get: one(func(p *layers.Parser) Value { return u(uint64(p.FGCredit.Version)) })},
		{Short: "family", get: one(func(p *layers.Parser) Value { return u(uint64(p.FGCredit.Family)) })},
		{Short: "count", get: one(func(p *layers.Parser) Value { return u(uint64(p.FGCredit.Count)) })},
		{Short: "dst", Kind: KindIP, Entry: true, get: func(f *Frame, dst []Value) []Value {
			for _, e := range f.P.FGCredit.Entries {
				dst = append(dst, ip(e.Dst))
			}
			return dst
		}},
		{Short: "credits", Entry: true, get: func(f *Frame, dst []Value) []Value {
			for _, e := range f.P.FGCredit.Entries {
				dst = append(dst, u(uint64(e.Credits)))
			}
			return dst
		}},
	}},
	{Name: "fgpause", present: has(layers.LayerTypeFGPause), Fields: []*Field{
		{Short: "version", get: one(func(p *layers.Parser) Value { return u(uint64(p.FGPause.Version)) })},
		{Short: "family", get: one(func(p *layers.Parser) Value { return u(uint64(p.FGPause.Family)) })},
		{Short: "count", get: one(func(p *layers.Parser) Value { return u(uint64(p.FGPause.Count)) })},
		{Short: "dst", Kind: KindIP, Entry: true, get: func(f *Frame, dst []Value) []Value {
			for _, e := range f.P.FGPause.Entries {
				dst = append(dst, ip(e.Dst))
			}
			return dst
		}},
		{Short: "pause_us", Entry: true, Forever: 0xffff, get: func(f *Frame, dst []Value) []Value {
			for _, e := range f.P.FGPause.Entries {
				dst = append(dst, u(uint64(e.PauseUS)))
			}
			return dst
		}},
	}},
	{Name: "flow", present: func(f *Frame) bool { _, ok := quoteFlow(f.P); return ok }, Fields: []*Field{
		flowField("src", KindIP, func(fl layers.Flow) (Value, bool) { return ip(fl.Src), true }),
		flowField("dst", KindIP, func(fl layers.Flow) (Value, bool) { return ip(fl.Dst), true }),
		flowField("proto", KindUint, func(fl layers.Flow) (Value, bool) { return u(uint64(fl.Proto)), true }),
		flowField("sport", KindUint, func(fl layers.Flow) (Value, bool) { return u(uint64(fl.SrcPort)), flowHasPorts(fl) }),
		flowField("dport", KindUint, func(fl layers.Flow) (Value, bool) { return u(uint64(fl.DstPort)), flowHasPorts(fl) }),
		flowField("dscp", KindUint, func(fl layers.Flow) (Value, bool) { return u(uint64(fl.DSCP)), true }),
		flowField("qp", KindUint, func(fl layers.Flow) (Value, bool) { return u(uint64(fl.QP)), fl.HasQP }),
	}},
}

// flowHasPorts reports whether the quoted protocol has ports (TCP, UDP,
// DCCP, SCTP, UDP-Lite) and the quote its L4 header (not ESP, not a
// fragment after the first): else flow.sport and flow.dport are absent,
// as in the Lua dissectors, rather than 0.
func flowHasPorts(fl layers.Flow) bool {
	if fl.NoL4 {
		return false // ESP, a later fragment: the quote has no L4 header
	}
	switch fl.Proto {
	case 6, 17, 33, 132, 136:
		return true
	}
	return false
}

// sllFields are the Linux cooked capture header's (SLL or SLL2, what
// `tcpdump -i any` writes), by Wireshark's names: the packet type (0 to
// us, 4 from us, ...), the ARPHRD_ type, the link-layer source address,
// the protocol when it is an EtherType (above 1536) and, in SLL2 only,
// the interface index.
func sllFields() []*Field {
	v2 := func(p *layers.Parser) bool { return p.Has(glayers.LayerTypeLinuxSLL2) }
	return []*Field{
		{Short: "pkttype", get: one(func(p *layers.Parser) Value {
			if v2(p) {
				return u(uint64(p.SLL2.PacketType))
			}
			return u(uint64(p.SLL.PacketType))
		})},
		{Short: "hatype", get: one(func(p *layers.Parser) Value {
			if v2(p) {
				return u(uint64(p.SLL2.ARPHardwareType))
			}
			return u(uint64(p.SLL.AddrType))
		})},
		{Short: "src", Kind: KindBytes, get: one(func(p *layers.Parser) Value {
			if v2(p) {
				return bytesV(p.SLL2.Addr)
			}
			return bytesV(p.SLL.Addr)
		})},
		// A protocol of 1536 or less is a Linux protocol type, not an
		// EtherType: Wireshark's sll.ltype (wireshark.go), and no etype,
		// as tshark.
		{Short: "etype", Hex: true, get: when(func(p *layers.Parser) bool { return sllProtocol(p) > 1536 },
			func(p *layers.Parser) Value { return u(uint64(sllProtocol(p))) })},
		{Short: "ifindex", get: when(v2, func(p *layers.Parser) Value { return u(uint64(p.SLL2.InterfaceIndex)) })},
	}
}

// ipv6ExtFields are the IPv6 extension headers, one entry per header in
// wire order (ipv6ExtEntries): its name, its Next Header (none for ESP,
// whose next header is in the encrypted trailer), its length, and the
// fields of its type: the Routing header's type and Segments Left (and a
// Segment Routing Header's Last Entry, Flags and Tag), the Fragment
// header's offset, M flag and identification, the AH's and ESP's SPI and
// sequence number. A field's values (filters, -e) are every header's that
// has it, in wire order.
func ipv6ExtFields() []*Field {
	of := func(typ uint8, get func(h *layers.IPv6ExtHeader) Value) func(f *Frame, i int) (Value, bool) {
		return func(f *Frame, i int) (Value, bool) {
			if h := &f.P.IPv6Ext.Headers[i]; h.Type == typ {
				return get(h), true
			}
			return Value{}, false
		}
	}
	// An SRH's fixed part is its first 8 octets: absent from one cut
	// before them (Cut).
	srh := func(get func(h *layers.IPv6ExtHeader) Value) func(f *Frame, i int) (Value, bool) {
		return func(f *Frame, i int) (Value, bool) {
			if h := &f.P.IPv6Ext.Headers[i]; h.Type == layers.IPv6Routing && h.RoutingType == 4 && (h.Cut == 0 || h.Cut >= 8) {
				return get(h), true
			}
			return Value{}, false
		}
	}
	n := ipv6ExtEntries
	return []*Field{
		entryField(&Field{Short: "header", Kind: KindString}, n, func(f *Frame, i int) (Value, bool) {
			h := &f.P.IPv6Ext.Headers[i]
			return Value{Kind: KindString, S: h.Name(), U: uint64(h.Type)}, true
		}),
		entryField(&Field{Short: "nxt"}, n, func(f *Frame, i int) (Value, bool) {
			h := &f.P.IPv6Ext.Headers[i]
			return u(uint64(h.NextHeader)), h.HasNextHeader()
		}),
		entryField(&Field{Short: "len"}, n, func(f *Frame, i int) (Value, bool) { return u(uint64(f.P.IPv6Ext.Headers[i].Length)), true }),
		entryField(&Field{Short: "routing_type"}, n, of(layers.IPv6Routing, func(h *layers.IPv6ExtHeader) Value { return u(uint64(h.RoutingType)) })),
		entryField(&Field{Short: "segleft"}, n, of(layers.IPv6Routing, func(h *layers.IPv6ExtHeader) Value { return u(uint64(h.SegmentsLeft)) })),
		entryField(&Field{Short: "srh_last_entry"}, n, srh(func(h *layers.IPv6ExtHeader) Value { return u(uint64(h.SRHLastEntry)) })),
		entryField(&Field{Short: "srh_flags", Hex: true}, n, srh(func(h *layers.IPv6ExtHeader) Value { return u(uint64(h.SRHFlags)) })),
		entryField(&Field{Short: "srh_tag", Hex: true}, n, srh(func(h *layers.IPv6ExtHeader) Value { return u(uint64(h.SRHTag)) })),
		entryField(&Field{Short: "frag_offset"}, n, of(layers.IPv6Fragment, func(h *layers.IPv6ExtHeader) Value { return u(uint64(h.FragOffset) * 8) })),
		entryField(&Field{Short: "frag_more", Kind: KindBool}, n, of(layers.IPv6Fragment, func(h *layers.IPv6ExtHeader) Value { return b(h.MoreFrags) })),
		entryField(&Field{Short: "frag_id", Hex: true}, n, of(layers.IPv6Fragment, func(h *layers.IPv6ExtHeader) Value { return u(uint64(h.FragID)) })),
		entryField(&Field{Short: "ah_spi", Hex: true}, n, of(layers.IPv6AH, func(h *layers.IPv6ExtHeader) Value { return u(uint64(h.SPI)) })),
		entryField(&Field{Short: "ah_seq"}, n, of(layers.IPv6AH, func(h *layers.IPv6ExtHeader) Value { return u(uint64(h.Seq)) })),
		entryField(&Field{Short: "esp_spi", Hex: true}, n, of(layers.IPv6ESP, func(h *layers.IPv6ExtHeader) Value { return u(uint64(h.SPI)) })),
		entryField(&Field{Short: "esp_seq"}, n, of(layers.IPv6ESP, func(h *layers.IPv6ExtHeader) Value { return u(uint64(h.Seq)) })),
	}
}

// ipv6ExtEntries is the number of IPv6 extension headers of the frame's
// chain, the entries of ipv6ext: those it holds whole, and last one cut
// short after its length (IPv6ExtHeader.Cut), with the fields it holds.
func ipv6ExtEntries(f *Frame) int { return min(f.P.IPv6Ext.N, len(f.P.IPv6Ext.Headers)) }

// vlanFields are the VLAN tags, one entry per tag, outer first
// (vlanEntries): the TPID that announced it (0x8100 802.1Q, 0x88A8
// 802.1ad, 0x9100 QinQ), its priority code point, drop eligible
// indicator and VLAN identifier, and the EtherType that follows it (an
// 802.3 length, 1500 or less, when one does). Every tag, whatever its
// TPID; Wireshark's vlan.* (LookupField), which filters and -e take, are
// the 802.1Q and 0x9100 tags alone, as tshark's.
func vlanFields() []*Field {
	tag := func(get func(t *layers.VLANTag) Value) func(f *Frame, i int) (Value, bool) {
		return func(f *Frame, i int) (Value, bool) { return get(&f.P.Dot1Q.Tags[i]), true }
	}
	n := vlanEntries
	return []*Field{
		entryField(&Field{Short: "tpid", Hex: true}, n, tag(func(t *layers.VLANTag) Value { return u(uint64(t.TPID)) })),
		entryField(&Field{Short: "pcp"}, n, tag(func(t *layers.VLANTag) Value { return u(uint64(t.Priority)) })),
		entryField(&Field{Short: "dei", Kind: KindBool}, n, tag(func(t *layers.VLANTag) Value { return b(t.DEI) })),
		entryField(&Field{Short: "vid"}, n, tag(func(t *layers.VLANTag) Value { return u(uint64(t.ID)) })),
		// A tag cut after its TCI has no EtherType (Parser.Dot1QPartial).
		entryField(&Field{Short: "etype", Hex: true}, n, func(f *Frame, i int) (Value, bool) {
			if f.P.Dot1QPartial && i == vlanEntries(f)-1 {
				return Value{}, false
			}
			return u(uint64(f.P.Dot1Q.Tags[i].Type)), true
		}),
	}
}

// vlanEntries is the number of VLAN tags of the frame, the entries of
// vlan.
func vlanEntries(f *Frame) int {
	if !f.P.Has(glayers.LayerTypeDot1Q) {
		return 0
	}
	return min(f.P.Dot1Q.NTags, len(f.P.Dot1Q.Tags))
}

// entryField makes fd a field of a protocol of entries (one per header
// or tag, entries), whose value in entry i is at(f, i), absent when ok
// is false: filters and -e take every entry's value, in order; JSON and
// the verbose tree show each entry apart, with the fields it has.
func entryField(fd *Field, entries func(f *Frame) int, at func(f *Frame, i int) (Value, bool)) *Field {
	fd.Entry, fd.at = true, at
	fd.get = func(f *Frame, dst []Value) []Value {
		for i := range entries(f) {
			if v, ok := at(f, i); ok {
				dst = append(dst, v)
			}
		}
		return dst
	}
	return fd
}

// ipv6ExtChain returns the IPv6 extension headers the frame's chain holds
// whole, in wire order (none without a chain). A chain that failed was
// walked when it was given octets: its N headers before the fault are
// whole.
func ipv6ExtChain(p *layers.Parser) []layers.IPv6ExtHeader {
	if !p.Has(layers.LayerTypeIPv6Ext) && (p.Failed != layers.LayerTypeIPv6Ext || p.FailedLen == 0) {
		return nil
	}
	return p.IPv6Ext.Headers[:min(p.IPv6Ext.N, len(p.IPv6Ext.Headers))]
}

// ipv6ExtHeader returns the first IPv6 extension header of code typ that
// the frame's chain holds whole (ipv6ExtChain), or nil.
func ipv6ExtHeader(p *layers.Parser, typ uint8) *layers.IPv6ExtHeader {
	hs := ipv6ExtChain(p)
	for i := range hs {
		if hs[i].Type == typ {
			return &hs[i]
		}
	}
	return nil
}

var hasIPv4AH, hasIPv4ESP = has(glayers.LayerTypeIPSecAH), has(glayers.LayerTypeIPSecESP)

// hasAH is the ah protocol's present function: an IPv4 AH (layers.IPSecAH,
// decoded or cut), or an AH among the IPv6 extension headers, as
// Wireshark's ah is either.
func hasAH(f *Frame) bool { return hasIPv4AH(f) || ipv6ExtHeader(f.P, layers.IPv6AH) != nil }

// hasESP is esp's: an IPv4 (or AH's) ESP header, or one ending the IPv6
// extension headers.
func hasESP(f *Frame) bool { return hasIPv4ESP(f) || ipv6ExtHeader(f.P, layers.IPv6ESP) != nil }

// ahFields are the AH's (RFC 4302), by Wireshark's names: the next header,
// the length field as on the wire (4-octet units, less 2), the SPI, the
// sequence number and the ICV. An IPv4 AH's, else the first AH of the
// IPv6 extension headers (ipv6ext.ah_spi and ipv6ext.ah_seq name its SPI
// and sequence number too).
func ahFields() []*Field {
	// get returns the IPv4 AH's value, else the IPv6 one's (ok false:
	// none).
	get := func(v4 func(a *layers.IPSecAH) (Value, bool), v6 func(p *layers.Parser, h *layers.IPv6ExtHeader) (Value, bool)) func(f *Frame, dst []Value) []Value {
		return func(f *Frame, dst []Value) []Value {
			var v Value
			ok := false
			if hasIPv4AH(f) {
				v, ok = v4(&f.P.AH)
			} else if h := ipv6ExtHeader(f.P, layers.IPv6AH); h != nil {
				v, ok = v6(f.P, h)
			}
			if ok {
				dst = append(dst, v)
			}
			return dst
		}
	}
	return []*Field{
		{Short: "next_header", get: get(func(a *layers.IPSecAH) (Value, bool) { return u(uint64(a.NextHeader)), true },
			func(_ *layers.Parser, h *layers.IPv6ExtHeader) (Value, bool) { return u(uint64(h.NextHeader)), true })},
		{Short: "length", get: get(func(a *layers.IPSecAH) (Value, bool) { return u(uint64(a.HeaderLength)), true },
			func(_ *layers.Parser, h *layers.IPv6ExtHeader) (Value, bool) { return u(uint64(h.Length/4 - 2)), true })},
		{Short: "spi", Hex: true, get: get(func(a *layers.IPSecAH) (Value, bool) { return u(uint64(a.SPI)), true },
			func(_ *layers.Parser, h *layers.IPv6ExtHeader) (Value, bool) { return u(uint64(h.SPI)), true })},
		{Short: "sequence", get: get(func(a *layers.IPSecAH) (Value, bool) { return u(uint64(a.Seq)), true },
			func(_ *layers.Parser, h *layers.IPv6ExtHeader) (Value, bool) { return u(uint64(h.Seq)), true })},
		// The ICV: absent when the header is not whole (an IPv6 chain's
		// octets are known when it decoded to its end).
		{Short: "icv", Kind: KindBytes, get: get(func(a *layers.IPSecAH) (Value, bool) {
			return bytesV(a.AuthenticationData), a.ActualLength >= 12 && len(a.AuthenticationData) == a.ActualLength-12
		}, func(p *layers.Parser, h *layers.IPv6ExtHeader) (Value, bool) {
			c := p.IPv6Ext.Contents
			if !p.Has(layers.LayerTypeIPv6Ext) || h.Length < 12 || h.Offset+h.Length > len(c) {
				return Value{}, false
			}
			return bytesV(c[h.Offset+12 : h.Offset+h.Length]), true
		})},
	}
}

// espFields are the ESP header's (RFC 4303), by Wireshark's names: the
// SPI and the sequence number (what follows is encrypted).
func espFields() []*Field {
	get := func(v4 func(e *layers.IPSecESP) (Value, bool), v6 func(h *layers.IPv6ExtHeader) Value) func(f *Frame, dst []Value) []Value {
		return func(f *Frame, dst []Value) []Value {
			if hasIPv4ESP(f) {
				if v, ok := v4(&f.P.ESP); ok {
					dst = append(dst, v)
				}
				return dst
			}
			if h := ipv6ExtHeader(f.P, layers.IPv6ESP); h != nil {
				dst = append(dst, v6(h))
			}
			return dst
		}
	}
	return []*Field{
		{Short: "spi", Hex: true, get: get(func(e *layers.IPSecESP) (Value, bool) { return u(uint64(e.SPI)), true },
			func(h *layers.IPv6ExtHeader) Value { return u(uint64(h.SPI)) })},
		{Short: "sequence", get: get(func(e *layers.IPSecESP) (Value, bool) { return u(uint64(e.Seq)), true },
			func(h *layers.IPv6ExtHeader) Value { return u(uint64(h.Seq)) })},
	}
}

func cimSFC(p *layers.Parser) bool { return p.CIM.HasSFC }

func origin(o layers.Origin) Value { return Value{Kind: KindString, S: o.String(), U: uint64(o)} }

func pfcFields() []*Field {
	fs := []*Field{
		{Short: "opcode", Hex: true, get: one(func(p *layers.Parser) Value { return u(uint64(p.PFC.Opcode)) })},
		{Short: "enable_vector", Hex: true, get: one(func(p *layers.Parser) Value { return u(uint64(p.PFC.EnableVector)) })},
	}
	for i := 0; i < 8; i++ {
		fs = append(fs, &Field{Short: "c" + string(rune('0'+i)), Kind: KindBool,
			get: one(func(p *layers.Parser) Value { return b(p.PFC.Enabled(i)) })})
	}
	for i := 0; i < 8; i++ {
		fs = append(fs, &Field{Short: "time_c" + string(rune('0'+i)), Quanta: true,
			get:    one(func(p *layers.Parser) Value { return u(uint64(p.PFC.Times[i])) }),
			counts: func(f *Frame) bool { return f.P.PFC.Enabled(i) }})
	}
	// The pause each class time asks for at the frame's link speed
	// (1 quantum = 512 bit times), absent when the speed is unknown, and
	// for a class whose enable bit is clear: its time does not count
	// (wire.md §2; time_cN keeps the raw field, as tshark shows it).
	for i := 0; i < 8; i++ {
		fs = append(fs, &Field{Short: "pause_ns_c" + string(rune('0'+i)), get: func(f *Frame, dst []Value) []Value {
			if f.LinkBPS == 0 || !f.P.PFC.Enabled(i) {
				return dst
			}
			return append(dst, u(QuantaNS(uint64(f.P.PFC.Times[i]), f.LinkBPS)))
		}})
	}
	return fs
}

var (
	byName  = map[string]*Field{}
	byProto = map[string]*Proto{}
	names   []string
)

func init() {
	for _, p := range Protos {
		byProto[p.Name] = p
		for _, fd := range p.Fields {
			fd.Name = p.Name + "." + fd.Short
			fd.proto = p
			byName[fd.Name] = fd
			names = append(names, fd.Name)
		}
	}
	register(FrameProto, FrameProto.Fields)
	for _, x := range extraFields {
		register(byProto[x.proto], []*Field{x.field})
	}
	sort.Strings(names)
	initFieldEnds()
	setIPEnds(ourField, false)
	initVersioned()
}

// LookupField returns the field with the given full name, ours or
// Wireshark's (WiresharkNames), as filters and -e name them: ip.* is
// Wireshark's, IPv4's alone (ip.src is absent from an IPv6 packet, whose
// source is ipv6.src). OurField gives ours.
func LookupField(name string) (*Field, bool) {
	wsReady()
	if fd, ok := wsIPFields[name]; ok {
		return fd, true
	}
	if fd, ok := wsFirstFields[name]; ok {
		return fd, true
	}
	if fd, ok := byName[name]; ok {
		return fd, true
	}
	fd, ok := wsByField[name]
	return fd, ok
}

// OurField returns our field of the given full name (FieldNames), as JSON
// and the verbose tree show it: ip.src is the source of an IPv4 or an
// IPv6 packet, where LookupField's is IPv4's; vlan.dei is every tag's,
// where LookupField's is the 802.1Q and 0x9100 tags'.
func OurField(name string) (*Field, bool) {
	fd, ok := byName[name]
	return fd, ok
}

// LookupProto returns the protocol with the given name, ours or
// Wireshark's (ipv6, ipv6.fraghdr, infiniband, macc, vlan), as filters
// name them: ip is Wireshark's, IPv4 alone (ours, in Protos, is either
// family).
func LookupProto(name string) (*Proto, bool) {
	wsReady()
	if wsIP != nil && name == wsIP.Name {
		return wsIP, true
	}
	if p, ok := wsFirstProtos[name]; ok {
		return p, true
	}
	if p, ok := byProto[name]; ok {
		return p, true
	}
	p, ok := wsByProto[name]
	return p, ok
}

// FieldNames returns every field name, sorted.
func FieldNames() []string { return append([]string(nil), names...) }
