// SPDX-License-Identifier: Apache-2.0

package atomicfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/opensfc/sfc/internal/tmpfstest"
)

// TestGroupAllOrNothing: a Group puts every file in place or none. A
// directory in the way (there at Create, or made before Commit), a write
// that fails, an Abort or a same-file pair leave every target as it was
// and no temporary file; a file aborted on its own leaves the group.
func TestGroupAllOrNothing(t *testing.T) {
	names := []string{"a.1", "b.1", "c.1"}
	for _, tc := range []struct {
		name string
		// run writes the group into dir; wantErr is a part of its error
		// ("" for none), placed the files replaced.
		run     func(t *testing.T, dir string, g *Group) error
		wantErr string
		placed  []string
	}{
		{"every file complete", func(t *testing.T, dir string, g *Group) error {
			for _, n := range names {
				if err := g.WriteFile(filepath.Join(dir, n), []byte("new "+n), DefaultPerm); err != nil {
					return err
				}
			}
			return g.Commit()
		}, "", names},
		{"a directory in the way at Create", func(t *testing.T, dir string, g *Group) error {
			for _, n := range names {
				if err := g.WriteFile(filepath.Join(dir, n), []byte("new "+n), DefaultPerm); err != nil {
					g.Abort()
					return err
				}
			}
			return g.Commit()
		}, "b.1: is a directory", nil},
		{"a directory in the way at Commit", func(t *testing.T, dir string, g *Group) error {
			for _, n := range names {
				if err := g.WriteFile(filepath.Join(dir, n), []byte("new "+n), DefaultPerm); err != nil {
					return err
				}
			}
			os.Remove(filepath.Join(dir, "c.1"))
			os.Mkdir(filepath.Join(dir, "c.1"), 0o755)
			return g.Commit()
		}, "c.1: is a directory", nil},
		{"a write that fails", func(t *testing.T, dir string, g *Group) error {
			g.WriteFile(filepath.Join(dir, "a.1"), []byte("new"), DefaultPerm)
			f, err := g.Create(filepath.Join(dir, "b.1"), DefaultPerm)
			if err != nil {
				return err
			}
			f.File.Close() // the next write fails
			if _, err := f.Write([]byte("x")); err == nil {
				t.Fatal("write to a closed file")
			}
			return g.Commit()
		}, "b.1: sync", nil},
		{"Abort", func(t *testing.T, dir string, g *Group) error {
			g.WriteFile(filepath.Join(dir, "a.1"), []byte("new"), DefaultPerm)
			g.WriteFile(filepath.Join(dir, "b.1"), []byte("new"), DefaultPerm)
			g.Abort()
			if err := g.Commit(); err == nil {
				t.Error("Commit after Abort")
			}
			return nil
		}, "", nil},
		{"one file aborted on its own", func(t *testing.T, dir string, g *Group) error {
			g.WriteFile(filepath.Join(dir, "a.1"), []byte("new a.1"), DefaultPerm)
			f, _ := g.Create(filepath.Join(dir, "b.1"), DefaultPerm)
			f.Write([]byte("half"))
			f.Abort()
			g.WriteFile(filepath.Join(dir, "c.1"), []byte("new c.1"), DefaultPerm)
			return g.Commit()
		}, "", []string{"a.1", "c.1"}},
		{"the same file twice, through a link", func(t *testing.T, dir string, g *Group) error {
			os.Remove(filepath.Join(dir, "c.1"))
			os.Symlink("a.1", filepath.Join(dir, "c.1"))
			if err := g.WriteFile(filepath.Join(dir, "a.1"), []byte("new"), DefaultPerm); err != nil {
				return err
			}
			if err := g.WriteFile(filepath.Join(dir, "c.1"), []byte("new"), DefaultPerm); err != nil {
				g.Abort()
				return err
			}
			return g.Commit()
		}, "c.1 is the same file as", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, n := range names {
				os.WriteFile(filepath.Join(dir, n), []byte("old"), 0o644)
			}
			if tc.name == "a directory in the way at Create" {
				os.Remove(filepath.Join(dir, "b.1"))
				os.Mkdir(filepath.Join(dir, "b.1"), 0o755)
			}
			before := snapshot(dir)
			var g Group
			err := tc.run(t, dir, &g)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
			for n, old := range before {
				if tc.name == "a directory in the way at Commit" && n == "c.1" {
					continue // the test's own directory now
				}
				got, _ := os.ReadFile(filepath.Join(dir, n))
				want := old
				for _, p := range tc.placed {
					if p == n {
						want = "new " + n
					}
				}
				if string(got) != want {
					t.Errorf("%s holds %q, want %q", n, got, want)
				}
			}
			if extra := leftovers(t, dir, names...); len(extra) > 0 {
				t.Errorf("left behind: %v", extra)
			}
		})
	}
}

// snapshot returns the content of the regular files of dir by name.
func snapshot(dir string) map[string]string {
	m := map[string]string{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Type().IsRegular() {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			m[e.Name()] = string(b)
		}
	}
	return m
}

// TestGroupKeepsModeAndLinks: a file of a group is written as Create
// writes one: an existing file keeps its mode, a symbolic link is kept
// and its target replaced.
func TestGroupKeepsModeAndLinks(t *testing.T) {
	dir := t.TempDir()
	priv, real, link := filepath.Join(dir, "priv"), filepath.Join(dir, "real"), filepath.Join(dir, "link")
	os.WriteFile(priv, []byte("old"), 0o600)
	os.Chmod(priv, 0o600)
	os.WriteFile(real, []byte("old"), 0o644)
	os.Symlink("real", link)
	var g Group
	if err := g.WriteFile(priv, []byte("new"), DefaultPerm); err != nil {
		t.Fatal(err)
	}
	if err := g.WriteFile(link, []byte("new"), DefaultPerm); err != nil {
		t.Fatal(err)
	}
	if err := g.Commit(); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(priv); st.Mode().Perm() != 0o600 || read(t, priv) != "new" {
		t.Errorf("priv: mode %v, %q", st.Mode(), read(t, priv))
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 || read(t, real) != "new" {
		t.Errorf("link: %v, real holds %q", fi.Mode(), read(t, real))
	}
}

// TestGroupPartialCommit: a rename that fails after others succeeded (a
// file system's refusal, simulated) stops the commit, removes the
// temporary files left and names what was replaced and what was not.
func TestGroupPartialCommit(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a", "b", "c"} {
		os.WriteFile(filepath.Join(dir, n), []byte("old"), 0o644)
	}
	calls := 0
	rename = func(from, to string) error {
		if calls++; calls == 2 {
			return &os.LinkError{Op: "rename", Old: from, New: to, Err: syscall.EIO}
		}
		return os.Rename(from, to)
	}
	defer func() { rename = os.Rename }()
	var g Group
	for _, n := range []string{"a", "b", "c"} {
		g.WriteFile(filepath.Join(dir, n), []byte("new"), DefaultPerm)
	}
	err := g.Commit()
	var pe *PartialCommitError
	if !errors.As(err, &pe) || len(pe.Replaced) != 1 || filepath.Base(pe.Failed) != "b" || len(pe.NotReplaced) != 1 || !errors.Is(err, syscall.EIO) {
		t.Fatalf("error %v", err)
	}
	if read(t, filepath.Join(dir, "a")) != "new" || read(t, filepath.Join(dir, "b")) != "old" || read(t, filepath.Join(dir, "c")) != "old" {
		t.Error("not as the error says")
	}
	if extra := leftovers(t, dir, "a", "b", "c"); len(extra) > 0 {
		t.Errorf("left behind: %v", extra)
	}
}

// TestGroupFullDisk: a disk that fills up while the group is written
// (ENOSPC) leaves every old file as it was and no temporary file.
func TestGroupFullDisk(t *testing.T) {
	dir := tmpfstest.Small(t, "64k")
	var names []string
	for i := 0; i < 6; i++ {
		n := string(rune('a' + i))
		names = append(names, n)
		if err := os.WriteFile(filepath.Join(dir, n), bytes.Repeat([]byte("o"), 4096), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshot(dir)
	var g Group
	var err error
	for _, n := range names {
		if err = g.WriteFile(filepath.Join(dir, n), bytes.Repeat([]byte("n"), 8192), DefaultPerm); err != nil {
			break
		}
	}
	if err == nil {
		err = g.Commit()
	} else {
		g.Abort()
	}
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("error %v, want ENOSPC", err)
	}
	for n, old := range before {
		if got := read(t, filepath.Join(dir, n)); got != old {
			t.Errorf("%s replaced (%d octets)", n, len(got))
		}
	}
	if extra := leftovers(t, dir, names...); len(extra) > 0 {
		t.Errorf("left behind: %v", extra)
	}
}

// TestRemovePending: an interrupt's RemovePending removes the temporary
// file of every output not yet in place (a File, a Group's files), leaves
// every target as it was and what was committed in place, and every later
// Create and Commit fails with ErrStopped, removing its own file.
func TestRemovePending(t *testing.T) {
	t.Cleanup(func() {
		pending.mu.Lock()
		pending.stopped = false
		pending.mu.Unlock()
	})
	dir := t.TempDir()
	path := func(n string) string { return filepath.Join(dir, n) }
	os.WriteFile(path("old"), []byte("old"), 0o644)
	done, err := Create(path("done"), DefaultPerm)
	if err != nil {
		t.Fatal(err)
	}
	done.WriteString("done")
	if err := done.Commit(); err != nil {
		t.Fatal(err)
	}
	one, _ := Create(path("old"), DefaultPerm)
	one.WriteString("new")
	var g Group
	a, _ := g.Create(path("a"), DefaultPerm)
	b, _ := g.Create(path("b"), DefaultPerm)
	a.WriteString("a")
	b.WriteString("b")
	a.Commit() // complete, but the group is not committed
	late, _ := Create(path("late"), DefaultPerm)
	late.Abort() // aborted before: nothing left to remove
	if n := RemovePending(); n != 3 {
		t.Errorf("RemovePending removed %d files, want 3", n)
	}
	if err := one.Commit(); !errors.Is(err, ErrStopped) {
		t.Errorf("Commit after RemovePending: %v, want ErrStopped", err)
	}
	if err := g.Commit(); !errors.Is(err, ErrStopped) {
		t.Errorf("Group Commit after RemovePending: %v, want ErrStopped", err)
	}
	if _, err := Create(path("new"), DefaultPerm); !errors.Is(err, ErrStopped) {
		t.Errorf("Create after RemovePending: %v, want ErrStopped", err)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"done", "old"}) {
		t.Errorf("files left: %q, want done and old", names)
	}
	if got := read(t, path("old")); got != "old" {
		t.Errorf("old holds %q", got)
	}
}
