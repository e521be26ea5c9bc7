// Package tsharktest finds tshark for the differential tests that compare
// sfcdump with Wireshark: where tshark is missing a test is skipped with a
// loud reason, except in CI (CI set), where it fails.
package tsharktest

import (
	"os"
	"os/exec"
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
