// SPDX-License-Identifier: Apache-2.0

//go:build unix

package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// dirWritable says why a file of dir (st: the file replaced, nil when
// there is none) cannot be renamed onto, if it cannot: the folder may
// not be written, or it is sticky (/tmp) and neither it nor the file is
// the caller's.
func dirWritable(dir string, st fs.FileInfo) error {
	if err := unix.Access(dir, unix.W_OK); err != nil {
		return fmt.Errorf("its folder %s may not be written: %w", dir, err)
	}
	uid := os.Geteuid()
	if st == nil || uid == 0 {
		return nil
	}
	ds, err := os.Stat(dir)
	if err != nil || ds.Mode()&fs.ModeSticky == 0 {
		return err
	}
	owner := func(fi fs.FileInfo) int {
		if s, ok := fi.Sys().(*syscall.Stat_t); ok {
			return int(s.Uid)
		}
		return uid
	}
	if owner(ds) != uid && owner(st) != uid {
		return fmt.Errorf("its folder %s is sticky and the file is not yours: %w", dir, fs.ErrPermission)
	}
	return nil
}
