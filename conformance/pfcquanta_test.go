// SPDX-License-Identifier: Apache-2.0

package conformance_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/device"
)

// TestConfiguredQuantaExact: a PFC switch's pause quanta are configured
// (behaviour.md §4: time[p] = pause quanta), a field of rule 3, so
// tolerances.pause does not widen them: quanta 999 for 1000 FAILs
// PFC-QUANTA with the tolerance at 1 µs (probe round 5: it PASSed).
// SFC-P's quanta, derived from a BTS pause (rule 4), are still widened:
// one quantum off passes there with the same tolerance.
func TestConfiguredQuantaExact(t *testing.T) {
	for _, tc := range []struct {
		vector  string
		fail    bool
		schemes string // replaces the case's schemes: list, when set
	}{
		{"pfc/xoff-refresh-xon", true, ""},
		{"sfc-p/bts-to-pfc", false, ""},
		// SFC-P listed but on no port: the PFC switch's quanta stay
		// configured, exact (the review found them widened).
		{"pfc/xoff-refresh-xon", true, "[pfc, sfc, sfc-p]"},
	} {
		vdir := filepath.Join(pcaps, tc.vector)
		dir := t.TempDir()
		cs, err := os.ReadFile(filepath.Join(vdir, conformance.CaseFile))
		if err != nil {
			t.Fatal(err)
		}
		if tc.schemes != "" {
			cs = []byte(strings.Replace(string(cs), "schemes: [pfc]", "schemes: "+tc.schemes, 1))
		}
		casePath := filepath.Join(dir, conformance.CaseFile)
		if err := os.WriteFile(casePath, append(cs, "tolerances:\n  pause: 1us\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
		exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
		c := &capture{names: exp.names, frames: slices.Clone(exp.frames)}
		changed := false
		for i, f := range c.frames {
			d := f.data
			if meta(d).Kind != device.KindPFC {
				continue
			}
			vec := binary.BigEndian.Uint16(d[16:])
			for p := 0; p < 8 && !changed; p++ {
				if q := binary.BigEndian.Uint16(d[18+2*p:]); vec&(1<<p) != 0 && q > 1 {
					nd := slices.Clone(d)
					binary.BigEndian.PutUint16(nd[18+2*p:], q-1)
					c.frames[i].data, changed = nd, true
				}
			}
			if changed {
				break
			}
		}
		if !changed {
			t.Fatalf("%s: no PFC XOFF to change", tc.vector)
		}
		path := filepath.Join(dir, "dev.pcapng")
		c.write(t, path)
		rep, err := conformance.CheckFiles(casePath, filepath.Join(vdir, conformance.InputFile), path, conformance.Options{})
		if err != nil {
			t.Fatal(err)
		}
		q := rep.Check("PFC-QUANTA")
		if tc.fail && (rep.Verdict != conformance.Fail || q == nil || q.Count != 1) {
			t.Errorf("%s: configured quanta one off with tolerances.pause 1us: want FAIL PFC-QUANTA:\n%s", tc.vector, failText(rep))
		}
		if !tc.fail && rep.Verdict != conformance.Pass {
			t.Errorf("%s: SFC-P quanta one off with tolerances.pause 1us: want PASS:\n%s", tc.vector, failText(rep))
		}
	}
}
