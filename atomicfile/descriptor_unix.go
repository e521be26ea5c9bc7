// SPDX-License-Identifier: Apache-2.0

//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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
				return fd, err == nil && fd >= 0 && strconv.Itoa(fd) == n
			}
		}
	}
	return 0, false
}

// openDescriptor returns a duplicate of descriptor fd (the same open file:
// offset and flags shared, as with the shell's redirection), which may be
// closed without closing fd.
func openDescriptor(fd int, path string) (*os.File, error) {
	d, err := syscall.Dup(fd)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	syscall.CloseOnExec(d)
	return os.NewFile(uintptr(d), path), nil
}
