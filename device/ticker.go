// SPDX-License-Identifier: Apache-2.0

package device

import (
	"math"
	"math/bits"
)

// Ticker runs a scheme's periodic timer (BFC's and Floodgate's τ) at
// multiples of its period from time 0. A tick is a background timer (it
// does not keep Device.Flush running) unless the scheme has work only ticks
// can finish; then the same tick is also scheduled in the foreground and
// runs once, whichever event comes first. The scheme stops the ticker when
// it is idle (Next is not called) and restarts it with Ensure, so that a
// long silence, or an input timestamp far ahead, costs no tick events.
//
// The ticker's timer events carry TickID and the tick's index; a scheme
// passes its OnTimer arguments to Due.
type Ticker struct {
	period  int64
	last    int64 // index of the last tick run (or skipped while stopped)
	fg      bool  // a foreground event is scheduled for tick last+1
	running bool  // an event is scheduled for tick last+1
}

// TickID is the timer id of a Ticker's events.
const TickID = 1

// Start sets the period (ns) and schedules the next tick.
func (t *Ticker) Start(d *Device, s Scheme, period int64) {
	t.period = period
	t.last = 0
	if period > 0 {
		t.last = d.Now() / period
	}
	t.fg, t.running = false, false
	t.Ensure(d, s)
}

// Ensure schedules the next tick at the next multiple of the period if the
// ticker is stopped.
func (t *Ticker) Ensure(d *Device, s Scheme) {
	if t.running || t.period == 0 {
		return
	}
	t.last = max(t.last, d.Now()/t.period)
	t.running = true
	d.AfterBackground((t.last+1)*t.period-d.Now(), s, TickID, t.last+1)
}

// Due reports whether the timer event (id, n) is a tick not yet run, and
// marks it run; the ticker stops unless Next is called.
func (t *Ticker) Due(id int, n int64) bool {
	if id != TickID || n <= t.last || !t.running {
		return false
	}
	t.last, t.fg, t.running = n, false, false
	return true
}

// Next schedules the tick after the one just run, in the foreground when
// fg is set.
func (t *Ticker) Next(d *Device, s Scheme, fg bool) {
	at := (t.last+1)*t.period - d.Now()
	t.running = true
	if fg {
		t.fg = true
		d.After(at, s, TickID, t.last+1)
		return
	}
	d.AfterBackground(at, s, TickID, t.last+1)
}

// Foreground makes sure the next tick is scheduled and keeps Flush running.
func (t *Ticker) Foreground(d *Device, s Scheme) {
	if t.fg || t.period == 0 {
		return
	}
	t.Ensure(d, s)
	t.fg = true
	d.After((t.last+1)*t.period-d.Now(), s, TickID, t.last+1)
}

// MulDiv returns a × b / c rounded down for non-negative a, b and positive
// c, computed in 128 bits and saturating at math.MaxInt64; 0 when any
// argument is not positive. Schemes use it for rate × time products.
func MulDiv(a, b, c int64) int64 {
	if a <= 0 || b <= 0 || c <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, uint64(c))
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(q)
}
