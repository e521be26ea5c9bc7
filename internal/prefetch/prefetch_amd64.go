// SPDX-License-Identifier: Apache-2.0

package prefetch

import "unsafe"

// Line prefetches the cache line at p into every level (PREFETCHT0).
//
//go:noescape
func Line(p unsafe.Pointer)

// lines prefetches the octets at p, p+64, ... below p+n (n > 0) in one
// call: an assembly function costs a call through its ABI wrapper, and a
// frame is several lines.
//
//go:noescape
func lines(p unsafe.Pointer, n uintptr)
