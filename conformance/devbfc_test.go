// SPDX-License-Identifier: Apache-2.0

package conformance_test

import (
	"encoding/binary"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/device"
)

// TestBFCSkippedFrameNamed: a BFC switch that skips one τ on a port, its
// later sequence numbers following on (so BFC-SEQ holds), FAILs
// BFC-COMPLETE naming the skipped frame's time. Paired oldest-first, each
// later frame stood for the one before it, late by τ (= the time
// tolerance), and the last one "missing" after the capture's end made the
// verdict INCONCLUSIVE.
func TestBFCSkippedFrameNamed(t *testing.T) {
	vdir := filepath.Join(pcaps, "bfc/pause-resume")
	exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
	in := readCapture(t, filepath.Join(vdir, conformance.InputFile))
	t0 := in.frames[0].t
	var port0 []int
	for i, f := range exp.frames {
		if f.iface == 0 && meta(f.data).Kind == device.KindExperimental {
			port0 = append(port0, i)
		}
	}
	if len(port0) < 8 {
		t.Fatalf("%d BFC frames on port 0; the test needs a train", len(port0))
	}
	skip := port0[len(port0)-3] // two frames follow it
	at := exp.frames[skip].t.Sub(t0)
	c := &capture{names: exp.names}
	for _, i := range port0[len(port0)-2:] {
		f := exp.frames[i]
		d := slices.Clone(f.data)
		m := meta(d)
		binary.BigEndian.PutUint32(d[m.L3+8:], binary.BigEndian.Uint32(d[m.L3+8:])-1)
		exp.frames[i].data = d
	}
	c.frames = slices.Delete(slices.Clone(exp.frames), skip, skip+1)
	rep := checkDev(t, vdir, c)
	cc := rep.Check("BFC-COMPLETE")
	if rep.Verdict != conformance.Fail || cc == nil || cc.Count != 1 || time.Duration(cc.Deviations[0].Time) != at {
		t.Fatalf("one BFC frame skipped at %v: want FAIL BFC-COMPLETE at that time:\n%s", at, failText(rep))
	}
	for _, id := range []string{"BFC-SEQ", "BFC-TIMING", "CAP-END"} {
		if c := rep.Check(id); c != nil && c.Count > 0 {
			t.Errorf("%s fails too:\n%s", id, failText(rep))
		}
	}
}

// TestLatePostcardPairedByQuote: a CC-postcard sent later than the time
// tolerance is paired with the reference postcard for the marked packet
// it quotes: one PBFS-TIMING "late by", and no deviation on the on-time
// postcard after it (paired by time, the late one took that one's
// reference and both were blamed).
func TestLatePostcardPairedByQuote(t *testing.T) {
	vdir := filepath.Join(pcaps, "pbfs/congested")
	exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
	i := nth(t, exp, 0, func(m *device.Meta, f capFrame) bool { return m.Kind == device.KindPostcard })
	c := &capture{names: exp.names, frames: slices.Clone(exp.frames)}
	c.frames[i].t = c.frames[i].t.Add(1001 * time.Nanosecond)
	rep := checkDev(t, vdir, c)
	if tm := rep.Check("PBFS-TIMING"); rep.Verdict != conformance.Fail || tm == nil || tm.Count != 1 || !strings.Contains(tm.Deviations[0].Detail+tm.Deviations[0].Actual, "late by 1.001us") {
		t.Fatalf("a postcard 1.001us late: want one PBFS-TIMING late by 1.001us:\n%s", failText(rep))
	}
	for _, c := range rep.Checks {
		if c.Name != "PBFS-TIMING" && c.Count > 0 {
			t.Errorf("%s fails too:\n%s", c.Name, failText(rep))
		}
	}
}

// TestBFCTrainJitterPasses: BFC frames each within the time tolerances
// (0, +950 ns, +100 ns, 0 against their reference frames, τ = 1 µs) PASS:
// the frame 950 ns late is not paired with the next reference frame just
// ahead of it, which would leave the next frame late beyond tolerance.
func TestBFCTrainJitterPasses(t *testing.T) {
	vdir := filepath.Join(pcaps, "bfc/pause-resume")
	exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
	var port0 []int
	for i, f := range exp.frames {
		if f.iface == 0 && meta(f.data).Kind == device.KindExperimental {
			port0 = append(port0, i)
		}
	}
	c := &capture{names: exp.names, frames: slices.Clone(exp.frames)}
	for k, d := range []time.Duration{0, 950, 100, 0} {
		c.frames[port0[2+k]].t = c.frames[port0[2+k]].t.Add(d * time.Nanosecond)
	}
	rep := checkDev(t, vdir, c)
	if rep.Verdict != conformance.Pass {
		t.Errorf("BFC frames within tolerance:\n%s", failText(rep))
	}
}
