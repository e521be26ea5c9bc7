// SPDX-License-Identifier: Apache-2.0

package timeline

import (
	"fmt"
	"image/color"
	"io"
	"strconv"
	"unicode/utf8"

	"gonum.org/v1/plot/vg"
)

// svgFamily is the font-family written for text: the family name of
// Liberation Serif's name table, as gonum's vgsvg writes it.
const svgFamily = "Liberation Serif"

// svgPicture is a surface that writes SVG, in the form gonum's vgsvg
// wrote it: sizes in points, a group turning the y axis up, numbers of
// five significant digits, circles as two arcs, text styled as vgsvg
// styles it. The fonts are not embedded.
type svgPicture struct {
	w, h vg.Length
	b    []byte // the elements drawn
}

func newSVG(w, h vg.Length) *svgPicture { return &svgPicture{w: w, h: h} }

// num appends v, in points, with five significant digits.
func (p *svgPicture) num(v vg.Length) {
	p.b = strconv.AppendFloat(p.b, float64(v), 'g', 5, 64)
}

// point appends x,y.
func (p *svgPicture) point(q vg.Point) {
	p.num(q.X)
	p.b = append(p.b, ',')
	p.num(q.Y)
}

// path appends a path element through pts, closed or not; its style is
// to be appended after.
func (p *svgPicture) path(pts []vg.Point, closed bool) {
	p.b = append(p.b, `<path d="`...)
	for i, q := range pts {
		if i == 0 {
			p.b = append(p.b, 'M')
		} else {
			p.b = append(p.b, 'L')
		}
		p.point(q)
	}
	if closed {
		p.b = append(p.b, 'Z')
	}
}

// colour appends c as #RRGGBB.
func (p *svgPicture) colour(c color.RGBA) {
	p.b = fmt.Appendf(p.b, "#%02X%02X%02X", c.R, c.G, c.B)
}

// fillStyle ends a path filled with c.
func (p *svgPicture) fillStyle(c color.RGBA) {
	p.b = append(p.b, `" style="fill:`...)
	p.colour(c)
	p.b = append(p.b, "\" />\n"...)
}

// strokeStyle ends a path stroked with c, w wide, with round joins (as
// the PNG draws them) and SVG's default butt caps.
func (p *svgPicture) strokeStyle(c color.RGBA, w vg.Length) {
	p.b = append(p.b, `" style="fill:none;stroke:`...)
	p.colour(c)
	p.b = append(p.b, ";stroke-width:"...)
	p.num(w)
	p.b = append(p.b, ";stroke-linejoin:round\" />\n"...)
}

func (p *svgPicture) background(c color.RGBA) {
	p.fill(c, []vg.Point{{}, {X: p.w}, {X: p.w, Y: p.h}, {Y: p.h}})
}

func (p *svgPicture) fill(c color.RGBA, pts []vg.Point) {
	if len(pts) < 3 {
		return
	}
	p.path(pts, true)
	p.fillStyle(c)
}

func (p *svgPicture) stroke(c color.RGBA, w vg.Length, closed bool, pts []vg.Point) {
	if len(pts) < 2 || w <= 0 {
		return
	}
	p.path(pts, closed)
	p.strokeStyle(c, w)
}

// circle draws two arcs, half a turn each: an SVG arc cannot end where
// it starts.
func (p *svgPicture) circle(c color.RGBA, at vg.Point, r, w vg.Length) {
	p.b = append(p.b, `<path d="M`...)
	p.point(vg.Point{X: at.X + r, Y: at.Y})
	for _, x := range [2]vg.Length{at.X - r, at.X + r} {
		p.b = append(p.b, 'A')
		p.num(r)
		p.b = append(p.b, ',')
		p.num(r)
		p.b = append(p.b, " 0 1 1 "...)
		p.point(vg.Point{X: x, Y: at.Y})
	}
	p.b = append(p.b, 'Z')
	if w > 0 {
		p.strokeStyle(c, w)
	} else {
		p.fillStyle(c)
	}
}

// text writes a text element flipped back upright within the group that
// turns the y axis up, styled as vgsvg styles it.
func (p *svgPicture) text(f face, at vg.Point, s string) {
	p.b = append(p.b, `<text x="`...)
	p.num(at.X)
	p.b = append(p.b, `" y="`...)
	p.num(-at.Y)
	p.b = append(p.b, `" transform="scale(1, -1)"`+"\n\tstyle=\"font-family:"+svgFamily+
		";font-variant:normal;font-weight:normal;font-style:normal;font-size:"...)
	p.num(f.Font.Size)
	p.b = append(p.b, `px">`...)
	p.b = appendXML(p.b, s)
	p.b = append(p.b, "</text>\n"...)
}

func (p *svgPicture) writeTo(w io.Writer) error {
	head := fmt.Appendf(nil, `<?xml version="1.0"?>
<svg width="%[1]spt" height="%[2]spt" viewBox="0 0 %[1]s %[2]s"
	xmlns="http://www.w3.org/2000/svg"
	xmlns:xlink="http://www.w3.org/1999/xlink">
<g transform="scale(1, -1) translate(0, -%[2]s)">
`, strconv.FormatFloat(float64(p.w), 'g', 5, 64), strconv.FormatFloat(float64(p.h), 'g', 5, 64))
	for _, b := range [][]byte{head, p.b, []byte("</g>\n</svg>\n")} {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// appendXML appends s escaped as character data or an attribute value:
// the five characters html.EscapeString escapes, as it escapes them, and
// U+FFFD for what XML 1.0 does not allow (control characters, U+FFFE and
// U+FFFF; ranging over s already makes invalid UTF-8 U+FFFD), which
// dissect.Escape has already escaped in the labels drawn.
func appendXML(b []byte, s string) []byte {
	for _, r := range s {
		switch {
		case r == '&':
			b = append(b, "&amp;"...)
		case r == '\'':
			b = append(b, "&#39;"...)
		case r == '<':
			b = append(b, "&lt;"...)
		case r == '>':
			b = append(b, "&gt;"...)
		case r == '"':
			b = append(b, "&#34;"...)
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r == 0xfffe, r == 0xffff:
			b = utf8.AppendRune(b, utf8.RuneError)
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return b
}
