// SPDX-License-Identifier: Apache-2.0

package blake3x

import (
	"bytes"
	"runtime/debug"
	"syscall"
	"testing"
)

// guarded returns an n-octet slice whose end touches a page that cannot
// be read.
func guarded(t *testing.T, n int) ([]byte, func()) {
	pg := syscall.Getpagesize()
	size := (n+pg-1)/pg*pg + pg
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mprotect(mem[size-pg:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	return mem[size-pg-n : size-pg], func() { syscall.Munmap(mem) }
}

// TestNoOverread: with fewer than 16 chunks in a pass the kernel reads
// nothing past the input (a lane past the last would fault here). The
// parent passes read h.cvs, whose 256 entries hold any pass's lanes.
func TestNoOverread(t *testing.T) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	src := input(40 * chunkLen)
	for name, k := range kernels(t) {
		for _, n := range []int{2 * chunkLen, 3*chunkLen + 1, 8 * chunkLen, 9*chunkLen + 5, 15 * chunkLen,
			16*chunkLen - 1, 24 * chunkLen, 40 * chunkLen} {
			g, free := guarded(t, n)
			copy(g, src[:n])
			tr := tree{k: k, cs: chunkState{cv: iv}}
			tr.write(g)
			got := tr.sum(nil)
			free()
			if w := want(src[:n]); !bytes.Equal(got, w) {
				t.Fatalf("%s: %d octets: %x, want %x", name, n, got, w)
			}
		}
	}
}
