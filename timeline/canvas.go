// SPDX-License-Identifier: Apache-2.0

package timeline

import (
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot/vg"
)

// The timeline draws on a canvas of its own: the few primitives it needs
// (a background, polygons, lines, three glyphs, lines of text), written as
// SVG (svg.go) or rasterized into an RGBA image written as PNG (png.go).
// gonum's canvases (vg/draw, vgsvg, vgimg) import gonum.org/v1/plot/text
// and with it the go-latex packages, whose init parses fonts and builds
// symbol tables: some 2.6 ms of start-up that every sfcdump command paid
// although only timeline draws. Only gonum's lengths (vg) and font
// metrics (gonum.org/v1/plot/font) are used.

// surface is a picture being drawn: an SVG document or an RGBA image.
// Coordinates are in points from the bottom left corner of the picture.
// Nothing is clipped but to the picture: area clips to the data area.
type surface interface {
	// background paints the whole picture c.
	background(c color.RGBA)
	// fill fills the polygon through pts (closed: its last point joins
	// its first) with c; it draws nothing for fewer than three points.
	fill(c color.RGBA, pts []vg.Point)
	// stroke draws the line through pts in c, w wide, with butt caps and
	// round joins; closed, the last point joins the first.
	stroke(c color.RGBA, w vg.Length, closed bool, pts []vg.Point)
	// circle fills the disc of radius r centred on at with c or, w > 0,
	// strokes its circle w wide.
	circle(c color.RGBA, at vg.Point, r, w vg.Length)
	// text draws s in black in f, its baseline starting at at.
	text(f face, at vg.Point, s string)
	// writeTo writes the picture to w.
	writeTo(w io.Writer) error
}

// shape is the shape of a glyph.
type shape uint8

const (
	disc   shape = iota // a filled circle
	ring                // a circle's outline, glyphLine wide
	square              // a square's outline, glyphLine wide
)

// glyphLine is how wide the outline of a ring or square is drawn.
const glyphLine = vg.Length(0.5)

// glyph is a marker: a shape of radius r in a colour.
type glyph struct {
	shape  shape
	colour color.RGBA
	r      vg.Length
}

// drawGlyph draws g centred on at, unclipped. A square's half side is
// half-way between those of the squares inscribed in and circumscribing
// the circle of radius g.r, as gonum's SquareGlyph.
func drawGlyph(s surface, g glyph, at vg.Point) {
	switch g.shape {
	case disc:
		s.circle(g.colour, at, g.r, 0)
	case ring:
		s.circle(g.colour, at, g.r, glyphLine)
	case square:
		h := g.r * (1 + math.Sqrt2/2) / 2
		s.stroke(g.colour, glyphLine, true, []vg.Point{
			{X: at.X - h, Y: at.Y - h}, {X: at.X + h, Y: at.Y - h},
			{X: at.X + h, Y: at.Y + h}, {X: at.X - h, Y: at.Y + h},
		})
	}
}

// slop is how far outside a rectangle a point still counts as in it: the
// rounding of the layout's arithmetic, so that a marker at the last time
// drawn, on the right edge, is not lost.
const slop = 1e-6

// area is the data area of a picture: what is drawn through it is clipped
// to r.
type area struct {
	s surface
	r vg.Rectangle
}

// fillPolygon fills the part of the polygon through pts inside the area.
func (a area) fillPolygon(c color.RGBA, pts []vg.Point) {
	a.s.fill(c, clipPolygon(a.r, pts))
}

// strokeLine draws the parts of the line through pts inside the area.
func (a area) strokeLine(c color.RGBA, w vg.Length, pts []vg.Point) {
	for _, l := range clipLine(a.r, pts) {
		a.s.stroke(c, w, false, l)
	}
}

// drawGlyph draws g centred on at if at is in the area, whole even if it
// reaches out of it; nothing otherwise.
func (a area) drawGlyph(g glyph, at vg.Point) {
	if contains(a.r, at) {
		drawGlyph(a.s, g, at)
	}
}

// contains reports whether p is in r, edges included (give or take slop).
func contains(r vg.Rectangle, p vg.Point) bool {
	return p.X >= r.Min.X-slop && p.X <= r.Max.X+slop && p.Y >= r.Min.Y-slop && p.Y <= r.Max.Y+slop
}

// clipPolygon returns the polygon through pts cut to r (Sutherland and
// Hodgman: against each edge of r in turn); fewer than three points when
// nothing of it is inside.
func clipPolygon(r vg.Rectangle, pts []vg.Point) []vg.Point {
	for _, e := range [...]struct {
		y     bool      // the edge is horizontal: it limits Y, else X
		limit vg.Length // where
		below bool      // in is at most limit, else at least
	}{{false, r.Min.X, false}, {false, r.Max.X, true}, {true, r.Min.Y, false}, {true, r.Max.Y, true}} {
		if len(pts) == 0 {
			break
		}
		coord := func(p vg.Point) vg.Length {
			if e.y {
				return p.Y
			}
			return p.X
		}
		in := func(p vg.Point) bool {
			if e.below {
				return coord(p) <= e.limit
			}
			return coord(p) >= e.limit
		}
		// cross is where segment ab, whose ends are either side, meets
		// the edge: exactly on it whatever the rounding.
		cross := func(a, b vg.Point) vg.Point {
			t := (e.limit - coord(a)) / (coord(b) - coord(a))
			if e.y {
				return vg.Point{X: a.X + t*(b.X-a.X), Y: e.limit}
			}
			return vg.Point{X: e.limit, Y: a.Y + t*(b.Y-a.Y)}
		}
		out := make([]vg.Point, 0, len(pts)+1)
		prev := pts[len(pts)-1]
		for _, cur := range pts {
			switch curIn, prevIn := in(cur), in(prev); {
			case curIn && prevIn:
				out = append(out, cur)
			case curIn:
				out = append(out, cross(prev, cur), cur)
			case prevIn:
				out = append(out, cross(prev, cur))
			}
			prev = cur
		}
		pts = out
	}
	return pts
}

// clipLine returns the parts of the line through pts inside r (each
// segment cut by Liang and Barsky's method; consecutive parts that meet
// stay one line).
func clipLine(r vg.Rectangle, pts []vg.Point) [][]vg.Point {
	var lines [][]vg.Point
	var cur []vg.Point
	for i := 1; i < len(pts); i++ {
		a, b, ok := clipSegment(r, pts[i-1], pts[i])
		if !ok || len(cur) > 0 && cur[len(cur)-1] != a {
			if len(cur) > 1 {
				lines = append(lines, cur)
			}
			cur = nil
		}
		if ok {
			if len(cur) == 0 {
				cur = append(cur, a)
			}
			cur = append(cur, b)
		}
	}
	if len(cur) > 1 {
		lines = append(lines, cur)
	}
	return lines
}

// clipSegment returns the part of segment ab inside r, and false if none
// is. An end inside r is returned as it is.
func clipSegment(r vg.Rectangle, a, b vg.Point) (vg.Point, vg.Point, bool) {
	t0, t1 := 0.0, 1.0
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	// For each edge: the segment's run towards outside (p) and a's
	// distance inside (q).
	for _, e := range [...][2]float64{
		{-dx, float64(a.X - r.Min.X)},
		{dx, float64(r.Max.X - a.X)},
		{-dy, float64(a.Y - r.Min.Y)},
		{dy, float64(r.Max.Y - a.Y)},
	} {
		p, q := e[0], e[1]
		switch {
		case p == 0:
			if q < 0 {
				return a, b, false
			}
		case p < 0:
			t0 = max(t0, q/p)
		default:
			t1 = min(t1, q/p)
		}
	}
	if t0 > t1 {
		return a, b, false
	}
	at := func(t float64) vg.Point {
		switch t {
		case 0:
			return a
		case 1:
			return b
		}
		return vg.Point{X: a.X + vg.Length(t*dx), Y: a.Y + vg.Length(t*dy)}
	}
	return at(t0), at(t1), true
}
