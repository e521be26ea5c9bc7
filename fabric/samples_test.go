// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/opensfc/sfc/device"
)

// sortedRank is the reference: the k-th smallest of v.
func sortedRank(v []int64, k int64) int64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[min(max(k, 0), int64(len(s))-1)]
}

// TestQuantilesExact: while the samples take at most maxExact distinct
// values, every rank and percentile is the sorted slice's, zeros and
// repeats included (the buffer percentiles of every CI figure rest on it).
func TestQuantilesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		n    int
		gen  func() int64
	}{
		{"zeros", 100, func() int64 { return 0 }},
		{"one", 1, func() int64 { return 7 }},
		{"mostly idle", 5000, func() int64 {
			if rng.IntN(4) > 0 {
				return 0
			}
			return rng.Int64N(12 << 20)
		}},
		{"repeats", 20000, func() int64 { return 1078 * rng.Int64N(int64(maxExact)) }},
	} {
		var q quantiles
		v := make([]int64, tc.n)
		for i := range v {
			v[i] = tc.gen()
			q.add(v[i])
		}
		if q.coarse {
			t.Fatalf("%s: coarse with %d distinct values", tc.name, len(q.counts))
		}
		n := int64(len(v))
		for _, k := range []int64{0, (n - 1) / 2, (n - 1) * 9 / 10, (n - 1) * 99 / 100, n - 1, n + 5} {
			if got, want := q.rank(k), sortedRank(v, k); got != want {
				t.Errorf("%s: rank %d = %d, want %d", tc.name, k, got, want)
			}
		}
		fs := make([]float64, len(v))
		for i, x := range v {
			fs[i] = float64(x)
		}
		slices.Sort(fs)
		for _, p := range []float64{0.1, 0.5, 0.9, 0.99, 1} {
			if got, want := q.percentile(p), int64(percentile(fs, p)); got != want {
				t.Errorf("%s: percentile %g = %d, want %d", tc.name, p, got, want)
			}
		}
	}
	var empty quantiles
	if empty.rank(0) != 0 || empty.percentile(0.99) != 0 {
		t.Error("empty quantiles: want 0")
	}
}

// TestQuantilesCoarse: past maxExact distinct values the memory stays
// bounded (the distinct keys of values below 2^40 fit in a few thousand)
// and each order statistic is the true one rounded down by at most
// 2^-(coarseBits-1), never above it.
func TestQuantilesCoarse(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var q quantiles
	v := make([]int64, 400_000)
	for i := range v {
		v[i] = rng.Int64N(1 << 40)
		q.add(v[i])
	}
	if !q.coarse {
		t.Fatal("not coarse after 400,000 distinct values")
	}
	if len(q.counts) > (40-coarseBits+2)<<(coarseBits-1) {
		t.Errorf("%d distinct keys kept: not bounded", len(q.counts))
	}
	s := slices.Clone(v)
	slices.Sort(s)
	for _, k := range []int64{0, 1000, 200_000, 396_000, 399_999} {
		got, want := q.rank(k), s[k]
		if got > want || float64(want-got) > float64(want)*math.Ldexp(1, 1-coarseBits) {
			t.Errorf("rank %d = %d, true %d: outside (−%g, 0]", k, got, want, math.Ldexp(1, 1-coarseBits))
		}
	}
	// Small values stay exact when coarse.
	for x := int64(0); x < 1<<coarseBits; x++ {
		if coarsen(x) != x {
			t.Fatalf("coarsen(%d) = %d", x, coarsen(x))
		}
	}
}

// TestSeriesLogSpill: rows come back exactly, in order, from memory and
// from the temporary file, and the memory held stays below spillAt.
func TestSeriesLogSpill(t *testing.T) {
	defer func(old int) { spillAt = old }(spillAt)
	spillAt = 4096
	rng := rand.New(rand.NewPCG(7, 8))
	const width, rows = 5, 20_000
	want := make([][]int64, rows)
	s := newSeriesLog(width)
	row := make([]int64, width)
	maxBuf := 0
	for k := range want {
		for i := range row {
			switch rng.IntN(3) {
			case 0:
				row[i] = 0
			case 1:
				row[i] = rng.Int64N(32 << 20)
			}
		}
		want[k] = slices.Clone(row)
		s.add(row)
		maxBuf = max(maxBuf, len(s.buf))
	}
	if s.spilled == 0 || s.noSpill {
		t.Fatalf("nothing spilled (noSpill %v)", s.noSpill)
	}
	if maxBuf >= spillAt+width*binaryMaxVarint {
		t.Errorf("held %d octets in memory, spill at %d", maxBuf, spillAt)
	}
	var k int64
	err := s.each(func(i int64, got []int64) error {
		if i != k || !slices.Equal(got, want[k]) {
			t.Fatalf("row %d (%d): %v, want %v", i, k, got, want[k])
		}
		k++
		return nil
	})
	if err != nil || k != rows {
		t.Fatalf("each: %d rows, %v", k, err)
	}
	// A second walk reads the same (the file is read, not consumed).
	k = 0
	if err := s.each(func(int64, []int64) error { k++; return nil }); err != nil || k != rows {
		t.Fatalf("second walk: %d rows, %v", k, err)
	}
	// A cut file is an error naming the row, not a short series.
	s.spilled -= 3
	if err := s.each(func(int64, []int64) error { return nil }); err == nil {
		t.Error("a cut samples file read as whole")
	}
}

const binaryMaxVarint = 10

// TestRunPercentilesExact: a run's buffer percentiles (pooled and per
// switch) are the order statistics of the samples its series holds, as
// sorting every sample gave before the samples left the heap.
func TestRunPercentilesExact(t *testing.T) {
	// Each switch's counts go coarse at 100 distinct values; the pooled
	// ones must stay exact (the review found them rounded as soon as one
	// switch went coarse).
	defer func(old int) { maxExact = old }(maxExact)
	maxExact = 100
	sc := smallScenario(CCDCQCN, FCNone)
	sc.SampleEvery = 1000
	sc.Workload.Duration = 4 * device.Millisecond
	r, err := Run(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	var all []int64
	per := make([][]float64, len(r.Switches))
	err = r.EachBuffer(func(_ int64, row []int64) error {
		for i, v := range row {
			all = append(all, v)
			per[i] = append(per[i], float64(v))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(all)
	n := len(all)
	distinct := len(slices.Compact(slices.Clone(all)))
	if distinct <= 8192 {
		t.Fatalf("only %d distinct values pooled: the test needs more than the default per-switch limit", distinct)
	}
	want := [4]int64{all[(n-1)/2], all[(n-1)*9/10], all[(n-1)*99/100], all[n-1]}
	if r.BufferPct != want {
		t.Errorf("BufferPct %v, sorted samples give %v", r.BufferPct, want)
	}
	for i, v := range per {
		slices.Sort(v)
		// Coarse per switch: at most 2^-(coarseBits-1) below, never above.
		got, want := r.Switches[i].P99, int64(percentile(v, 0.99))
		if !r.bufQ[i].coarse || got > want || float64(want-got) > float64(want)*math.Ldexp(1, 1-coarseBits) {
			t.Errorf("switch %d P99 %d (coarse %v), sorted samples give %d", i, got, r.bufQ[i].coarse, want)
		}
	}
}

// TestPooledExactPastOneSwitch: the pooled buffer percentiles stay exact
// when one switch alone passes maxExact distinct values (the review found
// them rounded: a merge of the per-switch counts took the first coarse
// switch's rounding), and percentile(0) is the minimum, as percentile()
// on a sorted slice gives.
func TestPooledExactPastOneSwitch(t *testing.T) {
	var sw, all quantiles
	all.limit = maxExactPooled
	var v []int64
	for i := int64(0); i < 3*int64(maxExact); i++ {
		x := 100_000 + 7*i
		sw.add(x)
		all.add(x)
		v = append(v, x)
	}
	if !sw.coarse || all.coarse {
		t.Fatalf("switch coarse %v, pooled coarse %v", sw.coarse, all.coarse)
	}
	n := int64(len(v))
	for _, k := range []int64{(n - 1) / 2, (n - 1) * 99 / 100, n - 1} {
		if got, want := all.rank(k), sortedRank(v, k); got != want {
			t.Errorf("pooled rank %d = %d, want %d", k, got, want)
		}
	}
	if got := all.percentile(0); got != 100_000 {
		t.Errorf("percentile(0) = %d, want the minimum 100000", got)
	}
}

// TestResultClose: Close releases the samples' temporary file of a long
// run and leaves the other results; a second Close is harmless.
func TestResultClose(t *testing.T) {
	defer func(old int) { spillAt = old }(spillAt)
	spillAt = 256
	sc := smallScenario(CCDCQCN, FCNone)
	sc.SampleEvery = 1000
	r, err := Run(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.bufLog.f == nil {
		t.Fatal("no temporary file: the test needs a spill")
	}
	f := r.bufLog.f
	all := r.All
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Stat(); err == nil {
		t.Error("the samples' file is still open after Close")
	}
	if r.BufferRows() != 0 || r.All != all {
		t.Errorf("after Close: %d rows, all %+v (was %+v)", r.BufferRows(), r.All, all)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestSpillLogReadAt: ReadAt gives the log's octets at every offset and
// length, across the boundary between the temporary file and memory, and
// io.EOF with what there is past the end.
func TestSpillLogReadAt(t *testing.T) {
	defer func(old int) { spillAt = old }(spillAt)
	spillAt = 16
	var s spillLog
	defer s.close()
	var want []byte
	for i := 0; i < 41; i++ {
		s.buf = append(s.buf, byte(i*7))
		want = append(want, byte(i*7))
		s.added()
	}
	if s.spilled == 0 || len(s.buf) == 0 {
		t.Fatalf("spilled %d, in memory %d: want both", s.spilled, len(s.buf))
	}
	for off := 0; off <= len(want)+1; off++ {
		for n := 0; n <= len(want)+2-off; n++ {
			p := make([]byte, n)
			k, err := s.ReadAt(p, int64(off))
			end := min(off+n, len(want))
			exp := want[min(off, len(want)):end]
			if k != len(exp) || !bytes.Equal(p[:k], exp) || (k < n) != (err == io.EOF) || err != nil && err != io.EOF {
				t.Fatalf("ReadAt(%d octets, %d): %d %v %x, want %x", n, off, k, err, p[:k], exp)
			}
		}
	}
}
