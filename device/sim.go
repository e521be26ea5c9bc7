// SPDX-License-Identifier: Apache-2.0

package device

import (
	"math"
	"math/bits"
	"unsafe"
)

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

func (a *event) less(b *event) bool { return a.before(b) != 0 }

// before is 1 when a runs before b, else 0: (t, seq) < (t, seq) as one
// 128-bit subtraction (the sign bit of t flipped so that unsigned order
// is signed order), so that sifting picks a child without a branch to
// mispredict.
func (a *event) before(b *event) int {
	_, c := bits.Sub64(a.seq, b.seq, 0)
	_, c = bits.Sub64(uint64(a.t)^1<<63, uint64(b.t)^1<<63, c)
	return int(c)
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
		if l+1 < n {
			m += h[l+1].before(&h[l])
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
	// The next frame to arrive was last touched long ago (it waited in a
	// queue while thousands of other events ran): start loading its
	// headers while this event runs.
	if len(s.h) > 0 {
		if n := s.h[0].pkt; n != nil && len(n.Data) > 0 {
			prefetch(unsafe.Pointer(&n.Data[0]))
		}
		// One of the root's children runs after it: its packet too.
		for _, c := range s.h[1:min(3, len(s.h))] {
			if c.pkt != nil {
				prefetch(unsafe.Pointer(c.pkt))
			}
		}
	}
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

// take returns a packet that owns p's frame octets without copying them,
// for a frame in transmission whose sender reads only its length and
// metadata from now on: p keeps viewing the octets until it is released,
// and p's buffer is swapped for the new packet's spare one. When p.Data
// is not in p's own buffer, take copies.
func (s *Sim) take(p *Packet) *Packet {
	if len(p.Data) == 0 || cap(p.buf) == 0 || &p.Data[0] != &p.buf[:1][0] {
		return s.alloc(p.Data)
	}
	c := s.alloc(nil)
	c.buf, p.buf = p.buf, c.buf[:0]
	c.Data = p.Data
	return c
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
