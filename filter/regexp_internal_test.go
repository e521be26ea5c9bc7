// SPDX-License-Identifier: Apache-2.0

package filter

import "testing"

// TestRegexpFoldsASCIIOnly: matches folds the case of ASCII letters only,
// as tshark 4.0's PCRE2 on octets does: on the corpus, tshark selects as
// many frames with "\xe0" as with "(?-i)\xe0", 7871, and with
// "[\xc0-\xc5]" as with "(?-i)[\xc0-\xc5]".
func TestRegexpFoldsASCIIOnly(t *testing.T) {
	for _, c := range []struct {
		pattern, subject string
		want             bool
	}{
		{"PORT1", "port1", true},
		{"(?-i)PORT1", "port1", false},
		{"(?-i:P)ort", "PORT", true},
		{"(?-i:P)ort", "pORT", false},
		{"\xe0", "\xc0", false},
		{"\xe0", "\xe0", true},
		{"a\xe0B", "A\xe0b", true},
		{"a\xe0B", "A\xc0b", false},
		{"[\xc0-\xc5]", "\xe1", false},
		{"[\xc0-\xc5]", "\xc1", true},
		{"[a-c\xe0]", "B", true},
		{"[a-c\xe0]", "\xc0", false},
		{"[^a]", "A", false},
		{"[^a]", "\xe0", true},
		{"[\\x70-\\x90]", "K", false},
		{"[\\x70-\\x90]", "Q", true},
		{"[\\x70-\\x90]", "\x85", true},
		{"hel+o", "HELLO", true},
	} {
		re, err := compileRegexp(c.pattern)
		if err != nil {
			t.Errorf("%q: %v", c.pattern, err)
			continue
		}
		rr := &latin1{b: []byte(c.subject)}
		if got := re.MatchReader(rr); got != c.want {
			t.Errorf("%q (as %s) on %q: %v, want %v", c.pattern, re, c.subject, got, c.want)
		}
	}
}
