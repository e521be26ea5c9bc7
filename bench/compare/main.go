// SPDX-License-Identifier: Apache-2.0

// Command compare runs sfcdump side by side with tcpdump, tshark and the
// raw read floor on the same captures, alternating the commands round
// after round so that a shared machine's load falls on all of them alike,
// and prints a table of medians and ratios with the command of each row.
//
//	go run ./bench/compare                   # 1M frames, 3 rounds, memory at 5M
//	go run ./bench/compare -runs 5 -big=false
//	go run ./bench/compare -rows 'read|floor|tcpdump'
//
// Each command runs under /usr/bin/time (user and system time, peak RSS)
// timed by this program (wall time to the microsecond), its standard
// output to /dev/null, right after -warmup unmeasured
// runs of itself (hyperfine's --warmup): on this VM the first run after
// the second vCPU idled for seconds is 30-60% slower for a program that
// uses both cores (sfcdump read 0.24 s against 0.15 s back to back), a
// wake-up cost the single-threaded peers do not see. The warm-up runs go
// to runs.csv too (round "w1", ...), so the cold figures stay on record. It builds sfcdump and the floor
// into -out/bin, and makes the captures it needs in -out once (bench/gen:
// 50% RoCEv2 WRITE 1 KB, 25% PFC, 25% CNP; conformance load vectors with
// scenario.WriteLoad and their expected output from the models). The
// table goes to standard output and -out/latest.md, every run to
// -out/runs.csv.
package main

import (
	"bytes"
	"encoding/csv"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/conformance/scenario"
)

// row is one command of the table.
type row struct {
	id     string
	what   string
	cmd    string // shell command; {sfcdump}, {floor}, {1m}, {100k}, {5m}, {load1m}, {load5m} are replaced
	frames int
	note   string
	big    bool // needs the 5M captures
	runs   []sample
}

type sample struct{ wall, user, sys, rssMB float64 }

// ratio is a line of the ratio table: a over b in frames per second.
type ratio struct {
	a, b   string
	what   string
	target string
	ok     func(r float64) bool
	pct    bool
}

func main() {
	n := flag.Int("n", 1_000_000, "frames of the main capture")
	runs := flag.Int("runs", 3, "rounds (each runs every row once)")
	warmup := flag.Int("warmup", 1, "unmeasured runs of a row right before each measured one")
	out := flag.String("out", "bench/out", "directory for binaries, captures and results")
	big := flag.Bool("big", true, "add the 5M-frame memory rows")
	only := flag.String("rows", "", "run only the rows whose id matches this regexp")
	flag.Parse()
	if err := run(*n, *runs, *warmup, *out, *big, *only); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

func run(n, runs, warmup int, out string, big bool, only string) error {
	if err := os.MkdirAll(filepath.Join(out, "bin"), 0o755); err != nil {
		return err
	}
	bin := func(name string) string { return filepath.Join(out, "bin", name) }
	// Both are built as the README's install line builds sfcdump:
	// CGO_ENABLED=0, a static binary. gopacket imports net, whose cgo
	// resolver otherwise makes the binary dynamic, and the dynamic
	// loader adds about 2.5 ms to every start of either program.
	for _, b := range [][2]string{{"sfcdump", "./cmd/sfcdump"}, {"floor", "./bench/floor"}} {
		c := exec.Command("go", "build", "-o", bin(b[0]), b[1])
		c.Env = append(os.Environ(), "CGO_ENABLED=0")
		c.Stdout, c.Stderr = os.Stderr, os.Stderr
		if err := c.Run(); err != nil {
			return err
		}
	}
	m := millions(n)
	caps := map[string]string{
		"{1m}":     filepath.Join(out, fmt.Sprintf("bench-%s.pcap", m)),
		"{100k}":   filepath.Join(out, "bench-100k.pcap"),
		"{5m}":     filepath.Join(out, fmt.Sprintf("bench-%s.pcap", millions(5*n))),
		"{load1m}": filepath.Join(out, fmt.Sprintf("load-%s", m)),
		"{load5m}": filepath.Join(out, fmt.Sprintf("load-%s", millions(5*n))),
	}
	if err := capture(caps["{1m}"], n); err != nil {
		return err
	}
	if err := capture(caps["{100k}"], 100_000); err != nil {
		return err
	}
	if err := loadVector(caps["{load1m}"], n); err != nil {
		return err
	}
	if big {
		if err := capture(caps["{5m}"], 5*n); err != nil {
			return err
		}
		if err := loadVector(caps["{load5m}"], 5*n); err != nil {
			return err
		}
	}
	m5 := millions(5 * n)
	rows := []*row{
		{id: "floor", what: "raw read floor (pcapgo, frames untouched)", cmd: "{floor} {1m}", frames: n},
		{id: "read", what: "sfcdump read (one line)", cmd: "{sfcdump} read {1m}", frames: n},
		{id: "tcpdump", what: "tcpdump -nn -r", cmd: "tcpdump -nn -r {1m}", frames: n},
		{id: "tshark", what: "tshark -r (one line)", cmd: "tshark -r {1m}", frames: n},
		{id: "json", what: "sfcdump read -T json", cmd: "{sfcdump} read -T json {1m}", frames: n},
		{id: "tshark-json", what: "tshark -T json", cmd: "tshark -r {100k} -T json", frames: 100_000, note: "100k-frame capture, per-frame rate"},
		{id: "fields", what: "sfcdump read -T fields", cmd: "{sfcdump} read -T fields -e frame.number -e bth.destqp {1m}", frames: n},
		{id: "tshark-fields", what: "tshark -T fields", cmd: "tshark -r {1m} -T fields -e frame.number -e infiniband.bth.destqp", frames: n},
		{id: "filter", what: "sfcdump read -Y (display filter)", cmd: "{sfcdump} read -Y 'bth.destqp == 0x12 || pfc.c3' {1m}", frames: n},
		{id: "stats", what: "sfcdump stats", cmd: "{sfcdump} stats {1m}", frames: n},
		{id: "conform", what: "sfcdump conform run (exact replay)", cmd: "{sfcdump} conform run {load1m}", frames: n, note: "load vector: SFC switch, 8 hosts, 256 B frames"},
		{id: "read-5m", what: "sfcdump read, " + m5 + " frames", cmd: "{sfcdump} read {5m}", frames: 5 * n, big: true},
		{id: "json-5m", what: "sfcdump read -T json, " + m5 + " frames", cmd: "{sfcdump} read -T json {5m}", frames: 5 * n, big: true},
		{id: "stats-5m", what: "sfcdump stats, " + m5 + " frames", cmd: "{sfcdump} stats {5m}", frames: 5 * n, big: true},
		{id: "conform-5m", what: "sfcdump conform run, " + m5 + " frames", cmd: "{sfcdump} conform run {load5m}", frames: 5 * n, big: true},
	}
	var sel []*row
	re, err := regexp.Compile(only)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if (big || !r.big) && re.MatchString(r.id) {
			sel = append(sel, r)
		}
	}
	repl := strings.NewReplacer(append([]string{"{sfcdump}", bin("sfcdump"), "{floor}", bin("floor")},
		flatten(caps)...)...)
	load0 := loadavg()
	t0 := time.Now()
	var all [][]string
	for i := 0; i < runs; i++ {
		for _, r := range sel {
			c := repl.Replace(r.cmd)
			for w := 1; w <= warmup; w++ {
				s, err := timed(c)
				if err != nil {
					return fmt.Errorf("%s: %w", c, err)
				}
				all = append(all, []string{fmt.Sprintf("%d/w%d", i+1, w), r.id, f3(s.wall), f3(s.user), f3(s.sys), f1(s.rssMB), loadavg()})
			}
			s, err := timed(c)
			if err != nil {
				return fmt.Errorf("%s: %w", c, err)
			}
			r.runs = append(r.runs, s)
			all = append(all, []string{strconv.Itoa(i + 1), r.id, f3(s.wall), f3(s.user), f3(s.sys), f1(s.rssMB), loadavg()})
			fmt.Fprintf(os.Stderr, "round %d %-14s wall %6.3fs cpu %6.3fs rss %6.1f MB\n", i+1, r.id, s.wall, s.user+s.sys, s.rssMB)
		}
	}
	load1 := loadavg()
	var tbl bytes.Buffer
	host, _ := os.Hostname()
	fmt.Fprintf(&tbl, "Run %s on %s: %s, %d CPUs, %s. %d rounds, rows alternating, each measured run right after %d unmeasured one(s) of the same command, %s in all.\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), host, cpuModel(), runtime.NumCPU(), goVersion(), runs, warmup, time.Since(t0).Round(time.Second))
	fmt.Fprintf(&tbl, "Load average (1, 5, 15 min) before: %s; after: %s.\n\n", load0, load1)
	fmt.Fprintf(&tbl, "| row | frames | wall s | CPU s | peak RSS MB | frames/s (wall) | frames/s (CPU) | command |\n")
	fmt.Fprintf(&tbl, "|---|---:|---:|---:|---:|---:|---:|---|\n")
	for _, r := range sel {
		w, c, rss := r.median()
		cmd := strings.ReplaceAll(r.cmd, "|", `\|`)
		note := ""
		if r.note != "" {
			note = " (" + r.note + ")"
		}
		fmt.Fprintf(&tbl, "| %s%s | %s | %.3f | %.3f | %.0f | %s | %s | `%s` |\n", r.what, note, human(r.frames), w, c, rss,
			human(int(float64(r.frames)/w)), human(int(float64(r.frames)/c)), cmd)
	}
	byID := map[string]*row{}
	for _, r := range sel {
		byID[r.id] = r
	}
	ratios := []ratio{
		{a: "read", b: "floor", what: "sfcdump read / raw read floor", target: ">= 80%", ok: func(r float64) bool { return r >= 0.80 }, pct: true},
		{a: "json", b: "floor", what: "sfcdump read -T json / raw read floor", target: ">= 50%", ok: func(r float64) bool { return r >= 0.50 }, pct: true},
		{a: "read", b: "tcpdump", what: "sfcdump read / tcpdump -nn -r", target: ">= 5x", ok: func(r float64) bool { return r >= 5 }},
		{a: "read", b: "tshark", what: "sfcdump read / tshark -r", target: ">= 20x", ok: func(r float64) bool { return r >= 20 }},
		{a: "json", b: "tshark-json", what: "sfcdump -T json / tshark -T json (100k, per frame)", target: ">= 20x", ok: func(r float64) bool { return r >= 20 }},
		{a: "fields", b: "tshark-fields", what: "sfcdump -T fields / tshark -T fields", target: ">= 20x", ok: func(r float64) bool { return r >= 20 }},
	}
	fmt.Fprintf(&tbl, "\n| ratio (frames/s) | wall | CPU | target | met (wall) |\n|---|---:|---:|---|---|\n")
	for _, q := range ratios {
		a, b := byID[q.a], byID[q.b]
		if a == nil || b == nil {
			continue
		}
		aw, ac, _ := a.median()
		bw, bc, _ := b.median()
		rw := (float64(a.frames) / aw) / (float64(b.frames) / bw)
		rc := (float64(a.frames) / ac) / (float64(b.frames) / bc)
		fmt.Fprintf(&tbl, "| %s | %s | %s | %s | %s |\n", q.what, fmtRatio(rw, q.pct), fmtRatio(rc, q.pct), q.target, met(q.ok, rw))
	}
	if r := byID["conform"]; r != nil {
		w, c, _ := r.median()
		fw := float64(r.frames) / w
		fmt.Fprintf(&tbl, "| conformance replay, frames/s | %s | %s | >= 1,000,000 | %s |\n", human(int(fw)), human(int(float64(r.frames)/c)),
			met(func(float64) bool { return fw >= 1e6 }, 0))
	}
	for _, p := range [][2]string{{"read", "read-5m"}, {"json", "json-5m"}, {"stats", "stats-5m"}, {"conform", "conform-5m"}} {
		a, b := byID[p[0]], byID[p[1]]
		if a == nil || b == nil {
			continue
		}
		_, _, ra := a.median()
		_, _, rb := b.median()
		fmt.Fprintf(&tbl, "| peak RSS %s / %s (%s: %.0f MB, %s: %.0f MB) | %.2f | | flat | %s |\n", b.id, a.id, a.id, ra, b.id, rb, rb/ra,
			met(func(float64) bool { return rb/ra < 1.25 }, 0))
	}
	os.Stdout.Write(tbl.Bytes())
	if err := os.WriteFile(filepath.Join(out, "latest.md"), tbl.Bytes(), 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(out, "runs.csv"))
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"round", "row", "wall_s", "user_s", "sys_s", "max_rss_mb", "loadavg"})
	w.WriteAll(all)
	return f.Close()
}

func (r *row) median() (wall, cpu, rss float64) {
	var ws, cs, rs []float64
	for _, s := range r.runs {
		ws = append(ws, s.wall)
		cs = append(cs, s.user+s.sys)
		rs = append(rs, s.rssMB)
	}
	return med(ws), med(cs), med(rs)
}

func med(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// timed runs c under /usr/bin/time, output discarded: user and system
// time and peak RSS from time, wall time from this program's monotonic
// clock around the run. (time prints wall time in hundredths of a second:
// a 0.11 s floor and a read of 0.135-0.145 s both printed 0.14 s, so a
// ratio moved by 8 % on a rounding. The peak RSS is time's to take: a
// process started by this Go program would report the parent's resident
// set as its own when it is below it.)
func timed(c string) (sample, error) {
	tf, err := os.CreateTemp("", "compare-time-")
	if err != nil {
		return sample{}, err
	}
	tf.Close()
	defer os.Remove(tf.Name())
	var stderr bytes.Buffer
	cmd := exec.Command("/usr/bin/time", "-o", tf.Name(), "-f", "%e %U %S %M", "sh", "-c", c+" >/dev/null")
	cmd.Stderr = &stderr
	t0 := time.Now()
	err = cmd.Run()
	wall := time.Since(t0)
	if err != nil {
		return sample{}, fmt.Errorf("%v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	b, err := os.ReadFile(tf.Name())
	if err != nil {
		return sample{}, err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var s sample
	var kb float64
	if _, err := fmt.Sscanf(lines[len(lines)-1], "%f %f %f %f", &s.wall, &s.user, &s.sys, &kb); err != nil {
		return s, fmt.Errorf("time output %q: %v", b, err)
	}
	s.wall = wall.Seconds()
	s.rssMB = kb / 1024
	return s, nil
}

func sh(name string, args ...string) error {
	c := exec.Command(name, args...)
	c.Stdout, c.Stderr = os.Stderr, os.Stderr
	return c.Run()
}

// capture writes path with bench/gen unless it exists.
func capture(path string, n int) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	fmt.Fprintf(os.Stderr, "writing %s (%d frames)\n", path, n)
	return sh("go", "run", "./bench/gen", "-n", strconv.Itoa(n), "-o", path)
}

// loadVector writes a conformance load vector and its expected output
// unless dir has them.
func loadVector(dir string, n int) error {
	if _, err := os.Stat(filepath.Join(dir, conformance.ExpectedFile)); err == nil {
		return nil
	}
	fmt.Fprintf(os.Stderr, "writing the load vector %s (%d frames)\n", dir, n)
	if err := scenario.WriteLoad(dir, scenario.LoadConfig{Frames: int64(n)}); err != nil {
		return err
	}
	_, err := conformance.GenerateVector(dir, false)
	return err
}

func flatten(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k, v)
	}
	return out
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "model name") {
			if i := strings.IndexByte(l, ':'); i >= 0 {
				return strings.TrimSpace(l[i+1:])
			}
		}
	}
	return runtime.GOARCH
}

func goVersion() string {
	b, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return runtime.Version()
	}
	return strings.TrimSpace(string(b))
}

func millions(n int) string {
	switch {
	case n%1_000_000 == 0:
		return fmt.Sprintf("%dm", n/1_000_000)
	case n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return strconv.Itoa(n)
}

func human(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func fmtRatio(r float64, pct bool) string {
	if pct {
		return fmt.Sprintf("%.0f%%", 100*r)
	}
	return fmt.Sprintf("%.1fx", r)
}

func met(ok func(float64) bool, r float64) string {
	if ok == nil {
		return ""
	}
	if ok(r) {
		return "yes"
	}
	return "**no**"
}

func f3(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
