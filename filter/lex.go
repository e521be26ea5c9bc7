// SPDX-License-Identifier: Apache-2.0

package filter

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/opensfc/sfc/dissect"
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
	tIn       // in
	tBitAnd   // & or bitwise_and
	tLBrace   // {
	tRBrace   // }
	tLBracket // [
	tRBracket // ]
	tComma    // ,
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
	"contains": {kind: tCmp, cmp: cmpContains}, "matches": {kind: tCmp, cmp: cmpMatches},
	"any_eq": {kind: tCmp, cmp: cmpEq}, "all_ne": {kind: tCmp, cmp: cmpNe},
	"all_eq": {kind: tCmp, cmp: cmpAllEq}, "any_ne": {kind: tCmp, cmp: cmpAnyNe},
	"in": {kind: tIn}, "bitwise_and": {kind: tBitAnd},
}

// punct are the one-character tokens.
var punct = map[byte]tokKind{'(': tLParen, ')': tRParen, '{': tLBrace, '}': tRBrace,
	'[': tLBracket, ']': tRBracket, ',': tComma, '&': tBitAnd}

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
		case two == "==" || two == "!=":
			cmp, text := cmpEq, two
			if strings.HasPrefix(s[i:], "===") {
				cmp, text = cmpAllEq, "==="
			} else if strings.HasPrefix(s[i:], "!==") {
				cmp, text = cmpAnyNe, "!=="
			} else if two == "!=" {
				cmp = cmpNe
			}
			out = append(out, token{kind: tCmp, pos: i, text: text, cmp: cmp})
			i += len(text)
		case two == "<=" || two == ">=":
			cmp := cmpLe
			if two == ">=" {
				cmp = cmpGe
			}
			out = append(out, token{kind: tCmp, pos: i, text: two, cmp: cmp})
			i += 2
		case two == "~=":
			// Wireshark 4.0's any_ne, as !==.
			out = append(out, token{kind: tCmp, pos: i, text: two, cmp: cmpAnyNe})
			i += 2
		case c == '~':
			out = append(out, token{kind: tCmp, pos: i, text: "~", cmp: cmpMatches})
			i++
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
		case punct[c] != tEOF:
			out = append(out, token{kind: punct[c], pos: i, text: string(c)})
			i++
		case c == '=':
			return nil, bad(i, "single '=': write == to compare")
		case c == '|':
			return nil, bad(i, "single '|': write ||")
		case c == '"' || (c == 'r' || c == 'R') && i+1 < len(s) && s[i+1] == '"':
			raw := c != '"'
			start := i
			if raw {
				i++
			}
			text, end, err := readString(s, i, raw, '"')
			if err != nil {
				return nil, bad(err.pos, err.msg)
			}
			out = append(out, token{kind: tString, pos: start, text: text})
			i = end
		case c == '\'':
			// A character constant, as Wireshark 4.0's: 'h', '\n',
			// '\x41', '\101', one octet, a number (ip.ttl == '@' is 64;
			// udp.payload[0] == 'h' compares one octet).
			text, end, err := readString(s, i, false, '\'')
			if err != nil {
				return nil, bad(err.pos, err.msg)
			}
			if len(text) != 1 {
				return nil, bad(i, fmt.Sprintf("character constant %s is not one octet: write a string in double quotes", dissect.Escape(s[i:end])))
			}
			out = append(out, token{kind: tWord, pos: i, text: fmt.Sprintf("0x%02x", text[0])})
			i = end
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
			r, _ := utf8.DecodeRuneInString(s[i:])
			if r >= 0x80 || r < 0x20 || r == 0x7f {
				return nil, bad(i, fmt.Sprintf("unexpected character %q: characters other than printable ASCII may only appear inside double quotes", r))
			}
			return nil, bad(i, fmt.Sprintf("unexpected character %q", r))
		}
	}
	return append(out, token{kind: tEOF, pos: len(s)}), nil
}

type lexErr struct {
	pos int
	msg string
}

// readString reads the string literal (or, quote '\”, the character
// constant) whose opening quote is at s[i],
// returning its text and the offset after the closing quote. A raw string
// (r"...") keeps its backslashes. In a plain one the escapes are
// Wireshark 4.0's: \\, \", \', \a \b \f \n \r \t \v, octal \N to \NNN (at
// most \377), hex \xH or \xHH, and \uHHHH or \UHHHHHHHH (a Unicode
// character, written as UTF-8); any other backslash is an error, as in
// tshark ("\d" is not an escape: write "\\d" or r"\d" for a regular
// expression's \d).
func readString(s string, i int, raw bool, quote byte) (string, int, *lexErr) {
	var b strings.Builder
	j := i + 1
	for ; j < len(s) && s[j] != quote; j++ {
		if s[j] != '\\' || j+1 >= len(s) {
			b.WriteByte(s[j])
			continue
		}
		if raw {
			b.WriteByte(s[j])
			if s[j+1] == '"' {
				j++
				b.WriteByte('"')
			}
			continue
		}
		e := s[j+1]
		switch {
		case e == '"' || e == '\\' || e == '\'':
			b.WriteByte(e)
			j++
		case strings.IndexByte("abfnrtv", e) >= 0:
			b.WriteByte("\a\b\f\n\r\t\v"[strings.IndexByte("abfnrtv", e)])
			j++
		case e == 'x':
			n := 0
			for n < 2 && j+2+n < len(s) && isHex(s[j+2+n]) {
				n++
			}
			if n == 0 {
				return "", 0, &lexErr{j, `\x is not a valid character escape sequence: write \x and one or two hex digits`}
			}
			v := unhex(s[j+2])
			if n == 2 {
				v = v<<4 | unhex(s[j+3])
			}
			b.WriteByte(v)
			j += 1 + n
		case e >= '0' && e <= '7':
			n, v := 0, 0
			for n < 3 && j+1+n < len(s) && s[j+1+n] >= '0' && s[j+1+n] <= '7' {
				v = v<<3 | int(s[j+1+n]-'0')
				n++
			}
			if v > 255 {
				return "", 0, &lexErr{j, fmt.Sprintf(`%s is larger than 255: an octal escape is \0 to \377`, s[j:j+1+n])}
			}
			b.WriteByte(byte(v))
			j += n
		case e == 'u' || e == 'U':
			n := 4
			if e == 'U' {
				n = 8
			}
			k := 0
			for k < n && j+2+k < len(s) && isHex(s[j+2+k]) {
				k++
			}
			var r rune
			for _, c := range []byte(s[j+2 : j+2+k]) {
				r = r<<4 | rune(unhex(c))
			}
			// C's rule, which tshark follows: no character below U+00A0
			// but $ @ `, no surrogate, nothing past U+10FFFF.
			if k < n || r < 0xa0 && r != '$' && r != '@' && r != '`' || r >= 0xd800 && r <= 0xdfff || r > utf8.MaxRune {
				return "", 0, &lexErr{j, fmt.Sprintf(`%s is not a valid universal character name: write \uHHHH or \UHHHHHHHH, U+00A0 or above`, s[j:j+2+k])}
			}
			b.WriteRune(r)
			j += 1 + n
		default:
			_, size := utf8.DecodeRuneInString(s[j+1:])
			return "", 0, &lexErr{j, fmt.Sprintf(`%s is not a valid character escape sequence (write \\ for a backslash, or r"..." for a raw string)`, dissect.Escape(s[j:j+1+size]))}
		}
	}
	if j >= len(s) {
		if quote == '\'' {
			return "", 0, &lexErr{i, "unterminated character constant: no closing '"}
		}
		return "", 0, &lexErr{i, "unterminated string: no closing \""}
	}
	return b.String(), j + 1, nil
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
