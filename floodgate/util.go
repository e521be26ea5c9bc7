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

// ticker runs a scheme's τ timer at multiples of τ from time 0. A tick is a
// background timer unless the scheme has work only ticks finish (credits
// to send); then the same tick is also scheduled in the foreground and
// runs once, whichever event comes first.
type ticker struct {
	period int64
	last   int64
	fg     bool
}

const tickID = 1

func (t *ticker) start(d *device.Device, s device.Scheme, period int64) {
	t.period = period
	t.last = d.Now() / period
	t.fg = false
	d.AfterBackground((t.last+1)*period-d.Now(), s, tickID, t.last+1)
}

func (t *ticker) due(id int, n int64) bool {
	if id != tickID || n <= t.last {
		return false
	}
	t.last, t.fg = n, false
	return true
}

func (t *ticker) next(d *device.Device, s device.Scheme, fg bool) {
	at := (t.last+1)*t.period - d.Now()
	if fg {
		t.fg = true
		d.After(at, s, tickID, t.last+1)
		return
	}
	d.AfterBackground(at, s, tickID, t.last+1)
}

func (t *ticker) foreground(d *device.Device, s device.Scheme) {
	if t.fg || t.period == 0 {
		return
	}
	t.fg = true
	d.After((t.last+1)*t.period-d.Now(), s, tickID, t.last+1)
}
