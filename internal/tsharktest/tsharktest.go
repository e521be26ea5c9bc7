// SPDX-License-Identifier: Apache-2.0

// Package tsharktest finds tshark and the corpus captures for the
// differential tests that compare sfcdump with Wireshark: where tshark is
// missing a test is skipped with a loud reason, except in CI (CI set),
// where it fails.
package tsharktest

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Path returns the path of tshark. Without one it fails t when the
// environment variable CI is set (CI must install it) and skips t
// otherwise, saying so.
func Path(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("tshark")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("tshark is missing in CI (install tshark 4.0): %v", err)
		}
		t.Skipf("SKIP: tshark not installed, the differential test against Wireshark did not run: %v", err)
	}
	return p
}

// Captures returns the pcapng files under dir (the corpus, pcaps/),
// sorted; it fails t when there are none.
func Captures(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".pcapng") {
			out = append(out, path)
		}
		return err
	})
	if err != nil || len(out) == 0 {
		t.Fatalf("no captures under %s: %v", dir, err)
	}
	sort.Strings(out)
	return out
}

// FieldLines runs tshark (bin, from Path) -T fields on the capture file,
// with opts and an -e for each of fields, and returns its lines, one per
// frame; it fails t when tshark fails.
func FieldLines(t testing.TB, bin, file string, fields []string, opts ...string) []string {
	t.Helper()
	args := append([]string{"-r", file, "-T", "fields"}, opts...)
	for _, f := range fields {
		args = append(args, "-e", f)
	}
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	return strings.Split(strings.TrimRight(string(out), "\n"), "\n")
}
