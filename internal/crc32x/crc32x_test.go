// SPDX-License-Identifier: Apache-2.0

package crc32x

import (
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// random returns n reproducible random octets.
func random(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func want(crc uint32, p []byte) uint32 { return crc32.Update(crc, crc32.IEEETable, p) }

// TestLengths: every length 0..4200 at every start offset 0..15, from
// several initial values.
func TestLengths(t *testing.T) {
	const maxLen = 4200
	buf := random(maxLen+16, 1)
	for _, crc := range []uint32{0, 0xffffffff, 0x12345678, rand.Uint32()} {
		for off := 0; off < 16; off++ {
			for n := 0; n <= maxLen; n++ {
				p := buf[off : off+n]
				if got, w := Update(crc, p), want(crc, p); got != w {
					t.Fatalf("crc %#08x, offset %d, %d octets: %#08x, want %#08x", crc, off, n, got, w)
				}
			}
		}
	}
}

// TestSplits: long random inputs cut at random points, each piece
// continuing the CRC of the ones before.
func TestSplits(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	sizes := []int{1 << 20, 1<<20 - 1, 300000, 65536 + 7}
	for range 8 {
		sizes = append(sizes, 1+r.IntN(1<<20))
	}
	for i, n := range sizes {
		p := random(n, uint64(10+i))
		w := want(0, p)
		if got := Update(0, p); got != w {
			t.Fatalf("%d octets whole: %#08x, want %#08x", n, got, w)
		}
		for range 4 {
			var crc uint32
			rest := p
			for len(rest) > 0 {
				k := r.IntN(min(len(rest), 1+r.IntN(9000))) + 1
				if r.IntN(8) == 0 {
					k = min(len(rest), r.IntN(70))
				}
				crc = Update(crc, rest[:k])
				rest = rest[k:]
			}
			if crc != w {
				t.Fatalf("%d octets in pieces: %#08x, want %#08x", n, crc, w)
			}
		}
	}
}

// TestKnown: the check value of CRC-32/ISO-HDLC, and a kernel-length input
// whose CRC does not depend on hash/crc32.
func TestKnown(t *testing.T) {
	if got := Update(0, []byte("123456789")); got != 0xcbf43926 {
		t.Errorf("\"123456789\": %#08x, want 0xcbf43926", got)
	}
	// 1024 zero octets: CRC-32 0xefb5af2e.
	if got := Update(0, make([]byte, 1024)); got != 0xefb5af2e {
		t.Errorf("1024 zero octets: %#08x, want 0xefb5af2e", got)
	}
}

// TestNoAllocs: Update allocates nothing, and does not move a local
// buffer to the heap (p does not escape).
func TestNoAllocs(t *testing.T) {
	p := random(1098, 3)
	for _, n := range []int{0, 5, 63, 64, 100, 1098} {
		if a := testing.AllocsPerRun(100, func() { _ = Update(1, p[:n]) }); a != 0 {
			t.Errorf("%d octets: %v allocations, want 0", n, a)
		}
	}
	for _, n := range []int{20, 200} {
		a := testing.AllocsPerRun(100, func() {
			var local [256]byte
			local[0] = byte(n)
			_ = Update(0, local[:n])
		})
		if a != 0 {
			t.Errorf("local buffer, %d octets: %v allocations, want 0", n, a)
		}
	}
}

// FuzzUpdate compares Update with hash/crc32, whole and split at k.
func FuzzUpdate(f *testing.F) {
	f.Add(uint32(0), []byte("123456789"), uint16(3))
	f.Add(uint32(0xffffffff), random(64, 4), uint16(0))
	f.Add(uint32(0x9e3779b9), random(79, 5), uint16(16))
	f.Add(uint32(1), random(255, 6), uint16(64))
	f.Add(uint32(2), random(256, 7), uint16(255))
	f.Add(uint32(3), random(1098, 8), uint16(1000))
	f.Add(uint32(4), random(4111, 9), uint16(513))
	f.Fuzz(func(t *testing.T, crc uint32, p []byte, k uint16) {
		w := want(crc, p)
		if got := Update(crc, p); got != w {
			t.Fatalf("%d octets: %#08x, want %#08x", len(p), got, w)
		}
		s := int(k) % (len(p) + 1)
		if got := Update(Update(crc, p[:s]), p[s:]); got != w {
			t.Fatalf("%d octets split at %d: %#08x, want %#08x", len(p), s, got, w)
		}
	})
}

var benchSizes = []int{64, 256, 1024, 1098, 4096, 65536}

var sink uint32

func bench(b *testing.B, f func(uint32, []byte) uint32) {
	for _, n := range benchSizes {
		p := random(n, 11)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			var x uint32 // independent calls, as for the frames of a capture
			for b.Loop() {
				x ^= f(0x12345678, p)
			}
			sink = x
		})
	}
}

func BenchmarkUpdate(b *testing.B) { bench(b, Update) }

func BenchmarkStdlib(b *testing.B) {
	bench(b, want)
}
