// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestAppendEscaped(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"port1", "port1"},
		{"eth0 (uplink) 100%", "eth0 (uplink) 100%"},
		{"\x1b[2J\x1b]0;owned\a", `\x1b[2J\x1b]0;owned\a`},
		{"line1\r\nline2\ttab\b\f\v", `line1\r\nline2\ttab\b\f\v`},
		{"del\x7f nul\x00", `del\x7f nul\x00`},
		{"bad \xff\xfe utf8 \xc3", `bad \xff\xfe utf8 \xc3`},
		{"user\u202Egnp.exe", `user\u202egnp.exe`},
		{"iso\u2066late\u2069 lrm\u200e zwj\u200d", `iso\u2066late\u2069 lrm\u200e zwj\u200d`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"tag \U000E0041", `tag \U000e0041`},
		{"café 端口 Ωmega", "café 端口 Ωmega"},
		{`\Device\NPF_{AB}`, `\Device\NPF_{AB}`},
	} {
		got := string(AppendEscaped(nil, tc.in))
		if got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
		if again := Escape(got); again != got {
			t.Errorf("%q: escaping twice changes %q to %q", tc.in, got, again)
		}
		if !utf8.ValidString(got) {
			t.Errorf("%q: result %q is not valid UTF-8", tc.in, got)
		}
		for _, c := range []byte(got) {
			if c < 0x20 || c == 0x7f {
				t.Errorf("%q: result %q holds control octet %#x", tc.in, got, c)
			}
		}
	}
}

func TestAppendEscapedDoesNotAllocate(t *testing.T) {
	buf := make([]byte, 0, 256)
	s := "port\x1b[31m\u202e\xff"
	if n := testing.AllocsPerRun(100, func() { buf = AppendEscaped(buf[:0], s) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

// TestAppendJSONText: a string from a capture in JSON is the text a
// terminal is shown (AppendEscaped), quoted so that the line stays valid
// JSON: its quotes and backslashes escaped, nothing else added.
func TestAppendJSONText(t *testing.T) {
	for _, c := range []struct{ in, want, decoded string }{
		{"port1", `"port1"`, "port1"},
		{`He said "hi"`, `"He said \"hi\""`, `He said "hi"`},
		{`\Device\NPF_{1}`, `"\\Device\\NPF_{1}"`, `\Device\NPF_{1}`},
		{"a\x1b[2Jb", `"a\\x1b[2Jb"`, `a\x1b[2Jb`},
		{"\u202e\xff\"", `"\\u202e\\xff\""`, `\u202e\xff"`},
		{"", `""`, ""},
	} {
		got := appendJSONText([]byte("x"), c.in)
		if string(got[1:]) != c.want || got[0] != 'x' {
			t.Errorf("%q: %s, want %s", c.in, got, c.want)
			continue
		}
		var s string
		if err := json.Unmarshal(got[1:], &s); err != nil || s != c.decoded {
			t.Errorf("%q: decodes to %q (%v), want %q", c.in, s, err, c.decoded)
		}
	}
	if n := testing.AllocsPerRun(100, func() { appendJSONText(make([]byte, 0, 64), `a"b\c`) }); n > 1 {
		t.Errorf("%v allocations", n)
	}
}
