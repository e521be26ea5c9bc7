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
	h    []hent  // heap of (time, seq) keys
	slab []event // the events, indexed by hent.i
	idle []int32 // free slab slots
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

// hent is a heap entry: an event's time and scheduling order, and where
// the event is. Sifting 24-octet keys instead of whole events keeps the
// heap's memory traffic low.
type hent struct {
	t   int64
	seq uint64
	i   int32
}

func (a *hent) less(b *hent) bool {
	return a.t < b.t || a.t == b.t && a.seq < b.seq
}

func (s *Sim) push(e event) {
	e.seq = s.seq
	s.seq++
	if !e.bg {
		s.fg++
	}
	var i int32
	if n := len(s.idle); n > 0 {
		i = s.idle[n-1]
		s.idle = s.idle[:n-1]
		s.slab[i] = e
	} else {
		i = int32(len(s.slab))
		s.slab = append(s.slab, e)
	}
	k := hent{t: e.t, seq: e.seq, i: i}
	// A 4-ary heap, sifted with a hole: each level moves one key instead
	// of swapping two, and the tree is half as deep as a binary heap.
	s.h = append(s.h, k)
	h := s.h
	j := len(h) - 1
	for j > 0 {
		p := (j - 1) / 4
		if !k.less(&h[p]) {
			break
		}
		h[j] = h[p]
		j = p
	}
	h[j] = k
}

func (s *Sim) pop() event {
	h := s.h
	top := h[0]
	n := len(h) - 1
	last := h[n]
	h = h[:n]
	if n > 0 {
		j := 0
		for {
			c := 4*j + 1
			if c >= n {
				break
			}
			m := c
			for k := c + 1; k < c+4 && k < n; k++ {
				if h[k].less(&h[m]) {
					m = k
				}
			}
			if !h[m].less(&last) {
				break
			}
			h[j] = h[m]
			j = m
		}
		h[j] = last
	}
	s.h = h
	e := s.slab[top.i]
	s.slab[top.i] = event{}
	s.idle = append(s.idle, top.i)
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
	if cap(p.buf) < len(frame) {
		// Pooled buffers serve every frame size: give each room for a
		// full-size frame, so that one recycled from a short frame (an
		// ACK) does not grow again for the next data frame.
		p.buf = make([]byte, 0, max(len(frame), 1600))
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
