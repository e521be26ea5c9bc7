// SPDX-License-Identifier: Apache-2.0

package filter

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math"
	"net/netip"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/opensfc/sfc/dissect"
)

// SyntaxError is a filter that does not compile: Msg says what is wrong
// with the token at byte offset Pos of Expr.
type SyntaxError struct {
	Expr string
	Pos  int // byte offset of the offending token, 0-based
	Msg  string
}

// Column returns the 1-based column of the offending token.
func (e *SyntaxError) Column() int { return e.Pos + 1 }

// Error renders "filter: column N: msg".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("filter: column %d: %s", e.Column(), e.Msg)
}

// Caret returns the expression and a line with a caret under the offending
// token, for terminals.
//
// For a terminal: the line of Expr the token is on, escaped
// (dissect.Escape), and the caret under the token as that escaped line
// shows it (a UTF-8 letter one cell, an escaped byte as many as its
// escape).
//
// A line longer than the terminal is cut to caretWindow octets each side
// of the token, the cuts marked "…": a 40 KB filter is not echoed whole.
func (e *SyntaxError) Caret() string {
	pos := min(max(e.Pos, 0), len(e.Expr))
	start := strings.LastIndexByte(e.Expr[:pos], '\n') + 1
	end := len(e.Expr)
	if j := strings.IndexByte(e.Expr[pos:], '\n'); j >= 0 {
		end = pos + j
	}
	pre, post := "", ""
	if pos-start > caretWindow {
		start, pre = pos-caretWindow, "…"
		for start < pos && !utf8.RuneStart(e.Expr[start]) {
			start++
		}
	}
	if end-pos > caretWindow {
		end, post = pos+caretWindow, "…"
		for end > pos && !utf8.RuneStart(e.Expr[end]) {
			end--
		}
	}
	cells := utf8.RuneCountInString(pre + dissect.Escape(e.Expr[start:pos]))
	return pre + dissect.Escape(e.Expr[start:end]) + post + "\n" + strings.Repeat(" ", cells) + "^"
}

// caretWindow is how much of a long line Caret shows each side of the
// token, in octets of the filter.
const caretWindow = 60

// Filter is a compiled display filter.
type Filter struct {
	expr string
	root *node
	// Scratch space, grown to the largest field seen: the values of the
	// left and right operands, and the octets of their slices.
	lv, rv     []dissect.Value
	lbuf, rbuf []byte
	rr         latin1
}

// latin1 reads octets as the runes U+0000 to U+00FF, so that a regular
// expression (compiled by latin1Pattern) matches octets, as Wireshark's
// PCRE2 does, rather than UTF-8.
type latin1 struct {
	b   []byte
	i   int
	buf []byte // a string's octets, copied (kept to reuse)
}

// ReadRune returns the next octet as a rune.
func (r *latin1) ReadRune() (rune, int, error) {
	if r.i >= len(r.b) {
		return 0, 0, io.EOF
	}
	c := r.b[r.i]
	r.i++
	return rune(c), 1, nil
}

// latin1Pattern rewrites the octets 0x80-0xff of a pattern as \x{hh}, so
// that "\xb7" in a filter matches the octet 0xb7 (and UTF-8 text its
// octets).
func latin1Pattern(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 {
			fmt.Fprintf(&b, `\x{%02x}`, c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// compileRegexp compiles the pattern of matches as Wireshark 4.0 does:
// case-insensitive unless the pattern says (?-i), folding ASCII letters
// only, as PCRE2 does on octets (so "\xe0" does not match the octet 0xc0,
// nor "(?-i)PORT" port).
func compileRegexp(s string) (*regexp.Regexp, error) {
	pat := latin1Pattern(s)
	folded, err := syntax.Parse(pat, syntax.Perl|syntax.FoldCase)
	if err != nil {
		return nil, err
	}
	plain, err := syntax.Parse(pat, syntax.Perl)
	if err != nil {
		return nil, err
	}
	if !asciiFold(folded, plain) {
		// The two parses differ in shape (the folding merged literals):
		// fold as Go does, which differs from PCRE2 on the letters of
		// Latin-1 only.
		return regexp.Compile("(?i)" + pat)
	}
	return regexp.Compile(folded.String())
}

// asciiFold rewrites f, the pattern parsed case-insensitive, so that where
// the folding came from the default (p, the pattern parsed without it, is
// case-sensitive there) it folds ASCII letters only: a literal keeps its
// octets 0x80-0xff as written, a class takes its ASCII part from f and the
// rest from p. It reports false when the trees differ in shape.
func asciiFold(f, p *syntax.Regexp) bool {
	if f.Op != p.Op || len(f.Sub) != len(p.Sub) || f.Op == syntax.OpLiteral && len(f.Rune) != len(p.Rune) {
		return false
	}
	for i := range f.Sub {
		if !asciiFold(f.Sub[i], p.Sub[i]) {
			return false
		}
	}
	if f.Flags&syntax.FoldCase == 0 || p.Flags&syntax.FoldCase != 0 {
		return true
	}
	switch f.Op {
	case syntax.OpLiteral:
		high := false
		for _, r := range p.Rune {
			high = high || r >= 0x80
		}
		if !high {
			return true
		}
		// One literal per rune: folded when ASCII, as written when not.
		// (f holds a folded letter in its canonical case, p as written.)
		var subs []*syntax.Regexp
		for i, r := range f.Rune {
			fl := f.Flags
			if p.Rune[i] >= 0x80 {
				r, fl = p.Rune[i], fl&^syntax.FoldCase
			}
			subs = append(subs, &syntax.Regexp{Op: syntax.OpLiteral, Flags: fl, Rune: []rune{r}})
		}
		*f = syntax.Regexp{Op: syntax.OpConcat, Flags: f.Flags, Sub: subs}
	case syntax.OpCharClass:
		var rs []rune
		add := func(lo, hi rune) {
			switch n := len(rs); {
			case lo > hi:
			case n > 0 && rs[n-1]+1 >= lo: // adjacent: one range
				rs[n-1] = max(rs[n-1], hi)
			default:
				rs = append(rs, lo, hi)
			}
		}
		for i := 0; i+1 < len(f.Rune); i += 2 {
			add(f.Rune[i], min(f.Rune[i+1], 0x7f))
		}
		for i := 0; i+1 < len(p.Rune); i += 2 {
			add(max(p.Rune[i], 0x80), p.Rune[i+1])
		}
		f.Rune = rs
	}
	return true
}

// String returns the source expression.
func (f *Filter) String() string { return f.expr }

// Fields returns the fields the filter reads, in order of appearance.
func (f *Filter) Fields() []*dissect.Field {
	var out []*dissect.Field
	var walk func(n *node)
	walk = func(n *node) {
		if n == nil {
			return
		}
		if n.lhs.field != nil {
			out = append(out, n.lhs.field)
		}
		if n.rhs != nil && n.rhs.field != nil {
			out = append(out, n.rhs.field)
		}
		walk(n.l)
		walk(n.r)
	}
	walk(f.root)
	return out
}

type nodeOp uint8

const (
	opAnd nodeOp = iota
	opOr
	opNot
	opProto // protocol present
	opTrue  // field present (and true, for booleans; non-zero, for a & mask)
	opCmp   // field op literal, or field op field
	opIn    // field in {set}
)

type cmpOp uint8

const (
	cmpEq cmpOp = iota // == eq any_eq: some value equals
	cmpNe              // != ne all_ne: present, and no value equals
	cmpLt              // <
	cmpLe              // <=
	cmpGt              // >
	cmpGe              // >=
	cmpContains
	cmpMatches // matches ~
	cmpAllEq   // === all_eq: present, and every value equals
	cmpAnyNe   // !== any_ne: some value differs
)

var cmpNames = [...]string{"==", "!=", "<", "<=", ">", ">=", "contains", "matches", "===", "!=="}

// srange is one range of a slice ([i:n], [i-j], [i], [:n], [i:]): from
// octet off (negative: from the end) for n octets (toEnd: to the end).
type srange struct {
	off, n int
	toEnd  bool
}

// operand is a field, a field's slice, a field & mask, a slice & mask, or
// a protocol's slice.
type operand struct {
	field *dissect.Field
	proto *dissect.Proto // a protocol slice (frame[12:2])
	// carried: the bare protocol of contains or matches, which searches
	// what the protocol carries too (dissect.Proto.Data), as tshark does.
	carried bool
	ranges  []srange // a slice; nil for the whole value
	// A bit mask, of the operand's kind: mask for a number, maskB for
	// octets (a slice, a byte string, a MAC address), maskA for an
	// address. As in Wireshark, octets & octets keeps the shorter length.
	mask   uint64
	maskB  []byte
	maskA  netip.Addr
	masked bool
	// written is the field's name as the filter wrote it (ours or
	// Wireshark's), for error messages.
	written string
	// fn is a function applied to the values: len() gives each value's
	// length in octets, count() the number of values (none when the
	// field is absent, as in Wireshark).
	fn fnKind
}

type fnKind uint8

const (
	fnNone fnKind = iota
	fnLen
	fnCount
)

// kind is the kind of the operand's values: a number for a function,
// bytes for a slice, else the field's (a mask keeps the kind).
func (o *operand) kind() dissect.Kind {
	switch {
	case o.fn != fnNone:
		return dissect.KindUint
	case o.ranges != nil:
		return dissect.KindBytes
	}
	return o.field.Kind
}

// name is the operand as written, for error messages.
func (o *operand) name() string {
	if o.fn != fnNone {
		return [...]string{"", "len", "count"}[o.fn] + "(" + o.written + ")"
	}
	if o.proto != nil {
		return o.proto.Name
	}
	if o.written != "" {
		return o.written
	}
	return o.field.Name
}

// lit is one literal operand: a value of the operand's kind, an address
// prefix, a range of a set (a..b), a named value or a regular expression.
type lit struct {
	val     dissect.Value
	hi      dissect.Value // the upper bound of a range
	isRange bool
	prefix  netip.Prefix
	isPfx   bool
	byName  bool   // a KindString operand given by name: compare S, not U
	str     string // val.B as a string, for contains on named values
	re      *regexp.Regexp
	// never: a negative number for an unsigned operand (udp.dstport ==
	// -1). tshark 4.0 negates the number into a signed type it cannot
	// compare with the field, and every comparison with it is false:
	// ==, <, in and !== select nothing, != and === every frame holding
	// the field.
	never bool
}

type node struct {
	op    nodeOp
	l, r  *node
	proto *dissect.Proto
	lhs   operand
	cmp   cmpOp
	lit   lit
	set   []lit
	rhs   *operand // a field on the right of a comparison
	// present makes a bare field test presence even for a boolean, as in
	// Wireshark (the field was named by its Wireshark name).
	present bool
	// quant is Wireshark's field quantifier: any (some value satisfies
	// the comparison) or all (every value does), overriding the
	// comparison's own (!= is all_ne, ~= any_ne).
	quant quantKind
}

type quantKind uint8

const (
	quantNone quantKind = iota
	quantAny
	quantAll
)

// Match reports whether frame f passes the filter. It does not allocate
// once its scratch space has grown to the largest field seen.
func (f *Filter) Match(fr *dissect.Frame) bool { return f.eval(f.root, fr) }

func (f *Filter) eval(n *node, fr *dissect.Frame) bool {
	switch n.op {
	case opAnd:
		return f.eval(n.l, fr) && f.eval(n.r, fr)
	case opOr:
		return f.eval(n.l, fr) || f.eval(n.r, fr)
	case opNot:
		return !f.eval(n.l, fr)
	case opProto:
		return n.proto.Present(fr)
	}
	f.lv, f.lbuf = values(&n.lhs, fr, f.lv[:0], f.lbuf[:0])
	vs := f.lv
	switch n.op {
	case opTrue:
		if n.present && !n.lhs.masked || n.lhs.kind() != dissect.KindBool && !n.lhs.masked {
			return len(vs) > 0
		}
		for i := range vs {
			if nonZero(&vs[i]) {
				return true
			}
		}
		return false
	case opIn:
		for i := range vs {
			in := n.inSet(&vs[i])
			if n.quant == quantAll && !in {
				return false
			}
			if n.quant != quantAll && in {
				return true
			}
		}
		return n.quant == quantAll && len(vs) > 0
	}
	if len(vs) == 0 {
		return false
	}
	if n.rhs != nil {
		f.rv, f.rbuf = values(n.rhs, fr, f.rv[:0], f.rbuf[:0])
		if n.quant != quantNone {
			return quantPairs(n.quant, n.cmp, vs, f.rv)
		}
		return pairs(n.cmp, vs, f.rv)
	}
	if n.quant != quantNone {
		for i := range vs {
			ok := n.holds(&vs[i], &f.rr)
			if n.quant == quantAll && !ok {
				return false
			}
			if n.quant == quantAny && ok {
				return true
			}
		}
		return n.quant == quantAll
	}
	if n.lit.never {
		return n.cmp == cmpNe || n.cmp == cmpAllEq
	}
	switch n.cmp {
	case cmpNe:
		for i := range vs {
			if n.lit.eq(&vs[i]) {
				return false
			}
		}
		return true
	case cmpAllEq:
		for i := range vs {
			if !n.lit.eq(&vs[i]) {
				return false
			}
		}
		return true
	case cmpAnyNe:
		for i := range vs {
			if !n.lit.eq(&vs[i]) {
				return true
			}
		}
		return false
	}
	for i := range vs {
		if n.lit.test(n.cmp, &vs[i], &f.rr) {
			return true
		}
	}
	return false
}

// inSet reports whether v is in the node's set.
func (n *node) inSet(v *dissect.Value) bool {
	for j := range n.set {
		if n.set[j].eq(v) {
			return true
		}
	}
	return false
}

// holds reports whether one value satisfies the node's comparison with its
// literal, for a quantifier: == and === test equality, != and !== its
// negation, the others as they read.
func (n *node) holds(v *dissect.Value, rr *latin1) bool {
	switch n.cmp {
	case cmpEq, cmpAllEq:
		return n.lit.eq(v)
	case cmpNe, cmpAnyNe:
		return !n.lit.eq(v)
	}
	return n.lit.test(n.cmp, v, rr)
}

// quantPairs compares the values of two fields under a quantifier: any
// when some pair satisfies the comparison, all when every pair does.
func quantPairs(q quantKind, c cmpOp, ls, rs []dissect.Value) bool {
	if len(rs) == 0 {
		return false
	}
	for i := range ls {
		for j := range rs {
			ok := pairRel(c, &ls[i], &rs[j])
			if c == cmpNe || c == cmpAnyNe {
				ok = !ok
			}
			if q == quantAll && !ok {
				return false
			}
			if q == quantAny && ok {
				return true
			}
		}
	}
	return q == quantAll
}

// pairRel is the relation c asks of one pair of values, with the
// inequalities read as equality (the callers invert it): equal, contains,
// or the order test.
func pairRel(c cmpOp, l, r *dissect.Value) bool {
	switch c {
	case cmpEq, cmpNe, cmpAllEq, cmpAnyNe:
		return equal(l, r)
	case cmpContains:
		return bytes.Contains(l.B, r.B)
	}
	return order(c, compare(l, r))
}

// pairs compares the values of two fields as Wireshark does: == (and the
// order tests) when some pair satisfies it, != when no pair is equal, ===
// when every pair is, !== when some pair differs.
func pairs(c cmpOp, ls, rs []dissect.Value) bool {
	if len(rs) == 0 {
		return false
	}
	for i := range ls {
		for j := range rs {
			ok := pairRel(c, &ls[i], &rs[j])
			switch {
			case c == cmpNe && ok:
				return false
			case c == cmpAllEq && !ok:
				return false
			case c == cmpAnyNe && !ok:
				return true
			case c != cmpNe && c != cmpAllEq && c != cmpAnyNe && ok:
				return true
			}
		}
	}
	return c == cmpNe || c == cmpAllEq
}

// values appends the operand's values in fr to dst: sliced into buf for a
// slice (a value too short for it is left out), masked for a mask.
func values(o *operand, fr *dissect.Frame, dst []dissect.Value, buf []byte) ([]dissect.Value, []byte) {
	if o.proto != nil && o.fn == fnCount {
		return protoCount(o.proto, fr, dst), buf
	}
	if o.proto != nil {
		get := o.proto.Bytes
		if o.carried {
			get = o.proto.Data
		}
		if b, ok := get(fr); ok {
			dst = append(dst, dissect.Value{Kind: dissect.KindBytes, B: b})
		}
	} else {
		dst = o.field.Values(fr, dst)
	}
	switch o.fn {
	case fnCount:
		if len(dst) > 0 {
			dst = append(dst[:0], dissect.Value{Kind: dissect.KindUint, U: uint64(len(dst))})
		}
	case fnLen:
		for i, v := range dst {
			n := len(v.B) + len(v.S)
			if v.Kind == dissect.KindIP {
				n = v.A.BitLen() / 8
			}
			dst[i] = dissect.Value{Kind: dissect.KindUint, U: uint64(n)}
		}
	}
	if o.masked && o.maskB == nil {
		if o.maskA.IsValid() {
			return maskAddrs(dst, o.maskA), buf
		}
		for i := range dst {
			dst[i].U &= o.mask
		}
		return dst, buf
	}
	if o.ranges == nil && o.maskB == nil {
		return dst, buf
	}
	// Reserve the octets every slice and mask can take, so that appending
	// to buf does not move the slices already made.
	need := 0
	for i := range dst {
		need += (len(o.ranges)+1)*max(len(dst[i].B), len(dst[i].S), 16) + len(o.maskB)
	}
	if cap(buf) < need {
		buf = make([]byte, 0, need)
	}
	out := dst[:0]
	for _, v := range dst {
		if o.ranges == nil { // octets & mask, into buf: v.B is the frame's
			start := len(buf)
			for i := 0; i < min(len(v.B), len(o.maskB)); i++ {
				buf = append(buf, v.B[i]&o.maskB[i])
			}
			out = append(out, dissect.Value{Kind: v.Kind, B: buf[start:len(buf):len(buf)]})
			continue
		}
		var whole []byte
		switch v.Kind {
		case dissect.KindIP:
			start := len(buf)
			if v.A.Is4() {
				a := v.A.As4()
				buf = append(buf, a[:]...)
			} else {
				a := v.A.As16()
				buf = append(buf, a[:]...)
			}
			whole = buf[start:]
		case dissect.KindString:
			start := len(buf)
			buf = append(buf, v.S...)
			whole = buf[start:]
		default:
			whole = v.B
		}
		start := len(buf)
		ok := true
		for _, r := range o.ranges {
			b, in := r.of(whole)
			if !in {
				ok = false
				break
			}
			buf = append(buf, b...)
		}
		if ok {
			b := buf[start:len(buf):len(buf)]
			if o.maskB != nil { // the slice is ours: mask it in place
				n := min(len(b), len(o.maskB))
				for i := 0; i < n; i++ {
					b[i] &= o.maskB[i]
				}
				b = b[:n:n]
			}
			out = append(out, dissect.Value{Kind: dissect.KindBytes, B: b})
		}
	}
	return out, buf
}

// protoCount appends to dst the number of times protocol pr occurs in fr,
// for count(PROTO): a VLAN tag (vlan) once per tag tshark calls vlan
// (TPID 0x8100 or 0x9100, as vlan.id counts them), any other
// protocol once when present; nothing when absent, as tshark.
func protoCount(pr *dissect.Proto, fr *dissect.Frame, dst []dissect.Value) []dissect.Value {
	if !pr.Present(fr) {
		return dst
	}
	n := 1
	if pr.Name == "vlan" && len(pr.Fields) > 0 {
		start := len(dst)
		n = len(pr.Fields[0].Values(fr, dst)) - start // vlan.id: one per tag
		dst = dst[:start]
	}
	return append(dst, dissect.Value{Kind: dissect.KindUint, U: uint64(n)})
}

// maskAddrs masks each address of vs with m, leaving out the addresses of
// the other family (ip.src holds IPv4 and IPv6 addresses).
func maskAddrs(vs []dissect.Value, m netip.Addr) []dissect.Value {
	out := vs[:0]
	for _, v := range vs {
		switch {
		case m.Is4() && v.A.Is4():
			a, k := v.A.As4(), m.As4()
			for i := range a {
				a[i] &= k[i]
			}
			v.A = netip.AddrFrom4(a)
		case m.Is6() && v.A.Is6():
			a, k := v.A.As16(), m.As16()
			for i := range a {
				a[i] &= k[i]
			}
			v.A = netip.AddrFrom16(a)
		default:
			continue
		}
		out = append(out, v)
	}
	return out
}

// nonZero reports whether a value (a field & mask) has a bit set.
func nonZero(v *dissect.Value) bool {
	switch v.Kind {
	case dissect.KindIP:
		return !v.A.IsUnspecified()
	case dissect.KindMAC, dissect.KindBytes:
		for _, c := range v.B {
			if c != 0 {
				return true
			}
		}
		return false
	}
	return v.U != 0
}

// of returns the octets of b the range covers; false when b is too short.
func (r srange) of(b []byte) ([]byte, bool) {
	off := r.off
	if off < 0 {
		off += len(b)
	}
	if off < 0 || off > len(b) {
		return nil, false
	}
	if r.toEnd {
		return b[off:], off < len(b)
	}
	if r.n > len(b)-off {
		return nil, false
	}
	return b[off : off+r.n], true
}

func equal(a, b *dissect.Value) bool {
	switch a.Kind {
	case dissect.KindIP:
		return a.A == b.A
	case dissect.KindMAC, dissect.KindBytes:
		return bytes.Equal(a.B, b.B)
	case dissect.KindString:
		return a.S == b.S && a.U == b.U
	case dissect.KindTime:
		return a.U == b.U && a.N == b.N
	}
	return a.U == b.U
}

// compare orders two values of one kind: addresses, octets and text
// (frame.interface_name > "port0", as tshark) as they sort, times as
// signed nanoseconds (a frame.time_delta goes back in time where captures
// were joined), numbers as unsigned.
func compare(a, b *dissect.Value) int {
	switch a.Kind {
	case dissect.KindIP:
		return a.A.Compare(b.A)
	case dissect.KindMAC, dissect.KindBytes:
		return bytes.Compare(a.B, b.B)
	case dissect.KindString:
		return strings.Compare(a.S, b.S)
	case dissect.KindTime:
		return cmp.Or(cmp.Compare(int64(a.U), int64(b.U)), cmp.Compare(a.N, b.N))
	}
	return cmp.Compare(a.U, b.U)
}

func order(c cmpOp, r int) bool {
	switch c {
	case cmpLt:
		return r < 0
	case cmpLe:
		return r <= 0
	case cmpGt:
		return r > 0
	case cmpGe:
		return r >= 0
	}
	return false
}

// eq reports whether v equals the literal (is in its prefix or range).
func (l *lit) eq(v *dissect.Value) bool {
	switch {
	case l.never:
		return false
	case l.isPfx:
		return v.Kind == dissect.KindIP && l.prefix.Contains(v.A)
	case l.isRange:
		return sameFamily(v, &l.val) && sameFamily(v, &l.hi) && compare(v, &l.val) >= 0 && compare(v, &l.hi) <= 0
	case v.Kind == dissect.KindString && l.byName:
		return v.S == l.val.S
	case v.Kind == dissect.KindString:
		return v.U == l.val.U // a named value by number (bts.origin == 2)
	}
	return equal(v, &l.val)
}

func (l *lit) test(c cmpOp, v *dissect.Value, rr *latin1) bool {
	if l.never {
		return false
	}
	switch c {
	case cmpEq:
		return l.eq(v)
	case cmpContains:
		if v.Kind == dissect.KindString {
			return strings.Contains(v.S, l.str)
		}
		return bytes.Contains(v.B, l.val.B)
	case cmpMatches:
		rr.b, rr.i = v.B, 0
		if v.Kind == dissect.KindString { // its octets, as tshark's PCRE2
			rr.buf = append(rr.buf[:0], v.S...)
			rr.b = rr.buf
		}
		ok := l.re.MatchReader(rr)
		rr.b = nil
		return ok
	}
	if v.Kind == dissect.KindString && !l.byName {
		return order(c, cmp.Compare(v.U, l.val.U)) // a named value by number
	}
	return sameFamily(v, &l.val) && order(c, compare(v, &l.val))
}

// sameFamily reports whether two values can be ordered: not an IPv4 and an
// IPv6 address (ip.src > 10.0.1.0 leaves IPv6 frames out, as tshark's
// ip.src, which has no IPv6 address, does).
func sameFamily(a, b *dissect.Value) bool {
	return a.Kind != dissect.KindIP || b.Kind != dissect.KindIP || a.A.Is4() == b.A.Is4()
}

// parseSeconds reads decimal seconds with up to 9 decimals exactly (a
// float64 cannot hold today's epoch to the nanosecond), negative after a
// '-' (frame.time_delta < -0.5), as tshark reads a time.
func parseSeconds(s string) (dissect.Value, bool) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || len(frac) > 9 {
		return dissect.Value{}, false
	}
	sec, err := strconv.ParseUint(whole, 10, 64)
	if err != nil || sec > math.MaxInt64-1 {
		return dissect.Value{}, false
	}
	var ns uint64
	for i := 0; i < 9; i++ {
		ns *= 10
		if i < len(frac) {
			c := frac[i]
			if c < '0' || c > '9' {
				return dissect.Value{}, false
			}
			ns += uint64(c - '0')
		}
	}
	if neg {
		return dissect.TimeValue(-int64(sec), -int64(ns)), true
	}
	return dissect.TimeValue(int64(sec), int64(ns)), true
}

// parseBytes reads a byte string as Wireshark 4.0 does: quoted text as its
// octets; one octet as a hex number of two digits (0x81); or hex octets,
// separated by ':', '-' or '.' or not at all, where a group of four digits
// is two octets and a lone digit one (888 is 88:08, 1 is 01). Between
// colons each octet takes two digits (tshark refuses 1:2).
func parseBytes(s string, quoted bool) ([]byte, error) {
	if quoted {
		if s == "" {
			return nil, fmt.Errorf("empty byte string")
		}
		return []byte(s), nil
	}
	if len(s) == 4 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:] // one octet: udp.payload[0] == 0x81
	}
	isSep := func(c byte) bool { return c == ':' || c == '-' || c == '.' }
	if strings.IndexByte(s, ':') >= 0 {
		for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r < 0x80 && isSep(byte(r)) }) {
			if len(p) != 2 {
				return nil, fmt.Errorf("%q is not a byte string: write each octet as two hex digits (01:02:0a)", s)
			}
		}
	}
	bad := fmt.Errorf("%q is not a byte string: use hex octets (01:02:0a or 01020a), 0x0a for one octet, or \"quoted text\"", s)
	var b []byte
	for i := 0; i < len(s); {
		n := 0
		for n < 4 && i+n < len(s) && isHex(s[i+n]) {
			n++
		}
		switch {
		case n == 4:
			b = append(b, unhex(s[i])<<4|unhex(s[i+1]), unhex(s[i+2])<<4|unhex(s[i+3]))
		case n >= 2:
			n = 2
			b = append(b, unhex(s[i])<<4|unhex(s[i+1]))
		case n == 1 && (i+1 == len(s) || isSep(s[i+1])):
			b = append(b, unhex(s[i]))
		default:
			return nil, bad
		}
		if i += n; i < len(s) && isSep(s[i]) {
			i++
		}
	}
	if len(b) == 0 {
		return nil, bad
	}
	return b, nil
}
