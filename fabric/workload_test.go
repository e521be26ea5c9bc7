// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/opensfc/sfc/device"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestCDF(t *testing.T) {
	for name, mean := range map[string]float64{"websearch": 1_711_250, "hadoop": 120_420.8} {
		c, err := LoadCDF(name)
		if err != nil {
			t.Fatal(err)
		}
		if m := c.Mean(); math.Abs(m-mean) > 1 {
			t.Errorf("%s mean %.1f, reproduction-targets §8 says %.1f", name, m, mean)
		}
	}
	c, _ := LoadCDF("hadoop")
	// 50 % of FB_Hadoop flows are at most 700 B (the table's 700 → 50 %).
	if s := c.Sample(0.5); s != 700 {
		t.Errorf("median %d", s)
	}
	if s := c.Sample(0.905); s <= 120000 || s >= 300000 {
		t.Errorf("90.5 %% point %d", s)
	}
	for _, bad := range []string{"", "0 0\n10 50\n", "0 0\n10 x\n", "0 0\n10 50\n5 100\n", "1 2 3\n",
		"0 0\n1000 nan\n2000 100\n", "0 0\nNaN 50\n2000 100\n", "0 0\n1000 50\ninf 100\n", "0 0\n1e30 100\n", "0 0\n0 100\n"} {
		if _, err := ReadCDF("bad", strings.NewReader(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestGenerateLoadAndIncast(t *testing.T) {
	w := Workload{CDF: "websearch", Load: 0.5, Duration: 20_000_000}
	flows, err := w.Generate(16, 100e9, 3)
	if err != nil {
		t.Fatal(err)
	}
	var octets float64
	for i, f := range flows {
		if f.Src == f.Dst || i > 0 && f.Start < flows[i-1].Start {
			t.Fatalf("flow %+v", f)
		}
		octets += float64(f.Size)
	}
	load := octets * 8 / (16 * 100e9 * 0.02)
	if load < 0.35 || load > 0.65 {
		t.Errorf("offered load %.2f, want about 0.5", load)
	}
	r := 3
	w = Workload{Degree: 8, QPs: 2, Size: 1000, Sync: 100, Incasts: 2, IncastEvery: 1000, Receiver: &r}
	flows, _ = w.Generate(16, 100e9, 1)
	if len(flows) != 32 {
		t.Fatalf("%d incast flows", len(flows))
	}
	for _, f := range flows {
		if f.Dst != 3 || f.Src == 3 || f.Start%1000 > 100 {
			t.Errorf("incast flow %+v", f)
		}
	}
	var buf bytes.Buffer
	if err := WriteFlows(&buf, flows); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFlows(&buf, 16)
	if err != nil || len(back) != len(flows) || back[5].Size != 1000 || back[5].Start != flows[5].Start {
		t.Errorf("round trip: %v", err)
	}
	if _, err := ReadFlows(strings.NewReader("2\n0 1 3 100 10 0\n"), 4); err == nil {
		t.Error("short flow file accepted")
	}
	if _, err := ReadFlows(strings.NewReader("1\n0 9 3 100 10 0\n"), 4); err == nil {
		t.Error("bad host accepted")
	}
	if _, err := ReadFlows(strings.NewReader(""), 4); err == nil {
		t.Error("empty flow file accepted")
	}
}

// TestReadFlowsStopsAtCount: HPCC's simulator reads the count, then that
// many flows, and nothing after; its shipped mix/flow.txt says 2 and goes
// on with more flows and a usage note. Reading past the count (the old
// behaviour) refused that file.
func TestReadFlowsStopsAtCount(t *testing.T) {
	in := "2\n2 1 3 100 200000000 2\n3 1 3 100 200000000 2\n4 1 3 100 150000000 2\n\nFirst line: # of flows\nsrc0 dst0 3 dst_port0 size0 start_time0\n"
	flows, err := ReadFlows(strings.NewReader(in), 5)
	if err != nil {
		t.Fatal(err)
	}
	want := []Flow{{ID: 0, Src: 2, Dst: 1, Size: 200_000_000, Start: 2e9}, {ID: 1, Src: 3, Dst: 1, Size: 200_000_000, Start: 2e9}}
	if !slices.Equal(flows, want) {
		t.Errorf("got %+v, want %+v", flows, want)
	}
	if flows, err := ReadFlows(strings.NewReader("0\nanything\n"), 5); err != nil || len(flows) != 0 {
		t.Errorf("count 0: %v, %d flows", err, len(flows))
	}
}

// TestWorkloadFlows: a fixed flow list runs as given (sorted by start),
// and a flow that is not between two hosts of the fabric is refused.
func TestWorkloadFlows(t *testing.T) {
	w := Workload{Flows: []Flow{{ID: 1, Src: 0, Dst: 1, Size: 10, Start: 50}, {ID: 0, Src: 1, Dst: 0, Size: 10, Start: 5}}, Load: 0.5, CDF: "websearch", Duration: 1e6}
	flows, err := w.Generate(2, 100e9, 1)
	if err != nil || len(flows) != 2 || flows[0].ID != 0 || flows[1].ID != 1 {
		t.Fatalf("%v %+v", err, flows)
	}
	for _, bad := range []Flow{{Src: 0, Dst: 0, Size: 1}, {Src: 0, Dst: 2, Size: 1}, {Src: -1, Dst: 1, Size: 1}, {Src: 0, Dst: 1}, {Src: 0, Dst: 1, Size: 1, Start: -1}} {
		w := Workload{Flows: []Flow{bad}}
		if _, err := w.Generate(2, 100e9, 1); err == nil {
			t.Errorf("flow %+v accepted", bad)
		}
	}
}

// TestWorkloadFlowCap: a workload that would generate more than MaxFlows
// flows is refused before any is generated (it used to take gigabytes),
// with a device.ErrParam naming the keys; so is a count key beyond it.
func TestWorkloadFlowCap(t *testing.T) {
	for _, c := range []struct {
		w    Workload
		keys string
	}{
		{Workload{Degree: 4, Size: 1000, Incasts: 2e9, IncastEvery: 1000}, "incasts"},
		{Workload{Degree: 4, Size: 1000, Incasts: 3e6, QPs: 25}, "incasts, degree, qps"},
		{Workload{CDF: "websearch", Load: 0.3, Duration: 1e14}, "load, duration"},
		{Workload{Degree: 4, Size: 1000, IncastLoad: 0.1, Duration: 1e14}, "incast_load, duration"},
		{Workload{Load: -0.1, CDF: "websearch", Duration: 1000}, "load"},
		{Workload{Load: math.NaN(), CDF: "websearch", Duration: 1000}, "load"},
		{Workload{Duration: -1}, "duration"},
	} {
		done := make(chan error, 1)
		go func() { _, err := c.w.Generate(8, 100e9, 1); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, device.ErrParam) || !strings.Contains(err.Error(), "parameter "+c.keys) {
				t.Errorf("%+v: %v", c.w, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%+v: still generating after 10 s", c.w)
		}
	}
	// A large workload below the cap is still generated.
	w := Workload{Degree: 4, Size: 1000, Incasts: 1000, IncastEvery: 1000}
	if flows, err := w.Generate(8, 100e9, 1); err != nil || len(flows) != 4000 {
		t.Errorf("%v, %d flows", err, len(flows))
	}
}

// TestReadFlowsRange: every field of a flow line is range-checked (a NaN
// or 1e10 s start used to become start_ns = MinInt64), errors name the
// line and the field, and Generate names the file.
func TestReadFlowsRange(t *testing.T) {
	for in, field := range map[string]string{
		"NaN": "start", "+Inf": "start", "1e10": "start", "-1": "start", "abc": "start",
	} {
		_, err := ReadFlows(strings.NewReader("2\n0 1 3 100 1000 0\n1 2 3 100 1000 "+in+"\n"), 4)
		if err == nil || !strings.Contains(err.Error(), "flows line 3: "+field) {
			t.Errorf("start %s: %v", in, err)
		}
	}
	for line, field := range map[string]string{
		"0 1 9 100 10 0": "pg", "0 1 3 70000 10 0": "dport", "0 1 3 -1 10 0": "dport",
		"0 1 3 100 0 0": "size", "0 1 3 100 1e3 0": "size", "5 1 3 100 10 0": "src", "0 1x 3 100 10 0": "dst",
	} {
		if _, err := ReadFlows(strings.NewReader("1\n"+line+"\n"), 4); err == nil || !strings.Contains(err.Error(), "flows line 2: "+field) {
			t.Errorf("%q: %v", line, err)
		}
	}
	if _, err := ReadFlows(strings.NewReader("20000000\n"), 4); err == nil || !strings.Contains(err.Error(), "flow count") {
		t.Errorf("huge count: %v", err)
	}
	f := filepath.Join(t.TempDir(), "ff.txt")
	if err := os.WriteFile(f, []byte("1\n0 1 3 100 10 NaN\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := Workload{FlowsFile: f}
	if _, err := w.Generate(4, 100e9, 1); !errors.Is(err, device.ErrParam) || !strings.Contains(err.Error(), f+": flows line 2: start") {
		t.Errorf("Generate: %v", err)
	}
}

// TestResolveCDF: a relative cdf file is taken from the scenario's
// directory, as flows_file is; shipped names stay names.
func TestResolveCDF(t *testing.T) {
	w := Workload{CDF: "my.txt"}
	w.ResolveCDF("/some/dir")
	if w.CDF != "/some/dir/my.txt" {
		t.Errorf("got %q", w.CDF)
	}
	for _, n := range []string{"websearch", "Hadoop", "/abs/x.txt", ""} {
		w := Workload{CDF: n}
		if w.ResolveCDF("/some/dir"); w.CDF != n {
			t.Errorf("%q became %q", n, w.CDF)
		}
	}
}

// TestCDFMeanFirstPoint: a CDF whose first point is above 0 % puts that
// mass on its first size, as Sample does; the mean counts it, so the
// offered load is the one asked (HPCC's getAvg leaves it out).
func TestCDFMeanFirstPoint(t *testing.T) {
	c, err := ReadCDF("t", strings.NewReader("100 50\n1000 100\n"))
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	const n = 200_000
	for i := 0; i < n; i++ {
		sum += float64(c.Sample((float64(i) + 0.5) / n))
	}
	if m := c.Mean(); math.Abs(m-sum/n) > 0.01*m || math.Abs(m-325) > 1 {
		t.Errorf("mean %.1f, samples average %.1f, want 50 %% × 100 + 50 %% × 550 = 325", m, sum/n)
	}
	one, _ := ReadCDF("one", strings.NewReader("100 100\n200 100\n"))
	if m := one.Mean(); m != 100 {
		t.Errorf("all mass on the first point: mean %g, want 100", m)
	}
}
