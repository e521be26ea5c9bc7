// SPDX-License-Identifier: Apache-2.0

package atomicfile

import (
	"errors"
	"os"
	"sync"
)

// ErrStopped is the error of a Create or Commit after RemovePending.
var ErrStopped = errors.New("atomicfile: stopped (interrupted): nothing more is put in place")

// pending holds the temporary files not yet renamed onto their targets
// nor removed, for RemovePending. commit is held across the renames of a
// Commit (a Group's all of them), so that RemovePending never leaves a
// Group half in place; mu guards the set and is taken after commit.
var pending struct {
	commit  sync.Mutex
	mu      sync.Mutex
	files   map[*File]struct{}
	stopped bool
}

// track adds f, a temporary file, to the pending set; false after
// RemovePending.
func track(f *File) bool {
	pending.mu.Lock()
	defer pending.mu.Unlock()
	if pending.stopped {
		return false
	}
	if pending.files == nil {
		pending.files = map[*File]struct{}{}
	}
	pending.files[f] = struct{}{}
	return true
}

// untrack removes f from the pending set: it was renamed or removed.
func untrack(f *File) {
	pending.mu.Lock()
	delete(pending.files, f)
	pending.mu.Unlock()
}

// RemovePending removes every temporary file not yet put in place, of
// every File and Group, and makes every later Create and Commit fail
// with ErrStopped: for a process about to end on a signal (Ctrl-C),
// which would otherwise leave them behind, hidden beside their targets.
// A Commit under way finishes its renames first, so a Group is either in
// place or left as it was. It returns how many files it removed.
func RemovePending() int {
	pending.commit.Lock()
	defer pending.commit.Unlock()
	pending.mu.Lock()
	defer pending.mu.Unlock()
	pending.stopped = true
	n := 0
	for f := range pending.files {
		if os.Remove(f.File.Name()) == nil {
			n++
		}
		delete(pending.files, f)
	}
	return n
}

// beginCommit takes the commit lock for a Commit's renames; ErrStopped
// after RemovePending (the lock is then not held).
func beginCommit() error {
	pending.commit.Lock()
	pending.mu.Lock()
	stopped := pending.stopped
	pending.mu.Unlock()
	if stopped {
		pending.commit.Unlock()
		return ErrStopped
	}
	return nil
}

// endCommit releases the commit lock.
func endCommit() { pending.commit.Unlock() }
