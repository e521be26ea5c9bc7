// SPDX-License-Identifier: Apache-2.0

//go:build unix

package atomicfile

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// DescriptorOf returns the number of the process's descriptor that path
// names (/dev/stdout, /dev/stderr, /dev/stdin, /dev/fd/N,
// /proc/self/fd/N), false for any other path. Create writes such a path
// through the descriptor.
func DescriptorOf(path string) (int, bool) {
	switch p := filepath.Clean(path); p {
	case "/dev/stdin":
		return 0, true
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	default:
		for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
			if n, ok := strings.CutPrefix(p, dir); ok {
				fd, err := strconv.Atoi(n)
				// A number past int32 is not a descriptor (the kernel
				// would read 2^32+1 as 1).
				return fd, err == nil && fd >= 0 && fd <= math.MaxInt32 && strconv.Itoa(fd) == n
			}
		}
	}
	return 0, false
}

// openDescriptor returns a duplicate of descriptor fd (the same open file:
// offset and flags shared, as with the shell's redirection), which may be
// closed without closing fd, and is not passed on to a program started
// (made close-on-exec in the same call). A descriptor not open for
// writing (standard input) is refused here, not at the first write.
func openDescriptor(fd int, path string) (*os.File, error) {
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err == nil && fl&unix.O_ACCMODE == unix.O_RDONLY {
		err = errors.New("not open for writing")
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(d), path), nil
}
