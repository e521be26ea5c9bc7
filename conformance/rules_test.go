// SPDX-License-Identifier: Apache-2.0

package conformance_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opensfc/sfc/conformance"
)

// TestTestPlanUpToDate fails when docs/test-plan.md differs from what the
// rule registry and the corpus make (go run ./conformance/testplan).
func TestTestPlanUpToDate(t *testing.T) {
	var b bytes.Buffer
	if err := conformance.TestPlan(&b, pcaps); err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile("../docs/test-plan.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(old, b.Bytes()) {
		t.Fatal("docs/test-plan.md is out of date: run go run ./conformance/testplan")
	}
}

// TestRuleRegistry checks every rule has an id, clause, tolerance, check
// and at least one mutation kind, and that the reports of the corpus
// name only registered rules.
func TestRuleRegistry(t *testing.T) {
	for _, r := range conformance.Rules {
		if r.ID == "" || r.Clause == "" || r.Tolerance == "" || r.Check == "" || len(r.Mutations) == 0 || r.Normative < 1 || r.Normative > 10 {
			t.Errorf("rule %+v lacks a field", r)
		}
		if conformance.LookupRule(r.ID) == nil {
			t.Errorf("%s: not found by LookupRule", r.ID)
		}
	}
	if conformance.LookupRule("NO-SUCH-RULE") != nil {
		t.Error("LookupRule found a rule that does not exist")
	}
	dir := filepath.Join(pcaps, "pfc/xoff-refresh-xon")
	rep, err := conformance.CheckFiles(filepath.Join(dir, conformance.CaseFile), filepath.Join(dir, conformance.InputFile), filepath.Join(dir, conformance.ExpectedFile), conformance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Checks {
		if conformance.LookupRule(c.Name) == nil {
			t.Errorf("report names rule %q, which is not registered", c.Name)
		}
	}
}

// junitReports makes a passing, a failing and an unusable report.
func junitReports(t *testing.T) []*conformance.Report {
	t.Helper()
	dir := filepath.Join(pcaps, "pfc/xoff-refresh-xon")
	opt := conformance.Options{DUT: "Acme Switch 9000 fw 1.2.3"}
	pass, err := conformance.CheckFiles(filepath.Join(dir, conformance.CaseFile), filepath.Join(dir, conformance.InputFile), filepath.Join(dir, conformance.ExpectedFile), opt)
	if err != nil {
		t.Fatal(err)
	}
	exp := readCapture(t, filepath.Join(dir, conformance.ExpectedFile))
	i := nth(t, exp, 0, isXON)
	exp.frames = append(exp.frames[:i], exp.frames[i+1:]...)
	dev := filepath.Join(t.TempDir(), "dev.pcapng")
	exp.write(t, dev)
	fail, err := conformance.CheckFiles(filepath.Join(dir, conformance.CaseFile), filepath.Join(dir, conformance.InputFile), dev, opt)
	if err != nil {
		t.Fatal(err)
	}
	if fail.Verdict != conformance.Fail {
		t.Fatalf("dropping an XON: verdict %s", fail.Verdict)
	}
	bad, _ := conformance.CheckFiles(filepath.Join(dir, "nope.yaml"), filepath.Join(dir, conformance.InputFile), dev, opt)
	return []*conformance.Report{pass, fail, bad}
}

// TestJUnitParses reads the JUnit output back with encoding/xml into
// generic elements and with Python's xml.etree (a real consumer's parser)
// and checks its structure: one testsuite per vector, one testcase per
// rule, failures carrying the deviations, properties naming the harness,
// digests, tolerances and the device.
func TestJUnitParses(t *testing.T) {
	reps := junitReports(t)
	var b bytes.Buffer
	if err := conformance.WriteJUnit(&b, reps); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name `xml:"testsuites"`
		Suites  []struct {
			Name  string `xml:"name,attr"`
			Props []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Body    string `xml:",chardata"`
				} `xml:"failure"`
				Error *struct{} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Suites) != 3 || len(doc.Suites[0].Cases) != len(reps[0].Checks) {
		t.Fatalf("%d suites, first with %d cases; want 3 and %d", len(doc.Suites), len(doc.Suites[0].Cases), len(reps[0].Checks))
	}
	failed := false
	for _, c := range doc.Suites[1].Cases {
		if c.Failure != nil {
			failed = true
			if c.Name != "PFC-XON" || !strings.Contains(c.Failure.Body, "pfc.c") {
				t.Errorf("failure %s: %q", c.Name, c.Failure.Body)
			}
		}
	}
	if !failed || doc.Suites[2].Cases[0].Error == nil {
		t.Error("the failing vector has no failure or the unusable one no error")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	f := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(f, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `
import sys, json, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
out = []
for s in root.findall("testsuite"):
    props = {p.get("name"): p.get("value") for p in s.findall("properties/property")}
    cases = s.findall("testcase")
    assert int(s.get("tests")) == len(cases)
    assert int(s.get("failures")) == len([c for c in cases if c.find("failure") is not None])
    for c in cases:
        assert c.get("name") and c.get("classname")
    out.append({"name": s.get("name"), "props": props,
                "failures": [c.get("name") for c in cases if c.find("failure") is not None],
                "errors": len([c for c in cases if c.find("error") is not None])})
print(json.dumps(out))
`
	outb, err := exec.Command(py, "-c", script, f).CombinedOutput()
	if err != nil {
		t.Fatalf("python xml.etree: %v\n%s", err, outb)
	}
	var got []struct {
		Name     string            `json:"name"`
		Props    map[string]string `json:"props"`
		Failures []string          `json:"failures"`
		Errors   int               `json:"errors"`
	}
	if err := json.Unmarshal(outb, &got); err != nil {
		t.Fatalf("%v: %s", err, outb)
	}
	if len(got) != 3 || len(got[1].Failures) == 0 || got[1].Failures[0] != "PFC-XON" || got[2].Errors != 1 {
		t.Fatalf("python read %+v", got)
	}
	for _, k := range []string{"harness", "vector_digest", "capture_digest", "tolerances", "dut"} {
		if got[0].Props[k] == "" {
			t.Errorf("property %s missing: %v", k, got[0].Props)
		}
	}
	if got[0].Props["dut"] != "Acme Switch 9000 fw 1.2.3" || !strings.HasPrefix(got[0].Props["vector_digest"], "blake3:") {
		t.Errorf("properties %v", got[0].Props)
	}
}

// TestJSONLReport checks every line is an object of a known type, one per
// deviation and per rule verdict.
func TestJSONLReport(t *testing.T) {
	reps := junitReports(t)
	var b bytes.Buffer
	if err := reps[1].WriteJSONL(&b); err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		var rec struct {
			Type, Rule, Verdict, Harness string
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		types[rec.Type]++
		if rec.Type == "deviation" && conformance.LookupRule(rec.Rule) == nil {
			t.Errorf("deviation names no rule: %s", line)
		}
		if rec.Type == "report" && rec.Harness == "" {
			t.Errorf("report line names no harness: %s", line)
		}
	}
	if types["report"] != 1 || types["verdict"] != 1 || types["rule"] != len(reps[1].Checks) || types["deviation"] == 0 {
		t.Errorf("line types %v", types)
	}
}
