// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/opensfc/sfc/dissect"
)

// WriteText writes the report for a person: a header naming the harness,
// the vector, the capture and the tolerances, the deviations first, then
// one line per rule (id, verdict, how many frames it checked), then the
// overall verdict.
func (r *Report) WriteText(w io.Writer) error { return r.writeText(w, false) }

// WriteTextVerbose is WriteText that also lists the background frames
// (conformance.md rule 2: counted, listed with -v).
func (r *Report) WriteTextVerbose(w io.Writer) error { return r.writeText(w, true) }

func (r *Report) writeText(w io.Writer, verbose bool) error {
	var b strings.Builder
	// Every string from outside (paths, --dut, the case's description,
	// port and field names, values quoted from a capture) is escaped
	// (dissect.Escape, \n included): one value never makes a line of
	// its own, so a report cannot be made to show a forged verdict line.
	esc := dissect.Escape
	fmt.Fprintf(&b, "%s (%s mode)", esc(r.Vector), r.Mode)
	if r.Description != "" {
		fmt.Fprintf(&b, ": %s", esc(r.Description))
	}
	b.WriteString("\n")
	if r.Harness != "" {
		fmt.Fprintf(&b, "  harness: sfcdump %s\n", esc(r.Harness))
	}
	if r.VectorDigest != "" {
		fmt.Fprintf(&b, "  vector: %s %s\n", esc(r.Vector), r.VectorDigest)
	}
	if r.CaptureDigest != "" {
		fmt.Fprintf(&b, "  capture: %s %s\n", esc(r.Compared), r.CaptureDigest)
	}
	if r.DUT != "" {
		fmt.Fprintf(&b, "  device: %s\n", esc(r.DUT))
	}
	if r.Tolerances != nil {
		fmt.Fprintf(&b, "  tolerances: %s\n", esc(r.Tolerances.String()))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "  inconclusive: %s\n", esc(n))
	}
	if r.Error != "" {
		for _, l := range r.errorLines() {
			fmt.Fprintf(&b, "  %s\n", l)
		}
		fmt.Fprintf(&b, "verdict: %s\n", Unusable)
		_, err := io.WriteString(w, b.String())
		return err
	}
	other := "expected"
	if r.Mode == ModeDevice {
		other = "device"
	}
	fmt.Fprintf(&b, "  frames: input %d, %s %d, model %d\n", r.Frames.Input, other, r.Frames.Expected, r.Frames.Model)
	if bg := r.Background; bg != nil && bg.Total > 0 {
		var kinds []string
		for k := range bg.ByKind {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		var parts []string
		for _, k := range kinds {
			parts = append(parts, fmt.Sprintf("%s %d", k, bg.ByKind[k]))
		}
		fmt.Fprintf(&b, "  background (not checked): %d (%s)\n", bg.Total, strings.Join(parts, ", "))
		if verbose {
			for _, f := range bg.Shown {
				fmt.Fprintf(&b, "      frame %d port %s at %s: %s\n", f.Frame, esc(f.Port), fmtTime(f.Time), esc(f.Kind))
			}
			if n := bg.Total - int64(len(bg.Shown)); n > 0 {
				fmt.Fprintf(&b, "      ... %d more\n", n)
			}
		}
	}
	if r.Mode == ModeDevice {
		var n int64
		for _, c := range r.Checks {
			n += c.Count
		}
		if n > 0 {
			fmt.Fprintf(&b, "deviations (%d):\n", n)
			for _, c := range r.Checks {
				for _, d := range c.Deviations {
					fmt.Fprintf(&b, "  %s %s\n", esc(c.Name), esc(d.String()))
				}
				if int64(len(c.Deviations)) < c.Count {
					fmt.Fprintf(&b, "  %s ... %d more\n", esc(c.Name), c.Count-int64(len(c.Deviations)))
				}
			}
		}
		b.WriteString("rules:\n")
		for _, c := range r.Checks {
			fmt.Fprintf(&b, "  %-18s %-12s %6d checked", esc(c.Name), c.Verdict, c.Checked)
			if c.Count > 0 {
				fmt.Fprintf(&b, ", %d deviation(s)", c.Count)
			}
			if c.Accepted > 0 {
				fmt.Fprintf(&b, ", %d accepted: %s", c.Accepted, esc(c.Why))
			}
			if c.NotJudged > 0 {
				fmt.Fprintf(&b, ", %d not judged (after the capture's end or on a silent port)", c.NotJudged)
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "verdict: %s\n", r.Verdict)
		_, err := io.WriteString(w, b.String())
		return err
	}
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "  %s %-15s %s", c.Verdict, esc(c.Name), esc(c.Description))
		if c.Count > 0 {
			fmt.Fprintf(&b, " — %d deviation(s)", c.Count)
		}
		b.WriteString("\n")
		for _, d := range c.Deviations {
			fmt.Fprintf(&b, "      %s\n", esc(d.String()))
		}
		if int64(len(c.Deviations)) < c.Count {
			fmt.Fprintf(&b, "      ... %d more\n", c.Count-int64(len(c.Deviations)))
		}
	}
	fmt.Fprintf(&b, "verdict: %s\n", r.Verdict)
	_, err := io.WriteString(w, b.String())
	return err
}

// errorLines returns the reason the vector is unusable as lines for the
// text report, each escaped: a bad case.yaml gives one error a line, but
// a path from outside that holds a line break (the vector, the case, the
// captures) is escaped inside the message before it is split, so it never
// makes a line of its own.
func (r *Report) errorLines() []string {
	e := r.Error
	for _, p := range []string{r.Vector, r.Case, r.Input, r.Compared} {
		if p != "" && dissect.Escape(p) != p {
			e = strings.ReplaceAll(e, p, dissect.Escape(p))
		}
	}
	lines := strings.Split(e, "\n")
	for i, l := range lines {
		lines[i] = dissect.Escape(l)
	}
	return lines
}

// JSONLRecord is one line of `--format jsonl`: a report header, a
// deviation, a rule verdict, or the vector's verdict (Type says which).
// Fields that do not apply to the type are left out.
type JSONLRecord struct {
	Type          string             `json:"type"` // report, deviation, rule, verdict
	Vector        string             `json:"vector"`
	Harness       string             `json:"harness,omitempty"`
	VectorDigest  string             `json:"vector_digest,omitempty"`
	Capture       string             `json:"capture,omitempty"`
	CaptureDigest string             `json:"capture_digest,omitempty"`
	DUT           string             `json:"dut,omitempty"`
	Mode          string             `json:"mode,omitempty"`
	Tolerances    *TolerancesInForce `json:"tolerances,omitempty"`
	Background    *BackgroundCounts  `json:"background,omitempty"`
	Rule          string             `json:"rule,omitempty"`
	Clause        string             `json:"clause,omitempty"`
	Verdict       string             `json:"verdict,omitempty"`
	Checked       *int64             `json:"checked,omitempty"`
	Accepted      int64              `json:"accepted,omitempty"`
	Why           string             `json:"accepted_why,omitempty"`
	NotJudged     int64              `json:"not_judged,omitempty"`
	Deviations    *int64             `json:"deviations,omitempty"`
	Error         string             `json:"error,omitempty"`
	Notes         []string           `json:"notes,omitempty"`
	*Deviation
}

// WriteJSONL writes the report as JSON Lines: a "report" object (harness,
// vector and digest, capture and digest, device, tolerances), one
// "deviation" object per deviation kept, one "rule" object per rule
// verdict, and a "verdict" object.
func (r *Report) WriteJSONL(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetEscapeHTML(false)
	if err := e.Encode(JSONLRecord{Type: "report", Vector: r.Vector, Harness: r.Harness, VectorDigest: r.VectorDigest, Capture: r.Compared,
		CaptureDigest: r.CaptureDigest, DUT: r.DUT, Mode: r.Mode, Tolerances: r.Tolerances, Background: r.Background, Error: r.Error, Notes: r.Notes}); err != nil {
		return err
	}
	if r.Error != "" {
		// UNUSABLE: the reason, no rule verdicts (as the text report)
		return e.Encode(JSONLRecord{Type: "verdict", Vector: r.Vector, Verdict: Unusable, Error: r.Error})
	}
	for _, c := range r.Checks {
		for i := range c.Deviations {
			d := c.Deviations[i]
			if err := e.Encode(JSONLRecord{Type: "deviation", Vector: r.Vector, Rule: c.Name, Deviation: &d}); err != nil {
				return err
			}
		}
	}
	for _, c := range r.Checks {
		checked, count := c.Checked, c.Count
		if err := e.Encode(JSONLRecord{Type: "rule", Vector: r.Vector, Rule: c.Name, Clause: c.Clause, Verdict: c.Verdict, Checked: &checked, Deviations: &count, Accepted: c.Accepted, Why: c.Why, NotJudged: c.NotJudged}); err != nil {
			return err
		}
	}
	return e.Encode(JSONLRecord{Type: "verdict", Vector: r.Vector, Verdict: r.Verdict, Error: r.Error})
}

// JUnit XML (the de-facto schema read by Jenkins, GitLab, GitHub
// actions): one testsuite per vector, one testcase per rule.

// JUnitSuites is the root element of a JUnit report.
type JUnitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []JUnitSuite `xml:"testsuite"`
}

// JUnitSuite is one vector.
type JUnitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties []JUnitProperty `xml:"properties>property"`
	Cases      []JUnitCase     `xml:"testcase"`
}

// JUnitProperty is a name and value of a suite (harness, digests, ...).
type JUnitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// JUnitCase is one rule checked on one vector.
type JUnitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *JUnitProblem `xml:"failure,omitempty"`
	Error     *JUnitProblem `xml:"error,omitempty"`
	Skipped   *JUnitProblem `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// JUnitProblem is a failure, error or skip: a message, a type and a body
// (the deviations, one per line).
type JUnitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

// JUnit builds the JUnit document of reports: a testsuite per report, a
// testcase per rule; a FAIL is a failure carrying the deviations, an
// INCONCLUSIVE a skipped test case, an UNUSABLE vector one errored case.
func JUnit(reps []*Report) *JUnitSuites {
	root := &JUnitSuites{Name: "sfcdump conform"}
	for _, r := range reps {
		s := JUnitSuite{Name: r.Vector}
		prop := func(n, v string) {
			if v != "" {
				s.Properties = append(s.Properties, JUnitProperty{n, v})
			}
		}
		prop("harness", r.Harness)
		prop("mode", r.Mode)
		prop("vector", r.Vector)
		prop("vector_digest", r.VectorDigest)
		prop("capture", r.Compared)
		prop("capture_digest", r.CaptureDigest)
		prop("dut", r.DUT)
		if r.Tolerances != nil {
			prop("tolerances", r.Tolerances.String())
		}
		prop("verdict", r.Verdict)
		class := strings.ReplaceAll(r.Vector, "/", ".")
		if r.Error != "" {
			s.Cases = append(s.Cases, JUnitCase{Name: "UNUSABLE", Classname: class, Error: &JUnitProblem{Message: r.Error, Type: Unusable}})
			s.Errors++
			// the one error case carries the reason: no rule verdicts
			s.Tests = len(s.Cases)
			root.Tests += s.Tests
			root.Errors += s.Errors
			root.Suites = append(root.Suites, s)
			continue
		}
		if len(r.Notes) > 0 {
			s.Cases = append(s.Cases, JUnitCase{Name: "LIVE", Classname: class,
				Skipped: &JUnitProblem{Message: "INCONCLUSIVE: " + r.Notes[0], Body: strings.Join(r.Notes, "\n")}})
			s.Skipped++
		}
		for _, c := range r.Checks {
			tc := JUnitCase{Name: c.Name, Classname: class, SystemOut: fmt.Sprintf("%d checked", c.Checked)}
			var body strings.Builder
			for _, d := range c.Deviations {
				body.WriteString(d.String())
				body.WriteString("\n")
			}
			if int64(len(c.Deviations)) < c.Count {
				fmt.Fprintf(&body, "... %d more\n", c.Count-int64(len(c.Deviations)))
			}
			msg := fmt.Sprintf("%d deviation(s)", c.Count)
			if len(c.Deviations) > 0 {
				msg += ": " + c.Deviations[0].String()
			}
			if c.NotJudged > 0 {
				msg += fmt.Sprintf("; %d not judged", c.NotJudged)
			}
			switch verdict := c.Verdict; {
			case verdict == Fail && len(r.Notes) > 0:
				// A void live run (its notes say why) fails nothing: the
				// device's deviations are reported, as skipped.
				tc.Skipped = &JUnitProblem{Message: "INCONCLUSIVE (" + r.Notes[0] + "): " + msg, Body: body.String()}
				s.Skipped++
			case verdict == Fail:
				tc.Failure = &JUnitProblem{Message: msg, Type: c.Name, Body: body.String()}
				s.Failures++
			case verdict == Inconclusive:
				tc.Skipped = &JUnitProblem{Message: "INCONCLUSIVE: " + msg, Body: body.String()}
				s.Skipped++
			}
			s.Cases = append(s.Cases, tc)
		}
		s.Tests = len(s.Cases)
		root.Tests += s.Tests
		root.Failures += s.Failures
		root.Errors += s.Errors
		root.Skipped += s.Skipped
		root.Suites = append(root.Suites, s)
	}
	return root
}

// WriteJUnit writes reports as one JUnit XML document.
func WriteJUnit(w io.Writer, reps []*Report) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	e := xml.NewEncoder(w)
	e.Indent("", "  ")
	if err := e.Encode(JUnit(reps)); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
