// SPDX-License-Identifier: Apache-2.0

package timeline

import (
	"cmp"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot/vg"

	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/stats"
)

// MaxPerRow bounds the intervals, markers and depth points a row keeps.
const MaxPerRow = 4096

type interval struct{ from, to int64 }

type marker struct {
	t      int64
	kind   stats.Kind
	resume bool
}

type point struct {
	t int64
	v uint64
}

type row struct {
	label     string
	pfc       bool
	intervals []interval
	markers   []marker
	skip      int // keep every skip-th marker (after thinning)
	seen      int
	pausedNS  int64
	signals   int
}

type series struct {
	label  string
	points []point
	max    uint64
}

// Timeline collects what to draw. The zero value is not ready: use New.
type Timeline struct {
	rows        []*row
	series      []*series
	first, last int64
	started     bool
}

// New returns an empty Timeline.
func New() *Timeline { return &Timeline{} }

var _ stats.Observer = (*Timeline)(nil)

func (tl *Timeline) see(t int64) {
	if !tl.started {
		tl.first, tl.last, tl.started = t, t, true
	}
	tl.first = min(tl.first, t)
	tl.last = max(tl.last, t)
}

// Row implements stats.Observer.
func (tl *Timeline) Row(id int, label string, pfc bool) {
	for len(tl.rows) <= id {
		tl.rows = append(tl.rows, &row{skip: 1})
	}
	tl.rows[id].label, tl.rows[id].pfc = dissect.Escape(label), pfc
}

// Interval implements stats.Observer.
func (tl *Timeline) Interval(id int, from, to time.Time) {
	r := tl.rows[id]
	iv := interval{from.UnixNano(), to.UnixNano()}
	tl.see(iv.from)
	tl.see(iv.to)
	r.pausedNS += iv.to - iv.from
	if n := len(r.intervals); n > 0 && r.intervals[n-1].to >= iv.from {
		r.intervals[n-1].to = max(r.intervals[n-1].to, iv.to)
		return
	}
	if len(r.intervals) == MaxPerRow {
		// Merge neighbours pairwise: half as many, gaps between pairs closed.
		out := r.intervals[:0]
		for i := 0; i+1 < len(r.intervals); i += 2 {
			out = append(out, interval{r.intervals[i].from, r.intervals[i+1].to})
		}
		r.intervals = out
	}
	r.intervals = append(r.intervals, iv)
}

// Signal implements stats.Observer.
func (tl *Timeline) Signal(id int, t time.Time, kind stats.Kind, d time.Duration) {
	r := tl.rows[id]
	tl.see(t.UnixNano())
	if d != 0 {
		r.signals++
	}
	r.seen++
	if r.seen%r.skip != 0 {
		return
	}
	if len(r.markers) == MaxPerRow {
		out := r.markers[:0]
		for i := 0; i < len(r.markers); i += 2 {
			out = append(out, r.markers[i])
		}
		r.markers = out
		r.skip *= 2
	}
	r.markers = append(r.markers, marker{t.UnixNano(), kind, d == 0})
}

// Series implements stats.Observer.
func (tl *Timeline) Series(id int, label string) {
	for len(tl.series) <= id {
		tl.series = append(tl.series, &series{})
	}
	tl.series[id].label = dissect.Escape(label)
}

// Depth implements stats.Observer.
func (tl *Timeline) Depth(id int, t time.Time, v uint64) {
	s := tl.series[id]
	tl.see(t.UnixNano())
	s.max = max(s.max, v)
	if len(s.points) == MaxPerRow {
		out := s.points[:0]
		for i := 0; i+1 < len(s.points); i += 2 {
			a, b := s.points[i], s.points[i+1]
			if b.v > a.v {
				a.v = b.v
			}
			out = append(out, a)
		}
		s.points = out
	}
	s.points = append(s.points, point{t.UnixNano(), v})
}

// The bounds of a picture, which bound the memory of drawing it (a PNG is
// an RGBA image at 96 pixels per inch: 3840 × 6144 pixels, 94 MB at most).
const (
	// MaxWidth is the widest picture: 40 inches.
	MaxWidth = 40 * vg.Inch
	// MaxHeight is the tallest picture: 64 inches. A height that follows
	// the rows is capped at it.
	MaxHeight = 64 * vg.Inch
	// RowsLimit is the largest MaxRows: 100 pause rows and 100 depth rows.
	RowsLimit = 100
)

// Options shape the picture.
type Options struct {
	// MaxRows bounds the pause rows drawn (the most paused first), and
	// separately the queue-depth rows (the first congestion points seen);
	// 0: 40. At most RowsLimit.
	MaxRows int
	// Width of the picture; 0: 11 inches. At most MaxWidth.
	Width vg.Length
	// Height of the picture; 0: 0.3 inch per row and 1.4 inches for the
	// title, axis and legend, capped at MaxHeight. At most MaxHeight.
	Height vg.Length
	// Title; empty: "sfcdump timeline".
	Title string
}

// Check returns an error naming the option out of range: a width or
// height that is negative, not a number or over its maximum, or MaxRows
// negative or over RowsLimit.
func (o Options) Check() error {
	for _, d := range []struct {
		name string
		v    vg.Length
		max  vg.Length
	}{{"width", o.Width, MaxWidth}, {"height", o.Height, MaxHeight}} {
		v := float64(d.v)
		if math.IsNaN(v) || v < 0 || v > float64(d.max) {
			return fmt.Errorf("timeline: %s %g in: want more than 0 and at most %g in", d.name, v/float64(vg.Inch), float64(d.max/vg.Inch))
		}
	}
	if o.MaxRows < 0 || o.MaxRows > RowsLimit {
		return fmt.Errorf("timeline: %d rows: want 1 to %d", o.MaxRows, RowsLimit)
	}
	return nil
}

// maxRows is o.MaxRows with its default.
func (o Options) maxRows() int {
	if o.MaxRows <= 0 {
		return 40
	}
	return o.MaxRows
}

// drawnSeries returns the depth rows Render draws.
func (tl *Timeline) drawnSeries(o Options) []*series {
	return tl.series[:min(len(tl.series), o.maxRows())]
}

// Rows returns the labels of the rows Render draws, top to bottom: pause
// rows (flows, then interfaces and priorities, each group most paused
// first), then queue-depth rows ("depth <congestion point>").
func (tl *Timeline) Rows(o Options) []string {
	var out []string
	for _, r := range tl.drawn(o) {
		out = append(out, r.label)
	}
	for _, s := range tl.drawnSeries(o) {
		out = append(out, depthLabel(s))
	}
	return out
}

func depthLabel(s *series) string {
	return fmt.Sprintf("depth %s (max %d B)", s.label, s.max)
}

func (tl *Timeline) drawn(o Options) []*row {
	n := o.maxRows()
	rows := slices.Clone(tl.rows)
	slices.SortStableFunc(rows, func(a, b *row) int {
		if a.pfc != b.pfc {
			if a.pfc {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(b.pausedNS, a.pausedNS), cmp.Compare(b.signals, a.signals))
	})
	if len(rows) > n {
		// Keep the most paused overall, in their group order.
		keep := slices.Clone(rows)
		slices.SortStableFunc(keep, func(a, b *row) int { return cmp.Compare(b.pausedNS, a.pausedNS) })
		keep = keep[:n]
		rows = slices.DeleteFunc(rows, func(r *row) bool { return !slices.Contains(keep, r) })
	}
	return rows
}

// kindColors colours markers and bars by signal kind.
var kindColors = map[stats.Kind]color.RGBA{
	stats.KindBTS:      {R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	stats.KindCIM:      {R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	stats.KindDstPause: {R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	stats.KindPFC:      {R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	stats.KindPause:    {R: 0x17, G: 0xbe, B: 0xcf, A: 0xff},
}

var (
	flowBar  = color.RGBA{R: 0xf4, G: 0xa5, B: 0xa5, A: 0xff}
	pfcBar   = color.RGBA{R: 0xa6, G: 0xc8, B: 0xe6, A: 0xff}
	depthRGB = color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}
)

// unit picks the time unit of the axis for a span.
func unit(span int64) (float64, string) {
	switch {
	case span < 10e3:
		return 1, "ns"
	case span < 10e6:
		return 1e3, "µs"
	case span < 10e9:
		return 1e6, "ms"
	}
	return 1e9, "s"
}

// Render draws the timeline in format "svg" or "png" to w.
func (tl *Timeline) Render(w io.Writer, format string, o Options) error {
	format = strings.ToLower(format)
	if format != "svg" && format != "png" {
		return fmt.Errorf("timeline: format %q: want svg or png", format)
	}
	if err := o.Check(); err != nil {
		return err
	}
	rows := tl.drawn(o)
	ser := tl.drawnSeries(o)
	if len(rows)+len(ser) == 0 {
		return fmt.Errorf("timeline: nothing to draw: the capture holds no pause signal, PFC frame or queue depth")
	}
	return tl.render(w, format, o, rows, ser)
}
