// SPDX-License-Identifier: Apache-2.0

package conformance_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/conformance/scenario"
)

// Replay a vector of the corpus through the reference model and compare
// in exact mode.
func ExampleRunVector() {
	rep, err := conformance.RunVector("../pcaps/sfc/incast-first-bts", conformance.Options{})
	if err != nil {
		fmt.Println("unusable:", err)
		return
	}
	fmt.Println(rep.Verdict, rep.Frames.Input, "input frames,", rep.Frames.Model, "sent")
	for _, c := range rep.Checks {
		fmt.Println(c.Name, c.Verdict)
	}
	// Output:
	// PASS 48 input frames, 52 sent
	// frames PASS
	// bytes PASS
	// time PASS
}

// Check a device's output capture in device mode. Here the "device" is the
// reference itself (the vector's expected output), so every check passes.
func ExampleCheckFiles() {
	dir := "../pcaps/pfc/xoff-refresh-xon"
	rep, err := conformance.CheckFiles(filepath.Join(dir, "case.yaml"), filepath.Join(dir, "input.pcapng"),
		filepath.Join(dir, "expected.pcapng"), conformance.Options{})
	if err != nil {
		fmt.Println("unusable:", err)
		return
	}
	fmt.Println(rep.Verdict, rep.ExitCode(), rep.Failed())
	// Output:
	// PASS 0 []
}

// A case.yaml with a mistake: the error names the file, the line and the
// key.
func ExampleParseCase() {
	_, err := conformance.ParseCase("case.yaml", []byte(`description: "one port"
role: switch
schemes: [sfc]
ports:
  - id: 0
    speed: 100
params:
  reset: 5 us
  q_th: 2e5
`))
	fmt.Println(err)
	// Output:
	// case.yaml:6: ports[0].speed: "100" needs a unit: G, Gbps, Mbps, ...
	// case.yaml:9: params.q_th: "2e5" needs a unit: B, KB, MB, GB (powers of 10) or KiB, MiB, GiB
}

// Make a new vector from a scenario, generate its expected output from the
// model and replay it.
func ExampleGenerateVector() {
	dir, _ := os.MkdirTemp("", "vector-")
	defer os.RemoveAll(dir)
	v, err := scenario.Make("incast", []string{"--senders", "3", "--burst", "8KB", "--param", "q_th=10KB", "--param", "q_tg=5KB"})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := v.Write(dir); err != nil {
		fmt.Println(err)
		return
	}
	res, err := conformance.GenerateVector(dir, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, _ := conformance.RunVector(dir, conformance.Options{})
	fmt.Println(len(v.Frames), "input frames;", res.Frames, "expected;", rep.Verdict)
	// Output:
	// 24 input frames; 27 expected; PASS
}

// Check a device in device mode and write the report for CI as JUnit XML;
// each rule is a test case. Here the device is the reference itself.
func ExampleWriteJUnit() {
	dir := "../pcaps/pfc/xoff-refresh-xon"
	rep, _ := conformance.CheckFiles(filepath.Join(dir, "case.yaml"), filepath.Join(dir, "input.pcapng"),
		filepath.Join(dir, "expected.pcapng"), conformance.Options{DUT: "Acme Switch 9000 fw 1.2.3"})
	doc := conformance.JUnit([]*conformance.Report{rep})
	fmt.Println(doc.Tests, "test cases,", doc.Failures, "failures")
	fmt.Println(doc.Suites[0].Cases[0].Name)
	// conformance.WriteJUnit(os.Stdout, []*conformance.Report{rep}) writes the XML.
	// Output:
	// 21 test cases, 0 failures
	// PFC-FIELDS
}

// The rules of device mode, as `sfcdump conform rules` lists them.
func ExampleLookupRule() {
	r := conformance.LookupRule("SFC-BTS-FIRST")
	fmt.Println(r.ID, "rule", r.Normative, "-", r.Clause)
	// Output:
	// SFC-BTS-FIRST rule 5 - behaviour.md §1 step 3
}
