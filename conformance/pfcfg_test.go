// SPDX-License-Identifier: Apache-2.0

package conformance_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/conformance/scenario"
	"github.com/opensfc/sfc/floodgate"
	"github.com/opensfc/sfc/postcard"
)

// TestLosslessDropIsConfigFault: behaviour.md §4, a reference run that
// drops a lossless frame reports a configuration fault, never a silent
// drop. A 3-to-1 PFC incast with a 2 KB headroom (frames keep arriving
// for a link RTT after XOFF) cannot be generated: the error names the
// case key params.headroom, its line, and the fault; with the default
// headroom the same incast generates and replays.
func TestLosslessDropIsConfigFault(t *testing.T) {
	args := []string{"--scheme", "pfc", "--senders", "3", "--burst", "48KB", "--param", "xoff=20KB"}
	for _, small := range []bool{true, false} {
		a := args
		if small {
			a = append(a[:len(a):len(a)], "--param", "headroom=2KB")
		}
		v, err := scenario.Make("incast", a)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := v.Write(dir); err != nil {
			t.Fatal(err)
		}
		_, err = conformance.GenerateVector(dir, false)
		if !small {
			if err != nil {
				t.Fatalf("default headroom: %v", err)
			}
			if rep, err := conformance.RunVector(dir, conformance.Options{}); err != nil || rep.Verdict != conformance.Pass {
				t.Errorf("default headroom: replay %v %v", rep.Verdict, err)
			}
			continue
		}
		var ce *conformance.CaseError
		if !errors.As(err, &ce) || !conformance.IsUnusable(err) {
			t.Fatalf("small headroom: %v (%T), want a case error", err, err)
		}
		if ce.Key != "params.headroom" || ce.Line == 0 {
			t.Errorf("fault at key %q line %d, want params.headroom and its line", ce.Key, ce.Line)
		}
		for _, w := range []string{"configuration fault", "lossless frame(s)", "headroom of 2000 octets"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q does not say %q", err, w)
			}
		}
	}
}

// TestPBFSFloodgateParams: sender_rate and mtu reach the PB-FS switch
// (T_Δ = Δ × mtu / sender_rate; defaults 1,078 octets and the
// server-facing ports' speed, so 517 ns at 100 Gb/s and 2,069 ns behind
// 25 Gb/s hosts), and Floodgate's m defaults to 1.
func TestPBFSFloodgateParams(t *testing.T) {
	base := `description: "p"
role: switch
schemes: [pbfs, floodgate]
ports:
  - id: 0
    speed: 25G
    server_facing: true
    prefixes: [10.0.0.0/24]
  - id: 1
    speed: 100G
    prefixes: [0.0.0.0/0]
`
	for _, tc := range []struct {
		extra  string
		tDelta int64
		m      float64
	}{
		{"", 2069, 1},
		{"params:\n  sender_rate: 100G\n", 517, 1},
		{"params:\n  sender_rate: 100G\n  mtu: 1500B\n  m: 1.5\n", 720, 1.5},
	} {
		c, err := conformance.ParseCase("case.yaml", []byte(base+tc.extra))
		if err != nil {
			t.Fatal(err)
		}
		m, err := conformance.BuildModel(c)
		if err != nil {
			t.Fatal(err)
		}
		var pb *postcard.Switch
		var fg *floodgate.Switch
		for _, s := range m.Dev.Schemes() {
			switch x := s.(type) {
			case *postcard.Switch:
				pb = x
			case *floodgate.Switch:
				fg = x
			}
		}
		if pb == nil || fg == nil {
			t.Fatalf("%q: schemes %v", tc.extra, m.Dev.Schemes())
		}
		if got := pb.SenderWindow(m.Dev, 1); got != tc.tDelta {
			t.Errorf("%q: T_Δ %d, want %d", tc.extra, got, tc.tDelta)
		}
		if fg.P.M != tc.m {
			t.Errorf("%q: m %v, want %v", tc.extra, fg.P.M, tc.m)
		}
	}
	_, err := conformance.ParseCase("case.yaml", []byte(base+"params:\n  sender_rate: 100\n"))
	var ces conformance.CaseErrors
	if !errors.As(err, &ces) || ces[0].Key != "params.sender_rate" || !strings.Contains(err.Error(), "needs a unit") {
		t.Errorf("sender_rate without a unit: %v", err)
	}
}
