// SPDX-License-Identifier: Apache-2.0

package conformance_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/pcapio"
)

// splitPorts writes one single-interface capture per interface of c,
// each interface named name (or "portN" when name is empty).
func splitPorts(t *testing.T, c *capture, dir, name string) []string {
	t.Helper()
	var paths []string
	for i := range c.names {
		p := filepath.Join(dir, fmt.Sprintf("p%d.pcapng", i))
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		n := name
		if n == "" {
			n = fmt.Sprintf("port%d", i)
		}
		w, err := pcapio.NewWriter(f, n)
		if err != nil {
			t.Fatal(err)
		}
		for _, fr := range c.frames {
			if fr.iface == i {
				if err := w.Write(0, fr.t, fr.data, len(fr.data)); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		paths = append(paths, p)
	}
	return paths
}

// TestMergecapCaptures checks captures merged by Wireshark's mergecap
// (conformance.md rule 1): per-port captures merged keeping one interface
// per file pass, also concatenated out of time order (-a); merged into one
// interface (identical interfaces, mergecap's default -I all) they are
// unusable with the hint.
func TestMergecapCaptures(t *testing.T) {
	mc, err := exec.LookPath("mergecap")
	if err != nil {
		t.Skip("mergecap not installed")
	}
	vdir := filepath.Join(pcaps, "pfc/xoff-refresh-xon")
	exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
	check := func(dev string) (*conformance.Report, error) {
		return conformance.CheckFiles(filepath.Join(vdir, conformance.CaseFile), filepath.Join(vdir, conformance.InputFile), dev, conformance.Options{})
	}
	for _, tc := range []struct {
		name, ifname string
		args         []string
		want         string
	}{
		{"distinct interfaces", "", nil, conformance.Pass},
		{"identical interfaces kept apart", "eth0", []string{"-I", "none"}, conformance.Pass},
		{"concatenated, out of time order", "eth0", []string{"-a", "-I", "none"}, conformance.Pass},
		{"identical interfaces merged into one", "eth0", nil, conformance.Unusable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			parts := splitPorts(t, exp, dir, tc.ifname)
			out := filepath.Join(dir, "merged.pcapng")
			args := append(append(append([]string{}, tc.args...), "-w", out), parts...)
			if b, err := exec.Command(mc, args...).CombinedOutput(); err != nil {
				t.Fatalf("mergecap: %v\n%s", err, b)
			}
			rep, err := check(out)
			if rep.Verdict != tc.want {
				var b strings.Builder
				rep.WriteText(&b)
				t.Fatalf("verdict %s, want %s (%v)\n%s", rep.Verdict, tc.want, err, b.String())
			}
			if tc.want == conformance.Unusable && !strings.Contains(rep.Error, "mergecap -I none") {
				t.Errorf("no hint: %s", rep.Error)
			}
		})
	}
}

// TestInterfaceTimeOrder checks that a frame out of time order on its own
// interface makes the capture unusable naming the frame, while interfaces
// interleaved out of step are merged by time.
func TestInterfaceTimeOrder(t *testing.T) {
	vdir := filepath.Join(pcaps, "pfc/xoff-refresh-xon")
	exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
	dir := t.TempDir()
	// Interface by interface: merged.
	dev := filepath.Join(dir, "unsorted.pcapng")
	writeCapture(t, exp.clone(), dev, true)
	rep, err := conformance.CheckFiles(filepath.Join(vdir, conformance.CaseFile), filepath.Join(vdir, conformance.InputFile), dev, conformance.Options{})
	if err != nil || rep.Verdict != conformance.Pass {
		t.Fatalf("interfaces out of step: %v %s", err, rep.Verdict)
	}
	// One interface going backwards: unusable, naming the frame.
	c := exp.clone()
	writeRaw(t, c, dev, func(frames []capFrame) {
		for i := 1; i < len(frames); i++ {
			if frames[i].iface == frames[0].iface {
				frames[0].t, frames[i].t = frames[i].t, frames[0].t
				return
			}
		}
	})
	rep, err = conformance.CheckFiles(filepath.Join(vdir, conformance.CaseFile), filepath.Join(vdir, conformance.InputFile), dev, conformance.Options{})
	if err == nil || rep.Verdict != conformance.Unusable || !strings.Contains(rep.Error, "backwards on interface") || !strings.Contains(rep.Error, "frame ") {
		t.Fatalf("time backwards on one interface: %v %s %s", err, rep.Verdict, rep.Error)
	}
}

// writeRaw writes c's frames in their order after fix changed them.
func writeRaw(t *testing.T, c *capture, path string, fix func([]capFrame)) {
	t.Helper()
	fix(c.frames)
	writeUnsorted(t, path, c)
}

// TestVerdictsAndExitCodes checks rule 9: a truncated capture is
// INCONCLUSIVE (exit 3), and the worst verdict of several wins.
func TestVerdictsAndExitCodes(t *testing.T) {
	vdir := filepath.Join(pcaps, "pfc/xoff-refresh-xon")
	exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
	c := exp.clone()
	c.frames = c.frames[:len(c.frames)/2]
	dev := filepath.Join(t.TempDir(), "cut.pcapng")
	c.write(t, dev)
	rep, err := conformance.CheckFiles(filepath.Join(vdir, conformance.CaseFile), filepath.Join(vdir, conformance.InputFile), dev, conformance.Options{})
	if err != nil || rep.Verdict != conformance.Inconclusive || rep.ExitCode() != 3 || rep.Check("CAP-END").Verdict != conformance.Inconclusive {
		var b strings.Builder
		rep.WriteText(&b)
		t.Fatalf("truncated capture: %v\n%s", err, b.String())
	}
	// the deviation names the reference frame the capture ends before,
	// not a bound the capture's end already passed
	for _, d := range rep.Check("CAP-END").Deviations {
		if d.Field == "capture end" && (!strings.Contains(d.Detail, "the capture ends before the reference's frame at ") || !strings.Contains(d.Expected, "the reference's frame at ")) {
			t.Errorf("CAP-END deviation %q does not say what the capture ends before", d.String())
		}
	}
	for _, tc := range []struct {
		in   []string
		want string
		code int
	}{
		{nil, conformance.Pass, 0},
		{[]string{conformance.Pass, conformance.Inconclusive}, conformance.Inconclusive, 3},
		{[]string{conformance.Inconclusive, conformance.Fail}, conformance.Fail, 1},
		{[]string{conformance.Fail, conformance.Unusable, conformance.Pass}, conformance.Unusable, 2},
	} {
		if got := conformance.Worst(tc.in...); got != tc.want || conformance.ExitCodeOf(got) != tc.code {
			t.Errorf("Worst(%v) = %s (exit %d), want %s (%d)", tc.in, got, conformance.ExitCodeOf(got), tc.want, tc.code)
		}
	}
}

// TestInterfaceNamesMapPorts: with `interface:` names in case.yaml, a
// device capture whose interfaces carry those names in another order
// PASSes; two interfaces of one name are UNUSABLE (which one is the
// port?), and a name the capture lacks is UNUSABLE naming both sides.
func TestInterfaceNamesMapPorts(t *testing.T) {
	vdir := filepath.Join(pcaps, "pfc/xoff-refresh-xon")
	caseText, err := os.ReadFile(filepath.Join(vdir, conformance.CaseFile))
	if err != nil {
		t.Fatal(err)
	}
	exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
	in := readCapture(t, filepath.Join(vdir, conformance.InputFile))
	dir := t.TempDir()
	var b strings.Builder
	for _, l := range strings.SplitAfter(string(caseText), "\n") {
		b.WriteString(l)
		if id, ok := strings.CutPrefix(strings.TrimSpace(l), "- id: "); ok {
			fmt.Fprintf(&b, "    interface: swp%s\n", id)
		}
	}
	casePath := filepath.Join(dir, conformance.CaseFile)
	if err := os.WriteFile(casePath, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	named := func(c *capture, names func(i int) string) *capture {
		n := &capture{frames: c.frames}
		for i := range c.names {
			n.names = append(n.names, names(i))
		}
		return n
	}
	inPath := filepath.Join(dir, "input.pcapng")
	named(in, func(i int) string { return fmt.Sprintf("swp%d", i) }).write(t, inPath)
	check := func(what string, c *capture) *conformance.Report {
		t.Helper()
		p := filepath.Join(dir, what+".pcapng")
		c.write(t, p)
		rep, _ := conformance.CheckFiles(casePath, inPath, p, conformance.Options{})
		return rep
	}
	// Interfaces listed in reverse order, each frame on its port's name.
	last := len(exp.names) - 1
	rev := &capture{}
	for i := range exp.names {
		rev.names = append(rev.names, fmt.Sprintf("swp%d", last-i))
	}
	for _, f := range exp.frames {
		rev.frames = append(rev.frames, capFrame{last - f.iface, f.t, f.data})
	}
	if rep := check("reversed", rev); rep.Verdict != conformance.Pass {
		t.Errorf("interfaces named for their ports in another order: %s %s", rep.Verdict, rep.Error)
	}
	dup := named(exp, func(i int) string { return fmt.Sprintf("swp%d", min(i, last-1)) })
	if rep := check("dup", dup); rep.Verdict != conformance.Unusable || !strings.Contains(rep.Error, "both stand for port") {
		t.Errorf("two interfaces named swp%d: %s %s", last-1, rep.Verdict, rep.Error)
	}
	other := named(exp, func(i int) string { return fmt.Sprintf("eth%d", i) })
	if rep := check("other", other); rep.Verdict != conformance.Unusable || !strings.Contains(rep.Error, `case.yaml names their interfaces "swp0"`) ||
		!strings.Contains(rep.Error, `"eth0"`) {
		t.Errorf("names the case does not give: %s %s", rep.Verdict, rep.Error)
	}
}
