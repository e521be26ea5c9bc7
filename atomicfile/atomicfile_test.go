// SPDX-License-Identifier: Apache-2.0

package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// leftovers lists the files in dir other than want.
func leftovers(t *testing.T, dir string, want ...string) []string {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	var extra []string
outer:
	for _, e := range ents {
		for _, w := range want {
			if e.Name() == w {
				continue outer
			}
		}
		extra = append(extra, e.Name())
	}
	return extra
}

func TestAbortLeavesTargetAndCommitReplaces(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "keep.pcapng")
	os.WriteFile(target, []byte("precious"), 0o600)
	f, err := Create(target, DefaultPerm)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("half"))
	if got := read(t, target); got != "precious" {
		t.Fatalf("target changed while writing: %q", got)
	}
	if err := f.Abort(); err != nil {
		t.Fatal(err)
	}
	if got := read(t, target); got != "precious" {
		t.Errorf("after Abort: %q", got)
	}
	if l := leftovers(t, dir, "keep.pcapng"); l != nil {
		t.Errorf("temporary files left: %v", l)
	}

	f, _ = Create(target, DefaultPerm)
	f.Write([]byte("new"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := f.Abort(); err != nil {
		t.Errorf("Abort after Commit: %v", err)
	}
	st, _ := os.Stat(target)
	if got := read(t, target); got != "new" || st.Mode().Perm() != 0o600 {
		t.Errorf("after Commit: %q mode %v (want new, the old mode 0600)", got, st.Mode())
	}
	if l := leftovers(t, dir, "keep.pcapng"); l != nil {
		t.Errorf("temporary files left: %v", l)
	}
}

func TestCreateThroughSymlinkKeepsLink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.pcapng")
	link := filepath.Join(dir, "link.pcapng")
	os.WriteFile(real, []byte("old"), 0o644)
	os.Symlink("real.pcapng", link)
	if err := WriteFile(link, []byte("new"), DefaultPerm); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Error("the symbolic link was replaced by a file")
	}
	if got := read(t, real); got != "new" {
		t.Errorf("link target: %q", got)
	}
}

func TestCreateDeviceWritesInPlace(t *testing.T) {
	if err := WriteFile(os.DevNull, []byte("x"), DefaultPerm); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a device: %v %v", os.DevNull, st.Mode(), err)
	}
	if _, err := Create(t.TempDir(), DefaultPerm); err == nil {
		t.Error("Create on a directory succeeded")
	}
	missing := filepath.Join(t.TempDir(), "no", "such", "dir", "out.pcapng")
	if _, err := Create(missing, DefaultPerm); err == nil || err.Error() != "create "+missing+": no such file or directory" {
		t.Errorf("Create in a missing folder: %v (want the output named)", err)
	}
}

func TestNewFileMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.svg")
	if err := WriteFile(path, []byte("<svg/>"), 0o640); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", st.Mode())
	}
}

func TestCheckNotInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.pcapng")
	os.WriteFile(in, []byte("x"), 0o644)
	other := filepath.Join(dir, "other.pcapng")
	os.WriteFile(other, []byte("y"), 0o644)
	hard := filepath.Join(dir, "hard.pcapng")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	sym := filepath.Join(dir, "sym.pcapng")
	os.Symlink(in, sym)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	for _, tc := range []struct {
		out  string
		same bool
	}{
		{in, true},
		{filepath.Join(sub, "..", "in.pcapng"), true},
		{dir + "//in.pcapng", true},
		{hard, true},
		{sym, true},
		{other, false},
		{filepath.Join(dir, "new.pcapng"), false},
		{"-", false},
		{os.DevNull, false},
	} {
		err := CheckNotInput(tc.out, filepath.Join(dir, "missing"), "-", in)
		var se *SameFileError
		if got := errors.As(err, &se); got != tc.same {
			t.Errorf("%s: error %v, want same=%v", tc.out, err, tc.same)
		}
	}
	if err := CheckNotInput(os.DevNull, os.DevNull); err != nil {
		t.Errorf("/dev/null in and out: %v", err)
	}
}

// "-" stands for a standard stream, compared when it is a regular file:
// `-w - >> in` and `-r - -w in < in` are refused; pipes never match.
func TestCheckNotInputStdio(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.pcapng")
	os.WriteFile(in, []byte("x"), 0o644)
	other := filepath.Join(dir, "other.pcapng")
	os.WriteFile(other, []byte("y"), 0o644)
	open := func(p string, flag int) *os.File {
		f, err := os.OpenFile(p, flag, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	appended := open(in, os.O_WRONLY|os.O_APPEND)
	redirected := open(in, os.O_RDONLY)
	otherOut := open(other, os.O_WRONLY)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	for _, tc := range []struct {
		name          string
		out           string
		stdout, stdin *os.File
		inputs        []string
		same          bool
		message       string
	}{
		{"stdout appended to the input", "-", appended, nil, []string{in}, true, "standard output is the same file as the input " + in},
		{"stdout another file", "-", otherOut, nil, []string{in}, false, ""},
		{"stdout a pipe", "-", pw, nil, []string{in}, false, ""},
		{"stdin redirected from the output", in, nil, redirected, []string{"-"}, true, in + " is the same file as standard input"},
		{"stdin a pipe", in, nil, pr, []string{"-"}, false, ""},
		{"stdin from the output, stdout into it", "-", appended, redirected, []string{"-"}, true, "standard output is the same file as standard input"},
		{"no streams given", "-", nil, nil, []string{"-", in}, false, ""},
	} {
		err := CheckNotInputStdio(tc.out, tc.stdout, tc.stdin, tc.inputs...)
		var se *SameFileError
		if got := errors.As(err, &se); got != tc.same {
			t.Errorf("%s: error %v, want same=%v", tc.name, err, tc.same)
			continue
		}
		if tc.same && !strings.HasPrefix(err.Error(), tc.message+":") {
			t.Errorf("%s: %q, want it to start %q", tc.name, err, tc.message)
		}
	}
}

// TestDescriptorOf: the paths that name a descriptor of the process, and
// some that look like one and do not.
func TestDescriptorOf(t *testing.T) {
	for _, c := range []struct {
		path string
		fd   int
		ok   bool
	}{
		{"/dev/stdin", 0, true}, {"/dev/stdout", 1, true}, {"/dev/stderr", 2, true},
		{"/dev//stdout", 1, true}, {"/dev/fd/1", 1, true}, {"/dev/fd/17", 17, true}, {"/proc/self/fd/3", 3, true},
		{"/dev/fd/01", 0, false}, {"/dev/fd/-1", 0, false}, {"/dev/fd/x", 0, false}, {"/dev/fd/", 0, false},
		{"/dev/fd/99999999999999999999", 0, false}, {"/dev/fd/4294967297", 0, false}, {"/dev/null", 0, false}, {"dev/stdout", 0, false},
		{"/proc/1/fd/1", 0, false}, {"/tmp/stdout", 0, false}, {"-", 0, false}, {"", 0, false},
	} {
		fd, ok := DescriptorOf(c.path)
		if runtime.GOOS == "windows" {
			c.fd, c.ok = 0, false
		}
		if ok != c.ok || ok && fd != c.fd {
			t.Errorf("DescriptorOf(%q) = %d, %v; want %d, %v", c.path, fd, ok, c.fd, c.ok)
		}
	}
}

// TestCreateDescriptor: a path naming a descriptor is written through it
// (a pipe here, which no rename could replace), and Commit closes only
// the duplicate: the descriptor stays open.
func TestCreateDescriptor(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SKIP: no descriptor paths on Windows")
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if _, err := os.Stat(dir); err != nil {
			t.Logf("no %s: %v", dir, err)
			continue
		}
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		path := dir + strconv.Itoa(int(w.Fd()))
		f, err := Create(path, DefaultPerm)
		if err != nil {
			t.Fatalf("Create(%s): %v", path, err)
		}
		if _, err := f.WriteString("through "); err != nil {
			t.Fatal(err)
		}
		if err := f.Commit(); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		if _, err := w.WriteString("the pipe"); err != nil {
			t.Fatalf("the descriptor was closed by Commit: %v", err)
		}
		// The pipe's read end is refused at Create, not at a write.
		if f, err := Create(dir+strconv.Itoa(int(r.Fd())), DefaultPerm); err == nil || !strings.Contains(err.Error(), "not open for writing") {
			t.Errorf("Create of a read-only descriptor: %v, %v", f, err)
		}
		w.Close()
		got, _ := io.ReadAll(r)
		r.Close()
		if string(got) != "through the pipe" {
			t.Errorf("%s: the pipe got %q", path, got)
		}
	}
}
