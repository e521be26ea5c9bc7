// SPDX-License-Identifier: Apache-2.0

// Package timeline draws the pauses of a capture: time across, one row per
// paused flow or (interface, priority), a bar for every pause interval, a
// marker for every signal (coloured by kind; a hollow marker is a resume),
// and, in rows of their own, the queue depth BTS and postcards carry, as a
// line per congestion point.
//
// A Timeline is a stats.Observer: set it as a stats.Collector's Observer,
// feed the Collector, then Render. Memory stays bounded whatever the
// capture's length: each row keeps at most MaxPerRow intervals, markers and
// depth points; past that, neighbouring intervals merge, every other
// marker is dropped and depth points merge keeping the larger, so the
// picture stays faithful at the resolution it is drawn at.
//
// Drawing is laid out here, to SVG or PNG: a title on top, the row labels
// on the left, the time axis below with ticks 1, 2 or 5 times a power of
// ten apart, the legend top right. It is drawn on a small canvas of the
// package's own, pure Go: polygons, lines, glyphs and text written as SVG
// elements (in points, as gonum's vgsvg wrote them), or rasterized
// anti-aliased into an RGBA image at 96 pixels per inch
// (golang.org/x/image/vector, in strips of bounded size, so the image is
// the only large allocation; text through an OpenType face) written as
// PNG. Only gonum's lengths (gonum.org/v1/plot/vg) and font metrics
// (gonum.org/v1/plot/font) are used: gonum's plot package (whose init
// parses twelve fonts; it links PDF, EPS and LaTeX writers) and its
// canvases (vg/draw, vgsvg, vgimg, which import go-latex, whose init
// parses fonts and builds symbol tables) would slow the start-up of every
// sfcdump command. The one font drawn, Liberation Serif, is parsed on the
// first Render.
package timeline
