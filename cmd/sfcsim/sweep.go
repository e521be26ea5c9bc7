// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/opensfc/sfc/atomicfile"
	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/fabric"
	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"
)

// A sweep runs one scenario once per combination of parameter values ×
// seeds. Each job is independent and deterministic (its seed is in its
// name), so jobs may run in any order, in parallel, or on a cluster.
func newSweepCmd() *cobra.Command {
	var sets []string
	var seeds, jobs, arrayMax int
	var out, emit string
	var quiet bool
	c := &cobra.Command{
		Use:   "sweep scenario.yaml --set KEY=V1,V2 ... [--seeds N] [-j N] [-q] [--emit slurm]",
		Short: "Run a parameter sweep as independent seeded jobs (or write a Slurm job array)",
		Long: `Run scenario.yaml once per combination of the --set values and per seed. KEY is
a dotted path into the scenario (transport.cc, workload.load, flow_control, ...);
seed and name cannot be set (the jobs run seeds 1..--seeds and are named
after the file and their values). Values must be distinct and not empty.
The scenario file and every job are checked before any job runs or is
written (exit 2). At most 100000 jobs, --seeds ≤ 100, -j ≤ 256.
Each job writes the files run --out writes (OUT/JOB.json, .csv, .fct.csv,
.buffer.csv and the .fct and .buffer plots), and OUT/sweep.csv has a row per
job: its values, seed, flows, completed, the non-incast slowdown's P50, P95 and
P99, max buffer, drops, PFC pauses and goodput. While jobs run, a progress line per
running job (simulated time, events/s) goes to standard error, as run's does
(-q: none). With --emit slurm, sfcsim writes
OUT/jobs.txt (one "sfcsim run" line per job) and OUT/sweep.sbatch (a job array
running line $SLURM_ARRAY_TASK_ID) instead of running anything.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usage("sweep takes one scenario file")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if seeds < 1 || seeds > maxSweepSeeds {
				return usage("--seeds %d: want 1..%d", seeds, maxSweepSeeds)
			}
			if jobs < 1 || jobs > maxSweepParallel {
				return usage("--jobs %d: want 1..%d", jobs, maxSweepParallel)
			}
			if emit != "" && emit != "slurm" {
				return usage("--emit %q: only slurm", emit)
			}
			if arrayMax < 1 || arrayMax > maxSweepJobs {
				return usage("--array-max %d: want 1..%d", arrayMax, maxSweepJobs)
			}
			// The scenario as written first, so that its errors name its
			// file and its lines (not those of the document --set makes).
			if _, err := fabric.LoadScenario(args[0]); err != nil {
				return usage("%v", err)
			}
			raw, err := os.ReadFile(args[0])
			if err != nil {
				return usage("%v", err)
			}
			axes, err := parseSets(sets)
			if err != nil {
				return err
			}
			total := seeds
			for _, a := range axes {
				total *= len(a.values) // each factor ≤ maxSweepJobs: no overflow
				if total > maxSweepJobs {
					return usage("the sweep has more than %d jobs (the --set values' product × --seeds)", maxSweepJobs)
				}
			}
			if emit == "slurm" && total > arrayMax {
				return usage("--emit slurm: %d jobs, more than --array-max %d (Slurm's MaxArraySize)", total, arrayMax)
			}
			base := sanitizeName(strings.TrimSuffix(filepath.Base(args[0]), filepath.Ext(args[0])))
			dir := filepath.Dir(args[0])
			// Check every job's scenario before running or writing any. The
			// seed does not change whether a scenario is valid, so each
			// combination is checked once.
			var all []job
			names := map[string]bool{}
			for _, combo := range combos(axes) {
				for sd := 1; sd <= seeds; sd++ {
					j := job{sets: combo, seed: sd}
					j.name = base + j.suffix()
					if names[j.name] {
						return usage("two jobs are both named %s: make the --set values differ in letters, digits or . _ + - =", j.name)
					}
					if len(j.name) > maxJobName {
						return usage("job name %s is longer than %d characters: fewer --set keys", j.name, maxJobName)
					}
					names[j.name] = true
					all = append(all, j)
				}
			}
			// Check every job's scenario before running or writing any. The
			// seed does not change whether a scenario is valid, so each
			// combination is checked once.
			var sc0 *fabric.Scenario
			for i := range all {
				j := &all[i]
				if j.seed == 1 {
					sc, err := j.scenario(raw, dir)
					if err != nil {
						return usage("%s: job %s: %v", args[0], j.name, err)
					}
					if err := checkScenario(*sc); err != nil {
						return usage("%s: job %s: %v", args[0], j.name, err)
					}
					sc0 = sc
				}
				j.sc = *sc0
				j.sc.Seed, j.sc.Name = uint64(j.seed), j.name
			}
			// No file the sweep writes may be one it reads: the scenario,
			// a job's CDF or flows file.
			if err := sweepNotInput(args[0], out, emit, all); err != nil {
				return err
			}
			if out == "" {
				return usage("--out: an empty directory name")
			}
			if emit == "slurm" {
				return emitSlurm(cmd.OutOrStdout(), out, all)
			}
			if err := writableDir("--out", out); err != nil {
				return err
			}
			var mu sync.Mutex
			var firstErr error
			// The progress lines and the jobs' result lines under one
			// lock: on a terminal the progress line is erased before a
			// result line is printed, never cut by one.
			stderr := cmd.ErrOrStderr()
			var prog fabric.Progress
			if p := progressLine(stderr, quiet); p != nil {
				prog = func(run string, sim, events int64, done, total int) {
					mu.Lock()
					defer mu.Unlock()
					p(run, sim, events, done, total)
				}
			}
			// Lines are printed in job order whatever order the jobs end
			// in, so that two runs of one sweep print the same.
			lines := make([]*string, len(all))
			printed := 0
			var unfinished []string
			rows := make([][]string, len(all))
			sem := make(chan struct{}, jobs)
			var wg sync.WaitGroup
			for i := range all {
				wg.Add(1)
				sem <- struct{}{}
				go func(i int) {
					defer wg.Done()
					defer func() { <-sem }()
					res, err := sweepRun(all[i].sc, prog)
					if err == nil {
						err = writeResult(res, filepath.Join(out, all[i].name))
						res.Close() // the samples' file; what the row needs stays
					}
					mu.Lock()
					defer mu.Unlock()
					line := ""
					if err == nil {
						rows[i] = sweepRow(&all[i], res)
					}
					if err != nil {
						if firstErr == nil {
							firstErr = fmt.Errorf("job %s: %w", all[i].name, err)
						}
					} else {
						line = fmt.Sprintf("%s: %d/%d flows, all P50/P99 %.2f/%.2f, max buffer %.2f MB\n",
							all[i].name, res.Completed, res.Flows, res.All.P50, res.All.P99, float64(res.MaxBuffer)/1e6)
						if res.Completed < res.Flows {
							unfinished = append(unfinished, all[i].name)
						}
					}
					lines[i] = &line
					if printed < len(lines) && lines[printed] != nil {
						clearProgress(stderr, quiet)
					}
					for printed < len(lines) && lines[printed] != nil {
						fmt.Fprint(cmd.OutOrStdout(), *lines[printed])
						printed++
					}
				}(i)
			}
			wg.Wait()
			if firstErr == nil {
				if err := writeSweepCSV(filepath.Join(out, "sweep.csv"), axes, rows); err != nil {
					return err
				}
			}
			if firstErr == nil && len(unfinished) > 0 {
				// As run exits 1 for such a job (and a Slurm task fails).
				sort.Strings(unfinished)
				return fmt.Errorf("%d job(s) left flows unfinished within the drain time: %s", len(unfinished), strings.Join(unfinished, ", "))
			}
			return firstErr
		},
	}
	c.Flags().StringArrayVar(&sets, "set", nil, "KEY=V1,V2,... (repeatable; the sweep is the cross product)")
	c.Flags().IntVar(&seeds, "seeds", 1, fmt.Sprintf("seeds per combination: seeds 1..N (N ≤ %d)", maxSweepSeeds))
	c.Flags().IntVarP(&jobs, "jobs", "j", 1, fmt.Sprintf("jobs to run at once (1..%d)", maxSweepParallel))
	c.Flags().IntVar(&arrayMax, "array-max", 1000, fmt.Sprintf("--emit slurm: most array tasks (Slurm's MaxArraySize − 1; 1..%d)", maxSweepJobs))
	c.Flags().StringVarP(&out, "out", "o", "sweep", "output directory")
	c.Flags().StringVar(&emit, "emit", "", "write a job script instead of running (slurm)")
	c.Flags().BoolVarP(&quiet, "quiet", "q", false, "no progress line")
	return c
}

// sweepRun runs one job: fabric.Run, a variable for the tests.
var sweepRun = fabric.Run

type axis struct {
	key    string
	values []string
}

type job struct {
	name string
	sets [][2]string
	seed int
	sc   fabric.Scenario
}

// Sweep bounds (docs/decisions.md): --seeds and -j as fig bounds them,
// the jobs of one sweep, and a job name's length (a file name is at most
// 255 octets).
const (
	maxSweepSeeds    = 100
	maxSweepParallel = 256
	maxSweepJobs     = 100_000
	maxJobName       = 200
)

// parseSets reads the --set flags: KEY=V1,V2 with a key the sweep may
// set, once, and distinct, non-empty values, each of which must decode
// into the scenario by itself.
func parseSets(sets []string) ([]axis, error) {
	var axes []axis
	seen := map[string]bool{}
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" || v == "" {
			return nil, usage("--set %q: want KEY=V1,V2", s)
		}
		switch k {
		case "seed":
			return nil, usage("--set %q: the sweep sets seed (1..--seeds); use --seeds", s)
		case "name":
			return nil, usage("--set %q: the sweep names each job after the file and its values", s)
		}
		if seen[k] {
			return nil, usage("--set %q: key %s set twice", s, k)
		}
		seen[k] = true
		vals := strings.Split(v, ",")
		if len(vals) > maxSweepJobs {
			return nil, usage("--set %s: more than %d values", k, maxSweepJobs)
		}
		dup := map[string]bool{}
		for _, x := range vals {
			if strings.TrimSpace(x) == "" {
				return nil, usage("--set %q: an empty value", s)
			}
			if dup[sameValue(x)] {
				return nil, usage("--set %q: value %q twice (two jobs would run the same scenario)", s, x)
			}
			dup[sameValue(x)] = true
			// The key and value alone, so that the error names them.
			if _, err := (job{sets: [][2]string{{k, x}}}).scenario(nil, "."); err != nil {
				// Its line numbers are those of a one-key document: drop them.
				msg := yamlLine.ReplaceAllString(err.Error(), "")
				return nil, usage("--set %s=%s: %s", k, x, strings.ReplaceAll(msg, "\n ", ""))
			}
		}
		axes = append(axes, axis{k, vals})
	}
	return axes, nil
}

var yamlLine = regexp.MustCompile(`line [0-9]+: `)

// sameValue is the key under which two --set values are the same: a
// number by its value (.3 and 0.30, 2 and 0x2 and 2.0), anything else as
// written.
func sameValue(x string) string {
	var v any
	if yaml.Unmarshal([]byte(x), &v) != nil {
		return x
	}
	switch n := v.(type) {
	case int:
		return "#" + strconv.Itoa(n)
	case uint64:
		return "#" + strconv.FormatUint(n, 10)
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<62 {
			return "#" + strconv.FormatInt(int64(n), 10)
		}
		return "#" + strconv.FormatFloat(n, 'g', -1, 64)
	}
	return x
}

// sanitizeName keeps letters, digits and . _ + - = , in a job name (it
// becomes file names and a line of jobs.txt) and replaces the rest by _.
func sanitizeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("._+-=,", r):
			return r
		}
		return '_'
	}, s)
}

// checkScenario finds what fabric.Run would refuse before it runs any
// flow: Run itself with no workload (it builds the fabric and checks the
// switches', schemes' and transport's values, then stops at once), and
// the workload's own check for that fabric's hosts.
func checkScenario(sc fabric.Scenario) error {
	w := sc.Workload
	sc.Workload = fabric.Workload{}
	if _, err := fabric.Run(sc, nil); err != nil {
		return err
	}
	n, err := fabric.Build(sc.Topology, sc.Switch)
	if err != nil {
		return err
	}
	if w.Remote {
		w.Rack = len(n.Hosts) / len(n.ToRs)
	}
	if w.FlowsFile != "" {
		a, err := w.Arrivals(len(n.Hosts), n.Topo.Host.Speed, sc.Seed) // reads and checks the file
		if err != nil {
			return err
		}
		return a.Close()
	}
	return w.Check(len(n.Hosts), n.Topo.Host.Speed)
}

func (j job) suffix() string {
	s := ""
	for _, kv := range j.sets {
		s += "_" + sanitizeName(strings.ReplaceAll(kv[0], ".", "-")) + "=" + sanitizeName(kv[1])
	}
	return s + "_seed" + strconv.Itoa(j.seed)
}

func combos(axes []axis) [][][2]string {
	out := [][][2]string{nil}
	for _, a := range axes {
		var next [][][2]string
		for _, c := range out {
			for _, v := range a.values {
				next = append(next, append(append([][2]string(nil), c...), [2]string{a.key, v}))
			}
		}
		out = next
	}
	return out
}

// scenario applies the job's settings to the YAML document and decodes it.
func (j job) scenario(raw []byte, dir string) (*fabric.Scenario, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	if doc == nil {
		doc = map[string]any{}
	}
	for _, kv := range j.sets {
		var v any
		if err := yaml.Unmarshal([]byte(kv[1]), &v); err != nil {
			return nil, fmt.Errorf("value %q: %w", kv[1], err)
		}
		m := doc
		parts := strings.Split(kv[0], ".")
		for _, p := range parts[:len(parts)-1] {
			sub, ok := m[p].(map[string]any)
			if !ok {
				sub = map[string]any{}
				m[p] = sub
			}
			m = sub
		}
		m[parts[len(parts)-1]] = v
	}
	doc["seed"] = j.seed
	doc["name"] = j.name
	b, err := yaml.Marshal(doc)
	if err != nil {
		return nil, err
	}
	sc, err := fabric.ReadScenario(strings.NewReader(string(b)))
	if err != nil {
		return nil, err
	}
	sc.ResolvePaths(dir)
	sc.Workload.ResolveCDF(dir)
	return sc, nil
}

func emitSlurm(w io.Writer, out string, all []job) error {
	abs, err := filepath.Abs(out)
	if err != nil {
		return usage("-o %s: %v", out, err)
	}
	if strings.ContainsAny(abs, "\"\n%") {
		return usage("-o %q: a Slurm output directory may not contain \", %% or a newline", out)
	}
	// Everything is made in memory and written to a temporary directory
	// beside OUT, then moved in: an error leaves no half-written sweep.
	files := map[string][]byte{}
	var jl strings.Builder
	for _, j := range all {
		// Each array task runs one job line; jobs are deterministic, so a
		// failed task can simply be resubmitted.
		jl.WriteString(fmt.Sprintf("sfcsim run %s -q -o .", shellQuote(j.name+".yaml")) + "\n")
		b, err := yaml.Marshal(j.sc)
		if err != nil {
			return err
		}
		files[j.name+".yaml"] = b
	}
	files["jobs.txt"] = []byte(jl.String())
	files["sweep.sbatch"] = []byte(fmt.Sprintf(`#!/bin/bash
#SBATCH --job-name=sfcsim-sweep
#SBATCH --array=1-%d
#SBATCH --cpus-per-task=1
#SBATCH --output="%s/slurm-%%A_%%a.out"
# Generated by sfcsim sweep --emit slurm: one deterministic job per task.
cd %s || exit 1
eval "$(sed -n "${SLURM_ARRAY_TASK_ID}p" jobs.txt)"
`, len(all), abs, shellQuote(abs)))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for name, b := range files {
		mode := os.FileMode(0o644)
		if name == "sweep.sbatch" {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(tmp, name), b, mode); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := os.Rename(tmp, abs); err != nil {
		// OUT exists: move the files in one by one, each a rename.
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return err
		}
		for name := range files {
			if err := os.Rename(filepath.Join(tmp, name), filepath.Join(abs, name)); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(w, "wrote %d job scenarios, %s and %s\n", len(all), dissect.Escape(filepath.Join(out, "jobs.txt")), dissect.Escape(filepath.Join(out, "sweep.sbatch")))
	return nil
}

// sweepNotInput refuses (usage error) a sweep one of whose outputs in out
// would be one of its inputs: the scenario, or a CDF or flows file of a
// job (any spelling or link of it, atomicfile.CheckNotInput).
func sweepNotInput(scenario, out, emit string, all []job) error {
	inputs := []string{scenario}
	seen := map[string]bool{scenario: true}
	for i := range all {
		for _, in := range all[i].sc.InputFiles() {
			if !seen[in] {
				seen[in] = true
				inputs = append(inputs, in)
			}
		}
	}
	var outs []string
	if emit == "slurm" {
		outs = append(outs, filepath.Join(out, "jobs.txt"), filepath.Join(out, "sweep.sbatch"))
		for i := range all {
			outs = append(outs, filepath.Join(out, all[i].name+".yaml"))
		}
	} else {
		outs = append(outs, filepath.Join(out, "sweep.csv"))
		for i := range all {
			outs = append(outs, runOpts{out: out}.outputs(all[i].name)...)
		}
	}
	for _, o := range outs {
		if err := atomicfile.CheckNotInput(o, inputs...); err != nil {
			return usage("%v", err)
		}
	}
	return nil
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// sweepRow is a job's line of sweep.csv (writeSweepCSV's columns).
func sweepRow(j *job, res *fabric.Result) []string {
	row := []string{j.name}
	for _, kv := range j.sets {
		row = append(row, kv[1])
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	d := func(v int64) string { return strconv.FormatInt(v, 10) }
	p := func(v float64) string {
		if res.All.N == 0 {
			return "" // no background flow: no slowdown statistic
		}
		return f(v)
	}
	return append(row, strconv.Itoa(j.seed), strconv.Itoa(res.Flows), strconv.Itoa(res.Completed),
		p(res.All.P50), p(res.All.P95), p(res.All.P99), d(res.MaxBuffer), d(res.Drops), d(res.PauseFrames), f(res.Goodput))
}

// writeSweepCSV writes one row per job, in job order, through a temporary
// file: job, one column per --set key, seed, then the results.
func writeSweepCSV(path string, axes []axis, rows [][]string) error {
	f, err := atomicfile.Create(path, atomicfile.DefaultPerm)
	if err != nil {
		return err
	}
	defer f.Abort()
	c := csv.NewWriter(f)
	head := []string{"job"}
	for _, a := range axes {
		head = append(head, a.key)
	}
	_ = c.Write(append(head, "seed", "flows", "completed", "p50", "p95", "p99", "max_buffer", "drops", "pause_frames", "goodput_bps"))
	for _, r := range rows {
		_ = c.Write(r)
	}
	c.Flush()
	if err := c.Error(); err != nil {
		return err
	}
	return f.Commit()
}
