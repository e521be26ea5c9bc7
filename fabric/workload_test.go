// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"bytes"
	"math"
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
}
