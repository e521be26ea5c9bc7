// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"unicode"
	"unicode/utf8"
)

// AppendEscaped appends s made safe for a terminal: every string that
// comes from a capture (interface names, comments, anything decoded as
// text) goes through it before it is printed. Printable ASCII and
// printable Unicode pass unchanged; \a \b \t \n \v \f \r become those two
// characters; other control octets (ESC included) and each octet of
// invalid UTF-8 become \xNN; C1 controls, format characters (bidi
// overrides and isolates, zero-width joiners) and other unprintable runes
// become \uNNNN (or \UNNNNNNNN). Backslash is not doubled, so the result
// reads naturally (Windows interface names are \Device\NPF_{...}) and
// escaping twice changes nothing. It does not allocate beyond dst.
func AppendEscaped(dst []byte, s string) []byte {
	i := 0
	for i < len(s) && s[i] >= 0x20 && s[i] < 0x7f {
		i++
	}
	dst = append(dst, s[:i]...)
	for i < len(s) {
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f:
			dst = append(dst, c)
			i++
			continue
		case c < utf8.RuneSelf:
			dst = appendControl(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			dst = append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
		case unicode.IsPrint(r):
			dst = append(dst, s[i:i+n]...)
		case r > 0xffff:
			dst = append(dst, '\\', 'U')
			dst = appendHexRune(dst, r, 8)
		default:
			dst = append(dst, '\\', 'u')
			dst = appendHexRune(dst, r, 4)
		}
		i += n
	}
	return dst
}

// Escape returns s made safe for a terminal, as AppendEscaped; s itself
// when it needs nothing.
func Escape(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return string(AppendEscaped(make([]byte, 0, len(s)+8), s))
		}
	}
	return s
}

func appendControl(dst []byte, c byte) []byte {
	switch c {
	case '\a':
		return append(dst, '\\', 'a')
	case '\b':
		return append(dst, '\\', 'b')
	case '\t':
		return append(dst, '\\', 't')
	case '\n':
		return append(dst, '\\', 'n')
	case '\v':
		return append(dst, '\\', 'v')
	case '\f':
		return append(dst, '\\', 'f')
	case '\r':
		return append(dst, '\\', 'r')
	}
	return append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
}

func appendHexRune(dst []byte, r rune, digits int) []byte {
	for shift := 4 * (digits - 1); shift >= 0; shift -= 4 {
		dst = append(dst, hexDigits[(r>>shift)&15])
	}
	return dst
}
