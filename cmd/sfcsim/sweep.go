// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/opensfc/sfc/fabric"
	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"
)

// A sweep runs one scenario once per combination of parameter values ×
// seeds. Each job is independent and deterministic (its seed is in its
// name), so jobs may run in any order, in parallel, or on a cluster.
func newSweepCmd() *cobra.Command {
	var sets []string
	var seeds, jobs int
	var out, emit string
	c := &cobra.Command{
		Use:   "sweep scenario.yaml --set KEY=V1,V2 ... [--seeds N] [-j N] [--emit slurm]",
		Short: "Run a parameter sweep as independent seeded jobs (or write a Slurm job array)",
		Long: `Run scenario.yaml once per combination of the --set values and per seed. KEY is
a dotted path into the scenario (transport.cc, workload.load, flow_control, ...).
Each job writes OUT/JOB.json and OUT/JOB.csv. With --emit slurm, sfcsim writes
OUT/jobs.txt (one "sfcsim run" line per job) and OUT/sweep.sbatch (a job array
running line $SLURM_ARRAY_TASK_ID) instead of running anything.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usage("sweep takes one scenario file")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if jobs < 1 || seeds < 1 {
				return usage("-j and --seeds must be at least 1")
			}
			if emit != "" && emit != "slurm" {
				return usage("--emit %q: only slurm", emit)
			}
			raw, err := os.ReadFile(args[0])
			if err != nil {
				return usage("%v", err)
			}
			var axes []axis
			for _, s := range sets {
				k, v, ok := strings.Cut(s, "=")
				if !ok || k == "" || v == "" {
					return usage("--set %q: want KEY=V1,V2", s)
				}
				axes = append(axes, axis{k, strings.Split(v, ",")})
			}
			var all []job
			for _, combo := range combos(axes) {
				for sd := 1; sd <= seeds; sd++ {
					all = append(all, job{sets: combo, seed: sd})
				}
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			base := strings.TrimSuffix(filepath.Base(args[0]), filepath.Ext(args[0]))
			for i := range all {
				all[i].name = base + all[i].suffix()
			}
			if emit == "slurm" {
				return emitSlurm(cmd.OutOrStdout(), out, args[0], all)
			}
			// Check every job's scenario before running any.
			scs := make([]*fabric.Scenario, len(all))
			for i, j := range all {
				if scs[i], err = j.scenario(raw, filepath.Dir(args[0])); err != nil {
					return usage("job %s: %v", j.name, err)
				}
			}
			var mu sync.Mutex
			var firstErr error
			sem := make(chan struct{}, jobs)
			var wg sync.WaitGroup
			for i := range all {
				wg.Add(1)
				sem <- struct{}{}
				go func(i int) {
					defer wg.Done()
					defer func() { <-sem }()
					res, err := fabric.Run(*scs[i], nil)
					if err == nil {
						err = res.WriteJSON(filepath.Join(out, all[i].name+".json"))
					}
					if err == nil {
						err = res.WriteCSV(filepath.Join(out, all[i].name+".csv"))
					}
					mu.Lock()
					defer mu.Unlock()
					if err != nil {
						if firstErr == nil {
							firstErr = fmt.Errorf("job %s: %w", all[i].name, err)
						}
						return
					}
					fmt.Fprintf(cmd.OutOrStdout(), "%s: %d/%d flows, all P50/P99 %.2f/%.2f, max buffer %.2f MB\n",
						all[i].name, res.Completed, res.Flows, res.All.P50, res.All.P99, float64(res.MaxBuffer)/1e6)
				}(i)
			}
			wg.Wait()
			return firstErr
		},
	}
	c.Flags().StringArrayVar(&sets, "set", nil, "KEY=V1,V2,... (repeatable; the sweep is the cross product)")
	c.Flags().IntVar(&seeds, "seeds", 1, "seeds per combination (1..N)")
	c.Flags().IntVarP(&jobs, "jobs", "j", 1, "jobs to run at once")
	c.Flags().StringVarP(&out, "out", "o", "sweep", "output directory")
	c.Flags().StringVar(&emit, "emit", "", "write a job script instead of running (slurm)")
	return c
}

type axis struct {
	key    string
	values []string
}

type job struct {
	name string
	sets [][2]string
	seed int
}

func (j job) suffix() string {
	s := ""
	for _, kv := range j.sets {
		s += "_" + strings.ReplaceAll(kv[0], ".", "-") + "=" + kv[1]
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
	return sc, nil
}

func emitSlurm(w io.Writer, out, scenario string, all []job) error {
	// Each array task runs one job line; jobs are deterministic, so a
	// failed task can simply be resubmitted.
	var jl strings.Builder
	for _, j := range all {
		jl.WriteString(fmt.Sprintf("sfcsim run %s -q -o .", shellQuote(j.name+".yaml")) + "\n")
	}
	for _, j := range all {
		raw, err := os.ReadFile(scenario)
		if err != nil {
			return err
		}
		sc, err := j.scenario(raw, filepath.Dir(scenario))
		if err != nil {
			return usage("job %s: %v", j.name, err)
		}
		b, err := yaml.Marshal(sc)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, j.name+".yaml"), b, 0o644); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(out, "jobs.txt"), []byte(jl.String()), 0o644); err != nil {
		return err
	}
	script := fmt.Sprintf(`#!/bin/bash
#SBATCH --job-name=sfcsim-sweep
#SBATCH --array=1-%d
#SBATCH --cpus-per-task=1
#SBATCH --output=%s/slurm-%%A_%%a.out
# Generated by sfcsim sweep --emit slurm: one deterministic job per task.
cd %s || exit 1
eval "$(sed -n "${SLURM_ARRAY_TASK_ID}p" jobs.txt)"
`, len(all), out, shellQuote(out))
	if err := os.WriteFile(filepath.Join(out, "sweep.sbatch"), []byte(script), 0o755); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %d job scenarios, %s and %s\n", len(all), filepath.Join(out, "jobs.txt"), filepath.Join(out, "sweep.sbatch"))
	return nil
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
