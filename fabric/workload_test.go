// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"bytes"
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
	for _, bad := range []string{"", "0 0\n10 50\n", "0 0\n10 x\n", "0 0\n10 50\n5 100\n", "1 2 3\n"} {
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
