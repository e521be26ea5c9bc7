// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opensfc/sfc/device"
)

func smallScenario(cc CC, fc FC) Scenario {
	return Scenario{Name: "small", Seed: 7,
		Topology:  Topo{Kind: LeafSpine, ToRs: 4, Spines: 2, HostsPerToR: 8},
		Switch:    SwitchConfig{Buffer: 8 * device.MB, DynamicThreshold: true},
		FC:        fc,
		Transport: TransportConfig{CC: cc, Recovery: IRN},
		Workload:  Workload{CDF: "hadoop", Load: 0.5, Duration: 500 * device.Microsecond},
	}
}

func TestRunDeterministic(t *testing.T) {
	a, err := Run(smallScenario(CCDCQCN, FCNone), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(smallScenario(CCDCQCN, FCNone), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Completed != a.Flows || a.Flows < 50 {
		t.Fatalf("%d of %d flows completed", a.Completed, a.Flows)
	}
	if a.All != b.All || a.MaxBuffer != b.MaxBuffer || a.SimTime != b.SimTime || a.Events != b.Events {
		t.Errorf("two runs differ: %+v vs %+v", a.All, b.All)
	}
	if a.All.P50 < 1 || a.All.P99 < a.All.P50 {
		t.Errorf("slowdowns %+v", a.All)
	}
	var sb strings.Builder
	a.Summary(&sb)
	t.Log(sb.String())
}

func TestScenarioYAML(t *testing.T) {
	for _, bad := range []string{"topology: {kind: ring}\n", "nosuchkey: 1\n", "flow_control: magic\n"} {
		s, err := ReadScenario(strings.NewReader(bad))
		if err == nil {
			_, err = Run(*s, nil)
		}
		if err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	f, err := os.Open("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := ReadScenario(f)
	if err != nil {
		t.Fatal(err)
	}
	if s.Topology.Kind != LeafSpine || s.Transport.CC != CCHPCC || s.Workload.Load != 0.3 {
		t.Errorf("parsed %+v", s)
	}
}

// TestSFCTables: a 2-rack incast under SFC fills the ToRs' suppression
// filter and the sender ToR's pause cache, and suppresses most would-be
// signals; without SFC there are no tables.
func TestSFCTables(t *testing.T) {
	recv := 0
	sc := Scenario{Name: "tables", Seed: 1, Topology: Topo{Kind: LeafSpine, ToRs: 2, Spines: 2, HostsPerToR: 16},
		FC: FCSFC, SFC: SFCConfig{Cache: true}, Transport: TransportConfig{CC: CCNone, Recovery: IRN},
		Workload: Workload{Degree: 16, Size: 200_000, Remote: true, Incasts: 1, Receiver: &recv, Duration: 1}}
	r, err := Run(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.SFC == nil || r.SFC.FilterPeak < 1 || r.SFC.FilterPeak > 16 || r.SFC.CachePeak != 1 || r.SFC.Suppression <= 0.5 || r.SFC.Suppression >= 1 {
		t.Errorf("tables %+v (one receiver: one cache key; at most one BTS per sender per period)", r.SFC)
	}
	sc.FC = FCNone
	if r, _ := Run(sc, nil); r.SFC != nil {
		t.Errorf("tables without SFC: %+v", r.SFC)
	}
}

// TestLoadScenarioFlowsFile: a relative flows_file is read from the
// scenario file's directory, whatever the working directory.
func TestLoadScenarioFlowsFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("1\n0 1 3 100 1000 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	yml := "name: x\ntopology: {kind: dumbbell, left: 1, right: 1}\nworkload: {flows_file: f.txt}\n"
	if err := os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadScenario(filepath.Join(dir, "s.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "f.txt"); s.Workload.FlowsFile != want {
		t.Fatalf("flows_file %q, want %q", s.Workload.FlowsFile, want)
	}
	r, err := Run(*s, nil)
	if err != nil || r.Completed != 1 {
		t.Fatalf("run: %v", err)
	}
	abs := &Scenario{Workload: Workload{FlowsFile: "/a/b"}}
	abs.ResolvePaths(dir)
	if abs.Workload.FlowsFile != "/a/b" {
		t.Errorf("absolute path changed to %q", abs.Workload.FlowsFile)
	}
}

// TestSFCTablesBesideOtherWatchers: the SFC tables are measured whatever
// else watches the ToRs' output (PB-FS counts postcards there too: its
// watcher used to replace the tables', which then read 0 with 12 BTS
// sent), and the pause cache reads 0 when the ToRs keep none.
func TestSFCTablesBesideOtherWatchers(t *testing.T) {
	sc := Scenario{Name: "tables", Seed: 7, Topology: Topo{Kind: LeafSpine, ToRs: 2, Spines: 2, HostsPerToR: 4},
		Switch: SwitchConfig{Buffer: 4 * device.MB, DynamicThreshold: true}, FC: FCSFC,
		Transport: TransportConfig{CC: CCDCQCN, Recovery: GBN},
		Workload:  Workload{CDF: "hadoop", Load: 0.5, Duration: 500_000, Degree: 4, Size: 100_000, Incasts: 2, IncastEvery: 100_000},
		PBFS:      PBFSConfig{On: true}}
	r, err := Run(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.BTS == 0 || r.SFC == nil || r.SFC.FilterPeak == 0 {
		t.Errorf("with PB-FS: %d BTS, tables %+v; want a filter peak", r.BTS, r.SFC)
	}
	sc = Scenario{Name: "nocache", Seed: 1, Topology: Topo{Kind: LeafSpine, ToRs: 2, Spines: 2, HostsPerToR: 8},
		Switch: SwitchConfig{Buffer: 8 * device.MB, DynamicThreshold: true}, FC: FCSFC,
		Transport: TransportConfig{CC: CCHPCC, Recovery: IRN},
		Workload:  Workload{Degree: 12, Size: 250_000, Incasts: 4, IncastEvery: 100_000}}
	if r, err = Run(sc, nil); err != nil {
		t.Fatal(err)
	}
	if r.BTS == 0 || r.SFC == nil || r.SFC.CachePeak != 0 {
		t.Errorf("cache off, %d BTS: tables %+v; want no cache entry", r.BTS, r.SFC)
	}
}

// TestNoBackgroundNoStatistic: a run with incast flows only has no
// background slowdown; the summary and the CSV say so ("-", empty cells)
// rather than print zeros that read as measured.
func TestNoBackgroundNoStatistic(t *testing.T) {
	sc := smallScenario(CCDCQCN, FCNone)
	sc.Workload = Workload{Degree: 4, Size: 20_000, Incasts: 1, Duration: 1}
	r, err := Run(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.All.N != 0 || r.Incast == nil || r.Incast.N != 4 {
		t.Fatalf("all %+v incast %+v", r.All, r.Incast)
	}
	var sb strings.Builder
	r.Summary(&sb)
	var all string
	for _, l := range strings.Split(sb.String(), "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "all" {
			all = strings.Join(f, " ")
		}
	}
	if all != "all 0 - - - -" {
		t.Errorf("summary's all row %q, want \"all 0 - - - -\":\n%s", all, sb.String())
	}
	path := filepath.Join(t.TempDir(), "r.csv")
	if err := r.WriteCSV(path); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "\nall,0,0,0,,,,\n") {
		t.Errorf("CSV:\n%s", b)
	}
}
