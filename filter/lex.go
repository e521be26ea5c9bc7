package filter

import (
	"fmt"
	"strings"
)

type tokKind uint8

const (
	tEOF tokKind = iota
	tWord
	tString
	tAnd
	tOr
	tNot
	tLParen
	tRParen
	tCmp
)

type token struct {
	kind tokKind
	pos  int
	text string
	cmp  cmpOp
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "the end of the expression"
	case tString:
		return fmt.Sprintf("string %q", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

// isWordByte reports whether c can be part of a field name or a literal
// value (numbers, addresses, MACs, byte strings, prefixes).
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '.' || c == ':' || c == '/' || c == '-'
}

var keywords = map[string]token{
	"and": {kind: tAnd}, "or": {kind: tOr}, "not": {kind: tNot},
	"eq": {kind: tCmp, cmp: cmpEq}, "ne": {kind: tCmp, cmp: cmpNe},
	"lt": {kind: tCmp, cmp: cmpLt}, "le": {kind: tCmp, cmp: cmpLe},
	"gt": {kind: tCmp, cmp: cmpGt}, "ge": {kind: tCmp, cmp: cmpGe},
	"contains": {kind: tCmp, cmp: cmpContains},
}

func lex(s string) ([]token, error) {
	var out []token
	bad := func(pos int, msg string) error { return &SyntaxError{Expr: s, Pos: pos, Msg: msg} }
	for i := 0; i < len(s); {
		c := s[i]
		two := ""
		if i+1 < len(s) {
			two = s[i : i+2]
		}
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case two == "&&":
			out = append(out, token{kind: tAnd, pos: i, text: two})
			i += 2
		case two == "||":
			out = append(out, token{kind: tOr, pos: i, text: two})
			i += 2
		case two == "==" || two == "!=" || two == "<=" || two == ">=":
			cmp := map[string]cmpOp{"==": cmpEq, "!=": cmpNe, "<=": cmpLe, ">=": cmpGe}[two]
			out = append(out, token{kind: tCmp, pos: i, text: two, cmp: cmp})
			i += 2
		case c == '<' || c == '>':
			cmp := cmpLt
			if c == '>' {
				cmp = cmpGt
			}
			out = append(out, token{kind: tCmp, pos: i, text: string(c), cmp: cmp})
			i++
		case c == '!':
			out = append(out, token{kind: tNot, pos: i, text: "!"})
			i++
		case c == '(':
			out = append(out, token{kind: tLParen, pos: i, text: "("})
			i++
		case c == ')':
			out = append(out, token{kind: tRParen, pos: i, text: ")"})
			i++
		case c == '=':
			return nil, bad(i, "single '=': write == to compare")
		case c == '&' || c == '|':
			return nil, bad(i, fmt.Sprintf("single '%c': write %c%c", c, c, c))
		case c == '"':
			j := i + 1
			var b strings.Builder
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				b.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, bad(i, "unterminated string: no closing \"")
			}
			out = append(out, token{kind: tString, pos: i, text: b.String()})
			i = j + 1
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			w := s[i:j]
			if k, ok := keywords[w]; ok {
				k.pos, k.text = i, w
				out = append(out, k)
			} else {
				out = append(out, token{kind: tWord, pos: i, text: w})
			}
			i = j
		default:
			return nil, bad(i, fmt.Sprintf("unexpected character %q", c))
		}
	}
	return append(out, token{kind: tEOF, pos: len(s)}), nil
}
