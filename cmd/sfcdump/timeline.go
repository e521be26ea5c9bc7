// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"gonum.org/v1/plot/vg"

	"github.com/opensfc/sfc/atomicfile"
	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/stats"
	"github.com/opensfc/sfc/timeline"
)

func init() { subcommands = append(subcommands, subcommand{name: "timeline", make: newTimelineCmd}) }

func newTimelineCmd() *cobra.Command {
	var o scanOptions
	var out, title string
	var rows int
	var width, height float64
	cmd := &cobra.Command{
		Use:   "timeline [-r] FILE... -o OUT.svg|OUT.png",
		Short: "Draw pauses over time: one row per paused flow or interface and priority",
		Long: `timeline draws a picture with time across and one row per paused flow (BTS,
CIM, Floodgate dst-pause) or per interface and PFC priority (802.3x PAUSE as
"all"): a bar for each pause interval (as stats computes them), a marker for
each signal (coloured by kind, hollow for a resume), and below them one row
per congestion point with the queue depth its BTS or postcards carry, as a
line scaled to the row (the row label gives the maximum).

The format follows the output's extension: .svg or .png. The most paused
rows are drawn first; --rows bounds how many (at most 100, and as many
queue-depth rows). --width is at most 40 inches and --height at most 64
(96 pixels per inch in PNG): a picture never needs more than about 125 MB
to draw (the largest PNG, 3840 x 6144 pixels, peaks at 113 MB; an SVG
at a few MB). The picture is written to a temporary file renamed when complete;
an -o that is one of the inputs is refused. An interrupted run (Ctrl-C)
writes nothing: an existing picture is left as it was.`,
		Example: `  sfcdump timeline pcaps/sample.pcapng -o sample.svg
  sfcdump timeline --link-speed port1=25G -Y 'ip.dst == 10.0.0.2 || pfc' capture.pcapng -o pauses.png
  sfcdump timeline --rows 10 --width 16 big.pcapng.gz -o top10.svg`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: completeCaptures,
		RunE: func(cmd *cobra.Command, args []string) error {
			args, err := o.files(cmd, args)
			if err != nil {
				return err
			}
			if out == "" {
				return &usageError{errors.New("timeline: -o OUT.svg or -o OUT.png is required")}
			}
			format := strings.TrimPrefix(strings.ToLower(filepath.Ext(out)), ".")
			if format != "svg" && format != "png" {
				return &usageError{fmt.Errorf("timeline: -o %s: the name must end in .svg or .png", out)}
			}
			if err := atomicfile.CheckNotInputStdio(out, nil, os.Stdin, args...); err != nil {
				return usagef("timeline: -o: %w", err)
			}
			maxW, maxH := float64(timeline.MaxWidth/vg.Inch), float64(timeline.MaxHeight/vg.Inch)
			// At least an inch: a narrower picture has no room for its
			// axis and rounds to 0 pixels in PNG.
			if math.IsNaN(width) || width < 1 || width > maxW {
				return usagef("--width %g: want 1 to %g inches", width, maxW)
			}
			if math.IsNaN(height) || height > maxH || cmd.Flags().Changed("height") && height < 1 || height < 0 {
				return usagef("--height %g: want 1 to %g inches (leave it out to follow the rows)", height, maxH)
			}
			if rows < 1 || rows > timeline.RowsLimit {
				return usagef("--rows %d: want 1 to %d", rows, timeline.RowsLimit)
			}
			sc, err := newScanner(&o, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			tl := timeline.New()
			c := stats.New()
			c.Observer = tl
			topts := timeline.Options{MaxRows: rows, Width: vg.Length(width) * vg.Inch, Height: vg.Length(height) * vg.Inch, Title: title}
			if topts.Title == "" {
				topts.Title = "sfcdump timeline: " + strings.Join(args, ", ")
			}
			// draw renders what was counted and puts it in place.
			draw := func() error {
				c.Finish()
				var buf bytes.Buffer
				if err := tl.Render(&buf, format, topts); err != nil {
					return err
				}
				if err := atomicfile.WriteFile(out, buf.Bytes(), atomicfile.DefaultPerm); err != nil {
					return fmt.Errorf("timeline: %w", err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %d rows: %s\n", dissect.Escape(out), len(tl.Rows(topts)), strings.Join(tl.Rows(topts), "; "))
				return nil
			}
			// Ctrl-C writes nothing and exits with status 130: a picture
			// of part of the input, put where the whole one was asked
			// for (perhaps over an existing one), would pass for it.
			// Frames captured cannot be read again, so read -w keeps
			// them; a picture can be drawn again.
			nothing := func() error { return nil }
			scanErr, interrupted := sc.scanKeeping(args, c.Add, nothing,
				fmt.Sprintf("nothing written: -o %s is left as it was", dissect.Escape(out)), cmd.ErrOrStderr())
			if interrupted {
				return scanErr
			}
			// As read -w: an error never replaces an existing picture; a
			// capture broken part-way is still drawn into a new file.
			var code int
			if ee := (*exitError)(nil); errors.As(scanErr, &ee) {
				code = ee.code
			}
			_, statErr := os.Stat(out)
			if scanErr != nil && (code != 1 || statErr == nil) {
				report(cmd.ErrOrStderr(), fmt.Errorf("timeline: -o %s: not written because of the error above; an existing file is left as it was", out))
				return scanErr
			}
			if err := draw(); err != nil {
				if scanErr != nil {
					report(cmd.ErrOrStderr(), err)
					return scanErr
				}
				return &exitError{1, err}
			}
			return scanErr
		},
	}
	o.addFlags(cmd)
	f := cmd.Flags()
	f.StringVarP(&out, "output", "o", "", "picture to write: `OUT.svg` or OUT.png")
	f.StringVar(&title, "title", "", "title of the picture (default: the files read)")
	f.IntVar(&rows, "rows", 40, "most pause rows drawn (the most paused first), 1 to 100; as many depth rows")
	f.Float64Var(&width, "width", 11, "width of the picture in inches (96 pixels each in PNG), 1 to 40")
	f.Float64Var(&height, "height", 0, "height of the picture in inches, 1 to 64 (default: 0.3 per row and 1.4 for title and axis)")
	_ = cmd.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"svg", "png"}, cobra.ShellCompDirectiveFilterFileExt
	})
	return cmd
}
