// SPDX-License-Identifier: Apache-2.0

package prefetch

import "unsafe"

// line prefetches the cache line at p into every level (PREFETCHT0).
//
//go:noescape
func line(p unsafe.Pointer)
