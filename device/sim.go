// SPDX-License-Identifier: Apache-2.0

package device

import (
	"math"
	"unsafe"

	"github.com/opensfc/sfc/internal/prefetch"
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
	now int64
	q   evQueue
	ev  []event // the pending events, at the slots their keys name
	// evFree lists the free slots of ev.
	evFree []uint32
	fg     int // pending foreground events
	free   []*Packet
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
	dev  *Device
	pkt  *Packet
	sch  Scheme
	arg  int64
	port int32
	id   int32
	kind evKind
	bg   bool
}

func (s *Sim) push(e event) {
	if !e.bg {
		s.fg++
	}
	var slot uint32
	if n := len(s.evFree); n > 0 {
		slot = s.evFree[n-1]
		s.evFree = s.evFree[:n-1]
		s.ev[slot] = e
	} else {
		slot = uint32(len(s.ev))
		s.ev = append(s.ev, e)
	}
	s.q.push(e.t, slot)
}

func (s *Sim) pop() event {
	slot := s.q.pop()
	e := s.ev[slot]
	s.ev[slot] = event{}
	s.evFree = append(s.evFree, slot)
	if !e.bg {
		s.fg--
	}
	return e
}

// RunUntil runs every event scheduled at or before t, in time order, and
// leaves the clock at t. A t before Now is ignored.
func (s *Sim) RunUntil(t int64) {
	for s.q.len() > 0 && s.q.peek() <= t {
		s.step()
	}
	if t > s.now {
		s.now = t
	}
}

// Run runs events until only background events (periodic timers that
// would tick forever) remain, and leaves the clock at the last event run.
func (s *Sim) Run() {
	for s.fg > 0 && s.q.len() > 0 {
		s.step()
	}
}

// NextEvent returns the time of the earliest scheduled event, or
// math.MaxInt64 when there is none.
func (s *Sim) NextEvent() int64 {
	if s.q.len() == 0 {
		return math.MaxInt64
	}
	return s.q.peek()
}

func (s *Sim) step() {
	e := s.pop()
	if e.t > s.now {
		s.now = e.t
	}
	s.Events++
	// The next frames to arrive were last touched long ago (they waited
	// in a queue while thousands of other events ran): start loading the
	// next one's headers and the one after's packet while this event runs.
	if next := s.q.soon(); len(next) > 0 {
		if n := s.ev[next[0].slot()].pkt; n != nil && len(n.Data) > 0 {
			prefetch.Line(unsafe.Pointer(&n.Data[0]))
		}
		if len(next) > 1 {
			if c := s.ev[next[1].slot()].pkt; c != nil {
				prefetch.Line(unsafe.Pointer(c))
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
