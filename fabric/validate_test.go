// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opensfc/sfc/device"
)

// TestScenarioRanges: every numeric key of a scenario refuses NaN,
// infinity, negative and huge values with a *ScenarioError that names the
// file, the line and the key, before anything runs (sample_every -1 used
// to loop forever, growing memory).
func TestScenarioRanges(t *testing.T) {
	base, err := os.ReadFile("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		extra string // appended at the top level, or replacing a workload key
		key   string
		line  int
	}{
		{"sample_every: -1", "sample_every", 21},
		{"sample_every: 1", "sample_every", 21},
		{"sample_every: 999", "sample_every", 21},
		{"sample_every: .nan", "sample_every", 21},
		{"drain: -1", "drain", 21},
		{"drain: 1e15", "drain", 21},
		{"bins: -1", "bins", 21},
		{"bins: 1000000000", "bins", 21},
		{"seed: -5", "seed", 21},
		{"pfc: {xoff: .inf}", "pfc.xoff", 21},
		{"transport: {cc: hpcc, rto_low: -3}", "transport.rto_low", 21},
		{"workload: {cdf: websearch, load: -0.5, duration: 1000}", "workload.load", 21},
		{"workload: {cdf: websearch, load: .nan, duration: 1000}", "workload.load", 21},
		{"workload: {cdf: websearch, load: 2, duration: 1000}", "workload.load", 21},
		{"workload: {cdf: websearch, load: 0.3, duration: -5}", "workload.duration", 21},
		{"workload: {cdf: websearch, load: 0.3, duration: 1e14}", "workload.duration", 21},
		{"workload: {cdf: /nonexistent/cdf, load: 0.3, duration: 1000}", "workload.cdf", 21},
		{"workload: {load: 0.3, duration: 1000}", "workload.cdf", 0},
		{"workload: {degree: 4, size: 1000, incasts: 2000000000, incast_every: 1000}", "workload.incasts", 21},
		{"workload: {degree: 4, size: -1}", "workload.size", 21},
		{"workload: {degree: 4, size: 1000, incast_load: 1.5, duration: 10}", "workload.incast_load", 21},
		{"workload: {degree: 4, size: 1000, receiver: -2}", "workload.receiver", 21},
		{"workload: {cdf: websearch, load: 0.3, duration: 1000, incasts: 5}", "workload.incasts", 21},
		{"workload: {cdf: websearch, load: 0.3, duration: 1000, sync: 5}", "workload.sync", 21},
		{"seed: 18446744073709551616", "seed", 21},
		{"sample_every: 1000\ndrain: 100000000000", "sample_every", 21},
	} {
		// Comment out the base's key (line for line) when the case
		// sets it, so that keys are not duplicated.
		text := string(base)
		if strings.HasPrefix(c.extra, "workload:") {
			text = text[:strings.Index(text, "workload:")] + "# workload\n#\n#\n#\n"
		}
		if strings.HasPrefix(c.extra, "seed:") {
			text = strings.Replace(text, "seed: 1\n", "# seed\n", 1)
		}
		if strings.HasPrefix(c.extra, "transport:") {
			text = strings.Replace(text, "transport:\n  cc: hpcc\n  recovery: irn\n", "# transport\n#\n#\n", 1)
		}
		lines := strings.Count(text, "\n")
		f := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(f, []byte(text+c.extra+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadScenario(f)
		if err == nil {
			t.Errorf("%q: accepted", c.extra)
			continue
		}
		if c.key == "" {
			continue // a YAML type error (uint64 seed), reported by the decoder
		}
		var se *ScenarioError
		if !errors.As(err, &se) || !errors.Is(err, device.ErrParam) {
			t.Errorf("%q: %T %v, want a *ScenarioError", c.extra, err, err)
			continue
		}
		want := c.line
		if want != 0 {
			want = lines + 1
		}
		if se.Key != c.key || se.File != f || se.Line != want || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%q: key %q line %d (%v), want key %q line %d", c.extra, se.Key, se.Line, err, c.key, want)
		}
	}
}

// TestRunValidates: Run itself refuses a scenario value out of range (for
// programs and sweeps that build a Scenario without LoadScenario).
func TestRunValidates(t *testing.T) {
	sc, err := LoadScenario("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sc.SampleEvery = -1
	if _, err := Run(*sc, nil); !errors.Is(err, device.ErrParam) {
		t.Errorf("sample_every -1: %v", err)
	}
	sc.SampleEvery = 0
	// 1-octet incasts at full load for 99 s: ~1e13 flows.
	sc.Workload = Workload{Degree: 4, Size: 1, IncastLoad: 1, Duration: 99 * 1000 * device.Millisecond}
	if _, err := Run(*sc, nil); !errors.Is(err, device.ErrParam) || !strings.Contains(err.Error(), "workload.incast_load") {
		t.Errorf("huge flow count: %v", err)
	}
}

// TestSamplesBoundedOnceFlowsKnown: a flow that starts late (from a flows
// file or inline) would have the run sample every switch's buffer through
// the idle gap, and many switches multiply the samples: both are refused
// before the run, naming sample_every, where they once grew to gigabytes.
func TestSamplesBoundedOnceFlowsKnown(t *testing.T) {
	base := Scenario{Name: "late", Seed: 1, Topology: Topo{Kind: LeafSpine, ToRs: 2, Spines: 1, HostsPerToR: 2}}
	late := base
	late.Workload.Flows = []Flow{{Src: 0, Dst: 1, Size: 1000}, {ID: 1, Src: 0, Dst: 2, Size: 1000, Start: 200 * 1000 * device.Millisecond}}
	var se *ScenarioError
	if _, err := Run(late, nil); !errors.As(err, &se) || se.Key != "sample_every" || !strings.Contains(se.Msg, "per switch") {
		t.Errorf("a flow at 200 s: %v", err)
	}
	wide := base
	wide.Topology = Topo{Kind: LeafSpine, ToRs: 255, Spines: 255, HostsPerToR: 1}
	wide.SampleEvery = device.Microsecond
	wide.Workload.Flows = []Flow{{Src: 0, Dst: 1, Size: 1000, Start: 100 * device.Millisecond}}
	if _, err := Run(wide, nil); !errors.As(err, &se) || se.Key != "sample_every" || !strings.Contains(se.Msg, "510 switches") {
		t.Errorf("510 switches sampled every 1 us for 200 ms: %v", err)
	}
	ok := base
	ok.Workload.Flows = []Flow{{Src: 0, Dst: 1, Size: 1000, Start: device.Millisecond}}
	if r, err := Run(ok, nil); err != nil || r.Completed != 1 {
		t.Errorf("a flow at 1 ms: %v", err)
	}
}

// TestWholeNumbers: a fraction where the scenario's field is a whole
// number (tors: 2.5, workload.degree: 3.7, seed: 7.9) is refused with its
// line, not cut to 2, 3 and 7; a whole number written as 2.0 and a
// fraction where the field is fractional (workload.load) are fine.
func TestWholeNumbers(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		yaml, key string
		line      int
	}{
		{"topology: {kind: leafspine, tors: 2.5, spines: 1, hosts_per_tor: 2}\n", "topology.tors", 1},
		{"seed: 7.9\ntopology: {kind: leafspine, tors: 2, spines: 1, hosts_per_tor: 2}\n", "seed", 1},
		{"topology: {kind: leafspine, tors: 2, spines: 1, hosts_per_tor: 4}\nworkload:\n  degree: 3.7\n  size: 1000\n", "workload.degree", 3},
		{"topology: {kind: leafspine, tors: 2.0, spines: 1, hosts_per_tor: 2}\nworkload: {load: 0.25, cdf: hadoop, duration: 10000}\n", "", 0},
	} {
		p := filepath.Join(dir, "s.yaml")
		os.WriteFile(p, []byte(tc.yaml), 0o644)
		_, err := LoadScenario(p)
		var se *ScenarioError
		if tc.key == "" {
			if err != nil {
				t.Errorf("%q: %v", tc.yaml, err)
			}
			continue
		}
		if !errors.As(err, &se) || se.Key != tc.key || se.Line != tc.line || !strings.Contains(se.Msg, "not a whole number") {
			t.Errorf("%q: %v; want %s at line %d", tc.yaml, err, tc.key, tc.line)
		}
	}
}

// TestTransportAndECNRanges: the CC, recovery and ECN parameters are
// range-checked once defaulted (gains in (0, 1], rto_high ≥ rto_low ≥ 1 µs,
// t_high > t_low, kmax ≥ kmin, rates up to the line rate), each error
// naming the parameter: out of range they made runs wrong or endless.
func TestTransportAndECNRanges(t *testing.T) {
	base := Scenario{Name: "r", Seed: 1, Topology: Topo{Kind: LeafSpine, ToRs: 2, Spines: 1, HostsPerToR: 2},
		Workload: Workload{Flows: []Flow{{Src: 0, Dst: 1, Size: 1000}}}}
	for _, tc := range []struct {
		name string
		set  func(s *Scenario)
	}{
		{"rto_high", func(s *Scenario) { s.Transport.RTOLow, s.Transport.RTOHigh = 5_000_000, 1 }},
		{"rto_low", func(s *Scenario) { s.Transport.RTOLow = 10 }},
		{"dcqcn.g", func(s *Scenario) { s.Transport.CC, s.Transport.DCQCN.G = CCDCQCN, 5 }},
		{"dcqcn.min_rate", func(s *Scenario) { s.Transport.DCQCN.MinRate = 1 }},
		{"dcqcn.ai", func(s *Scenario) { s.Transport.DCQCN.AI = 1e15 }},
		{"hpcc.eta", func(s *Scenario) { s.Transport.HPCC.Eta = 1.5 }},
		{"dctcp.g", func(s *Scenario) { s.Transport.DCTCP.G = 7 }},
		{"timely.beta", func(s *Scenario) { s.Transport.TIMELY.Beta = 50 }},
		{"timely.t_high", func(s *Scenario) { s.Transport.TIMELY.TLow, s.Transport.TIMELY.THigh = 100_000, 10 }},
		{"base_rtt", func(s *Scenario) { s.Transport.BaseRTT = 1 }},
		{"kmax", func(s *Scenario) { s.ECN = &ECN{Kmin: 1_000_000, Kmax: 10, Pmax: 0.2} }},
		{"pmax", func(s *Scenario) { s.ECN = &ECN{Kmin: 10, Kmax: 100, Pmax: 2} }},
	} {
		sc := base
		tc.set(&sc)
		var pe *device.ParamError
		if _, err := Run(sc, nil); !errors.As(err, &pe) || pe.Name != tc.name {
			t.Errorf("%s out of range: %v", tc.name, err)
		}
	}
	if _, err := Run(base, nil); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

// TestReadScenarioBounds: an empty scenario and one over MaxScenarioSize
// are errors, not a zero scenario or a silently cut one.
func TestReadScenarioBounds(t *testing.T) {
	for _, doc := range []string{"", "# a comment only\n", "\n\n"} {
		if _, err := ReadScenario(strings.NewReader(doc)); err == nil || !strings.Contains(err.Error(), "the scenario is empty") {
			t.Errorf("empty scenario %q: %v (want \"the scenario is empty\", not the decoder's EOF)", doc, err)
		}
	}
	big := "name: x\n# " + strings.Repeat("x", MaxScenarioSize) + "\n"
	if _, err := ReadScenario(strings.NewReader(big)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("a scenario over %d octets: %v", MaxScenarioSize, err)
	}
}

// TestLinkZero: a link's speed or delay of 0 would be taken as not given
// (the default, 1 µs for delay): refused, naming the key and line.
func TestLinkZero(t *testing.T) {
	f := filepath.Join(t.TempDir(), "z.yaml")
	os.WriteFile(f, []byte("name: z\ntopology:\n  kind: leafspine\n  up: {delay: 0}\nworkload: {degree: 3, size: 1000}\n"), 0o644)
	_, err := LoadScenario(f)
	var se *ScenarioError
	if !errors.As(err, &se) || se.Key != "topology.up.delay" || se.Line != 4 {
		t.Errorf("%v", err)
	}
}
