// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/opensfc/sfc/version"
)

// Verdicts of a check and of a report.
const (
	Pass = "PASS"
	Fail = "FAIL"
	// Inconclusive: the capture cannot show whether the device conforms
	// (it ends before the reference's last signal plus the time tolerance,
	// or a port the reference sends on carried nothing): exit status 3.
	Inconclusive = "INCONCLUSIVE"
)

// Modes of comparison.
const (
	ModeExact  = "exact"
	ModeDevice = "device"
)

// Deviation is one difference found by a check: where (frame number in the
// capture under test, port, model time) and what (field, expected and
// actual values).
type Deviation struct {
	// Check is the id of the rule the deviation breaks (Rules; exact
	// mode: frames, bytes or time).
	Check string `json:"check"`
	// Frame is the frame number in the capture being checked: the
	// expected capture in exact mode, the device capture in device mode;
	// 0 when the deviation is about a frame that capture lacks.
	Frame int `json:"frame"`
	// Ref locates the reference side: in exact mode the model's output
	// number (1-based), in device mode the expected frame's number in the
	// model's output, or the input frame number (Detail says which); 0
	// when there is none.
	Ref  int    `json:"ref,omitempty"`
	Port string `json:"port"`
	// Time is model time in ns (since the vector's epoch).
	Time     int64  `json:"time_ns"`
	Field    string `json:"field"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
	Detail   string `json:"detail,omitempty"`

	// unmaskable: a mask on Field does not drop it (a pause/resume
	// boundary crossed, rule 4, on a masked pause time).
	unmaskable bool
	// definite: no frame the capture dropped can explain it, whatever
	// its rule (explainedByDrops).
	definite bool
}

// CheckResult is the verdict of one check and the deviations it found
// (at most Options.MaxShown of them are kept; Count counts all).
type CheckResult struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Verdict     string      `json:"verdict"`
	Count       int64       `json:"deviations"`
	Deviations  []Deviation `json:"shown"`
	// Checked counts the items the check looked at (frames, signals).
	Checked int64 `json:"checked"`
	// Accepted counts what the rule let pass only because the reference
	// leaves the device a choice there, and Why names the property
	// (conformance.md rule 5: a missing signal another suppression phase
	// explains).
	Accepted int64  `json:"accepted,omitempty"`
	Why      string `json:"accepted_why,omitempty"`
	// NotJudged counts the reference frames of the rule the capture could
	// not show (it ended first, or their port carried nothing: rule 9);
	// with any, a rule with no deviation is INCONCLUSIVE, not PASS.
	NotJudged int64 `json:"not_judged,omitempty"`
	// Clause and Tolerance describe a device-mode rule (Rules).
	Clause    string `json:"clause,omitempty"`
	Tolerance string `json:"tolerance,omitempty"`

	inconclusive bool
}

// FrameCounts counts the frames a comparison saw.
type FrameCounts struct {
	Input    int64 `json:"input"`
	Expected int64 `json:"expected"` // expected capture (exact) or device capture (device mode)
	Model    int64 `json:"model"`    // frames the reference model sent
}

// Report is the result of comparing one vector or one device capture: a
// verdict per check and overall, with the deviations. WriteJSON and
// WriteText render it.
type Report struct {
	Vector      string         `json:"vector"`
	Mode        string         `json:"mode"`
	Description string         `json:"description"`
	Case        string         `json:"case"`
	Input       string         `json:"input"`
	Compared    string         `json:"compared"`
	Frames      FrameCounts    `json:"frames"`
	Checks      []*CheckResult `json:"checks"`
	Verdict     string         `json:"verdict"`
	// Error is the reason the vector is unusable (exit status 2), with
	// Verdict "UNUSABLE".
	Error string `json:"error,omitempty"`
	// Notes are reasons for an INCONCLUSIVE verdict that lie outside the
	// capture (a live run whose sending slipped or whose kernel dropped
	// frames, conformance.md rule 9); set by the live harness.
	Notes []string `json:"notes,omitempty"`

	// Harness is the version of this harness (package version).
	Harness string `json:"harness"`
	// VectorDigest is the digest of the vector's content (Digest: the
	// hash's name, a colon, the hex): the hash of case.yaml's hash
	// followed by the input capture's (b3sum or sha256sum of each,
	// concatenated as octets).
	VectorDigest string `json:"vector_digest,omitempty"`
	// CaptureDigest is the digest of the device capture as stored
	// (device mode), written as VectorDigest.
	CaptureDigest string `json:"capture_digest,omitempty"`
	// DUT is the device's identity as given (--dut "vendor model
	// firmware").
	DUT string `json:"dut,omitempty"`
	// Tolerances are the tolerances in force (device mode).
	Tolerances *TolerancesInForce `json:"tolerances,omitempty"`
	// Background counts the device frames that are not checked
	// (conformance.md rule 2: ARP, ND, LLDP, STP, ICMP, other TCP/UDP and
	// EtherTypes, frames the ignore filter matches) and, before time 0,
	// frames that are not signals (rule 1).
	Background *BackgroundCounts `json:"background,omitempty"`

	maxShown int
	byName   map[string]*CheckResult
}

// Unusable is the verdict of a report whose vector could not be compared.
const Unusable = "UNUSABLE"

// TolerancesInForce are the tolerances a report was judged with, defaults
// filled in (times in ns, sizes in octets). Exact mode has only the time
// tolerance and the volatile fields (exactTolerances); device mode all but
// Volatile.
type TolerancesInForce struct {
	TimeNs        int64    `json:"time_ns"`
	EarlyNs       int64    `json:"early_ns"`
	PauseNs       int64    `json:"pause_ns"`
	QueueDepth    int64    `json:"queue_depth"`
	WindowNs      int64    `json:"window_ns"`
	JitterNs      int64    `json:"jitter_ns"`
	MissedPeriods int64    `json:"missed_periods"`
	Mask          []string `json:"mask,omitempty"`
	Ignore        string   `json:"ignore,omitempty"`
	// Volatile are the fields exact mode does not compare (case.yaml
	// volatile:).
	Volatile []string `json:"volatile,omitempty"`

	exact bool
}

// exactTolerances returns the tolerances of exact mode for c: the time
// tolerance (default 0) and the volatile fields.
func exactTolerances(c *Case) *TolerancesInForce {
	return &TolerancesInForce{TimeNs: c.Tol.Time, Volatile: c.Volatile, exact: true}
}

// MarshalJSON writes the tolerances of the report's mode: in exact mode
// only time_ns and volatile (the device-mode ones do not apply there).
func (t *TolerancesInForce) MarshalJSON() ([]byte, error) {
	if t.exact {
		return json.Marshal(struct {
			TimeNs   int64    `json:"time_ns"`
			Volatile []string `json:"volatile,omitempty"`
		}{t.TimeNs, t.Volatile})
	}
	type plain TolerancesInForce
	return json.Marshal((*plain)(t))
}

// String renders the tolerances on one line.
func (t *TolerancesInForce) String() string {
	if t.exact {
		s := "time " + fmtTime(t.TimeNs)
		if len(t.Volatile) > 0 {
			s += ", volatile " + strings.Join(t.Volatile, " ")
		}
		return s
	}
	s := fmt.Sprintf("time %s, early %s, pause %s, queue depth %d octets, window %s, jitter %s, missed periods %d",
		fmtTime(t.TimeNs), fmtTime(t.EarlyNs), fmtTime(t.PauseNs), t.QueueDepth, fmtTime(t.WindowNs), fmtTime(t.JitterNs), t.MissedPeriods)
	if len(t.Mask) > 0 {
		s += ", mask " + strings.Join(t.Mask, " ")
	}
	if t.Ignore != "" {
		s += ", ignore " + strconv.Quote(t.Ignore)
	}
	return s
}

// BackgroundCounts counts the device frames device mode does not check,
// by reason (conformance.md rules 1 and 2).
type BackgroundCounts struct {
	Total int64 `json:"total"`
	// ByKind counts them by kind: arp, nd, lldp, stp, icmp, tcp, udp,
	// ethertype-0xNNNN, ignore (the ignore filter), before-t0.
	ByKind map[string]int64 `json:"by_kind"`
	// Shown lists the first of them (frame number and kind), for -v.
	Shown []BackgroundFrame `json:"shown,omitempty"`
}

// BackgroundFrame is one background frame of the device capture.
type BackgroundFrame struct {
	Frame int    `json:"frame"`
	Port  string `json:"port"`
	Time  int64  `json:"time_ns"`
	Kind  string `json:"kind"`
}

// Worst returns the worst of verdicts: UNUSABLE, then FAIL, then
// INCONCLUSIVE, then PASS (conformance.md rule 9, several vectors).
func Worst(verdicts ...string) string {
	rank := func(v string) int {
		switch v {
		case Pass:
			return 0
		case Inconclusive:
			return 1
		case Fail:
			return 2
		}
		return 3
	}
	w := Pass
	for _, v := range verdicts {
		if rank(v) > rank(w) {
			w = v
		}
	}
	return w
}

// ExitCodeOf returns the exit status of a verdict: 0 pass, 1 fail,
// 2 unusable, 3 inconclusive.
func ExitCodeOf(verdict string) int {
	switch verdict {
	case Pass:
		return 0
	case Fail:
		return 1
	case Inconclusive:
		return 3
	}
	return 2
}

func newReport(mode string, maxShown int, checks []checkDef) *Report {
	if maxShown <= 0 {
		maxShown = 20
	}
	r := &Report{Mode: mode, maxShown: maxShown, byName: map[string]*CheckResult{}, Harness: version.String()}
	for _, c := range checks {
		cr := &CheckResult{Name: c.name, Description: c.desc, Verdict: Pass, Deviations: []Deviation{}}
		r.Checks = append(r.Checks, cr)
		r.byName[c.name] = cr
	}
	return r
}

type checkDef struct{ name, desc string }

func (r *Report) add(d Deviation) {
	c := r.byName[d.Check]
	if c == nil {
		c = &CheckResult{Name: d.Check, Verdict: Pass, Deviations: []Deviation{}}
		r.Checks = append(r.Checks, c)
		r.byName[d.Check] = c
	}
	c.Count++
	c.Verdict = Fail
	if c.inconclusive {
		c.Verdict = Inconclusive
	}
	if len(c.Deviations) < r.maxShown {
		c.Deviations = append(c.Deviations, d)
	}
}

// addNotJudged adds d as a deviation its check could not judge (rule 9:
// the capture dropped frames): the check is INCONCLUSIVE unless another
// deviation FAILs it.
func (r *Report) addNotJudged(d Deviation) {
	c := r.byName[d.Check]
	if c == nil {
		return
	}
	c.Count++
	if c.Verdict == Pass {
		c.Verdict = Inconclusive
	}
	if len(c.Deviations) < r.maxShown {
		c.Deviations = append(c.Deviations, d)
	}
}

// addNotJudgedCount counts n more deviations of check name as
// addNotJudged does, beyond those shown.
func (r *Report) addNotJudgedCount(name string, n int64) {
	if c := r.byName[name]; c != nil && n > 0 {
		c.Count += n
		if c.Verdict == Pass {
			c.Verdict = Inconclusive
		}
	}
}

// notJudged counts n items of check name the capture could not show.
func (r *Report) notJudged(name string, n int64) {
	if c := r.byName[name]; c != nil && n > 0 {
		c.NotJudged += n
		if c.Verdict == Pass {
			c.Verdict = Inconclusive
		}
	}
}

// accepted notes an item rule name let pass by a property, and why.
func (r *Report) accepted(name, why string) {
	if c := r.byName[name]; c != nil {
		c.Accepted++
		c.Why = why
	}
}

func (r *Report) checked(name string, n int64) {
	if c := r.byName[name]; c != nil {
		c.Checked += n
	}
}

// Check returns the result of the named check, or nil.
func (r *Report) Check(name string) *CheckResult { return r.byName[name] }

// Failed returns the names of the checks that failed, in report order.
func (r *Report) Failed() []string {
	var out []string
	for _, c := range r.Checks {
		if c.Verdict == Fail {
			out = append(out, c.Name)
		}
	}
	return out
}

func (r *Report) finish() {
	r.Verdict = Pass
	for _, c := range r.Checks {
		r.Verdict = Worst(r.Verdict, c.Verdict)
		// Every deviation is of an item the check looked at, though a
		// path that finds one may not count it ("0 checked, 2
		// deviation(s)" read as a contradiction).
		c.Checked = max(c.Checked, c.Count)
	}
}

// unusable marks the report UNUSABLE for err and drops the rules'
// verdicts: a vector that could not be compared has none (the rules it
// did not get to would read PASS with 0 checked), in every format alike.
func (r *Report) unusable(err error) {
	r.Verdict, r.Error = Unusable, err.Error()
	r.Checks = []*CheckResult{}
	r.byName = map[string]*CheckResult{}
}

// ExitCode returns the exit status of `sfcdump conform` for the report:
// 0 pass, 1 deviations, 2 unusable, 3 inconclusive.
func (r *Report) ExitCode() int { return ExitCodeOf(r.Verdict) }

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	e.SetEscapeHTML(false)
	return e.Encode(r)
}

// String renders a deviation on one line: frame, port, time, field,
// expected and actual.
func (d Deviation) String() string {
	var b strings.Builder
	if d.Frame > 0 {
		fmt.Fprintf(&b, "frame %d", d.Frame)
	} else {
		b.WriteString("frame -")
	}
	if d.Ref > 0 {
		fmt.Fprintf(&b, " (ref %d)", d.Ref)
	}
	fmt.Fprintf(&b, " port %s at %s: %s: expected %s, actual %s", d.Port, fmtTime(d.Time), d.Field, d.Expected, d.Actual)
	if d.Detail != "" {
		fmt.Fprintf(&b, " (%s)", d.Detail)
	}
	return b.String()
}
