// SPDX-License-Identifier: Apache-2.0

package bfc

import (
	"math"
	"testing"

	"github.com/opensfc/sfc/layers"
)

// within2 reports whether measured is within a factor 2 of want.
func within2(measured, want float64) bool { return measured >= want/2 && measured <= want*2 }

// TestFalsePositiveRate measures the version 2 filter's false-positive rate
// with the defaults of wire.md §7.1, L = 128 octets and k = 4 (m_s = 256
// bits per stage, M = 1024 in all), over 100 random sets of n = 8, 16 and
// 32 paused flows each, and asserts it within 2× of
// (1 − e^(−n/m_s))^k = (1 − e^(−kn/M))^k: 9.0e-7, 1.35e-5 and 1.9e-4.
// The probe counts (10^8, 10^7, 10^6) expect about 90, 135 and 190
// matches, so the factor 2 is several standard deviations wide; the
// correlated stages of version 1 (TestVersion1FalsePositives) are 60 to
// 30,000 times worse and cannot pass. Seeded: every run is the same.
func TestFalsePositiveRate(t *testing.T) {
	const l, k = 128, 4
	for _, r := range []struct {
		n, sets, probes int
	}{
		{32, 100, 10_000},
		{16, 100, 100_000},
		{8, 100, 1_000_000},
	} {
		if testing.Short() && r.n == 8 {
			continue
		}
		hits, asked := FalsePositives(layers.BFCVersion, l, k, r.n, r.sets, r.probes, uint64(r.n))
		got, want := float64(hits)/float64(asked), BloomFalsePositive(r.n, k, l)
		exact := math.Pow(1-math.Pow(1-float64(k)/(8*l), float64(r.n)), k)
		t.Logf("n = %2d: %d of %d probes matched: %.3g; (1 − e^(−n/m_s))^k = %.3g (ratio %.2f); exact (1 − (1 − 1/m_s)^n)^k = %.3g",
			r.n, hits, asked, got, want, got/want, exact)
		if !within2(got, want) {
			t.Errorf("n = %d: false-positive rate %.3g, want within 2× of %.3g", r.n, got, want)
		}
	}
}

// TestVersion1FalsePositives measures what wire.md §7.1 says of version 1:
// its stages hash CRC-32C(VFID ‖ s), which differ by a constant XOR, so a
// flow hits all four stages iff it hits one. With 32 paused flows, L = 128
// and k = 4 the rate is about 1 − e^(−32/256) = 11.8 %, a single stage's,
// and fails the bound TestFalsePositiveRate puts on version 2.
func TestVersion1FalsePositives(t *testing.T) {
	const l, k, n = 128, 4, 32
	hits, asked := FalsePositives(layers.BFCVersion1, l, k, n, 100, 2_000, 7)
	got := float64(hits) / float64(asked)
	oneStage := BloomFalsePositive(n, 1, l/k)
	t.Logf("version 1, n = %d: %d of %d probes matched: %.3g; one stage 1 − e^(−n/m_s) = %.3g; independent stages %.3g",
		n, hits, asked, got, oneStage, BloomFalsePositive(n, k, l))
	if within2(got, BloomFalsePositive(n, k, l)) {
		t.Errorf("version 1 hashing passes the version 2 bound: %.3g", got)
	}
	if math.Abs(got/oneStage-1) > 0.1 {
		t.Errorf("version 1 rate %.3g, want about one stage's %.3g", got, oneStage)
	}
	if h, a := FalsePositives(layers.BFCVersion, 128, 3, n, 1, 10, 1); h != 0 || a != 0 {
		t.Errorf("k = 3, L = 128: %d of %d", h, a)
	}
}

func TestBloomFalsePositive(t *testing.T) {
	// n = 32, k = 4, L = 128: (1 − e^(−1/8))^4.
	if got, want := BloomFalsePositive(32, 4, 128), math.Pow(1-math.Exp(-0.125), 4); math.Abs(got-want) > 1e-12 || math.Abs(got-1.906e-4) > 1e-6 {
		t.Errorf("BloomFalsePositive(32, 4, 128) = %g, want %g", got, want)
	}
	if !math.IsNaN(BloomFalsePositive(1, 0, 128)) {
		t.Error("k = 0")
	}
}
