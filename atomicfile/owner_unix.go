// SPDX-License-Identifier: Apache-2.0

//go:build unix

package atomicfile

import (
	"io/fs"
	"os"
	"syscall"
)

// GiveOwner gives the file at path the owner and group of was, where the
// process may (root may; a failure leaves the file as it is): a copy of
// a user's file made by root stays the user's.
func GiveOwner(path string, was fs.FileInfo) {
	if st, ok := was.Sys().(*syscall.Stat_t); ok {
		_ = os.Chown(path, int(st.Uid), int(st.Gid))
	}
}
