package bfc

import "github.com/opensfc/sfc/device"

// ticker runs a scheme's periodic τ timer at multiples of τ from time 0.
// A tick is a background timer (it does not keep Device.Flush running)
// unless the scheme has work that only ticks can finish (a resume list to
// drain); then the same tick is also scheduled in the foreground and runs
// once, whichever event comes first.
type ticker struct {
	period int64
	last   int64 // index of the last tick run
	fg     bool  // a foreground event is scheduled for tick last+1
}

const tickID = 1

func (t *ticker) start(d *device.Device, s device.Scheme, period int64) {
	t.period = period
	t.last = d.Now() / period
	t.fg = false
	d.AfterBackground((t.last+1)*period-d.Now(), s, tickID, t.last+1)
}

// due reports whether the timer event (id, n) is a tick not yet run, and
// marks it run.
func (t *ticker) due(id int, n int64) bool {
	if id != tickID || n <= t.last {
		return false
	}
	t.last, t.fg = n, false
	return true
}

// next schedules the tick after the one just run, in the foreground when
// fg is set.
func (t *ticker) next(d *device.Device, s device.Scheme, fg bool) {
	at := (t.last+1)*t.period - d.Now()
	if fg {
		t.fg = true
		d.After(at, s, tickID, t.last+1)
		return
	}
	d.AfterBackground(at, s, tickID, t.last+1)
}

// foreground makes sure the next tick keeps Flush running.
func (t *ticker) foreground(d *device.Device, s device.Scheme) {
	if t.fg || t.period == 0 {
		return
	}
	t.fg = true
	d.After((t.last+1)*t.period-d.Now(), s, tickID, t.last+1)
}
