// SPDX-License-Identifier: Apache-2.0

package fidelity

import (
	"bytes"
	"math"
	"os"
	"sync"
	"testing"
)

var (
	runOnce sync.Once
	claims  []Claim
	runErr  error
)

func allClaims(t *testing.T) []Claim {
	t.Helper()
	runOnce.Do(func() { claims, runErr = Run() })
	if runErr != nil {
		t.Fatal(runErr)
	}
	return claims
}

// TestClaims asserts every claim of every reproducer, one subtest per id.
func TestClaims(t *testing.T) {
	for _, c := range allClaims(t) {
		t.Run(c.ID, func(t *testing.T) {
			if c.Known != "" {
				if c.OK() {
					t.Fatalf("%s (%s) now holds: drop its Known analysis (%s)", c.ID, c.Source, c.Known)
				}
				t.Logf("%s does not hold, as analysed: %s", c.ID, c.Known)
				return
			}
			if !c.OK() {
				if c.Ordering() {
					t.Fatalf("%s (%s): ordering %q does not hold: %s", c.ID, c.Source, c.Formula, c.Detail)
				}
				t.Fatalf("%s (%s): measured %g %s, paper %g %s (ratio %.3f, bound ±%.0f %%)",
					c.ID, c.Source, c.Measured, c.Unit, c.Paper, c.Unit, c.Ratio(), c.Tol*100)
			}
		})
	}
}

// TestDocUpToDate fails when docs/fidelity.md is not what the models give.
func TestDocUpToDate(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, allClaims(t)); err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile("../docs/fidelity.md")
	if err != nil {
		t.Fatalf("%v (run: go run ./fidelity/gen)", err)
	}
	if !bytes.Equal(old, b.Bytes()) {
		t.Fatalf("docs/fidelity.md is stale: run go run ./fidelity/gen")
	}
}

func TestClaimOK(t *testing.T) {
	for _, tc := range []struct {
		c    Claim
		want bool
	}{
		{Value("a", "", "", "", 100, 109, "KB"), true},
		{Value("b", "", "", "", 100, 111, "KB"), false},
		{Value("c", "", "", "", 100, 89, "KB"), false},
		{Value("d", "", "", "", 0, 0, "KB"), false},
		{Order("e", "", "", "x < y", true, "1 < 2"), true},
		{Order("f", "", "", "x < y", false, "2 < 1"), false},
	} {
		if got := tc.c.OK(); got != tc.want {
			t.Errorf("%s: OK() = %v, want %v (ratio %v)", tc.c.ID, got, tc.want, tc.c.Ratio())
		}
	}
	if !math.IsNaN(Order("o", "", "", "", true, "").Ratio()) {
		t.Error("an ordering has a ratio")
	}
}

// TestKnownListed: a claim marked Known is listed with its analysis under
// the table; a table without one has no such section.
func TestKnownListed(t *testing.T) {
	miss := Value("miss", "src", "c", "f", 100, 150, "KB")
	miss.Known = "the analysis"
	var b bytes.Buffer
	if err := WriteMarkdown(&b, []Claim{Value("hit", "src", "c", "f", 100, 100, "KB"), miss}); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !bytes.Contains(b.Bytes(), []byte("\n## Claims the models do not reproduce\n\n- **miss**: the analysis\n")) ||
		!bytes.Contains(b.Bytes(), []byte("| miss | src |")) {
		t.Errorf("markdown:\n%s", s)
	}
	b.Reset()
	if err := WriteMarkdown(&b, []Claim{Value("hit", "src", "c", "f", 100, 100, "KB")}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b.Bytes(), []byte("do not reproduce")) {
		t.Error("a section for known misses without any")
	}
}
