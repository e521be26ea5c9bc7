// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// manPageSource is the page cobra's doc package makes of c, with the date
// and version given: what the shipped pages (manpages/) are made from.
func manPageSource(t *testing.T, c *cobra.Command, date time.Time, ver string) []byte {
	t.Helper()
	c.DisableAutoGenTag = true
	h := &doc.GenManHeader{Title: strings.ToUpper(manName(c)), Section: "1", Source: "sfcdump " + ver, Manual: "sfcdump manual", Date: &date}
	var buf bytes.Buffer
	if err := doc.GenMan(c, h, &buf); err != nil {
		t.Fatalf("%s: %v", manName(c), err)
	}
	return buf.Bytes()
}

// TestManPagesCurrent: the page sfcdump man writes for every command is,
// octet for octet, the one cobra's doc package makes of the command tree
// today, for any date and version (a version with a backslash too, which
// the .TH line escapes). With -update it rewrites manpages/ instead, and
// drops pages of commands that are gone.
func TestManPagesCurrent(t *testing.T) {
	root := newRootCmd("")
	initDefaultCommands(root)
	cmds := manCommands(root)
	if *update {
		old, _ := filepath.Glob(filepath.Join("manpages", "*.1"))
		for _, p := range old {
			os.Remove(p)
		}
		for _, c := range cmds {
			b := manPageSource(t, c, time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC), "")
			if err := os.WriteFile(filepath.Join("manpages", manName(c)+".1"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Skip("rewrote manpages/; build again to embed them")
	}
	stored, _ := filepath.Glob(filepath.Join("manpages", "*.1"))
	if len(stored) != len(cmds) {
		t.Errorf("manpages/ holds %d pages for %d commands: go test ./cmd/sfcdump -run TestManPagesCurrent -update", len(stored), len(cmds))
	}
	for _, v := range []struct {
		date time.Time
		ver  string
	}{
		{time.Date(2027, 3, 9, 12, 0, 0, 0, time.UTC), "v1.4.0-rc.1+dirty"},
		{time.Date(1999, 12, 31, 23, 0, 0, 0, time.UTC), "(devel)"},
		{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), `v0\x`},
	} {
		for _, c := range cmds {
			want := manPageSource(t, c, v.date, v.ver)
			got, err := manPage(manName(c), v.date, v.ver)
			if err != nil {
				t.Fatalf("%v: go test ./cmd/sfcdump -run TestManPagesCurrent -update", err)
			}
			if !bytes.Equal(got, want) {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				t.Fatalf("%s.1 differs from cobra/doc's at octet %d: %q, want %q\n(go test ./cmd/sfcdump -run TestManPagesCurrent -update)",
					manName(c), i, got[i:min(len(got), i+60)], want[i:min(len(want), i+60)])
			}
		}
	}
}

// TestManDate: the pages are dated as cobra/doc dates them, now or
// SOURCE_DATE_EPOCH, and a bad SOURCE_DATE_EPOCH is an error (exit 1)
// that writes nothing.
func TestManDate(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1800000000")
	dir := filepath.Join(t.TempDir(), "man1")
	if out, errs, code := sfcdump(t, "man", dir); code != 0 {
		t.Fatalf("exit %d, %q, %q", code, out, errs)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "sfcdump-read.1"))
	if !bytes.Contains(b, []byte(`.TH "SFCDUMP-READ" "1" "Jan 2027" "sfcdump `)) {
		t.Errorf("SOURCE_DATE_EPOCH=1800000000: %q", b[:min(len(b), 80)])
	}
	t.Setenv("SOURCE_DATE_EPOCH", "soon")
	dir2 := filepath.Join(t.TempDir(), "man1")
	_, errs, code := sfcdump(t, "man", dir2)
	if code != 1 || !strings.Contains(errs, "SOURCE_DATE_EPOCH") {
		t.Errorf("SOURCE_DATE_EPOCH=soon: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(dir2); !os.IsNotExist(err) {
		t.Errorf("SOURCE_DATE_EPOCH=soon made %s: %v", dir2, err)
	}
}

// TestManInterrupted: Ctrl-C while man writes its pages (here held by the
// last page, sfcdump.1, a named pipe nobody reads, which is written in
// place) removes the temporary files of the pages written so far, leaves
// every page as it was and exits 130. Killed by the signal, it left one
// hidden temporary file per page beside the pages.
func TestManInterrupted(t *testing.T) {
	shipped, err := os.ReadDir("manpages")
	if err != nil || len(shipped) < 10 {
		t.Fatalf("manpages: %d pages, %v", len(shipped), err)
	}
	bin := buildSfcdump(t)
	dir := t.TempDir()
	old := []byte("old page\n")
	if err := os.WriteFile(filepath.Join(dir, "sfcdump-read.1"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "sfcdump.1"), 0o644); err != nil {
		t.Skipf("SKIP: no named pipe to hold man with: %v", err)
	}
	temps := func() (n int) {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.Contains(e.Name(), ".tmp-") {
				n++
			}
		}
		return n
	}
	cmd := exec.Command(bin, "man", dir)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	for deadline := time.Now().Add(20 * time.Second); temps() < len(shipped)-1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d temporary files after 20 s, want %d", temps(), len(shipped)-1)
		}
	}
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("man did not end on Ctrl-C")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 || !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("exit %d, stderr %q; want 130 and a word", code, errb.String())
	}
	if n := temps(); n != 0 {
		t.Errorf("%d temporary files left", n)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "sfcdump-read.1")); !bytes.Equal(got, old) {
		t.Errorf("sfcdump-read.1 holds %.40q, want the old page", got)
	}
}
