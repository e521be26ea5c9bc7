// SPDX-License-Identifier: Apache-2.0

//go:build !purego

package crc32x

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// TestKernelTaken: on a CPU with the features, Update hands inputs from
// threshold octets on to the kernel, and the kernel itself, called
// directly, agrees with hash/crc32 at every length it accepts (so the
// comparisons of the other tests go through it).
func TestKernelTaken(t *testing.T) {
	if !(cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI && cpu.X86.HasAVX512VPCLMULQDQ) {
		t.Skip("SKIPPED: THIS CPU LACKS AVX512F/VL/BW/VBMI + VPCLMULQDQ: THE KERNEL IS NOT TESTED HERE, ONLY THE hash/crc32 FALLBACK")
	}
	if !hasKernel {
		t.Fatal("the CPU has the features but hasKernel is false")
	}
	if useKernel(threshold-1) || !useKernel(threshold) || !useKernel(1<<20) {
		t.Fatalf("useKernel does not switch at threshold %d", threshold)
	}
	buf := random(3000+16, 21)
	for _, crc := range []uint32{0, 0xffffffff, 0xdeadbeef} {
		for off := range 16 {
			for n := 0; n <= 3000; n++ {
				p := buf[off : off+n]
				got := ^updateAVX512(^crc, p)
				if w := want(crc, p); got != w {
					t.Fatalf("kernel, crc %#08x, offset %d, %d octets: %#08x, want %#08x", crc, off, n, got, w)
				}
			}
		}
	}
}
