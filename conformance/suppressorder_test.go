// SPDX-License-Identifier: Apache-2.0

package conformance_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opensfc/sfc/conformance"
)

// TestSwappedSignalsPass: two signals of one flow that leave in the
// opposite order of their triggers, each within the time tolerance
// (conformance.md rule 6 asks no order), pass SFC-BTS-SUPPRESS: the
// suppression phase is judged on the triggers, sorted. The same capture
// with a second signal for a flow within its reset period still fails
// (where the reference suppresses a decision to add one for: flow-mix).
func TestSwappedSignalsPass(t *testing.T) {
	for _, name := range []string{"sfc/flow-mix", "sfc/pause-clamp"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(pcaps, name)
			v := loadVec(t, dir)
			check := func(c *capture) *conformance.Report {
				t.Helper()
				path := filepath.Join(t.TempDir(), "dev.pcapng")
				c.write(t, path)
				rep, err := conformance.CheckFiles(filepath.Join(dir, conformance.CaseFile), filepath.Join(dir, conformance.InputFile), path, conformance.Options{})
				if err != nil {
					t.Fatal(err)
				}
				return rep
			}
			text := func(rep *conformance.Report) string {
				var b strings.Builder
				rep.WriteText(&b)
				return b.String()
			}
			sfc := v.idx(famSFC)
			swapped, pi, pj, ok := v.swapInTol(v.exp.clone(), sfc)
			if !ok {
				t.Fatal("no two signals of a flow less than the time tolerance apart; the test needs them")
			}
			withEnd(swapped)
			rep := check(swapped)
			if rep.Verdict != conformance.Pass {
				t.Fatalf("signals %d and %d of one flow swapped within the tolerance fail:\n%s", pi, pj, text(rep))
			}
			if c := rep.Check(v.prefix + "-SUPPRESS"); c == nil || c.Checked == 0 {
				t.Fatalf("suppression not checked: %+v", c)
			}
			// A real violation on top of the swap is still caught.
			for _, i := range sfc {
				c, ok := v.secondSignal(swapped.clone(), i)
				if !ok {
					continue
				}
				rep := check(c)
				if sc := rep.Check(v.prefix + "-SUPPRESS"); sc == nil || sc.Count == 0 {
					t.Fatalf("a second signal within the reset period passes SUPPRESS:\n%s", text(rep))
				}
				return
			}
			if name == "sfc/flow-mix" {
				t.Fatal("no suppressed decision to add a signal for")
			}
		})
	}
}

// swapInTol makes signal i of c (indices of v.exp, listed in sfc) leave
// 1 ns after the next signal j of its flow on its port, where j follows
// it by less than the time tolerance: both stay within it, in swapped
// order. It reports false when no signals are that close.
func (v *vecInfo) swapInTol(c *capture, sfc []int) (*capture, int, int, bool) {
	for n, i := range sfc {
		si, _ := sfcVals(v.exp.frames[i].data)
		for _, j := range sfc[n+1:] {
			sj, _ := sfcVals(v.exp.frames[j].data)
			if sj.FlowKey().FiveTuple() != si.FlowKey().FiveTuple() || v.exp.frames[j].iface != v.exp.frames[i].iface {
				continue
			}
			if d := v.exp.frames[j].t.Sub(v.exp.frames[i].t); d > 0 && d < mTol {
				c.frames[i].t = v.exp.frames[j].t.Add(time.Nanosecond)
				return c, i, j, true
			}
			break
		}
	}
	return nil, 0, 0, false
}
