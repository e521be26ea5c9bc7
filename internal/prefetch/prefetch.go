// SPDX-License-Identifier: Apache-2.0

// Package prefetch asks the CPU to bring memory into its caches ahead of
// use, so that a miss overlaps other work instead of stalling it. It
// never faults and changes nothing; where the project has no prefetch
// instruction it does nothing.
package prefetch

import "unsafe"

// Bytes prefetches the cache lines of b[:n] (of b, when n is larger),
// 64 octets apart.
func Bytes(b []byte, n int) {
	if n = min(n, len(b)); n > 0 {
		lines(unsafe.Pointer(&b[0]), uintptr(n))
	}
}

// Pointer prefetches the n octets at p, 64 octets apart.
func Pointer(p unsafe.Pointer, n uintptr) {
	if n > 0 {
		lines(p, n)
	}
}
