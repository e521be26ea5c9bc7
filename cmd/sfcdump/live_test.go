// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opensfc/sfc/internal/netnstest"
)

// Usage errors of conform live and emulate exit 2 before touching any
// interface.
func TestLiveUsage(t *testing.T) {
	for _, args := range [][]string{
		{"conform", "live", "../../pcaps/sfc/incast-first-bts"},
		{"conform", "live", "../../pcaps/sfc/incast-first-bts", "--port", "0"},
		{"conform", "live", "../../pcaps/sfc/incast-first-bts", "--port", "0=a", "--dilate", "0.5"},
		{"conform", "live", "../../pcaps/sfc/incast-first-bts", "--port", "0=a", "-T", "xml"},
		{"emulate", "--port", "0=a"},
		{"emulate", "--scheme", "dcqcn", "--port", "0=a"},
		{"emulate", "--scheme", "sfc", "--port", "x=a"},
		{"emulate", "--scheme", "sfc"},
		{"emulate", "--config", "../../pcaps/pfc/storm/case.yaml", "--scheme", "bfc", "--port", "0=a"},
		{"emulate", "--config", "../../pcaps/pfc/storm/case.yaml", "--port", "9=a"},
		{"emulate", "--scheme", "sfc", "--port", "0=a", "--fault", "slow"},
		{"emulate", "--config", "../../pcaps/pfc/storm/case.yaml", "--speed", "25G", "--port", "0=a"},
	} {
		_, errs, code := sfcdump(t, args...)
		if code != 2 || errs == "" {
			t.Errorf("sfcdump %s: exit %d, stderr %q; want 2 and a message", strings.Join(args, " "), code, errs)
		}
	}
}

// emulator is `sfcdump emulate` running in a namespace.
type emulator struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
}

// startEmulate runs the sfcdump binary's emulate command inside the
// namespace and waits until it reads its ports.
func startEmulate(t *testing.T, bin string, bed *netnstest.Bed, args ...string) *emulator {
	t.Helper()
	e := &emulator{cmd: exec.Command("ip", append([]string{"netns", "exec", bed.NS, bin, "emulate"}, args...)...)}
	e.cmd.Stdout = &e.stdout
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	e.cmd.Stderr = pw
	if err := e.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		said := false
		for sc.Scan() {
			e.stderr.WriteString(sc.Text() + "\n")
			if !said && strings.Contains(sc.Text(), "emulating") {
				said = true
				ready <- true
			}
		}
		if !said {
			ready <- false
		}
	}()
	select {
	case ok := <-ready:
		if !ok {
			e.cmd.Wait()
			t.Fatalf("emulate ended before it was ready: %s", e.stderr.String())
		}
	case <-time.After(30 * time.Second):
		e.cmd.Process.Kill()
		t.Fatal("emulate did not start")
	}
	t.Cleanup(func() { e.cmd.Process.Kill() })
	return e
}

// stop sends SIGINT and returns the exit status.
func (e *emulator) stop(t *testing.T) int {
	t.Helper()
	// ip netns exec execs the command: the process is sfcdump itself.
	if err := e.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- e.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		e.cmd.Process.Kill()
		t.Fatal("emulate did not stop on SIGINT")
	}
	return e.cmd.ProcessState.ExitCode()
}

func buildSfcdump(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "sfcdump")
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("SKIP: no go command on PATH to build sfcdump: %v", err)
	}
	if out, err := exec.Command(gobin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// sfcdump emulate (a process in the namespace, stopped by SIGINT) against
// sfcdump conform live: the reference device passes, the same device
// with its first BTS dropped fails the completeness check (exit 1), and
// the summary says what the emulator did.
func TestEmulateConformLive(t *testing.T) {
	bed := netnstest.New(t, 5)
	bin := buildSfcdump(t)
	saved := liveOpen
	liveOpen = bed.Open
	defer func() { liveOpen = saved }()

	const vector = "../../pcaps/sfc/flow-mix"
	ports := []string{"--port", "0=d0", "--port", "1=d1", "--port", "2=d2", "--port", "3=d3", "--port", "4=d4"}
	for _, tc := range []struct {
		fault   string
		code    int
		verdict string
	}{
		{"", 0, "PASS"},
		{"drop-first-bts", 1, "FAIL"},
	} {
		t.Run("fault="+tc.fault, func(t *testing.T) {
			var out, summary string
			var code int
			sync := t.TempDir()
			for try := 1; try <= 4; try++ {
				args := append([]string{"--config", vector + "/case.yaml", "--dilate", "100000", "--sync", sync}, ports...)
				if tc.fault != "" {
					args = append(args, "--fault", tc.fault)
				}
				emu := startEmulate(t, bin, bed, args...)
				save := t.TempDir()
				var errs string
				out, errs, code = sfcdump(t, "conform", "live", vector, "--dilate", "100000", "--save", save, "-T", "json", "--sync", sync,
					"--port", "0=t0", "--port", "1=t1", "--port", "2=t2", "--port", "3=t3", "--port", "4=t4")
				if ec := emu.stop(t); ec != 0 {
					t.Fatalf("emulate exited %d: %s", ec, emu.stderr.String())
				}
				summary = emu.stdout.String()
				if code == 3 {
					if try == 4 {
						t.Skipf("every run was inconclusive (the host was too busy), last: %s", out)
					}
					t.Logf("run %d inconclusive, retrying: %s", try, out)
					continue
				}
				if _, err := os.Stat(filepath.Join(sync, "origin")); err != nil {
					t.Errorf("conform live --sync wrote no origin: %v", err)
				}
				if errs != "" {
					t.Errorf("stderr: %s", errs)
				}
				for _, f := range []string{"input.pcapng", "device.pcapng", "reference.pcapng", "report.txt", "report.json"} {
					if _, err := os.Stat(filepath.Join(save, "sfc_flow-mix", f)); err != nil {
						t.Errorf("--save: %v", err)
					}
				}
				break
			}
			var rep struct {
				Verdict string
				Device  struct {
					Checks []struct{ Name, Verdict string }
				}
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if code != tc.code || rep.Verdict != tc.verdict {
				t.Fatalf("conform live: exit %d, verdict %s; want %d, %s\n%s\nemulator:\n%s", code, rep.Verdict, tc.code, tc.verdict, out, summary)
			}
			var failed []string
			for _, c := range rep.Device.Checks {
				if c.Verdict != "PASS" {
					failed = append(failed, c.Name)
				}
			}
			if want := map[bool]string{true: "[]", false: "[SFC-BTS-FIRST]"}[tc.fault == ""]; fmt.Sprint(failed) != want && !(tc.fault != "" && strings.Contains(fmt.Sprint(failed), "SFC-BTS-FIRST")) {
				t.Errorf("failed checks %v, want %s", failed, want)
			}
			for _, want := range []string{"port 0     d0           in 12, out ", "port 4     d4           in 0, out 92", "signals sent: bts "} {
				if !strings.Contains(summary, want) {
					t.Errorf("emulator summary lacks %q:\n%s", want, summary)
				}
			}
			if tc.fault != "" && !strings.Contains(summary, "fault injected: dropped the first bts") {
				t.Errorf("emulator summary:\n%s", summary)
			}
		})
	}
}

// emulate without --config runs a default switch of the scheme and stops
// by itself after --duration, with a summary.
func TestEmulateDefaultSwitch(t *testing.T) {
	bed := netnstest.New(t, 2)
	bin := buildSfcdump(t)
	cmd := exec.Command("ip", "netns", "exec", bed.NS, bin, "emulate", "--scheme", "pfc", "--port", "0=d0", "--port", "1=d1",
		"--duration", "300ms", "-T", "json")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("emulate: %v\n%s", err, out)
	}
	var sum struct {
		Schemes []string
		Ports   []struct{ Port, Interface string }
	}
	if err := json.Unmarshal(out, &sum); err != nil || fmt.Sprint(sum.Schemes) != "[pfc]" || len(sum.Ports) != 2 || sum.Ports[1].Interface != "d1" {
		t.Errorf("summary %+v (%v):\n%s", sum, err, out)
	}
}
