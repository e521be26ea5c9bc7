// SPDX-License-Identifier: Apache-2.0

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/opensfc/sfc/atomicfile"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/fabric"
	"github.com/opensfc/sfc/internal/term"
	"github.com/spf13/cobra"
)

type runOpts struct {
	out      string
	seed     uint64
	quiet    bool
	flowsOut string
	path     string // the scenario file, for errors' lines
}

func newRunCmd() *cobra.Command {
	var o runOpts
	c := &cobra.Command{
		Use:   "run scenario.yaml",
		Short: "Run one scenario; print a summary and write JSON, CSV and per-flow results",
		Long: `Run one scenario file (YAML; see fabric.Scenario and fabric/testdata/small.yaml).
It prints the slowdown per size bin and the buffer, pause and drop counters, and
with --out writes DIR/NAME.json (everything), DIR/NAME.csv (per-bin slowdowns)
and DIR/NAME.fct.csv (every flow: id, src, dst, size, start_ns, fct_ns,
ideal_ns, slowdown, retx, tag, completed; a flow not completed within the drain
has completed false and no FCT, and the run exits 1) and DIR/NAME.buffer.csv
(every switch's shared buffer over time: time_ns, then a column of octets per
switch, a row every sample_every), and plots, SVG and PNG: NAME.fct (the FCT
slowdown's P50, P95 and P99 per size bin) and NAME.buffer (the buffer over time
of the eight switches with the highest peaks). A progress line (simulated time, events/s)
goes to stderr on long runs.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usage("run takes one scenario file, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			sc, err := fabric.LoadScenario(args[0])
			if err != nil {
				return usage("%v", err)
			}
			if cmd.Flags().Changed("seed") {
				sc.Seed = o.seed
			}
			if sc.Name == "" {
				sc.Name = strings.TrimSuffix(filepath.Base(args[0]), filepath.Ext(args[0]))
			}
			if o.out != "" {
				if err := checkName(sc.Name); err != nil {
					return usage("%s: name: %v", args[0], err)
				}
			}
			inputs := append([]string{args[0]}, sc.InputFiles()...)
			outs := o.outputs(sc.Name)
			for i, out := range outs {
				if err := atomicfile.CheckNotInput(out, inputs...); err != nil {
					return usage("%v", err)
				}
				// --flows-out must not be one of --out's files either
				// (neither exists yet: compared by path).
				for _, other := range outs[i+1:] {
					if samePath(out, other) {
						return usage("--flows-out %s is also one of --out's files: give it another name", o.flowsOut)
					}
				}
			}
			if o.out != "" {
				if err := writableDir("--out", o.out); err != nil {
					return err // before the run, not after it
				}
			}
			o.path = args[0]
			return runScenario(cmd.OutOrStdout(), cmd.ErrOrStderr(), *sc, o)
		},
	}
	c.Flags().StringVarP(&o.out, "out", "o", "", "directory for NAME.json, NAME.csv, NAME.fct.csv, NAME.buffer.csv")
	c.Flags().Uint64Var(&o.seed, "seed", 0, "override the scenario's seed")
	c.Flags().BoolVarP(&o.quiet, "quiet", "q", false, "no progress line")
	c.Flags().StringVar(&o.flowsOut, "flows-out", "", "write the generated flows (HPCC flow-file format) to this file")
	return c
}

// outputs returns the files run writes for a scenario named name.
func (o runOpts) outputs(name string) []string {
	var out []string
	if o.out != "" {
		base := filepath.Join(o.out, name)
		out = append(out, base+".json", base+".csv", base+".fct.csv", base+".buffer.csv")
		for _, plot := range []string{".fct", ".buffer"} {
			out = append(out, base+plot+".svg", base+plot+".png")
		}
	}
	if o.flowsOut != "" {
		out = append(out, o.flowsOut)
	}
	return out
}

// checkName refuses a scenario name that cannot be used as is for the
// output files DIR/NAME.*: it must be one plain file-name component, with
// no path separator and no control character, not "." or "..".
func checkName(name string) error {
	switch {
	case name == "." || name == "..":
		return fmt.Errorf("%q is not a file name", name)
	case len(name) > 200:
		return fmt.Errorf("%d octets long (at most 200, it names the output files)", len(name))
	case strings.ContainsAny(name, "/\\"):
		return fmt.Errorf("%q contains a path separator (it names the output files in --out)", name)
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return fmt.Errorf("%q contains a control character (it names the output files in --out)", name)
		}
	}
	return nil
}

func progressLine(w io.Writer, quiet bool) fabric.Progress {
	if quiet {
		return nil
	}
	// Each run's last report, for its own rate: runs in parallel (fig
	// -j) report through this one function from their goroutines.
	type mark struct {
		events int64
		t      time.Time
	}
	var mu sync.Mutex
	last := map[string]mark{}
	start := time.Now()
	tty := isTerminal(w)
	return func(run string, sim, events int64, done, total int) {
		mu.Lock()
		defer mu.Unlock()
		now := time.Now()
		m, ok := last[run]
		if !ok {
			m = mark{0, start}
		}
		rate := float64(events-m.events) / max(now.Sub(m.t).Seconds(), 1e-9)
		last[run] = mark{events, now}
		line := fmt.Sprintf("%s: %8.3f ms simulated, %d/%d flows, %.2f M events, %.2f M events/s", dissect.Escape(run), float64(sim)/1e6, done, total, float64(events)/1e6, rate/1e6)
		if tty {
			fmt.Fprintf(w, "\r%s\033[K", line) // one line, rewritten
		} else {
			fmt.Fprintln(w, line) // a log: no control characters
		}
	}
}

// clearProgress erases the progress line from a terminal.
func clearProgress(w io.Writer, quiet bool) {
	if !quiet && isTerminal(w) {
		fmt.Fprint(w, "\r\033[K")
	}
}

// isTerminal reports whether w is a terminal (term.IsTerminal).
var isTerminal = term.IsTerminal

func runScenario(stdout, stderr io.Writer, sc fabric.Scenario, o runOpts) error {
	if o.flowsOut != "" {
		if err := writeFlows(o.flowsOut, sc); err != nil {
			if errors.Is(err, device.ErrParam) {
				return &exitError{code: 2, err: fabric.Locate(o.path, err)} // as fabric.Run's below
			}
			return err
		}
	}
	res, err := fabric.Run(sc, progressLine(stderr, o.quiet))
	clearProgress(stderr, o.quiet)
	if err != nil {
		if errors.Is(err, device.ErrParam) {
			return &exitError{code: 2, err: fabric.Locate(o.path, err)} // a scenario value out of range
		}
		return err
	}
	defer res.Close()
	res.Summary(stdout)
	if o.out != "" {
		if err := os.MkdirAll(o.out, 0o755); err != nil {
			return err
		}
		if err := writeResult(res, filepath.Join(o.out, sc.Name)); err != nil {
			return err
		}
	}
	if res.Completed < res.Flows {
		return fmt.Errorf("%d of %d flows did not complete within the drain time", res.Flows-res.Completed, res.Flows)
	}
	return nil
}

// writeResult writes a run's files, as run --out and each sweep job
// write them: base.json, base.csv, base.fct.csv, base.buffer.csv and the
// plots base.fct and base.buffer (SVG and PNG).
func writeResult(res *fabric.Result, base string) error {
	for _, w := range []func(string) error{
		func(p string) error { return res.WriteJSON(p + ".json") },
		func(p string) error { return res.WriteCSV(p + ".csv") },
		func(p string) error { return res.WriteFCT(p + ".fct.csv") },
		func(p string) error { return res.WriteBuffer(p + ".buffer.csv") },
		func(p string) error { return plotRun(res, p) },
	} {
		if err := w(base); err != nil {
			return err
		}
	}
	return nil
}

func writeFlows(path string, sc fabric.Scenario) error {
	n, err := fabric.Build(sc.Topology, sc.Switch)
	if err != nil {
		return err
	}
	flows, err := sc.Workload.Arrivals(len(n.Hosts), n.Topo.Host.Speed, sc.Seed)
	if err != nil {
		return err
	}
	defer flows.Close()
	f, err := atomicfile.Create(path, atomicfile.DefaultPerm)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := fabric.WriteArrivals(f, flows); err != nil {
		return err
	}
	return f.Commit()
}

// writableDir makes dir (as the run would) and checks that a file can be
// created in it, so that a run is not thrown away for want of a place to
// write its results.
func writableDir(flag, dir string) error {
	if dir == "" {
		return usage("%s: an empty directory name", flag)
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return usage("%s %s: a file, not a directory", flag, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s %s: %w", flag, dir, err)
	}
	f, err := os.CreateTemp(dir, ".sfcsim-probe-*")
	if err != nil {
		return fmt.Errorf("%s %s: cannot write there: %w", flag, dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// samePath reports whether a and b name the same file: the same absolute
// path, or, when both exist, the same file.
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == bb {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// plotRun draws a run's FCT slowdown by size bin (P50, P95, P99; none
// without background flows) into base.fct.svg and .png, and the shared
// buffer over time of the eight switches with the highest peaks into
// base.buffer.svg and .png.
func plotRun(res *fabric.Result, base string) error {
	if len(res.Bins) > 0 {
		fr := &fabric.FigResult{Title: res.Name + ": FCT slowdown by flow size", XLabel: "size bin (equal-count, small to large)", YLabel: "FCT slowdown"}
		for _, q := range []struct {
			label string
			v     func(b fabric.Bin) float64
		}{{"P50", func(b fabric.Bin) float64 { return b.P50 }}, {"P95", func(b fabric.Bin) float64 { return b.P95 }}, {"P99", func(b fabric.Bin) float64 { return b.P99 }}} {
			s := fabric.Series{Label: q.label}
			for i, b := range res.Bins {
				s.X, s.Y = append(s.X, float64(i+1)), append(s.Y, q.v(b))
			}
			fr.Series = append(fr.Series, s)
		}
		if err := plotFiles(fr, base+".fct"); err != nil {
			return err
		}
	} else {
		// No background flow, no slowdown plot: an earlier run's of the
		// same name would read as this one's.
		for _, ext := range []string{".fct.svg", ".fct.png"} {
			if err := os.Remove(base + ext); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	idx := make([]int, len(res.Switches))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return res.Switches[idx[a]].Peak > res.Switches[idx[b]].Peak })
	fr := &fabric.FigResult{Title: res.Name + ": shared buffer over time", XLabel: "time (ms)", YLabel: "buffer (MB)"}
	// At most 2,000 points a line: the largest of each stretch, so that
	// no peak is lost; read in one pass over the samples, however long.
	top := idx[:min(8, len(idx))]
	step := max(1, (res.BufferRows()+1999)/2000)
	fr.Series = make([]fabric.Series, len(top))
	for n, i := range top {
		fr.Series[n].Label = res.Switches[i].Name
	}
	err := res.EachBuffer(func(t int64, row []int64) error {
		start := (t/res.SampleEvery())%step == 0
		for n, i := range top {
			s, y := &fr.Series[n], float64(row[i])/1e6
			if start {
				s.X, s.Y = append(s.X, float64(t)/1e6), append(s.Y, y)
			} else {
				s.Y[len(s.Y)-1] = max(s.Y[len(s.Y)-1], y)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return plotFiles(fr, base+".buffer")
}
