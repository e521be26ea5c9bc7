// SPDX-License-Identifier: Apache-2.0

package filter

import (
	"testing"
	"time"
)

// TestLocalTimeInDSTGap: a local time that does not exist (02:30 on the
// day New York springs forward) reads with the offset before the gap, as
// glibc's mktime and so tshark read it (07:30 UTC; Go's time.Date gives
// 06:30); times around it, an ambiguous fall-back time and fields carried
// over (Feb 30) read as before.
func TestLocalTimeInDSTGap(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skipf("no zone America/New_York (%v): the DST gap is not checked", err)
	}
	for _, c := range []struct {
		lit  string
		want string // UTC
	}{
		{"2024-03-10 02:30:00", "2024-03-10T07:30:00Z"},
		{"2024-03-10 02:00:00", "2024-03-10T07:00:00Z"},
		{"2024-03-10 01:59:59", "2024-03-10T06:59:59Z"},
		{"2024-03-10 03:00:00", "2024-03-10T07:00:00Z"},
		{"2024-11-03 01:30:00", "2024-11-03T05:30:00Z"},
		{"2024-02-30 12:00:00", "2024-03-01T17:00:00Z"},
		{"Mar 10, 2024 02:30:00", "2024-03-10T07:30:00Z"},
	} {
		v, err := parseAbsTime(c.lit, ny)
		if err != nil {
			t.Errorf("%q: %v", c.lit, err)
			continue
		}
		got := time.Unix(int64(v.U), int64(v.N)).UTC().Format(time.RFC3339)
		if got != c.want {
			t.Errorf("%q in New York: %s, want %s", c.lit, got, c.want)
		}
	}
}
