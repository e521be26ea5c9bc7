// SPDX-License-Identifier: Apache-2.0

package timeline

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"slices"

	xfont "golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
	"gonum.org/v1/plot/vg"
)

// dpi is the resolution of a PNG, in pixels per inch: vgimg's default.
const dpi = 96

// stripPixels bounds the pixels a shape is rasterized in at a time: a
// shape is rasterized in strips of whole rows across its bounds, so that
// the rasterizer's buffers (8 bytes a pixel) stay at half a megabyte
// whatever the size of the picture and of the shape.
const stripPixels = 1 << 16

// pngPicture is a surface that draws into an RGBA image, written as PNG:
// dpi pixels per inch, shapes anti-aliased (golang.org/x/image/vector;
// what a shape covers whole is its colour exactly), text drawn with an
// OpenType face of the font at its size in pixels, unhinted.
type pngPicture struct {
	img   *image.RGBA
	scale float64 // pixels per point
	h     float64 // the picture's height in pixels
	z     vector.Rasterizer
	faces map[vg.Length]xfont.Face // by size
	err   error                    // the first error drawing, if any

	// The shape being drawn: closed paths in pixels, with their
	// vertical bounds.
	paths  [][]pixel
	ybound [][2]float32
}

// pixel is a point of the picture in pixels from its top left corner.
type pixel struct{ x, y float32 }

// newPNG returns a picture w by h, rounded to whole pixels as vgimg
// rounds them. Its pixels are transparent black until background.
func newPNG(w, h vg.Length) *pngPicture {
	pw := int(float64(w/vg.Inch*dpi) + 0.5)
	ph := int(float64(h/vg.Inch*dpi) + 0.5)
	return &pngPicture{
		img:   image.NewRGBA(image.Rect(0, 0, pw, ph)),
		scale: dpi / float64(vg.Inch),
		h:     float64(ph),
		faces: map[vg.Length]xfont.Face{},
	}
}

// px returns where p is in the picture in pixels.
func (p *pngPicture) px(q vg.Point) (x, y float64) {
	return float64(q.X) * p.scale, p.h - float64(q.Y)*p.scale
}

func (p *pngPicture) background(c color.RGBA) {
	pix := p.img.Pix
	for i := 0; i+3 < len(pix); i += 4 {
		pix[i], pix[i+1], pix[i+2], pix[i+3] = c.R, c.G, c.B, c.A
	}
}

func (p *pngPicture) fill(c color.RGBA, pts []vg.Point) {
	if len(pts) < 3 {
		return
	}
	path := make([]pixel, 0, len(pts))
	for _, q := range pts {
		x, y := p.px(q)
		path = append(path, pixel{float32(x), float32(y)})
	}
	p.add(path)
	p.paint(c)
}

// stroke draws the outline of the line as one closed path (two for a
// closed line: its outer and inner edges, turning opposite ways): each
// side offset half the width, joined round on the outer side of a turn.
// Inside a turn the offsets cross, making a small loop that turns the
// same way as the rest, inside the line: it is covered once. So every
// pixel is covered as much as the line covers it, not more where
// segments meet, as drawing each segment and join on its own would.
func (p *pngPicture) stroke(c color.RGBA, w vg.Length, closed bool, pts []vg.Point) {
	half := float64(w) * p.scale / 2
	if !(half > 0) {
		return
	}
	q := make([]point2, 0, len(pts))
	for _, v := range pts {
		x, y := p.px(v)
		if n := len(q); n == 0 || q[n-1] != (point2{x, y}) {
			q = append(q, point2{x, y})
		}
	}
	if closed && len(q) > 1 && q[0] == q[len(q)-1] {
		q = q[:len(q)-1]
	}
	if len(q) < 2 {
		return // nothing to see: caps are butt
	}
	closed = closed && len(q) > 2
	left := offset(nil, q, half, closed, true)
	r := slices.Clone(q)
	slices.Reverse(r)
	if closed {
		p.add(left)
		p.add(offset(nil, r, half, true, false))
	} else {
		p.add(offset(left, r, half, false, false))
	}
	p.paint(c)
}

// point2 is a point in pixels, in float64 for the geometry of strokes.
type point2 struct{ x, y float64 }

// offset appends to out one side of the line through q, from its first
// point to its last (and round to the first again, closed): each segment
// moved by half along its normal (its direction turned a quarter turn
// from x towards y), joined round about the point between two segments
// where the line turns away from this side, straight across where it
// turns towards it. Where the line comes back on itself, the side drawn
// with back is joined round, the other straight across: the round end is
// drawn once.
func offset(out []pixel, q []point2, half float64, closed, back bool) []pixel {
	segs := len(q) - 1
	if closed {
		segs = len(q)
	}
	normal := func(i int) point2 {
		a, b := q[i%len(q)], q[(i+1)%len(q)]
		dx, dy := b.x-a.x, b.y-a.y
		l := math.Hypot(dx, dy)
		return point2{-dy / l * half, dx / l * half}
	}
	for i := range segs {
		a, b := q[i], q[(i+1)%len(q)]
		n := normal(i)
		out = append(out, pixel{float32(a.x + n.x), float32(a.y + n.y)}, pixel{float32(b.x + n.x), float32(b.y + n.y)})
		if !closed && i == segs-1 {
			break
		}
		// The line turns away from this side where the cross product
		// of n and the next normal m is negative. Its sign alone
		// decides: the other side, drawn backwards, gets exactly the
		// opposite, so one side of a turn is joined round, never both
		// (an arc drawn over the other side's segments would paint
		// their anti-aliased edges twice).
		m := normal(i + 1)
		cross, dot := n.x*m.y-n.y*m.x, n.x*m.x+n.y*m.y
		var turn float64 // from n to m, round this side
		switch {
		case cross < 0:
			turn = math.Atan2(cross, dot)
		case cross == 0 && dot < 0 && back:
			turn = -math.Pi
		default:
			continue // towards this side, or straight on
		}
		a0 := math.Atan2(n.y, n.x)
		k := arcSteps(half, -turn)
		for j := 1; j < k; j++ {
			sin, cos := math.Sincos(a0 + turn*float64(j)/float64(k))
			out = append(out, pixel{float32(b.x + half*cos), float32(b.y + half*sin)})
		}
	}
	return out
}

// arcSteps returns in how many straight steps to draw an arc of radius r
// pixels and angle a radians: close enough to it (a hundredth of a
// pixel) to draw it.
func arcSteps(r, a float64) int {
	const tol = 0.01
	if !(r > tol) {
		return 1
	}
	return min(max(1, int(math.Ceil(a/math.Sqrt(8*tol/r)))), 4096)
}

// circle draws a disc, or a ring as a disc with a hole: an inner circle
// turning the other way.
func (p *pngPicture) circle(c color.RGBA, at vg.Point, r, w vg.Length) {
	x, y := p.px(at)
	if w <= 0 {
		p.add(polygon(x, y, float64(r)*p.scale))
	} else {
		p.add(polygon(x, y, float64(r+w/2)*p.scale))
		if in := float64(r-w/2) * p.scale; in > 0 {
			hole := polygon(x, y, in)
			slices.Reverse(hole)
			p.add(hole)
		}
	}
	p.paint(c)
}

// polygon returns a regular polygon inscribed in the circle of radius r
// centred on x, y, close enough to the circle to draw it; it turns as
// angles grow.
func polygon(x, y, r float64) []pixel {
	pts := make([]pixel, max(8, arcSteps(r, 2*math.Pi)))
	for i := range pts {
		s, c := math.Sincos(2 * math.Pi * float64(i) / float64(len(pts)))
		pts[i] = pixel{float32(x + r*c), float32(y + r*s)}
	}
	return pts
}

// add adds a closed path to the shape being drawn. The rasterizer adds
// up how many times paths wind round a pixel, turning one way or the
// other, and covers it whole for any number but 0 (it clamps the
// coverage it accumulates): paths turning the same way cover their
// union, a path turning the other way inside one makes a hole.
func (p *pngPicture) add(path []pixel) {
	lo, hi := path[0].y, path[0].y
	for _, a := range path {
		lo, hi = min(lo, a.y), max(hi, a.y)
	}
	p.paths = append(p.paths, path)
	p.ybound = append(p.ybound, [2]float32{lo, hi})
}

// paint draws the shape added in c, anti-aliased, and starts a new one.
func (p *pngPicture) paint(c color.RGBA) {
	defer func() { p.paths, p.ybound = p.paths[:0], p.ybound[:0] }()
	inf := float32(math.Inf(1))
	x0, y0, x1, y1 := inf, inf, -inf, -inf
	for _, path := range p.paths {
		for _, q := range path {
			x0, y0, x1, y1 = min(x0, q.x), min(y0, q.y), max(x1, q.x), max(y1, q.y)
		}
	}
	// The bounds in whole pixels, within the picture (clamped first:
	// a wild coordinate must not overflow an int).
	b := p.img.Rect
	clamp := func(v float32, lo, hi int) float32 { return min(max(v, float32(lo)), float32(hi)) }
	r := image.Rect(
		int(math.Floor(float64(clamp(x0, b.Min.X, b.Max.X)))), int(math.Floor(float64(clamp(y0, b.Min.Y, b.Max.Y)))),
		int(math.Ceil(float64(clamp(x1, b.Min.X, b.Max.X)))), int(math.Ceil(float64(clamp(y1, b.Min.Y, b.Max.Y)))),
	).Intersect(b)
	if r.Empty() {
		return
	}
	src := image.NewUniform(c)
	rows := max(1, stripPixels/r.Dx())
	for top := r.Min.Y; top < r.Max.Y; top += rows {
		bottom := min(top+rows, r.Max.Y)
		p.z.Reset(r.Dx(), bottom-top)
		for i, path := range p.paths {
			if yb := p.ybound[i]; yb[1] <= float32(top) || yb[0] >= float32(bottom) {
				continue // nothing of it in the strip
			}
			p.trace(path, float32(r.Min.X), float32(top), float32(bottom-top))
		}
		p.z.Draw(p.img, image.Rect(r.Min.X, top, r.Max.X, bottom), src, image.Point{})
	}
}

// trace adds the closed path to the rasterizer, moved by -ox, -oy, with
// what is above the strip from 0 to h down moved onto its top edge and
// what is below it onto its bottom edge (each edge cut where it crosses
// them). Flat there, those parts cover nothing, as they would not in the
// strip, and the rasterizer does not step through the rows they span: a
// tall shape would cost each of its strips all of its rows.
func (p *pngPicture) trace(path []pixel, ox, oy, h float32) {
	clamp := func(y float32) float32 { return min(max(y, 0), h) }
	a := pixel{path[0].x - ox, path[0].y - oy}
	p.z.MoveTo(a.x, clamp(a.y))
	for i := 1; i <= len(path); i++ {
		b := pixel{path[i%len(path)].x - ox, path[i%len(path)].y - oy}
		lims := [2]float32{0, h}
		if a.y > b.y {
			lims = [2]float32{h, 0}
		}
		for _, l := range lims {
			if (a.y < l) != (b.y < l) && a.y != l && b.y != l {
				p.z.LineTo(a.x+(l-a.y)/(b.y-a.y)*(b.x-a.x), l)
			}
		}
		p.z.LineTo(b.x, clamp(b.y))
		a = b
	}
}

func (p *pngPicture) text(f face, at vg.Point, s string) {
	ff, ok := p.faces[f.Font.Size]
	if !ok {
		var err error
		ff, err = opentype.NewFace(f.Face.Face, &opentype.FaceOptions{Size: float64(f.Font.Size), DPI: dpi, Hinting: xfont.HintingNone})
		if err != nil {
			if p.err == nil {
				p.err = fmt.Errorf("timeline: font: %w", err)
			}
			return
		}
		p.faces[f.Font.Size] = ff
	}
	x, y := p.px(at)
	d := xfont.Drawer{Dst: p.img, Src: image.Black, Face: ff, Dot: fixed.Point26_6{X: fixed.Int26_6(math.Round(x * 64)), Y: fixed.Int26_6(math.Round(y * 64))}}
	d.DrawString(s)
}

func (p *pngPicture) writeTo(w io.Writer) error {
	if p.err != nil {
		return p.err
	}
	return png.Encode(w, p.img)
}
