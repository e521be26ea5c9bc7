// SPDX-License-Identifier: Apache-2.0

package crc32x

import (
	"runtime/debug"
	"syscall"
	"testing"
)

// TestNoOverread: inputs that end right before a PROT_NONE page, and
// inputs that start right after one, at lengths across every boundary of
// the kernel (the masked load under 64 octets, the 64-octet blocks, the
// 4-block loop); an access outside p faults and the test fails.
func TestNoOverread(t *testing.T) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	pg := syscall.Getpagesize()
	const span = 16384 // data pages between the two guards
	size := pg + (span+pg-1)/pg*pg + pg
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(mem)
	for _, g := range [][]byte{mem[:pg], mem[size-pg:]} {
		if err := syscall.Mprotect(g, syscall.PROT_NONE); err != nil {
			t.Fatal(err)
		}
	}
	data := mem[pg : size-pg]
	copy(data, random(len(data), 31))

	var lengths []int
	for n := 0; n <= 1100; n++ {
		lengths = append(lengths, n)
	}
	lengths = append(lengths, 1279, 1280, 1281, 2047, 2048, 2049, 4095, 4096, 4097, 8191, 8192, 8193, span-1, span)
	check := func(where string, p []byte) {
		defer func() {
			if e := recover(); e != nil {
				t.Fatalf("%s, %d octets: %v", where, len(p), e)
			}
		}()
		w := want(0xabcdef01, append([]byte(nil), p...))
		if got := Update(0xabcdef01, p); got != w {
			t.Fatalf("%s, %d octets: %#08x, want %#08x", where, len(p), got, w)
		}
	}
	for _, n := range lengths {
		check("ending at a guard page", data[len(data)-n:])
		check("starting after a guard page", data[:n])
	}
}
