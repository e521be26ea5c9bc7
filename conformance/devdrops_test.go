// SPDX-License-Identifier: Apache-2.0

package conformance_test

import (
	"compress/gzip"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/zeebo/blake3"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/device"
)

// TestCaptureDropsExplainMissing: over the corpus, the reference's output
// without one of its frames FAILs; with an interface statistics block
// that says the capture dropped a frame on that frame's interface, the
// same capture is INCONCLUSIVE (conformance.md rule 9), with no rule
// FAILed and CAP-DROPS naming the deviations not judged: the frame the
// device "did not send" may be the one the capture lost. Drops counted
// on another interface explain nothing on this one: FAIL. A frame
// present with a wrong value still FAILs beside the drops
// (TestCaptureDropsKeepDefiniteFaults).
func TestCaptureDropsExplainMissing(t *testing.T) {
	n := 0
	for _, vdir := range vectors(t) {
		exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
		if len(exp.frames) < 4 {
			continue
		}
		i := len(exp.frames) / 3
		c := &capture{names: exp.names, frames: slices.Delete(slices.Clone(exp.frames), i, i+1)}
		rep := checkDev(t, vdir, c)
		if rep.Verdict != conformance.Fail {
			// Removing this frame is not a definite fault here (a port
			// left silent, a frame the capture's end hides).
			continue
		}
		n++
		if len(exp.names) > 1 {
			other := uint32((exp.frames[i].iface + 1) % len(exp.names))
			if rep := checkDev(t, vdir, c, func(path string) { appendISBDropsOn(t, path, other, 1) }); rep.Verdict != conformance.Fail {
				t.Errorf("%s without frame %d, drops counted on another interface: want FAIL, got %v", vdir, i+1, rep.Verdict)
			}
		}
		rep = checkDev(t, vdir, c, func(path string) { appendISBDropsOn(t, path, uint32(exp.frames[i].iface), 1) })
		d := rep.Check("CAP-DROPS")
		if rep.Verdict != conformance.Inconclusive || d == nil || d.Count == 0 || !strings.Contains(d.Deviations[0].Detail, "not judged") {
			t.Errorf("%s without frame %d and a capture that says it dropped one: want INCONCLUSIVE naming the frames not judged:\n%s", vdir, i+1, failText(rep))
		}
		for _, c := range rep.Checks {
			if c.Verdict == conformance.Fail {
				t.Errorf("%s: %s FAILs though the capture dropped a frame", vdir, c.Name)
			}
		}
	}
	if n < 30 {
		t.Errorf("only %d vectors FAIL without a frame; the test needs more", n)
	}
}

// TestCaptureDropsCompressed: the drops a pcapng counts are found in a
// gzip- or zstd-compressed device capture as in a plain one (the scan
// reads the capture's octets after decompression), so the missing frame
// is INCONCLUSIVE there too, not a FAIL; the capture digest stays the
// BLAKE3 of the file as stored, as b3sum gives it.
func TestCaptureDropsCompressed(t *testing.T) {
	vdir := filepath.Join(pcaps, "pfc/xoff-refresh-xon")
	exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
	i := nth(t, exp, 0, func(m *device.Meta, f capFrame) bool { return m.Kind == device.KindPFC })
	c := &capture{names: exp.names, frames: slices.Delete(slices.Clone(exp.frames), i, i+1)}
	if rep := checkDev(t, vdir, c); rep.Verdict != conformance.Fail {
		t.Fatalf("without its first PFC frame: want FAIL, got %v", rep.Verdict)
	}
	compress := map[string]func(path string){
		"gzip": func(path string) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			w := gzip.NewWriter(f)
			if _, err := w.Write(b); err != nil || w.Close() != nil || f.Close() != nil {
				t.Fatal("gzip", err)
			}
		},
		"zstd": func(path string) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			w, err := zstd.NewWriter(nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, w.EncodeAll(b, nil), 0o644); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, z := range compress {
		var sum string
		rep := checkDev(t, vdir, c, func(path string) { appendISBDropsOn(t, path, uint32(exp.frames[i].iface), 1) }, z,
			func(path string) {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				h := blake3.Sum256(b)
				sum = "blake3:" + hex.EncodeToString(h[:])
			})
		if d := rep.Check("CAP-DROPS"); rep.Verdict != conformance.Inconclusive || d == nil || d.Count == 0 {
			t.Errorf("%s: a capture that says it dropped the missing frame: want INCONCLUSIVE, got:\n%s", name, failText(rep))
		}
		if rep.CaptureDigest != sum {
			t.Errorf("%s: capture digest %s, want the stored file's %s", name, rep.CaptureDigest, sum)
		}
	}
}

// TestCaptureDropsKeepDefiniteFaults: drops explain an absent frame, not
// a present one that is wrong: a field changed in a signal still FAILs
// with the capture's drops beside it.
func TestCaptureDropsKeepDefiniteFaults(t *testing.T) {
	vdir := filepath.Join(pcaps, "pfc/xoff-refresh-xon")
	exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
	i := nth(t, exp, 0, func(m *device.Meta, f capFrame) bool { return m.Kind == device.KindPFC })
	c := &capture{names: exp.names, frames: slices.Clone(exp.frames)}
	c.frames[i].data = slices.Clone(c.frames[i].data)
	c.frames[i].data[6] ^= 0x02 // the source MAC
	rep := checkDev(t, vdir, c, func(path string) { appendISBDrops(t, path, 1) })
	if f := rep.Check("PFC-FIELDS"); rep.Verdict != conformance.Fail || f == nil || f.Verdict != conformance.Fail {
		t.Errorf("a PFC frame with a changed source MAC should FAIL PFC-FIELDS beside the drops:\n%s", failText(rep))
	}
	// Two data frames of a flow swapped, on the port that dropped
	// frames: drops cannot reorder what was captured.
	c = &capture{names: exp.names, frames: slices.Clone(exp.frames)}
	a := nth(t, c, 2, func(m *device.Meta, f capFrame) bool { return m.Kind == device.KindData })
	b := nextOfFlow(c, a)
	c.frames[a].data, c.frames[b].data = c.frames[b].data, c.frames[a].data
	rep = checkDev(t, vdir, c, func(path string) { appendISBDropsOn(t, path, uint32(c.frames[a].iface), 1) })
	if f := rep.Check("DATA-ORDER"); rep.Verdict != conformance.Fail || f == nil || f.Verdict != conformance.Fail {
		t.Errorf("two frames of a flow swapped should FAIL DATA-ORDER beside the drops:\n%s", failText(rep))
	}
}

// TestEmptyDeviceCapture: a device capture with its interfaces and no
// frame is INCONCLUSIVE, its CAP-END saying so (not a time of -2^63 ns),
// and each rule whose reference frames it could not show is INCONCLUSIVE
// with them counted as not judged, not "PASS 12 checked".
func TestEmptyDeviceCapture(t *testing.T) {
	vdir := filepath.Join(pcaps, "pfc/xoff-refresh-xon")
	exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
	rep := checkDev(t, vdir, &capture{names: exp.names})
	end := rep.Check("CAP-END")
	if rep.Verdict != conformance.Inconclusive || end == nil || end.Count != 1 || end.Deviations[0].Actual != "no frame at all" || strings.Contains(failText(rep), "--9223") {
		t.Errorf("CAP-END of an empty capture:\n%s", failText(rep))
	}
	for _, id := range []string{"PFC-XOFF", "PFC-XON", "DATA-LOSS"} {
		if c := rep.Check(id); c == nil || c.Verdict != conformance.Inconclusive || c.NotJudged == 0 {
			t.Errorf("%s of an empty capture: %+v", id, c)
		}
	}
}

// TestJUnitOfAVoidLiveRun: a run whose notes make it INCONCLUSIVE (a
// live run that slipped) reports its device deviations as skipped, not
// failures: a CI that grades on failures= does not fail a void run.
func TestJUnitOfAVoidLiveRun(t *testing.T) {
	vdir := filepath.Join(pcaps, "pfc/xoff-refresh-xon")
	exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
	rep := checkDev(t, vdir, &capture{names: exp.names, frames: slices.Delete(slices.Clone(exp.frames), 27, 28)})
	if rep.Verdict != conformance.Fail {
		t.Fatalf("%v", rep.Verdict)
	}
	var b strings.Builder
	if err := conformance.WriteJUnit(&b, []*conformance.Report{rep}); err != nil || !strings.Contains(b.String(), `failures="1"`) {
		t.Fatalf("a FAIL report's JUnit: %v\n%s", err, b.String())
	}
	rep.Notes = []string{"sending slipped"}
	b.Reset()
	if err := conformance.WriteJUnit(&b, []*conformance.Report{rep}); err != nil || strings.Contains(b.String(), `failures="1"`) || !strings.Contains(b.String(), "INCONCLUSIVE (sending slipped)") {
		t.Errorf("a void run's JUnit: %v\n%s", err, b.String())
	}
}

// TestCaptureDropsKeepQuotedFaults: a BTS paired with its decision by the
// packet it quotes, with a wrong pause time or sent late, still FAILs on
// a port whose capture dropped frames: no dropped frame shifts a pairing
// by quote.
func TestCaptureDropsKeepQuotedFaults(t *testing.T) {
	vdir := filepath.Join(pcaps, "sfc/incast-first-bts")
	exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
	i := nth(t, exp, 0, func(m *device.Meta, f capFrame) bool { return m.Kind == device.KindBTS })
	for _, fault := range []string{"pause", "late"} {
		c := &capture{names: exp.names, frames: slices.Clone(exp.frames)}
		f := &c.frames[i]
		f.data = slices.Clone(f.data)
		m := meta(f.data)
		rule := "SFC-BTS-PAUSE"
		if fault == "pause" {
			f.data[m.Payload+2] ^= 0x40 // the pause time, 16384 us off
			fixChecksums(f.data)
		} else {
			f.t = f.t.Add(1001 * time.Nanosecond)
			rule = "SFC-BTS-TIMING"
		}
		rep := checkDev(t, vdir, c, func(path string) { appendISBDropsOn(t, path, uint32(f.iface), 1) })
		if c := rep.Check(rule); rep.Verdict != conformance.Fail || c == nil || c.Verdict != conformance.Fail {
			t.Errorf("%s beside the drops should FAIL %s:\n%s", fault, rule, failText(rep))
		}
	}
}

// TestCaptureDropsKeepPostcardCounts: a postcard paired with the
// reference's by the packet it quotes carries counts the device computed
// from what it received, which no frame the capture dropped can change:
// a count off beside the drops still FAILs PBFS-COUNTS.
func TestCaptureDropsKeepPostcardCounts(t *testing.T) {
	vdir := filepath.Join(pcaps, "pbfs/congested")
	exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
	i := nth(t, exp, 0, func(m *device.Meta, f capFrame) bool { return m.Kind == device.KindPostcard })
	c := &capture{names: exp.names, frames: slices.Clone(exp.frames)}
	f := &c.frames[i]
	f.data = slices.Clone(f.data)
	m := meta(f.data)
	f.data[m.Payload+20] ^= 0x40 // postcard.ip_bytes, 1 GiB off
	fixChecksums(f.data)
	rep := checkDev(t, vdir, c, func(path string) { appendISBDropsOn(t, path, uint32(f.iface), 1) })
	if c := rep.Check("PBFS-COUNTS"); rep.Verdict != conformance.Fail || c == nil || c.Verdict != conformance.Fail {
		t.Errorf("a postcard count off beside the drops should FAIL PBFS-COUNTS:\n%s", failText(rep))
	}
}
