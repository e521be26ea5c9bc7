// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opensfc/sfc/device"
)

// generateAtOnce is the generator as it was before Arrivals streamed it:
// every flow drawn in one pass, host by host, then the incasts, then
// sorted by start (stable) and numbered. The streamed flows must be these,
// in this order, with these IDs.
func generateAtOnce(w *Workload, hosts int, bps int64, seed uint64) ([]Flow, error) {
	rng := rand.New(rand.NewPCG(seed, 0xda3e39cb94b95bdb))
	var flows []Flow
	if w.Load > 0 {
		c, err := LoadCDF(w.CDF)
		if err != nil {
			return nil, err
		}
		gap := c.Mean() * 8 / (float64(bps) * w.Load) * 1e9
		for h := 0; h < hosts; h++ {
			t := rng.ExpFloat64() * gap
			for t < float64(w.Duration) {
				d := rng.IntN(hosts - 1)
				if d >= h {
					d++
				}
				if len(flows) >= MaxFlows {
					return nil, errTooMany
				}
				flows = append(flows, Flow{Src: h, Dst: d, Size: c.Sample(rng.Float64()), Start: int64(t), Tag: "bg"})
				t += rng.ExpFloat64() * gap
			}
		}
	}
	if w.Degree > 0 {
		var starts []float64
		if w.IncastLoad > 0 {
			gap := float64(w.Degree*int(w.Size)) * 8 / (float64(bps) * float64(hosts) * w.IncastLoad) * 1e9
			for t := rng.ExpFloat64() * gap; t < float64(w.Duration); t += rng.ExpFloat64() * gap {
				starts = append(starts, t)
			}
		} else {
			for i := 0; i < max(w.Incasts, 1); i++ {
				starts = append(starts, float64(int64(i)*w.IncastEvery))
			}
		}
		for _, t0 := range starts {
			r := rng.IntN(hosts)
			if w.Receiver != nil && *w.Receiver >= 0 {
				r = *w.Receiver
			}
			k := 0
			for _, s := range rng.Perm(hosts) {
				if s == r || k == w.Degree || w.Remote && w.Rack > 0 && s/w.Rack == r/w.Rack {
					continue
				}
				k++
				st := t0
				if w.Sync > 0 {
					st += rng.Float64() * float64(w.Sync)
				}
				for q := 0; q < max(w.QPs, 1); q++ {
					flows = append(flows, Flow{Src: s, Dst: r, Size: w.Size, Start: int64(st), Tag: "incast"})
				}
			}
		}
	}
	if w.AllToAllSize > 0 {
		for s := 0; s < hosts; s++ {
			for d := 0; d < hosts; d++ {
				if s != d {
					flows = append(flows, Flow{Src: s, Dst: d, Size: w.AllToAllSize, Tag: "a2a"})
				}
			}
		}
	}
	sort.SliceStable(flows, func(i, j int) bool { return flows[i].Start < flows[j].Start })
	for i := range flows {
		flows[i].ID = int64(i)
	}
	return flows, nil
}

// TestArrivalsAreTheFlowsAtOnce: for background, incast (periodic and
// Poisson, synchronized within a window wider than the gap between
// incasts, several queue pairs, remote only, a fixed receiver) and
// all-to-all workloads, alone and mixed, the streamed flows are exactly
// the all-at-once generator's, and Len, First and Last agree with them.
func TestArrivalsAreTheFlowsAtOnce(t *testing.T) {
	recv := 3
	// Flows of 1-8 octets at 100 Gb/s: a gap under 1 ns between a host's
	// flows, so that hosts start flows in the same ns and the order at
	// equal starts is tested.
	tiny := filepath.Join(t.TempDir(), "tiny.txt")
	if err := os.WriteFile(tiny, []byte("1 0\n8 100\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, w := range map[string]Workload{
		"bg websearch":         {CDF: "websearch", Load: 0.5, Duration: 2_000_000},
		"bg hadoop high load":  {CDF: "hadoop", Load: 0.9, Duration: 200_000},
		"incast periodic":      {Degree: 7, Size: 64_000, Incasts: 5, IncastEvery: 10_000},
		"incast sync overlaps": {Degree: 5, Size: 10_000, Incasts: 20, IncastEvery: 1_000, Sync: 5_000, QPs: 2},
		"incast poisson":       {Degree: 4, Size: 20_000, IncastLoad: 0.2, Duration: 500_000, Sync: 30_000},
		"incast remote":        {Degree: 6, Size: 1_000, Incasts: 3, IncastEvery: 0, Remote: true, Rack: 4},
		"incast receiver":      {Degree: 3, Size: 1_000, Incasts: 4, IncastEvery: 7, Receiver: &recv, Sync: 100},
		"all to all":           {AllToAllSize: 5_000},
		"bg ties":              {CDF: tiny, Load: 0.9, Duration: 100},
		"ties across sources":  {CDF: tiny, Load: 0.9, Duration: 50, Degree: 3, Size: 1, Incasts: 50, IncastEvery: 1, AllToAllSize: 1},
		"mixed":                {CDF: "hadoop", Load: 0.4, Duration: 300_000, Degree: 8, Size: 30_000, IncastLoad: 0.1, Sync: 2_000, AllToAllSize: 700},
		"mixed periodic at 0":  {CDF: "hadoop", Load: 0.6, Duration: 100_000, Degree: 3, Size: 1_000, Incasts: 10, IncastEvery: 5_000, AllToAllSize: 100},
	} {
		for _, seed := range []uint64{1, 2, 99} {
			want, err := generateAtOnce(&w, 16, 100e9, seed)
			if err != nil {
				t.Fatal(name, err)
			}
			a, err := w.Arrivals(16, 100e9, seed)
			if err != nil {
				t.Fatal(name, err)
			}
			if a.Len() != len(want) {
				t.Fatalf("%s seed %d: Len %d, want %d", name, seed, a.Len(), len(want))
			}
			if len(want) > 0 && (a.First() != want[0].Start || a.Last() != want[len(want)-1].Start) {
				t.Errorf("%s seed %d: first %d last %d, want %d %d", name, seed, a.First(), a.Last(), want[0].Start, want[len(want)-1].Start)
			}
			for i, wf := range want {
				f, ok := a.Next()
				if !ok || f != wf {
					t.Fatalf("%s seed %d: flow %d is %+v (%v), want %+v", name, seed, i, f, ok, wf)
				}
			}
			if f, ok := a.Next(); ok {
				t.Fatalf("%s seed %d: a flow after the last: %+v", name, seed, f)
			}
		}
	}
}

// TestArrivalsMemoryFollowsHosts: the stream of a long background
// workload holds a cursor a host, not the flows.
func TestArrivalsMemoryFollowsHosts(t *testing.T) {
	w := Workload{CDF: "hadoop", Load: 0.5, Duration: 300_000_000}
	a, err := w.Arrivals(8, 100e9, 1)
	if err != nil {
		t.Fatal(err)
	}
	if a.Len() < 100_000 || a.list != nil || len(a.bg) != 8 {
		t.Fatalf("%d flows, list %v, %d cursors", a.Len(), a.list != nil, len(a.bg))
	}
	n := 0
	for _, ok := a.Next(); ok; _, ok = a.Next() {
		n++
	}
	if n != a.Len() {
		t.Errorf("%d flows streamed, Len %d", n, a.Len())
	}
}

// TestWriteArrivals: the streamed flow file is WriteFlows' of the same
// flows, count line included.
func TestWriteArrivals(t *testing.T) {
	w := Workload{CDF: "hadoop", Load: 0.4, Duration: 300_000, Degree: 8, Size: 30_000, IncastLoad: 0.1, Sync: 2_000}
	flows, err := w.Generate(16, 100e9, 5)
	if err != nil {
		t.Fatal(err)
	}
	a, err := w.Arrivals(16, 100e9, 5)
	if err != nil {
		t.Fatal(err)
	}
	var want, got bytes.Buffer
	if err := WriteFlows(&want, flows); err != nil {
		t.Fatal(err)
	}
	if err := WriteArrivals(&got, a); err != nil {
		t.Fatal(err)
	}
	if len(flows) < 100 || got.String() != want.String() {
		t.Errorf("%d flows; streamed file differs:\n%.300s\nwant\n%.300s", len(flows), got.String(), want.String())
	}
}

// TestArrivalsFlowsFile: a flows file in start order (ties included) is
// read as the run takes its flows, the same flows ReadFlows gives; one out
// of order is sorted whole; one that changes between the first reading
// and the run's stops the stream with an error naming the file.
func TestArrivalsFlowsFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sorted := write("sorted.txt", "4\n0 1 3 100 1000 0\n2 3 3 100 500 0.000001\n3 0 3 100 700 0.000001\n1 2 3 100 9 0.5\nnot read\n")
	unsorted := write("unsorted.txt", "3\n0 1 3 100 1000 0.2\n2 3 3 100 500 0.1\n3 0 3 100 700 0.1\n")
	for _, c := range []struct {
		path     string
		streamed bool
	}{{sorted, true}, {unsorted, false}} {
		f, err := os.Open(c.path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ReadFlows(f, 4)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		w := Workload{FlowsFile: c.path}
		a, err := w.Arrivals(4, 100e9, 1)
		if err != nil {
			t.Fatal(err)
		}
		if (a.scan != nil) != c.streamed || a.Len() != len(want) || a.First() != want[0].Start || a.Last() != want[len(want)-1].Start {
			t.Errorf("%s: streamed %v, %d flows %d..%d; want %v, %d", c.path, a.scan != nil, a.Len(), a.First(), a.Last(), c.streamed, len(want))
		}
		for i, wf := range want {
			if f, ok := a.Next(); !ok || f != wf {
				t.Fatalf("%s: flow %d is %+v, want %+v", c.path, i, f, wf)
			}
		}
		if _, ok := a.Next(); ok || a.Err() != nil || a.file != nil {
			t.Errorf("%s: after the last flow: more %v, err %v, file open %v", c.path, ok, a.Err(), a.file != nil)
		}
	}
	w := Workload{FlowsFile: sorted}
	a, err := w.Arrivals(4, 100e9, 1)
	if err != nil {
		t.Fatal(err)
	}
	write("sorted.txt", "4\n0 1 3 100 1000 0\n")
	n := 0
	for _, ok := a.Next(); ok; _, ok = a.Next() {
		n++
	}
	if err := a.Err(); n != 1 || err == nil || !strings.Contains(err.Error(), "sorted.txt changed") {
		t.Errorf("%d flows, err %v", n, err)
	}
}

// TestArrivalsFlowsFileFIFO: a flows file that is a FIFO (or a pipe, as
// /dev/stdin) is read once, as a list, not opened a second time.
func TestArrivalsFlowsFileFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "flows.fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("SKIP: no FIFO here: %v", err)
	}
	go func() {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.WriteString("2\n0 1 3 100 1000 0\n1 0 3 100 500 0.000002\n")
		f.Close()
	}()
	w := Workload{FlowsFile: p}
	done := make(chan error, 1)
	var got []Flow
	go func() {
		a, err := w.Arrivals(2, 100e9, 1)
		if err == nil {
			for f, ok := a.Next(); ok; f, ok = a.Next() {
				got = append(got, f)
			}
			err = a.Err()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil || len(got) != 2 || got[1].Start != 2000 {
			t.Errorf("flows %+v, err %v", got, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Arrivals on a FIFO still blocked after 10 s")
	}
}

// TestRunUnfinishedWithRepeatedIDs: explicit flows may repeat an ID on
// different hosts; the one that never finishes is the one listed
// unfinished, whichever of the two finishes first.
func TestRunUnfinishedWithRepeatedIDs(t *testing.T) {
	sc := Scenario{Name: "dup", Seed: 1, Drain: 200 * device.Microsecond,
		Topology:  Topo{Kind: LeafSpine, ToRs: 2, Spines: 1, HostsPerToR: 2},
		Transport: TransportConfig{CC: CCHPCC, Recovery: IRN},
		Workload: Workload{Flows: []Flow{
			{ID: 7, Src: 0, Dst: 1, Size: 1 << 40},
			{ID: 7, Src: 2, Dst: 1, Size: 1000, Start: 1000},
		}},
	}
	r, err := Run(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Completed != 1 || len(r.unfinished) != 1 || r.unfinished[0].Src != 0 {
		t.Errorf("%d completed, unfinished %+v; want the 1 TiB flow from host 0", r.Completed, r.unfinished)
	}
}

// TestFlowsInFlightBounded: workloads that start more than MaxInFlight
// flows at one instant are refused before the run, naming the keys; a run
// that comes to hold more than the bound stops with an error; a flows-file
// size above MaxSize is refused on its line.
func TestFlowsInFlightBounded(t *testing.T) {
	for _, c := range []struct {
		w    Workload
		key  string
		host int
	}{
		{Workload{AllToAllSize: 1000}, "all_to_all_size", 600},
		{Workload{Degree: 7, Size: 1000, Incasts: 1_000_000}, "incasts, degree, qps", 8},
		{Workload{Degree: 7, Size: 1000, Incasts: 40_000, QPs: 2}, "incasts, degree, qps", 8},
	} {
		err := c.w.Check(c.host, 100e9)
		if err == nil || !strings.Contains(err.Error(), c.key) || !strings.Contains(err.Error(), "MaxInFlight") {
			t.Errorf("%+v: %v", c.w, err)
		}
	}
	if err := (&Workload{AllToAllSize: 1000}).Check(512, 100e9); err != nil {
		t.Errorf("a 512-host all-to-all: %v", err)
	}
	defer func(old int) { maxInFlight = old }(maxInFlight)
	maxInFlight = 5
	sc := Scenario{Name: "many", Seed: 1,
		Topology:  Topo{Kind: LeafSpine, ToRs: 2, Spines: 1, HostsPerToR: 4},
		Transport: TransportConfig{CC: CCHPCC, Recovery: IRN},
		Workload:  Workload{Degree: 7, Size: 100_000},
	}
	if _, err := Run(sc, nil); err == nil || !strings.Contains(err.Error(), "more than 5 flows in flight") {
		t.Errorf("7 flows at once with a bound of 5: %v", err)
	}
	if _, err := ReadFlows(strings.NewReader("1\n0 1 3 100 9223372036854775807 0.000001\n"), 4); err == nil || !strings.Contains(err.Error(), "flows line 2: size") {
		t.Errorf("a size of 2^63-1 octets: %v", err)
	}
}

// TestArrivalsFlowsFileSortedInChunks: a flows file out of order longer
// than flowSortChunk is sorted in chunks kept in a temporary file and
// merged: the same flows, order (equal starts in file order) and IDs as
// sorting the whole file, for chunks of every size around the file's and
// with the log spilled or in memory; the memory held is a chunk's.
func TestArrivalsFlowsFileSortedInChunks(t *testing.T) {
	defer func(c, s int) { flowSortChunk, spillAt = c, s }(flowSortChunk, spillAt)
	rng := rand.New(rand.NewPCG(7, 7))
	const n = 1000
	var b strings.Builder
	b.WriteString("1000\n")
	for i := 0; i < n; i++ {
		src := rng.IntN(8)
		// Few distinct starts, many ties; sizes up to 2^40 (long varints).
		b.WriteString(strings.Join([]string{strconv.Itoa(src), strconv.Itoa((src + 1 + rng.IntN(7)) % 8), "3", "100",
			strconv.FormatInt(1+rng.Int64N(1<<40), 10), strconv.FormatFloat(float64(rng.IntN(50))*1e-6, 'f', 9, 64)}, " ") + "\n")
	}
	p := filepath.Join(t.TempDir(), "flows.txt")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := ReadFlows(strings.NewReader(b.String()), 8)
	if err != nil {
		t.Fatal(err)
	}
	for _, chunk := range []int{1, 2, 7, 333, 999, 1000, 1001} {
		for _, spill := range []int{64, 1 << 20} {
			flowSortChunk, spillAt = chunk, spill
			w := Workload{FlowsFile: p}
			a, err := w.Arrivals(8, 100e9, 1)
			if err != nil {
				t.Fatal(err)
			}
			if merged := chunk < n; (a.merge != nil) != merged || a.list != nil == merged {
				t.Errorf("chunk %d: merged %v, list %v", chunk, a.merge != nil, a.list != nil)
			}
			if a.merge != nil {
				if runs := len(a.merge.runs); runs != (n+chunk-1)/chunk {
					t.Errorf("chunk %d: %d runs", chunk, runs)
				}
				if spill < 1<<20 && (a.merge.log.spilled == 0 || len(a.merge.log.buf) >= spill+5*binary.MaxVarintLen64) {
					t.Errorf("chunk %d: %d octets spilled, %d in memory", chunk, a.merge.log.spilled, len(a.merge.log.buf))
				}
			}
			if a.Len() != n || a.First() != want[0].Start || a.Last() != want[n-1].Start {
				t.Errorf("chunk %d: %d flows %d..%d, want %d..%d", chunk, a.Len(), a.First(), a.Last(), want[0].Start, want[n-1].Start)
			}
			for i, wf := range want {
				if f, ok := a.Next(); !ok || f != wf {
					t.Fatalf("chunk %d spill %d: flow %d is %+v (%v), want %+v", chunk, spill, i, f, ok, wf)
				}
			}
			if _, ok := a.Next(); ok || a.Err() != nil || a.merge != nil {
				t.Errorf("chunk %d: after the last flow: more %v, err %v, merge open %v", chunk, ok, a.Err(), a.merge != nil)
			}
		}
	}
	// Closed before the end: an error, the temporary file released.
	flowSortChunk, spillAt = 10, 64
	a, err := (&Workload{FlowsFile: p}).Arrivals(8, 100e9, 1)
	if err != nil {
		t.Fatal(err)
	}
	a.Next()
	if err := a.Close(); err != nil || a.merge != nil || a.Err() == nil || !strings.Contains(a.Err().Error(), "closed after 1 of 1000") {
		t.Errorf("Close: %v, merge %v, Err %v", err, a.merge != nil, a.Err())
	}
	// A bad line after the first chunk is the file's error, with its line.
	bad := b.String() + "x"
	bad = strings.Replace(bad, "1000\n", "1001\n", 1)
	if err := os.WriteFile(p, []byte(bad+" 1 3 100 5 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (&Workload{FlowsFile: p}).Arrivals(8, 100e9, 1); err == nil || !strings.Contains(err.Error(), "flows line 1002: src \"x\"") {
		t.Errorf("bad line: %v", err)
	}
}
