// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"bufio"
	"embed"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/opensfc/sfc/device"
)

// MaxFlows bounds the flows one workload may generate or read: a workload
// is refused before any flow is made when the flows it would make (the
// expected count for Poisson arrivals; a hard stop at MaxFlows catches an
// unlucky draw) exceed this, 100 times the largest shipped figure's
// workload. Generated flows and a flows file in start order are streamed
// (Arrivals), so the bound is on the run's length, not its memory; explicit
// flows and a flows file out of order are held as a list (56 octets a
// flow).
const MaxFlows = 10_000_000

//go:embed cdf/*.txt
var cdfFiles embed.FS

// CDF is a flow-size distribution in HPCC's traffic_gen format: lines of
// "size cumulative-percent", sizes increasing, the last at 100 %. Sizes
// are drawn by linear interpolation, as traffic_gen.py does.
type CDF struct {
	Name string
	Size []float64
	Pct  []float64
}

// The shipped CDFs: WebSearch and FB_Hadoop from the HPCC repository
// (traffic_gen/WebSearch_distribution.txt, FbHdp_distribution.txt;
// reproduction-targets §8).
var builtinCDF = map[string]string{"websearch": "cdf/websearch.txt", "hadoop": "cdf/hadoop.txt", "fb_hadoop": "cdf/hadoop.txt"}

// LoadCDF returns a shipped CDF by name (websearch, hadoop) or reads the
// file at name.
func LoadCDF(name string) (*CDF, error) {
	if p, ok := builtinCDF[strings.ToLower(name)]; ok {
		f, err := cdfFiles.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return ReadCDF(name, f)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadCDF(name, f)
}

// ReadCDF parses a CDF; errors name the line.
func ReadCDF(name string, r io.Reader) (*CDF, error) {
	c := &CDF{Name: name}
	sc := newLineScanner(r)
	line := 0
	for sc.Scan() {
		line++
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 || strings.HasPrefix(fs[0], "#") {
			continue
		}
		if len(fs) != 2 {
			return nil, fmt.Errorf("cdf %s line %d: want \"size percent\", got %q", name, line, sc.Text())
		}
		s, err1 := strconv.ParseFloat(fs[0], 64)
		p, err2 := strconv.ParseFloat(fs[1], 64)
		// NaN compares false with everything: refused by name, as sizes
		// beyond MaxSize are (a NaN percent once dropped all background
		// traffic without a word).
		if err1 != nil || err2 != nil || !(s >= 0 && s <= MaxSize) || !(p >= 0 && p <= 100) {
			return nil, fmt.Errorf("cdf %s line %d: bad size or percent %q: want a size 0..%d octets and a percent 0..100", name, line, sc.Text(), int64(MaxSize))
		}
		if n := len(c.Size); n > 0 && (s < c.Size[n-1] || p < c.Pct[n-1]) {
			return nil, fmt.Errorf("cdf %s line %d: not increasing", name, line)
		}
		c.Size, c.Pct = append(c.Size, s), append(c.Pct, p)
	}
	if err := sc.Err(); err != nil {
		return nil, inputErrorf("cdf %s line %d: %v", name, line+1, lineErr(err))
	}
	if len(c.Size) < 2 || c.Pct[len(c.Pct)-1] != 100 {
		return nil, fmt.Errorf("cdf %s: needs at least two points and must end at 100 %%", name)
	}
	if c.Size[len(c.Size)-1] < 1 {
		return nil, fmt.Errorf("cdf %s: every size is 0 octets", name)
	}
	return c, nil
}

// Mean returns the mean size of Sample's draws: the trapezoid rule between
// points (HPCC traffic_gen's getAvg) plus the first size times the first
// percent.
func (c *CDF) Mean() float64 {
	// Sample draws the first size for every u up to the first percent:
	// that mass counts (HPCC's getAvg leaves it out, so a CDF whose first
	// point is above 0 % offered more than the load asked).
	var m float64
	if len(c.Size) > 0 {
		m = max(1, c.Size[0]) * c.Pct[0] / 100
	}
	for i := 1; i < len(c.Size); i++ {
		m += (c.Size[i] + c.Size[i-1]) / 2 * (c.Pct[i] - c.Pct[i-1]) / 100
	}
	return m
}

// Sample draws a size (at least 1 octet) from u uniform in [0, 1).
func (c *CDF) Sample(u float64) int64 {
	p := u * 100
	i := sort.SearchFloat64s(c.Pct, p)
	if i == 0 {
		return max(1, int64(c.Size[0]))
	}
	if i >= len(c.Pct) {
		i = len(c.Pct) - 1
	}
	lo, hi := c.Pct[i-1], c.Pct[i]
	s := c.Size[i-1]
	if hi > lo {
		s += (c.Size[i] - c.Size[i-1]) * (p - lo) / (hi - lo)
	}
	return max(1, int64(math.Round(s)))
}

// Workload describes the traffic of a run. Every part is optional.
type Workload struct {
	// Background: Poisson arrivals per host at Load of the host link,
	// sizes from CDF, destinations uniform among the other hosts (HPCC
	// traffic_gen.py).
	CDF  string  `yaml:"cdf" json:"cdf,omitempty"`
	Load float64 `yaml:"load" json:"load,omitempty"`
	// Incast: Degree senders (distinct, random, not the receiver) each send
	// Size octets to one random receiver, starting uniformly within Sync
	// ns. With IncastLoad > 0, incasts arrive as a Poisson process whose
	// octets make IncastLoad of the total host capacity (SFC's "8 %
	// incast"); otherwise Incasts incasts start at IncastEvery intervals.
	Degree      int     `yaml:"degree" json:"degree,omitempty"`
	Size        int64   `yaml:"size" json:"size,omitempty"`
	Sync        int64   `yaml:"sync" json:"sync,omitempty"`
	IncastLoad  float64 `yaml:"incast_load" json:"incast_load,omitempty"`
	Incasts     int     `yaml:"incasts" json:"incasts,omitempty"`
	IncastEvery int64   `yaml:"incast_every" json:"incast_every,omitempty"`
	// Receiver fixes the incast receiver (-1 or unset with Degree: random).
	Receiver *int `yaml:"receiver" json:"receiver,omitempty"`
	// Remote picks incast senders outside the receiver's rack (Floodgate's
	// incast-mix); the runner sets Rack, the hosts per rack.
	Remote bool `yaml:"remote" json:"remote,omitempty"`
	Rack   int  `yaml:"-" json:"-"`
	// QPs is the number of flows (queue pairs) per incast sender, each of
	// Size octets (default 1; the SFC testbed's 25).
	QPs int `yaml:"qps" json:"qps,omitempty"`
	// AllToAll: every host sends AllToAllSize octets to every other host
	// at time 0.
	AllToAllSize int64 `yaml:"all_to_all_size" json:"all_to_all_size,omitempty"`
	// Duration is the arrival window in ns.
	Duration int64 `yaml:"duration" json:"duration"`
	// FlowsFile reads flows from a file in HPCC's format instead. A
	// relative path is taken from the scenario file's directory when the
	// scenario was read by LoadScenario.
	FlowsFile string `yaml:"flows_file" json:"flows_file,omitempty"`
	// Flows, when not empty, are run as given instead of any of the above
	// (for programs and figures that replay a fixed flow list).
	Flows []Flow `yaml:"-" json:"-"`
}

// ResolveCDF makes a relative workload.cdf file path relative to dir, the
// scenario file's directory, and absolute, as Scenario.ResolvePaths does
// for flows_file. The shipped CDF names (websearch, hadoop) are left as
// they are.
func (w *Workload) ResolveCDF(dir string) {
	c := w.CDF
	if c == "" || filepath.IsAbs(c) {
		return
	}
	if _, ok := builtinCDF[strings.ToLower(c)]; ok {
		return
	}
	c = filepath.Join(dir, c)
	if abs, err := filepath.Abs(c); err == nil {
		c = abs
	}
	w.CDF = c
}

func wlParam(name, value, allowed string) error {
	return &device.ParamError{Scope: "workload", Name: name, Value: value, Allowed: allowed}
}

// Check range-checks the workload's keys for hosts hosts whose links run
// at bps and refuses a workload that would generate more than MaxFlows
// flows, naming the keys; it generates nothing (a flows_file is read only
// by Arrivals and Generate). Errors wrap device.ErrParam.
func (w *Workload) Check(hosts int, bps int64) error {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	d := func(v int64) string { return strconv.FormatInt(v, 10) }
	switch {
	case math.IsNaN(w.Load) || w.Load < 0 || w.Load > 1:
		return wlParam("load", f(w.Load), "0..1")
	case math.IsNaN(w.IncastLoad) || w.IncastLoad < 0 || w.IncastLoad > 1:
		return wlParam("incast_load", f(w.IncastLoad), "0..1")
	case w.Duration < 0:
		return wlParam("duration", d(w.Duration), "0.. ns")
	case w.Degree < 0 || w.Degree > MaxFlows:
		return wlParam("degree", d(int64(w.Degree)), fmt.Sprintf("0..%d", MaxFlows))
	case w.Size < 0:
		return wlParam("size", d(w.Size), "0.. octets")
	case w.Sync < 0 || w.Sync > MaxTime:
		return wlParam("sync", d(w.Sync), fmt.Sprintf("0..%d ns", int64(MaxTime)))
	case w.Incasts < 0 || w.Incasts > MaxFlows:
		return wlParam("incasts", d(int64(w.Incasts)), fmt.Sprintf("0..%d", MaxFlows))
	case w.IncastEvery < 0 || w.IncastEvery > MaxTime:
		return wlParam("incast_every", d(w.IncastEvery), fmt.Sprintf("0..%d ns", int64(MaxTime)))
	case w.QPs < 0 || w.QPs > MaxFlows:
		return wlParam("qps", d(int64(w.QPs)), fmt.Sprintf("0..%d", MaxFlows))
	case w.AllToAllSize < 0:
		return wlParam("all_to_all_size", d(w.AllToAllSize), "0.. octets")
	}
	if len(w.Flows) > 0 || w.FlowsFile != "" {
		return nil // counted as read
	}
	// Expected flows, in float64 so that no product overflows.
	var n float64
	var keys []string
	if w.Load > 0 && bps > 0 && hosts > 1 && w.CDF != "" {
		c, err := LoadCDF(w.CDF)
		if err != nil {
			return fmt.Errorf("workload: cdf: %w", err)
		}
		n += w.backgroundFlows(hosts, bps, c.Mean())
		keys = append(keys, "load", "duration")
	}
	if w.Degree > 0 {
		if w.IncastLoad > 0 && bps > 0 && hosts > 0 && w.Size > 0 {
			n += w.incastLoadFlows(hosts, bps)
			keys = append(keys, "incast_load", "duration", "degree", "qps")
		} else if w.IncastLoad == 0 {
			n += float64(max(w.Incasts, 1)) * float64(w.Degree) * float64(max(w.QPs, 1))
			keys = append(keys, "incasts", "degree", "qps")
		}
	}
	if w.AllToAllSize > 0 {
		n += float64(hosts) * float64(hosts-1)
		keys = append(keys, "all_to_all_size (hosts × hosts−1)")
	}
	if n > MaxFlows {
		return wlParam(strings.Join(slices.Compact(keys), ", "), fmt.Sprintf("about %.3g flows", n), fmt.Sprintf("at most %d flows (fabric.MaxFlows)", MaxFlows))
	}
	// Flows that start at one instant are all in flight together.
	if w.AllToAllSize > 0 && float64(hosts)*float64(hosts-1) > MaxInFlight {
		return wlParam("all_to_all_size (hosts × hosts−1 flows at time 0)", fmt.Sprintf("%d flows at once", hosts*(hosts-1)), fmt.Sprintf("at most %d flows in flight (fabric.MaxInFlight)", MaxInFlight))
	}
	if w.Degree > 0 && w.IncastLoad == 0 && w.IncastEvery == 0 {
		if at := float64(max(w.Incasts, 1)) * float64(w.Degree) * float64(max(w.QPs, 1)); at > MaxInFlight {
			return wlParam("incasts, degree, qps (incast_every 0: all at time 0)", fmt.Sprintf("%.0f flows at once", at), fmt.Sprintf("at most %d flows in flight (fabric.MaxInFlight)", MaxInFlight))
		}
	}
	return nil
}

// backgroundFlows is the expected number of background flows: hosts
// hosts each sending at load × bps for the workload's duration, in flows
// of mean octets (float64, so that no product overflows).
func (w *Workload) backgroundFlows(hosts int, bps int64, mean float64) float64 {
	return float64(hosts) * w.Load * float64(bps) / 8 * float64(w.Duration) / 1e9 / mean
}

// incastLoadFlows is the expected number of incast flows when incasts
// arrive at incast_load of the hosts' capacity: incasts of degree
// senders × size octets, each sender with qps flows.
func (w *Workload) incastLoadFlows(hosts int, bps int64) float64 {
	per := float64(w.Degree) * float64(w.Size)
	incasts := float64(hosts) * float64(bps) / 8 * w.IncastLoad * float64(w.Duration) / 1e9 / per
	return incasts * float64(w.Degree) * float64(max(w.QPs, 1))
}

// inputError is bad input in a file (a flows file's line): it says what
// is wrong where, and is a device.ErrParam so that sfcsim exits 2 for it.
type inputError struct{ msg string }

func (e *inputError) Error() string        { return e.msg }
func (e *inputError) Is(target error) bool { return target == device.ErrParam }

func inputErrorf(format string, a ...any) error {
	return &inputError{fmt.Sprintf(format, a...)}
}

var errTooMany = wlParam("(generated flows)", fmt.Sprintf("more than %d", MaxFlows), fmt.Sprintf("at most %d flows (fabric.MaxFlows)", MaxFlows))

// Generate returns the workload's flows in start order, deterministically
// from seed, for hosts hosts whose links run at bps: all of Arrivals at
// once (56 octets a flow). It calls Check first.
func (w *Workload) Generate(hosts int, bps int64, seed uint64) ([]Flow, error) {
	a, err := w.Arrivals(hosts, bps, seed)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	flows := make([]Flow, 0, a.Len())
	for f, ok := a.Next(); ok; f, ok = a.Next() {
		flows = append(flows, f)
	}
	return flows, a.Err()
}

// WriteFlows writes flows in HPCC's flow-file format: a count, then
// "src dst 3 dport size start_s" per flow.
func WriteFlows(w io.Writer, flows []Flow) error {
	i := 0
	return writeFlowFile(w, len(flows), func() (Flow, bool) {
		if i == len(flows) {
			return Flow{}, false
		}
		i++
		return flows[i-1], true
	})
}

// WriteArrivals writes the flows a has left as WriteFlows does, one at a
// time: the memory of a host's draws, not of the flows.
func WriteArrivals(w io.Writer, a *Arrivals) error {
	if err := writeFlowFile(w, a.Len()-a.taken, a.Next); err != nil {
		return err
	}
	return a.Err()
}

func writeFlowFile(w io.Writer, n int, next func() (Flow, bool)) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%d\n", n)
	for f, ok := next(); ok; f, ok = next() {
		fmt.Fprintf(bw, "%d %d 3 100 %d %.9f\n", f.Src, f.Dst, f.Size, float64(f.Start)/1e9)
	}
	return bw.Flush()
}

// maxStartNs bounds a flow-file start time, in ns: 1e18 ns (about 31
// years) leaves room below math.MaxInt64 (9.2e18) for the run's drain and
// the flow's completion time, so no time of the run overflows.
const maxStartNs = 1e18

// ReadFlows reads HPCC's flow-file format; errors name the line. As the
// HPCC simulator does (scratch/third.cc reads the count, then that many
// flows), whatever follows the counted flows is not read: HPCC's own
// mix/flow.txt says 2 and carries 254 more flows and a usage note after
// them. Fewer flows than the count is an error.
func ReadFlows(r io.Reader, hosts int) ([]Flow, error) {
	fs := newFlowScanner(r, hosts)
	var flows []Flow
	for {
		f, ok, err := fs.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		flows = append(flows, f)
	}
	sort.SliceStable(flows, func(i, j int) bool { return flows[i].Start < flows[j].Start })
	return flows, nil
}

// flowScanner reads a flow file one flow at a time, each checked, numbered
// in file order.
type flowScanner struct {
	sc         *bufio.Scanner
	hosts      int
	line, want int
	n          int
	eof        bool
}

func newFlowScanner(r io.Reader, hosts int) *flowScanner {
	return &flowScanner{sc: newLineScanner(r), hosts: hosts, want: -1}
}

// maxLine bounds a line of a CDF or flows file: 1 MiB.
const maxLine = 1 << 20

// newLineScanner scans lines of up to maxLine octets.
func newLineScanner(r io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	return sc
}

// lineErr says what a scanner's error means for the line it stopped at.
func lineErr(err error) error {
	if errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("longer than %d octets", maxLine)
	}
	return err
}

// next returns the next flow; false after the counted flows (what follows
// them is not read).
func (s *flowScanner) next() (Flow, bool, error) {
	if s.eof {
		return Flow{}, false, nil
	}
	for s.want < 0 || s.n < s.want {
		if !s.sc.Scan() {
			break
		}
		s.line++
		line := s.line
		fs := strings.Fields(s.sc.Text())
		if len(fs) == 0 {
			continue
		}
		if s.want < 0 {
			n, err := strconv.Atoi(fs[0])
			if err != nil || len(fs) != 1 || n < 0 {
				return Flow{}, false, inputErrorf("flows line %d: want the flow count, got %q", line, s.sc.Text())
			}
			if n > MaxFlows {
				return Flow{}, false, inputErrorf("flows line %d: flow count %d: at most %d (fabric.MaxFlows)", line, n, MaxFlows)
			}
			s.want = n
			continue
		}
		if len(fs) != 6 {
			return Flow{}, false, inputErrorf("flows line %d: want \"src dst pg dport size start_s\", got %q", line, s.sc.Text())
		}
		hosts := s.hosts
		src, e1 := strconv.Atoi(fs[0])
		d, e2 := strconv.Atoi(fs[1])
		pg, e3 := strconv.Atoi(fs[2])
		dp, e4 := strconv.Atoi(fs[3])
		sz, e5 := strconv.ParseInt(fs[4], 10, 64)
		st, e6 := strconv.ParseFloat(fs[5], 64)
		var bad string
		switch {
		case e1 != nil || src < 0 || src >= hosts:
			bad = fmt.Sprintf("src %q: want a host 0..%d", fs[0], hosts-1)
		case e2 != nil || d < 0 || d >= hosts:
			bad = fmt.Sprintf("dst %q: want a host 0..%d", fs[1], hosts-1)
		case src == d:
			bad = fmt.Sprintf("src and dst are both host %d", src)
		case e3 != nil || pg < 0 || pg > 7:
			bad = fmt.Sprintf("pg %q: want a priority 0..7", fs[2])
		case e4 != nil || dp < 0 || dp > 65535:
			bad = fmt.Sprintf("dport %q: want 0..65535", fs[3])
		case e5 != nil || sz <= 0 || sz > MaxSize:
			bad = fmt.Sprintf("size %q: want 1..%d octets", fs[4], int64(MaxSize))
		case e6 != nil || math.IsNaN(st) || st < 0 || st*1e9 >= maxStartNs:
			// Beyond maxStartNs the start would not fit an int64 of ns.
			bad = fmt.Sprintf("start %q: want 0 to %g seconds", fs[5], maxStartNs/1e9)
		}
		if bad != "" {
			return Flow{}, false, inputErrorf("flows line %d: %s in %q", line, bad, s.sc.Text())
		}
		f := Flow{ID: int64(s.n), Src: src, Dst: d, Size: sz, Start: int64(math.Round(st * 1e9))}
		s.n++
		return f, true, nil
	}
	s.eof = true
	if err := s.sc.Err(); err != nil {
		return Flow{}, false, inputErrorf("flows line %d: %v", s.line+1, lineErr(err))
	}
	if s.want < 0 {
		return Flow{}, false, inputErrorf("flows: empty file, want the flow count")
	}
	if s.want != s.n {
		return Flow{}, false, inputErrorf("flows: header says %d flows, file has %d", s.want, s.n)
	}
	return Flow{}, false, nil
}
