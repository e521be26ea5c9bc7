package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opensfc/sfc/conformance"
)

// TestEveryScenarioIsDeterministic makes every scenario twice with its
// defaults and requires the same case and the same input bytes.
func TestEveryScenarioIsDeterministic(t *testing.T) {
	for _, s := range List() {
		t.Run(s.Name, func(t *testing.T) {
			var out [2][]byte
			for i := range out {
				v, err := Make(s.Name, nil)
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				if err := v.WriteInput(&b); err != nil {
					t.Fatal(err)
				}
				out[i] = append(v.CaseYAML, b.Bytes()...)
				if len(v.Frames) == 0 {
					t.Fatal("no frames")
				}
				for j := 1; j < len(v.Frames); j++ {
					if v.Frames[j].T < v.Frames[j-1].T {
						t.Fatalf("frame %d before frame %d", j, j-1)
					}
				}
			}
			if !bytes.Equal(out[0], out[1]) {
				t.Fatal("two runs differ")
			}
		})
	}
}

func TestScenarioErrors(t *testing.T) {
	cases := []struct {
		line, want string
	}{
		{"nosuch", `no scenario "nosuch"`},
		{"incast --senders 0", "--senders 0"},
		{"incast --senders x", "invalid value"},
		{"incast --burst 10XB", "invalid value"},
		{"incast --load 2", "--load 2"},
		{"incast extra", `unexpected argument "extra"`},
		{"incast --param q_th=1", "the case it made is invalid"},
		{"nic --signals 3@1us", "pause must be whole"},
		{"nic --signals 3us@1us:9", "names flow 9"},
		{"nic --pfc 70000@1us", "quanta 0..65535"},
		{"nic --bfc 1:7@1us", `no flow "7"`},
		{"sender-tor --signal bogus", "want bts, cim or cim-legacy"},
		{"storm --prio 9", "--prio 9"},
		{"mix --receivers 6 --hosts 6", "receivers"},
		{"floodgate --credits 5@", "want OCTETS@TIME"},
		{`incast --desc "unbalanced`, "unbalanced quote"},
	}
	for _, tc := range cases {
		_, err := MakeLine(tc.line)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.line, err, tc.want)
		}
	}
	if _, err := MakeLine("incast --senders 0"); !errors.Is(err, ErrUsage) {
		t.Errorf("flag errors wrap ErrUsage: %v", err)
	}
}

func TestSplitJoinLine(t *testing.T) {
	for _, words := range [][]string{
		{"incast", "--desc", "a b", "--signals", ""},
		{"nic", "--desc", `say "hi" \ there`},
		{"x"},
	} {
		line := JoinLine(words)
		got, err := SplitLine(line)
		if err != nil || !slices.Equal(got, words) {
			t.Errorf("%q -> %q -> %q (%v)", words, line, got, err)
		}
	}
}

// TestScenarioLineRoundTrip checks that a case records the line that
// makes it again.
func TestScenarioLineRoundTrip(t *testing.T) {
	v, err := Make("incast", []string{"--senders", "2", "--desc", "two senders, one \"quoted\" word"})
	if err != nil {
		t.Fatal(err)
	}
	w, err := MakeLine(v.Case.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(v.CaseYAML, w.CaseYAML) || v.Case.Description != `two senders, one "quoted" word` {
		t.Fatalf("%s\n---\n%s", v.CaseYAML, w.CaseYAML)
	}
}

func TestWriteLoad(t *testing.T) {
	dir := t.TempDir()
	if err := WriteLoad(dir, LoadConfig{Frames: 5000}); err != nil {
		t.Fatal(err)
	}
	if _, err := conformance.GenerateVector(dir, false); err != nil {
		t.Fatal(err)
	}
	rep, err := conformance.RunVector(dir, conformance.Options{})
	if err != nil || rep.Verdict != conformance.Pass || rep.Frames.Input != 5000 {
		t.Fatalf("%v %s %+v", err, rep.Verdict, rep.Frames)
	}
	if _, err := os.Stat(filepath.Join(dir, conformance.CaseFile)); err != nil {
		t.Fatal(err)
	}
}

// Make a vector's input from a scenario line and look at it.
func ExampleMakeLine() {
	v, err := MakeLine(`incast --senders 2 --burst 4KB --sync 1us --desc "two senders"`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v.Case.Description, "|", len(v.Frames), "frames |", v.Case.InterfaceNames())
	fmt.Println(v.Frames[0].Step)
	// Output:
	// two senders | 8 frames | [port0 port1 port2]
	// sender 1 flow 0 frame 0
}
