// SPDX-License-Identifier: Apache-2.0

package timeline

import (
	"bytes"
	"image"
	"image/color"
	"io"
	"math"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	xfont "golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot/vg"
)

var red = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}

func TestClipPolygon(t *testing.T) {
	r := vg.Rectangle{Min: vg.Point{X: 10, Y: 10}, Max: vg.Point{X: 30, Y: 20}}
	bar := func(x0, y0, x1, y1 vg.Length) []vg.Point {
		return []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
	}
	for _, tc := range []struct {
		name string
		in   []vg.Point
		want vg.Rectangle // bounds of what is left; empty: nothing
	}{
		{"inside", bar(12, 12, 28, 18), vg.Rectangle{Min: vg.Point{X: 12, Y: 12}, Max: vg.Point{X: 28, Y: 18}}},
		{"across the right edge", bar(25, 12, 40, 18), vg.Rectangle{Min: vg.Point{X: 25, Y: 12}, Max: vg.Point{X: 30, Y: 18}}},
		{"across the left edge", bar(0, 12, 15, 18), vg.Rectangle{Min: vg.Point{X: 10, Y: 12}, Max: vg.Point{X: 15, Y: 18}}},
		{"over it all", bar(0, 0, 40, 40), r},
		{"across top and bottom", bar(12, 0, 14, 40), vg.Rectangle{Min: vg.Point{X: 12, Y: 10}, Max: vg.Point{X: 14, Y: 20}}},
		{"right of it", bar(31, 12, 40, 18), vg.Rectangle{}},
		{"below it", bar(12, 0, 28, 9), vg.Rectangle{}},
	} {
		got := clipPolygon(r, tc.in)
		if tc.want == (vg.Rectangle{}) {
			if len(got) >= 3 {
				t.Errorf("%s: %v left, want nothing", tc.name, got)
			}
			continue
		}
		if len(got) < 3 {
			t.Errorf("%s: nothing left", tc.name)
			continue
		}
		b := vg.Rectangle{Min: got[0], Max: got[0]}
		for _, p := range got {
			b.Min.X, b.Min.Y = min(b.Min.X, p.X), min(b.Min.Y, p.Y)
			b.Max.X, b.Max.Y = max(b.Max.X, p.X), max(b.Max.Y, p.Y)
			if p != b.Min && p != b.Max && p.X != b.Min.X && p.X != b.Max.X && p.Y != b.Min.Y && p.Y != b.Max.Y {
				t.Errorf("%s: %v is not a corner", tc.name, p)
			}
		}
		if b != tc.want {
			t.Errorf("%s: %v left, bounds %v; want %v", tc.name, got, b, tc.want)
		}
	}
	// Inside: as it is.
	if in := bar(12, 12, 28, 18); !slices.Equal(clipPolygon(r, in), in) {
		t.Errorf("inside: %v, want %v", clipPolygon(r, in), in)
	}
}

func TestClipLine(t *testing.T) {
	r := vg.Rectangle{Min: vg.Point{X: 10, Y: 10}, Max: vg.Point{X: 30, Y: 20}}
	pt := func(x, y vg.Length) vg.Point { return vg.Point{X: x, Y: y} }
	for _, tc := range []struct {
		name string
		in   []vg.Point
		want [][]vg.Point
	}{
		{"inside, as it is", []vg.Point{pt(11, 11), pt(15, 19), pt(29, 12)}, [][]vg.Point{{pt(11, 11), pt(15, 19), pt(29, 12)}}},
		{"in, out and in again", []vg.Point{pt(0, 15), pt(20, 15), pt(40, 15), pt(20, 16)},
			[][]vg.Point{{pt(10, 15), pt(20, 15), pt(30, 15)}, {pt(30, 15.5), pt(20, 16)}}},
		{"across a corner", []vg.Point{pt(25, 25), pt(35, 15)}, [][]vg.Point{{pt(30, 20), pt(30, 20)}}},
		{"through top and bottom", []vg.Point{pt(20, 0), pt(20, 40)}, [][]vg.Point{{pt(20, 10), pt(20, 20)}}},
		{"outside", []vg.Point{pt(0, 0), pt(40, 0), pt(40, 40)}, nil},
		{"one point", []vg.Point{pt(15, 15)}, nil},
	} {
		got := clipLine(r, tc.in)
		if !slices.EqualFunc(got, tc.want, func(a, b []vg.Point) bool {
			return slices.EqualFunc(a, b, func(p, q vg.Point) bool {
				return math.Abs(float64(p.X-q.X)) < 1e-9 && math.Abs(float64(p.Y-q.Y)) < 1e-9
			})
		}) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// svgPoints returns the points of an SVG path's data (its arcs' radii
// left out).
func svgPoints(t *testing.T, d string) []vg.Point {
	t.Helper()
	var out []vg.Point
	d = regexp.MustCompile(`A[^ ]* 0 1 1 `).ReplaceAllString(d, "A")
	for _, m := range regexp.MustCompile(`(-?[0-9.e+-]+),(-?[0-9.e+-]+)`).FindAllStringSubmatch(d, -1) {
		x, err1 := strconv.ParseFloat(m[1], 64)
		y, err2 := strconv.ParseFloat(m[2], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("path data %q", d)
		}
		out = append(out, vg.Point{X: vg.Length(x), Y: vg.Length(y)})
	}
	return out
}

var svgPath = regexp.MustCompile(`<path d="([^"]*)" style="([^"]*)" />`)

// TestAreaSVG: a bar and a line crossing the data area's edge are cut at
// it; a glyph is drawn whole if its centre is in the area, not at all
// otherwise.
func TestAreaSVG(t *testing.T) {
	r := vg.Rectangle{Min: vg.Point{X: 15, Y: 15}, Max: vg.Point{X: 45, Y: 45}}
	for _, tc := range []struct {
		name   string
		draw   func(a area)
		bounds vg.Rectangle // of the path drawn; empty: none
		style  string
	}{
		{"bar", func(a area) {
			a.fillPolygon(flowBar, []vg.Point{{X: 7.5, Y: 22.5}, {X: 60, Y: 22.5}, {X: 60, Y: 37.5}, {X: 7.5, Y: 37.5}})
		}, vg.Rectangle{Min: vg.Point{X: 15, Y: 22.5}, Max: vg.Point{X: 45, Y: 37.5}}, "fill:#F4A5A5"},
		{"bar outside", func(a area) {
			a.fillPolygon(flowBar, []vg.Point{{X: 46, Y: 22.5}, {X: 60, Y: 22.5}, {X: 60, Y: 37.5}, {X: 46, Y: 37.5}})
		}, vg.Rectangle{}, ""},
		{"line", func(a area) {
			a.strokeLine(depthRGB, 1, []vg.Point{{X: 0, Y: 30}, {X: 75, Y: 40}})
		}, vg.Rectangle{Min: vg.Point{X: 15, Y: 32}, Max: vg.Point{X: 45, Y: 36}}, "fill:none;stroke:#2CA02C;stroke-width:1;stroke-linejoin:round"},
		{"glyph on the edge", func(a area) {
			a.drawGlyph(glyph{disc, red, 2.5}, vg.Point{X: 45, Y: 30})
		}, vg.Rectangle{Min: vg.Point{X: 42.5, Y: 30}, Max: vg.Point{X: 47.5, Y: 30}}, "fill:#D62728"},
		{"glyph outside", func(a area) {
			a.drawGlyph(glyph{disc, red, 2.5}, vg.Point{X: 45.5, Y: 30})
		}, vg.Rectangle{}, ""},
		{"glyph below", func(a area) {
			a.drawGlyph(glyph{ring, red, 2.5}, vg.Point{X: 30, Y: 14.5})
		}, vg.Rectangle{}, ""},
	} {
		p := newSVG(75, 60)
		tc.draw(area{p, r})
		var b bytes.Buffer
		if err := p.writeTo(&b); err != nil {
			t.Fatal(err)
		}
		texts(t, b.Bytes()) // well-formed
		paths := svgPath.FindAllStringSubmatch(b.String(), -1)
		if tc.bounds == (vg.Rectangle{}) {
			if len(paths) != 0 {
				t.Errorf("%s: drew %q", tc.name, paths)
			}
			continue
		}
		if len(paths) != 1 {
			t.Errorf("%s: %d paths, want 1: %s", tc.name, len(paths), b.Bytes())
			continue
		}
		pts := svgPoints(t, paths[0][1])
		got := vg.Rectangle{Min: pts[0], Max: pts[0]}
		for _, p := range pts {
			got.Min.X, got.Min.Y = min(got.Min.X, p.X), min(got.Min.Y, p.Y)
			got.Max.X, got.Max.Y = max(got.Max.X, p.X), max(got.Max.Y, p.Y)
		}
		if got != tc.bounds || paths[0][2] != tc.style {
			t.Errorf("%s: path %q bounds %v style %q; want %v and %q", tc.name, paths[0][1], got, paths[0][2], tc.bounds, tc.style)
		}
	}
}

// TestAreaPNG: as TestAreaSVG, in pixels. The picture is 100 x 80
// pixels, the area 20 to 60 across and down: its edges are on pixel
// edges, so the pixels along them are covered whole or not at all.
func TestAreaPNG(t *testing.T) {
	r := vg.Rectangle{Min: vg.Point{X: 15, Y: 15}, Max: vg.Point{X: 45, Y: 45}}
	white := color.RGBA{0xff, 0xff, 0xff, 0xff}
	type px struct {
		x, y int
		c    color.RGBA
	}
	for _, tc := range []struct {
		name string
		draw func(a area)
		want []px
		none color.RGBA // no pixel of this colour, if not zero
	}{
		// From 10 to 80 across and 30 to 50 down, unclipped.
		{"bar", func(a area) {
			a.fillPolygon(flowBar, []vg.Point{{X: 7.5, Y: 22.5}, {X: 60, Y: 22.5}, {X: 60, Y: 37.5}, {X: 7.5, Y: 37.5}})
		}, []px{{19, 40, white}, {20, 40, flowBar}, {59, 40, flowBar}, {60, 40, white}, {70, 40, white}, {40, 29, white}, {40, 30, flowBar}, {40, 49, flowBar}, {40, 50, white}}, color.RGBA{}},
		// Across the picture, 38 to 42 down.
		{"line", func(a area) {
			a.strokeLine(depthRGB, 3, []vg.Point{{X: 0, Y: 30}, {X: 75, Y: 30}})
		}, []px{{19, 40, white}, {20, 40, depthRGB}, {59, 40, depthRGB}, {60, 40, white}, {40, 37, white}, {40, 38, depthRGB}, {40, 41, depthRGB}, {40, 42, white}}, color.RGBA{}},
		// Centred on the right edge at 60, 40: whole, 3.3 pixels across.
		{"glyph on the edge", func(a area) {
			a.drawGlyph(glyph{disc, red, 2.5}, vg.Point{X: 45, Y: 30})
		}, []px{{59, 39, red}, {60, 40, red}, {61, 39, red}, {64, 40, white}}, color.RGBA{}},
		{"glyph outside", func(a area) {
			a.drawGlyph(glyph{disc, red, 2.5}, vg.Point{X: 45.5, Y: 30})
		}, nil, red},
		{"glyph above", func(a area) {
			a.drawGlyph(glyph{disc, red, 2.5}, vg.Point{X: 30, Y: 45.5})
		}, nil, red},
	} {
		p := newPNG(75, 60)
		if b := p.img.Bounds(); b.Dx() != 100 || b.Dy() != 80 {
			t.Fatalf("picture %v, want 100 x 80", b)
		}
		p.background(white)
		tc.draw(area{p, r})
		for _, w := range tc.want {
			if got := p.img.RGBAAt(w.x, w.y); got != w.c {
				t.Errorf("%s: pixel %d,%d is %v, want %v", tc.name, w.x, w.y, got, w.c)
			}
		}
		if tc.none != (color.RGBA{}) {
			for i := 0; i < len(p.img.Pix); i += 4 {
				if p.img.Pix[i] != 0xff || p.img.Pix[i+1] != 0xff || p.img.Pix[i+2] != 0xff {
					t.Errorf("%s: pixel %d is %v, want white throughout", tc.name, i/4, p.img.Pix[i:i+4])
					break
				}
			}
		}
	}
}

// TestGlyphsPNG: a disc is filled, a ring and a square are outlines,
// hollow; drawn without an area, a glyph is not clipped.
func TestGlyphsPNG(t *testing.T) {
	white := color.RGBA{0xff, 0xff, 0xff, 0xff}
	for _, tc := range []struct {
		g       glyph
		centre  color.RGBA // at 0 and 4 pixels right of the centre
		outline int        // pixels right of the centre: ink
	}{
		{glyph{disc, red, 6}, red, 0},          // radius 8 pixels
		{glyph{ring, red, 6}, white, 8},        // 7.7 to 8.3 pixels
		{glyph{square, depthRGB, 6}, white, 6}, // half side 6.8 pixels
	} {
		// Centred on the centre of pixel 40, 40.
		p := newPNG(75, 60)
		p.background(white)
		drawGlyph(p, tc.g, vg.Point{X: vg.Length(40.5 / p.scale), Y: vg.Length((p.h - 40.5) / p.scale)})
		for _, dx := range []int{0, 4} {
			if got := p.img.RGBAAt(40+dx, 40); got != tc.centre {
				t.Errorf("shape %d: %d pixels right of the centre %v, want %v", tc.g.shape, dx, got, tc.centre)
			}
		}
		if tc.outline > 0 {
			if got := p.img.RGBAAt(40+tc.outline, 40); got == white {
				t.Errorf("shape %d: no ink %d pixels right of the centre", tc.g.shape, tc.outline)
			}
		}
		if got := p.img.RGBAAt(50, 40); got != white {
			t.Errorf("shape %d: 10 pixels right of the centre %v, want white", tc.g.shape, got)
		}
	}
	// Unclipped: half out of the picture, half drawn.
	p := newPNG(75, 60)
	p.background(white)
	drawGlyph(p, glyph{disc, red, 6}, vg.Point{X: 0, Y: 30})
	if got := p.img.RGBAAt(2, 40); got != red {
		t.Errorf("glyph on the picture's edge: %v, want %v", got, red)
	}
}

// TestStrokePNG: a line's segments and joins are drawn as one shape: where
// they overlap is the colour exactly, neither missing nor blended twice.
func TestStrokePNG(t *testing.T) {
	white := color.RGBA{0xff, 0xff, 0xff, 0xff}
	translucent := color.RGBA{R: 0x80, A: 0x80} // premultiplied: half red
	for _, closed := range []bool{false, true} {
		p := newPNG(75, 60)
		p.background(white)
		// A zigzag 6 points wide (8 pixels), and a square outline.
		pts := []vg.Point{{X: 10, Y: 10}, {X: 30, Y: 50}, {X: 50, Y: 10}, {X: 50, Y: 50}}
		if closed {
			pts = []vg.Point{{X: 15, Y: 15}, {X: 45, Y: 15}, {X: 45, Y: 45}, {X: 15, Y: 45}}
		}
		p.stroke(translucent, 6, closed, pts)
		once := color.RGBA{R: 0xff, G: 0x7f, B: 0x7f, A: 0xff} // half red over white
		for _, q := range pts {
			x, y := p.px(q)
			if got := p.img.RGBAAt(int(x), int(y)); got != once && (closed || q != pts[0] && q != pts[len(pts)-1]) {
				t.Errorf("closed %v: join at %v is %v, want %v", closed, q, got, once)
			}
		}
		// Nothing painted twice anywhere.
		for i := 0; i < len(p.img.Pix); i += 4 {
			if p.img.Pix[i+1] < once.G || p.img.Pix[i+2] < once.B {
				t.Errorf("closed %v: pixel %d is %v, darker than once %v", closed, i/4, p.img.Pix[i:i+4], once)
				break
			}
		}
		if closed {
			// The outline is hollow; its corners are joined outside
			// the two sides' ends (2.8 pixels out of 4 diagonally).
			if got := p.img.RGBAAt(50, 40); got != white {
				t.Errorf("square outline: centre %v, want white", got)
			}
			for _, q := range []image.Point{{18, 61}, {61, 18}} {
				if got := p.img.RGBAAt(q.X, q.Y); got != once {
					t.Errorf("square outline: corner pixel %v is %v, want %v", q, got, once)
				}
			}
			// Round: reaching 4 pixels out diagonally, past a bevel.
			if got := p.img.RGBAAt(17, 62); got.G > 0xf0 {
				t.Errorf("square outline: pixel 17,62 out of its corner is %v: not joined round", got)
			}
		}
	}
}

// TestStrokeJoinsPNG: a line through points in a row is drawn as the one
// segment from its first to its last point, with as much ink: its
// anti-aliased edges are not painted twice where segments meet (the
// rasterizer's fixed-point steps along a long edge put a pixel's ink a
// few percent one way or the other); a line that comes back on itself
// turns round, drawn once.
func TestStrokeJoinsPNG(t *testing.T) {
	white := color.RGBA{0xff, 0xff, 0xff, 0xff}
	draw := func(c color.RGBA, w vg.Length, pts ...vg.Point) *image.RGBA {
		p := newPNG(75, 60)
		p.background(white)
		p.stroke(c, w, false, pts)
		return p.img
	}
	// Rounding leaves some of these joins a hair's breadth off straight
	// (the products deciding which way a line turns come out -1e-16 or
	// 0): neither side may be joined round.
	var row []vg.Point
	for i := range 41 {
		row = append(row, vg.Point{X: vg.Length(10 + 1.25*float64(i)), Y: vg.Length(10 + 1.025*float64(i))})
	}
	one, many := draw(depthRGB, 1, row[0], row[len(row)-1]), draw(depthRGB, 1, row...)
	// ink is how many pixels' worth of the line's colour img holds.
	ink := func(img *image.RGBA) float64 {
		var sum float64
		for i := 0; i < len(img.Pix); i += 4 {
			sum += float64(0xff-img.Pix[i+1]) / float64(0xff-depthRGB.G)
		}
		return sum
	}
	worst := 0
	for i := range one.Pix {
		worst = max(worst, int(one.Pix[i])-int(many.Pix[i]), int(many.Pix[i])-int(one.Pix[i]))
	}
	// 86 pixels long, 1.33 wide.
	if a, b := ink(one), ink(many); worst > 16 || math.Abs(a-b) > 0.003*a || a < 100 {
		t.Errorf("a line through %d points in a row: %.2f pixels of ink, the one segment %.2f; a channel differs by %d", len(row), b, a, worst)
	}

	// 6 points wide, back at 40 points across (53.3 pixels, 40 down).
	translucent := color.RGBA{R: 0x80, A: 0x80}
	once := color.RGBA{R: 0xff, G: 0x7f, B: 0x7f, A: 0xff}
	img := draw(translucent, 6, vg.Point{X: 10, Y: 30}, vg.Point{X: 40, Y: 30}, vg.Point{X: 20, Y: 30})
	for _, q := range []image.Point{{40, 40}, {55, 40}, {55, 38}, {53, 43}} {
		if got := img.RGBAAt(q.X, q.Y); got != once {
			t.Errorf("line back on itself: pixel %v is %v, want %v", q, got, once)
		}
	}
	if got := img.RGBAAt(58, 40); got != white {
		t.Errorf("line back on itself: pixel 58,40, past its round end, is %v", got)
	}
	var sum float64
	for i := 0; i < len(img.Pix); i += 4 {
		if img.Pix[i+1] < once.G {
			t.Errorf("line back on itself: pixel %d is %v, darker than once %v", i/4, img.Pix[i:i+4], once)
			break
		}
		sum += float64(0xff-img.Pix[i+1]) / float64(0xff-once.G)
	}
	// 40 pixels by 8, and half a disc of radius 4.
	if want := 40*8 + math.Pi*4*4/2; math.Abs(sum-want) > 0.002*want {
		t.Errorf("line back on itself: %.2f pixels of ink, want %.2f", sum, want)
	}
}

// TestStripsPNG: a shape taller and wider than a strip is drawn whole:
// every pixel a pixel or more inside a large triangle is its colour,
// every pixel a pixel or more outside it is white.
func TestStripsPNG(t *testing.T) {
	white := color.RGBA{0xff, 0xff, 0xff, 0xff}
	p := newPNG(900, 750) // 1200 x 1000 pixels
	p.background(white)
	tri := [3][2]float64{{100.3, 50.7}, {1150.2, 400.1}, {300.6, 980.4}}
	if rows := stripPixels / 1050; 930/rows < 5 {
		t.Fatalf("the triangle spans %d strips; want several", 930/rows)
	}
	pts := make([]vg.Point, 3)
	for i, q := range tri {
		pts[i] = vg.Point{X: vg.Length(q[0] / p.scale), Y: vg.Length((p.h - q[1]) / p.scale)}
	}
	p.fill(pfcBar, pts)
	// inside is how far x, y is inside the triangle (negative: outside).
	inside := func(x, y float64) float64 {
		d := math.Inf(1)
		for i := range tri {
			a, b := tri[i], tri[(i+1)%3]
			ex, ey := b[0]-a[0], b[1]-a[1]
			// Clockwise on the picture: inside is right of each edge.
			d = min(d, ((y-a[1])*ex-(x-a[0])*ey)/math.Hypot(ex, ey))
		}
		return d
	}
	if inside(500, 450) <= 0 {
		t.Fatal("the triangle is not clockwise")
	}
	bad := 0
	for y := range 1000 {
		for x := range 1200 {
			// A pixel's points are at most 0.71 from its centre.
			d := inside(float64(x)+0.5, float64(y)+0.5)
			if got := p.img.RGBAAt(x, y); d > 0.75 && got != pfcBar || d < -0.75 && got != white {
				if bad++; bad <= 5 {
					t.Errorf("pixel %d,%d, %.2f inside: %v", x, y, d, got)
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d pixels wrong", bad)
	}
}

// TestTraceInStrip: trace gives the rasterizer nothing above or below
// the strip (flattened onto its edges), so that a tall shape costs a
// strip its own rows only.
func TestTraceInStrip(t *testing.T) {
	p := newPNG(75, 60)
	for _, path := range [][]pixel{
		{{10, -500}, {90, 30}, {20, 900}},
		{{10, 900}, {90, 5}, {20, 700}},
		{{10, 5}, {90, 3}, {20, 7}},
	} {
		p.z.Reset(100, 10)
		// Each point, and the crossings of the strip's edges.
		for i := range path {
			p.trace(path[:i+1], 0, 0, 10)
			if x, y := p.z.Pen(); y < 0 || y > 10 || x != path[0].x {
				t.Errorf("%v: the pen ends at %g, %g; want %g and 0 to 10 down", path[:i+1], x, y, path[0].x)
			}
		}
	}
}

// TestTextAlign: text starts at x (align 0), is centred on it (0.5) or
// ends at it (1), in SVG as in PNG.
func TestTextAlign(t *testing.T) {
	cache, err := fontCache()
	if err != nil {
		t.Fatal(err)
	}
	f := newFace(cache, 12)
	const s = "HIH"
	w := f.Width(s)
	for _, align := range []float64{0, 0.5, 1} {
		const x, y = vg.Length(40), vg.Length(30)
		sp := newSVG(75, 60)
		f.text(sp, x, y, align, s)
		want := strconv.FormatFloat(float64(x-vg.Length(align)*w), 'g', 5, 64)
		if got := string(sp.b); !strings.HasPrefix(got, `<text x="`+want+`" y="-30" `) || !strings.HasSuffix(got, ">"+s+"</text>\n") {
			t.Errorf("align %g: %s; want x=%q", align, got, want)
		}

		pp := newPNG(75, 60)
		pp.background(color.RGBA{0xff, 0xff, 0xff, 0xff})
		f.text(pp, x, y, align, s)
		// The ink's bounds; H and I have side bearings of about half a
		// pixel.
		ink := image.Rectangle{Min: image.Pt(math.MaxInt, math.MaxInt)}
		black := false
		for py := range 80 {
			for px := range 100 {
				c := pp.img.RGBAAt(px, py)
				if c.R < 0x80 {
					ink.Min.X, ink.Min.Y = min(ink.Min.X, px), min(ink.Min.Y, py)
					ink.Max.X, ink.Max.Y = max(ink.Max.X, px+1), max(ink.Max.Y, py+1)
				}
				black = black || c == color.RGBA{A: 0xff}
			}
		}
		left := float64(x-vg.Length(align)*w) * pp.scale
		right := left + float64(w)*pp.scale
		if math.Abs(float64(ink.Min.X)-left) > 1.5 || math.Abs(float64(ink.Max.X)-right) > 1.5 {
			t.Errorf("align %g: ink from %d to %d across; want %.1f to %.1f", align, ink.Min.X, ink.Max.X, left, right)
		}
		// Baseline at 30 points up: 40 pixels down, H standing on it.
		if ink.Max.Y != 40 {
			t.Errorf("align %g: ink down to %d; want the baseline, 40", align, ink.Max.Y)
		}
		if !black {
			t.Errorf("align %g: no black pixel", align)
		}
	}
}

// TestTextPNG: text is drawn in Liberation Serif at its size in points at
// 96 per inch: an H is as tall as the font's H at size*96/72 pixels.
func TestTextPNG(t *testing.T) {
	cache, err := fontCache()
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []float64{8, 12} {
		f := newFace(cache, size)
		var buf sfnt.Buffer
		sf := f.Face.Face
		i, err := sf.GlyphIndex(&buf, 'H')
		if err != nil {
			t.Fatal(err)
		}
		bounds, _, err := sf.GlyphBounds(&buf, i, fixed.Int26_6(size*96/72*64), xfont.HintingNone)
		if err != nil {
			t.Fatal(err)
		}
		want := float64(bounds.Max.Y-bounds.Min.Y) / 64
		p := newPNG(75, 60)
		p.background(color.RGBA{0xff, 0xff, 0xff, 0xff})
		f.text(p, 10, 10, 0, "H")
		top, bottom := 80, 0
		for y := range 80 {
			for x := range 100 {
				if p.img.RGBAAt(x, y).R < 0x80 {
					top, bottom = min(top, y), max(bottom, y+1)
				}
			}
		}
		if got := float64(bottom - top); math.Abs(got-want) > 1 {
			t.Errorf("size %g: H %g pixels tall, want %.1f", size, got, want)
		}
	}
}

// TestSVGText: text is styled as vgsvg styles it, in the font's family,
// and escaped.
func TestSVGText(t *testing.T) {
	cache, err := fontCache()
	if err != nil {
		t.Fatal(err)
	}
	f := newFace(cache, 8)
	var buf sfnt.Buffer
	family, err := f.Face.Face.Name(&buf, sfnt.NameIDFamily)
	if err != nil {
		t.Fatal(err)
	}
	if family != svgFamily {
		t.Errorf("font family %q, SVG writes %q", family, svgFamily)
	}
	p := newSVG(75, 60)
	f.text(p, 1.5, 2.25, 0, `a <b> & "c" 'd'`)
	want := `<text x="1.5" y="-2.25" transform="scale(1, -1)"
	style="font-family:Liberation Serif;font-variant:normal;font-weight:normal;font-style:normal;font-size:8px">a &lt;b&gt; &amp; &#34;c&#34; &#39;d&#39;</text>
`
	if got := string(p.b); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	var b bytes.Buffer
	if err := p.writeTo(&b); err != nil {
		t.Fatal(err)
	}
	if got := texts(t, b.Bytes()); len(got) != 1 || got[0] != `a <b> & "c" 'd'` {
		t.Errorf("texts %q", got)
	}
	if !bytes.Contains(b.Bytes(), []byte(`<svg width="75pt" height="60pt" viewBox="0 0 75 60"`)) {
		t.Errorf("SVG head: %.300s", b.Bytes())
	}
}

func TestAppendXML(t *testing.T) {
	for in, want := range map[string]string{
		"plain µs":              "plain µs",
		`<&>"'`:                 "&lt;&amp;&gt;&#34;&#39;",
		"tab\tnl\n":             "tab\tnl\n",
		"nul\x00esc\x1b":        "nul\ufffdesc\ufffd",
		"bad \xff utf-8":        "bad \ufffd utf-8",
		"non-characters \ufffe": "non-characters \ufffd",
	} {
		if got := string(appendXML(nil, in)); got != want {
			t.Errorf("appendXML(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRenderPNGMemory: drawing the largest picture allocates its RGBA
// image and little more: the rasterizer works in strips.
func TestRenderPNGMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: a 94 MB picture takes a second; not under -short")
	}
	tl := sample()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := tl.Render(io.Discard, "png", Options{Width: MaxWidth, Height: MaxHeight}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	const img = 3840 * 6144 * 4
	got := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %.1f MB drawing, the image %.1f MB", float64(got)/1e6, float64(img)/1e6)
	if got > img+8<<20 {
		t.Errorf("allocated %.1f MB drawing; want the image's %.1f MB and at most 8 MB more", float64(got)/1e6, float64(img)/1e6)
	}
}
