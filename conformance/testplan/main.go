// SPDX-License-Identifier: Apache-2.0

// Command testplan writes docs/test-plan.md, device mode's test plan for a
// vendor's quality team, from the rule registry (conformance.Rules) and
// the corpus under pcaps/ (which vectors exercise each rule). Run it from
// the module root after changing a rule or the corpus:
//
//	go run ./conformance/testplan
//
// TestTestPlanUpToDate fails when the file and the code differ.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/opensfc/sfc/conformance"
)

func main() {
	corpus := flag.String("corpus", "pcaps", "the corpus directory")
	out := flag.String("out", "docs/test-plan.md", "the file to write")
	flag.Parse()
	var b bytes.Buffer
	if err := conformance.TestPlan(&b, *corpus); err != nil {
		fmt.Fprintln(os.Stderr, "testplan:", err)
		os.Exit(1)
	}
	tmp := *out + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "testplan:", err)
		os.Exit(1)
	}
	if err := os.Rename(tmp, filepath.Clean(*out)); err != nil {
		fmt.Fprintln(os.Stderr, "testplan:", err)
		os.Exit(1)
	}
}
