// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"math"
	"testing"
	"time"
)

// TestTimeValues: frame.time_epoch, time_relative and time_delta are exact
// for times int64 nanoseconds cannot hold (after 2262, before 1678) and
// for gaps between them, with one minus sign for a negative time, as
// tshark prints them.
func TestTimeValues(t *testing.T) {
	far := time.Unix(1<<40, 0).UTC()
	epoch := time.Unix(0, 0).UTC()
	for _, c := range []struct {
		v    Value
		want string
	}{
		{TimeValue(1<<40, 0), "1099511627776.000000000"},
		{timeSince(epoch, far), "-1099511627776.000000000"},
		{timeSince(far, epoch), "1099511627776.000000000"},
		{timeSince(time.Unix(0, 0), time.Unix(0, 500_000_000)), "-0.500000000"},
		{timeSince(time.Unix(5, 1), time.Unix(3, 999_999_999)), "1.000000002"},
		{TimeValue(0, -1), "-0.000000001"},
		{TimeValue(math.MinInt64, 0), "-9223372036854775808.000000000"},
		{TimeValue(math.MinInt64, 1), "-9223372036854775807.999999999"},
		{TimeValue(math.MaxInt64, 999_999_999), "9223372036854775807.999999999"},
		{TimeValue(-1, 1_500_000_000), "0.500000000"},
	} {
		if got := string(AppendValue(nil, c.v, false)); got != c.want {
			t.Errorf("%+v: %s, want %s", c.v, got, c.want)
		}
	}
	// Through the fields, for a frame at 2^40 s read after one at 0.
	f := &Frame{Time: far, Start: epoch, Prev: epoch}
	for name, want := range map[string]string{"frame.time_epoch": "1099511627776.000000000",
		"frame.time_relative": "1099511627776.000000000", "frame.time_delta": "1099511627776.000000000"} {
		fd, ok := LookupField(name)
		if !ok {
			t.Fatalf("no field %s", name)
		}
		vs := fd.Values(f, nil)
		if len(vs) != 1 || string(AppendValue(nil, vs[0], false)) != want {
			t.Errorf("%s: %+v, want %s", name, vs, want)
		}
	}
}
