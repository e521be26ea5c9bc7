// SPDX-License-Identifier: Apache-2.0

package conformance

import "testing"

// TestValueList: the expected values a deviation names: distinct, in the
// order seen, six at most and then "…".
func TestValueList(t *testing.T) {
	for _, c := range []struct {
		in   []int64
		want string
	}{
		{nil, ""},
		{[]int64{7}, "7"},
		{[]int64{3, 3, 0, 3, 65535}, "3, 0, 65535"},
		{[]int64{1, 2, 3, 4, 5, 6}, "1, 2, 3, 4, 5, 6"},
		{[]int64{1, 2, 3, 4, 5, 6, 6, 1}, "1, 2, 3, 4, 5, 6"},
		{[]int64{1, 2, 3, 4, 5, 6, 7, 1}, "1, 2, 3, 4, 5, 6, …"},
		{[]int64{-5, 1 << 40}, "-5, 1099511627776"},
	} {
		var l valueList
		for _, x := range c.in {
			l.add(x)
		}
		if got := l.String(); got != c.want {
			t.Errorf("%v: %q, want %q", c.in, got, c.want)
		}
	}
}
