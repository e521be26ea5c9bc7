// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestTimeline(t *testing.T) {
	dir := t.TempDir()
	rows := []string{
		"10.0.0.1:49152 > 10.0.0.2:4791 qp 0x0000d2",
		"[fd00::1]:49153 > [fd00::2]:4791 qp 0x00abcd",
		"* > 10.0.0.2 (dst-pause)",
		"* > fd00::2 (dst-pause)",
		"port1 PAUSE (all)",
		"port1 prio 3",
		"port1 prio 5",
		"depth reporter 7 (max 375000 B)",
		"depth switch 02:00:00:00:ff:01 port 5 (max 50000 B)",
	}
	svg := filepath.Join(dir, "sample.svg")
	out, errs, code := sfcdump(t, "timeline", sampleCap, "-o", svg)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if want := svg + ": 9 rows: " + strings.Join(rows, "; ") + "\n"; out != want {
		t.Errorf("rows:\n got %q\nwant %q", out, want)
	}
	data, err := os.ReadFile(svg)
	if err != nil || !bytes.HasPrefix(bytes.TrimSpace(data), []byte("<?xml")) {
		t.Fatalf("not an SVG: %v %.80q", err, data)
	}
	for _, r := range rows {
		esc := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(r)
		if !bytes.Contains(data, []byte(">"+esc+"</text>")) {
			t.Errorf("SVG has no row label %q", r)
		}
	}
	// Bars (filled paths) and markers are drawn.
	if n := bytes.Count(data, []byte("<path")); n < 20 {
		t.Errorf("SVG has %d paths; want bars and markers", n)
	}

	pngPath := filepath.Join(dir, "sample.png")
	if _, errs, code := sfcdump(t, "timeline", "--rows", "2", sampleCap, "-o", pngPath); code != 0 {
		t.Fatalf("png: exit %d: %s", code, errs)
	}
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	colored := 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			if !(r == g && g == bl) { // neither white, black nor grey: a bar or marker
				colored++
			}
		}
	}
	if b.Dx() < 500 || b.Dy() < 150 || colored < 100 {
		t.Errorf("PNG %dx%d with %d coloured samples; want a drawn timeline", b.Dx(), b.Dy(), colored)
	}

	// Nothing to draw, a bad name: errors, not pictures.
	if _, errs, code := sfcdump(t, "timeline", "-Y", "bth", sampleCap, "-o", filepath.Join(dir, "none.svg")); code != 1 || !strings.Contains(errs, "nothing to draw") {
		t.Errorf("empty timeline: exit %d, %q", code, errs)
	}
	if _, errs, code := sfcdump(t, "timeline", sampleCap, "-o", filepath.Join(dir, "x.gif")); code != 2 || !strings.Contains(errs, ".svg or .png") {
		t.Errorf("bad extension: exit %d, %q", code, errs)
	}
}

// TestNoPlotPackage: sfcdump does not link gonum's plot package nor what
// it pulls in (its plotters, the PDF, EPS and LaTeX writers, gob): their
// init (twelve fonts parsed, among others) cost every command ~4 ms of
// start-up, though only timeline draws. Nor gonum's canvases (vg/draw,
// vgimg, vgsvg) and plot/text, which import go-latex, whose init (fonts
// parsed, symbol tables built) cost ~2.6 ms more: timeline draws on a
// canvas of its own, with gonum's lengths (vg) and font metrics (font).
func TestNoPlotPackage(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("SKIP: no go command on PATH to list what sfcdump links: %v", err)
	}
	out, err := exec.Command(gobin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	if !deps["github.com/opensfc/sfc/timeline"] || !deps["gonum.org/v1/plot/font"] {
		t.Fatalf("go list -deps does not list the timeline and gonum.org/v1/plot/font packages: %.200q", out)
	}
	for _, p := range []string{
		"gonum.org/v1/plot",
		"gonum.org/v1/plot/plotter",
		"gonum.org/v1/plot/text",
		"gonum.org/v1/plot/vg/draw",
		"gonum.org/v1/plot/vg/vgimg",
		"gonum.org/v1/plot/vg/vgsvg",
		"gonum.org/v1/plot/vg/vgpdf",
		"gonum.org/v1/plot/vg/vgeps",
		"gonum.org/v1/plot/vg/vgtex",
		"codeberg.org/go-pdf/fpdf",
		"encoding/gob",
	} {
		if deps[p] {
			t.Errorf("sfcdump links %s", p)
		}
	}
	for p := range deps {
		if p == "codeberg.org/go-latex/latex" || strings.HasPrefix(p, "codeberg.org/go-latex/") {
			t.Errorf("sfcdump links %s", p)
		}
	}
}
