package conformance

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Verdicts of a check and of a report.
const (
	Pass = "PASS"
	Fail = "FAIL"
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

	maxShown int
	byName   map[string]*CheckResult
}

// Unusable is the verdict of a report whose vector could not be compared.
const Unusable = "UNUSABLE"

func newReport(mode string, maxShown int, checks []checkDef) *Report {
	if maxShown <= 0 {
		maxShown = 20
	}
	r := &Report{Mode: mode, maxShown: maxShown, byName: map[string]*CheckResult{}}
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
	if len(c.Deviations) < r.maxShown {
		c.Deviations = append(c.Deviations, d)
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
		if c.Verdict == Fail {
			r.Verdict = Fail
		}
	}
}

// ExitCode returns the exit status of `sfcdump conform` for the report:
// 0 pass, 1 deviations, 2 unusable.
func (r *Report) ExitCode() int {
	switch r.Verdict {
	case Pass:
		return 0
	case Fail:
		return 1
	}
	return 2
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	e.SetEscapeHTML(false)
	return e.Encode(r)
}

// WriteText writes the report for a person: a header, then per check its
// verdict and the deviations shown, then the overall verdict.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s mode)", r.Vector, r.Mode)
	if r.Description != "" {
		fmt.Fprintf(&b, ": %s", r.Description)
	}
	b.WriteString("\n")
	if r.Error != "" {
		fmt.Fprintf(&b, "  %s\nverdict: %s\n", r.Error, Unusable)
		_, err := io.WriteString(w, b.String())
		return err
	}
	other := "expected"
	if r.Mode == ModeDevice {
		other = "device"
	}
	fmt.Fprintf(&b, "  frames: input %d, %s %d, model %d\n", r.Frames.Input, other, r.Frames.Expected, r.Frames.Model)
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "  %s %-15s %s", c.Verdict, c.Name, c.Description)
		if c.Count > 0 {
			fmt.Fprintf(&b, " — %d deviation(s)", c.Count)
		}
		b.WriteString("\n")
		for _, d := range c.Deviations {
			fmt.Fprintf(&b, "      %s\n", d.String())
		}
		if int64(len(c.Deviations)) < c.Count {
			fmt.Fprintf(&b, "      ... %d more\n", c.Count-int64(len(c.Deviations)))
		}
	}
	fmt.Fprintf(&b, "verdict: %s\n", r.Verdict)
	_, err := io.WriteString(w, b.String())
	return err
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
