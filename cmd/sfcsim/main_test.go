// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/opensfc/sfc/fabric"
	"github.com/opensfc/sfc/internal/syncbuf"
)

func sfcsim(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"run"},
		{"run", "a.yaml", "b.yaml"},
		{"run", "/nonexistent.yaml"},
		{"fig", "nosuchfig"},
		{"fig"},
		{"fig", "bfc-fig10", "nosuchfig"},
		{"run", "--nosuchflag", "x"},
		{"run", "--seed", "-5", "../../fabric/testdata/small.yaml"},
		{"sweep", "../../fabric/testdata/small.yaml", "--set", "novalue"},
		{"sweep", "../../fabric/testdata/small.yaml", "-j", "0"},
		{"fig", "hpcc-readme", "--jobs", "0"},
		{"fig", "hpcc-readme", "-j", "257"},
		{"bogus"},
		{"fig", "hpcc-readme", "-o", ""},
		{"run", "-q", "-o", "out", "--flows-out", "out/small-hpcc.json", "../../fabric/testdata/small.yaml"},
	} {
		if code, _, stderr := sfcsim(args...); code != 2 || !strings.HasPrefix(stderr, "sfcsim: ") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// TestOutputCheckedFirst: an output directory that cannot be made or
// written is an error at once, before the simulation (a full figure runs
// for an hour), for run and fig alike.
func TestOutputCheckedFirst(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(file, nil, 0o644)
	for _, args := range [][]string{
		{"run", "-q", "-o", filepath.Join(file, "x"), "../../fabric/testdata/small.yaml"},
		{"fig", "sfc-fig7", "-q", "-o", filepath.Join(file, "x")},
	} {
		start := time.Now()
		code, out, stderr := sfcsim(args...)
		if code == 0 || out != "" || !strings.Contains(stderr, "not a directory") || time.Since(start) > 2*time.Second {
			t.Errorf("%v: exit %d after %v, stdout %q, stderr %q; want an error before any run", args, code, time.Since(start), out, stderr)
		}
	}
}

func TestBadScenarioValue(t *testing.T) {
	f := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(f, []byte("topology: {kind: leafspine, tors: 0, spines: 1, hosts_per_tor: 2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := sfcsim("run", "-q", f); code != 2 || !strings.Contains(stderr, "tors") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestRunScenario(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := sfcsim("run", "-q", "-o", dir, "--flows-out", filepath.Join(dir, "flows.txt"), "../../fabric/testdata/small.yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "small-hpcc (seed 1)") || !strings.Contains(out, "max switch buffer") {
		t.Errorf("summary %q", out)
	}
	for _, f := range []string{"small-hpcc.json", "small-hpcc.csv", "small-hpcc.fct.csv", "small-hpcc.buffer.csv", "flows.txt",
		"small-hpcc.fct.svg", "small-hpcc.fct.png", "small-hpcc.buffer.svg", "small-hpcc.buffer.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	// The buffer over time: a row per sample, a column per switch, whose
	// largest value is the switch's sampled peak in the JSON.
	b, _ := os.ReadFile(filepath.Join(dir, "small-hpcc.buffer.csv"))
	rows := strings.Split(strings.TrimSpace(string(b)), "\n")
	var res struct {
		SampleEvery int64 `json:"sample_every"`
		Switches    []struct {
			Name string `json:"name"`
			P99  int64  `json:"p99"`
		} `json:"switches"`
	}
	j, _ := os.ReadFile(filepath.Join(dir, "small-hpcc.json"))
	if err := json.Unmarshal(j, &res); err != nil {
		t.Fatal(err)
	}
	head := strings.Split(rows[0], ",")
	if len(rows) < 10 || head[0] != "time_ns" || len(head) != 1+len(res.Switches) || head[1] != res.Switches[0].Name {
		t.Fatalf("buffer.csv header %q, %d rows; switches %v", rows[0], len(rows), res.Switches)
	}
	if r2 := strings.Split(rows[2], ","); len(r2) != len(head) || r2[0] != "10000" {
		t.Errorf("buffer.csv row 2 %q: want the second sample at 10000 ns", rows[2])
	}
}

func TestSweepSlurm(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := sfcsim("sweep", "../../fabric/testdata/small.yaml", "--set", "transport.cc=hpcc,dcqcn", "--seeds", "2", "--emit", "slurm", "-o", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	jobs, _ := os.ReadFile(filepath.Join(dir, "jobs.txt"))
	if n := strings.Count(string(jobs), "\n"); n != 4 || !strings.Contains(out, "wrote 4 job scenarios") {
		t.Errorf("jobs.txt has %d lines: %s", n, jobs)
	}
	sb, _ := os.ReadFile(filepath.Join(dir, "sweep.sbatch"))
	if !strings.Contains(string(sb), "#SBATCH --array=1-4") {
		t.Errorf("sbatch: %s", sb)
	}
	y, err := os.ReadFile(filepath.Join(dir, "small_transport-cc=dcqcn_seed2.yaml"))
	if err != nil || !strings.Contains(string(y), "cc: dcqcn") || !strings.Contains(string(y), "seed: 2") {
		t.Errorf("job scenario: %v %s", err, y)
	}
	// And a local sweep of the two seeds runs both jobs.
	code, out, stderr = sfcsim("sweep", "../../fabric/testdata/small.yaml", "--seeds", "2", "-j", "2", "-o", dir)
	if code != 0 || strings.Count(out, "flows") != 2 {
		t.Errorf("exit %d, out %q, err %q", code, out, stderr)
	}
}

// TestSweepOutputs: a local sweep writes each job's files as run --out
// does (a Slurm task runs run, so both ways give the same files), and
// sweep.csv has one row per job, in job order, whatever -j, with the job's
// values and its results equal to the job's own JSON.
func TestSweepOutputs(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := sfcsim("sweep", "../../fabric/testdata/small.yaml", "--set", "transport.cc=hpcc,dcqcn", "--seeds", "2", "-j", "2", "-o", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	jobs := []struct{ name, cc, seed string }{
		{"small_transport-cc=hpcc_seed1", "hpcc", "1"}, {"small_transport-cc=hpcc_seed2", "hpcc", "2"},
		{"small_transport-cc=dcqcn_seed1", "dcqcn", "1"}, {"small_transport-cc=dcqcn_seed2", "dcqcn", "2"},
	}
	for _, jb := range jobs {
		j := jb.name
		for _, ext := range []string{".json", ".csv", ".fct.csv", ".buffer.csv", ".fct.svg", ".fct.png", ".buffer.svg", ".buffer.png"} {
			if fi, err := os.Stat(filepath.Join(dir, j+ext)); err != nil || fi.Size() == 0 {
				t.Errorf("%s%s: %v", j, ext, err)
			}
		}
	}
	f, err := os.Open(filepath.Join(dir, "sweep.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"job", "transport.cc", "seed", "flows", "completed", "p50", "p95", "p99", "max_buffer", "drops", "pause_frames", "goodput_bps"}
	if len(rows) != 5 || !slices.Equal(rows[0], want) {
		t.Fatalf("sweep.csv: %q", rows)
	}
	for i, jb := range jobs {
		r, j, cc, seed := rows[i+1], jb.name, jb.cc, jb.seed
		var res struct {
			Flows     int                   `json:"flows"`
			Completed int                   `json:"completed"`
			MaxBuffer int64                 `json:"max_buffer"`
			All       struct{ P99 float64 } `json:"all"`
		}
		b, _ := os.ReadFile(filepath.Join(dir, j+".json"))
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		if r[0] != j || r[1] != cc || r[2] != seed || r[3] != strconv.Itoa(res.Flows) || r[4] != strconv.Itoa(res.Completed) ||
			r[7] != strconv.FormatFloat(res.All.P99, 'g', -1, 64) || r[8] != strconv.FormatInt(res.MaxBuffer, 10) {
			t.Errorf("row %d: %q, want job %s (cc %s seed %s) with its JSON's %+v", i+1, r, j, cc, seed, res)
		}
	}
}

// TestFigSeveral: several figure names run in one invocation, each writing
// its data and plot (SVG and PNG) and printing its checks.
func TestFigSeveral(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := sfcsim("fig", "-q", "-o", dir, "bfc-fig10", "sfc-fig5")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, n := range []string{"bfc-fig10-ci", "sfc-fig5-ci"} {
		for _, ext := range []string{".json", ".svg", ".png"} {
			if _, err := os.Stat(filepath.Join(dir, n+ext)); err != nil {
				t.Error(err)
			}
		}
		if b, _ := os.ReadFile(filepath.Join(dir, n+".png")); !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("%s.png is no PNG", n)
		}
		if !strings.Contains(stdout, strings.TrimSuffix(n, "-ci")+" (ci scale") {
			t.Errorf("no checks of %s in %q", n, stdout)
		}
	}
}

// TestSweepRefuses: a sweep that cannot run as asked is refused with exit
// 2 before any job runs or is written: duplicate, empty or unparsable
// values, keys the sweep sets itself, out-of-range jobs (found only when
// running, before), unbounded --seeds, -j or job counts.
func TestSweepRefuses(t *testing.T) {
	const small = "../../fabric/testdata/small.yaml"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--set", "workload.load=0.2,0.2"}, `value "0.2" twice`},
		{[]string{"--set", "workload.load=0.1,,0.2"}, "an empty value"},
		{[]string{"--set", "seed=99"}, "use --seeds"},
		{[]string{"--set", "name=x"}, "names each job"},
		{[]string{"--set", "workload.load=0.1", "--set", "workload.load=0.2"}, "set twice"},
		{[]string{"--set", "workload.load=0.1,5"}, "parameter load = 5"},
		{[]string{"--set", "flow_control=none,bogus", "--emit", "slurm"}, "flow_control = bogus"},
		{[]string{"--set", "workload.load=0.1,abc", "--emit", "slurm"}, "workload.load=abc"},
		{[]string{"--set", "transport.cc=a/b,a_b"}, "both named"},
		{[]string{"--seeds", "101"}, "--seeds 101"},
		{[]string{"-j", "1000"}, "--jobs 1000"},
		{[]string{"--seeds", "100", "--set", "workload.load=0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,0.95,0.99", "--emit", "slurm"}, "--array-max 1000"},
		{[]string{"--seeds", "100", "--set", "bins=" + manyValues(1001)}, "more than 100000 jobs"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		code, stdout, stderr := sfcsim(append([]string{"sweep", small, "-o", out}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", c.args, code, stdout, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s written", c.args, out)
		}
	}
}

func manyValues(n int) string {
	v := make([]string, n)
	for i := range v {
		v[i] = fmt.Sprint(i + 1)
	}
	return strings.Join(v, ",")
}

// TestSweepNamesFileLine: an error in the scenario names the user's file
// and its line, not a line of the document --set made (which said 25 for
// line 20).
func TestSweepNamesFileLine(t *testing.T) {
	f := filepath.Join(t.TempDir(), "sc.yaml")
	b, _ := os.ReadFile("../../fabric/testdata/small.yaml")
	if err := os.WriteFile(f, append(b, "  lode: 1\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	line := strings.Count(string(b), "\n") + 1
	code, _, stderr := sfcsim("sweep", f, "--set", "workload.load=0.1")
	if code != 2 || !strings.Contains(stderr, f) || !strings.Contains(stderr, fmt.Sprintf("line %d: field lode", line)) {
		t.Errorf("exit %d, stderr %q (want %s line %d)", code, stderr, f, line)
	}
}

// TestSweepRelativeCDF: a relative workload.cdf is taken from the
// scenario's directory, locally and in the Slurm job scenarios (whose
// tasks cd to OUT first); the sbatch --output path is quoted; a value with
// a / does not reach a file name.
func TestSweepRelativeCDF(t *testing.T) {
	dir := t.TempDir()
	cdf, _ := os.ReadFile("../../fabric/cdf/websearch.txt")
	b, _ := os.ReadFile("../../fabric/testdata/small.yaml")
	sc := strings.Replace(string(b), "cdf: websearch", "cdf: my.txt", 1)
	if err := os.WriteFile(filepath.Join(dir, "my.txt"), cdf, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rel.yaml"), []byte(sc), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out dir")
	if code, _, stderr := sfcsim("sweep", filepath.Join(dir, "rel.yaml"), "-o", out); code != 0 {
		t.Fatalf("local sweep: exit %d: %s", code, stderr)
	}
	sl := filepath.Join(dir, "sl")
	if code, _, stderr := sfcsim("sweep", filepath.Join(dir, "rel.yaml"), "--set", "transport.cc=hpcc,dc/qcn", "--emit", "slurm", "-o", sl); code != 2 || !strings.Contains(stderr, "dc/qcn") {
		t.Errorf("dc/qcn: exit %d: %s", code, stderr)
	}
	if code, _, stderr := sfcsim("sweep", filepath.Join(dir, "rel.yaml"), "--emit", "slurm", "-o", sl); code != 0 {
		t.Fatalf("slurm: exit %d: %s", code, stderr)
	}
	y, _ := os.ReadFile(filepath.Join(sl, "rel_seed1.yaml"))
	if !strings.Contains(string(y), "cdf: "+filepath.Join(dir, "my.txt")) {
		t.Errorf("job scenario: %s", y)
	}
	sb, _ := os.ReadFile(filepath.Join(sl, "sweep.sbatch"))
	if !strings.Contains(string(sb), `#SBATCH --output="`+sl+`/slurm-%A_%a.out"`) {
		t.Errorf("sbatch: %s", sb)
	}
	if code, _, stderr := sfcsim("run", "-q", filepath.Join(sl, "rel_seed1.yaml")); code != 0 {
		t.Errorf("job: exit %d: %s", code, stderr)
	}
}

// TestScenarioRangeExit: a scenario value out of range exits 2 naming the
// file, the line and the key, at once (sample_every -1 used to hang).
func TestScenarioRangeExit(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ text, want string }{
		{"sample_every: -1\n", ":1: sample_every:"},
		{"sample_every: 1\n", ":1: sample_every:"},
		{"workload: {cdf: websearch, load: 2, duration: 1000}\n", ":1: workload.load:"},
		{"workload: {cdf: nope, load: 0.5, duration: 1000}\n", ":1: workload.cdf:"},
	} {
		f := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(f, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := sfcsim("run", "-q", f); code != 2 || !strings.Contains(stderr, f+c.want) {
			t.Errorf("%q: exit %d, stderr %q", c.text, code, stderr)
		}
	}
}

// smallWith writes fabric/testdata/small.yaml with its name line replaced
// by name (a YAML scalar) and extra appended, as dir/file.
func smallWith(t *testing.T, dir, file, name, extra string) string {
	t.Helper()
	b, err := os.ReadFile("../../fabric/testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "name: small-hpcc", "name: "+name, 1) + extra
	p := filepath.Join(dir, file)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunEscapes: a scenario's strings reach the terminal escaped, in the
// summary and in errors.
func TestRunEscapes(t *testing.T) {
	dir := t.TempDir()
	f := smallWith(t, dir, "esc.yaml", `"esc\e]0;PWNED\a\e[31mRED"`, "")
	if code, out, stderr := sfcsim("run", "-q", f); code != 0 || strings.ContainsAny(out, "\x1b\a") || !strings.Contains(out, `esc\x1b]0;PWNED`) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	b, _ := os.ReadFile("../../fabric/testdata/small.yaml")
	g := filepath.Join(dir, "cdf.yaml")
	os.WriteFile(g, []byte(strings.Replace(string(b), "cdf: websearch", `cdf: "nope\e[31mRED"`, 1)), 0o644)
	if code, _, stderr := sfcsim("run", "-q", g); code != 2 || strings.Contains(stderr, "\x1b") || !strings.Contains(stderr, "workload.cdf") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestRunOutputNames: with --out, a name that is not one plain file-name
// component (a path, control characters) is refused before anything is
// written, so that no output lands outside --out.
func TestRunOutputNames(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "a", "b")
	for _, name := range []string{`"../../escaped"`, `"x/y"`, `".."`, `"esc\e[31m"`} {
		f := smallWith(t, dir, "s.yaml", name, "")
		if code, _, stderr := sfcsim("run", "-q", f, "-o", out); code != 2 || !strings.Contains(stderr, "name:") {
			t.Errorf("%s: exit %d, stderr %q", name, code, stderr)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != "s.yaml" {
		t.Errorf("files written: %v", ents)
	}
}

// TestRunNotInput: no output may be one of the inputs (the scenario, a
// CDF file, the flows file); and outputs are made with DefaultPerm.
func TestRunNotInput(t *testing.T) {
	dir := t.TempDir()
	sc := smallWith(t, dir, "sc.json", "sc", "")
	flows := filepath.Join(dir, "flows.txt")
	os.WriteFile(flows, []byte("1\n0 1 3 100 1000 0.000001\n"), 0o644)
	ff := smallWith(t, dir, "ff.yaml", "ff", "")
	b, _ := os.ReadFile(ff)
	os.WriteFile(ff, []byte(strings.Replace(string(b), "  cdf: websearch\n  load: 0.3\n  duration: 200000\n", "  flows_file: flows.txt\n", 1)), 0o644)
	for _, args := range [][]string{
		{sc, "-o", dir},
		{sc, "--flows-out", sc},
		{ff, "--flows-out", flows},
	} {
		before, _ := os.ReadFile(args[2])
		code, _, stderr := sfcsim(append([]string{"run", "-q"}, args...)...)
		after, _ := os.ReadFile(args[2])
		if code != 2 || !strings.Contains(stderr, "input") || string(before) != string(after) {
			t.Errorf("%v: exit %d, stderr %q, changed %v", args, code, stderr, string(before) != string(after))
		}
	}
	out := filepath.Join(dir, "out")
	if code, _, stderr := sfcsim("run", "-q", sc, "-o", out, "--flows-out", filepath.Join(dir, "f.txt")); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"out/sc.json", "out/sc.csv", "out/sc.fct.csv", "f.txt"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Mode().Perm() != 0o644 {
			t.Errorf("%s: %v %v", f, st.Mode(), err)
		}
	}
}

// TestSweepNotInput: a sweep whose outputs include its scenario (named
// jobs.txt or sweep.csv in OUT) or a job's CDF (named as a job's per-bin
// CSV) is refused with exit 2 before anything is written; each input is
// left as it was.
func TestSweepNotInput(t *testing.T) {
	dir := t.TempDir()
	jobs := smallWith(t, dir, "jobs.txt", "sw", "")
	csv := smallWith(t, dir, "sweep.csv", "sw", "")
	cdf := filepath.Join(dir, "c_transport-cc=hpcc_seed1.csv") // job names come from the file name
	os.WriteFile(cdf, []byte("1000 0\n2000 100\n"), 0o644)
	withCDF := smallWith(t, dir, "c.yaml", "sw", "")
	b, _ := os.ReadFile(withCDF)
	os.WriteFile(withCDF, []byte(strings.Replace(string(b), "cdf: websearch", "cdf: "+filepath.Base(cdf), 1)), 0o644)
	for _, c := range []struct {
		in   string
		args []string
	}{
		{jobs, []string{"sweep", jobs, "-o", dir, "--set", "workload.load=0.3", "--emit", "slurm"}},
		{csv, []string{"sweep", csv, "-o", dir, "--set", "workload.load=0.3"}},
		{cdf, []string{"sweep", withCDF, "-o", dir, "--set", "transport.cc=hpcc,dcqcn"}},
	} {
		before, _ := os.ReadFile(c.in)
		ents, _ := os.ReadDir(dir)
		code, _, stderr := sfcsim(c.args...)
		after, _ := os.ReadFile(c.in)
		ents2, _ := os.ReadDir(dir)
		if code != 2 || !strings.Contains(stderr, "input") || string(before) != string(after) || len(ents) != len(ents2) {
			t.Errorf("%v: exit %d, stderr %q, input changed %v, %d files then %d", c.args, code, stderr, string(before) != string(after), len(ents), len(ents2))
		}
	}
}

// TestFlowsOutRangeExit: a flows file out of range is exit 2 with
// --flows-out too (writeFlows generates the workload before fabric.Run).
func TestFlowsOutRangeExit(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "flows.txt"), []byte("1\n0 1 3 100 1000 NaN\n"), 0o644)
	sc := smallWith(t, dir, "s.yaml", "fo", "")
	b, _ := os.ReadFile(sc)
	text := strings.Replace(string(b), "  cdf: websearch\n", "  flows_file: flows.txt\n", 1)
	os.WriteFile(sc, []byte(text), 0o644)
	for _, args := range [][]string{{"run", "-q", sc}, {"run", "-q", sc, "--flows-out", filepath.Join(dir, "out.txt")}} {
		if code, _, stderr := sfcsim(args...); code != 2 || !strings.Contains(stderr, "start \"NaN\"") {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming the start", args, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.txt")); err == nil {
		t.Error("--flows-out written from a bad flows file")
	}
}

// TestUnfinishedFlows: a run that leaves a flow unfinished within the
// drain lists it in NAME.fct.csv (completed false) and exits 1; a sweep
// of the same scenario exits 1 too, naming the job, as its Slurm task
// (a run) would fail.
func TestUnfinishedFlows(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := sfcsim("run", "-q", "-o", dir, "testdata/unfinished.yaml")
	if code != 1 || !strings.Contains(stderr, "1 of 78 flows did not complete") {
		t.Fatalf("run: exit %d, stderr %q", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "unfinished.fct.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 79 || !strings.HasSuffix(lines[0], ",completed") || !strings.HasSuffix(lines[78], ",false") || strings.Count(string(b), ",false\n") != 1 {
		t.Errorf("fct.csv: %d lines, header %q, last %q; want 78 flows, one not completed", len(lines), lines[0], lines[len(lines)-1])
	}
	code, stdout, stderr := sfcsim("sweep", "testdata/unfinished.yaml", "--seeds", "1", "-o", filepath.Join(dir, "sw"))
	if code != 1 || !strings.Contains(stdout, "77/78 flows") || !strings.Contains(stderr, "unfinished_seed1") {
		t.Errorf("sweep: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestSweepPrintsInJobOrder: -j N prints the jobs' lines in job order, as
// -j 1 does, whatever order they end in.
func TestSweepPrintsInJobOrder(t *testing.T) {
	dir := t.TempDir()
	args := []string{"sweep", "../../fabric/testdata/small.yaml", "--set", "transport.cc=hpcc,dcqcn,timely", "--seeds", "2"}
	c1, one, e1 := sfcsim(append(args, "-j", "1", "-o", filepath.Join(dir, "a"))...)
	c4, four, e4 := sfcsim(append(args, "-j", "4", "-o", filepath.Join(dir, "b"))...)
	if c1 != 0 || c4 != 0 || one != four || strings.Count(one, "\n") != 6 {
		t.Errorf("-j 1 (exit %d, %s):\n%s\n-j 4 (exit %d, %s):\n%s", c1, e1, one, c4, e4, four)
	}
}

// TestSweepProgress: a sweep's jobs report progress on standard error
// as run's do, none with -q; on a terminal the line is erased before the
// jobs' result lines are printed.
func TestSweepProgress(t *testing.T) {
	defer func(r func(fabric.Scenario, fabric.Progress) (*fabric.Result, error), tty func(io.Writer) bool) {
		sweepRun, isTerminal = r, tty
	}(sweepRun, isTerminal)
	sweepRun = func(sc fabric.Scenario, p fabric.Progress) (*fabric.Result, error) {
		if p != nil {
			p(fmt.Sprintf("%s seed %d", sc.Name, sc.Seed), 1_500_000, 42_000_000, 3, 9)
		}
		return fabric.Run(sc, nil)
	}
	args := []string{"sweep", "../../fabric/testdata/small.yaml", "--set", "transport.cc=hpcc,dcqcn", "-j", "2"}
	for _, tc := range []struct {
		tty, quiet bool
		want       []string
		count      int // of "ms simulated"
	}{
		{false, false, []string{"small_transport-cc=hpcc_seed1 seed 1:    1.500 ms simulated, 3/9 flows, 42.00 M events", "small_transport-cc=dcqcn_seed1 seed 1: "}, 2},
		{false, true, nil, 0},
		{true, false, []string{"\r\x1b[K"}, 2},
		{true, true, nil, 0},
	} {
		isTerminal = func(io.Writer) bool { return tc.tty }
		a := append(args, "-o", t.TempDir())
		if tc.quiet {
			a = append(a, "-q")
		}
		code, out, stderr := sfcsim(a...)
		if code != 0 || strings.Count(out, "\n") != 2 {
			t.Fatalf("tty %v quiet %v: exit %d\n%s\n%s", tc.tty, tc.quiet, code, out, stderr)
		}
		if n := strings.Count(stderr, "ms simulated"); n != tc.count {
			t.Errorf("tty %v quiet %v: %d progress lines:\n%q", tc.tty, tc.quiet, n, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("tty %v quiet %v: no %q in\n%q", tc.tty, tc.quiet, w, stderr)
			}
		}
		if tc.tty && !tc.quiet && !strings.HasSuffix(stderr, "\r\x1b[K") {
			t.Errorf("tty: the progress line is not erased at the end: %q", stderr)
		}
		if tc.quiet && stderr != "" {
			t.Errorf("-q: stderr %q", stderr)
		}
	}
}

// TestProgressNotATerminal: the progress line written to a file or pipe
// is plain lines with the events/s rate, no carriage return or escape
// sequence (CI logs keep them).
func TestProgressNotATerminal(t *testing.T) {
	var b bytes.Buffer
	p := progressLine(&b, false)
	p("a seed 1", 1_500_000, 3_000_000, 5, 10)
	p("a seed 1", 3_000_000, 6_000_000, 10, 10)
	clearProgress(&b, false)
	s := b.String()
	if strings.ContainsAny(s, "\r\x1b") || strings.Count(s, "\n") != 2 || !strings.Contains(s, "M events/s") || !strings.Contains(s, "10/10 flows") {
		t.Errorf("progress to a buffer: %q", s)
	}
}

// TestProgressParallelRuns: runs in parallel (fig -j) report through one
// progress function from their goroutines: each line names its run and
// its rate is its own, never negative from another run's count (as it
// was, one shared "last" for all runs: -4.77 M events/s in a full run);
// -race checks the sharing.
func TestProgressParallelRuns(t *testing.T) {
	var b syncbuf.Buffer
	p := progressLine(&b, false)
	var wg sync.WaitGroup
	for r, base := range []int64{1_000_000_000, 1_000} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int64(1); i <= 50; i++ {
				p(fmt.Sprintf("run%d seed 1", r), i, base*i, 0, 1)
			}
		}()
	}
	wg.Wait()
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if !strings.HasPrefix(l, "run0 seed 1: ") && !strings.HasPrefix(l, "run1 seed 1: ") || strings.Contains(l, "-") {
			t.Fatalf("line %q", l)
		}
	}
}

// TestRunErrorsNameTheLine: what only the built fabric can judge (a
// receiver or incast degree beyond its hosts, an incast of size 0) and a
// parameter a model refuses (an unknown CC) are usage errors (exit 2)
// naming the file, line and key, not runtime errors without a place.
func TestRunErrorsNameTheLine(t *testing.T) {
	dir := t.TempDir()
	const topo = "topology: {kind: leafspine, tors: 2, spines: 1, hosts_per_tor: 4}\n"
	for _, tc := range []struct{ yaml, want string }{
		{topo + "workload:\n  degree: 2\n  size: 1000\n  receiver: 50\n", ":5: workload.receiver: host 50"},
		{topo + "workload:\n  degree: 100\n  size: 1000\n", ":3: workload.degree: 100 senders"},
		{topo + "workload:\n  degree: 3\n", ": workload.size: 0"}, // no size in the file: no line
		{topo + "transport:\n  cc: cubic\n", ":3: transport: parameter cc = cubic"},
	} {
		p := filepath.Join(dir, "s.yaml")
		os.WriteFile(p, []byte(tc.yaml), 0o644)
		code, _, stderr := sfcsim("run", "-q", p)
		if code != 2 || !strings.Contains(stderr, p+tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.yaml, code, stderr, p+tc.want)
		}
	}
}

// TestOutputsSafe: two runs writing one directory at once both succeed
// and leave no temporary file (plots go through atomicfile, not a fixed
// NAME.png.tmp.png); a control character in --out is escaped in the
// "wrote" line; a newline in a file name cannot start an error line of
// its own; a seed of 2^64 is out of range, not wrapped to 2^63.
func TestOutputsSafe(t *testing.T) {
	dir := t.TempDir()
	sc := smallWith(t, dir, "s.yaml", "two", "")
	out := filepath.Join(dir, "out")
	codes := make(chan int, 2)
	for range 2 {
		go func() {
			code, _, _ := sfcsim("run", "-q", sc, "-o", out)
			codes <- code
		}()
	}
	if a, b := <-codes, <-codes; a != 0 || b != 0 {
		t.Errorf("concurrent runs exit %d and %d", a, b)
	}
	ents, _ := os.ReadDir(out)
	for _, e := range ents {
		if strings.Contains(e.Name(), "tmp") || strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	if len(ents) != 8 {
		t.Errorf("%d files in the output directory, want 8", len(ents))
	}
	esc := filepath.Join(dir, "\x1b[31mfig")
	code, stdout, _ := sfcsim("fig", "hpcc-readme", "-q", "-o", esc)
	if code != 0 || strings.Contains(stdout, "\x1b") || !strings.Contains(stdout, "wrote ") {
		t.Errorf("fig -o with ESC: exit %d, stdout %q", code, stdout)
	}
	nl := filepath.Join(dir, "nl\nbad.yaml")
	os.WriteFile(nl, []byte("name: x\nworkload: {load: 7}\n"), 0o644)
	if _, _, stderr := sfcsim("run", "-q", nl); !strings.Contains(stderr, "\n  bad.yaml") {
		t.Errorf("a newline in a file name: %q", stderr)
	}
	seed := filepath.Join(dir, "seed.yaml")
	os.WriteFile(seed, []byte("name: s\nseed: 18446744073709551616\n"), 0o644)
	if code, _, stderr := sfcsim("run", "-q", seed); code != 2 || !strings.Contains(stderr, "seed.yaml:2: seed: 18446744073709551616 is out of range") {
		t.Errorf("seed 2^64: exit %d, %q", code, stderr)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestInputAndOutputErrors: a summary that cannot be written is exit 1,
// not a silent success; a second YAML document, a flows-file line over
// 1 MiB and a background load on a one-host fabric are input errors (exit
// 2) naming what and where.
func TestInputAndOutputErrors(t *testing.T) {
	dir := t.TempDir()
	sc := smallWith(t, dir, "s.yaml", "w", "")
	var errb bytes.Buffer
	if code := run([]string{"run", "-q", sc}, failWriter{}, &errb); code != 1 || !strings.Contains(errb.String(), "writing standard output: disk full") {
		t.Errorf("stdout failing: exit %d, %q", code, errb.String())
	}
	two := smallWith(t, dir, "two.yaml", "two", "---\nname: other\n")
	if code, _, stderr := sfcsim("run", "-q", two); code != 2 || !strings.Contains(stderr, "second YAML document") {
		t.Errorf("two documents: exit %d, %q", code, stderr)
	}
	flows := filepath.Join(dir, "long.txt")
	os.WriteFile(flows, []byte("1\n0 1 3 100 1000 0"+strings.Repeat(" ", 2<<20)+"\n"), 0o644)
	ff := smallWith(t, dir, "ff.yaml", "ff", "")
	b, _ := os.ReadFile(ff)
	os.WriteFile(ff, []byte(strings.Replace(string(b), "  cdf: websearch\n  load: 0.3\n  duration: 200000\n", "  flows_file: long.txt\n", 1)), 0o644)
	if code, _, stderr := sfcsim("run", "-q", ff); code != 2 || !strings.Contains(stderr, "flows line 2: longer than 1048576 octets") {
		t.Errorf("a 2 MiB line: exit %d, %q", code, stderr)
	}
	if code, _, stderr := sfcsim("run", "-q", sc, "-o", sc); code != 2 || !strings.Contains(stderr, "not a directory") {
		t.Errorf("--out a file: exit %d, %q", code, stderr)
	}
	// A later run of the same name without background flows leaves no
	// slowdown plot of the earlier one behind.
	stale := filepath.Join(dir, "stale")
	if code, _, stderr := sfcsim("run", "-q", sc, "-o", stale); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ = os.ReadFile(sc)
	incast := strings.Replace(string(b), "  cdf: websearch\n  load: 0.3\n  duration: 200000\n", "  degree: 3\n  size: 10000\n", 1)
	os.WriteFile(filepath.Join(dir, "inc.yaml"), []byte(incast), 0o644)
	if code, _, stderr := sfcsim("run", "-q", filepath.Join(dir, "inc.yaml"), "-o", stale); code != 0 {
		t.Fatalf("incast run: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(stale, "w.fct.svg")); err == nil {
		t.Error("the first run's w.fct.svg is still there after a run without background flows")
	}
	for _, set := range []string{"workload.load=.3,0.30", "workload.duration=2,0x2", "workload.duration=200000,2e5"} {
		if code, _, stderr := sfcsim("sweep", sc, "-o", filepath.Join(dir, "dup"), "--set", set); code != 2 || !strings.Contains(stderr, "twice") {
			t.Errorf("sweep --set %s: exit %d, %q", set, code, stderr)
		}
	}
	for _, o := range []string{"", sc} {
		if code, _, stderr := sfcsim("sweep", sc, "-o", o, "--set", "workload.load=0.3"); code != 2 {
			t.Errorf("sweep -o %q: exit %d, %q", o, code, stderr)
		}
	}
	one := filepath.Join(dir, "one.yaml")
	os.WriteFile(one, []byte("name: one\ntopology: {kind: leafspine, tors: 1, spines: 1, hosts_per_tor: 1}\nworkload: {cdf: hadoop, load: 0.5, duration: 1000}\n"), 0o644)
	if code, _, stderr := sfcsim("run", "-q", one); code != 2 || !strings.Contains(stderr, "workload.load") {
		t.Errorf("load on one host: exit %d, %q", code, stderr)
	}
}
