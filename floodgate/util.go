package floodgate

import (
	"math/bits"

	"github.com/opensfc/sfc/device"
)

// mulDiv returns a × b / c rounded down for non-negative a, b and positive
// c, saturating at the largest int64.
func mulDiv(a, b, c int64) int64 {
	if a <= 0 || b <= 0 || c <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) {
		return 1<<63 - 1
	}
	q, _ := bits.Div64(hi, lo, uint64(c))
	if q > 1<<63-1 {
		return 1<<63 - 1
	}
	return int64(q)
}

// ticker runs a scheme's periodic τ timer at multiples of τ from time 0.
// A tick is a background timer (it does not keep Device.Flush running)
// unless the scheme has work only ticks can finish; then the same tick is
// also scheduled in the foreground and runs once, whichever event comes
// first. The scheme stops the ticker when it is idle (next is not called)
// and restarts it with ensure, so that a long silence, or an input
// timestamp far ahead, costs no tick events.
type ticker struct {
	period  int64
	last    int64 // index of the last tick run (or skipped while stopped)
	fg      bool  // a foreground event is scheduled for tick last+1
	running bool  // an event is scheduled for tick last+1
}

const tickID = 1

func (t *ticker) start(d *device.Device, s device.Scheme, period int64) {
	t.period = period
	t.last = d.Now() / period
	t.fg, t.running = false, false
	t.ensure(d, s)
}

// ensure schedules the next tick at the next multiple of τ if the ticker
// is stopped.
func (t *ticker) ensure(d *device.Device, s device.Scheme) {
	if t.running || t.period == 0 {
		return
	}
	t.last = max(t.last, d.Now()/t.period)
	t.running = true
	d.AfterBackground((t.last+1)*t.period-d.Now(), s, tickID, t.last+1)
}

// due reports whether the timer event (id, n) is a tick not yet run, and
// marks it run; the ticker stops unless next is called.
func (t *ticker) due(id int, n int64) bool {
	if id != tickID || n <= t.last || !t.running {
		return false
	}
	t.last, t.fg, t.running = n, false, false
	return true
}

// next schedules the tick after the one just run, in the foreground when
// fg is set.
func (t *ticker) next(d *device.Device, s device.Scheme, fg bool) {
	at := (t.last+1)*t.period - d.Now()
	t.running = true
	if fg {
		t.fg = true
		d.After(at, s, tickID, t.last+1)
		return
	}
	d.AfterBackground(at, s, tickID, t.last+1)
}

// foreground makes sure the next tick is scheduled and keeps Flush running.
func (t *ticker) foreground(d *device.Device, s device.Scheme) {
	if t.fg || t.period == 0 {
		return
	}
	t.ensure(d, s)
	t.fg = true
	d.After((t.last+1)*t.period-d.Now(), s, tickID, t.last+1)
}
