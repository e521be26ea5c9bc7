// SPDX-License-Identifier: Apache-2.0

package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Group writes several files as one output: all of them or none. Each
// file is created with Create, written completely to its own temporary
// file beside its target (with the checks and the mode and owner Create
// gives a single file), and only when every one is complete does Commit
// rename them onto their targets, in the order they were created. Abort,
// or any error before the renames (a write, a flush, a target that has
// become a directory), removes every temporary file and touches no
// target. The zero Group is ready to use; `defer g.Abort()` is safe.
//
// One window remains: a rename that fails after others succeeded. Before
// the first rename, Commit checks that every target can be replaced (it
// is not a directory, and its folder may be written), so this takes a
// file system that refuses a rename it was asked nothing odd for (or a
// target changed meanwhile by someone else). Commit then stops, removes
// the temporary files left and returns a *PartialCommitError naming the
// targets already replaced and those left as they were.
//
// A target that is not a regular file (/dev/null, a named pipe) is
// written in place as Create writes it: there is nothing to rename onto,
// so what is written there is not held back until Commit.
type Group struct {
	files  []*File
	done   bool
	failed error // a file of the group failed: Commit replaces nothing
}

// Create starts writing path as a file of the group; see Create for how
// path is written. Write it like an *os.File; its Commit (or Close) only
// says it is complete, and g.Commit puts it in place with the others;
// its Abort removes it from the group, its target left as it was. Two
// files of a group that are the same file (by any spelling or link) are
// refused.
func (g *Group) Create(path string, perm fs.FileMode) (*File, error) {
	if g.done {
		return nil, errors.New("atomicfile: group already committed or aborted")
	}
	f, err := Create(path, perm)
	if err != nil {
		return nil, err
	}
	for _, o := range g.files {
		if !o.aborted && sameTarget(o, f) {
			f.Abort()
			return nil, fmt.Errorf("%s is the same file as %s, written with it: one would overwrite the other", path, o.path)
		}
	}
	f.group = g
	g.files = append(g.files, f)
	return f, nil
}

// sameTarget reports whether a and b would be written to the same file.
func sameTarget(a, b *File) bool {
	if a.target == "" || b.target == "" {
		return false // written in place: /dev/null twice is harmless
	}
	x, errx := filepath.Abs(a.target)
	y, erry := filepath.Abs(b.target)
	if errx == nil && erry == nil && x == y {
		return true
	}
	sx, errx := os.Stat(a.target)
	sy, erry := os.Stat(b.target)
	return errx == nil && erry == nil && os.SameFile(sx, sy)
}

// WriteFile adds path to the group with data as its content. An error
// writing it makes the group's Commit replace nothing.
func (g *Group) WriteFile(path string, data []byte, perm fs.FileMode) error {
	f, err := g.Create(path, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		g.failed = fmt.Errorf("%s: %w", path, err)
		return err
	}
	return f.Commit()
}

// Commit flushes every file of the group to disk and closes it, checks
// that every target can be replaced, then renames each onto its target.
// Any error before the first rename leaves every target as it was and
// no temporary file. See Group for the one window left.
func (g *Group) Commit() error {
	if g.done {
		return errors.New("atomicfile: group already committed or aborted")
	}
	g.done = true
	var live []*File
	for _, f := range g.files {
		if !f.aborted {
			live = append(live, f)
		}
	}
	if g.failed != nil {
		g.discard()
		return g.failed
	}
	for _, f := range live {
		f.done = true
		if err := f.finish(); err != nil {
			g.discard()
			return fmt.Errorf("%s: %w", f.path, err)
		}
	}
	for _, f := range live {
		if f.target == "" {
			continue
		}
		if err := replaceable(f.target); err != nil {
			g.discard()
			return &fs.PathError{Op: "replace", Path: f.path, Err: err}
		}
	}
	// The renames under the commit lock: RemovePending (an interrupt)
	// waits for them all, or comes first and none is done.
	if err := beginCommit(); err != nil {
		g.discard()
		return err
	}
	defer endCommit()
	var replaced []string
	for i, f := range live {
		if f.target == "" {
			continue
		}
		if err := rename(f.File.Name(), f.target); err != nil {
			var le *os.LinkError
			if errors.As(err, &le) {
				err = le.Err
			}
			g.discard()
			if len(replaced) == 0 {
				return &fs.PathError{Op: "rename", Path: f.path, Err: err}
			}
			pe := &PartialCommitError{Replaced: replaced, Failed: f.path, Err: err}
			for _, r := range live[i+1:] {
				if r.target != "" {
					pe.NotReplaced = append(pe.NotReplaced, r.path)
				}
			}
			return pe
		}
		f.placed = true
		untrack(f)
		replaced = append(replaced, f.path)
	}
	return nil
}

// Abort removes every temporary file of the group, leaving every target
// as it was. It does nothing after Commit or a previous Abort.
func (g *Group) Abort() error {
	if g.done {
		return nil
	}
	g.done = true
	return g.discard()
}

// discard removes the temporary files of the group not put in place.
func (g *Group) discard() error {
	var err error
	for _, f := range g.files {
		f.done = true
		if f.placed {
			continue
		}
		if e := f.discard(); err == nil {
			err = e
		}
	}
	return err
}

// rename is os.Rename (a test makes it fail).
var rename = os.Rename

// replaceable says why target cannot be replaced by a rename, if it
// cannot: it is a directory, or its folder may not be written.
func replaceable(target string) error {
	st, err := os.Lstat(target)
	switch {
	case err == nil && st.IsDir():
		return errors.New("is a directory")
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	return dirWritable(filepath.Dir(target), st)
}

// PartialCommitError is a Group's Commit that failed after replacing
// some of its targets: a rename refused once the others had been done
// (see Group). The targets in Replaced hold the new files, Failed and
// those in NotReplaced are as they were.
type PartialCommitError struct {
	Replaced    []string
	Failed      string
	NotReplaced []string
	Err         error
}

func (e *PartialCommitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: not replaced: %v; already replaced: %s", e.Failed, e.Err, strings.Join(e.Replaced, ", "))
	if len(e.NotReplaced) > 0 {
		fmt.Fprintf(&b, "; left as they were: %s", strings.Join(e.NotReplaced, ", "))
	}
	return b.String()
}

// Unwrap returns the rename's error.
func (e *PartialCommitError) Unwrap() error { return e.Err }
