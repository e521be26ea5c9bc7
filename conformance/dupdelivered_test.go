// SPDX-License-Identifier: Apache-2.0

package conformance_test

import (
	"path/filepath"
	"slices"
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
		return checkDev(t, vdir, c)
	}
	if rep := check("the reference's output", exp); rep.Verdict != conformance.Pass {
		t.Fatalf("the reference's own output fails:\n%s", failText(rep))
	}
	f := exp.frames[i]
	dup := &capture{names: exp.names, frames: slices.Insert(slices.Clone(exp.frames), i+1, capFrame{f.iface, f.t.Add(time.Nanosecond), f.data})}
	rep := check("duplicate", dup)
	if c := rep.Check("DATA-DUP"); rep.Verdict != conformance.Fail || c == nil || c.Count != 1 {
		t.Fatalf("a CIM delivered twice to the host should fail DATA-DUP once:\n%s", failText(rep))
	}
	if rep.Background != nil && rep.Background.Total != 0 {
		t.Errorf("the duplicate is counted as background: %+v", rep.Background)
	}
}

// TestOlderDuplicateIsDup: a copy of a data frame the device already
// delivered, sent after a later frame of the same flow, is one DATA-DUP
// (rule 8). It is not an alteration of the flow's next pending frame:
// judged that way, one duplicate became a DATA-ALTERED for every later
// frame of the flow, each compared with the one after it.
func TestOlderDuplicateIsDup(t *testing.T) {
	for _, v := range []string{"sfc/incast-first-bts", "pfc/xoff-refresh-xon", "cim/incast-legacy"} {
		t.Run(v, func(t *testing.T) {
			vdir := filepath.Join(pcaps, v)
			exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
			// The first data frame with two later frames of its flow
			// on its port.
			i, j := -1, -1
			for a, f := range exp.frames {
				if b := nextOfFlow(exp, a); meta(f.data).Kind == device.KindData && b >= 0 && nextOfFlow(exp, b) >= 0 {
					i, j = a, b
					break
				}
			}
			if i < 0 {
				t.Fatal("no data frame with two later frames of its flow on its port")
			}
			f := exp.frames[i]
			rep := checkDev(t, vdir, &capture{names: exp.names, frames: slices.Insert(slices.Clone(exp.frames), j+1,
				capFrame{f.iface, exp.frames[j].t.Add(time.Nanosecond), f.data})})
			if c := rep.Check("DATA-DUP"); rep.Verdict != conformance.Fail || c == nil || c.Count != 1 {
				t.Fatalf("frame %d sent again after frame %d should fail DATA-DUP once:\n%s", i+1, j+1, failText(rep))
			}
			for _, c := range rep.Checks {
				if c.Name != "DATA-DUP" && c.Count > 0 {
					t.Errorf("the duplicate also fails %s:\n%s", c.Name, failText(rep))
				}
			}
		})
	}
}

// TestNICHostMalformedIsBackground: a malformed wire frame (an IPv4
// header length of 60 in a 60-octet frame) that a NIC hands its host is
// background (dropped or forwarded, never fatal), not DATA-EXTRA: only
// the input's signals are judged on the host port.
func TestNICHostMalformedIsBackground(t *testing.T) {
	for _, v := range []string{"sfc/nic-ipv6", "cim/nic-legacy", "pfc/nic-receiver"} {
		vdir := filepath.Join(pcaps, v)
		exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
		in := readCapture(t, filepath.Join(vdir, conformance.InputFile))
		host, wire := slices.Index(exp.names, "host"), slices.IndexFunc(in.names, func(n string) bool { return n != "host" })
		if host < 0 || wire < 0 {
			t.Fatalf("%s: interfaces %q / %q", v, exp.names, in.names)
		}
		bad := make([]byte, 60)
		copy(bad, in.frames[0].data[:12])
		bad[12], bad[13], bad[14] = 0x08, 0x00, 0x4f // IPv4, IHL 15: 60 octets of header in 46
		t0 := in.frames[0].t
		in.frames = append(in.frames, capFrame{wire, t0.Add(time.Nanosecond), bad})
		dev := &capture{names: exp.names, frames: append(slices.Clone(exp.frames), capFrame{host, t0.Add(2 * time.Nanosecond), bad})}
		dir := t.TempDir()
		inPath, devPath := filepath.Join(dir, "input.pcapng"), filepath.Join(dir, "dev.pcapng")
		in.write(t, inPath)
		dev.write(t, devPath)
		rep, err := conformance.CheckFiles(filepath.Join(vdir, conformance.CaseFile), inPath, devPath, conformance.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if c := rep.Check("DATA-EXTRA"); c != nil && c.Count > 0 {
			t.Errorf("%s: a malformed frame on the host port:\n%s", v, failText(rep))
		}
	}
}
