// SPDX-License-Identifier: Apache-2.0

package device

import "math"

// Sim is the virtual clock and event queue that one or more devices share.
// Time is in nanoseconds and moves only when the owner of the Sim advances
// it (Device.Input, AdvanceTo, Flush, or Sim.RunUntil); nothing reads the
// wall clock. Events at the same time run in the order they were
// scheduled, which makes every run with the same inputs identical.
//
// A Sim also keeps the free list of packet buffers, so that frames moving
// between devices of one Sim recycle memory instead of allocating.
type Sim struct {
	now  int64
	h    []event
	seq  uint64
	fg   int // pending foreground events
	free []*Packet
	// Events counts the events run so far (for benchmarks).
	Events int64
}

// NewSim returns a Sim at time 0.
func NewSim() *Sim { return &Sim{} }

// Now returns the current virtual time in ns.
func (s *Sim) Now() int64 { return s.now }

// Pending reports how many foreground events are scheduled.
func (s *Sim) Pending() int { return s.fg }

type evKind uint8

const (
	evTxDone evKind = iota
	evDeliver
	evWake
	evTimer
	evFlowStart
)

type event struct {
	t    int64
	seq  uint64
	dev  *Device
	pkt  *Packet
	sch  Scheme
	arg  int64
	port int32
	id   int32
	kind evKind
	bg   bool
}

func (a *event) less(b *event) bool {
	return a.t < b.t || a.t == b.t && a.seq < b.seq
}

func (s *Sim) push(e event) {
	e.seq = s.seq
	s.seq++
	if !e.bg {
		s.fg++
	}
	// Sift up with a hole: each parent moves down once, and e is stored
	// once at its place (an event is 9 words; swapping moved each twice).
	s.h = append(s.h, event{})
	h := s.h
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !e.less(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

func (s *Sim) pop() event {
	h := s.h
	e := h[0]
	n := len(h) - 1
	last := h[n]
	h[n] = event{}
	h = h[:n]
	// Sift the last event down from the root with a hole, as push does.
	i := 0
	for n > 0 {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].less(&h[l]) {
			m = r
		}
		if !h[m].less(&last) {
			break
		}
		h[i] = h[m]
		i = m
	}
	if n > 0 {
		h[i] = last
	}
	s.h = h
	if !e.bg {
		s.fg--
	}
	return e
}

// RunUntil runs every event scheduled at or before t, in time order, and
// leaves the clock at t. A t before Now is ignored.
func (s *Sim) RunUntil(t int64) {
	for len(s.h) > 0 && s.h[0].t <= t {
		s.step()
	}
	if t > s.now {
		s.now = t
	}
}

// Run runs events until only background events (periodic timers that
// would tick forever) remain, and leaves the clock at the last event run.
func (s *Sim) Run() {
	for s.fg > 0 && len(s.h) > 0 {
		s.step()
	}
}

// NextEvent returns the time of the earliest scheduled event, or
// math.MaxInt64 when there is none.
func (s *Sim) NextEvent() int64 {
	if len(s.h) == 0 {
		return math.MaxInt64
	}
	return s.h[0].t
}

func (s *Sim) step() {
	e := s.pop()
	if e.t > s.now {
		s.now = e.t
	}
	s.Events++
	e.dev.fire(&e)
}

func (s *Sim) alloc(frame []byte) *Packet {
	var p *Packet
	if n := len(s.free); n > 0 {
		p = s.free[n-1]
		s.free[n-1] = nil
		s.free = s.free[:n-1]
		buf := p.buf
		*p = Packet{buf: buf}
	} else {
		p = &Packet{}
	}
	p.buf = append(p.buf[:0], frame...)
	p.Data = p.buf
	return p
}

func (s *Sim) release(p *Packet) {
	if p == nil || p.freed {
		return
	}
	p.freed = true
	p.Data = nil
	if cap(p.buf) > 16<<10 {
		p.buf = nil
	}
	s.free = append(s.free, p)
}
