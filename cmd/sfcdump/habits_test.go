// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/klauspost/compress/zstd"
	"golang.org/x/sys/unix"

	"github.com/opensfc/sfc/internal/syncbuf"
	"github.com/opensfc/sfc/liveio"
	"github.com/opensfc/sfc/pcapio"
	"github.com/opensfc/sfc/version"
)

// copyFile copies src to a new file dst.
func copyFile(t *testing.T, src, dst string) []byte {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return data
}

// noTemps fails when dir holds anything but want.
func noTemps(t *testing.T, dir string, want ...string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		found := false
		for _, w := range want {
			found = found || e.Name() == w
		}
		if !found {
			t.Errorf("%s left in %s", e.Name(), dir)
		}
	}
}

// loadFrames reads every frame of path, copied.
func loadFrames(t *testing.T, path string) []*pcapio.Frame {
	t.Helper()
	r, err := pcapio.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var frames []*pcapio.Frame
	for {
		fr, err := r.Next()
		if err != nil {
			return frames
		}
		c := *fr
		c.Data = bytes.Clone(fr.Data)
		frames = append(frames, &c)
	}
}

// countFrames reads path with pcapio and returns its frames, -1 if it
// cannot be opened or breaks.
func countFrames(t *testing.T, path string) int {
	t.Helper()
	r, err := pcapio.Open(path)
	if err != nil {
		return -1
	}
	defer r.Close()
	n := 0
	for {
		_, err := r.Next()
		if err != nil {
			if err.Error() == "EOF" {
				return n
			}
			return -1
		}
		n++
	}
}

// TestOutputIsNeverTheInput: an output that is an input, by any spelling
// or link, is refused with exit status 2 and the input is untouched
// (read -w X X truncated a 4,192-octet capture to 84 octets).
func TestOutputIsNeverTheInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "x.pcapng")
	want := copyFile(t, sampleCap, in)
	os.Symlink("x.pcapng", filepath.Join(dir, "sym.pcapng"))
	os.Link(in, filepath.Join(dir, "hard.pcapng"))
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	svg := filepath.Join(dir, "cap.svg") // a capture named like a picture
	copyFile(t, sampleCap, svg)
	for _, args := range [][]string{
		{"read", "-w", in, in},
		{"read", "-w", filepath.Join(dir, "sub", "..", "x.pcapng"), in},
		{"read", "-w", filepath.Join(dir, "sym.pcapng"), in},
		{"read", "-w", filepath.Join(dir, "hard.pcapng"), in},
		{"read", "-w", in, "-r", filepath.Join(dir, "sym.pcapng")},
		{"read", "-w", in, sampleCap, in},
		{"timeline", "-o", svg, svg},
	} {
		out, errs, code := sfcdump(t, args...)
		if code != 2 || out != "" || !strings.Contains(errs, "same file") && !strings.Contains(errs, "both an input and the output") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and the reason", args, code, out, errs)
		}
		if got, _ := os.ReadFile(in); !bytes.Equal(got, want) {
			t.Fatalf("%v: the input changed (%d octets, was %d)", args, len(got), len(want))
		}
	}
	noTemps(t, dir, "x.pcapng", "sym.pcapng", "hard.pcapng", "sub", "cap.svg")
}

// TestErrorsLeaveFilesUntouched: a run that fails leaves an existing
// output as it was and no temporary file; one that succeeds replaces it.
func TestErrorsLeaveFilesUntouched(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "keep.pcapng")
	precious := []byte("precious bytes, not even a capture")
	garbage := filepath.Join(dir, "garbage.pcapng")
	os.WriteFile(garbage, []byte("\x0a\x0d\x0d\x0a garbage after a pcapng magic"), 0o644)
	notCap := filepath.Join(dir, "notes.txt")
	os.WriteFile(notCap, []byte("hello"), 0o644)
	data, _ := os.ReadFile(sampleCap)
	trunc := filepath.Join(dir, "trunc.pcapng")
	os.WriteFile(trunc, data[:1500], 0o644)
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"read", "-w", keep, filepath.Join(dir, "nosuchfile")}, 2},
		{[]string{"read", "-w", keep, notCap}, 2},
		{[]string{"read", "-w", keep, garbage}, 2},
		{[]string{"read", "-w", keep, sampleCap, notCap}, 2},
		{[]string{"read", "-w", keep, trunc}, 1},
		{[]string{"read", "-w", keep, "-Y", "bts.nothing == 1", sampleCap}, 2},
		{[]string{"read", "-w", keep, "-c", "-1", sampleCap}, 2},
		{[]string{"capture", "-i", "nosuchiface0", "-w", keep}, 1},
		{[]string{"timeline", "-o", filepath.Join(dir, "keep.svg"), filepath.Join(dir, "nosuchfile")}, 2},
	} {
		os.WriteFile(keep, precious, 0o600)
		os.WriteFile(filepath.Join(dir, "keep.svg"), precious, 0o600)
		_, errs, code := sfcdump(t, tc.args...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", tc.args, code, tc.code, errs)
		}
		for _, p := range []string{keep, filepath.Join(dir, "keep.svg")} {
			if got, _ := os.ReadFile(p); !bytes.Equal(got, precious) {
				t.Errorf("%v: %s changed to %d octets", tc.args, filepath.Base(p), len(got))
			}
		}
		noTemps(t, dir, "keep.pcapng", "keep.svg", "garbage.pcapng", "notes.txt", "trunc.pcapng")
	}
	// Broken part-way into a new file: the frames before the break are
	// salvaged.
	salvage := filepath.Join(dir, "salvage.pcapng")
	if _, errs, code := sfcdump(t, "read", "-w", salvage, trunc); code != 1 || countFrames(t, salvage) != 8 {
		t.Errorf("salvage: exit %d, %d frames (want 1, 8); stderr %q", code, countFrames(t, salvage), errs)
	}
	// Success replaces.
	if _, errs, code := sfcdump(t, "read", "-w", keep, sampleCap); code != 0 || countFrames(t, keep) != 21 {
		t.Errorf("read -w over an existing file: exit %d, %d frames; stderr %q", code, countFrames(t, keep), errs)
	}
	noTemps(t, dir, "keep.pcapng", "keep.svg", "garbage.pcapng", "notes.txt", "trunc.pcapng", "salvage.pcapng")
}

// fakeHandle serves frames, then sends SIGINT to the process (as Ctrl-C
// would) and blocks until closed.
type fakeHandle struct {
	frames [][]byte
	i      int
	closed chan struct{}
	once   sync.Once
}

func (h *fakeHandle) ZeroCopyReadPacketData() ([]byte, gopacket.CaptureInfo, error) {
	if h.i < len(h.frames) {
		d := h.frames[h.i]
		h.i++
		return d, gopacket.CaptureInfo{Timestamp: time.Unix(1700000000, int64(h.i)), CaptureLength: len(d), Length: len(d)}, nil
	}
	if h.i == len(h.frames) {
		h.i++
		syscall.Kill(os.Getpid(), syscall.SIGINT)
	}
	<-h.closed
	return nil, gopacket.CaptureInfo{}, os.ErrClosed
}

func (h *fakeHandle) Close() error { h.once.Do(func() { close(h.closed) }); return nil }

// fakeLive makes capture read the sample capture's frames from a
// fakeHandle for the rest of the test, a stray SIGINT not killing the test
// binary, and returns the frames.
func fakeLive(t *testing.T) [][]byte {
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, syscall.SIGINT)
	var frames [][]byte
	for _, fr := range loadFrames(t, sampleCap) {
		frames = append(frames, fr.Data)
	}
	old := openLive
	openLive = func(string, bool, int) (liveHandle, error) {
		return &fakeHandle{frames: frames, closed: make(chan struct{})}, nil
	}
	t.Cleanup(func() { openLive = old; signal.Stop(guard) })
	return frames
}

// TestCaptureInterruptedKeepsFrames: Ctrl-C ends a capture with every
// frame written, in a readable capture, in place of the old file.
func TestCaptureInterruptedKeepsFrames(t *testing.T) {
	frames := fakeLive(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "live.pcapng")
	os.WriteFile(out, []byte("old"), 0o644)
	stdout, errs, code := sfcdump(t, "capture", "-i", "fake0", "-q", "-w", out)
	if code != 0 || stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, errs)
	}
	if n := countFrames(t, out); n != len(frames) {
		t.Errorf("%d frames kept, want %d", n, len(frames))
	}
	noTemps(t, dir, "live.pcapng")
}

// TestCaptureStdoutGoneKeepsW: capture -P -w keeps the frames captured
// when its standard output goes away: a reader that closed it (EPIPE:
// exit 141, as SIGPIPE's) or one that stopped reading (Ctrl-C, 130: the
// loop stuck in the write never sees the stop; the -w capture is put in
// place from the signal's goroutine).
func TestCaptureStdoutGoneKeepsW(t *testing.T) {
	frames := fakeLive(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "closed.pcapng")
	var errb syncbuf.Buffer
	if code := run([]string{"capture", "-i", "fake0", "-P", "-w", out}, &epipeWriter{n: 100}, &errb); code != 141 ||
		!strings.Contains(string(errb.Bytes()), "standard output was closed by its reader") {
		t.Errorf("closed: exit %d, stderr %q", code, errb.Bytes())
	}
	if n := countFrames(t, out); n < 1 || n > len(frames) {
		t.Errorf("closed: %d frames kept", n)
	}
	noTemps(t, dir, "closed.pcapng")

	exited := catchExit(t)
	oldWait := salvageWait
	salvageWait = 200 * time.Millisecond
	defer func() { salvageWait = oldWait }()
	out = filepath.Join(dir, "blocked.pcapng")
	blocked := blockedWriter{make(chan struct{})}
	var errs syncbuf.Buffer
	done := make(chan int, 1)
	go func() { done <- run([]string{"capture", "-i", "fake0", "-P", "-w", out}, blocked, &errs) }()
	time.Sleep(300 * time.Millisecond) // the first frame written; its line blocks
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	if code := awaitExit(t, exited, 5*time.Second); code != 130 || !strings.Contains(string(errs.Bytes()), "standard output is blocked") {
		t.Errorf("blocked: exit %d, stderr %q", code, errs.Bytes())
	}
	if n := countFrames(t, out); n < 1 {
		t.Errorf("blocked: %d frames in place at the exit", n)
	}
	close(blocked.release)
	<-done
}

// pipedStdin makes standard input a pipe for the test and returns its
// writing end; a SIGINT sent before sfcdump listens does not kill the test
// binary. Both are undone at the end of the test.
func pipedStdin(t *testing.T) *os.File {
	t.Helper()
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, syscall.SIGINT)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdin
	os.Stdin = pr
	t.Cleanup(func() { os.Stdin = old; pr.Close(); pw.Close(); signal.Stop(guard) })
	return pw
}

// awaitOutput waits (at most 5 s) for the temporary output in dir, which
// exists once sfcdump listens for signals.
func awaitOutput(dir string) {
	for i := 0; i < 500; i++ {
		if ents, _ := os.ReadDir(dir); len(ents) > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestReadInterruptedKeepsFrames: Ctrl-C during read -w from a pipe keeps
// every frame written and exits with status 130.
func TestReadInterruptedKeepsFrames(t *testing.T) {
	pw := pipedStdin(t)
	data, _ := os.ReadFile(sampleCap)
	dir := t.TempDir()
	out := filepath.Join(dir, "piped.pcapng")
	go func() {
		pw.Write(data)
		awaitOutput(dir)
		time.Sleep(100 * time.Millisecond) // the read waits for more
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		time.Sleep(100 * time.Millisecond)
		pw.Close() // the upstream dies of the same Ctrl-C
	}()
	_, errs, code := sfcdump(t, "read", "-r", "-", "-w", out)
	var n int
	if _, err := fmt.Sscanf(errs, "sfcdump: interrupted after %d frames", &n); err != nil || code != 130 {
		t.Fatalf("exit %d, stderr %q; want 130, interrupted after N frames", code, errs)
	}
	if got := countFrames(t, out); got != n {
		t.Errorf("%d frames written, %d kept", n, got)
	}
	if n != 21 {
		t.Logf("the interrupt came after %d of 21 frames (a slow machine)", n)
	}
	noTemps(t, dir, "piped.pcapng")
}

// TestFlagsValidated: every flag out of range is a usage error (exit 2)
// naming it, with nothing on stdout; so are unknown commands.
func TestFlagsValidated(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "t.svg")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"read", "-c", "-1", sampleCap}, "-c -1"},
		{[]string{"read", "-q", "-P", sampleCap}, "-q"},
		{[]string{"read"}, "no capture to read"},
		{[]string{"stats", "--top", "-3", sampleCap}, "--top -3"},
		{[]string{"stats"}, "sfcdump stats: no capture to read"},
		{[]string{"timeline", "-o", svg}, "sfcdump timeline: no capture to read"},
		{[]string{"timeline", "--width", "-5", sampleCap, "-o", svg}, "--width -5"},
		{[]string{"timeline", "--width", "NaN", sampleCap, "-o", svg}, "--width NaN"},
		{[]string{"timeline", "--width", "0", sampleCap, "-o", svg}, "--width 0"},
		{[]string{"timeline", "--width", "100000", sampleCap, "-o", svg}, "--width 100000"},
		{[]string{"timeline", "--width", "+Inf", sampleCap, "-o", svg}, "--width +Inf"},
		{[]string{"timeline", "--height", "65", sampleCap, "-o", svg}, "--height 65"},
		{[]string{"timeline", "--height", "0", sampleCap, "-o", svg}, "--height 0"},
		{[]string{"timeline", "--width", "1e-300", sampleCap, "-o", svg}, "--width 1e-300"},
		{[]string{"timeline", "--width", "0.99", sampleCap, "-o", svg}, "--width 0.99"},
		{[]string{"timeline", "--height", "0.001", sampleCap, "-o", svg}, "--height 0.001"},
		{[]string{"timeline", "--rows", "0", sampleCap, "-o", svg}, "--rows 0"},
		{[]string{"timeline", "--rows", "1000", sampleCap, "-o", svg}, "--rows 1000"},
		{[]string{"capture", "-i", "lo", "--duration", "-1s"}, "--duration -1s"},
		{[]string{"capture", "-i", "lo", "--duration", "0s"}, "--duration 0s"},
		{[]string{"capture", "-i", "lo", "--snaplen", "-1"}, "--snaplen -1"},
		{[]string{"capture", "-i", "lo", "-c", "-5"}, "-c -5"},
		{[]string{"nosuchcommand"}, `unknown command "nosuchcommand"`},
		{[]string{"stast", sampleCap}, "did you mean stats"},
		{[]string{"wireshark", "bogus"}, `unknown command "bogus" for "sfcdump wireshark"`},
		{[]string{"read", "--bogus", sampleCap}, "--bogus"},
		{[]string{"read", "-w", "", sampleCap}, "-w: an empty file name"},
		{[]string{"read", "-r", "-", "-r", "-"}, "standard input ('-') named 2 times"},
		{[]string{"stats", "-r", "-", "-"}, "standard input ('-') named 2 times"},
		{[]string{"man", ""}, "man: an empty directory name"},
		{[]string{"capture", "-i", "lo", "extra"}, `unknown command "extra" for "sfcdump capture"`},
		{[]string{"wireshark", "path", "x"}, `unknown command "x"`},
		{[]string{"completion", "tcsh"}, `unknown command "tcsh" for "sfcdump completion"`},
		{[]string{"completion", "bash", "extra"}, `unknown command "extra" for "sfcdump completion bash"`},
		{[]string{"help", "nosuch"}, `unknown help topic "nosuch"`},
		{[]string{"conform", "scenario", "list", "extra"}, `unknown argument "extra"`},
		{[]string{"conform", "scenario", "corpus", "--senders", "3", "--out", "x"}, `takes --out DIR only`},
		{[]string{"conform", "gen", "--max", "-1", "x"}, "--max -1: want 0 or more"},
		{[]string{"conform", "scenario", "incast", "--scheme", "nope", "--out", "x"}, `a flag's value made an invalid case (case.yaml:6: schemes: unknown scheme "nope"`},
		{[]string{"conform", "scenario", "storm", "--frames", "-1", "--out", "x"}, "--frames -1: want 1 or more"},
		{[]string{"emulate", "--scheme", "pfc", "--port", "0=lo", "--speed", "0"}, `--speed 0: "0" is not a link speed`},
		{[]string{"emulate", "--scheme", "pfc", "--port", "0=lo", "--settle", "100h"}, "--settle 100h0m0s: want 0 to 1h0m0s"},
		{[]string{"read", "--link-speed", "NaN", sampleCap}, "--link-speed NaN"},
		{[]string{"read", "--link-speed", "100", sampleCap}, `--link-speed 100: "100" is 100 bit/s, below 1 Mb/s`},
		{[]string{"stats", "--speed", "port1=1.5", sampleCap}, "below 1 Mb/s"},
		{[]string{"read", "--link-speed", "500k", sampleCap}, `"500k" is below 1 Mb/s, slower than any link`},
		{[]string{"read", "--speed", "1001T", sampleCap}, `--speed 1001T: "1001T" is above 1000T, the fastest link speed taken`},
		{[]string{"read", "--link-speed", "port1=NaNG", sampleCap}, "--link-speed port1=NaNG"},
		{[]string{"stats", "--link-speed", "-25G", sampleCap}, "--link-speed -25G"},
		{[]string{"stats", "--link-speed", "InfG", sampleCap}, "--link-speed InfG"},
		{[]string{"read", "--speed", "0", sampleCap}, "--speed 0"},
		{[]string{"read", "-w", "-", "-V", sampleCap}, "-V has no effect: -w - writes the capture to standard output"},
		{[]string{"read", "-w", filepath.Join(t.TempDir(), "o.pcapng"), "-T", "json", sampleCap}, "-T json has no effect: -w prints no frames unless -P is given"},
		{[]string{"read", "-q", "-x", sampleCap}, "-x has no effect: -q prints no frames"},
		{[]string{"read", "-T", "fields", "-e", "frame.number", "-V", sampleCap}, "-V has no effect: -T fields prints the -e fields"},
		{[]string{"read", "-T", "fields", "-e", "frame.number", "-x", sampleCap}, "-x has no effect: -T fields prints the -e fields"},
		{[]string{"read", "-q", "-T", "fields", "-e", "frame.number", sampleCap}, "-T fields has no effect"},
		{[]string{"read", "--speed", "0=1G", "--speed", "0=2G", sampleCap}, "--speed 0=2G: interface 0 is given a speed twice"},
		{[]string{"stats", "--speed", "1G", "--link-speed", "2G", sampleCap}, "--link-speed 2G: a speed for every interface is given twice"},
		{[]string{"read", "--decode-as", "udp.port==9999:bts", "--decode-as", "udp.port==9999:cim", sampleCap}, "UDP port 9999 is given two protocols"},
		{[]string{"stats", "--speed", "x=", sampleCap}, "--speed x="},
		{[]string{"read", "--speed", "e\x1b[7m=NaNG", sampleCap}, "--speed e\\x1b[7m=NaNG"},
	} {
		out, errs, code := sfcdump(t, tc.args...)
		if code != 2 || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing, %q", tc.args, code, out, errs, tc.want)
		}
	}
	if _, err := os.Stat(svg); err == nil {
		t.Error("a rejected timeline wrote its picture")
	}
}

func TestVersion(t *testing.T) {
	out, errs, code := sfcdump(t, "--version")
	want := "sfcdump " + version.String() + "\n"
	if code != 0 || out != want || errs != "" || !strings.Contains(out, "github.com/opensfc/sfc") || !strings.Contains(out, " go1.") {
		t.Errorf("--version: exit %d, %q (want %q), stderr %q", code, out, want, errs)
	}
}

// TestTcpdumpHabits: -r FILE, -r - and - from standard input, zstd, -c,
// -w - and -q.
func TestTcpdumpHabits(t *testing.T) {
	want, _, _ := sfcdump(t, "read", sampleCap)
	if strings.Count(want, "\n") != 21 {
		t.Fatalf("sample: %q", want)
	}
	data, _ := os.ReadFile(sampleCap)
	dir := t.TempDir()
	var zbuf bytes.Buffer
	zw, _ := zstd.NewWriter(&zbuf)
	zw.Write(data)
	zw.Close()
	zst := filepath.Join(dir, "sample.pcapng.zst")
	os.WriteFile(zst, zbuf.Bytes(), 0o644)
	if p, err := exec.LookPath("zstd"); err == nil {
		// The reference tool's output, when it is installed.
		zst = filepath.Join(dir, "tool.pcapng.zst")
		if b, err := exec.Command(p, "-q", "-o", zst, sampleCap).CombinedOutput(); err != nil {
			t.Fatalf("zstd: %v %s", err, b)
		}
	}
	withStdin := func(content []byte, fn func()) {
		pr, pw, _ := os.Pipe()
		old := os.Stdin
		os.Stdin = pr
		go func() { pw.Write(content); pw.Close() }()
		fn()
		os.Stdin = old
		pr.Close()
	}
	for _, args := range [][]string{
		{"read", "-r", sampleCap},
		{"read", "--read-file", sampleCap},
		{"read", zst},
		{"read", "-r", zst},
	} {
		if out, errs, code := sfcdump(t, args...); out != want || code != 0 {
			t.Errorf("%v: exit %d, stderr %q, output differs from read FILE:\n%s", args, code, errs, out)
		}
	}
	for _, args := range [][]string{{"read", "-r", "-"}, {"read", "-"}} {
		withStdin(zbuf.Bytes(), func() {
			out, errs, code := sfcdump(t, args...)
			if code != 0 || strings.Count(out, "\n") != 21 {
				t.Errorf("%v of zstd on stdin: exit %d, %q, stderr %q", args, code, out, errs)
			}
		})
	}
	// stats and timeline take -r too.
	st, _, _ := sfcdump(t, "stats", sampleCap)
	if got, errs, code := sfcdump(t, "stats", "-r", zst); got != st || code != 0 {
		t.Errorf("stats -r FILE.zst: exit %d, %q, output differs", code, errs)
	}
	svg := filepath.Join(dir, "r.svg")
	if got, errs, code := sfcdump(t, "timeline", "-r", sampleCap, "-o", svg); code != 0 || !strings.HasPrefix(got, svg+": 9 rows") {
		t.Errorf("timeline -r: exit %d, %q, %q", code, got, errs)
	}
	// -r twice, then positional: all read in order.
	if out, _, _ := sfcdump(t, "read", "-c", "25", "-r", sampleCap, "-r", sampleCap); strings.Count(out, "\n") != 25 {
		t.Errorf("-r twice with -c 25: %d lines", strings.Count(out, "\n"))
	}
	// -w - writes pcapng to stdout, which reads back to the same frames.
	pc, errs, code := sfcdump(t, "read", "-w", "-", "-Y", "bts", sampleCap)
	if code != 0 || !strings.HasPrefix(pc, "\x0a\x0d\x0d\x0a") {
		t.Fatalf("-w -: exit %d, stderr %q, %q", code, errs, pc[:min(len(pc), 16)])
	}
	btsWant, _, _ := sfcdump(t, "read", "-T", "fields", "-e", "bts.pause_us", "-Y", "bts", sampleCap)
	withStdin([]byte(pc), func() {
		got, _, _ := sfcdump(t, "read", "-T", "fields", "-e", "bts.pause_us", "-")
		if got != btsWant || got == "" {
			t.Errorf("-w - read back: %q, want %q", got, btsWant)
		}
	})
	// -q prints no frame; with -w it only writes.
	out := filepath.Join(dir, "q.pcapng")
	if o, e, c := sfcdump(t, "read", "-q", sampleCap); o != "" || e != "" || c != 0 {
		t.Errorf("-q: exit %d, stdout %q, stderr %q", c, o, e)
	}
	if o, _, c := sfcdump(t, "read", "-q", "-c", "3", "-w", out, sampleCap); o != "" || c != 0 || countFrames(t, out) != 3 {
		t.Errorf("-q -c 3 -w: exit %d, stdout %q, %d frames", c, o, countFrames(t, out))
	}
}

// evilName carries what must never reach a terminal raw: ESC sequences
// (clear screen, set title), CR, BEL, invalid UTF-8 and a bidi override.
const evilName = "port\x1b[2J\x1b]0;pwned\a\rX\xff\xfe\u202egnp"

// evilCapture writes the sample's frames on one interface named evilName,
// each with an evil comment.
func evilCapture(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "evil.pcapng")
	f, _ := os.Create(path)
	w, err := pcapio.NewWriter(f, evilName)
	if err != nil {
		t.Fatal(err)
	}
	for _, fr := range loadFrames(t, sampleCap) {
		w.Write(0, fr.Time, fr.Data, fr.Len, "comment "+evilName)
	}
	w.Flush()
	f.Close()
	return path
}

// TestTerminalSafety: no command prints a raw control character, invalid
// UTF-8 or bidi control taken from a capture.
func TestTerminalSafety(t *testing.T) {
	evil := evilCapture(t)
	svg := filepath.Join(t.TempDir(), "t.svg")
	for _, args := range [][]string{
		{"read", evil},
		{"read", "-V", evil},
		{"read", "-V", "-x", evil},
		{"read", "-T", "json", evil},
		{"stats", evil},
		{"stats", "--json", evil},
		{"timeline", evil, "-o", svg},
		{"read", evil + "\x1b[31m"},
	} {
		out, errs, _ := sfcdump(t, args...)
		for name, s := range map[string]string{"stdout": out, "stderr": errs} {
			for _, bad := range []string{"\x1b", "\a", "\r", "\xff", "\u202e"} {
				if strings.Contains(s, bad) {
					t.Errorf("%v: %s holds %q:\n%q", args[:len(args)-1], name, bad, s)
				}
			}
		}
		if args[0] != "read" || len(args) == 2 && strings.HasSuffix(args[1], "m") {
			continue
		}
		want := `port\x1b[2J\x1b]0;pwned\a\rX\xff\xfe\u202egnp`
		if slices.Contains(args, "json") {
			want = strings.ReplaceAll(want, `\`, `\\`) // the same text, a JSON string
		}
		if !strings.Contains(out, want) {
			t.Errorf("%v: the escaped name is missing:\n%s", args, out)
		}
	}
	pic, _ := os.ReadFile(svg)
	if bytes.ContainsAny(pic, "\x1b\a\r\xff") || len(pic) == 0 {
		t.Errorf("timeline picture holds raw control octets or is empty (%d octets)", len(pic))
	}
	v, _, _ := sfcdump(t, "read", "-V", "-c", "1", evil)
	if !strings.Contains(v, `frame.comment: comment port\x1b[2J`) {
		t.Errorf("-V comment not shown escaped:\n%s", v)
	}
}

// TestWiresharkInstallKeepsLocalEdits: install replaces its own earlier
// file but not a hand-edited one without --force, which keeps a backup.
func TestWiresharkInstallKeepsLocalEdits(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sfc.lua")
	if out, errs, code := sfcdump(t, "wireshark", "install", "--dir", dir); code != 0 || out != path+"\n" {
		t.Fatalf("first install: exit %d, %q, %q", code, out, errs)
	}
	// An earlier install's file (another version) is replaced quietly.
	older := []byte("-- sfc.lua of an older sfcdump\n")
	os.WriteFile(path, older, 0o644)
	os.WriteFile(filepath.Join(dir, ".sfc.lua.sha256"), []byte(sum(older)+"\n"), 0o644)
	if _, errs, code := sfcdump(t, "wireshark", "install", "--dir", dir); code != 0 || !strings.Contains(errs, "earlier install") {
		t.Errorf("upgrade: exit %d, stderr %q", code, errs)
	}
	ours, _ := os.ReadFile(path)
	edited := append(bytes.Clone(ours), "-- my local tweak\n"...)
	os.WriteFile(path, edited, 0o644)
	os.Chmod(path, 0o600) // private: the backup must stay so
	_, errs, code := sfcdump(t, "wireshark", "install", "--dir", dir)
	if code != 1 || !strings.Contains(errs, "--force") || !strings.Contains(errs, "my local tweak") {
		t.Errorf("edited: exit %d, stderr %q; want 1, what differs, --force", code, errs)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, edited) {
		t.Fatal("the edited plugin was overwritten without --force")
	}
	if _, errs, code := sfcdump(t, "wireshark", "install", "--dir", dir, "--force"); code != 0 || !strings.Contains(errs, ".bak") {
		t.Errorf("--force: exit %d, stderr %q", code, errs)
	}
	if got, _ := os.ReadFile(path + ".bak"); !bytes.Equal(got, edited) {
		t.Error("--force did not keep the edited file as sfc.lua.bak")
	}
	if fi, err := os.Stat(path + ".bak"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the backup of a 0600 file: %v, %v; want 0600", fi.Mode(), err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, ours) {
		t.Error("--force did not install")
	}
	// A second edit and --force: the first backup stays, the second is
	// kept beside it.
	edited2 := append(bytes.Clone(ours), "-- another tweak\n"...)
	os.WriteFile(path, edited2, 0o644)
	if _, errs, code := sfcdump(t, "wireshark", "install", "--dir", dir, "--force"); code != 0 || !strings.Contains(errs, "sfc.lua.bak.1") {
		t.Errorf("second --force: exit %d, stderr %q", code, errs)
	}
	if got, _ := os.ReadFile(path + ".bak"); !bytes.Equal(got, edited) {
		t.Error("a second --force overwrote the first backup")
	}
	if got, _ := os.ReadFile(path + ".bak.1"); !bytes.Equal(got, edited2) {
		t.Error("a second --force did not keep the second edit")
	}
	noTemps(t, dir, "sfc.lua", "sfc.lua.bak", "sfc.lua.bak.1", ".sfc.lua.sha256")
	// --dir names a folder that must exist; an empty one is a usage error.
	missing := filepath.Join(dir, "no", "such")
	if _, errs, code := sfcdump(t, "wireshark", "install", "--dir", missing); code != 1 || !strings.Contains(errs, "--dir") {
		t.Errorf("--dir of a missing folder: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); err == nil {
		t.Error("--dir of a missing folder created it")
	}
	if _, errs, code := sfcdump(t, "wireshark", "install", "--dir", ""); code != 2 || !strings.Contains(errs, "--dir") {
		t.Errorf("--dir '': exit %d, %q", code, errs)
	}
}

// TestManPages: sfcdump man DIR writes a page per command, with the
// command's flags, that man(1) can format.
func TestManPages(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "man1")
	out, errs, code := sfcdump(t, "man", dir)
	if code != 0 || !strings.HasSuffix(out, " pages\n") {
		t.Fatalf("exit %d, %q, %q", code, out, errs)
	}
	for _, name := range []string{"sfcdump.1", "sfcdump-read.1", "sfcdump-stats.1", "sfcdump-timeline.1", "sfcdump-wireshark-install.1", "sfcdump-man.1"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		// Titled by its name, as man finds it: SFCDUMP-READ(1).
		title := strings.ToUpper(strings.TrimSuffix(name, ".1"))
		if !bytes.Contains(b, []byte("\n.TH \""+title+"\" \"1\"")) {
			t.Errorf("%s has no .TH %q header: %q", name, title, b[:min(len(b), 60)])
		}
	}
	page, _ := os.ReadFile(filepath.Join(dir, "sfcdump-read.1"))
	if !bytes.Contains(page, []byte("--read-file")) || !bytes.Contains(page, []byte("zstd")) {
		t.Error("sfcdump-read.1 lacks --read-file or its description")
	}
	if _, _, code := sfcdump(t, "man"); code != 2 {
		t.Errorf("man without DIR: exit %d, want 2", code)
	}
	if p, err := exec.LookPath("man"); err == nil {
		b, err := exec.Command(p, "-l", filepath.Join(dir, "sfcdump-read.1")).Output()
		if err != nil || !bytes.Contains(b, []byte("sfcdump read")) {
			t.Errorf("man -l sfcdump-read.1: %v\n%s", err, b)
		}
	}
}

// openPty returns the two ends of a new pseudo-terminal.
func openPty(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("opening the pty: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// TestWriteStdoutRefusesTerminal: -w - (or /dev/stdout, its other
// spelling) to a terminal would pour a binary capture, raw strings
// included, onto it: refused as bad usage.
func TestWriteStdoutRefusesTerminal(t *testing.T) {
	_, tty := openPty(t)
	for _, w := range []string{"-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"} {
		var errb bytes.Buffer
		if code := run([]string{"read", "-w", w, sampleCap}, tty, &errb); code != 2 || !strings.Contains(errb.String(), "standard output is a terminal") {
			t.Errorf("-w %s to a terminal: exit %d, stderr %q", w, code, errb.String())
		}
	}
}

// TestWriteDevStdout: -w /dev/stdout is -w - (tcpdump's habit): the
// capture goes to standard output, pipe or file, octet for octet what
// -w - writes, and -P is refused there as with -w -. Resolved as a link,
// it named a pipe that could not be created, or replaced by a rename the
// file the shell had opened.
func TestWriteDevStdout(t *testing.T) {
	want, _, code := sfcdump(t, "read", "-w", "-", sampleCap)
	if code != 0 || len(want) < 1000 {
		t.Fatalf("-w -: exit %d, %d octets", code, len(want))
	}
	for _, w := range []string{"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "/dev/./stdout"} {
		if got, errs, code := sfcdump(t, "read", "-w", w, sampleCap); code != 0 || got != want {
			t.Errorf("-w %s: exit %d, stderr %q, %d octets, want those of -w - (%d)", w, code, errs, len(got), len(want))
		}
		if _, errs, code := sfcdump(t, "read", "-P", "-w", w, sampleCap); code != 2 || !strings.Contains(errs, "-P cannot print there too") {
			t.Errorf("-w %s -P: exit %d, stderr %q", w, code, errs)
		}
	}
}

// TestReadInterruptedBlockedPipe: Ctrl-C while read -w waits on a pipe
// that sends nothing more (the upstream lives on) puts every frame
// written in place and exits 130 without waiting for the pipe, and
// leaves no temporary file.
func TestReadInterruptedBlockedPipe(t *testing.T) {
	pw := pipedStdin(t)
	exited := catchExit(t)
	data, _ := os.ReadFile(sampleCap)
	dir := t.TempDir()
	out := filepath.Join(dir, "held.pcapng")
	type result struct {
		errs string
		code int
	}
	done := make(chan result, 1)
	go func() {
		_, errs, code := sfcdump(t, "read", "-r", "-", "-w", out)
		done <- result{errs, code}
	}()
	pw.Write(data)
	awaitOutput(dir)
	time.Sleep(200 * time.Millisecond) // all 21 frames read; the read waits
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	if code := awaitExit(t, exited, 10*time.Second); code != 130 {
		t.Errorf("exit %d, want 130", code)
	}
	// The process would be gone here; the capture is already in place.
	if got := countFrames(t, out); got != 21 {
		t.Errorf("%d frames in place at the exit, want 21", got)
	}
	noTemps(t, dir, "held.pcapng")
	pw.Close()
	r := <-done
	if !strings.Contains(r.errs, "interrupted while waiting for input: 21 frames, all written to "+out) {
		t.Errorf("stderr %q", r.errs)
	}
}

// TestStdStreamsAreNeverTheInput: `-w -` with standard output appended to
// the input (`>> in`) read its own output without end (3.4 GB in 20 s),
// and `-r - -w in < in` replaced the input it read; both are refused
// with exit 2, the input untouched; pipes and other files still work.
func TestStdStreamsAreNeverTheInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.pcapng")
	want := copyFile(t, sampleCap, in)
	open := func(p string, flag int) *os.File {
		f, err := os.OpenFile(p, flag, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	check := func(what string, code int, errs, reason string) {
		t.Helper()
		if code != 2 || !strings.Contains(errs, reason) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", what, code, errs, reason)
		}
		if got, _ := os.ReadFile(in); !bytes.Equal(got, want) {
			t.Fatalf("%s: the input changed (%d octets, was %d)", what, len(got), len(want))
		}
	}
	var errb bytes.Buffer
	code := run([]string{"read", "-q", in, "-w", "-"}, open(in, os.O_WRONLY|os.O_APPEND), &errb)
	check("-w - >> in", code, errb.String(), "standard output is the same file as the input "+in)

	old := os.Stdin
	defer func() { os.Stdin = old }()
	os.Stdin = open(in, os.O_RDONLY)
	_, errs, code := sfcdump(t, "read", "-r", "-", "-w", in)
	check("-r - -w in < in", code, errs, in+" is the same file as standard input")
	os.Stdin = open(in, os.O_RDONLY)
	_, errs, code = sfcdump(t, "timeline", "-r", "-", "-o", filepath.Join(dir, "in.svg"))
	if code != 0 {
		t.Errorf("timeline from a redirected capture: exit %d, %s", code, errs)
	}
	os.Stdin = open(filepath.Join(dir, "in.svg"), os.O_RDONLY)
	_, errs, code = sfcdump(t, "timeline", "-r", "-", "-o", filepath.Join(dir, "in.svg"))
	if code != 2 || !strings.Contains(errs, "is the same file as standard input") {
		t.Errorf("timeline -r - -o x.svg < x.svg: exit %d, %q", code, errs)
	}

	// Standard output into another file, and standard input from the
	// input while writing elsewhere, are fine.
	other := filepath.Join(dir, "other.pcapng")
	errb.Reset()
	if code := run([]string{"read", "-q", in, "-w", "-"}, open(other, os.O_WRONLY|os.O_CREATE|os.O_TRUNC), &errb); code != 0 {
		t.Errorf("-w - > other: exit %d, %s", code, errb.String())
	}
	if n := countFrames(t, other); n != 21 {
		t.Errorf("-w - > other: %d frames, want 21", n)
	}
	os.Stdin = open(in, os.O_RDONLY)
	if _, errs, code := sfcdump(t, "read", "-r", "-", "-w", filepath.Join(dir, "copy.pcapng")); code != 0 {
		t.Errorf("-r - -w copy < in: exit %d, %s", code, errs)
	}
}

// TestUnwritableOutputIsRuntimeError: an output that cannot be created is
// exit status 1 (a runtime error, as tcpdump), not a usage error.
func TestUnwritableOutputIsRuntimeError(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no", "such", "dir", "x.pcapng")
	out, errs, code := sfcdump(t, "read", "-q", "-w", missing, sampleCap)
	if code != 1 || out != "" || !strings.Contains(errs, missing) {
		t.Errorf("read -w %s: exit %d, stdout %q, stderr %q; want 1 naming the output", missing, code, out, errs)
	}
}

// TestLiveFlagsValidated: conform live's and emulate's numeric flags out of
// range (NaN, ±Inf, negative, huge) are usage errors (exit 2) naming the
// flag, found before any interface is opened: no root or namespace needed.
func TestLiveFlagsValidated(t *testing.T) {
	saved := liveOpen
	defer func() { liveOpen = saved }()
	liveOpen = func(iface string, _ liveio.Options) (*liveio.Port, error) {
		t.Errorf("opened %s: a flag out of range went through", iface)
		return nil, errors.New("not in this test")
	}
	const v = "../../pcaps/sfc/incast-first-bts"
	lv := []string{"conform", "live", v, "--port", "0=nonexist0"}
	em := []string{"emulate", "--scheme", "pfc", "--port", "0=nonexist0"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(lv, "--dilate", "NaN"), "--dilate NaN"},
		{append(lv, "--dilate", "Inf"), "--dilate +Inf"},
		{append(lv, "--dilate", "-Inf"), "--dilate -Inf"},
		{append(lv, "--dilate", "0"), "--dilate 0"},
		{append(lv, "--dilate", "-1"), "--dilate -1"},
		{append(lv, "--dilate", "1e300"), "--dilate 1e+300"},
		{append(lv, "--max-slip", "-1h"), "--max-slip -1h0m0s"},
		{append(lv, "--max-slip", "-1ns"), "--max-slip -1ns"},
		{append(lv, "--max", "-1"), "--max -1"},
		{append(em, "--dilate", "NaN"), "--dilate NaN"},
		{append(em, "--dilate", "+Inf"), "--dilate +Inf"},
		{append(em, "--dilate", "0.5"), "--dilate 0.5"},
		{append(em, "--dilate", "1e10"), "--dilate 1e+10"},
		{append(em, "--settle", "-1ms"), "--settle -1ms"},
		{append(em, "--duration", "-1s"), "--duration -1s"},
		{[]string{"conform", "run", v, "-j", "0"}, "-j 0"},
		{[]string{"conform", "run", v, "-j", "257"}, "-j 257"},
		{[]string{"conform", "run", v, "--max", "-1"}, "--max -1"},
	} {
		args := slices.Clone(tc.args)
		out, errs, code := sfcdump(t, args...)
		if code != 2 || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing, %q", args, code, out, errs, tc.want)
		}
	}
}

// TestCompletableInterfaces: completion offers no interface name with a
// control character (ESC, newline, C1), which the shell would print raw.
func TestCompletableInterfaces(t *testing.T) {
	got := completable([]string{"eth0", "e\x1b[7mX", "swp1", "a\nb", "c\u0085d", "vethé"})
	if strings.Join(got, " ") != "eth0 swp1 vethé" {
		t.Errorf("completable: %q", got)
	}
}

// TestErrorLinesCannotBeForged: a line break in a file name continues the
// error indented; no line of stderr but the first starts "sfcdump:".
func TestErrorLinesCannotBeForged(t *testing.T) {
	name := filepath.Join(t.TempDir(), "no\nsfcdump: all good\n.pcapng")
	_, errs, code := sfcdump(t, "read", name)
	if code == 0 || strings.Count(errs, "\nsfcdump:") != 0 || !strings.HasPrefix(errs, "sfcdump: ") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestSeveralFilesNumberedAsOne: frames of several files are numbered
// across them, in the order given, as one capture: frame.number selects
// the same frames before and after -w joins them, with one worker or many.
func TestSeveralFilesNumberedAsOne(t *testing.T) {
	w := filepath.Join(t.TempDir(), "joined.pcapng")
	if _, errs, code := sfcdump(t, "read", "-q", "-w", w, sampleCap, sampleCap); code != 0 {
		t.Fatal(errs)
	}
	for _, procs := range []int{0, 1} {
		old := runtime.GOMAXPROCS(procs)
		two, _, _ := sfcdump(t, "read", "-T", "fields", "-e", "frame.number", "-e", "eth.src", "-Y", "frame.number in {2 20 22 40}", sampleCap, sampleCap)
		joined, _, _ := sfcdump(t, "read", "-T", "fields", "-e", "frame.number", "-e", "eth.src", "-Y", "frame.number in {2 20 22 40}", w)
		runtime.GOMAXPROCS(old)
		if strings.Count(two, "\n") != 4 || two != joined || !strings.HasPrefix(two, "2\t") || !strings.Contains(two, "\n40\t") {
			t.Errorf("GOMAXPROCS %d: two files:\n%s\njoined:\n%s", procs, two, joined)
		}
	}
}

// TestReadInterruptedStdout: Ctrl-C while read waits on a pipe that sends
// nothing more keeps on standard output every frame read, as text and as
// a capture (-w -): the buffered output is flushed before the exit with
// status 130, and the capture reads back whole.
func TestReadInterruptedStdout(t *testing.T) {
	data, _ := os.ReadFile(sampleCap)
	for _, args := range [][]string{{"read", "-r", "-"}, {"read", "-r", "-", "-q", "-w", "-"}} {
		t.Run(strings.Join(args[1:], " "), func(t *testing.T) {
			pw := pipedStdin(t)
			exited := catchExit(t)
			var out syncbuf.Buffer
			var errb bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- run(args, &out, &errb) }()
			pw.Write(data)
			time.Sleep(300 * time.Millisecond) // all 21 frames read; the read waits
			syscall.Kill(os.Getpid(), syscall.SIGINT)
			if code := awaitExit(t, exited, 10*time.Second); code != 130 {
				t.Errorf("exit %d, want 130", code)
			}
			got := out.Bytes() // what the process leaves at its exit
			if slices.Contains(args, "-w") {
				path := filepath.Join(t.TempDir(), "out.pcapng")
				os.WriteFile(path, got, 0o644)
				if n := countFrames(t, path); n != 21 {
					t.Errorf("-w -: %d frames on standard output at the exit, want 21", n)
				}
			} else if n := strings.Count(string(got), "\n"); n != 21 {
				t.Errorf("%d lines on standard output at the exit, want 21:\n%s", n, got)
			}
			pw.Close()
			<-done
		})
	}
}

// blockedWriter blocks every write until release is closed, as a pipe
// whose reader stopped reading.
type blockedWriter struct{ release chan struct{} }

func (w blockedWriter) Write(p []byte) (int, error) { <-w.release; return len(p), nil }

// TestReadInterruptedBlockedStdout: Ctrl-C while standard output itself
// is blocked still ends the process (130) within the salvage's bounds,
// saying what was not written, rather than hanging on the flush; and
// with -w it puts the capture in place with every frame written (the
// printing and the capture have their own locks: a write stuck in
// standard output does not hold the capture).
func TestReadInterruptedBlockedStdout(t *testing.T) {
	oldWait := salvageWait
	salvageWait = 200 * time.Millisecond
	defer func() { salvageWait = oldWait }()
	data, _ := os.ReadFile(sampleCap)
	path := filepath.Join(t.TempDir(), "kept.pcapng")
	for _, args := range [][]string{{"read", "-r", "-"}, {"read", "-r", "-", "-P", "-w", path}} {
		pw := pipedStdin(t)
		exited := catchExit(t)
		out := blockedWriter{make(chan struct{})}
		var errb syncbuf.Buffer
		done := make(chan int, 1)
		go func() { done <- run(args, out, &errb) }()
		pw.Write(data)
		time.Sleep(300 * time.Millisecond) // all 21 frames read (and written to -w); the flush to standard output blocks
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		code := awaitExit(t, exited, 5*time.Second)
		withW := len(args) > 3
		if e := string(errb.Bytes()); code != 130 || !strings.Contains(e, "standard output is blocked") || withW && !strings.Contains(e, "21 frames, all written to") {
			t.Errorf("%v: exit %d, stderr %q", args, code, e)
		}
		if withW {
			if n := countFrames(t, path); n != 21 {
				t.Errorf("-w: %d frames, want 21", n)
			}
		}
		close(out.release)
		pw.Close()
		<-done
	}
}

// epipeWriter takes n octets, then fails as a pipe whose reader is gone.
type epipeWriter struct{ n int }

func (w *epipeWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
	}
	w.n -= len(p)
	return len(p), nil
}

// TestReadClosedPipeKeepsW: a reader that closes standard output early
// (read -P -w X | head) ends the run as an interrupt does: the -w capture
// is put in place with the frames written so far, and the exit status is
// 141, as when SIGPIPE ends a process; with one worker or several, when
// the pipe closes mid-run (2,100 frames: the output outgrows its buffer)
// or only at the last flush (21 frames).
func TestReadClosedPipeKeepsW(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.pcapng")
	if _, errs, code := sfcdump(t, append([]string{"read", "-q", "-w", big}, slices.Repeat([]string{sampleCap}, 100)...)...); code != 0 {
		t.Fatal(errs)
	}
	for _, procs := range []int{1, 2} {
		for _, in := range []string{sampleCap, big} {
			old := runtime.GOMAXPROCS(procs)
			path := filepath.Join(t.TempDir(), "kept.pcapng")
			var errb bytes.Buffer
			code := run([]string{"read", "-P", "-w", path, in}, &epipeWriter{n: 100}, &errb)
			runtime.GOMAXPROCS(old)
			e := errb.String()
			if code != 141 || !strings.Contains(e, "standard output was closed by its reader; ") {
				t.Errorf("GOMAXPROCS %d, %s: exit %d, stderr %q", procs, in, code, e)
				continue
			}
			n := countFrames(t, path)
			if in == sampleCap && n != 21 || in == big && (n < 1 || n >= 2100) || !strings.Contains(e, fmt.Sprintf("; %d frames written to", n)) {
				t.Errorf("GOMAXPROCS %d, %s: -w has %d frames; stderr %q", procs, in, n, e)
			}
		}
	}
}

// catchExit makes the process exits of a salvage (exitProcess) come to
// the returned channel for the rest of the test.
func catchExit(t *testing.T) <-chan int {
	exited := make(chan int, 1)
	old := exitProcess
	exitProcess = func(code int) { exited <- code }
	t.Cleanup(func() { exitProcess = old })
	return exited
}

// awaitExit returns the status of the exit caught by catchExit, failing
// the test if none comes within d of Ctrl-C.
func awaitExit(t *testing.T, exited <-chan int, d time.Duration) int {
	t.Helper()
	select {
	case code := <-exited:
		return code
	case <-time.After(d):
		t.Fatalf("no exit %v after Ctrl-C", d)
		return 0
	}
}

// TestReadPipeShowsWhileWriterPauses: reading a pipe, what the writer sent
// is shown (and with -w -, written) before the writer sends more or
// closes, as `tcpdump -l -r -` does.
func TestReadPipeShowsWhileWriterPauses(t *testing.T) {
	data, err := os.ReadFile(sampleCap)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		ok   func(string) bool
	}{
		{[]string{"read", "-r", "-"}, func(s string) bool { return strings.Contains(s, "\n2 ") }},
		{[]string{"read", "-r", "-", "-w", "-"}, func(s string) bool { return len(s) > 600 }},
	} {
		pw := pipedStdin(t)
		var out, errb syncbuf.Buffer
		done := make(chan int, 1)
		go func() { done <- run(tc.args, &out, &errb) }()
		pw.Write(data[:2000])
		shown := false
		for i := 0; i < 500 && !shown; i++ {
			time.Sleep(10 * time.Millisecond)
			shown = tc.ok(string(out.Bytes()))
		}
		pw.Write(data[2000:])
		pw.Close()
		if code := <-done; code != 0 {
			t.Fatalf("%v: exit %d, %q", tc.args, code, errb.Bytes())
		}
		if !shown {
			t.Errorf("%v: nothing shown in 5 s while the writer paused (then %d octets)", tc.args, len(out.Bytes()))
		}
	}
}

// TestReadKeepsWhatWasRead: a capture that cannot be opened among others
// is reported and the others are read (exit 2); the -w file made of them
// is kept when it replaces nothing, and an existing file is left as it
// was. An unmatched --link-speed, found after every frame was read, keeps
// the new -w file too.
func TestReadKeepsWhatWasRead(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.pcapng")
	text, errs, code := sfcdump(t, "read", "-w", out, sampleCap, filepath.Join(dir, "missing.pcapng"), sampleCap)
	if code != 2 || text != "" || !strings.Contains(errs, "missing.pcapng") {
		t.Errorf("a missing second capture: exit %d, %d lines, stderr %q", code, strings.Count(text, "\n"), errs)
	}
	if n := countFrames(t, out); n != 42 {
		t.Errorf("a missing second capture: %d frames kept in -w, want 42", n)
	}
	// Again, onto the file now there: not replaced.
	before, _ := os.ReadFile(out)
	_, errs, code = sfcdump(t, "read", "-q", "-w", out, sampleCap, filepath.Join(dir, "missing.pcapng"))
	if after, _ := os.ReadFile(out); code != 2 || !bytes.Equal(before, after) || !strings.Contains(errs, "an existing file is left as it was") {
		t.Errorf("onto an existing file: exit %d, replaced %v, stderr %q", code, !bytes.Equal(before, after), errs)
	}
	noTemps(t, dir, "out.pcapng")
	out2 := filepath.Join(dir, "speed.pcapng")
	_, errs, code = sfcdump(t, "read", "-q", "-w", out2, "--link-speed", "port9=25G", sampleCap)
	if code != 2 || !strings.Contains(errs, "--link-speed port9") {
		t.Errorf("unmatched --link-speed: exit %d, stderr %q", code, errs)
	}
	if n := countFrames(t, out2); n != 21 {
		t.Errorf("unmatched --link-speed: %d frames kept in -w, want 21", n)
	}
}

// interruptOnPipe runs sfcdump with args reading the sample capture from
// a pipe that stays open, sends SIGINT once the frames are read, checks
// that both the salvage's exit and run end with status 130, and returns
// standard output and standard error.
func interruptOnPipe(t *testing.T, args ...string) (text, errs string) {
	t.Helper()
	pw := pipedStdin(t)
	exited := catchExit(t)
	data, err := os.ReadFile(sampleCap)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb syncbuf.Buffer
	done := make(chan int, 1)
	go func() { done <- run(args, &out, &errb) }()
	pw.Write(data)
	time.Sleep(300 * time.Millisecond) // the 21 frames are read, then it waits
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	if code := awaitExit(t, exited, 5*time.Second); code != 130 {
		t.Errorf("exit %d, want 130", code)
	}
	pw.Close()
	if code := <-done; code != 130 {
		t.Errorf("run returned %d, want 130", code)
	}
	return string(out.Bytes()), string(errb.Bytes())
}

// TestStatsInterrupted: Ctrl-C while stats waits on a pipe prints the
// report of the frames read so far, once, says so on stderr and exits
// with status 130 (it used to die of the signal with nothing printed).
func TestStatsInterrupted(t *testing.T) {
	text, errs := interruptOnPipe(t, "stats", "-r", "-")
	if strings.Count(text, "Frames: 21 ") != 1 || !strings.Contains(errs, "interrupted after 21 frames") {
		t.Errorf("stdout:\n%s\nstderr: %q", text, errs)
	}
}

// TestTimelineInterrupted: Ctrl-C while timeline waits on a pipe writes
// nothing (it drew the frames read so far over the picture asked for,
// an existing one included), says so on stderr and exits with status 130
// (it used to die of the signal).
func TestTimelineInterrupted(t *testing.T) {
	for _, existing := range []bool{true, false} {
		dir := t.TempDir()
		pic := filepath.Join(dir, "t.svg")
		if existing {
			os.WriteFile(pic, []byte("old\n"), 0o644)
		}
		text, errs := interruptOnPipe(t, "timeline", "-r", "-", "-o", pic)
		svg, err := os.ReadFile(pic)
		if existing && string(svg) != "old\n" || !existing && !os.IsNotExist(err) || strings.Contains(text, " rows: ") ||
			!strings.Contains(errs, "interrupted after 21 frames; nothing written: -o "+pic+" is left as it was") {
			t.Errorf("existing %v: %q, %v\nstdout:\n%s\nstderr: %q", existing, svg[:min(len(svg), 20)], err, text, errs)
		}
		want := []string{}
		if existing {
			want = append(want, "t.svg")
		}
		noTemps(t, dir, want...)
	}
}

// fullWriter fails every write as a full disk does (/dev/full).
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}
}

// TestStdoutWriteFailureExits1: a command whose standard output cannot be
// written exits 1 and says so, also where it prints a text it does not
// check (help, lists, the rules); it exited 0 with the output lost.
func TestStdoutWriteFailureExits1(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"read", "--help"}, {"conform", "rules"}, {"conform", "scenario", "list"}, {"--version"},
		{"read", sampleCap}, {"stats", sampleCap}, {"read", "-T", "json", sampleCap}, {"completion", "bash"},
	} {
		var errb bytes.Buffer
		if code := run(args, fullWriter{}, &errb); code != 1 || !strings.Contains(errb.String(), "no space left on device") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
}

// TestNumericFlag: tcpdump's -n and -nn (and -nnr FILE, its usual
// spelling) are taken and change nothing: sfcdump never resolves names.
func TestNumericFlag(t *testing.T) {
	want, _, _ := sfcdump(t, "read", sampleCap)
	for _, args := range [][]string{{"read", "-nnr", sampleCap}, {"read", "-n", sampleCap}, {"read", "-nn", "-r", sampleCap}} {
		if out, errs, code := sfcdump(t, args...); code != 0 || out != want {
			t.Errorf("%v: exit %d, stderr %q, output differs: %v", args, code, errs, out != want)
		}
	}
}

// TestJSONFrameNameAndComments: -T json names the frame's interface and
// carries its comments, as -V shows them (tshark's frame.interface_name
// and frame.comment), escaped as every string from a capture is, and the
// line stays valid JSON.
func TestJSONFrameNameAndComments(t *testing.T) {
	type frameObj struct {
		Frame struct {
			Number        int      `json:"number"`
			InterfaceName *string  `json:"interface_name"`
			Comments      []string `json:"comments"`
		} `json:"frame"`
	}
	out, _, code := sfcdump(t, "read", "-T", "json", "-c", "1", sampleCap)
	var f frameObj
	if err := json.Unmarshal([]byte(out), &f); err != nil || code != 0 {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	if f.Frame.InterfaceName == nil || *f.Frame.InterfaceName != "port1" || len(f.Frame.Comments) != 1 || f.Frame.Comments[0] != "802.3x PAUSE, 65535 quanta" {
		t.Errorf("frame 1: %s", out)
	}
	out, _, _ = sfcdump(t, "read", "-T", "json", evilCapture(t))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i, l := range lines {
		var f frameObj
		if err := json.Unmarshal([]byte(l), &f); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, l)
		}
		name := f.Frame.InterfaceName
		if name == nil || !strings.HasPrefix(*name, "port") || strings.ContainsAny(*name, "\x1b\a\r\u202e") || len(f.Frame.Comments) != 1 ||
			strings.ContainsAny(f.Frame.Comments[0], "\x1b\a\r\u202e") || !strings.HasPrefix(f.Frame.Comments[0], "comment port") {
			t.Fatalf("line %d: name %v, comments %q", i+1, name, f.Frame.Comments)
		}
	}
	// A frame of an unnamed interface without comments has neither key.
	out, _, _ = sfcdump(t, "read", "-T", "json", "-c", "1", vlanCap)
	if strings.Contains(out, "interface_name") || strings.Contains(out, "comments") {
		t.Errorf("unnamed, uncommented: %s", out)
	}
}

// TestWriteInPlaceFinished: an output written in place (a descriptor:
// /dev/fd/N; a named pipe or device alike) cannot be taken back, so it
// is written as -w - writes standard output: a capture broken part-way
// leaves there every frame before the break, finished (exit 1), where it
// was held back and cut mid-record as a file to be put in place.
func TestWriteInPlaceFinished(t *testing.T) {
	data, err := os.ReadFile(sampleCap)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.pcapng")
	os.WriteFile(cut, data[:len(data)-50], 0o644)
	want, _, code := sfcdump(t, "read", "-q", "-w", "-", cut)
	if code != 1 || len(want) < 100 {
		t.Fatalf("-w -: exit %d, %d octets", code, len(want))
	}
	out, err := os.Create(filepath.Join(t.TempDir(), "out.pcapng"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	_, errs, code := sfcdump(t, "read", "-q", "-w", "/dev/fd/"+strconv.Itoa(int(out.Fd())), cut)
	got, _ := os.ReadFile(out.Name())
	if code != 1 || string(got) != want || strings.Contains(errs, "left as it was") {
		t.Errorf("-w /dev/fd/N: exit %d, %d octets (want those of -w -, %d), stderr %q", code, len(got), len(want), errs)
	}
}
