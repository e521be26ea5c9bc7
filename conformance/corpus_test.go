// SPDX-License-Identifier: Apache-2.0

package conformance_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/conformance/scenario"
)

const pcaps = "../pcaps"

// vectors lists every vector directory under pcaps/.
func vectors(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(pcaps, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == conformance.CaseFile {
			out = append(out, filepath.Dir(p))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no vectors under pcaps/")
	}
	return out
}

func rel(dir string) string {
	r, _ := filepath.Rel(pcaps, dir)
	return filepath.ToSlash(r)
}

// TestCorpusExact replays every vector of the corpus through the reference
// models and requires the expected capture in exact mode.
func TestCorpusExact(t *testing.T) {
	for _, dir := range vectors(t) {
		t.Run(rel(dir), func(t *testing.T) {
			rep, err := conformance.RunVector(dir, conformance.Options{})
			if err != nil {
				t.Fatalf("unusable: %v", err)
			}
			if rep.Verdict != conformance.Pass {
				var b strings.Builder
				rep.WriteText(&b)
				t.Fatalf("exact mode fails:\n%s", b.String())
			}
			if rep.Frames.Input == 0 || rep.Frames.Model == 0 || rep.Frames.Expected != rep.Frames.Model {
				t.Errorf("frames %+v", rep.Frames)
			}
		})
	}
}

// TestCorpusMadeByScenarios checks that every vector is listed in
// scenario.Corpus and that its case.yaml and input.pcapng are exactly
// what its scenario line makes, so every vector can be regenerated and
// reviewed.
func TestCorpusMadeByScenarios(t *testing.T) {
	listed := map[string]scenario.Entry{}
	for _, e := range scenario.Corpus {
		listed[e.Dir] = e
	}
	for _, dir := range vectors(t) {
		if _, ok := listed[rel(dir)]; !ok {
			t.Errorf("%s is not in scenario.Corpus", rel(dir))
		}
	}
	for _, e := range scenario.Corpus {
		t.Run(e.Dir, func(t *testing.T) {
			dir := filepath.Join(pcaps, filepath.FromSlash(e.Dir))
			v, err := scenario.MakeLine(e.Line)
			if err != nil {
				t.Fatal(err)
			}
			c, err := conformance.LoadCase(filepath.Join(dir, conformance.CaseFile))
			if err != nil {
				t.Fatal(err)
			}
			if c.Scenario != e.Line {
				t.Errorf("case.yaml scenario line\n  %s\nwant\n  %s", c.Scenario, e.Line)
			}
			if c.Description == "" || strings.Contains(c.Description, "\n") {
				t.Errorf("description %q: want one line", c.Description)
			}
			got, err := os.ReadFile(filepath.Join(dir, conformance.CaseFile))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, v.CaseYAML) {
				t.Errorf("case.yaml differs from what its scenario makes; run: sfcdump conform scenario corpus --out pcaps")
			}
			var in bytes.Buffer
			if err := v.WriteInput(&in); err != nil {
				t.Fatal(err)
			}
			old, err := os.ReadFile(filepath.Join(dir, conformance.InputFile))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(old, in.Bytes()) {
				t.Errorf("input.pcapng differs from what its scenario makes; run: sfcdump conform scenario corpus --out pcaps")
			}
		})
	}
}

// TestGenerateIsDeterministic regenerates expected outputs and requires
// them byte-identical to the files, run after run.
func TestGenerateIsDeterministic(t *testing.T) {
	for _, dir := range vectors(t) {
		c, err := conformance.LoadCase(filepath.Join(dir, conformance.CaseFile))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(dir, conformance.ExpectedFile))
		if err != nil {
			t.Fatal(err)
		}
		for run := 0; run < 2; run++ {
			var b bytes.Buffer
			if _, err := conformance.Generate(c, filepath.Join(dir, conformance.InputFile), &b); err != nil {
				t.Fatalf("%s: %v", rel(dir), err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Fatalf("%s: run %d: generated output differs from expected.pcapng", rel(dir), run)
			}
		}
	}
}

// TestReadmeListsTheCorpus keeps README.md's table of vectors in step with
// the corpus: every vector and its description.
func TestReadmeListsTheCorpus(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range vectors(t) {
		c, err := conformance.LoadCase(filepath.Join(dir, conformance.CaseFile))
		if err != nil {
			t.Fatal(err)
		}
		row := "| `" + rel(dir) + "` | " + c.Description + " |"
		if !strings.Contains(string(b), row) {
			t.Errorf("README.md lacks the row\n%s", row)
		}
	}
}

// TestGenerateRefusesExpectedLinkedToInput: conform gen in a vector whose
// expected.pcapng is a link to its input.pcapng is an error naming both,
// and both are left as they were (the rename replaced the link silently).
func TestGenerateRefusesExpectedLinkedToInput(t *testing.T) {
	dir := copyVector(t, "sfc/incast-first-bts")
	expected := filepath.Join(dir, conformance.ExpectedFile)
	os.Remove(expected) // the inputs only
	if err := os.Symlink(conformance.InputFile, expected); err != nil {
		t.Skipf("SKIP: symlink: %v", err)
	}
	if _, err := conformance.GenerateVector(dir, false); err == nil || !strings.Contains(err.Error(), conformance.InputFile) {
		t.Errorf("GenerateVector: %v, want an error naming %s", err, conformance.InputFile)
	}
	if fi, err := os.Lstat(expected); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("expected.pcapng is no longer the link: %v", err)
	}
}

// TestGenerateKeepsModeAndUmask: conform gen writes expected.pcapng as
// every output is written: a replaced file keeps its mode, and a new one
// has the umask applied (it was 0644 either way).
func TestGenerateKeepsModeAndUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := copyVector(t, "sfc/incast-first-bts")
	expected := filepath.Join(dir, conformance.ExpectedFile)
	os.Remove(expected) // the inputs only
	if _, err := conformance.GenerateVector(dir, false); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(expected); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("new expected.pcapng under umask 077: %v, %v; want 0600", fi.Mode(), err)
	}
	// A stale file of mode 0640 is replaced and keeps 0640.
	os.WriteFile(expected, []byte("stale"), 0o600)
	os.Chmod(expected, 0o640)
	if res, err := conformance.GenerateVector(dir, false); err != nil || !res.Changed {
		t.Fatalf("regenerate: %+v, %v", res, err)
	}
	if fi, err := os.Stat(expected); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("replaced expected.pcapng: %v, %v; want its 0640", fi.Mode(), err)
	}
}
