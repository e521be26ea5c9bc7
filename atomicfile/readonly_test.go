// SPDX-License-Identifier: Apache-2.0

//go:build unix

package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadOnlyTargetKept: an existing output its owner made read-only
// (chmod a-w) is not replaced, as tcpdump and tshark refuse to open it:
// Create fails with a permission error naming the output, and the file
// keeps its octets and leaves no temporary file. Root may write any file,
// as with them, so under root the check runs in a child as nobody.
func TestReadOnlyTargetKept(t *testing.T) {
	if dir := os.Getenv("ATOMICFILE_RO_DIR"); dir != "" {
		readOnlyCheck(t, dir)
		return
	}
	dir, err := os.MkdirTemp("", "atomicfile-ro-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		readOnlyCheck(t, dir)
		return
	}
	// Root: the test binary, copied where nobody can run it, runs this
	// test again as uid/gid 65534.
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "atomicfile.test")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run", "^TestReadOnlyTargetKept$", "-test.v")
	cmd.Env = append(os.Environ(), "ATOMICFILE_RO_DIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the check as nobody: %v\n%s", err, out)
	}
	t.Logf("as nobody:\n%s", out)
}

func readOnlyCheck(t *testing.T, dir string) {
	path := filepath.Join(dir, "precious.pcapng")
	if err := os.WriteFile(path, []byte("reference capture"), 0o444); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path, DefaultPerm)
	if err == nil {
		f.Write([]byte("1 frame"))
		f.Commit()
		t.Fatalf("a read-only output was replaced: now %q", read(t, path))
	}
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrPermission) || !errors.As(err, &pe) || pe.Path != path {
		t.Errorf("error %v: want a permission error naming %s", err, path)
	}
	if got := read(t, path); got != "reference capture" {
		t.Errorf("the read-only output now holds %q", got)
	}
	if extra := leftovers(t, dir, "precious.pcapng", "atomicfile.test"); len(extra) > 0 {
		t.Errorf("left behind: %v", extra)
	}
	// A writable file in a folder that is not: the error says that the
	// folder is what stops it (the file alone would be writable).
	sub := filepath.Join(dir, "ro")
	os.Mkdir(sub, 0o755)
	writable := filepath.Join(sub, "open.pcapng")
	os.WriteFile(writable, []byte("old"), 0o666)
	os.Chmod(sub, 0o555)
	defer os.Chmod(sub, 0o755)
	if _, err := Create(writable, DefaultPerm); !errors.Is(err, fs.ErrPermission) || !strings.Contains(fmt.Sprint(err), "its folder "+sub+" may not") {
		t.Errorf("writable file in a read-only folder: %v", err)
	}
}
