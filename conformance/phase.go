// SPDX-License-Identifier: Apache-2.0

package conformance

// phaseSet is the set of suppression phases φ in [0, P) still consistent
// with a device's signals: the device clears its filter at φ + kP, and two
// signals of one flow at a1 < a2 need a clearing in (a1, a2]. It is kept
// as sorted disjoint closed intervals.
type phaseSet struct {
	p    int64
	ivs  [][2]int64
	tmp  [][2]int64
	arcs [][2]int64
}

func newPhaseSet(p int64) *phaseSet {
	s := &phaseSet{p: p}
	s.reset()
	return s
}

func (s *phaseSet) reset() { s.ivs = append(s.ivs[:0], [2]int64{0, s.p - 1}) }

func (s *phaseSet) empty() bool { return len(s.ivs) == 0 }

func mod(a, p int64) int64 {
	a %= p
	if a < 0 {
		a += p
	}
	return a
}

// arc returns the phases φ with a clearing in [lo, hi] (hi − lo < P) as
// one or two intervals of [0, P).
func (s *phaseSet) arc(lo, hi int64) [][2]int64 {
	s.arcs = s.arcs[:0]
	if hi < lo {
		return s.arcs // no time at all: two signals from one trigger
	}
	if hi-lo >= s.p-1 {
		return append(s.arcs, [2]int64{0, s.p - 1})
	}
	a, b := mod(lo, s.p), mod(hi, s.p)
	if a <= b {
		return append(s.arcs, [2]int64{a, b})
	}
	return append(s.arcs, [2]int64{0, b}, [2]int64{a, s.p - 1})
}

// require keeps the phases with a clearing in [lo, hi]; it reports false
// when none is left (and then keeps the set unchanged).
func (s *phaseSet) require(lo, hi int64) bool {
	arc := s.arc(lo, hi)
	s.tmp = s.tmp[:0]
	for _, x := range s.ivs {
		for _, y := range arc {
			a, b := max(x[0], y[0]), min(x[1], y[1])
			if a <= b {
				s.tmp = append(s.tmp, [2]int64{a, b})
			}
		}
	}
	if len(s.tmp) == 0 {
		return false
	}
	// Both lists are sorted and disjoint, so the products are too, once
	// sorted by start.
	for i := 1; i < len(s.tmp); i++ {
		for j := i; j > 0 && s.tmp[j][0] < s.tmp[j-1][0]; j-- {
			s.tmp[j], s.tmp[j-1] = s.tmp[j-1], s.tmp[j]
		}
	}
	s.ivs, s.tmp = s.tmp, s.ivs
	return true
}

// forbid keeps the phases with no clearing in [lo, hi]; it reports false
// when none is left (and then keeps the set unchanged).
func (s *phaseSet) forbid(lo, hi int64) bool {
	if hi < lo {
		return true
	}
	return s.require(hi+1, lo+s.p-1)
}

// restart makes [lo, hi] the only constraint (after a violation was
// reported, so that one extra signal gives one deviation).
func (s *phaseSet) restart(lo, hi int64) {
	s.reset()
	if !s.require(lo, hi) {
		s.reset()
	}
}
