// SPDX-License-Identifier: Apache-2.0

//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestNewFileUmask: a new output's mode is perm less the umask, as
// open(2) and tcpdump -w give it (a capture made under umask 077 is not
// readable by others); an existing file keeps its own mode whatever the
// umask.
func TestNewFileUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "new.pcapng")
	if err := WriteFile(path, []byte("x"), DefaultPerm); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("new file under umask 077: mode %v, want 0600", st.Mode())
	}
	shared := filepath.Join(dir, "shared.pcapng")
	os.WriteFile(shared, []byte("old"), 0o600)
	os.Chmod(shared, 0o664)
	if err := WriteFile(shared, []byte("new"), DefaultPerm); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(shared); st.Mode().Perm() != 0o664 {
		t.Errorf("existing file: mode %v, want its own 0664", st.Mode())
	}
}

// TestExistingOwnerKept: replacing a file owned by another user keeps
// its owner and group (when run as root, who may give them), not the
// writer's.
func TestExistingOwnerKept(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIP: giving a file to another owner needs root")
	}
	path := filepath.Join(t.TempDir(), "theirs.pcapng")
	os.WriteFile(path, []byte("old"), 0o644)
	if err := os.Chown(path, 65534, 65533); err != nil {
		t.Skipf("SKIP: chown: %v", err)
	}
	if err := WriteFile(path, []byte("new"), DefaultPerm); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if sys := st.Sys().(*syscall.Stat_t); sys.Uid != 65534 || sys.Gid != 65533 || read(t, path) != "new" {
		t.Errorf("owner %d:%d, content %q; want 65534:65533, new", sys.Uid, sys.Gid, read(t, path))
	}
}

// TestDanglingLinkWrittenThrough: an output that is a symbolic link to a
// file not there yet keeps the link and creates the file it names, as
// open(2) with O_CREAT (tcpdump -w) does; it replaced the link with a
// regular file, where a link to an existing file was written through.
func TestDanglingLinkWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "real"), 0o755)
	link := filepath.Join(dir, "out.pcapng")
	if err := os.Symlink(filepath.Join("real", "out.pcapng"), link); err != nil {
		t.Skipf("SKIP: symlink: %v", err)
	}
	// A link to that link, dangling too.
	link2 := filepath.Join(dir, "out2.pcapng")
	os.Symlink("out.pcapng", link2)
	if err := WriteFile(link2, []byte("new"), DefaultPerm); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{link, link2} {
		if fi, err := os.Lstat(l); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link: %v", l, err)
		}
	}
	if got := read(t, filepath.Join(dir, "real", "out.pcapng")); got != "new" {
		t.Errorf("the link's target holds %q", got)
	}
}
