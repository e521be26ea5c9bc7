// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"math"
	"math/bits"
	"strconv"

	glayers "github.com/gopacket/gopacket/layers"

	"github.com/opensfc/sfc/layers"
)

// FrameProto is the pseudo-protocol of a frame's capture metadata:
// frame.number, frame.interface, frame.len, frame.caplen, frame.time (the
// time of capture as a date, Field.Absolute), frame.time_epoch,
// frame.time_relative and frame.time_delta (since the frame read before;
// each absent for a frame without a timestamp),
// frame.malformed (the frame has a decode error) and frame.warnings (the
// number of warnings). Every frame holds it. It is not in Protos: JSON
// writes the metadata as its own "frame" object, and the verbose tree shows
// it on the summary line; filters and -e name its fields like any other.
var FrameProto = &Proto{Name: "frame", present: func(*Frame) bool { return true }, Fields: []*Field{
	{Short: "number", get: func(f *Frame, dst []Value) []Value { return append(dst, u(uint64(f.Number))) }},
	{Short: "interface", get: func(f *Frame, dst []Value) []Value { return append(dst, u(uint64(f.Interface))) }},
	{Short: "len", get: func(f *Frame, dst []Value) []Value { return append(dst, u(uint64(f.Len))) }},
	{Short: "caplen", get: func(f *Frame, dst []Value) []Value { return append(dst, u(uint64(f.CapLen))) }},
	// The time of capture, as a point in time: Wireshark's frame.time
	// (Field.Absolute); its value is frame.time_epoch's.
	{Short: "time", Kind: KindTime, Absolute: true, get: func(f *Frame, dst []Value) []Value {
		if f.Time.IsZero() {
			return dst
		}
		return append(dst, TimeValue(f.Time.Unix(), int64(f.Time.Nanosecond())))
	}},
	{Short: "time_epoch", Kind: KindTime, get: func(f *Frame, dst []Value) []Value {
		if f.Time.IsZero() {
			return dst // no timestamp: absent, as tshark leaves it empty
		}
		return append(dst, TimeValue(f.Time.Unix(), int64(f.Time.Nanosecond())))
	}},
	{Short: "time_relative", Kind: KindTime, get: func(f *Frame, dst []Value) []Value {
		if f.Time.IsZero() || f.Start.IsZero() {
			return dst
		}
		return append(dst, timeSince(f.Time, f.Start))
	}},
	{Short: "time_delta", Kind: KindTime, get: func(f *Frame, dst []Value) []Value {
		if f.Time.IsZero() {
			return dst
		}
		if f.Prev.IsZero() { // the first frame: 0, as tshark
			return append(dst, Value{Kind: KindTime})
		}
		return append(dst, timeSince(f.Time, f.Prev))
	}},
	{Short: "interface_name", Kind: KindString, get: func(f *Frame, dst []Value) []Value {
		if f.IfName == "" {
			return dst
		}
		return append(dst, Value{Kind: KindString, S: f.IfName})
	}},
	{Short: "comment", Kind: KindString, get: func(f *Frame, dst []Value) []Value {
		for _, c := range f.Comments {
			dst = append(dst, Value{Kind: KindString, S: c}) // escaped by AppendValue
		}
		return dst
	}},
	{Short: "malformed", Kind: KindBool, get: func(f *Frame, dst []Value) []Value { return append(dst, b(f.Err != nil)) }},
	{Short: "warnings", get: func(f *Frame, dst []Value) []Value { return append(dst, u(uint64(countWarnings(f)))) }},
}}

// extraFields are fields outside wire.md's table, kept out of their
// protocol's Fields (so JSON, the verbose tree and the Wireshark
// dissectors' field list stay exactly wire.md's) but known to LookupField,
// for filters (`bts.quote contains 12:b7`) and -T fields.
var extraFields = []struct {
	proto string
	field *Field
}{
	{"bts", &Field{Short: "quote", Kind: KindBytes, get: one(func(p *layers.Parser) Value { return bytesV(p.BTS.Quote) })}},
	{"postcard", &Field{Short: "quote", Kind: KindBytes, get: one(func(p *layers.Parser) Value { return bytesV(p.Postcard.Quote) })}},
	{"cim", &Field{Short: "msdu", Kind: KindBytes, get: one(func(p *layers.Parser) Value { return bytesV(p.CIM.MSDU) })}},
	{"bth", &Field{Short: "payload", Kind: KindBytes, get: one(func(p *layers.Parser) Value { return bytesV(p.BTH.Payload) })}},
	{"udp", &Field{Short: "payload", Kind: KindBytes, get: one(func(p *layers.Parser) Value { return bytesV(p.UDP.Payload) })}},
	// Every VLAN tag's, outer first (QinQ has two).
	{"eth", &Field{Short: "vlan", get: vlanTags(false, func(t *layers.VLANTag) Value { return u(uint64(t.ID)) })}},
	{"eth", &Field{Short: "pcp", get: vlanTags(false, func(t *layers.VLANTag) Value { return u(uint64(t.Priority)) })}},
}

// ExtraFields returns the names of the fields known to filters and -T
// fields that JSON and the verbose tree leave out (frame metadata, raw
// bytes, the VLAN tag), sorted as they are registered.
func ExtraFields() []*Field {
	out := append([]*Field(nil), FrameProto.Fields...)
	for _, x := range extraFields {
		out = append(out, x.field)
	}
	return out
}

func bytesV(b []byte) Value { return Value{Kind: KindBytes, B: b} }

// register names fields of p and adds them to the lookup tables.
func register(p *Proto, fs []*Field) {
	byProto[p.Name] = p
	for _, fd := range fs {
		fd.Name = p.Name + "." + fd.Short
		fd.proto = p
		byName[fd.Name] = fd
		names = append(names, fd.Name)
	}
}

// warnText holds the text of each single warning bit, computed once so
// that rendering warnings does not allocate.
var warnText [16]string

func init() {
	for i := range warnText {
		warnText[i] = layers.Warnings(1 << i).String()
	}
}

// snappedPad is WarnTruncatedPad when a MAC Control body (contents and
// padding as captured) is short only because the capture kept less of the
// frame than went on the wire, which had its 46 octets: the frame is not
// short, its capture is (and says so); 0 otherwise.
func snappedPad(f *Frame, contents, padding []byte) layers.Warnings {
	if f.CapLen < f.Len && f.Len-f.CapLen+len(contents)+len(padding) >= 46 {
		return layers.WarnTruncatedPad
	}
	return 0
}

// layerWarnings returns the protocol name and warnings of decoded layer i
// of f's parser ("" when the layer carries none).
func layerWarnings(f *Frame, i int) (string, layers.Warnings) {
	p := f.P
	switch p.Decoded[i] {
	case layers.LayerTypePause:
		return "pause", p.Pause.Warnings &^ snappedPad(f, p.Pause.Contents, p.Pause.Padding)
	case layers.LayerTypePFC:
		return "pfc", p.PFC.Warnings &^ snappedPad(f, p.PFC.Contents, p.PFC.Padding)
	case layers.LayerTypeBTH:
		if f.CapLen < f.Len {
			// Snapped: the ICRC was not captured, the octets read as one
			// are the payload's.
			return "bth", p.BTH.Warnings &^ layers.WarnICRC
		}
		return "bth", p.BTH.Warnings
	case layers.LayerTypeCIM:
		return "cim", p.CIM.Warnings
	case layers.LayerTypeBTS:
		return "bts", p.BTS.Warnings
	case layers.LayerTypePostcard:
		return "postcard", p.Postcard.Warnings
	case layers.LayerTypeBFC:
		return "bfc", p.BFC.Warnings
	case layers.LayerTypeFGCredit:
		return "fgcredit", p.FGCredit.Warnings
	case layers.LayerTypeFGPause:
		return "fgpause", p.FGPause.Warnings
	case layers.LayerTypeIPv6Ext:
		return "ipv6ext", p.IPv6Ext.Warnings
	case glayers.LayerTypeIPSecESP:
		return "esp", p.ESP.Warnings
	case glayers.LayerTypeIPv4:
		w := p.IPv4.Warnings
		if lengthLies(f, decIPv4) {
			w |= layers.WarnLength
		}
		return "ip", w
	case glayers.LayerTypeIPv6:
		if lengthLies(f, decIPv6) {
			return "ipv6", layers.WarnLength
		}
	case glayers.LayerTypeUDP:
		if lengthLies(f, decUDP) {
			return "udp", layers.WarnLength
		}
	}
	return "", 0
}

// lengthLies reports whether the length field of f's IPv4, IPv6 or UDP
// header (bit says which) counts more octets than the whole frame holds
// after it (layers.WarnLength); a frame the capture cut short is not
// judged, its capture explains the shortfall.
func lengthLies(f *Frame, bit uint32) bool {
	if f.CapLen < f.Len {
		return false
	}
	p := f.P
	switch bit {
	case decIPv4:
		return !p.IPv4.Partial && int(p.IPv4.Length) > len(p.IPv4.Contents)+len(p.IPv4.Payload)
	case decIPv6:
		return !p.IPv6.Partial && p.IPv6.Length > 0 && int(p.IPv6.Length) > len(p.IPv6.Payload)
	case decUDP:
		return !p.UDP.Partial && int(p.UDP.Length) > len(p.UDP.Contents)+len(p.UDP.Payload)
	}
	return false
}

// lengthWarnings counts lengthLies over the IP and UDP headers f holds
// (has: its decoded layers, present.go's bits).
func lengthWarnings(f *Frame, has uint32) int {
	// lengthLies for each, written out: a loop over the three bits cost
	// more than the tests (4% of sfcdump read).
	if has&(decIPv4|decIPv6|decUDP) == 0 || f.CapLen < f.Len {
		return 0
	}
	p := f.P
	n := 0
	if has&decIPv4 != 0 && !p.IPv4.Partial && int(p.IPv4.Length) > len(p.IPv4.Contents)+len(p.IPv4.Payload) {
		n++
	}
	if has&decIPv6 != 0 && !p.IPv6.Partial && p.IPv6.Length > 0 && int(p.IPv6.Length) > len(p.IPv6.Payload) {
		n++
	}
	if has&decUDP != 0 && !p.UDP.Partial && int(p.UDP.Length) > len(p.UDP.Contents)+len(p.UDP.Payload) {
		n++
	}
	return n
}

// AppendWarnings appends each warning of f as "proto: text", each preceded
// by pre and followed by post, without allocating. A frame whose captured
// length exceeds its original length (a broken capture record, which the
// reader passes on rather than stop) has the warning "frame: captured
// length C exceeds original length L" first.
func AppendWarnings(dst []byte, f *Frame, pre, post string) []byte {
	if f.CapLen > f.Len {
		dst = append(dst, pre...)
		dst = append(dst, "frame: captured length "...)
		dst = strconv.AppendInt(dst, int64(f.CapLen), 10)
		dst = append(dst, " exceeds original length "...)
		dst = strconv.AppendInt(dst, int64(f.Len), 10)
		dst = append(dst, post...)
	}
	for i := range f.P.Decoded {
		proto, w := layerWarnings(f, i)
		for bit := 0; w != 0; bit++ {
			if w&1 != 0 {
				dst = append(dst, pre...)
				dst = appendWarning(dst, f, i, proto, bit)
				dst = append(dst, post...)
			}
			w >>= 1
		}
	}
	return dst
}

// appendWarning appends warning bit of decoded layer i of f, whose
// protocol is proto, as "proto: text". A malformed option
// (layers.WarnOption) names the option and its offset.
func appendWarning(dst []byte, f *Frame, i int, proto string, bit int) []byte {
	dst = append(dst, proto...)
	dst = append(dst, ": "...)
	if layers.Warnings(1<<bit) == layers.WarnOption {
		var o *layers.OptionFault
		switch f.P.Decoded[i] {
		case glayers.LayerTypeIPv4:
			o = &f.P.IPv4.Option
		case layers.LayerTypeIPv6Ext:
			o = &f.P.IPv6Ext.Option
		}
		if o != nil {
			dst = append(dst, "malformed "...)
			return o.AppendText(dst)
		}
	}
	return append(dst, warnText[bit]...)
}

// QuantaNS returns the duration of quanta pause quanta at a link of bps
// bit/s, in nanoseconds (1 quantum = 512 bit times); 0 when bps is 0.
func QuantaNS(quanta uint64, bps uint64) uint64 {
	if bps == 0 {
		return 0
	}
	// In 128 bits: a sum of quanta (stats adds a storm's up) times
	// 512 × 10^9 passes 2^64 after about 550 frames of 0xFFFF.
	hi, lo := bits.Mul64(quanta, 512*1e9)
	if hi >= bps {
		return math.MaxUint64
	}
	ns, _ := bits.Div64(hi, lo, bps)
	return ns
}

// vlanTags is the getter of a VLAN tag field: v of each tag of the frame,
// outer first, or, when ws is set, of the tags Wireshark decodes as vlan
// (wsVLAN).
func vlanTags(ws bool, v func(t *layers.VLANTag) Value) func(f *Frame, dst []Value) []Value {
	return func(f *Frame, dst []Value) []Value {
		p := f.P
		if !p.Has(glayers.LayerTypeDot1Q) {
			return dst
		}
		for i := range min(p.Dot1Q.NTags, len(p.Dot1Q.Tags)) {
			if t := &p.Dot1Q.Tags[i]; !ws || wsVLAN(t.TPID) {
				dst = append(dst, v(t))
			}
		}
		return dst
	}
}

// vlanEtype is the getter of vlan.etype: the EtherType after each tag
// Wireshark decodes as vlan (wsVLAN), outer first, when it is one (over
// 1500: tshark calls 1500 or less vlan.len, an 802.3 length).
func vlanEtype(f *Frame, dst []Value) []Value {
	p := f.P
	if !p.Has(glayers.LayerTypeDot1Q) {
		return dst
	}
	n := min(p.Dot1Q.NTags, len(p.Dot1Q.Tags))
	if p.Dot1QPartial {
		n-- // the last tag was cut before its EtherType
	}
	for i := range n {
		if t := &p.Dot1Q.Tags[i]; wsVLAN(t.TPID) && t.Type > 1500 {
			dst = append(dst, u(uint64(t.Type)))
		}
	}
	return dst
}

// wsVLAN reports whether Wireshark 4.0 decodes a tag of TPID tpid as vlan
// (vlan.id, vlan.priority, count(vlan)): an 802.1Q tag (0x8100) or a tag
// of the pre-802.1ad QinQ TPID 0x9100 (its vlan.qinq_ethertype
// preference, 0x9100 by default). An 802.1ad S-tag (0x88A8) is its
// ieee8021ad.
func wsVLAN(tpid glayers.EthernetType) bool {
	return tpid == glayers.EthernetTypeDot1Q || tpid == layers.EthernetTypeQinQ9100
}
