// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/opensfc/sfc/atomicfile"
	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/conformance/scenario"
	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/filter"
)

func init() { subcommands = append(subcommands, subcommand{name: "conform", make: newConformCmd}) }

// errConformSilent ends a conform command with a status and no message
// (the report already said everything).
var errConformSilent = errors.New("")

func newConformCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "conform",
		Short: "Replay conformance vectors against the reference models, or check a device's capture",
		Long: `conform replays a vector (case.yaml, input.pcapng, expected.pcapng) through
the reference models and compares their output with the expected capture
(exact mode), or compares a capture of a vendor's device with the reference
(device mode: the rules of 'sfcdump conform rules'). Exit status: 0 pass,
1 deviations, 2 the vector or capture is unusable, 3 inconclusive; with
several vectors, the worst.

See conformance/README.md for the vector format and how to capture a device.`,
	}
	cmd.AddCommand(newConformRunCmd(), newConformCheckCmd(), newConformGenCmd(), newConformScenarioCmd(), newConformRulesCmd())
	cmd.AddCommand(newConformLiveCmd())
	return cmd
}

// conformFormat writes reports as text or JSON.
type conformFormat struct {
	format   string
	maxShown int
	quiet    bool
	verbose  bool
	dut      string
	digest   string
	dig      conformance.Digest // digest, parsed by check
}

func (f *conformFormat) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&f.format, "format", "T", "text", "report format: text, json, jsonl (one object per deviation and per rule verdict) or junit (JUnit XML for CI)")
	cmd.Flags().IntVar(&f.maxShown, "max", 20, "deviations shown per rule (all are counted)")
	cmd.Flags().BoolVarP(&f.quiet, "quiet", "q", false, "text: one line per vector unless it fails")
	cmd.Flags().BoolVarP(&f.verbose, "verbose", "v", false, "text: also list the background frames (not checked)")
	cmd.Flags().StringVar(&f.dut, "dut", "", `the device under test, named in the report ("vendor model firmware")`)
	cmd.Flags().StringVar(&f.digest, "digest", string(conformance.DigestBLAKE3), "hash of the report's vector and capture digests: blake3 (as b3sum gives it) or sha256 (as sha256sum)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json", "jsonl", "junit"}, cobra.ShellCompDirectiveNoFileComp))
	var digests []string
	for _, d := range conformance.Digests {
		digests = append(digests, string(d))
	}
	_ = cmd.RegisterFlagCompletionFunc("digest", cobra.FixedCompletions(digests, cobra.ShellCompDirectiveNoFileComp))
}

func (f *conformFormat) check() error {
	if err := f.checkMax(); err != nil {
		return err
	}
	d, err := conformance.ParseDigest(f.digest)
	if err != nil {
		return &usageError{fmt.Errorf("--digest: %v", err)}
	}
	f.dig = d
	switch f.format {
	case "text", "json", "jsonl", "junit":
		return nil
	}
	return &usageError{fmt.Errorf("--format %q: want text, json, jsonl or junit", f.format)}
}

// checkMax range-checks --max (also done by check).
func (f *conformFormat) checkMax() error {
	if f.maxShown < 0 {
		return &usageError{fmt.Errorf("--max %d: want 0 or more", f.maxShown)}
	}
	return nil
}

// vectorDirs expands args into vector directories: a directory holding a
// case.yaml is a vector, any other directory is searched for vectors.
func vectorDirs(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			out = append(out, a) // reported as unusable by the run
			continue
		}
		if _, err := os.Stat(filepath.Join(a, conformance.CaseFile)); err == nil {
			out = append(out, a)
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && d.Name() == conformance.CaseFile {
				found = append(found, filepath.Dir(p))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			out = append(out, a) // unusable: no case.yaml anywhere
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// maxJobs bounds conform run -j: each job holds a vector's model and
// captures in memory.
const maxJobs = 256

func newConformRunCmd() *cobra.Command {
	var f conformFormat
	var jobs int
	cmd := &cobra.Command{
		Use:   "run DIR...",
		Short: "Replay vectors through the reference models and compare in exact mode",
		Long: `run replays each vector directory (or every vector under a directory) through
the reference model its case.yaml describes and compares the output with
expected.pcapng in exact mode. Exit status: 0 every vector passes, 1 some
deviate, 2 some vector is unusable (missing files, bad case.yaml, frames on
undefined ports, time going backwards, ...).`,
		Example: `  sfcdump conform run pcaps/
  sfcdump conform run pcaps/sfc/incast-first-bts -T json`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			dirs, err := vectorDirs(args)
			if err != nil {
				return &exitError{2, err}
			}
			if jobs < 1 || jobs > maxJobs {
				return &usageError{fmt.Errorf("-j %d: want 1 to %d", jobs, maxJobs)}
			}
			reps := runParallel(dirs, jobs, func(d string) *conformance.Report {
				rep, _ := conformance.RunVector(d, conformance.Options{MaxShown: f.maxShown, Sequential: jobs > 1})
				rep.DUT = f.dut
				rep.VectorDigest = f.dig.Files(filepath.Join(d, conformance.CaseFile), filepath.Join(d, conformance.InputFile), filepath.Join(d, conformance.ExpectedFile))
				return rep
			})
			return f.finish(cmd, reps)
		},
	}
	f.addFlags(cmd)
	cmd.Flags().IntVarP(&jobs, "jobs", "j", 1, "vectors replayed at once (1 to 256)")
	return cmd
}

// runParallel runs fn over dirs on jobs goroutines; the reports keep the
// order of dirs.
func runParallel(dirs []string, jobs int, fn func(string) *conformance.Report) []*conformance.Report {
	reps := make([]*conformance.Report, len(dirs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(jobs, max(1, len(dirs))); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				reps[i] = fn(dirs[i])
			}
		}()
	}
	for i := range dirs {
		next <- i
	}
	close(next)
	wg.Wait()
	return reps
}

// finish writes the reports and ends with the worst verdict's status.
func (f *conformFormat) finish(cmd *cobra.Command, reps []*conformance.Report) error {
	if err := f.write(cmd.OutOrStdout(), reps); err != nil {
		return &exitError{2, err}
	}
	var vs []string
	for _, r := range reps {
		vs = append(vs, r.Verdict)
	}
	if code := conformance.ExitCodeOf(conformance.Worst(vs...)); code != 0 {
		return &exitError{code, errConformSilent}
	}
	return nil
}

func (f *conformFormat) write(w io.Writer, reps []*conformance.Report) error {
	switch f.format {
	case "junit":
		return conformance.WriteJUnit(w, reps)
	case "jsonl":
		for _, r := range reps {
			if err := r.WriteJSONL(w); err != nil {
				return err
			}
		}
		return nil
	}
	if f.format == "json" {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		e.SetEscapeHTML(false)
		if len(reps) == 1 {
			return e.Encode(reps[0])
		}
		var vs []string
		for _, r := range reps {
			vs = append(vs, r.Verdict)
		}
		verdict := conformance.Worst(vs...)
		return e.Encode(struct {
			Reports []*conformance.Report `json:"reports"`
			Verdict string                `json:"verdict"`
		}{reps, verdict})
	}
	ew := &escapeLines{w: w}
	defer ew.Close()
	w = ew
	pass := 0
	for _, r := range reps {
		if f.quiet && r.Verdict == conformance.Pass {
			fmt.Fprintf(w, "PASS %s\n", dissect.Escape(r.Vector))
			pass++
			continue
		}
		write := r.WriteText
		if f.verbose {
			write = r.WriteTextVerbose
		}
		if err := write(w); err != nil {
			return err
		}
		if r.Verdict == conformance.Pass {
			pass++
		}
	}
	if len(reps) > 1 {
		fmt.Fprintf(w, "%d of %d vectors pass\n", pass, len(reps))
	}
	return nil
}

func newConformCheckCmd() *cobra.Command {
	var f conformFormat
	var casePath, input, dev, ignore string
	var mask []string
	cmd := &cobra.Command{
		Use:   "check --case case.yaml --input in.pcapng --device out.pcapng",
		Short: "Check a capture of a device's output against the reference (device mode)",
		Long: `check replays the device's input capture through the reference model the case
describes and checks the device's output capture against it in device mode:
the rules of 'sfcdump conform rules' (conformance.md "Device mode,
normative"), each with a stable id that every deviation names. Captures are
pcapng with interface i = port i (or the interface names the case gives),
every port its own interface; a NIC's host side is interface "host". Frames
before the first input frame, and background (ARP, ND, LLDP, STP, ICMP,
other TCP/UDP and EtherTypes, --ignore) are not checked. Exit status:
0 PASS, 1 FAIL, 2 UNUSABLE, 3 INCONCLUSIVE.`,
		Example: `  sfcdump conform check --case pcaps/sfc/incast-first-bts/case.yaml \
      --input pcaps/sfc/incast-first-bts/input.pcapng --device dut.pcapng
  sfcdump conform check --case my/case.yaml --input in.pcapng --device out.pcapng -T json > report.json
  sfcdump conform check --case my/case.yaml --input in.pcapng --device out.pcapng \
      --dut "Acme Switch 9000 fw 1.2.3" --mask udp.sport --ignore 'udp.dport == 5353' -T junit > junit.xml`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			if casePath == "" || input == "" || dev == "" {
				return &usageError{errors.New("conform check needs --case, --input and --device")}
			}
			// "-" is read's standard input, but device mode reads each
			// capture twice (its interfaces, then its frames) and hashes it
			// for the report: it needs files, and says so rather than
			// report a capture "-" missing.
			for _, fl := range []struct{ name, v string }{{"--case", casePath}, {"--input", input}, {"--device", dev}} {
				if fd, ok := atomicfile.DescriptorOf(fl.v); fl.v == "-" || ok && fd == 0 {
					return usagef("%s %s: conform check reads files, not standard input (it reads each capture twice and names it in the report): save it to a file first", fl.name, dissect.Escape(fl.v))
				}
			}
			// Blame a bad --mask or --ignore on the flag (a usage error,
			// exit 2, no report), not on the case.yaml they are added to.
			for _, m := range mask {
				if err := conformance.CheckMask([]string{m}); err != nil {
					return &usageError{fmt.Errorf("--mask %s: %v", m, err)}
				}
			}
			if filter.Empty(ignore) {
				ignore = "" // only spaces: no filter, as -Y takes it
			}
			if ignore != "" {
				if _, err := filter.Compile(ignore); err != nil {
					return &usageError{fmt.Errorf("--ignore %q: not a display filter: %v", ignore, err)}
				}
			}
			rep, _ := conformance.CheckFiles(casePath, input, dev, conformance.Options{MaxShown: f.maxShown, DUT: f.dut, Mask: mask, Ignore: ignore, Digest: f.dig})
			return f.finish(cmd, []*conformance.Report{rep})
		},
	}
	f.addFlags(cmd)
	cmd.Flags().StringVar(&casePath, "case", "", "the case.yaml describing the device")
	cmd.Flags().StringVar(&input, "input", "", "capture of every frame entering the device")
	cmd.Flags().StringVar(&dev, "device", "", "capture of every frame the device sent")
	cmd.Flags().StringSliceVar(&mask, "mask", nil, "fields of signal frames not compared (added to the case's mask:), e.g. udp.srcport,bts.reporter")
	cmd.Flags().StringVar(&ignore, "ignore", "", "display filter: matching device frames are background (or-ed with the case's ignore:)")
	return cmd
}

func newConformRulesCmd() *cobra.Command {
	var format, corpus string
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List the rules of device mode: id, clause, tolerance, vectors",
		Long: `rules lists every check of device mode with its stable id (every deviation of a
report names it), the rule of conformance.md and the clause of behaviour.md,
wire.md or the IEEE standard it enforces, its tolerance and the vectors of
--corpus that exercise it. docs/test-plan.md is the same list.`,
		Example: `  sfcdump conform rules
  sfcdump conform rules --corpus pcaps -T json`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" && format != "markdown" {
				return &usageError{fmt.Errorf("--format %q: want text, json or markdown", format)}
			}
			vectors := map[string][]string{}
			if corpus != "" {
				dirs, err := vectorDirs([]string{corpus})
				if err != nil {
					return &exitError{2, err}
				}
				if vectors, err = conformance.RuleVectors(corpus, dirs); err != nil {
					return &exitError{2, err}
				}
			}
			out := cmd.OutOrStdout()
			switch format {
			case "markdown":
				return conformance.WriteTestPlan(out, vectors)
			case "json":
				type row struct {
					conformance.Rule
					Vectors []string `json:"vectors"`
				}
				var rows []row
				for _, r := range conformance.Rules {
					rows = append(rows, row{r, append([]string{}, vectors[r.ID]...)})
				}
				e := json.NewEncoder(out)
				e.SetIndent("", "  ")
				e.SetEscapeHTML(false)
				return e.Encode(rows)
			}
			for _, r := range conformance.Rules {
				fmt.Fprintf(out, "%-18s rule %d  %s\n    tolerance: %s\n    check: %s\n", r.ID, r.Normative, r.Clause, r.Tolerance, r.Check)
				if corpus != "" {
					fmt.Fprintf(out, "    vectors: %s\n", strings.Join(vectors[r.ID], ", "))
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&format, "format", "T", "text", "text, json or markdown (the test plan)")
	cmd.Flags().StringVar(&corpus, "corpus", "", "a directory of vectors: list the vectors that exercise each rule")
	return cmd
}

func newConformGenCmd() *cobra.Command {
	var dryRun, inputs bool
	var maxShown int
	cmd := &cobra.Command{
		Use:   "gen DIR...",
		Short: "Regenerate vectors' expected.pcapng from the reference models, showing the diff first",
		Long: `gen replays each vector's input through the reference model and writes the
model's output as expected.pcapng. Before overwriting it prints the
differences between the old expected capture and the new output (an
exact-mode report). With --inputs it first regenerates case.yaml and
input.pcapng from the scenario line in case.yaml. A vector's files are
written to temporary files and renamed only when all are complete: an
error leaves every file of the vector as it was.`,
		Example: `  sfcdump conform gen pcaps/sfc/incast-first-bts
  sfcdump conform gen --dry-run pcaps/
  sfcdump conform gen --inputs pcaps/`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxShown < 0 {
				return &usageError{fmt.Errorf("--max %d: want 0 or more", maxShown)}
			}
			dirs, err := vectorDirs(args)
			if err != nil {
				return &exitError{2, err}
			}
			defer removeOutputsOnInterrupt(cmd.ErrOrStderr())()
			out := cmd.OutOrStdout()
			code := 0
			for _, d := range dirs {
				// A vector's files are one output: with --inputs, its new
				// case.yaml, input.pcapng and expected.pcapng are all put
				// in place, or none of them (a new input with the old
				// expected capture would be a vector that fails).
				var g atomicfile.Group
				opts := conformance.GenOptions{DryRun: dryRun, Group: &g}
				if inputs {
					c, in, err := regenInputs(&g, d)
					if err != nil {
						g.Abort()
						fmt.Fprintf(cmd.ErrOrStderr(), "sfcdump: %s: %v\n", d, err)
						code = 2
						continue
					}
					opts.Case, opts.Input = c, in
				}
				res, err := conformance.GenerateVectorWith(d, opts)
				if err == nil && dryRun {
					g.Abort() // --dry-run writes nothing, inputs included
				} else if err == nil {
					err = g.Commit()
				}
				if err != nil {
					g.Abort()
					fmt.Fprintf(cmd.ErrOrStderr(), "sfcdump: %v\n", err)
					code = 2
					continue
				}
				switch {
				case res.Created && dryRun:
					fmt.Fprintf(out, "%s: would create expected.pcapng (%d frames)\n", d, res.Frames)
					code = max(code, 1)
				case res.Created:
					fmt.Fprintf(out, "%s: created expected.pcapng (%d frames)\n", d, res.Frames)
				case !res.Changed:
					fmt.Fprintf(out, "%s: unchanged (%d frames)\n", d, res.Frames)
				default:
					verb := "rewrote"
					if dryRun {
						verb = "would rewrite"
						code = max(code, 1)
					}
					fmt.Fprintf(out, "%s: %s expected.pcapng (%d frames); differences from the old one:\n", d, verb, res.Frames)
					if res.Diff != nil {
						_ = res.Diff.WriteText(indentWriter{out})
					}
				}
			}
			if code != 0 {
				return &exitError{code, errConformSilent}
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&dryRun, "dry-run", "n", false, "show the differences, write nothing (exit 1 when something would change)")
	cmd.Flags().BoolVar(&inputs, "inputs", false, "first regenerate case.yaml and input.pcapng from the case's scenario line")
	cmd.Flags().IntVar(&maxShown, "max", 50, "differences shown per check")
	return cmd
}

// regenInputs remakes a vector's case.yaml and input.pcapng from the
// scenario line its case.yaml records, as files of g, and returns the new
// case and the name of the new input capture (complete, not yet in
// place).
func regenInputs(g *atomicfile.Group, dir string) (*conformance.Case, string, error) {
	path := filepath.Join(dir, conformance.CaseFile)
	c, err := conformance.LoadCase(path)
	if err != nil {
		return nil, "", err
	}
	if c.Scenario == "" {
		return nil, "", errors.New("case.yaml has no scenario line to regenerate the input from")
	}
	v, err := scenario.MakeLine(c.Scenario)
	if err != nil {
		return nil, "", err
	}
	// The case as conform run will load it from the file written.
	nc, err := conformance.ParseCase(path, v.CaseYAML)
	if err != nil {
		return nil, "", err
	}
	in, err := writeVectorInputs(g, dir, v)
	if err != nil {
		return nil, "", err
	}
	return nc, in, nil
}

// writeVectorInputs adds the vector's case.yaml and input.pcapng in dir
// to g, and returns the name of the input capture written (a temporary
// file until g commits).
func writeVectorInputs(g *atomicfile.Group, dir string, v *scenario.Vector) (string, error) {
	if err := g.WriteFile(filepath.Join(dir, conformance.CaseFile), v.CaseYAML, atomicfile.DefaultPerm); err != nil {
		return "", err
	}
	f, err := g.Create(filepath.Join(dir, conformance.InputFile), atomicfile.DefaultPerm)
	if err != nil {
		return "", err
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	err = v.WriteInput(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Commit() // complete: the group puts it in place
	}
	if err != nil {
		g.Abort()
		return "", err
	}
	return f.Name(), nil
}

type indentWriter struct{ w io.Writer }

func (iw indentWriter) Write(p []byte) (int, error) {
	s := "    " + strings.ReplaceAll(strings.TrimRight(string(p), "\n"), "\n", "\n    ") + "\n"
	if _, err := io.WriteString(iw.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}

func newConformScenarioCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scenario NAME [--flags] --out DIR",
		Short: "Write a new vector's case.yaml and input.pcapng from a scenario",
		Long: `scenario runs a scenario generator and writes case.yaml and input.pcapng into
--out DIR; then 'sfcdump conform gen DIR' adds expected.pcapng. The case
records the scenario line, so the vector can be regenerated and reviewed.
'sfcdump conform scenario list' lists the scenarios; 'sfcdump conform
scenario NAME --help' shows a scenario's flags; 'sfcdump conform scenario
corpus --out pcaps' rewrites the inputs of every vector of the corpus.

Scenarios: ` + scenarioNames(),
		Example: `  sfcdump conform scenario incast --senders 8 --sync 2us --burst 32KB --out /tmp/v1
  sfcdump conform scenario storm --pause --out /tmp/v2
  sfcdump conform scenario mix --elephants 2 --mice 30 --seed 7 --out /tmp/v3
  sfcdump conform gen /tmp/v1 /tmp/v2 /tmp/v3`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if len(args) == 0 || args[0] == "--help" || args[0] == "-h" {
				return cmd.Help()
			}
			if args[0] == "list" {
				if len(args) > 1 {
					return &usageError{fmt.Errorf("conform scenario list: unknown argument %q (see 'sfcdump conform scenario --help')", args[1])}
				}
				for _, s := range scenario.List() {
					fmt.Fprintf(out, "%-12s %s\n", s.Name, s.Summary)
				}
				return nil
			}
			name, rest := args[0], args[1:]
			dir, force := "", false
			var sargs []string
			for i := 0; i < len(rest); i++ {
				a := rest[i]
				switch {
				case (a == "--help" || a == "-h") && name == "corpus":
					fmt.Fprintln(out, "conform scenario corpus --out DIR: rewrites the inputs (case.yaml, input.pcapng) of every vector of the corpus under DIR, as pcaps/ holds them; then 'sfcdump conform gen DIR' makes the expected outputs.")
					return nil
				case a == "--help" || a == "-h":
					s, ok := scenario.Lookup(name)
					if !ok {
						return &usageError{fmt.Errorf("no scenario %q; known: %s", name, scenarioNames())}
					}
					s.Usage(out)
					fmt.Fprintln(out, "  -out string\n    \tdirectory to write case.yaml and input.pcapng into (required)\n  -force\n    \treplace the inputs of a vector already there")
					return nil
				case a == "--out" || a == "-out":
					if i+1 >= len(rest) {
						return &usageError{errors.New("--out needs a directory")}
					}
					dir = rest[i+1]
					i++
				case strings.HasPrefix(a, "--out=") || strings.HasPrefix(a, "-out="):
					_, dir, _ = strings.Cut(a, "=")
				case a == "--force" || a == "-force":
					force = true
				default:
					sargs = append(sargs, a)
				}
			}
			if dir == "" {
				return &usageError{errors.New("conform scenario needs --out DIR")}
			}
			defer removeOutputsOnInterrupt(cmd.ErrOrStderr())()
			if name == "corpus" {
				if len(sargs) > 0 {
					return &usageError{fmt.Errorf("conform scenario corpus takes --out DIR only, not %q", sargs[0])}
				}
				if err := scenario.WriteCorpus(dir); err != nil {
					return &exitError{1, err}
				}
				fmt.Fprintf(out, "%s: wrote the inputs of %d vectors; next: sfcdump conform gen %s\n", dir, len(scenario.Corpus), dir)
				return nil
			}
			v, err := scenario.Make(name, sargs)
			if err != nil {
				if errors.Is(err, scenario.ErrUsage) {
					return &usageError{err}
				}
				return &exitError{1, err}
			}
			// A vector there already: replacing its inputs (and leaving its
			// expected output stale) takes --force.
			_, errCase := os.Stat(filepath.Join(dir, conformance.CaseFile))
			_, errIn := os.Stat(filepath.Join(dir, conformance.InputFile))
			if (errCase == nil || errIn == nil) && !force {
				return &usageError{fmt.Errorf("--out %s holds a vector (%s, %s): --force replaces its inputs", dissect.Escape(dir), conformance.CaseFile, conformance.InputFile)}
			}
			if _, err := os.Stat(filepath.Join(dir, conformance.ExpectedFile)); err == nil {
				defer fmt.Fprintf(cmd.ErrOrStderr(), "sfcdump: %s is now stale: run sfcdump conform gen %s\n", dissect.Escape(filepath.Join(dir, conformance.ExpectedFile)), dissect.Escape(dir))
			}
			// case.yaml and input.pcapng together, or neither.
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return &exitError{1, err}
			}
			var g atomicfile.Group
			defer g.Abort()
			if _, err := writeVectorInputs(&g, dir, v); err != nil {
				return &exitError{1, err}
			}
			if err := g.Commit(); err != nil {
				return &exitError{1, err}
			}
			fmt.Fprintf(out, "%s: %d input frames; next: sfcdump conform gen %s\n", dir, len(v.Frames), dir)
			return nil
		},
	}
	return cmd
}

func scenarioNames() string {
	var n []string
	for _, s := range scenario.List() {
		n = append(n, s.Name)
	}
	return strings.Join(n, ", ")
}
