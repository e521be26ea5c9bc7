// SPDX-License-Identifier: Apache-2.0

package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// File is an output being written. Write to it like an *os.File; then
// Commit to put it in place, or Abort to leave the target as it was.
// Abort after Commit does nothing, so `defer f.Abort()` is safe.
type File struct {
	*os.File
	target string // the path renamed onto; "" when writing in place
	done   bool
	// path is the name the caller gave; group the Group the file is
	// part of (nil for a file on its own), which puts it in place;
	// closed says the temporary file is written and closed, aborted
	// that it is gone.
	path    string
	group   *Group
	closed  bool
	aborted bool
	placed  bool // renamed onto the target by the Group
}

// DefaultPerm is the mode of a new output (an existing output keeps its
// own).
const DefaultPerm fs.FileMode = 0o644

// Create starts writing path. A regular file (or a symbolic link to one,
// or to none yet) is written through a temporary file beside it, renamed
// onto it by Commit; the link itself is kept and its target replaced (or
// created). An existing
// path that is not a regular file (/dev/null, a named pipe, a terminal)
// is opened and written in place, as there is nothing to rename onto; so
// is a path that names one of the process's descriptors (/dev/stdout,
// /dev/stderr, /dev/fd/N, /proc/self/fd/N on Unix), through a duplicate
// of that descriptor: what the shell redirected it to, pipe or file,
// receives the output as it would with "-".
// perm is the mode of a new file, less the process's umask (as open(2)
// and tcpdump -w give it); an existing file keeps its mode and, where the
// caller may give it (root), its owner and group; one the caller may not
// open for writing is refused (fs.ErrPermission) and left as it was.
func Create(path string, perm fs.FileMode) (*File, error) {
	if path == "" {
		return nil, errors.New("empty file name")
	}
	if fd, ok := DescriptorOf(path); ok {
		// One of the process's descriptors (/dev/stdout, /dev/fd/3):
		// written through it, as tcpdump -w /dev/stdout writes into the
		// pipe it was given. Resolved as a link, it named "pipe:[N]",
		// which cannot be created, or the file the shell opened, which a
		// rename would replace behind the shell's descriptor.
		f, err := openDescriptor(fd, path)
		if err != nil {
			return nil, err
		}
		return &File{File: f, path: path}, nil
	}
	target := path
	var existing fs.FileInfo // the file replaced, if any
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		target = resolved
	} else if t, ok := danglingTarget(path); ok {
		target = t
	}
	if st, err := os.Stat(target); err == nil {
		if !st.Mode().IsRegular() {
			if st.IsDir() {
				return nil, fmt.Errorf("%s: is a directory", path)
			}
			f, err := os.OpenFile(target, os.O_WRONLY, 0)
			if err != nil {
				return nil, err
			}
			return &File{File: f, path: path}, nil
		}
		// A rename needs only the directory, so a file its owner made
		// read-only (chmod a-w, to keep a reference capture) would be
		// replaced without a word; tcpdump and tshark open the file for
		// writing and refuse. Ask the same question open(2) answers (root
		// may still write it, as with them), and leave the file as it is.
		w, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, &fs.PathError{Op: "write", Path: path, Err: err}
		}
		w.Close()
		existing = st
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	tmp, err := createTemp(dir, "."+base+".tmp-", perm)
	if err != nil {
		// Name the output, not the temporary file nobody asked for; but
		// when the output itself may be written, say that its folder may
		// not (a file that cannot be replaced whole is not written).
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if existing != nil && errors.Is(err, fs.ErrPermission) {
			err = fmt.Errorf("%w (the file may be written, but its folder %s may not: the output is written beside it and renamed onto it when complete)", err, filepath.Clean(dir))
		}
		return nil, &fs.PathError{Op: "create", Path: path, Err: err}
	}
	if existing != nil {
		// The replacement is the file its owner had: its mode (chmod is
		// not subject to the umask) and its owner, where the caller may
		// give it one (root; for anyone else the file becomes theirs, as
		// any rename-based writer makes it).
		err := tmp.Chmod(existing.Mode().Perm())
		if err == nil {
			GiveOwner(tmp.Name(), existing)
		}
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			return nil, err
		}
	}
	f := &File{File: tmp, target: target, path: path}
	if !track(f) {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, ErrStopped
	}
	return f, nil
}

// danglingTarget returns the path a symbolic link that points to no file
// names, following links to it (at most 40, as Linux), and true; false
// when path is not such a link. A dangling link is written through, as
// open(2) with O_CREAT does for tcpdump -w: the link stays, and the file
// it names is created.
func danglingTarget(path string) (string, bool) {
	p := path
	for i := 0; i < 40; i++ {
		fi, err := os.Lstat(p)
		if err != nil {
			return p, p != path && errors.Is(err, fs.ErrNotExist)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return "", false
		}
		l, err := os.Readlink(p)
		if err != nil {
			return "", false
		}
		if !filepath.IsAbs(l) {
			l = filepath.Join(filepath.Dir(p), l)
		}
		p = l
	}
	return "", false
}

// createTemp creates a new file in dir named prefix and a random number,
// with mode perm less the umask: the kernel applies it at open(2), where
// os.CreateTemp's 0600 and a Chmod after would not.
func createTemp(dir, prefix string, perm fs.FileMode) (*os.File, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) && try < 10000 {
			continue
		}
		return f, err
	}
}

// Commit flushes the file to disk, closes it and renames it onto the
// target. On error the temporary file is removed and the target is as it
// was.
//
// For a file of a Group, Commit only says the file is complete: it is
// flushed and closed, and renamed when the Group commits (a failure here
// is the Group's too: its Commit then replaces nothing).
func (f *File) Commit() error {
	if f.done {
		return errors.New("atomicfile: already committed or aborted")
	}
	f.done = true
	if f.group != nil {
		if err := f.finish(); err != nil {
			f.group.failed = fmt.Errorf("%s: %w", f.path, err)
			return err
		}
		return nil
	}
	err := f.finish()
	if err == nil && f.target != "" {
		if err = beginCommit(); err == nil {
			err = os.Rename(f.File.Name(), f.target)
			endCommit()
		}
	}
	if err != nil && f.target != "" {
		os.Remove(f.File.Name())
	}
	if f.target != "" {
		untrack(f)
	}
	return err
}

// finish flushes the temporary file to disk and closes it (a file
// written in place is only closed).
func (f *File) finish() error {
	if f.closed {
		return nil
	}
	f.closed = true
	if f.target == "" {
		return f.File.Close()
	}
	err := f.File.Sync()
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	return err
}

// Abort closes and removes the temporary file, leaving the target as it
// was. It does nothing after Commit or a previous Abort. A file of a
// Group that is aborted leaves the Group: the others are still put in
// place by its Commit, and this target is left as it was.
func (f *File) Abort() error {
	if f.done {
		return nil
	}
	f.done = true
	return f.discard()
}

// discard closes the file if still open and removes the temporary file.
func (f *File) discard() error {
	if f.aborted || f.placed {
		return nil
	}
	f.aborted = true
	var err error
	if !f.closed {
		f.closed = true
		err = f.File.Close()
	}
	if f.target != "" {
		if rerr := os.Remove(f.File.Name()); err == nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = rerr // (RemovePending may have removed it)
		}
		untrack(f)
	}
	return err
}

// InPlace reports whether f is written in place: its path is not a
// regular file (a device, a named pipe, one of the process's
// descriptors), so there is nothing to rename onto, and what is written
// cannot be taken back: Commit and Abort only close it.
func (f *File) InPlace() bool { return f.target == "" }

// Close commits the file: it lets a File stand where an io.WriteCloser
// whose Close finishes the output is expected.
func (f *File) Close() error { return f.Commit() }

// WriteFile writes data to path through a temporary file renamed when
// complete, like os.WriteFile but never leaving a partial file.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// SameFileError says an output is one of the inputs.
type SameFileError struct {
	Output, Input string
}

func (e *SameFileError) Error() string {
	if e.Output == e.Input && e.Output != "-" {
		return fmt.Sprintf("%s is both an input and the output: it would be overwritten while read", e.Output)
	}
	out, in := e.Output, "the input "+e.Input
	if out == "-" {
		out = "standard output"
	}
	if e.Input == "-" {
		in = "standard input"
	}
	return fmt.Sprintf("%s is the same file as %s: it would be overwritten while read", out, in)
}

// CheckNotInput returns a *SameFileError when output is the same file as
// one of inputs (by os.SameFile: any spelling, hard or symbolic links).
// "-" (standard input or output) and names that do not exist are never
// the same file; neither are two character devices (/dev/null as input
// and output is harmless).
func CheckNotInput(output string, inputs ...string) error {
	return CheckNotInputStdio(output, nil, nil, inputs...)
}

// CheckNotInputStdio is CheckNotInput for a command where "-" names a
// standard stream: an output "-" is stdout and an input "-" is stdin.
// A stream that is a regular file (the shell's `> FILE`, `>> FILE` or
// `< FILE`) is compared like a named one, so that `-w - >> in.pcap` (which
// would append to the capture being read, without end) and `-r - -w
// in.pcap < in.pcap` are refused. Pipes, terminals and character devices
// never match; a nil stream is not compared.
func CheckNotInputStdio(output string, stdout, stdin *os.File, inputs ...string) error {
	if output == "" {
		return nil
	}
	out := statOf(output, stdout)
	if out == nil {
		return nil
	}
	for _, in := range inputs {
		if in == "" {
			continue
		}
		if st := statOf(in, stdin); st != nil && os.SameFile(out, st) {
			return &SameFileError{Output: output, Input: in}
		}
	}
	return nil
}

// statOf stats name, or std for "-"; nil for what cannot be the same file
// as another: missing, a stream that is not a regular file, a character
// device.
func statOf(name string, std *os.File) fs.FileInfo {
	var st fs.FileInfo
	var err error
	if name == "-" {
		if std == nil {
			return nil
		}
		if st, err = std.Stat(); err != nil || !st.Mode().IsRegular() {
			return nil
		}
		return st
	}
	if st, err = os.Stat(name); err != nil || st.Mode()&fs.ModeCharDevice != 0 {
		return nil
	}
	return st
}
