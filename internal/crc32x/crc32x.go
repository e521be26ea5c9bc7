// SPDX-License-Identifier: Apache-2.0

package crc32x

import (
	"hash/crc32"
	"runtime"
	"unsafe"
)

// threshold is the shortest input handed to the kernel. Measured on the
// bench machine, the kernel is faster than hash/crc32 from 1 octet on
// (7.0 ns against 8.4 ns at 1 octet, 6.9 against 28.6 at 63): only the
// empty input is left out, and Update answers it itself (hash/crc32's
// dispatch alone costs more than the answer).
const threshold = 1

// Update returns the result of adding the bytes in p to crc: exactly
// crc32.Update(crc, crc32.IEEETable, p).
func Update(crc uint32, p []byte) uint32 {
	if len(p) == 0 {
		return crc
	}
	if useKernel(len(p)) {
		return ^updateAVX512(^crc, p)
	}
	crc = crc32.Update(crc, crc32.IEEETable, hide(p))
	runtime.KeepAlive(unsafe.SliceData(p))
	return crc
}

// Accelerated reports whether Update runs the AVX-512 kernel on this CPU
// (else it is hash/crc32.Update, whose dispatch costs more than a table
// lookup per octet on a few dozen octets: a caller may keep its own code
// for those).
func Accelerated() bool { return hasKernel }

// useKernel reports whether Update hands n octets to the kernel.
func useKernel(n int) bool { return hasKernel && n >= threshold }

// hide returns p with its origin hidden from escape analysis.
//
// hash/crc32 reaches its IEEE code through a function variable, so the
// compiler must assume that whatever slice is passed to crc32.Update
// escapes, and every caller of Update would have its buffer moved to the
// heap: a masked header built in a local array, say. No hash/crc32
// function keeps p beyond the call (they only read it), so p may stay
// where it is, as with the runtime's noescape: the address goes through a
// uintptr variable, which escape analysis does not follow. Update keeps p
// itself alive until crc32.Update returns (runtime.KeepAlive), so the
// memory cannot be freed while only the uintptr refers to it; a stack
// does not move at the instructions in between (hide is nosplit, and an
// asynchronously preempted stack is not shrunk).
//
//go:nosplit
func hide(p []byte) []byte {
	x := uintptr(unsafe.Pointer(unsafe.SliceData(p)))
	ptr := *(*unsafe.Pointer)(unsafe.Pointer(&x))
	return unsafe.Slice((*byte)(ptr), len(p))
}
