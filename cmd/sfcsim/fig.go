// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"

	"github.com/opensfc/sfc/atomicfile"
	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/fabric"
	"github.com/spf13/cobra"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

func newFigCmd() *cobra.Command {
	var out string
	var full, quiet bool
	var seeds, jobs int
	c := &cobra.Command{
		Use:   "fig NAME...",
		Short: "Reproduce a paper figure: data (JSON), plot (SVG) and PASS/FAIL per acceptance criterion",
		Long: "Reproduce a paper figure. NAME is one of: " + strings.Join(fabric.FigureNames(), ", ") + `.
Without --full it runs the scaled-down setup CI runs (same orderings checked);
--full runs the paper's setup. Several names run in one process, so figures
that share a run (bfc-fig6, bfc-fig7, bfc-fig12; pb-fig5, pb-fig6) make it
once. --jobs N runs up to N of a figure's independent runs at once where the
figure allows it (sfc-fig7: its three variants × seeds); the results are the
same for any N. Exit status 1 when a criterion fails.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usage("fig takes figure names (%s)", strings.Join(fabric.FigureNames(), ", "))
			}
			for _, a := range args {
				if fabric.Figures[a] == nil {
					return usage("no figure %q (have %s)", a, strings.Join(fabric.FigureNames(), ", "))
				}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if seeds < 1 || seeds > 100 {
				return usage("--seeds %d: want 1..100", seeds)
			}
			if jobs < 1 || jobs > 256 {
				return usage("--jobs %d: want 1..256", jobs)
			}
			fabric.Workers = jobs
			if err := writableDir("--out", out); err != nil {
				return err // before a run that may take an hour
			}
			var ss []uint64
			for i := 1; i <= seeds; i++ {
				ss = append(ss, uint64(i))
			}
			failed := 0
			for _, name := range args {
				n, err := runFig(cmd, name, out, full, quiet, ss)
				if err != nil {
					return err
				}
				failed += n
			}
			if failed > 0 {
				return fmt.Errorf("%d criteria failed", failed)
			}
			return nil
		},
	}
	c.Flags().StringVarP(&out, "out", "o", ".", "output directory")
	c.Flags().BoolVar(&full, "full", false, "the paper's full-size setup (long)")
	c.Flags().IntVar(&seeds, "seeds", 1, "seeds to average over (the targets ask for ≥ 3 at full scale)")
	c.Flags().BoolVarP(&quiet, "quiet", "q", false, "no progress line")
	c.Flags().IntVarP(&jobs, "jobs", "j", 1, "runs of one figure to make at once (1..256)")
	return c
}

// runFig runs one figure, writes its JSON, SVG and PNG under out and prints its
// checks; it returns the number of failed criteria.
func runFig(cmd *cobra.Command, name, out string, full, quiet bool, ss []uint64) (int, error) {
	seeds := len(ss)
	fr, err := fabric.Figures[name].Run(full, ss, progressLine(cmd.ErrOrStderr(), quiet))
	clearProgress(cmd.ErrOrStderr(), quiet)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return 0, err
	}
	base := filepath.Join(out, fr.Name+"-"+fr.Scale)
	b, _ := json.MarshalIndent(fr, "", "  ")
	if err := atomicfile.WriteFile(base+".json", append(b, '\n'), atomicfile.DefaultPerm); err != nil {
		return 0, err
	}
	if err := plotFiles(fr, base); err != nil {
		return 0, err
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "%s (%s scale, %d seeds): %s\n", fr.Name, fr.Scale, seeds, fr.Title)
	failed := 0
	for _, c := range fr.Checks {
		st := "PASS"
		switch {
		case c.Skipped:
			st = "SKIP"
		case !c.Pass:
			st = "FAIL"
			failed++
		}
		fmt.Fprintf(w, "  %s %s: %s — %s\n", st, c.ID, c.Criterion, c.Measured)
	}
	for _, n := range fr.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	eb := dissect.Escape(base)
	fmt.Fprintf(w, "wrote %s.json, %s.svg, %s.png\n", eb, eb, eb)
	return failed, nil
}

// plotFiles draws fr into base.svg and base.png.
func plotFiles(fr *fabric.FigResult, base string) error {
	for _, ext := range []string{".svg", ".png"} {
		if err := plotFig(fr, base+ext); err != nil {
			return err
		}
	}
	return nil
}

func plotFig(fr *fabric.FigResult, path string) error {
	p := plot.New()
	p.Title.Text = fr.Title
	p.X.Label.Text = fr.XLabel
	p.Y.Label.Text = fr.YLabel
	p.Legend.Top = true
	for i, s := range fr.Series {
		pts := make(plotter.XYs, len(s.X))
		for j := range s.X {
			pts[j].X, pts[j].Y = s.X[j], s.Y[j]
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		c := plotutil.Color(i)
		if c == nil {
			c = color.Black
		}
		l.Color, sc.Color = c, c
		sc.Shape = plotutil.Shape(i)
		p.Add(l, sc)
		p.Legend.Add(s.Label, l, sc)
	}
	wt, err := p.WriterTo(8*vg.Inch, 5*vg.Inch, strings.TrimPrefix(filepath.Ext(path), "."))
	if err != nil {
		return err
	}
	// A unique temporary file beside path, renamed when complete: two
	// runs writing one directory, or one interrupted, leave no stray file.
	f, err := atomicfile.Create(path, atomicfile.DefaultPerm)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := wt.WriteTo(f); err != nil {
		return err
	}
	return f.Commit()
}
