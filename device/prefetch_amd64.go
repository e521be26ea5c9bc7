// SPDX-License-Identifier: Apache-2.0

package device

import "unsafe"

// prefetch asks the CPU to bring the cache line at p closer (PREFETCHT0);
// it never faults and changes nothing.
//
//go:noescape
func prefetch(p unsafe.Pointer)
