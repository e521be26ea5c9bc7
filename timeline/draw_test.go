// SPDX-License-Identifier: Apache-2.0

package timeline

import (
	"bytes"
	"encoding/xml"
	"html"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/vg"

	"github.com/opensfc/sfc/stats"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func us(n float64) time.Time { return t0.Add(time.Duration(n * 1e3)) }

// sample is a timeline of three pause rows and two depth rows over 336 µs:
// 7 markers, 2 of them resumes.
func sample() *Timeline {
	tl := New()
	tl.Row(0, "10.0.0.1:49152 > 10.0.0.2:4791 qp 0x0000d2", false)
	tl.Interval(0, us(10), us(40))
	tl.Signal(0, us(10), stats.KindBTS, 30*time.Microsecond)
	tl.Signal(0, us(12), stats.KindCIM, 5*time.Microsecond)
	tl.Signal(0, us(40), stats.KindDstPause, 0)
	tl.Row(1, "port1 prio 3", true)
	tl.Interval(1, us(0), us(300))
	tl.Signal(1, us(0), stats.KindPFC, 300*time.Microsecond)
	tl.Signal(1, us(5), stats.KindPause, 300*time.Microsecond)
	tl.Signal(1, us(300), stats.KindPFC, 0)
	tl.Row(2, `a <b> & "c"`, false)
	tl.Interval(2, us(100), us(101))
	tl.Signal(2, us(100), stats.KindBTS, time.Microsecond)
	tl.Series(0, "switch 02:00:00:00:ff:01 port 5")
	for i := range 8 {
		tl.Depth(0, us(float64(i)*48), uint64(i*1000))
	}
	tl.Series(1, "reporter 7")
	tl.Depth(1, us(20), 375000)
	return tl
}

func render(t *testing.T, tl *Timeline, format string, o Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := tl.Render(&b, format, o); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// texts returns the text elements of an SVG, unescaped, checking it is
// well-formed XML.
func texts(t *testing.T, svg []byte) []string {
	t.Helper()
	var out []string
	d := xml.NewDecoder(bytes.NewReader(svg))
	in := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			in = tok.Name.Local == "text"
			if in {
				out = append(out, "")
			}
		case xml.CharData:
			if in {
				out[len(out)-1] += string(tok)
			}
		case xml.EndElement:
			in = false
		}
	}
}

// circle matches a marker or a legend glyph drawn as a circle of radius
// 2.5 pt (two arcs), capturing its style.
var circle = regexp.MustCompile(`<path d="M[^"]*A2\.5,2\.5 0 1 1 [^"]*A2\.5,2\.5 0 1 1 [^"]*Z" style="([^"]*)"`)

func TestRenderSVG(t *testing.T) {
	ticks := []string{"0", "50", "100", "150", "200", "250", "300"}
	for _, tc := range []struct {
		name          string
		o             Options
		title         string
		filled, rings int // markers drawn, legend glyphs included
	}{
		{"defaults", Options{}, "sfcdump timeline", 5 + 5, 2 + 1},
		{"title", Options{Title: "pauses <&> of incast"}, "pauses <&> of incast", 5 + 5, 2 + 1},
		{"one row", Options{MaxRows: 1}, "sfcdump timeline", 2 + 5, 1 + 1}, // the PFC row, the most paused
		{"tall and narrow", Options{Width: 6 * vg.Inch, Height: 20 * vg.Inch}, "sfcdump timeline", 5 + 5, 2 + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tl := sample()
			svg := render(t, tl, "svg", tc.o)
			got := texts(t, svg)
			want := append([]string{tc.title, "time since 2026-01-01T00:00:00Z (µs)"}, tl.Rows(tc.o)...)
			if tc.o.Width == 0 {
				want = append(want, ticks...)
			} else {
				want = append(want, "0", "100", "200", "300")
			}
			for _, w := range want {
				if !slices.Contains(got, w) {
					t.Errorf("no text %q in %q", w, got)
				}
				// As written: XML-escaped.
				if esc := ">" + html.EscapeString(w) + "</text>"; !bytes.Contains(svg, []byte(esc)) {
					t.Errorf("SVG has no %s", esc)
				}
			}
			for _, l := range []string{"bts signal", "cim signal", "fgpause signal", "pfc signal", "pause signal", "resume", "queue depth"} {
				if !slices.Contains(got, l) {
					t.Errorf("legend has no %q", l)
				}
			}
			var filled, rings int
			for _, m := range circle.FindAllSubmatch(svg, -1) {
				if bytes.HasPrefix(m[1], []byte("fill:none;")) {
					rings++
				} else {
					filled++
				}
			}
			if filled != tc.filled || rings != tc.rings {
				t.Errorf("%d filled circles and %d rings; want %d and %d", filled, rings, tc.filled, tc.rings)
			}
		})
	}
}

func TestRenderPNG(t *testing.T) {
	tl := sample()
	nrows := len(tl.Rows(Options{}))
	bts, pfc := kindColors[stats.KindBTS], kindColors[stats.KindPFC]
	for _, tc := range []struct {
		name    string
		o       Options
		w, h    int
		colours []color.RGBA // present exactly, inside bars and markers
	}{
		{"defaults", Options{}, 11 * 96, int(math.Round((float64(nrows)*0.3 + 1.4) * 96)), []color.RGBA{flowBar, pfcBar, bts, pfc}},
		{"sized", Options{Width: 8 * vg.Inch, Height: 5 * vg.Inch}, 768, 480, []color.RGBA{flowBar, pfcBar, bts, pfc}},
		{"one row", Options{MaxRows: 1, Width: 4 * vg.Inch}, 384, int(math.Round((2*0.3 + 1.4) * 96)), []color.RGBA{pfcBar, pfc}},
		{"largest", Options{Width: MaxWidth, Height: MaxHeight}, 3840, 6144, []color.RGBA{flowBar, pfcBar, bts, pfc}},
		// Too small for anything but drawn without a panic.
		{"tiny", Options{Width: 0.01 * vg.Inch, Height: 0.01 * vg.Inch}, 1, 1, nil},
		{"no room for rows", Options{Width: 2 * vg.Inch, Height: 0.5 * vg.Inch}, 192, 48, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.w*tc.h > 1e7 && testing.Short() {
				t.Skip("SKIP: a 94 MB picture takes seconds; not under -short")
			}
			img, err := png.Decode(bytes.NewReader(render(t, tl, "png", tc.o)))
			if err != nil {
				t.Fatal(err)
			}
			if b := img.Bounds(); b.Dx() != tc.w || b.Dy() != tc.h {
				t.Fatalf("PNG %dx%d, want %dx%d", b.Dx(), b.Dy(), tc.w, tc.h)
			}
			seen := colours(img)
			if len(tc.colours) > 0 && !seen[color.RGBA{0xff, 0xff, 0xff, 0xff}] {
				t.Error("no white background")
			}
			for _, c := range tc.colours {
				if !seen[c] {
					t.Errorf("no pixel of %v", c)
				}
			}
		})
	}
}

// colours returns the colours of the pixels of img, opaque ones as
// color.RGBA.
func colours(img image.Image) map[color.RGBA]bool {
	seen := map[color.RGBA]bool{}
	var pix []uint8
	switch img := img.(type) {
	case *image.RGBA:
		pix = img.Pix
	case *image.NRGBA:
		pix = img.Pix
	default:
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				seen[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)] = true
			}
		}
		return seen
	}
	for i := 0; i+3 < len(pix); i += 4 {
		if pix[i+3] == 0xff {
			seen[color.RGBA{pix[i], pix[i+1], pix[i+2], 0xff}] = true
		}
	}
	return seen
}

// TestRenderEscapes: a title or label with control characters (an escape
// sequence from a capture) is drawn escaped, never raw.
func TestRenderEscapes(t *testing.T) {
	for _, tc := range []struct {
		name, title, row, series string
		want                     []string
	}{
		{"title", "evil\x1b[2J\x07title", "flow", "cp", []string{`evil\x1b[2J\atitle`}},
		{"row", "", "flow\x1b]0;pwned\x07\r\n", "cp", []string{`flow\x1b]0;pwned\a\r\n`}},
		{"series", "", "flow", "cp\x1b[31m\x00", []string{`depth cp\x1b[31m\x00 (max 7 B)`}},
		{"utf-8 and bidi", "tab\there", "r\u202eow", "cp", []string{`tab\there`, `r\u202eow`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tl := New()
			tl.Row(0, tc.row, false)
			tl.Interval(0, us(0), us(3))
			tl.Signal(0, us(0), stats.KindBTS, 3*time.Microsecond)
			tl.Series(0, tc.series)
			tl.Depth(0, us(1), 7)
			svg := render(t, tl, "svg", Options{Title: tc.title})
			for i, c := range svg {
				if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
					t.Fatalf("SVG holds control byte %#x at %d: %q", c, i, svg[max(0, i-40):min(len(svg), i+40)])
				}
			}
			got := texts(t, svg)
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("no text %q in %q", w, got)
				}
			}
		})
	}
}

func TestTicks(t *testing.T) {
	cache, err := fontCache()
	if err != nil {
		t.Fatal(err)
	}
	f := newFace(cache, tickSize)
	for _, tc := range []struct {
		xmax  float64
		width vg.Length
		want  string
	}{
		{336, 640, "0 50 100 150 200 250 300"},
		{336, 300, "0 100 200 300"},
		{1, 640, "0 0.2 0.4 0.6 0.8 1.0"},
		{9999, 800, "0 1000 2000 3000 4000 5000 6000 7000 8000 9000"},
		{0.75, 720, "0 0.1 0.2 0.3 0.4 0.5 0.6 0.7"},
		{0.0042, 720, "0 0.0005 0.0010 0.0015 0.0020 0.0025 0.0030 0.0035 0.0040"},
		{86400, 2880, "0 5000 10000 15000 20000 25000 30000 35000 40000 45000 50000 55000 60000 65000 70000 75000 80000 85000"},
		{86400, 720, "0 10000 20000 30000 40000 50000 60000 70000 80000"},
		// Labels would touch 2e13 apart (an inch): the next step.
		{8.64e13, 311.04, "0 50000000000000"},
		// Narrower than an inch: still two ticks when their labels fit.
		{0.0042, 100, "0 0.002 0.004"},
		{5, 50, "0 5"},
		{1000, 50, "0 1000"},
		// No room: only 0.
		{5, 0, "0"},
		{5, -10, "0"},
	} {
		_, labels := ticks(tc.xmax, tc.width, f)
		if got := strings.Join(labels, " "); got != tc.want {
			t.Errorf("ticks(%g, %g):\n got %s\nwant %s", tc.xmax, tc.width, got, tc.want)
		}
	}
}
