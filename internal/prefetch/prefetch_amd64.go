// SPDX-License-Identifier: Apache-2.0

package prefetch

import "unsafe"

// Line prefetches the cache line at p into every level (PREFETCHT0).
//
//go:noescape
func Line(p unsafe.Pointer)
