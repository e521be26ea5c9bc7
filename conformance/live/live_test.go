// SPDX-License-Identifier: Apache-2.0

//go:build linux

package live

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/internal/netnstest"
	"github.com/opensfc/sfc/liveio"
	"github.com/opensfc/sfc/pcapio"
)

// testDilate stretches the corpus 100,000 times: 1 µs of a vector is
// 100 ms of wall clock, so the 1 µs time tolerance is 100 ms, more than
// the stalls of a CI machine running the other packages' tests at the
// same time (runs they spoil anyway are retried). SFC_LIVE_DILATE sets
// another value, for a quiet machine (docs/live.md §3: 1,000-10,000).
var testDilate = liveDilate()

func liveDilate() float64 {
	v := os.Getenv("SFC_LIVE_DILATE")
	if v == "" {
		return 100000
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || !(n >= 1 && n <= 1e7) {
		panic(fmt.Sprintf("SFC_LIVE_DILATE=%q: want a number from 1 to 10,000,000", v))
	}
	return n
}

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
func live(t *testing.T, tb *netnstest.Bed, dir string, fault *Fault, o Options) (*Report, *Summary) {
	t.Helper()
	c, err := conformance.LoadCase(filepath.Join(dir, conformance.CaseFile))
	if err != nil {
		t.Fatal(err)
	}
	ports := map[int]*liveio.Port{}
	pm := PortMap{}
	for _, id := range portIDs(c) {
		if id >= tb.Pairs {
			t.Fatalf("%s: port %d, the testbed has %d", dir, id, tb.Pairs)
		}
		p, err := tb.Open(fmt.Sprintf("d%d", id), liveio.Options{Promisc: true})
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
	sy, err := OpenSync(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer sy.Close()
	type result struct {
		s   *Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := Emulate(ctx, c, ports, EmuOptions{Dilate: testDilate, Fault: fault, Ready: func() { close(ready) }, OnLag: sy.AddLag, LogInputs: true, Origin: func() time.Time {
			if org := sy.Origin(); !org.IsZero() {
				return org.Add(originShift)
			}
			return time.Time{}
		}})
		done <- result{s, err}
	}()
	select {
	case <-ready:
	case r := <-done:
		t.Fatalf("emulator: %v", r.err)
	}
	o.Ports, o.Open, o.DUTLag, o.OnSchedule = pm, tb.Open, sy.Lags, sy.SetOrigin
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

// originShift moves the emulator's clock origin from the one conform
// live gives it (TestLiveOriginPhase).
var originShift time.Duration

// void reports why a run says nothing about the device or the harness:
// the run was INCONCLUSIVE (the schedule slipped, the capture lost
// frames, the emulator fell behind: Run hears of its lag through
// Options.DUTLag).
func void(r *Report) string {
	if r.Verdict == Inconclusive {
		return "inconclusive: " + strings.Join(r.Reasons, "; ")
	}
	return ""
}

// liveRetry runs a vector live up to five times while runs are void: a
// shared CI machine can stall either side for tens of milliseconds. A
// run that stays void skips the test with the reasons: the machine could
// not run it, which says nothing about the harness or the device.
func liveRetry(t *testing.T, tb *netnstest.Bed, dir string, fault *Fault) (*Report, *Summary) {
	t.Helper()
	var rep *Report
	var sum *Summary
	var why string
	for try := 1; try <= 5; try++ {
		var f *Fault
		if fault != nil {
			cp := *fault
			f = &cp
		}
		rep, sum = live(t, tb, dir, f, Options{})
		if why = void(rep); why == "" {
			return rep, sum
		}
		t.Logf("run %d of %s is void, retrying: %s", try, vectorName(dir), why)
	}
	voided.Add(1)
	t.Skipf("%s: every run was void (the host was too busy to keep the schedule), last: %s", vectorName(dir), why)
	return rep, sum
}

// voided counts the vectors skipped because every run was void.
var voided atomic.Int64

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
	tb := netnstest.New(t, 5)
	voided.Store(0)
	start := time.Now()
	n := 0
	for _, dir := range corpus(t) {
		name := vectorName(dir)
		t.Run(name, func(t *testing.T) {
			if why, ok := unsupported[name]; ok {
				t.Skipf("live mode does not support %s: %s", name, why)
			}
			n++
			rep, sum := liveRetry(t, tb, dir, nil)
			if rep.Verdict != conformance.Pass {
				t.Errorf("%s: verdict %s, want PASS\n%s", name, rep.Verdict, text(rep, sum))
			} else if testing.Verbose() {
				t.Log(text(rep, sum))
			}
		})
	}
	t.Logf("%d vectors live at dilation %g in %s", n, testDilate, time.Since(start).Round(time.Millisecond))
	// A load that voids a few vectors is the machine's; one that voids
	// them all is a broken live path hiding behind INCONCLUSIVE.
	if v := voided.Load(); n > 0 && v == int64(n) {
		t.Errorf("all %d vectors were void after retries: live mode judged nothing", n)
	}
}

// A faulty emulator FAILs live with the check that catches its fault.
func TestLiveFaults(t *testing.T) {
	tb := netnstest.New(t, 5)
	for _, tc := range []struct {
		vector, fault, check string
	}{
		// The first BTS (or CIM) to a sender is missing; the port carries
		// other signals, so it is not silent.
		{"sfc/flow-mix", "drop-first-bts", "SFC-BTS-FIRST"},
		{"sfc-cache/sender-tor-hit", "drop-first-bts", "SFC-BTS-FIRST"},
		{"cim/sender-tor-cache", "drop-first-cim", "SFC-CIM-FIRST"},
		// Every BTS pauses 100 µs longer than the reference says.
		{"sfc/incast-first-bts", "pause+100", "SFC-BTS-PAUSE"},
		// PFC frames ask for 2000 more quanta (20 µs at 100 Gb/s).
		{"pfc/xoff-refresh-xon", "pause+2000", "PFC-QUANTA"},
		// A forwarded data frame is lost.
		{"pfc/xoff-refresh-xon", "drop-data-5", "DATA-LOSS"},
		// A NIC loses the first frame its host offered.
		{"pfc/nic-receiver", "drop-data-1", "DATA-LOSS"},
	} {
		t.Run(tc.vector+"/"+tc.fault, func(t *testing.T) {
			f, err := ParseFault(tc.fault)
			if err != nil {
				t.Fatal(err)
			}
			rep, sum := liveRetry(t, tb, filepath.Join("../../pcaps", tc.vector), f)
			if rep.Verdict != conformance.Fail || rep.ExitCode() != 1 {
				t.Fatalf("verdict %s (exit %d), want FAIL\n%s", rep.Verdict, rep.ExitCode(), text(rep, sum))
			}
			if len(sum.Faults) == 0 {
				t.Errorf("the emulator injected no fault\n%s", text(rep, sum))
			}
			failed := rep.Device.Failed()
			found := false
			for _, c := range failed {
				found = found || c == tc.check
			}
			if !found {
				t.Errorf("failed checks %v, want %s among them\n%s", failed, tc.check, text(rep, sum))
			}
		})
	}
}

// Conformance.md rule 5 (no depth slack): the first BTS of every sender
// under incast counts, even where the queue crossed Q_th by less than the
// depth tolerance.
func TestLiveFirstBTSDepthSlack(t *testing.T) {
	tb := netnstest.New(t, 5)
	for _, v := range []string{"sfc/suppression-reset", "sfc/incast-ipv6"} {
		f, _ := ParseFault("drop-first-bts")
		rep, sum := liveRetry(t, tb, filepath.Join("../../pcaps", v), f)
		if rep.Verdict != conformance.Fail {
			t.Errorf("%s: verdict %s with the first BTS dropped, want FAIL\n%s", v, rep.Verdict, text(rep, sum))
		}
	}
}

// With no device behind the ports, every port the reference sends on
// stays silent: INCONCLUSIVE, never FAIL.
func TestLiveSilentPort(t *testing.T) {
	tb := netnstest.New(t, 5)
	rep := Run("../../pcaps/sfc/incast-first-bts", Options{Dilate: testDilate, Open: tb.Open,
		Ports: PortMap{"0": "t0", "1": "t1", "2": "t2", "3": "t3", "4": "t4"}})
	if rep.Verdict != Inconclusive || rep.ExitCode() != 3 {
		t.Fatalf("verdict %s, want INCONCLUSIVE\n%s", rep.Verdict, text(rep, nil))
	}
	if n := strings.Count(strings.Join(rep.Reasons, "\n"), "stayed silent"); n != 5 {
		t.Errorf("%d ports reported silent, want 5: %q", n, rep.Reasons)
	}
	// Device mode itself says the same (rule 9): a capture with nothing
	// the reference sends is inconclusive, not a failing device.
	if rep.Device == nil || rep.Device.Verdict != conformance.Inconclusive {
		t.Errorf("device-mode report: %+v", rep.Device)
	}
	// Without --save the captures are gone: the report names no file.
	if rep.Device != nil && (!strings.Contains(rep.Device.Compared, "not kept") || !strings.Contains(rep.Device.Input, "not kept")) {
		t.Errorf("the report names removed files: %q %q", rep.Device.Input, rep.Device.Compared)
	}
}

// A schedule that cannot be met (a 1 ns slip allowed, at real time) is
// INCONCLUSIVE with the slip reported, even though the device behaves.
func TestLiveSlip(t *testing.T) {
	tb := netnstest.New(t, 5)
	save := t.TempDir()
	rep, sum := live(t, tb, "../../pcaps/sfc/incast-first-bts", nil, Options{Dilate: 1, MaxSlip: 1, Save: save})
	if rep.Verdict != Inconclusive {
		t.Fatalf("verdict %s, want INCONCLUSIVE\n%s", rep.Verdict, text(rep, sum))
	}
	// The saved input gives each frame's slip.
	r, err := pcapio.Open(filepath.Join(rep.Saved, "input.pcapng"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for {
		fr, err := r.Next()
		if err != nil {
			break
		}
		n++
		if len(fr.Comments) != 1 || !strings.Contains(fr.Comments[0], "after its planned time (kernel transmit time)") {
			t.Errorf("input frame %d: comments %q", fr.Number, fr.Comments)
		}
	}
	if n != 48 || !strings.HasPrefix(rep.Saved, save) {
		t.Errorf("%d frames in %s", n, rep.Saved)
	}
	if !strings.Contains(strings.Join(rep.Reasons, "\n"), "sending slipped") || rep.Schedule.Late == 0 || rep.Schedule.MaxNs <= 1 {
		t.Errorf("reasons %q, schedule %+v", rep.Reasons, rep.Schedule)
	}
}

// A port map that leaves out a port the vector sends on is UNUSABLE and
// says which port; so is a vector live mode cannot send.
func TestLiveUnusable(t *testing.T) {
	tb := netnstest.New(t, 2)
	rep := Run("../../pcaps/sfc/incast-first-bts", Options{Dilate: testDilate, Open: tb.Open, Ports: PortMap{"0": "t0"}})
	if rep.ExitCode() != 2 || !strings.Contains(rep.Error, "port 1 carries 12 input frames") {
		t.Errorf("verdict %s: %s", rep.Verdict, rep.Error)
	}
	rep = Run("../../pcaps/malformed/mixed", Options{Dilate: testDilate, Open: tb.Open, Ports: PortMap{"0": "t0", "1": "t1"}})
	if rep.ExitCode() != 2 || !strings.Contains(rep.Error, "less than an Ethernet header") {
		t.Errorf("verdict %s: %s", rep.Verdict, rep.Error)
	}
	rep = Run("../../pcaps/sfc/incast-first-bts", Options{Open: tb.Open, Ports: PortMap{"0": "nosuch0", "1": "t1", "2": "t0", "3": "t1", "4": "t0"}})
	if rep.ExitCode() != 2 || !strings.Contains(rep.Error, "interface t1 is mapped to two ports") && !strings.Contains(rep.Error, "interface t0 is mapped to two ports") {
		t.Errorf("verdict %s: %s", rep.Verdict, rep.Error)
	}
}

// The emulator's clock starts at the vector's epoch, where the
// reference's starts: its periodic timers keep the reference's phase. In
// floodgate/window-credit-dstpause a credit from downstream arrives on a
// tick (14 µs, tau 2 µs): the reference holds its credit upstream back
// until the next tick (16 µs). An emulator whose clock starts late (as it
// did when model time 0 was the first frame's receive time, late by that
// frame's send slip: a few ns, which flipped it in some runs) takes the
// credit before its own tick and passes it on at once: FG-JUSTIFIED
// fails. The test moves the ticks 500 ns late (more than a loaded
// sender's slip) by starting the clock 1.5 µs early: an origin after the
// first frame would start a second device at it.
func TestLiveOriginPhase(t *testing.T) {
	tb := netnstest.New(t, 5)
	dir := "../../pcaps/floodgate/window-credit-dstpause"
	rep, sum := liveRetry(t, tb, dir, nil)
	if rep.Verdict != conformance.Pass {
		t.Fatalf("aligned: verdict %s, want PASS\n%s", rep.Verdict, text(rep, sum))
	}
	originShift = time.Duration((500 - 2000) * testDilate)
	defer func() { originShift = 0 }()
	rep, sum = liveRetry(t, tb, dir, nil)
	var failed []string
	if rep.Device != nil {
		failed = rep.Device.Failed()
	}
	if rep.Verdict != conformance.Fail || !slices.Contains(failed, "FG-JUSTIFIED") {
		t.Errorf("ticks 500 ns late: verdict %s, failed %v; want FAIL with FG-JUSTIFIED\n%s", rep.Verdict, failed, text(rep, sum))
	}
}

// One emulator serves several runs: each new origin conform live gives it
// starts a fresh device, so the second run of a vector passes as the
// first (the state of the first, its pauses and timers, is gone).
func TestLiveEmulatorPerRun(t *testing.T) {
	tb := netnstest.New(t, 5)
	dir := "../../pcaps/sfc/incast-first-bts"
	c, err := conformance.LoadCase(filepath.Join(dir, conformance.CaseFile))
	if err != nil {
		t.Fatal(err)
	}
	ports, pm := map[int]*liveio.Port{}, PortMap{}
	for _, id := range portIDs(c) {
		p, err := tb.Open(fmt.Sprintf("d%d", id), liveio.Options{Promisc: true})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		ports[id], pm[c.PortName(id)] = p, fmt.Sprintf("t%d", id)
	}
	sy, err := OpenSync(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer sy.Close()
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan *Summary, 1)
	go func() {
		s, err := Emulate(ctx, c, ports, EmuOptions{Dilate: testDilate, Ready: func() { close(ready) }, OnLag: sy.AddLag, LogInputs: true, Origin: sy.Origin})
		if err != nil {
			t.Errorf("emulator: %v", err)
		}
		done <- s
	}()
	<-ready
	var verdicts, reasons []string
	for i := 0; i < 2; i++ {
		rep := Run(dir, Options{Dilate: testDilate, Ports: pm, Open: tb.Open, OnSchedule: sy.SetOrigin, DUTLag: sy.Lags})
		verdicts, reasons = append(verdicts, rep.Verdict), append(reasons, rep.Reasons...)
		if rep.Verdict != conformance.Pass && rep.Verdict != Inconclusive {
			t.Errorf("run %d: verdict %s\n%s", i+1, rep.Verdict, text(rep, nil))
		}
	}
	cancel()
	sum := <-done
	if sum == nil || sum.Devices != 2 {
		t.Fatalf("summary %+v, want 2 devices", sum)
	}
	if verdicts[0] == Inconclusive || verdicts[1] == Inconclusive {
		t.Skipf("verdicts %v: the host was too busy to judge a run: %q", verdicts, reasons)
	}
}

// TestLiveInterrupt: closing Interrupt (Ctrl-C) mid-run stops sending,
// keeps the captures so far (saved whole, no temporary file left) and
// makes the run INCONCLUSIVE, saying how many frames were sent.
func TestLiveInterrupt(t *testing.T) {
	tb := netnstest.New(t, 5)
	save := t.TempDir()
	stop := make(chan struct{})
	time.AfterFunc(300*time.Millisecond, func() { close(stop) })
	start := time.Now()
	rep := Run("../../pcaps/sfc/incast-first-bts", Options{Dilate: 1e6, Open: tb.Open, Save: save, Interrupt: stop,
		Ports: PortMap{"0": "t0", "1": "t1", "2": "t2", "3": "t3", "4": "t4"}})
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the interrupted run took %v", took)
	}
	if rep.Verdict != Inconclusive || !strings.Contains(strings.Join(rep.Reasons, "\n"), "interrupted (SIGINT or SIGTERM) after") {
		t.Fatalf("verdict %s, reasons %q", rep.Verdict, rep.Reasons)
	}
	// The vector's digest is its files', as conform check gives it.
	v := "../../pcaps/sfc/incast-first-bts"
	if want := conformance.DigestBLAKE3.Files(filepath.Join(v, conformance.CaseFile), filepath.Join(v, conformance.InputFile)); rep.Device == nil || rep.Device.VectorDigest != want {
		t.Errorf("vector digest %v, want %s", rep.Device, want)
	}
	for _, name := range []string{"input.pcapng", "device.pcapng"} {
		r, err := pcapio.Open(filepath.Join(rep.Saved, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r.Close()
		if _, err := os.Stat(filepath.Join(rep.Saved, name+".tmp")); err == nil {
			t.Errorf("%s.tmp left behind", name)
		}
	}
}

// TestLiveSendFailsPartWay: an interface that goes down after frames were
// sent makes the run INCONCLUSIVE with the reason (UNUSABLE is for a run
// that sent nothing), and the input saved holds the frames sent.
func TestLiveSendFailsPartWay(t *testing.T) {
	tb := netnstest.New(t, 5)
	save := t.TempDir()
	time.AfterFunc(400*time.Millisecond, func() {
		if out, err := exec.Command("ip", "-n", tb.NS, "link", "set", "t0", "down").CombinedOutput(); err != nil {
			t.Errorf("ip link set down: %v %s", err, out)
		}
	})
	rep := Run("../../pcaps/sfc/incast-first-bts", Options{Dilate: 3e5, Open: tb.Open, Save: save,
		Ports: PortMap{"0": "t0", "1": "t1", "2": "t2", "3": "t3", "4": "t4"}})
	if rep.Verdict != Inconclusive || !strings.Contains(strings.Join(rep.Reasons, "\n"), "sending failed after") {
		t.Fatalf("verdict %s (%s), reasons %q", rep.Verdict, rep.Error, rep.Reasons)
	}
	r, err := pcapio.Open(filepath.Join(rep.Saved, "input.pcapng"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for {
		if _, err := r.Next(); err != nil {
			break
		}
		n++
	}
	if n == 0 || n >= 48 {
		t.Errorf("%d frames in the saved input, want those sent before the failure", n)
	}
}
