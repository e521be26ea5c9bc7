// SPDX-License-Identifier: Apache-2.0

// Package tmpfstest gives tests a small file system of their own, to make
// a disk fill up part-way through writing (ENOSPC): the all-or-nothing
// outputs of package atomicfile and of sfcdump are tested on it.
package tmpfstest

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
)

// Small mounts a tmpfs of size (mount's size= option, e.g. "64k") on a
// directory of the test's and returns it; it is unmounted when the test
// ends. It skips the test, saying why, where that cannot be done: not
// Linux, not root, or mount fails.
func Small(t testing.TB, size string) string {
	t.Helper()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("SKIPPED: the full-disk case needs root on Linux to mount a small tmpfs")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("SKIPPED: cannot mount a tmpfs for the full-disk case: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	return dir
}
