// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"encoding/hex"
	"math/bits"
	"strconv"

	"github.com/opensfc/sfc/layers"
)

// AppendValue appends v's text form: decimal numbers (hex when hex is set),
// true/false, addresses in standard notation, the origin's name.
func AppendValue(dst []byte, v Value, hexNum bool) []byte {
	switch v.Kind {
	case KindUint:
		if hexNum {
			dst = append(dst, "0x"...)
			return strconv.AppendUint(dst, v.U, 16)
		}
		return strconv.AppendUint(dst, v.U, 10)
	case KindBool:
		return strconv.AppendBool(dst, v.U != 0)
	case KindIP:
		return v.A.AppendTo(dst)
	case KindMAC:
		for i, c := range v.B {
			if i > 0 {
				dst = append(dst, ':')
			}
			dst = append(dst, hexDigits[c>>4], hexDigits[c&15])
		}
		return dst
	case KindString:
		// A string from the capture (a comment, an interface's name or
		// description) is held as the capture has it, so that filters
		// test its own octets, as tshark's do, and made safe for a
		// terminal here, where every output writes it.
		return AppendEscaped(dst, v.S)
	case KindBytes:
		for i, c := range v.B {
			if i > 0 {
				dst = append(dst, ':')
			}
			dst = append(dst, hexDigits[c>>4], hexDigits[c&15])
		}
		return dst
	case KindTime:
		return appendTime(dst, v)
	}
	return dst
}

// appendTime appends a KindTime value as seconds with 9 decimals.
func appendTime(dst []byte, v Value) []byte {
	sec, ns := int64(v.U), int64(v.N)
	if sec < 0 {
		dst = append(dst, '-')
		// −(sec + ns/1e9) = (−sec−1) + (1e9−ns)/1e9, in uint64: −MinInt64
		// does not fit an int64.
		whole := uint64(-(sec + 1))
		if ns == 0 {
			whole++
		} else {
			ns = 1e9 - ns
		}
		dst = strconv.AppendUint(dst, whole, 10)
	} else {
		dst = strconv.AppendInt(dst, sec, 10)
	}
	dst = append(dst, '.')
	return AppendNanos9(dst, ns)
}

// AppendNanos9 appends frac (0 <= frac < 10^9) as 9 decimal digits, three
// at a time from a table: dividing by a variable power of ten per digit,
// as before, took 8% of sfcdump read.
func AppendNanos9(dst []byte, frac int64) []byte {
	f := uint64(frac)
	a, b, c := &digits3[f/1e6%1000], &digits3[f/1e3%1000], &digits3[f%1000]
	return append(dst, a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2])
}

// AppendUint appends v in decimal, as strconv.AppendUint(dst, v, 10) does,
// three digits at a time from a table and without strconv's copy from a
// scratch buffer for the common short numbers (the one-line output writes
// four to eight numbers a frame).
func AppendUint(dst []byte, v uint64) []byte {
	if v < 1000 {
		d := &digits3[v]
		switch {
		case v >= 100:
			return append(dst, d[0], d[1], d[2])
		case v >= 10:
			return append(dst, d[1], d[2])
		}
		return append(dst, d[2])
	}
	if v < 1e6 {
		hi, lo := v/1000, &digits3[v%1000]
		d := &digits3[hi]
		switch {
		case hi >= 100:
			return append(dst, d[0], d[1], d[2], lo[0], lo[1], lo[2])
		case hi >= 10:
			return append(dst, d[1], d[2], lo[0], lo[1], lo[2])
		}
		return append(dst, d[2], lo[0], lo[1], lo[2])
	}
	if v < 1e12 {
		// Frame numbers, ICRCs, PSNs: the leading group and two or three
		// groups of three in one append each, without the loop below.
		var r uint64
		lead := v
		if v < 1e9 {
			lead = v / 1e6
			r = v - lead*1e6
		} else {
			lead = v / 1e9
			r = v - lead*1e9
		}
		dst = append3(dst, lead)
		if v < 1e9 {
			m := r / 1000
			a, b := &digits3[m], &digits3[r-m*1000]
			return append(dst, a[0], a[1], a[2], b[0], b[1], b[2])
		}
		return AppendNanos9(dst, int64(r))
	}
	// 13 to 20 digits (RETH virtual addresses): what is above the last
	// nine digits (at most 11 digits: the path above), then the nine.
	q := v / 1e9
	dst = AppendUint(dst, q)
	return AppendNanos9(dst, int64(v-q*1e9))
}

// digits3[n] is n in three decimal digits, with leading zeros.
var digits3 = func() (t [1000][3]byte) {
	for i := range t {
		t[i] = [3]byte{byte('0' + i/100), byte('0' + i/10%10), byte('0' + i%10)}
	}
	return t
}()

// appendIPv4 appends a 4-octet address in dotted decimal, as netip does.
func appendIPv4(dst []byte, a []byte) []byte {
	for i, v := range a[:4] {
		if i > 0 {
			dst = append(dst, '.')
		}
		dst = append3(dst, uint64(v))
	}
	return dst
}

// append3 appends v < 1000 in decimal, without leading zeros.
func append3(dst []byte, v uint64) []byte {
	d := &digits3[v]
	switch {
	case v >= 100:
		return append(dst, d[0], d[1], d[2])
	case v >= 10:
		return append(dst, d[1], d[2])
	}
	return append(dst, d[2])
}

const hexDigits = "0123456789abcdef"

// appendInt appends v in decimal.
func appendInt(dst []byte, v int) []byte {
	if v < 0 {
		return strconv.AppendInt(dst, int64(v), 10)
	}
	return AppendUint(dst, uint64(v))
}

func appendJSONValue(dst []byte, v Value) []byte {
	switch v.Kind {
	case KindUint:
		return AppendUint(dst, v.U)
	case KindBool:
		return appendBool(dst, v.U != 0)
	case KindTime:
		return appendTime(dst, v)
	case KindString:
		return appendJSONText(dst, v.S)
	}
	dst = append(dst, '"')
	dst = AppendValue(dst, v, false)
	return append(dst, '"')
}

// appendJSONText appends, as a JSON string, the text AppendEscaped makes
// of s: what a terminal is shown of a string from the capture, with its
// quotes and backslashes escaped for JSON, so that the line stays valid
// JSON and decodes to that same safe text ("port\x1b[2J" for an
// interface name holding ESC [2J).
func appendJSONText(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := len(dst)
	dst = AppendEscaped(dst, s)
	n := 0
	for _, c := range dst[start:] {
		if c == '"' || c == '\\' {
			n++
		}
	}
	if n > 0 {
		end := len(dst)
		dst = append(dst, make([]byte, n)...)
		j := len(dst) - 1
		for i := end - 1; i >= start; i-- {
			c := dst[i]
			dst[j] = c
			j--
			if c == '"' || c == '\\' {
				dst[j] = '\\'
				j--
			}
		}
	}
	return append(dst, '"')
}

// AppendJSONString appends s as a JSON string.
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c < 0x20:
			dst = append(dst, `\u00`...)
			dst = append(dst, hexDigits[c>>4], hexDigits[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

// Encoder renders frames. It keeps scratch space between frames, so one
// Encoder serves a whole capture without allocating per frame; it is not
// safe for concurrent use.
type Encoder struct {
	vals []Value
	ents [][]Value
	// the JSON time's date and clock to the second ("2006-01-02T15:04:05")
	// of the last frame, whose second was sec: frames come many a second.
	sec    int64
	secLen int
	secBuf [24]byte
	// hdrs keeps the JSON of the Ethernet, IPv4 and UDP headers of recent
	// flows (appendHdrs).
	hdrs [hdrMemoSize]hdrMemoEntry
	// addrs keeps the summary's address column of recent address pairs
	// (appendAddrsMemo).
	addrs addrMemo
}

// AppendJSON appends f as one JSON object (no newline): {"frame": {number,
// time (null when the frame has none), interface[, interface_name], len,
// caplen[, comments][, truncated]}, "<protocol>": {fields}, ...,
// "warnings": [...], "errors": [...]}, protocols in wire order. A frame cut
// short has "truncated": the offset of the first missing octet (CutOf),
// and the fields the cut took are null.
func (e *Encoder) AppendJSON(dst []byte, f *Frame) []byte {
	dst = append(dst, `{"frame":{"number":`...)
	dst = appendInt(dst, f.Number)
	if f.Time.IsZero() {
		dst = append(dst, `,"time":null,"interface":`...)
	} else {
		dst = append(dst, `,"time":"`...)
		dst = e.appendTime(dst, f.Time)
		dst = append(dst, `","interface":`...)
	}
	dst = appendInt(dst, f.Interface)
	if f.IfName != "" {
		dst = append(dst, `,"interface_name":`...)
		dst = appendJSONValue(dst, Value{Kind: KindString, S: f.IfName})
	}
	dst = append(dst, `,"len":`...)
	dst = appendInt(dst, f.Len)
	dst = append(dst, `,"caplen":`...)
	dst = appendInt(dst, f.CapLen)
	if len(f.Comments) > 0 {
		dst = append(dst, `,"comments":[`...)
		for i, c := range f.Comments {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONValue(dst, Value{Kind: KindString, S: c})
		}
		dst = append(dst, ']')
	}
	var c Cut
	cut := false
	if f.Err != nil || f.CapLen < f.Len {
		if c, cut = CutOf(f); cut && c.Truncated() {
			dst = append(dst, `,"truncated":`...)
			dst = strconv.AppendInt(dst, int64(c.At), 10)
		}
	}
	dst = append(dst, '}')
	// The protocols the frame holds, in Protos order: the set bits.
	in := PresenceOf(f)
	if hdrMemoOK && in&hdrMemoLow == hdrMemoBits && !cut && f.Err == nil {
		var ok bool
		if dst, ok = e.appendHdrs(dst, f); ok {
			in &^= hdrMemoBits
		}
	}
	for ; in != 0; in &= in - 1 {
		i := bits.TrailingZeros64(uint64(in))
		p := Protos[i]
		dst = append(dst, jsonOpen[i]...)
		if fast := jsonFastOf[i]; fast != nil && !cut && f.Err == nil {
			var ok bool
			if dst, ok = fast(dst, f); ok {
				dst = append(dst, '}')
				continue
			}
		}
		first := true
		nEnt := 0
		for _, fd := range p.Fields {
			if cut && fd.cutOff(&c) || f.Err != nil && !fd.Entry && fd.versionOff(f) {
				// Cut off, or past a version the layer does not know:
				// null, where an absent optional field is left out.
				dst = append(appendJSONKey(dst, &first, fd.Short), "null"...)
				continue
			}
			if fd.Entry && p.entries != nil {
				continue // written entry by entry below (appendEntryRows)
			}
			e.vals = fd.get(f, e.vals[:0])
			if fd.Entry {
				e.collectEntry(nEnt, e.vals)
				nEnt++
				continue
			}
			if len(e.vals) == 0 {
				continue
			}
			dst = appendJSONValue(appendJSONKey(dst, &first, fd.Short), e.vals[0])
		}
		if p.entries != nil {
			if !first {
				dst = append(dst, ',')
			}
			dst = appendEntryRows(dst, f, p)
		} else if nEnt > 0 {
			if !first {
				dst = append(dst, ',')
			}
			if f.Err != nil && p.Fields[len(p.Fields)-1].versionOff(f) {
				dst = append(dst, `"entries":null`...) // an unknown version: not decoded
			} else {
				dst = e.appendEntries(dst, p, nEnt)
			}
		}
		dst = append(dst, '}')
	}
	if _, n := summaryWarnings(f); n > 0 { // countWarnings' sign, in one pass
		// Warning texts and protocol names hold nothing JSON must escape.
		dst = append(dst, `,"warnings":[`...)
		start := len(dst)
		dst = AppendWarnings(dst, f, `"`, `",`)
		if len(dst) > start {
			dst = dst[:len(dst)-1]
		}
		dst = append(dst, ']')
	}
	if f.Err != nil {
		dst = append(dst, `,"errors":[`...)
		dst = AppendJSONString(dst, errorText(f))
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendJSONKey appends the key of a JSON member, "key":, after a comma
// unless it is the object's first (*first, then cleared).
func appendJSONKey(dst []byte, first *bool, key string) []byte {
	if !*first {
		dst = append(dst, ',')
	}
	*first = false
	dst = append(dst, '"')
	dst = append(dst, key...)
	return append(dst, '"', ':')
}

// appendEntryRows appends "entries":[...] of a protocol with entries
// (Proto.entries): an object per entry, in order, with the fields that
// entry has (an absent one is left out, as an absent optional field is).
func appendEntryRows(dst []byte, f *Frame, p *Proto) []byte {
	dst = append(dst, `"entries":[`...)
	for i := range p.entries(f) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '{')
		first := true
		for _, fd := range p.Fields {
			if fd.at == nil {
				continue
			}
			v, ok := fd.at(f, i)
			if !ok {
				continue
			}
			dst = appendJSONValue(appendJSONKey(dst, &first, fd.Short), v)
		}
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

func (e *Encoder) collectEntry(i int, vals []Value) {
	for len(e.ents) <= i {
		e.ents = append(e.ents, nil)
	}
	e.ents[i] = append(e.ents[i][:0], vals...)
}

func (e *Encoder) appendEntries(dst []byte, p *Proto, n int) []byte {
	dst = append(dst, `"entries":[`...)
	rows := len(e.ents[0])
	for r := 0; r < rows; r++ {
		if r > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '{')
		c, first := 0, true
		for _, fd := range p.Fields {
			if !fd.Entry {
				continue
			}
			dst = appendJSONKey(dst, &first, fd.Short)
			if r < len(e.ents[c]) {
				dst = appendJSONValue(dst, e.ents[c][r])
			} else {
				dst = append(dst, "null"...)
			}
			c++
		}
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// FrameWarnings returns the warnings of every layer of f, each prefixed with
// its protocol, or nil. It allocates; AppendWarnings does not.
func FrameWarnings(f *Frame) []string {
	var out []string
	if f.CapLen > f.Len {
		out = append(out, string(AppendWarnings(nil, &Frame{CapLen: f.CapLen, Len: f.Len, P: emptyParser}, "", "")))
	}
	for i := range f.P.Decoded {
		proto, w := layerWarnings(f, i)
		for bit := 0; w != 0; bit++ {
			if w&1 != 0 {
				out = append(out, string(appendWarning(nil, f, i, proto, bit)))
			}
			w >>= 1
		}
	}
	return out
}

// AppendFields appends the values of fields, tab-separated, as tshark's
// -T fields does: several values of one field are joined by commas, a
// missing field is empty.
func (e *Encoder) AppendFields(dst []byte, f *Frame, fields []*Field) []byte {
	for i, fd := range fields {
		if i > 0 {
			dst = append(dst, '\t')
		}
		dst = e.AppendField(dst, f, fd)
	}
	return dst
}

// AppendField appends the values of one field as AppendFields does.
func (e *Encoder) AppendField(dst []byte, f *Frame, fd *Field) []byte {
	e.vals = fd.Values(f, e.vals[:0])
	for j, v := range e.vals {
		if j > 0 {
			dst = append(dst, ',')
		}
		dst = AppendValue(dst, v, false)
	}
	return dst
}

// AppendHex appends a hex dump of data in the style of tcpdump -x.
func AppendHex(dst []byte, data []byte) []byte {
	var line [16]byte
	for off := 0; off < len(data); off += 16 {
		n := copy(line[:], data[off:])
		dst = append(dst, "\t0x"...)
		dst = append(dst, hexDigits[off>>12&15], hexDigits[off>>8&15], hexDigits[off>>4&15], hexDigits[off&15])
		dst = append(dst, ':')
		for i := 0; i < n; i++ {
			if i%2 == 0 {
				dst = append(dst, ' ')
			}
			dst = hex.AppendEncode(dst, line[i:i+1])
		}
		dst = append(dst, '\n')
	}
	return dst
}

// emptyParser decodes nothing: FrameWarnings renders the frame warning
// alone through it.
var emptyParser = &layers.Parser{}
