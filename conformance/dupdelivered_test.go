// SPDX-License-Identifier: Apache-2.0

package conformance_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/device"
)

// TestDeliveredSignalDuplicateFails: a NIC that delivers the CIM it
// received to its host twice fails DATA-DUP (conformance.md rule 8), as
// dropping it fails DATA-LOSS: the CIM is a frame the reference delivers,
// not background, whatever its kind.
func TestDeliveredSignalDuplicateFails(t *testing.T) {
	vdir := filepath.Join(pcaps, "cim/nic-legacy")
	exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
	i := slices.IndexFunc(exp.frames, func(f capFrame) bool {
		return exp.names[f.iface] == "host" && meta(f.data).Kind == device.KindCIM
	})
	if i < 0 {
		t.Fatal("the vector delivers no CIM to the host; the test needs one that does")
	}
	check := func(what string, c *capture) *conformance.Report {
		t.Helper()
		path := filepath.Join(t.TempDir(), "dev.pcapng")
		c.write(t, path)
		rep, err := conformance.CheckFiles(filepath.Join(vdir, conformance.CaseFile), filepath.Join(vdir, conformance.InputFile), path, conformance.Options{})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return rep
	}
	if rep := check("the reference's output", exp); rep.Verdict != conformance.Pass {
		var b strings.Builder
		rep.WriteText(&b)
		t.Fatalf("the reference's own output fails:\n%s", b.String())
	}
	f := exp.frames[i]
	dup := &capture{names: exp.names, frames: slices.Insert(slices.Clone(exp.frames), i+1, capFrame{f.iface, f.t.Add(time.Nanosecond), f.data})}
	rep := check("duplicate", dup)
	if c := rep.Check("DATA-DUP"); rep.Verdict != conformance.Fail || c == nil || c.Count != 1 {
		var b strings.Builder
		rep.WriteText(&b)
		t.Fatalf("a CIM delivered twice to the host should fail DATA-DUP once:\n%s", b.String())
	}
	if rep.Background != nil && rep.Background.Total != 0 {
		t.Errorf("the duplicate is counted as background: %+v", rep.Background)
	}
}
