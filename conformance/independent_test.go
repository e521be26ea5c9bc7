// SPDX-License-Identifier: Apache-2.0

package conformance_test

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opensfc/sfc/conformance"
)

// The independent set (conformance/testdata/independent): device captures
// made from the spec alone by someone who had not read this code, with
// the verdict and the rule each must get (manifest.tsv; make.py rebuilds
// them, RESULTS.md records how they were derived). Every clean capture
// PASSes, every faulty one FAILs naming its rule, every truncated one is
// INCONCLUSIVE.
func TestIndependentCaptures(t *testing.T) {
	dir := filepath.Join("testdata", "independent")
	f, err := os.Open(filepath.Join(dir, "manifest.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	counts := map[string]int{}
	for sc.Scan() {
		if n++; n == 1 {
			continue // header
		}
		col := strings.Split(sc.Text(), "\t")
		if len(col) < 5 {
			t.Fatalf("manifest line %d: %d columns, want 5", n, len(col))
		}
		vector, capture, verdict, rule, why := col[0], col[1], col[2], col[3], col[4]
		counts[verdict]++
		t.Run(capture, func(t *testing.T) {
			v := filepath.Join("..", "pcaps", vector)
			rep, _ := conformance.CheckFiles(filepath.Join(v, conformance.CaseFile), filepath.Join(v, conformance.InputFile), filepath.Join(dir, capture), conformance.Options{})
			if rep.Verdict != verdict || rule != "-" && !slices.Contains(rep.Failed(), rule) {
				var b strings.Builder
				rep.WriteText(&b)
				t.Errorf("verdict %s, failed %v; want %s %s (%s)\n%s", rep.Verdict, rep.Failed(), verdict, rule, why, b.String())
			}
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if counts[conformance.Pass] == 0 || counts[conformance.Fail] == 0 || counts[conformance.Inconclusive] == 0 {
		t.Fatalf("the manifest lacks a kind of capture: %v", counts)
	}
}
