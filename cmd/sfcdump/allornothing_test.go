// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"golang.org/x/sys/unix"

	"github.com/opensfc/sfc/internal/tmpfstest"
)

// snapshotDir returns the content of every regular file under dir by its
// path relative to dir, and the names of the temporary files (.NAME.tmp-N)
// found.
func snapshotDir(t *testing.T, dir string) (files map[string]string, temps []string) {
	t.Helper()
	files = map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if strings.Contains(d.Name(), ".tmp-") {
			temps = append(temps, rel)
			return nil
		}
		b, _ := os.ReadFile(p)
		files[rel] = string(b)
		return nil
	})
	return files, temps
}

// TestMultiFileOutputsAllOrNothing: a command that writes several files
// replaces all of them or none. One target that cannot be replaced (a
// directory in the way) used to leave the files written before it
// replaced: man replaced 16 pages of 23, conform gen --inputs rewrote
// case.yaml and input.pcapng and then failed on expected.pcapng,
// wireshark install --force replaced sfc.lua and made sfc.lua.bak, then
// failed on its .sha256. The exit status and message are as before.
func TestMultiFileOutputsAllOrNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		// setup makes the files in dir, with one in the way, and returns
		// the command to run.
		setup   func(t *testing.T, dir string) []string
		code    int
		message string
	}{
		{"man", func(t *testing.T, dir string) []string {
			mdx := filepath.Join(dir, "mdx")
			if _, errs, code := sfcdump(t, "man", mdx); code != 0 {
				t.Fatalf("man: exit %d, %s", code, errs)
			}
			pages, _ := filepath.Glob(filepath.Join(mdx, "*.1"))
			for _, p := range pages {
				os.WriteFile(p, []byte("OLD\n"), 0o644)
			}
			os.Remove(filepath.Join(mdx, "sfcdump-read.1"))
			os.Mkdir(filepath.Join(mdx, "sfcdump-read.1"), 0o755)
			return []string{"man", mdx}
		}, 1, "sfcdump-read.1: is a directory"},
		{"conform gen --inputs", func(t *testing.T, dir string) []string {
			g2 := filepath.Join(dir, "g2")
			if _, errs, code := conform(t, "scenario", "incast", "--out", g2); code != 0 {
				t.Fatalf("scenario: exit %d, %s", code, errs)
			}
			if _, errs, code := conform(t, "gen", g2); code != 0 {
				t.Fatalf("gen: exit %d, %s", code, errs)
			}
			p := filepath.Join(g2, "case.yaml")
			b, _ := os.ReadFile(p)
			changed := strings.Replace(string(b), `scenario: "incast"`, `scenario: "incast --senders 3"`, 1)
			if changed == string(b) {
				t.Fatalf("no scenario line to change in %s", b)
			}
			os.WriteFile(p, []byte(changed), 0o644)
			os.Remove(filepath.Join(g2, "expected.pcapng"))
			os.Mkdir(filepath.Join(g2, "expected.pcapng"), 0o755)
			return []string{"conform", "gen", "--inputs", g2}
		}, 2, "expected.pcapng: is a directory"},
		{"conform scenario --force", func(t *testing.T, dir string) []string {
			v := filepath.Join(dir, "v")
			os.MkdirAll(filepath.Join(v, "input.pcapng"), 0o755)
			os.WriteFile(filepath.Join(v, "case.yaml"), []byte("old\n"), 0o644)
			return []string{"conform", "scenario", "incast", "--force", "--out", v}
		}, 1, "input.pcapng: is a directory"},
		{"wireshark install --force", func(t *testing.T, dir string) []string {
			ws2 := filepath.Join(dir, "ws2")
			os.Mkdir(ws2, 0o755)
			os.WriteFile(filepath.Join(ws2, "sfc.lua"), []byte("-- old\n"), 0o644)
			os.Mkdir(filepath.Join(ws2, ".sfc.lua.sha256"), 0o755)
			return []string{"wireshark", "install", "--dir", ws2, "--force"}
		}, 1, ".sfc.lua.sha256: is a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := tc.setup(t, dir)
			before, _ := snapshotDir(t, dir)
			_, errs, code := sfcdump(t, args...)
			if code != tc.code || !strings.Contains(errs, tc.message) {
				t.Errorf("exit %d, stderr %q; want %d, %q", code, errs, tc.code, tc.message)
			}
			after, temps := snapshotDir(t, dir)
			for name, old := range before {
				if after[name] != old {
					t.Errorf("%s replaced although the command failed", name)
				}
			}
			for name := range after {
				if _, ok := before[name]; !ok {
					t.Errorf("%s made although the command failed", name)
				}
			}
			if len(temps) > 0 {
				t.Errorf("temporary files left: %v", temps)
			}
		})
	}
}

// TestManFullDisk: man into a file system that fills up part-way (it
// failed with ENOSPC after 9 pages of 23, those 9 replaced) leaves every
// old page as it was and no temporary file.
func TestManFullDisk(t *testing.T) {
	fsDir := tmpfstest.Small(t, "256k")
	mdx := filepath.Join(fsDir, "man1")
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	if _, errs, code := sfcdump(t, "man", mdx); code != 0 {
		t.Fatalf("man: exit %d, %s", code, errs)
	}
	// Old pages of a few octets, and room for one block more: written
	// one by one, each new page in the block its old one freed, the pages
	// before sfcdump-read.1 (two blocks) were replaced, then the disk was
	// full.
	pages, _ := filepath.Glob(filepath.Join(mdx, "*.1"))
	for _, p := range pages {
		os.WriteFile(p, []byte("OLD\n"), 0o644)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(fsDir, &st); err != nil {
		t.Fatal(err)
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	if free < 16<<10 {
		t.Fatalf("only %d octets free after the pages", free)
	}
	if err := os.WriteFile(filepath.Join(fsDir, "filler"), make([]byte, free-6<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := snapshotDir(t, mdx)
	t.Setenv("SOURCE_DATE_EPOCH", "1800000000") // other pages: another date
	_, errs, code := sfcdump(t, "man", mdx)
	if code != 1 || !strings.Contains(errs, "no space left on device") {
		t.Errorf("exit %d, stderr %q; want 1, no space left", code, errs)
	}
	after, temps := snapshotDir(t, mdx)
	for name, old := range before {
		if after[name] != old {
			t.Errorf("%s replaced although the disk filled up", name)
		}
	}
	if len(temps) > 0 {
		t.Errorf("temporary files left: %v", temps)
	}
}

// awaitTemp waits (at most 5 s) for a temporary output (.NAME.tmp-N) in
// dir, which exists once sfcdump listens for signals.
func awaitTemp(dir string) {
	for i := 0; i < 500; i++ {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.Contains(e.Name(), ".tmp-") {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestReadInterruptedBeforeAnyFrame: Ctrl-C before read -w wrote a frame
// leaves an existing file as it was (an empty capture replaced a 21-frame
// one), says so and exits 130, whether the read is held on its pipe (the
// salvage) or sees the interrupt itself; into a new file the empty
// capture is still written, as before.
func TestReadInterruptedBeforeAnyFrame(t *testing.T) {
	data, _ := os.ReadFile(sampleCap)
	for _, tc := range []struct {
		name     string
		existing bool
		// send is what the pipe carries before Ctrl-C; a nil send keeps
		// the pipe open (the read is held: salvage), else it is closed
		// soon after.
		send   []byte
		filter string
	}{
		{"held on the pipe", true, nil, ""},
		{"frames that do not match", true, data, "frame.number > 1000"},
		{"into a new file", false, data, "frame.number > 1000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pw := pipedStdin(t)
			exited := catchExit(t)
			dir := t.TempDir()
			out := filepath.Join(dir, "keep.pcapng")
			var want []byte
			if tc.existing {
				want = copyFile(t, sampleCap, out)
			}
			args := []string{"read", "-r", "-", "-w", out}
			if tc.filter != "" {
				args = append(args, "-Y", tc.filter)
			}
			go func() {
				pw.Write(tc.send)
				awaitTemp(dir)
				time.Sleep(100 * time.Millisecond) // the read waits for more
				syscall.Kill(os.Getpid(), syscall.SIGINT)
				if tc.send != nil {
					time.Sleep(100 * time.Millisecond)
					pw.Close() // the upstream dies of the same Ctrl-C
				}
			}()
			done := make(chan struct{})
			var errs string
			var code int
			go func() { _, errs, code = sfcdump(t, args...); close(done) }()
			if tc.send == nil {
				if c := awaitExit(t, exited, 10*time.Second); c != 130 {
					t.Errorf("salvage exit %d, want 130", c)
				}
				pw.Close()
			}
			<-done
			if code != 130 {
				t.Errorf("exit %d, want 130; stderr %q", code, errs)
			}
			got, err := os.ReadFile(out)
			switch {
			case tc.existing && !bytes.Equal(got, want):
				t.Errorf("the existing capture replaced (%d octets, %d frames); stderr %q", len(got), countFrames(t, out), errs)
			case tc.existing && !strings.Contains(errs, "interrupted before any frame: "+out+" left as it was"):
				t.Errorf("stderr %q", errs)
			case !tc.existing && (err != nil || countFrames(t, out) != 0):
				t.Errorf("new file: %v, %d frames", err, countFrames(t, out))
			}
			noTemps(t, dir, "keep.pcapng")
		})
	}
}

// TestCaptureInterruptedBeforeAnyFrame: Ctrl-C before capture -w caught a
// frame leaves an existing file as it was and says so (an empty capture
// replaced it); --duration ending the capture is no interrupt.
func TestCaptureInterruptedBeforeAnyFrame(t *testing.T) {
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, syscall.SIGINT)
	old := openLive
	openLive = func(string, bool, int) (liveHandle, error) {
		return &fakeHandle{closed: make(chan struct{})}, nil // Ctrl-C at once
	}
	t.Cleanup(func() { openLive = old; signal.Stop(guard) })
	dir := t.TempDir()
	out := filepath.Join(dir, "existing.pcapng")
	want := copyFile(t, sampleCap, out)
	_, errs, code := sfcdump(t, "capture", "-i", "lo", "-q", "-w", out)
	if got, _ := os.ReadFile(out); !bytes.Equal(got, want) || code != 0 ||
		!strings.Contains(errs, "interrupted before any frame: "+out+" left as it was") {
		t.Errorf("exit %d, replaced %v, stderr %q", code, !bytes.Equal(got, want), errs)
	}
	noTemps(t, dir, "existing.pcapng")

	// --duration: the run is complete, its empty capture replaces the file.
	openLive = func(string, bool, int) (liveHandle, error) { return blockingHandle{make(chan struct{})}, nil }
	if _, errs, code := sfcdump(t, "capture", "-i", "lo", "-q", "--duration", "50ms", "-w", out); code != 0 || countFrames(t, out) != 0 {
		t.Errorf("--duration: exit %d, %d frames, stderr %q", code, countFrames(t, out), errs)
	}
}

// blockingHandle has no frame: a read waits until it is closed.
type blockingHandle struct{ closed chan struct{} }

func (h blockingHandle) ZeroCopyReadPacketData() ([]byte, gopacket.CaptureInfo, error) {
	<-h.closed
	return nil, gopacket.CaptureInfo{}, os.ErrClosed
}

func (h blockingHandle) Close() error { close(h.closed); return nil }
