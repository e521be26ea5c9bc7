// SPDX-License-Identifier: Apache-2.0

package crc32x

import (
	"fmt"
	"math/bits"
	"os"
	"regexp"
	"strconv"
	"testing"
)

// The derivation of every constant of crc32x_amd64.s. Polynomials over
// GF(2) are uint64 with bit i the coefficient of x^i.

// poly is the IEEE CRC-32 polynomial P, x^32 included (0xEDB88320
// reflected).
const poly = 0x104C11DB7

// xnModP returns x^n mod P.
func xnModP(n int) uint64 {
	r := uint64(1)
	for range n {
		r <<= 1
		if r&(1<<32) != 0 {
			r ^= poly
		}
	}
	return r
}

// foldK is k(n) = bitrev32(x^n mod P) << 1: a reflected quadword's
// carry-less product with it is the reflected product times x^32.
func foldK(n int) uint64 { return uint64(bits.Reverse32(uint32(xnModP(n)))) << 1 }

// foldPair is the 16-octet constant that folds a lane by d bits: k(d+32)
// for its first 8 octets, k(d-32) for the last 8.
func foldPair(d int) []uint64 { return []uint64{foldK(d + 32), foldK(d - 32)} }

// barrettU is floor(x^64 / P).
func barrettU() uint64 {
	var q, r uint64
	for i := 64; i >= 0; i-- {
		r <<= 1
		if i == 64 {
			r |= 1
		}
		q <<= 1
		if r&(1<<32) != 0 {
			r ^= poly
			q |= 1
		}
	}
	return q
}

// rev33 reflects a 33-bit polynomial.
func rev33(v uint64) uint64 { return bits.Reverse64(v) >> 31 }

// derived returns every DATA table of crc32x_amd64.s, as quadwords.
func derived() map[string][]uint64 {
	m := map[string][]uint64{}
	for j := 1; j <= 6; j++ { // kd[j]: fold by j blocks of 512 bits
		m["kd"] = append(m["kd"], foldPair(512*j)...)
	}
	for _, d := range []int{384, 256, 128} { // lanes 0, 1, 2 to lane 3
		m["klanes"] = append(m["klanes"], foldPair(d)...)
	}
	m["klanes"] = append(m["klanes"], 0, 0)
	m["k96"] = []uint64{0, foldK(96)}
	m["k64"] = []uint64{foldK(64)}
	m["poly"] = []uint64{rev33(poly), rev33(barrettU())}
	var rot [128]byte
	for j := range rot {
		rot[j] = byte(j % 64)
	}
	for j := 0; j < len(rot); j += 8 {
		var q uint64
		for b := 7; b >= 0; b-- {
			q = q<<8 | uint64(rot[j+b])
		}
		m["rot"] = append(m["rot"], q)
	}
	return m
}

// TestDerivationMatchesStdlib: the derivation gives hash/crc32's own
// constants (copied from $GOROOT/src/hash/crc32/crc32_amd64.s, which took
// them from Linux), so its method is the right one.
func TestDerivationMatchesStdlib(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"r2r1 low, k(544)", foldPair(512)[0], 0x154442bd4},
		{"r2r1 high, k(480)", foldPair(512)[1], 0x1c6e41596},
		{"r4r3 low, k(160)", foldPair(128)[0], 0x1751997d0},
		{"r4r3 high, k(96)", foldPair(128)[1], 0x0ccaa009e},
		{"r5, k(64)", foldK(64), 0x163cd6124},
		{"rupoly low, P'", rev33(poly), 0x1db710641},
		{"rupoly high, u'", rev33(barrettU()), 0x1f7011641},
	} {
		if c.got != c.want {
			t.Errorf("%s: derived %#x, hash/crc32 has %#x", c.name, c.got, c.want)
		}
	}
}

// TestAsmConstants: the DATA lines of crc32x_amd64.s are the derived
// constants, every one of them and nothing else.
func TestAsmConstants(t *testing.T) {
	src, err := os.ReadFile("crc32x_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^DATA\s+(\w+)<>\+(\d+)\(SB\)/8,\s*\$(\S+)`)
	inAsm := map[string][]uint64{}
	for _, m := range re.FindAllStringSubmatch(string(src), -1) {
		off, _ := strconv.Atoi(m[2])
		v, err := strconv.ParseUint(m[3], 0, 64)
		if err != nil || off%8 != 0 || off/8 != len(inAsm[m[1]]) {
			t.Fatalf("unexpected DATA line %q", m[0])
		}
		inAsm[m[1]] = append(inAsm[m[1]], v)
	}
	want := derived()
	if len(inAsm) != len(want) {
		t.Errorf("tables in the assembly: %d, derived: %d", len(inAsm), len(want))
	}
	for name, w := range want {
		got := inAsm[name]
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("%s: assembly has %#x, derived %#x; DATA lines:", name, got, w)
			for i, q := range w {
				t.Logf("DATA %s<>+%d(SB)/8, $%#x", name, 8*i, q)
			}
		}
	}
}
