// SPDX-License-Identifier: Apache-2.0

package prefetch

import (
	"testing"
	"unsafe"
)

// TestBounds: prefetches of empty, short, unaligned and clipped ranges
// run (a prefetch never faults, but lines must stay within the range
// asked for: the last one starts below p+n).
func TestBounds(t *testing.T) {
	b := make([]byte, 300)
	for _, n := range []int{0, 1, 63, 64, 65, 256, 300, 1000} {
		Bytes(b, n)
		Bytes(b[7:], n)
	}
	Bytes(nil, 64)
	var x [3]uint64
	Pointer(unsafe.Pointer(&x), 0)
	Pointer(unsafe.Pointer(&x), unsafe.Sizeof(x))
	Line(unsafe.Pointer(&x))
}
