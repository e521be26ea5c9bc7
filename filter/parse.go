// SPDX-License-Identifier: Apache-2.0

package filter

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/opensfc/sfc/dissect"
)

// Compile parses and checks expr. An empty expression (Empty) is an error:
// callers that make the filter optional test Empty themselves.
func Compile(expr string) (*Filter, error) {
	toks, err := lex(expr)
	if err != nil {
		return nil, err
	}
	p := &parser{expr: expr, toks: toks}
	if len(toks) == 1 { // only tEOF
		return nil, p.errAt(toks[0], "empty filter")
	}
	root, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		if t.kind == tRParen {
			return nil, p.errAt(t, "unbalanced parenthesis: no ( to close")
		}
		return nil, p.errAt(t, fmt.Sprintf("unexpected %s after a complete expression (missing && or ||?)", t.describe()))
	}
	return &Filter{expr: expr, root: root}, nil
}

// Empty reports whether expr has nothing but spaces, tabs and line ends
// in it ("", " "): tshark takes such a -Y as no filter at all, where
// Compile refuses it.
func Empty(expr string) bool {
	toks, err := lex(expr)
	return err == nil && len(toks) == 1 // only tEOF
}

// MustCompile is Compile for expressions fixed in source code; it panics
// on an error, so use it only where the expression cannot be wrong.
func MustCompile(expr string) *Filter {
	f, err := Compile(expr)
	if err != nil {
		panic(err)
	}
	return f
}

type parser struct {
	expr  string
	toks  []token
	i     int
	depth int
}

// maxDepth bounds the nesting of parentheses and negations, so a hostile
// expression cannot grow the parser's stack without bound.
const maxDepth = 256

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

// peek2 is the token after the next.
func (p *parser) peek2() token {
	if p.i+1 < len(p.toks) {
		return p.toks[p.i+1]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) errAt(t token, msg string) error {
	return &SyntaxError{Expr: p.expr, Pos: t.pos, Msg: msg}
}

func (p *parser) parseOr() (*node, error)  { return p.parseBinary(tOr, opOr, p.parseAnd) }
func (p *parser) parseAnd() (*node, error) { return p.parseBinary(tAnd, opAnd, p.parseUnary) }

// parseBinary reads operands joined by the left-associative operator k.
func (p *parser) parseBinary(k tokKind, op nodeOp, operand func() (*node, error)) (*node, error) {
	l, err := operand()
	if err != nil {
		return nil, err
	}
	for p.peek().kind == k {
		p.next()
		r, err := operand()
		if err != nil {
			return nil, err
		}
		l = &node{op: op, l: l, r: r}
	}
	return l, nil
}

func (p *parser) parseUnary() (*node, error) {
	t := p.next()
	if p.depth++; p.depth > maxDepth {
		return nil, p.errAt(t, fmt.Sprintf("expression nests deeper than %d levels", maxDepth))
	}
	defer func() { p.depth-- }()
	switch t.kind {
	case tNot:
		n, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		return &node{op: opNot, l: n}, nil
	case tLParen:
		n, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.kind != tRParen {
			if c.kind == tEOF {
				return nil, p.errAt(t, "unbalanced parenthesis: this ( is never closed")
			}
			return nil, p.errAt(c, fmt.Sprintf("expected ) or an operator, found %s", c.describe()))
		}
		return n, nil
	case tWord:
		if (t.text == "any" || t.text == "all") && p.peek().kind == tWord {
			return p.parseQuantified(t)
		}
		if p.peek().kind == tLParen {
			return p.parseFunc(t)
		}
		return p.parseTest(t)
	case tEOF:
		return nil, p.errAt(t, "expression ends where a field or protocol was expected")
	}
	return nil, p.errAt(t, fmt.Sprintf("expected a field or protocol, found %s", t.describe()))
}

// parseQuantified reads a comparison after Wireshark's quantifier any or
// all (any udp.port == 4791, all ip.addr in {10.0.0.0/8}).
func (p *parser) parseQuantified(q token) (*node, error) {
	name := p.next()
	var n *node
	var err error
	if p.peek().kind == tLParen {
		n, err = p.parseFunc(name)
	} else {
		n, err = p.parseTest(name)
	}
	if err != nil {
		return nil, err
	}
	test := n
	if n.op == opNot && n.l.op == opIn {
		test = n.l // "all x not in S" is not (all x in S), as in tshark 4.0
	}
	if test.op != opCmp && test.op != opIn {
		return nil, p.errAt(q, fmt.Sprintf("%s takes a comparison (%s %s == 1 or %s %s in {...}), not a bare test", q.text, q.text, name.text, q.text, name.text))
	}
	test.quant = quantAny
	if q.text == "all" {
		test.quant = quantAll
	}
	return n, nil
}

// isOperator reports whether t can follow a field in a test.
func isOperator(t token) bool { return t.kind == tCmp || t.kind == tIn || t.kind == tBitAnd }

// parseFunc reads len(FIELD) or count(FIELD) and the comparison that must
// follow (Wireshark cannot test whether a function is present either).
func (p *parser) parseFunc(name token) (*node, error) {
	var o operand
	switch name.text {
	case "len":
		o.fn = fnLen
	case "count":
		o.fn = fnCount
	default:
		return nil, p.errAt(name, fmt.Sprintf("unknown function %q: sfcdump has len() and count()", name.text))
	}
	p.next() // (
	arg := p.next()
	if arg.kind != tWord {
		return nil, p.errAt(arg, fmt.Sprintf("expected a field in %s(), found %s", name.text, arg.describe()))
	}
	o.written = arg.text
	pr, isProto := dissect.LookupProto(arg.text)
	fd, isField := dissect.LookupField(arg.text)
	switch {
	case isProto && o.fn == fnLen && pr.HasBytes():
		o.proto = pr
	case isProto && o.fn == fnCount:
		o.proto = pr // how many times the protocol occurs: count(vlan)
	case isField:
		o.field = fd
	case isProto:
		return nil, p.errAt(arg, fmt.Sprintf("%s() takes a field, and %s is a protocol", name.text, arg.text))
	default:
		return nil, p.errAt(arg, unknownName(arg.text))
	}
	if o.fn == fnLen && o.field != nil {
		switch o.field.Kind {
		case dissect.KindMAC, dissect.KindBytes, dissect.KindIP, dissect.KindString:
		default:
			return nil, p.errAt(arg, fmt.Sprintf("len() takes a field of octets (address, bytes, text), and %s is %s", arg.text, kindWord(o.field.Kind)))
		}
	}
	if c := p.next(); c.kind != tRParen {
		return nil, p.errAt(c, fmt.Sprintf("expected ) after %s(%s, found %s", name.text, arg.text, c.describe()))
	}
	if t := p.peek(); !isOperator(t) && !(t.kind == tNot && p.peek2().kind == tIn) {
		return nil, p.errAt(name, fmt.Sprintf("%s: compare the function's value (e.g. %s == 2); it cannot be tested alone", o.name(), o.name()))
	}
	return p.parseRest(o, name)
}

func (p *parser) parseTest(name token) (*node, error) {
	var lhs operand
	if pr, ok := dissect.LookupProto(name.text); ok {
		switch {
		case p.peek().kind == tLBracket && pr.HasBytes():
			lhs.proto = pr
			if err := p.parseSlice(&lhs); err != nil {
				return nil, err
			}
		case p.peek().kind == tLBracket:
			return nil, p.errAt(p.peek(), fmt.Sprintf("%s is a protocol whose octets sfcdump does not keep: slice frame, eth, ip, ipv6, udp or a field", name.text))
		case p.peek().kind == tBitAnd:
			return nil, p.errAt(p.peek(), fmt.Sprintf("bitwise & needs a number field, and %s is a protocol (for a logical and, write &&)", name.text))
		case isOperator(p.peek()) && pr.HasBytes() && p.peek().kind == tCmp:
			lhs.proto = pr // the protocol's octets: frame contains 12:b7
			lhs.ranges = []srange{{toEnd: true}}
			lhs.carried = p.peek().cmp == cmpContains || p.peek().cmp == cmpMatches
		case isOperator(p.peek()):
			return nil, p.errAt(name, fmt.Sprintf("%s is a protocol: compare one of its fields%s", name.text, example(pr)))
		default:
			return &node{op: opProto, proto: pr}, nil
		}
	} else {
		fd, ok := dissect.LookupField(name.text)
		if !ok {
			return nil, p.errAt(name, unknownName(name.text))
		}
		lhs.field, lhs.written = fd, name.text
		if p.peek().kind == tLBracket {
			if err := p.parseSlice(&lhs); err != nil {
				return nil, err
			}
		}
	}
	return p.parseRest(lhs, name)
}

// parseRest reads what follows an operand: a mask, then a comparison, a
// set membership or nothing (a bare test).
func (p *parser) parseRest(lhs operand, name token) (*node, error) {
	if p.peek().kind == tBitAnd {
		if err := p.parseMask(&lhs); err != nil {
			return nil, err
		}
	}
	t := p.peek()
	switch {
	case t.kind == tIn:
		p.next()
		return p.parseSet(&lhs, t)
	case t.kind == tNot && p.peek2().kind == tIn:
		p.next()
		in := p.next()
		n, err := p.parseSet(&lhs, in)
		if err != nil {
			return nil, err
		}
		return &node{op: opNot, l: n}, nil
	case t.kind != tCmp:
		return &node{op: opTrue, lhs: lhs, present: dissect.IsWiresharkName(name.text)}, nil
	}
	opTok := p.next()
	n := &node{op: opCmp, lhs: lhs, cmp: opTok.cmp}
	kind := lhs.kind()
	if !allowed(kind, n.cmp) || n.cmp >= cmpLt && n.cmp <= cmpGe && lhs.isEnum() {
		return nil, p.errAt(opTok, fmt.Sprintf("%s cannot be applied to %s (%s)", cmpNames[n.cmp], lhs.name(), kindWord(kind)))
	}
	val := p.next()
	if val.kind != tWord && val.kind != tString {
		return nil, p.errAt(val, fmt.Sprintf("expected a value after %s, found %s", opTok.text, val.describe()))
	}
	if val.kind == tWord && n.cmp != cmpMatches {
		if fd, ok := dissect.LookupField(val.text); ok {
			rhs := &operand{field: fd, written: val.text}
			if p.peek().kind == tLBracket {
				if err := p.parseSlice(rhs); err != nil {
					return nil, err
				}
			}
			if !comparable(kind, rhs.kind()) || n.cmp == cmpContains && kind != dissect.KindBytes && kind != dissect.KindMAC {
				return nil, p.errAt(val, fmt.Sprintf("cannot compare %s (%s) with %s (%s) using %s", lhs.name(), kindWord(kind), rhs.name(), kindWord(rhs.kind()), cmpNames[n.cmp]))
			}
			n.rhs = rhs
			return n, nil
		}
	}
	l, err := parseLit(&lhs, n.cmp, val)
	if err != nil {
		return nil, p.errAt(val, err.Error())
	}
	if l.isPfx && n.cmp != cmpEq && n.cmp != cmpNe && n.cmp != cmpAllEq && n.cmp != cmpAnyNe {
		return nil, p.errAt(opTok, fmt.Sprintf("%s cannot be applied to %s with a prefix: use == or != (or in {...})", cmpNames[n.cmp], lhs.name()))
	}
	n.lit = l
	return n, nil
}

// example names a field of pr for an error message.
func example(pr *dissect.Proto) string {
	if len(pr.Fields) == 0 {
		return ""
	}
	return fmt.Sprintf(" (e.g. %s)", pr.Fields[0].Name)
}

func comparable(a, b dissect.Kind) bool {
	bytesLike := func(k dissect.Kind) bool { return k == dissect.KindMAC || k == dissect.KindBytes }
	return a == b || bytesLike(a) && bytesLike(b)
}

// parseSlice reads [range, ...] after a field or protocol: i:n (n octets
// from i), i-j (octets i to j), i (one octet), :n, i: (to the end); a
// negative offset counts from the end.
func (p *parser) parseSlice(o *operand) error {
	open := p.next()
	if o.field != nil {
		switch o.field.Kind {
		case dissect.KindMAC, dissect.KindBytes, dissect.KindIP, dissect.KindString:
		default:
			return p.errAt(open, fmt.Sprintf("%s is %s and cannot be sliced into octets", o.name(), kindWord(o.field.Kind)))
		}
	}
	for {
		t := p.next()
		if t.kind != tWord {
			return p.errAt(t, fmt.Sprintf("expected a slice range (0:3, 1-2, 4, -1, :2 or 2:), found %s", t.describe()))
		}
		text := t.text
		// Spaces around a range's : or -, as tshark allows ([0 : 2]).
		for next := p.peek(); next.kind == tWord && (strings.HasSuffix(text, ":") || strings.HasSuffix(text, "-") ||
			strings.HasPrefix(next.text, ":") || strings.HasPrefix(next.text, "-")); next = p.peek() {
			text += p.next().text
		}
		r, err := parseRange(text)
		if err != nil {
			return p.errAt(t, err.Error())
		}
		o.ranges = append(o.ranges, r)
		switch sep := p.next(); sep.kind {
		case tRBracket:
			return nil
		case tComma:
		default:
			if sep.kind == tEOF {
				return p.errAt(open, "unclosed slice: this [ is never closed")
			}
			return p.errAt(sep, fmt.Sprintf("expected , or ] in a slice, found %s", sep.describe()))
		}
	}
}

// maxSlice bounds slice offsets and lengths (no field is longer).
const maxSlice = 1 << 16

func parseRange(s string) (srange, error) {
	bad := fmt.Errorf("%q is not a slice range: write 0:3 (offset:length), 1-2 (from-to), 4, -1 (from the end), :2 or 2: (from 2 to the end)", s)
	num := func(x string) (int, bool) {
		v, err := strconv.Atoi(x)
		return v, err == nil && v > -maxSlice && v < maxSlice
	}
	if a, b, ok := strings.Cut(s, ":"); ok {
		r := srange{}
		if a != "" {
			off, ok := num(a)
			if !ok {
				return r, bad
			}
			r.off = off
		}
		if b == "" {
			r.toEnd = true
			return r, nil
		}
		n, ok := num(b)
		if !ok || n <= 0 {
			return r, fmt.Errorf("%q: the length after : must be a positive number", s)
		}
		r.n = n
		return r, nil
	}
	if i := strings.IndexByte(s[min(1, len(s)):], '-'); i >= 0 {
		i++
		from, ok1 := num(s[:i])
		to, ok2 := num(s[i+1:])
		if !ok1 || !ok2 {
			return srange{}, bad
		}
		if (from < 0) != (to < 0) || to < from {
			return srange{}, fmt.Errorf("%q: a range from-to needs from <= to, both counted from the same end", s)
		}
		return srange{off: from, n: to - from + 1}, nil
	}
	off, ok := num(s)
	if !ok {
		return srange{}, bad
	}
	return srange{off: off, n: 1}, nil
}

// parseMask reads "& MASK" after a number field, a field or slice of
// octets (eth.dst[0] & 1, udp.payload & 80:00, eth.dst &
// 01:00:00:00:00:00) or an address field (ip.src & 255.0.0.0), the mask
// written as a value of the operand's kind.
func (p *parser) parseMask(o *operand) error {
	amp := p.next()
	kind := o.kind()
	switch kind {
	case dissect.KindUint, dissect.KindBytes, dissect.KindMAC, dissect.KindIP:
	default:
		return p.errAt(amp, fmt.Sprintf("bitwise & needs a number, octets or an address, and %s is %s (for a logical and, write &&)", o.name(), kindWord(kind)))
	}
	t := p.next()
	if kind == dissect.KindUint {
		v, err := strconv.ParseUint(t.text, 0, 64)
		if t.kind != tWord || err != nil && !errors.Is(err, strconv.ErrRange) {
			return p.errAt(t, fmt.Sprintf("expected a number (a bit mask) after %s, found %s", amp.text, t.describe()))
		}
		if _, _, err := parseUint(o, t.text, false); err != nil {
			return p.errAt(t, err.Error())
		}
		o.mask, o.masked = v, true
		return nil
	}
	if t.kind != tWord {
		return p.errAt(t, fmt.Sprintf("expected a bit mask (%s) after %s, found %s", maskExample(kind), amp.text, t.describe()))
	}
	l, err := parseLit(o, cmpEq, t)
	if err == nil && l.isPfx {
		err = fmt.Errorf("a mask is an address (255.255.0.0), not a prefix")
	}
	if err != nil {
		return p.errAt(t, err.Error())
	}
	if kind == dissect.KindIP {
		o.maskA = l.val.A
	} else {
		o.maskB = l.val.B
	}
	o.masked = true
	return nil
}

// maskExample shows a mask of kind k, for error messages.
func maskExample(k dissect.Kind) string {
	switch k {
	case dissect.KindIP:
		return "an address such as 255.255.0.0"
	case dissect.KindMAC:
		return "a MAC address such as 01:00:00:00:00:00"
	}
	return "octets such as 0x01 or 80:00"
}

// parseSet reads {a, b, lo..hi, ...} after in. Elements are separated by
// commas (Wireshark 4.0) or, as Wireshark 3.6 allowed, by spaces.
func (p *parser) parseSet(o *operand, in token) (*node, error) {
	kind := o.kind()
	open := p.next()
	if open.kind != tLBrace {
		return nil, p.errAt(open, fmt.Sprintf("expected { after in, found %s", open.describe()))
	}
	n := &node{op: opIn, lhs: *o}
	for {
		t := p.next()
		switch t.kind {
		case tRBrace:
			if len(n.set) == 0 {
				return nil, p.errAt(t, "empty set: write at least one value between { and }")
			}
			return n, nil
		case tComma:
			if len(n.set) == 0 {
				return nil, p.errAt(t, "expected a value, found \",\"")
			}
			continue
		case tEOF:
			return nil, p.errAt(open, "unclosed set: this { is never closed")
		case tWord, tString:
		default:
			return nil, p.errAt(t, fmt.Sprintf("expected a value, , or } in a set, found %s", t.describe()))
		}
		lo, hi, isRange := p.setRange(t)
		if !isRange {
			l, err := parseLit(o, cmpEq, t)
			if err != nil {
				return nil, p.errAt(t, err.Error())
			}
			n.set = append(n.set, l)
			continue
		}
		switch kind {
		case dissect.KindUint, dissect.KindIP, dissect.KindMAC, dissect.KindBytes, dissect.KindTime, dissect.KindString:
		default:
			return nil, p.errAt(t, fmt.Sprintf("%s is %s: a set of it cannot hold a range", o.name(), kindWord(kind)))
		}
		if o.isEnum() {
			return nil, p.errAt(t, fmt.Sprintf("%s is %s: a set of it cannot hold a range", o.name(), kindWord(kind)))
		}
		text := lo.text + ".." + hi.text
		if lo.text == "" && lo.kind == tWord || hi.text == "" && hi.kind == tWord {
			return nil, p.errAt(t, fmt.Sprintf("range %q: write a value on each side of .. (1..5 or 1 .. 5)", text))
		}
		l, err := parseLit(o, cmpEq, token{kind: lo.kind, pos: t.pos, text: lo.text})
		if err == nil {
			var h lit
			h, err = parseLit(o, cmpEq, token{kind: hi.kind, pos: t.pos, text: hi.text})
			l.hi = h.val
			l.never = l.never || h.never // tshark: no number is above -1 (-5..10 holds none)
			if err == nil && (l.isPfx || h.isPfx) {
				err = fmt.Errorf("a range's ends are addresses, not prefixes")
			}
		}
		if err != nil {
			return nil, p.errAt(t, fmt.Sprintf("range %q: %v", text, err))
		}
		l.isRange = true
		n.set = append(n.set, l)
	}
}

// setRange reads the range a set's element t begins, if it is one: lo..hi
// in one word, or with spaces around the "..", as Wireshark 4.0 allows
// ({1 .. 5}, {1 ..5}, {1.. 5}), each end a word or a quoted string
// ({"port0".."port1"}); it consumes the tokens after t that the range
// takes. A missing end is an empty word, an error for the caller.
func (p *parser) setRange(t token) (lo, hi token, ok bool) {
	word := func(s string) token { return token{kind: tWord, pos: t.pos, text: s} }
	end := func() token { // the upper bound after a ".." ending a token
		if next := p.peek(); next.kind == tWord || next.kind == tString {
			return p.next()
		}
		return word("")
	}
	if t.kind == tWord {
		l, h, cut := strings.Cut(t.text, "..")
		switch {
		case cut && l != "" && h != "":
			return word(l), word(h), true
		case cut && l == "":
			return word(l), word(h), true // "..5" with nothing before
		case cut: // "1.." then the upper bound
			return word(l), end(), true
		}
	}
	if next := p.peek(); next.kind == tWord && strings.HasPrefix(next.text, "..") { // "1" then ".." or "..5"
		p.next()
		if h := next.text[2:]; h != "" {
			return t, word(h), true
		}
		return t, end(), true
	}
	return token{}, token{}, false
}

// kindWord names a kind with its article, for error messages.
func kindWord(k dissect.Kind) string {
	switch k {
	case dissect.KindString:
		return "a named value field"
	case dissect.KindUint:
		return "a number field"
	case dissect.KindBool:
		return "a boolean field"
	case dissect.KindIP:
		return "an address field"
	case dissect.KindMAC:
		return "a MAC address field"
	case dissect.KindBytes:
		return "a byte string"
	case dissect.KindTime:
		return "a time field"
	}
	return "a " + k.String()
}

// allowed reports whether comparison c applies to values of kind k.
func allowed(k dissect.Kind, c cmpOp) bool {
	switch c {
	case cmpEq, cmpNe, cmpAllEq, cmpAnyNe:
		return true
	case cmpContains, cmpMatches:
		return k == dissect.KindBytes || k == dissect.KindString || k == dissect.KindMAC
	}
	// The order tests: text sorts as its octets, as in tshark.
	return k != dissect.KindBool
}

// unknownName explains a name that is neither a field nor a protocol,
// suggesting the fields of a known protocol when the prefix is one.
func unknownName(name string) string {
	proto, _, _ := strings.Cut(name, ".")
	if pr, ok := dissect.LookupProto(proto); ok && proto != name && !dissect.IsWiresharkName(proto) {
		var short []string
		for _, fd := range pr.Fields {
			short = append(short, fd.Short)
		}
		return fmt.Sprintf("unknown field %q (%s has %s)", name, proto, strings.Join(short, ", "))
	}
	var ws []string
	for _, w := range dissect.WiresharkNames() {
		if w.Field != nil && strings.HasPrefix(w.Name, proto+".") {
			ws = append(ws, w.Name)
		}
	}
	if len(ws) > 0 {
		return fmt.Sprintf("unknown field %q (sfcdump knows the Wireshark fields %s)", name, strings.Join(ws, ", "))
	}
	return fmt.Sprintf("unknown field or protocol %q", name)
}

// parseUint reads a number for a number operand: decimal, hex, octal or
// binary, after a '-' for a negative number (which tshark 4.0 accepts
// and never matches: neg). A number the operand cannot hold is refused,
// as tshark refuses it ("70000" too big for a 16-bit port, "-70000" too).
func parseUint(o *operand, s string, quoted bool) (v uint64, neg bool, err error) {
	digits := s
	if neg = strings.HasPrefix(s, "-"); neg {
		digits = s[1:]
	}
	v, err = strconv.ParseUint(digits, 0, 64)
	if errors.Is(err, strconv.ErrRange) && !quoted {
		return 0, neg, fmt.Errorf("%q causes an integer overflow (%s holds at most %d)", digits, o.name(), o.max())
	}
	if err != nil || quoted || strings.HasPrefix(digits, "-") || strings.HasPrefix(digits, "+") {
		return 0, neg, fmt.Errorf("%s is a number field; %q is not a number", o.name(), s)
	}
	if m := o.max(); v > m {
		return 0, neg, fmt.Errorf("%q too big for %s, maximum %d (%d bits)", digits, o.name(), m, bits.Len64(m))
	}
	return v, neg, nil
}

// tsharkBits are the widths of tshark 4.0's types for the names it
// shares with sfcdump where they are not the wire width of the field
// (dissect.Field.Bits): tshark checks a number against its field's type
// (an FT_UINT8 holds 255, whatever bits of it the field has) and gives
// frame metadata, count() and len() 32 bits.
var tsharkBits = map[string]int{
	"frame.number": 32, "frame.len": 32, "frame.cap_len": 32, "frame.caplen": 32,
	"frame.interface": 32, "frame.interface_id": 32, "frame.warnings": 32,
	"infiniband.bth.padcnt": 8, "infiniband.bth.tver": 8, "infiniband.invariant.crc": 32, "infiniband.reth.va": 64,
	"ip.version": 8, "ip.hdr_len": 8, "ip.flags": 8, "ip.frag_offset": 16, "ip.dsfield.dscp": 8, "ip.dsfield.ecn": 8,
	"ipv6.version": 8, "ipv6.flow": 24, "ipv6.tclass": 32, "ipv6.tclass.dscp": 32, "ipv6.tclass.ecn": 32,
	"macc.opcode": 16, "vlan.id": 16, "vlan.priority": 16,
	"ipv6.fraghdr.offset": 16, "sll.halen": 16, "sll.ltype": 16,
}

// max is the largest number the operand holds: its type's in tshark for
// a name tshark knows, else the field's wire width (64 bits when not
// recorded).
func (o *operand) max() uint64 {
	w := 64
	switch b, ok := tsharkBits[o.written]; {
	case o.fn != fnNone:
		w = 32
	case o.ranges != nil || o.field == nil:
	case ok:
		w = b
	case o.field.Bits > 0:
		w = int(o.field.Bits)
	}
	if w >= 64 {
		return math.MaxUint64
	}
	return 1<<w - 1
}

// isEnum reports whether the operand is a field of named values (an
// origin: queue, cache, estimate), which have no order.
func (o *operand) isEnum() bool {
	return o.fn == fnNone && o.ranges == nil && o.field != nil && (o.field.Name == "bts.origin" || o.field.Name == "cim.origin")
}

// parseLit reads a value token according to the operand's kind and the
// comparison.
func parseLit(o *operand, c cmpOp, t token) (lit, error) {
	var l lit
	s := t.text
	quoted := t.kind == tString
	kind := o.kind()
	name := o.name()
	switch c {
	case cmpMatches:
		if !quoted {
			return l, fmt.Errorf("matches takes a regular expression in quotes (\"...\"), not %q", s)
		}
		re, err := compileRegexp(s)
		if err != nil {
			return l, fmt.Errorf("bad regular expression: %v", err)
		}
		l.re = re
		return l, nil
	case cmpContains:
		if kind == dissect.KindString {
			l.val = dissect.Value{Kind: dissect.KindBytes, B: []byte(s)}
			l.str = s
			return l, nil
		}
		b, err := parseBytes(s, quoted)
		if err != nil {
			return l, err
		}
		l.val = dissect.Value{Kind: dissect.KindBytes, B: b}
		return l, nil
	}
	switch kind {
	case dissect.KindUint:
		v, neg, err := parseUint(o, s, quoted)
		if err != nil {
			return l, err
		}
		l.val = dissect.Value{Kind: kind, U: v}
		l.never = neg && v != 0
	case dissect.KindBool:
		switch s {
		case "true", "1", "True", "TRUE":
			l.val = dissect.Value{Kind: kind, U: 1}
		case "false", "0", "False", "FALSE":
			l.val = dissect.Value{Kind: kind}
		default:
			return l, fmt.Errorf("%s is a boolean field; %q is not true, false, 1 or 0", name, s)
		}
	case dissect.KindIP:
		// An address of the other family, for a field of one (ip.src
		// is IPv4's, ipv6.src IPv6's), is refused as tshark refuses it:
		// it could match nothing.
		fam := 0
		if o.field != nil && o.fn == fnNone && o.ranges == nil {
			fam = o.field.Family()
		}
		wrong := func(a netip.Addr, what string) error {
			if fam == 4 && !a.Is4() {
				return fmt.Errorf("%s is an IPv4 field (Wireshark's ip; IPv6 is ipv6.*): %q is not an IPv4 %s", name, s, what)
			}
			if fam == 6 && a.Is4() {
				return fmt.Errorf("%s is an IPv6 field (IPv4 is ip.*): %q is not an IPv6 %s", name, s, what)
			}
			return nil
		}
		if strings.Contains(s, "/") {
			pfx, err := netip.ParsePrefix(s)
			if err != nil {
				return l, fmt.Errorf("%s is an address field; %q is not an IPv4 or IPv6 prefix", name, s)
			}
			if err := wrong(pfx.Addr(), "prefix"); err != nil {
				return l, err
			}
			l.prefix, l.isPfx = pfx.Masked(), true
			return l, nil
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return l, fmt.Errorf("%s is an address field; %q is not an IPv4 or IPv6 address", name, s)
		}
		if err := wrong(a, "address"); err != nil {
			return l, err
		}
		l.val = dissect.Value{Kind: kind, A: a.Unmap()}
	case dissect.KindMAC:
		m, err := net.ParseMAC(s)
		if err != nil || len(m) != 6 {
			return l, fmt.Errorf("%s is a MAC address field; %q is not a MAC address like 02:00:00:00:00:01", name, s)
		}
		l.val = dissect.Value{Kind: kind, B: m}
	case dissect.KindString:
		if v, err := strconv.ParseUint(s, 0, 64); err == nil && !quoted {
			l.val = dissect.Value{Kind: kind, U: v}
			return l, nil
		}
		l.val = dissect.Value{Kind: kind, S: s}
		l.byName = true
		if name == "bts.origin" || name == "cim.origin" {
			switch s {
			case "queue", "cache", "estimate":
			default:
				return l, fmt.Errorf("%s is queue, cache, estimate or a number, not %q", name, s)
			}
		}
	case dissect.KindBytes:
		b, err := parseBytes(s, quoted)
		if err != nil {
			return l, err
		}
		l.val = dissect.Value{Kind: kind, B: b}
	case dissect.KindTime:
		if o.field != nil && o.field.Absolute {
			// A date and time, quoted or not, in local time unless it
			// says UTC, as tshark reads it (parseAbsTime).
			tv, err := parseAbsTime(s, time.Local)
			if err != nil {
				return l, fmt.Errorf("%s is a date and time: %v", name, err)
			}
			l.val = tv
			return l, nil
		}
		tv, ok := parseSeconds(s)
		if !ok || quoted {
			what := "a time in seconds (-0.000020, 1.5)"
			if name == "frame.time_epoch" {
				what = "a time in seconds since the epoch"
			}
			return l, fmt.Errorf("%s is %s; %q is not", name, what, s)
		}
		l.val = tv
	default:
		return l, fmt.Errorf("%s cannot be compared", name)
	}
	return l, nil
}
