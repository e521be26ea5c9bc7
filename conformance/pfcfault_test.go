package conformance_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/conformance/scenario"
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
