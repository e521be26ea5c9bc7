// SPDX-License-Identifier: Apache-2.0

package timeline

import (
	"testing"
	"time"

	"github.com/opensfc/sfc/stats"
)

// TestBounded feeds a row far more intervals, markers and depth points than
// it keeps, and checks memory stays bounded while the span is kept.
func TestBounded(t *testing.T) {
	tl := New()
	tl.Row(0, "flow", false)
	tl.Series(0, "cp")
	t0 := time.Unix(1000, 0)
	n := 10 * MaxPerRow
	for i := 0; i < n; i++ {
		at := t0.Add(time.Duration(i) * 10 * time.Microsecond)
		tl.Signal(0, at, stats.KindBTS, 5*time.Microsecond)
		tl.Interval(0, at, at.Add(5*time.Microsecond))
		tl.Depth(0, at, uint64(i))
	}
	r, s := tl.rows[0], tl.series[0]
	if len(r.intervals) > MaxPerRow || len(r.markers) > MaxPerRow || len(s.points) > MaxPerRow {
		t.Fatalf("kept %d intervals, %d markers, %d points; at most %d each", len(r.intervals), len(r.markers), len(s.points), MaxPerRow)
	}
	last := t0.Add(time.Duration(n-1)*10*time.Microsecond + 5*time.Microsecond).UnixNano()
	if r.intervals[0].from != t0.UnixNano() || r.intervals[len(r.intervals)-1].to != last {
		t.Errorf("intervals span %d..%d, want %d..%d", r.intervals[0].from, r.intervals[len(r.intervals)-1].to, t0.UnixNano(), last)
	}
	if r.pausedNS != int64(n)*5000 || r.signals != n || s.max != uint64(n-1) {
		t.Errorf("paused %d signals %d max %d", r.pausedNS, r.signals, s.max)
	}
	if got := tl.Rows(Options{}); len(got) != 2 || got[0] != "flow" || got[1] != "depth cp (max 40959 B)" {
		t.Errorf("rows %q", got)
	}
}
