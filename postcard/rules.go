// SPDX-License-Identifier: Apache-2.0

package postcard

import (
	"math"
	"math/bits"

	"github.com/opensfc/sfc/device"
)

// PredictIP returns I_p = Σ I^i + N × I^N (behaviour.md §8): the octets
// received over the last N complete slots, oldest first in slots, plus the
// newest slot's octets extrapolated over the next N slots. It saturates at
// the largest int64.
func PredictIP(slots []int64) int64 {
	if len(slots) == 0 {
		return 0
	}
	var sum int64
	for _, v := range slots {
		sum = satAdd(sum, max(v, 0))
	}
	newest := max(slots[len(slots)-1], 0)
	return satAdd(sum, device.MulDiv(int64(len(slots)), newest, 1))
}

// Capacity returns T × DC_RTT in octets: what a port of rate bit/s sends in
// dcrtt ns (100 Gb/s × 25 µs = 312,500).
func Capacity(rate, dcrtt int64) int64 { return device.MulDiv(rate, dcrtt, 8*device.Second) }

// Congested applies the congestion test of behaviour.md §8: I_p > T ×
// DC_RTT − Q^1.
func Congested(ip, q1, rate, dcrtt int64) bool {
	return ip > Capacity(rate, dcrtt)-q1
}

// Assessment is what a CC-postcard tells a sender (wire.md §6).
type Assessment struct {
	RateMbps     int64 // T, Mb/s
	WindowNS     int64 // DC_RTT, ns
	IP           int64 // I_p, octets
	Q1           int64 // Q^1, octets
	Recent       int64 // recentBytes
	RecentMarked int64 // recentMarkedBytes
}

// Reaction is the sender's reading of one postcard (behaviour.md §8), in
// whole octets; c = CNum / CDen.
type Reaction struct {
	IPBT    int64 // I_PBT = Δ × recentMarked / recent × I_p (at most I_p)
	INonPBT int64 // I_nonPBT = I_p − I_PBT
	I       int64 // max(T × DC_RTT − Q^1 − I_nonPBT, I_min)
	CNum    int64 // I_PBT × 10^6
	CDen    int64 // μ × 10^6 × I
	// Rate is MaxRate / c in bit/s (rounded down, at least MinRate) when
	// c > 1, else 0 (no proposal).
	Rate int64
}

// C returns c as a float64, for display.
func (r Reaction) C() float64 {
	if r.CDen == 0 {
		return 0
	}
	return float64(r.CNum) / float64(r.CDen)
}

// React computes the reaction to a postcard a for a sender with Δ = delta,
// μ = muPPM / 10^6, I_min = iMin octets and line rate maxRate bit/s:
//
//	I_PBT    = Δ × recentMarked / recent × I_p     (0 when recent = 0; at most I_p)
//	I_nonPBT = I_p − I_PBT
//	I        = max(T × DC_RTT − Q^1 − I_nonPBT, I_min)
//	c        = I_PBT / (μ × I)
//	rate     = MaxRate / c   when c > 1
//
// All in integers (128-bit intermediates), so every platform agrees.
func React(a Assessment, delta int, muPPM, iMin, maxRate int64) Reaction {
	var r Reaction
	ip := max(a.IP, 0)
	if a.Recent > 0 && a.RecentMarked > 0 && delta > 0 {
		// Δ × marked × I_p / recent, 128-bit.
		hi, lo := bits.Mul64(uint64(delta)*uint64(max(a.RecentMarked, 0)), uint64(ip))
		if hi >= uint64(a.Recent) {
			r.IPBT = ip
		} else {
			q, _ := bits.Div64(hi, lo, uint64(a.Recent))
			r.IPBT = int64(min(q, uint64(ip)))
		}
	}
	r.INonPBT = ip - r.IPBT
	r.I = max(Capacity(a.RateMbps*1_000_000, a.WindowNS)-max(a.Q1, 0)-r.INonPBT, iMin, 1)
	r.CNum = r.IPBT * 1_000_000
	r.CDen = device.MulDiv(muPPM, r.I, 1)
	if r.CNum > r.CDen && r.CNum > 0 {
		// MaxRate × CDen / CNum.
		hi, lo := bits.Mul64(uint64(maxRate), uint64(r.CDen))
		if hi >= uint64(r.CNum) {
			r.Rate = maxRate
		} else {
			q, _ := bits.Div64(hi, lo, uint64(r.CNum))
			r.Rate = int64(q)
		}
		r.Rate = max(r.Rate, MinRate)
	}
	return r
}

// greater reports whether a/b > c/d for positive b and d.
func greater(a, b, c, d int64) bool {
	h1, l1 := bits.Mul64(uint64(a), uint64(d))
	h2, l2 := bits.Mul64(uint64(c), uint64(b))
	return h1 > h2 || h1 == h2 && l1 > l2
}

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
