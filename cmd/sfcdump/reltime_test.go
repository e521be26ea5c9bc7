// SPDX-License-Identifier: Apache-2.0

package main

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestRelNanos: relNanos is t.Sub(first).Nanoseconds() for capture times
// (no monotonic reading), near and far apart, before and after, with and
// without a borrow of nanoseconds, up to Sub's saturation.
func TestRelNanos(t *testing.T) {
	times := []time.Time{
		time.Unix(0, 0).UTC(), time.Unix(1, 999999999).UTC(), time.Unix(1767225600, 1).UTC(),
		time.Unix(math.MaxUint32, 999999999).UTC(), time.Unix(-1, 5).UTC(),
		time.Unix(1<<33-1, 3).UTC(), time.Unix(1<<33, 0).UTC(), time.Unix(1<<34, 7).UTC(),
		time.Unix(1<<62, 123).UTC(), time.Unix(-1<<62, 0).UTC(),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).In(time.FixedZone("x", 3600)),
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		sec := r.Int64N(1<<35) - 1<<34
		times = append(times, time.Unix(sec, r.Int64N(1e9)).UTC())
	}
	for _, a := range times {
		for _, b := range times[:40] {
			if got, want := relNanos(a, b), a.Sub(b).Nanoseconds(); got != want {
				t.Fatalf("relNanos(%v, %v) = %d, want %d", a, b, got, want)
			}
			if got, want := relNanos(b, a), b.Sub(a).Nanoseconds(); got != want {
				t.Fatalf("relNanos(%v, %v) = %d, want %d", b, a, got, want)
			}
		}
	}
}
