// SPDX-License-Identifier: Apache-2.0

// Command overhead runs the layers package's BenchmarkOverhead many times
// and summarises issue #2's budget, "our layer may add at most the cost of
// gopacket's IPv4 decode", per format: the medians of what our layer adds
// (ours-ns) and of what IPv4 adds (ipv4-ns), the median of their ratio
// taken run by run (x-ipv4), and a bootstrap 95% interval of the median of
// ours-ns minus ipv4-ns.
//
//	go run ./bench/overhead                      # 15 runs of every format
//	go run ./bench/overhead -count 30 -rows 'write|postcard'
//	taskset -c 1 go run ./bench/overhead         # one CPU, where there is taskset
//
// Differences of a few nanoseconds need care on a shared machine. On the
// development VM a vCPU now and then shares its core with another
// tenant's busy thread for seconds at a time: IPv4's own figure then rises
// from ~9.5 to 11-12 ns, and decoders that store more than IPv4 does
// (postcard, BTS) slow more than it, up to 1.2x. Each run reports IPv4's
// figure beside ours, so such runs show: the table gives every run's
// figures and, apart, those of the quiet runs, whose IPv4 figure is within
// -quiet of the fastest IPv4 figure of the session. The selection looks at
// the yardstick only, never at our layer's figure.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// run is one BenchmarkOverhead result line.
type run struct {
	format     string
	ours, ipv4 float64 // ns
	ratio      float64 // x-ipv4
}

// parseLine reads a result line of BenchmarkOverhead, such as
//
//	BenchmarkOverhead/pause-2  123  9.1 ns/op  9.1 full-ns  9.4 ipv4-ns  4.2 ours-ns  0.45 x-ipv4
//
// and reports false for any other line.
func parseLine(line string) (run, bool) {
	f := strings.Fields(line)
	if len(f) < 4 || !strings.HasPrefix(f[0], "BenchmarkOverhead/") {
		return run{}, false
	}
	r := run{format: strings.TrimPrefix(f[0], "BenchmarkOverhead/")}
	if i := strings.LastIndexByte(r.format, '-'); i > 0 {
		if _, err := strconv.Atoi(r.format[i+1:]); err == nil {
			r.format = r.format[:i] // the GOMAXPROCS suffix
		}
	}
	var have int
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return run{}, false
		}
		switch f[i+1] {
		case "ours-ns":
			r.ours, have = v, have|1
		case "ipv4-ns":
			r.ipv4, have = v, have|2
		case "x-ipv4":
			r.ratio, have = v, have|4
		}
	}
	if have != 7 {
		return run{}, false
	}
	return r, true
}

// median returns the median of v (0 for none). It sorts a copy.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// bootstrap returns the 2.5% and 97.5% points of the median of v over n
// resamples drawn with rng, taken symmetrically from the sorted medians.
func bootstrap(v []float64, n int, rng *rand.Rand) (lo, hi float64) {
	if len(v) == 0 || n < 1 {
		return 0, 0
	}
	meds := make([]float64, n)
	re := make([]float64, len(v))
	for i := range meds {
		for j := range re {
			re[j] = v[rng.IntN(len(v))]
		}
		meds[i] = median(re)
	}
	slices.Sort(meds)
	return interval(meds)
}

// interval returns the 2.5% and 97.5% points of sorted (not empty), taken
// the same number of values in from either end.
func interval(sorted []float64) (lo, hi float64) {
	i := len(sorted) * 25 / 1000
	return sorted[i], sorted[len(sorted)-1-i]
}

// summary is one line of the table.
type summary struct {
	format          string
	runs            int
	ours, ipv4      float64 // medians, ns
	ratio           float64 // median of the per-run ratios
	diff, lo, hi    float64 // median of ours-ipv4 and its 95% interval
	quiet           int     // runs with a quiet IPv4 figure
	quietRatio      float64
	qDiff, qLo, qHi float64
}

// summarise groups the runs by format, in the order the formats first
// appear, and keeps as quiet the runs whose IPv4 figure is at most quiet
// times the fastest IPv4 figure of all runs.
func summarise(runs []run, quiet float64, resamples int, seed uint64) []summary {
	fastest := 0.0
	for _, r := range runs {
		if fastest == 0 || r.ipv4 < fastest {
			fastest = r.ipv4
		}
	}
	var order []string
	by := map[string][]run{}
	for _, r := range runs {
		if _, ok := by[r.format]; !ok {
			order = append(order, r.format)
		}
		by[r.format] = append(by[r.format], r)
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	var out []summary
	for _, f := range order {
		rs := by[f]
		var ours, ipv4, ratio, diff, qRatio, qDiff []float64
		for _, r := range rs {
			ours, ipv4, ratio, diff = append(ours, r.ours), append(ipv4, r.ipv4), append(ratio, r.ratio), append(diff, r.ours-r.ipv4)
			if r.ipv4 <= quiet*fastest {
				qRatio, qDiff = append(qRatio, r.ratio), append(qDiff, r.ours-r.ipv4)
			}
		}
		s := summary{format: f, runs: len(rs), ours: median(ours), ipv4: median(ipv4), ratio: median(ratio), diff: median(diff),
			quiet: len(qDiff), quietRatio: median(qRatio), qDiff: median(qDiff)}
		s.lo, s.hi = bootstrap(diff, resamples, rng)
		s.qLo, s.qHi = bootstrap(qDiff, resamples, rng)
		out = append(out, s)
	}
	return out
}

// write prints the table in Markdown.
func write(w io.Writer, ss []summary, quiet float64) {
	fmt.Fprintf(w, "| format | runs | ours ns | IPv4 ns | ratio | ours-IPv4 ns [95%%] | quiet runs (IPv4 <= %.2fx fastest) | ratio | ours-IPv4 ns [95%%] |\n", quiet)
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---|---:|---:|---|")
	for _, s := range ss {
		q := "| - | -"
		if s.quiet > 0 {
			q = fmt.Sprintf("| %.2f | %+.2f [%+.2f, %+.2f]", s.quietRatio, s.qDiff, s.qLo, s.qHi)
		}
		fmt.Fprintf(w, "| %s | %d | %.2f | %.2f | %.2f | %+.2f [%+.2f, %+.2f] | %d %s |\n",
			s.format, s.runs, s.ours, s.ipv4, s.ratio, s.diff, s.lo, s.hi, s.quiet, q)
	}
}

func main() {
	count := flag.Int("count", 15, "runs of each format (go test -count)")
	benchtime := flag.String("benchtime", "300ms", "go test -benchtime")
	rows := flag.String("rows", ".", "formats to run: a regular expression on the sub-benchmark name")
	pkg := flag.String("pkg", "./layers", "package holding BenchmarkOverhead")
	quiet := flag.Float64("quiet", 1.10, "a run is quiet when its IPv4 figure is at most this times the fastest")
	resamples := flag.Int("resamples", 2000, "bootstrap resamples")
	input := flag.String("in", "", "read go test output from this file (- for standard input) instead of running it")
	flag.Parse()
	if *resamples < 1 || *count < 1 || *quiet < 1 {
		fatal(fmt.Errorf("-count and -resamples must be at least 1, -quiet at least 1.0"))
	}

	var src io.Reader
	var cmd *exec.Cmd
	switch *input {
	case "":
		cmd = exec.Command("go", "test", *pkg, "-run", "^$", "-bench", "Overhead/("+*rows+")",
			"-benchtime", *benchtime, "-count", strconv.Itoa(*count))
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			fatal(err)
		}
		if err := cmd.Start(); err != nil {
			fatal(err)
		}
		fmt.Fprintln(os.Stderr, "running:", strings.Join(cmd.Args, " "))
		src = out
	case "-":
		src = os.Stdin
	default:
		f, err := os.Open(*input)
		if err != nil {
			fatal(err)
		}
		defer f.Close()
		src = f
	}
	var runs []run
	sc := bufio.NewScanner(src)
	for sc.Scan() {
		if r, ok := parseLine(sc.Text()); ok {
			runs = append(runs, r)
			fmt.Fprintf(os.Stderr, "%-22s ours %6.2f  ipv4 %6.2f  x %.2f\n", r.format, r.ours, r.ipv4, r.ratio)
		} else if l := sc.Text(); !strings.HasPrefix(l, "goos:") && !strings.HasPrefix(l, "goarch:") &&
			!strings.HasPrefix(l, "pkg:") && !strings.HasPrefix(l, "cpu:") && l != "PASS" && !strings.HasPrefix(l, "ok ") {
			fmt.Fprintln(os.Stderr, l) // a failure's reason, a panic: whatever go test says besides results
		}
	}
	if err := sc.Err(); err != nil {
		fatal(err)
	}
	var failed error
	if cmd != nil {
		if err := cmd.Wait(); err != nil {
			failed = fmt.Errorf("go test: %w", err)
		}
	}
	if len(runs) == 0 {
		if failed != nil {
			fatal(failed)
		}
		fatal(fmt.Errorf("no BenchmarkOverhead results"))
	}
	// What ran is worth its table even when go test failed part way.
	write(os.Stdout, summarise(runs, *quiet, *resamples, 1), *quiet)
	if failed != nil {
		fatal(fmt.Errorf("%w: the table holds only the runs before the failure (its reason is above)", failed))
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "overhead:", err)
	os.Exit(1)
}
