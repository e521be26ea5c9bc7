// SPDX-License-Identifier: Apache-2.0

package main

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePage is the size of an x86-64 or arm64 transparent huge page.
const hugePage = 2 << 20

// mapMemory returns n octets of zeroed memory outside the Go heap, aligned
// to a huge page and advised to be backed by transparent huge pages (nil
// when the kernel gives none). The memory is never unmapped: the caller
// keeps it for reuse (see takeArena).
func mapMemory(n int) []byte {
	// The huge pages of a mapping are those of its aligned 2 MiB ranges:
	// the region is whole huge pages.
	whole := (n + hugePage - 1) &^ (hugePage - 1)
	b, err := unix.Mmap(-1, 0, whole+hugePage, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	off := (hugePage - int(uintptr(unsafe.Pointer(&b[0])))%hugePage) % hugePage
	_ = unix.Madvise(b[off:off+whole], unix.MADV_HUGEPAGE) // only advice: without it, small pages
	return b[off : off+n : off+n]
}
