// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/opensfc/sfc/device"
)

// summarizeBySort is the size bins as they were computed with every flow
// in memory: background flows sorted by size (stable), cut at ranks
// (i+1)·n/nbins and extended over equal sizes, each bin's slowdowns sorted
// for the percentiles. The passes over the flow log must give the same.
func summarizeBySort(fs []FlowResult, nbins int) (bins []Bin, all Bin, inc *Bin) {
	binOf := func(fs []FlowResult) Bin {
		b := Bin{N: len(fs), Lo: math.MaxInt64}
		if len(fs) == 0 {
			b.Lo = 0
			return b
		}
		s := make([]float64, len(fs))
		var sum float64
		for i, f := range fs {
			s[i] = f.Slowdown
			sum += f.Slowdown
			b.Lo, b.Hi = min(b.Lo, f.Size), max(b.Hi, f.Size)
		}
		sort.Float64s(s)
		b.Mean = sum / float64(len(s))
		b.P50, b.P95, b.P99 = percentile(s, 0.5), percentile(s, 0.95), percentile(s, 0.99)
		return b
	}
	var bg, ic []FlowResult
	for _, f := range fs {
		if f.Tag == "incast" {
			ic = append(ic, f)
		} else {
			bg = append(bg, f)
		}
	}
	sort.SliceStable(bg, func(i, j int) bool { return bg[i].Size < bg[j].Size })
	all = binOf(bg)
	bins = []Bin{}
	for i, lo := 0, 0; i < nbins && lo < len(bg); i++ {
		hi := (i + 1) * len(bg) / nbins
		for hi < len(bg) && hi > lo && bg[hi].Size == bg[hi-1].Size {
			hi++
		}
		if hi <= lo {
			continue
		}
		bins = append(bins, binOf(bg[lo:hi]))
		lo = hi
	}
	if len(ic) > 0 {
		b := binOf(ic)
		inc = &b
	}
	return bins, all, inc
}

// sameBin compares two bins exactly, the mean within 1e-12 (the log sums
// exactly, the reference in order).
func sameBin(a, b Bin) bool {
	m := a.Mean == b.Mean || math.Abs(a.Mean-b.Mean) <= 1e-12*math.Abs(b.Mean)
	a.Mean, b.Mean = 0, 0
	return m && a == b
}

func randomResults(rng *rand.Rand, n int) []FlowResult {
	tags := []string{"bg", "bg", "bg", "incast", "a2a", "mine"}
	fs := make([]FlowResult, n)
	for i := range fs {
		f := &fs[i]
		f.ID, f.Src, f.Dst = int64(i), rng.IntN(64), rng.IntN(64)
		f.Tag = tags[rng.IntN(len(tags))]
		switch rng.IntN(3) {
		case 0:
			f.Size = int64(1 + rng.IntN(20)) // many equal sizes
		case 1:
			f.Size = 1000 * int64(1+rng.IntN(5))
		default:
			f.Size = rng.Int64N(1 << 40)
		}
		f.Start, f.Ideal = rng.Int64N(1e9), 1+rng.Int64N(1e6)
		f.FCT = f.Ideal + rng.Int64N(1e7)
		f.End = f.Start + f.FCT
		f.Slowdown = max(1, float64(f.FCT)/float64(f.Ideal))
		if rng.IntN(4) == 0 {
			f.Slowdown = float64(1 + rng.IntN(3)) // ties among slowdowns
		}
		f.Retx = rng.Int64N(5)
	}
	return fs
}

// TestSummarizeFlowsAsSorted: for random results (ties of size and of
// slowdown, incast and other tags, 0 to 5,000 flows, 1 to 40 bins), the
// bins, All and Incast from the flow log are the sorted reference's, with
// the log in memory and spilled to its temporary file.
func TestSummarizeFlowsAsSorted(t *testing.T) {
	defer func(old int) { spillAt = old }(spillAt)
	rng := rand.New(rand.NewPCG(7, 8))
	for _, spill := range []int{1 << 20, 512} {
		spillAt = spill
		for _, n := range []int{0, 1, 2, 3, 17, 100, 5000} {
			for _, nbins := range []int{0, 1, 3, 10, 40} {
				fs := randomResults(rng, n)
				r := &Result{}
				for i := range fs {
					r.flows.add(&fs[i])
				}
				if spill < 1<<20 && n >= 100 && r.flows.spilled == 0 {
					t.Fatalf("%d flows, spill at %d: nothing spilled", n, spill)
				}
				if err := r.summarizeFlows(nbins); err != nil {
					t.Fatal(err)
				}
				bins, all, inc := summarizeBySort(fs, nbins)
				if len(r.Bins) != len(bins) {
					t.Fatalf("spill %d, %d flows, %d bins: %d bins, want %d", spill, n, nbins, len(r.Bins), len(bins))
				}
				for i := range bins {
					if !sameBin(r.Bins[i], bins[i]) {
						t.Fatalf("spill %d, %d flows, %d bins: bin %d %+v, want %+v", spill, n, nbins, i, r.Bins[i], bins[i])
					}
				}
				if !sameBin(r.All, all) {
					t.Fatalf("spill %d, %d flows: all %+v, want %+v", spill, n, r.All, all)
				}
				if (r.Incast == nil) != (inc == nil) || inc != nil && !sameBin(*r.Incast, *inc) {
					t.Fatalf("spill %d, %d flows: incast %+v, want %+v", spill, n, r.Incast, inc)
				}
				var back []FlowResult
				if err := r.EachFlow(func(f FlowResult) error { back = append(back, f); return nil }); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(back, fs) && !(len(back) == 0 && len(fs) == 0) {
					t.Fatalf("spill %d: %d flows read back differ from the %d added", spill, len(back), len(fs))
				}
				r.Close()
			}
		}
	}
}

// TestFlowLogLongTag: a tag of 2 MiB (a library caller's) reads back
// whole, from the temporary file.
func TestFlowLogLongTag(t *testing.T) {
	defer func(old int) { spillAt = old }(spillAt)
	spillAt = 4096
	var l flowLog
	tag := strings.Repeat("\x00\xffé", 700_000)
	l.add(&FlowResult{Flow: Flow{ID: 1, Size: 5, Tag: tag}, Slowdown: 2})
	l.add(&FlowResult{Flow: Flow{ID: 2, Size: 6, Tag: "bg"}, Slowdown: 1})
	var got []string
	err := l.each(func(r *FlowResult) error { got = append(got, r.Tag); return nil })
	if err != nil || len(got) != 2 || got[0] != tag || got[1] != "bg" || l.spilled == 0 {
		t.Errorf("err %v, %d tags back, spilled %d", err, len(got), l.spilled)
	}
	l.close()
}

// TestSummarizeFlowsCoarseSizes: past the exact limit of distinct sizes the
// bins still partition the background flows, in increasing sizes, near
// equal counts.
func TestSummarizeFlowsCoarseSizes(t *testing.T) {
	defer func(old int) { maxExactSizes = old }(maxExactSizes)
	maxExactSizes = 64
	rng := rand.New(rand.NewPCG(1, 2))
	fs := randomResults(rng, 20_000)
	r := &Result{}
	for i := range fs {
		fs[i].Tag = "bg"
		fs[i].Size = 1 + rng.Int64N(1<<30)
		r.flows.add(&fs[i])
	}
	if err := r.summarizeFlows(10); err != nil {
		t.Fatal(err)
	}
	total := 0
	for i, b := range r.Bins {
		total += b.N
		if b.N < 1500 || b.N > 2500 || i > 0 && b.Lo <= r.Bins[i-1].Hi {
			t.Errorf("bin %d: %+v (previous %+v)", i, b, r.Bins[max(i-1, 0)])
		}
	}
	if len(r.Bins) != 10 || total != len(fs) || r.All.N != len(fs) {
		t.Errorf("%d bins of %d flows, all %d, want 10 of %d", len(r.Bins), total, r.All.N, len(fs))
	}
}

// TestResultsFollowFlowsInFlight: a run's finished flows go to the flow
// log's temporary file past spillAt, so the heap holds at most spillAt
// octets of them however many flows finish, and every one reads back (the
// per-flow file has them all, each once).
func TestResultsFollowFlowsInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a small fabric for a few thousand flows")
	}
	defer func(old int) { spillAt = old }(spillAt)
	spillAt = 4096
	sc := Scenario{Name: "flows", Seed: 3,
		Topology:  Topo{Kind: LeafSpine, ToRs: 2, Spines: 2, HostsPerToR: 4},
		Switch:    SwitchConfig{Buffer: 8 * device.MB, DynamicThreshold: true},
		Transport: TransportConfig{CC: CCHPCC, Recovery: IRN},
		Workload:  Workload{CDF: "hadoop", Load: 0.5, Duration: 8 * device.Millisecond},
	}
	r, err := Run(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Completed < 2000 || r.Completed != r.Flows {
		t.Fatalf("%d of %d flows completed", r.Completed, r.Flows)
	}
	if r.flows.spilled < int64(20*r.Completed) || len(r.flows.buf) >= spillAt+128 || cap(r.flows.buf) > 4*spillAt {
		t.Errorf("%d flows: %d octets spilled, %d in memory (capacity %d), spill at %d", r.Completed, r.flows.spilled, len(r.flows.buf), cap(r.flows.buf), spillAt)
	}
	seen := map[int64]bool{}
	err = r.EachFlow(func(f FlowResult) error {
		if seen[f.ID] || f.FCT <= 0 || f.Slowdown < 1 || f.Tag != "bg" {
			t.Fatalf("flow read back: %+v (seen %v)", f, seen[f.ID])
		}
		seen[f.ID] = true
		return nil
	})
	if err != nil || len(seen) != r.Completed {
		t.Fatalf("%d flows read back of %d: %v", len(seen), r.Completed, err)
	}
	fct := filepath.Join(t.TempDir(), "fct.csv")
	if err := r.WriteFCT(fct); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(fct)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n != r.Completed+1 {
		t.Errorf("fct.csv has %d lines for %d flows", n, r.Completed)
	}
}
