//go:build linux

package live

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/liveio"
)

// testDilate stretches the corpus 10,000 times: 1 µs of a vector is 10 ms
// of wall clock, so the 1 µs time tolerance is 10 ms, far more than a
// loaded CI machine's scheduling noise.
const testDilate = 10000

// unsupported lists the corpus vectors live mode cannot run, and why.
var unsupported = map[string]string{
	"malformed/mixed": "its runts (10 octets) are shorter than an Ethernet header: no link can carry them, and a real NIC pads the others to 60 octets",
}

// corpus returns the corpus vectors under pcaps/, by name.
func corpus(t *testing.T) []string {
	dirs, err := filepath.Glob("../../pcaps/*/*/case.yaml")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no vectors under ../../pcaps: %v", err)
	}
	var out []string
	for _, d := range dirs {
		out = append(out, filepath.Dir(d))
	}
	return out
}

func vectorName(dir string) string {
	return filepath.ToSlash(strings.TrimPrefix(dir, "../../pcaps/"))
}

// portIDs returns the ids of the ports a vector's case maps (a NIC: the
// wire port and the host side).
func portIDs(c *conformance.Case) []int {
	if c.Role == device.RoleNIC {
		return []int{device.WirePort, device.HostPort}
	}
	var ids []int
	for _, p := range c.Ports {
		ids = append(ids, p.ID)
	}
	return ids
}

// live runs the vector in dir live against the emulated reference device
// (with fault, when not nil) in the testbed: port i is tI on the tester's
// side, dI on the device's.
func live(t *testing.T, tb *testbed, dir string, fault *Fault, o Options) (*Report, *Summary) {
	t.Helper()
	c, err := conformance.LoadCase(filepath.Join(dir, conformance.CaseFile))
	if err != nil {
		t.Fatal(err)
	}
	ports := map[int]*liveio.Port{}
	pm := PortMap{}
	for _, id := range portIDs(c) {
		if id >= tb.ports {
			t.Fatalf("%s: port %d, the testbed has %d", dir, id, tb.ports)
		}
		p, err := tb.open(fmt.Sprintf("d%d", id))
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		ports[id] = p
		pm[c.PortName(id)] = fmt.Sprintf("t%d", id)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan struct{})
	type result struct {
		s   *Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := Emulate(ctx, c, ports, EmuOptions{Dilate: testDilate, Fault: fault, Ready: func() { close(ready) }})
		done <- result{s, err}
	}()
	select {
	case <-ready:
	case r := <-done:
		t.Fatalf("emulator: %v", r.err)
	}
	o.Ports, o.Open = pm, tb.open
	if o.Save == "" {
		o.Save = os.Getenv("SFC_LIVE_SAVE") // keep the captures to look into a failure
	}
	if o.Dilate == 0 {
		o.Dilate = testDilate
	}
	rep := Run(dir, o)
	cancel()
	r := <-done
	if r.err != nil {
		t.Errorf("emulator: %v", r.err)
	}
	return rep, r.s
}

func text(r *Report, s *Summary) string {
	var b strings.Builder
	_ = r.WriteText(&b)
	if s != nil {
		b.WriteString(s.String())
	}
	return b.String()
}

// TestLiveCorpus runs every vector of the corpus that live mode supports
// against the emulated reference device over veth pairs: each must PASS.
func TestLiveCorpus(t *testing.T) {
	tb := newTestbed(t, 5)
	start := time.Now()
	n := 0
	for _, dir := range corpus(t) {
		name := vectorName(dir)
		t.Run(name, func(t *testing.T) {
			if why, ok := unsupported[name]; ok {
				t.Skipf("live mode does not support %s: %s", name, why)
			}
			n++
			rep, sum := live(t, tb, dir, nil, Options{})
			if rep.Verdict != conformance.Pass {
				t.Errorf("%s: verdict %s, want PASS\n%s", name, rep.Verdict, text(rep, sum))
			} else if testing.Verbose() {
				t.Log(text(rep, sum))
			}
		})
	}
	t.Logf("%d vectors live at dilation %d in %s", n, testDilate, time.Since(start).Round(time.Millisecond))
}
