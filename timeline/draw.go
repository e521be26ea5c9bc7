// SPDX-License-Identifier: Apache-2.0

package timeline

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"sync"
	"time"

	"codeberg.org/go-fonts/liberation/liberationserifregular"
	"golang.org/x/image/font/opentype"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"

	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/stats"
)

// The drawing is laid out here and drawn on the package's own canvas
// (canvas.go, svg.go, png.go), rather than by gonum.org/v1/plot or on
// gonum's canvases: plot parses twelve TrueType fonts in its init and
// links PDF, EPS and LaTeX writers, and the canvases (vg/draw, vgsvg,
// vgimg) import go-latex, whose init parses fonts and builds symbol
// tables; a cost every sfcdump command paid at start-up although only
// timeline draws. gonum's lengths (vg) and font metrics (plot/font) are
// all that is used of it.

// serif is the one face drawn: Liberation Serif Regular, gonum's default.
var serif = font.Font{Typeface: "Liberation", Variant: "Serif"}

// Text sizes in points: gonum's defaults for the title, axis label and
// tick labels; row labels and legend smaller, to fit many rows.
const (
	titleSize  = 12
	labelSize  = 12
	tickSize   = 10
	rowSize    = 8
	legendSize = 8
)

// Lengths of the layout.
const (
	margin   = vg.Length(4)   // around the picture
	gap      = vg.Length(3)   // between a text and what it labels
	tickLen  = vg.Length(6)   // x-axis tick marks
	tickGap  = vg.Inch        // least space between x ticks
	titleGap = vg.Length(6)   // below the title
	thumbW   = vg.Length(20)  // the legend's glyph column
	markerR  = vg.Length(2.5) // signal markers
	depthR   = vg.Length(2)   // a lone queue-depth point
	barHalf  = 0.3            // half a bar's height, in rows
	minBar   = vg.Length(0.5) // narrowest bar: a pause shorter than a pixel still shows
	axisW    = vg.Length(0.5) // the axis and its ticks
	depthW   = vg.Length(1)   // queue-depth lines
)

var (
	black = color.RGBA{A: 0xff}
	white = color.RGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}
)

// fontCache parses the face drawn once, on the first Render, never at
// start-up.
var fontCache = sync.OnceValues(func() (*font.Cache, error) {
	f, err := opentype.Parse(liberationserifregular.TTF)
	if err != nil {
		return nil, fmt.Errorf("timeline: font: %w", err)
	}
	return font.NewCache(font.Collection{{Font: serif, Face: f}}), nil
})

// face is a font at one size with its vertical metrics.
type face struct {
	font.Face
	asc, desc vg.Length
}

func newFace(c *font.Cache, size float64) face {
	f := c.Lookup(serif, font.Points(size))
	e := f.Extents()
	return face{f, e.Ascent, e.Descent}
}

// text draws s in black with its baseline at y; align is the fraction of
// its width left of x: 0 starts it at x, 0.5 centres it, 1 ends it there.
func (f face) text(c surface, x, y vg.Length, align float64, s string) {
	if s == "" {
		return
	}
	c.text(f, vg.Point{X: x - vg.Length(align)*f.Width(s), Y: y}, s)
}

// step is a tick step: mul (1, 2 or 5) times ten to the exp.
type step struct{ mul, exp int }

func (s step) value() float64 { return float64(s.mul) * math.Pow10(s.exp) }

func (s step) next() step {
	switch s.mul {
	case 1:
		return step{2, s.exp}
	case 2:
		return step{5, s.exp}
	}
	return step{1, s.exp + 1}
}

func (s step) prev() step {
	switch s.mul {
	case 5:
		return step{2, s.exp}
	case 2:
		return step{1, s.exp}
	}
	return step{5, s.exp - 1}
}

// stepAtLeast returns the least step not under v > 0.
func stepAtLeast(v float64) step {
	s := step{1, int(math.Floor(math.Log10(v)))}
	for s.value() < v*(1-1e-9) {
		s = s.next()
	}
	return s
}

// ticks returns the x ticks from 0 to xmax > 0 drawn across width, and
// their labels: a step apart that leaves tickGap between ticks (at most
// xmax, so that two ticks show), or more when their labels would touch.
func ticks(xmax float64, width vg.Length, f face) ([]float64, []string) {
	raw := xmax
	if width > tickGap {
		raw = xmax * float64(tickGap/width)
	}
	s := stepAtLeast(raw)
	most := stepAtLeast(xmax)
	if most.value() > xmax*(1+1e-9) {
		most = most.prev()
	}
	if most.value() < s.value() {
		s = most
	}
	for ; ; s = s.next() {
		v := s.value()
		var vals []float64
		var labels []string
		var widest vg.Length
		for k := 0; float64(k)*v <= xmax*(1+1e-9); k++ {
			l := "0"
			if k > 0 {
				l = strconv.FormatFloat(float64(k)*v, 'f', max(0, -s.exp), 64)
			}
			vals, labels = append(vals, float64(k)*v), append(labels, l)
			widest = max(widest, f.Width(l))
		}
		if len(vals) < 2 || vg.Length(v/xmax)*width >= widest+2*gap {
			return vals, labels
		}
	}
}

// legendEntry is a line of the legend: a label and its glyph.
type legendEntry struct {
	label string
	glyph glyph
}

// render lays out and draws the picture; Render has checked its input.
func (tl *Timeline) render(w io.Writer, format string, o Options, rows []*row, ser []*series) error {
	fonts, err := fontCache()
	if err != nil {
		return err
	}
	titleF, labelF, tickF := newFace(fonts, titleSize), newFace(fonts, labelSize), newFace(fonts, tickSize)
	rowF, legendF := newFace(fonts, rowSize), newFace(fonts, legendSize)

	nrows := len(rows) + len(ser)
	width := o.Width
	if width == 0 {
		width = 11 * vg.Inch
	}
	height := o.Height
	if height == 0 {
		height = min(vg.Length(nrows)*0.3*vg.Inch+1.4*vg.Inch, MaxHeight)
	}
	var c surface
	if format == "png" {
		c = newPNG(width, height)
	} else {
		c = newSVG(width, height)
	}
	c.background(white)

	title := dissect.Escape(o.Title)
	if title == "" {
		title = "sfcdump timeline"
	}
	span := tl.last - tl.first
	div, unitName := unit(max(span, 1))
	x := func(t int64) float64 { return float64(t-tl.first) / div }
	xmax := x(tl.last)
	if xmax <= 0 {
		xmax = 1
	}
	xlabel := fmt.Sprintf("time since %s (%s)", time.Unix(0, tl.first).UTC().Format(time.RFC3339Nano), unitName)
	labels := make([]string, 0, nrows)
	for _, r := range rows {
		labels = append(labels, r.label)
	}
	for _, s := range ser {
		labels = append(labels, depthLabel(s))
	}

	// The data area: below the title, above the x axis and its labels,
	// right of the widest row label and clear of a marker at time 0.
	var labelW vg.Length
	for _, l := range labels {
		labelW = max(labelW, rowF.Width(l))
	}
	top := height - margin - titleF.asc - titleF.desc - titleGap
	bottom := margin + labelF.asc + labelF.desc + gap + tickF.asc + tickF.desc + gap + tickLen
	left := margin + labelW + gap + markerR
	right := width - margin
	tickV, tickL := ticks(xmax, right-left, tickF)
	// The first and last tick labels are centred on their ticks.
	left = max(left, margin+tickF.Width(tickL[0])/2)
	right -= tickF.Width(tickL[len(tickL)-1]) / 2
	data := area{c, vg.Rectangle{Min: vg.Point{X: left, Y: bottom}, Max: vg.Point{X: right, Y: top}}}
	tx := func(v float64) vg.Length { return left + vg.Length(v/xmax)*(right-left) }
	band := (top - bottom) / vg.Length(nrows)
	// ty is the height of row i at v rows above its centre; the first
	// row is on top.
	ty := func(i int, v float64) vg.Length { return top - (vg.Length(i)+0.5-vg.Length(v))*band }

	titleF.text(c, width/2, height-margin-titleF.asc, 0.5, title)
	c.stroke(black, axisW, false, []vg.Point{{X: left, Y: bottom}, {X: right, Y: bottom}})
	for k, v := range tickV {
		xt := tx(v)
		c.stroke(black, axisW, false, []vg.Point{{X: xt, Y: bottom}, {X: xt, Y: bottom - tickLen}})
		tickF.text(c, xt, bottom-tickLen-gap-tickF.asc, 0.5, tickL[k])
	}
	labelF.text(c, (left+right)/2, margin+labelF.desc, 0.5, xlabel)
	for i, l := range labels {
		rowF.text(c, left-markerR-gap, ty(i, 0)-(rowF.asc-rowF.desc)/2, 1, l)
	}

	if right > left && top > bottom {
		drawData(data, rows, ser, func(t int64) vg.Length { return tx(x(t)) }, ty)
	}

	entries := make([]legendEntry, 0, int(stats.KindPause-stats.KindBTS)+3)
	for k := stats.KindBTS; k <= stats.KindPause; k++ {
		entries = append(entries, legendEntry{k.String() + " signal", glyph{disc, kindColors[k], markerR}})
	}
	entries = append(entries, legendEntry{"resume", glyph{ring, black, markerR}})
	if len(tl.series) > 0 {
		entries = append(entries, legendEntry{"queue depth", glyph{square, depthRGB, depthR}})
	}
	// The legend: top right of the data area, a glyph right of each label.
	space := legendF.Width(" ")
	enth := legendF.asc + legendF.desc
	for i, e := range entries {
		base := top - vg.Length(i+1)*enth + legendF.desc
		legendF.text(c, right-thumbW-space, base, 1, e.label)
		drawGlyph(c, e.glyph, vg.Point{X: right - thumbW/2, Y: base + (legendF.asc-legendF.desc)/2})
	}

	if err := c.writeTo(w); err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	return nil
}

// drawData draws the bars, markers and depth lines of the rows in c,
// clipped to it; xt places a time, ty a height in a row.
func drawData(c area, rows []*row, ser []*series, xt func(int64) vg.Length, ty func(int, float64) vg.Length) {
	for i, r := range rows {
		bar := flowBar
		if r.pfc {
			bar = pfcBar
		}
		y0, y1 := ty(i, -barHalf), ty(i, barHalf)
		for _, iv := range r.intervals {
			x0, x1 := xt(iv.from), xt(iv.to)
			x1 = max(x1, x0+minBar)
			c.fillPolygon(bar, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		}
		for _, m := range r.markers {
			g := glyph{disc, kindColors[m.kind], markerR}
			if m.resume {
				g.shape = ring
			}
			c.drawGlyph(g, vg.Point{X: xt(m.t), Y: ty(i, 0)}) // only if its centre is in c
		}
	}
	for j, s := range ser {
		i := len(rows) + j
		scale := float64(max(s.max, 1))
		line := make([]vg.Point, 0, len(s.points))
		for _, pt := range s.points {
			line = append(line, vg.Point{X: xt(pt.t), Y: ty(i, -barHalf+2*barHalf*float64(pt.v)/scale)})
		}
		switch len(line) {
		case 0:
		case 1:
			c.drawGlyph(glyph{square, depthRGB, depthR}, line[0])
		default:
			c.strokeLine(depthRGB, depthW, line)
		}
	}
}
