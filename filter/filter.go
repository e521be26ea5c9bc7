package filter

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math"
	"net"
	"net/netip"
	"strconv"
	"strings"

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
func (e *SyntaxError) Caret() string {
	return e.Expr + "\n" + strings.Repeat(" ", e.Pos) + "^"
}

// Filter is a compiled display filter.
type Filter struct {
	expr    string
	root    *node
	scratch []dissect.Value
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
		if n.field != nil {
			out = append(out, n.field)
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
	opTrue  // field present (and true, for booleans)
	opCmp
)

type cmpOp uint8

const (
	cmpEq cmpOp = iota
	cmpNe
	cmpLt
	cmpLe
	cmpGt
	cmpGe
	cmpContains
)

var cmpNames = [...]string{"==", "!=", "<", "<=", ">", ">=", "contains"}

type node struct {
	op     nodeOp
	l, r   *node
	proto  *dissect.Proto
	field  *dissect.Field
	cmp    cmpOp
	val    dissect.Value // the operand, of the field's kind
	prefix netip.Prefix  // for IP fields compared with a prefix
	isPfx  bool
	byName bool // a KindString operand given by name: compare S, not U
}

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
	case opTrue:
		f.scratch = n.field.Values(fr, f.scratch[:0])
		if n.field.Kind != dissect.KindBool {
			return len(f.scratch) > 0
		}
		for _, v := range f.scratch {
			if v.U != 0 {
				return true
			}
		}
		return false
	}
	f.scratch = n.field.Values(fr, f.scratch[:0])
	if len(f.scratch) == 0 {
		return false
	}
	if n.cmp == cmpNe {
		for i := range f.scratch {
			if n.equal(&f.scratch[i]) {
				return false
			}
		}
		return true
	}
	for i := range f.scratch {
		if n.test(&f.scratch[i]) {
			return true
		}
	}
	return false
}

func (n *node) equal(v *dissect.Value) bool {
	switch v.Kind {
	case dissect.KindIP:
		if n.isPfx {
			return n.prefix.Contains(v.A)
		}
		return v.A == n.val.A
	case dissect.KindMAC, dissect.KindBytes:
		return bytes.Equal(v.B, n.val.B)
	case dissect.KindString:
		if n.byName {
			return v.S == n.val.S
		}
	}
	return v.U == n.val.U
}

func (n *node) test(v *dissect.Value) bool {
	if n.cmp == cmpEq {
		return n.equal(v)
	}
	if n.cmp == cmpContains {
		if v.Kind == dissect.KindString {
			return strings.Contains(v.S, string(n.val.B))
		}
		return bytes.Contains(v.B, n.val.B)
	}
	var c int
	switch v.Kind {
	case dissect.KindIP:
		c = v.A.Compare(n.val.A)
	case dissect.KindMAC:
		c = bytes.Compare(v.B, n.val.B)
	default:
		switch {
		case v.U < n.val.U:
			c = -1
		case v.U > n.val.U:
			c = 1
		}
	}
	switch n.cmp {
	case cmpLt:
		return c < 0
	case cmpLe:
		return c <= 0
	case cmpGt:
		return c > 0
	case cmpGe:
		return c >= 0
	}
	return false
}

// Compile parses and checks expr. An empty expression is an error: callers
// that make the filter optional test for "" themselves.
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
func (p *parser) next() token { t := p.toks[p.i]; p.i++; return t }

func (p *parser) errAt(t token, msg string) error {
	return &SyntaxError{Expr: p.expr, Pos: t.pos, Msg: msg}
}

func (p *parser) parseOr() (*node, error) {
	l, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	for p.peek().kind == tOr {
		p.next()
		r, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		l = &node{op: opOr, l: l, r: r}
	}
	return l, nil
}

func (p *parser) parseAnd() (*node, error) {
	l, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	for p.peek().kind == tAnd {
		p.next()
		r, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		l = &node{op: opAnd, l: l, r: r}
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
		return p.parseTest(t)
	case tEOF:
		return nil, p.errAt(t, "expression ends where a field or protocol was expected")
	}
	return nil, p.errAt(t, fmt.Sprintf("expected a field or protocol, found %s", t.describe()))
}

func (p *parser) parseTest(name token) (*node, error) {
	var fd *dissect.Field
	if pr, ok := dissect.LookupProto(name.text); ok {
		if p.peek().kind == tCmp {
			return nil, p.errAt(name, fmt.Sprintf("%s is a protocol: compare one of its fields (e.g. %s)", name.text, pr.Fields[0].Name))
		}
		return &node{op: opProto, proto: pr}, nil
	}
	fd, ok := dissect.LookupField(name.text)
	if !ok {
		return nil, p.errAt(name, unknownName(name.text))
	}
	if p.peek().kind != tCmp {
		return &node{op: opTrue, field: fd}, nil
	}
	opTok := p.next()
	val := p.next()
	if val.kind != tWord && val.kind != tString {
		return nil, p.errAt(val, fmt.Sprintf("expected a value after %s, found %s", opTok.text, val.describe()))
	}
	n := &node{op: opCmp, field: fd, cmp: opTok.cmp}
	if !allowed(fd.Kind, n.cmp, false) && !(fd.Kind == dissect.KindIP && n.cmp != cmpContains) {
		return nil, p.errAt(opTok, fmt.Sprintf("%s cannot be applied to %s (a %s field)", cmpNames[n.cmp], fd.Name, kindWord(fd)))
	}
	if err := n.setOperand(val); err != nil {
		return nil, p.errAt(val, err.Error())
	}
	if !allowed(fd.Kind, n.cmp, n.isPfx) {
		return nil, p.errAt(opTok, fmt.Sprintf("%s cannot be applied to %s (a %s field)", cmpNames[n.cmp], fd.Name, kindWord(fd)))
	}
	return n, nil
}

func kindWord(fd *dissect.Field) string {
	switch fd.Kind {
	case dissect.KindString:
		return "named value"
	case dissect.KindUint:
		return "number"
	case dissect.KindBool:
		return "boolean"
	case dissect.KindIP:
		return "address"
	}
	return fd.Kind.String()
}

func allowed(k dissect.Kind, c cmpOp, isPfx bool) bool {
	switch k {
	case dissect.KindBool:
		return c == cmpEq || c == cmpNe
	case dissect.KindBytes, dissect.KindString:
		return c == cmpEq || c == cmpNe || c == cmpContains
	case dissect.KindIP:
		if isPfx {
			return c == cmpEq || c == cmpNe
		}
		return c != cmpContains
	}
	return c != cmpContains
}

// unknownName explains a name that is neither a field nor a protocol,
// suggesting the fields of a known protocol when the prefix is one.
func unknownName(name string) string {
	proto, _, _ := strings.Cut(name, ".")
	if pr, ok := dissect.LookupProto(proto); ok && proto != name {
		var short []string
		for _, fd := range pr.Fields {
			short = append(short, fd.Short)
		}
		return fmt.Sprintf("unknown field %q (%s has %s)", name, proto, strings.Join(short, ", "))
	}
	return fmt.Sprintf("unknown field or protocol %q", name)
}

// setOperand reads the value token according to the field's kind.
func (n *node) setOperand(t token) error {
	fd := n.field
	s := t.text
	quoted := t.kind == tString
	if n.cmp == cmpContains {
		if fd.Kind == dissect.KindString {
			n.val = dissect.Value{Kind: dissect.KindBytes, B: []byte(s)}
			return nil
		}
		b, err := parseBytes(s, quoted)
		if err != nil {
			return err
		}
		n.val = dissect.Value{Kind: dissect.KindBytes, B: b}
		return nil
	}
	switch fd.Kind {
	case dissect.KindUint:
		v, err := strconv.ParseUint(s, 0, 64)
		if err != nil || quoted {
			return fmt.Errorf("%s is a number field; %q is not a number", fd.Name, s)
		}
		n.val = dissect.Value{Kind: fd.Kind, U: v}
	case dissect.KindBool:
		switch s {
		case "true", "1", "True", "TRUE":
			n.val = dissect.Value{Kind: fd.Kind, U: 1}
		case "false", "0", "False", "FALSE":
			n.val = dissect.Value{Kind: fd.Kind}
		default:
			return fmt.Errorf("%s is a boolean field; %q is not true, false, 1 or 0", fd.Name, s)
		}
	case dissect.KindIP:
		if strings.Contains(s, "/") {
			pfx, err := netip.ParsePrefix(s)
			if err != nil {
				return fmt.Errorf("%s is an address field; %q is not an IPv4 or IPv6 prefix", fd.Name, s)
			}
			n.prefix, n.isPfx = pfx.Masked(), true
			return nil
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return fmt.Errorf("%s is an address field; %q is not an IPv4 or IPv6 address", fd.Name, s)
		}
		n.val = dissect.Value{Kind: fd.Kind, A: a.Unmap()}
	case dissect.KindMAC:
		m, err := net.ParseMAC(s)
		if err != nil || len(m) != 6 {
			return fmt.Errorf("%s is a MAC address field; %q is not a MAC address like 02:00:00:00:00:01", fd.Name, s)
		}
		n.val = dissect.Value{Kind: fd.Kind, B: m}
	case dissect.KindString:
		if v, err := strconv.ParseUint(s, 0, 64); err == nil && !quoted {
			n.val = dissect.Value{Kind: fd.Kind, U: v}
			return nil
		}
		n.val = dissect.Value{Kind: fd.Kind, S: s}
		n.byName = true
		if fd.Name == "bts.origin" || fd.Name == "cim.origin" {
			switch s {
			case "queue", "cache", "estimate":
			default:
				return fmt.Errorf("%s is queue, cache, estimate or a number, not %q", fd.Name, s)
			}
		}
	case dissect.KindBytes:
		b, err := parseBytes(s, quoted)
		if err != nil {
			return err
		}
		n.val = dissect.Value{Kind: fd.Kind, B: b}
	case dissect.KindTime:
		ns, ok := parseSeconds(s)
		if !ok || quoted {
			return fmt.Errorf("%s is a time in seconds since the epoch; %q is not", fd.Name, s)
		}
		n.val = dissect.Value{Kind: fd.Kind, U: ns}
	default:
		return fmt.Errorf("%s cannot be compared", fd.Name)
	}
	return nil
}

// parseSeconds reads decimal seconds with up to 9 decimals exactly (a
// float64 cannot hold today's epoch to the nanosecond).
func parseSeconds(s string) (uint64, bool) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || len(frac) > 9 {
		return 0, false
	}
	sec, err := strconv.ParseUint(whole, 10, 64)
	if err != nil || sec > math.MaxInt64/1_000_000_000-1 {
		return 0, false
	}
	var ns uint64
	for i := 0; i < 9; i++ {
		ns *= 10
		if i < len(frac) {
			c := frac[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			ns += uint64(c - '0')
		}
	}
	return sec*1e9 + ns, true
}

// parseBytes reads a byte string: quoted text as its octets, or hex octets
// separated by ':', '-' or '.', or not separated at all.
func parseBytes(s string, quoted bool) ([]byte, error) {
	if quoted {
		if s == "" {
			return nil, fmt.Errorf("empty byte string")
		}
		return []byte(s), nil
	}
	h := s
	if strings.ContainsAny(s, ":-.") {
		parts := strings.FieldsFunc(s, func(r rune) bool { return r == ':' || r == '-' || r == '.' })
		for _, p := range parts {
			if len(p) != 2 {
				return nil, fmt.Errorf("%q is not a byte string: write each octet as two hex digits (01:02:0a)", s)
			}
		}
		h = strings.Join(parts, "")
	}
	b, err := hex.DecodeString(h)
	if err != nil || len(b) == 0 {
		return nil, fmt.Errorf("%q is not a byte string: use hex octets (01:02:0a or 01020a) or \"quoted text\"", s)
	}
	return b, nil
}
