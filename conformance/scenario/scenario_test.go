// SPDX-License-Identifier: Apache-2.0

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
		{"incast --load NaN", "--load NaN"},
		{"storm --load NaN", "--load NaN"},
		{"storm --load 0", "--load 0"},
		{"incast extra", `unexpected argument "extra"`},
		{"incast --param q_th=1", "a flag's value made an invalid case"},
		{"incast --scheme nope", `unknown scheme "nope"`},
		{"nic --signals 3@1us", "pause must be whole"},
		{"nic --signals 3us@1us:9", "names flow 9"},
		{"nic --pfc 70000@1us", "quanta 0..65535"},
		{"nic --bfc 1:7@1us", `no flow "7"`},
		{"sender-tor --signal bogus", "want bts, cim or cim-legacy"},
		{"storm --prio 9", "--prio 9"},
		{"mix --receivers 6 --hosts 6", "receivers"},
		{"floodgate --credits 5@", "want OCTETS@TIME"},
		{`incast --desc "unbalanced`, "unbalanced quote"},
		{"incast --vlan 4095", "--vlan 4095"},
		{"incast --pcp 8", "--pcp 8"},
		{"incast --dscp 64", "--dscp 64"},
		{"incast --dscp-class 10", `--dscp-class "10": want DSCP=CLASS`},
		{"incast --dscp-class 10=9", "device.dscp_class.10"},
		{"incast --device buffer", `--device "buffer": want key=value`},
		{"incast --device dscp_class=1", "use --dscp-class"},
		{"incast --device buffer=10", "needs a unit"},
		{"incast --speeds 10G,fast", `--speeds "fast"`},
		{"sender-tor --scheme sfc,sfc-p --sfcp-ports 2", `--sfcp-ports "2"`},
		{"sender-tor --uplink-speed slow", "--uplink-speed"},
		{"two-switch --switch both", `--switch "both"`},
		{"two-switch --switch receiver --scheme cim", "--scheme applies to the sender-side ToR"},
		{"two-switch --hosts 0", "--hosts 0"},
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

// TestVLANAndClassMap checks the frames and case a tagged, mapped
// scenario makes: every data frame carries the 802.1Q tag with the VLAN id
// and the class of the DSCP map as PCP, and the case has the map.
func TestVLANAndClassMap(t *testing.T) {
	v, err := MakeLine("incast --senders 2 --burst 2KB --vlan 100 --dscp 10 --dscp-class 10=5 --device buffer=1MB")
	if err != nil {
		t.Fatal(err)
	}
	if v.Case.Device.DSCPClass[10] != 5 || v.Case.Device.Buffer != 1_000_000 {
		t.Fatalf("device %+v", v.Case.Device)
	}
	for i, f := range v.Frames {
		if len(f.Data) < 18 || f.Data[12] != 0x81 || f.Data[13] != 0 {
			t.Fatalf("frame %d is not tagged", i)
		}
		tci := uint16(f.Data[14])<<8 | uint16(f.Data[15])
		if tci&0xfff != 100 || tci>>13 != 5 || f.Data[16] != 0x08 || f.Data[17] != 0 {
			t.Fatalf("frame %d: TCI %#04x, EtherType %#02x%02x", i, tci, f.Data[16], f.Data[17])
		}
		if len(f.Data) != 1078 {
			t.Fatalf("frame %d: %d octets, want --size 1078 with the tag", i, len(f.Data))
		}
	}
	// Without --vlan the same scenario is untagged, with PFC on the mapped class.
	w, err := MakeLine("nic --scheme pfc --flows 1 --frames 1 --signals \"\" --pfc 100@1us --dscp 10 --dscp-class 10=5")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range w.Frames {
		if f.Data[12] == 0x81 {
			t.Fatal("tagged frame without --vlan")
		}
		if f.Data[12] == 0x88 && f.Data[13] == 0x08 && f.Data[17] != 1<<5 {
			t.Fatalf("PFC enable vector %#x, want priority 5", f.Data[17])
		}
	}
}

// TestSpeedsAndRemote checks per-sender speeds (frame spacing follows
// each port's speed) and a remote receiver behind a non-server-facing
// uplink.
func TestSpeedsAndRemote(t *testing.T) {
	v, err := MakeLine("incast --senders 2 --burst 3KB --speeds 10G,40G --remote")
	if err != nil {
		t.Fatal(err)
	}
	if v.Case.Ports[0].Speed != 10e9 || v.Case.Ports[1].Speed != 40e9 || v.Case.Ports[2].ServerFacing {
		t.Fatalf("ports %+v", v.Case.Ports)
	}
	gap := map[int][]int64{}
	for _, f := range v.Frames {
		gap[f.Port] = append(gap[f.Port], f.T)
	}
	// 1078 + 24 octets on the wire: 881.6 ns at 10G, 220.4 ns at 40G.
	if d := gap[0][1] - gap[0][0]; d != 882 {
		t.Errorf("10G spacing %d ns", d)
	}
	if d := gap[1][1] - gap[1][0]; d != 221 {
		t.Errorf("40G spacing %d ns", d)
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

// TestScenarioBounds: a scenario refuses, naming the flags, what would
// make more than MaxFrames input frames or a quantity past its limit,
// before making any (a mistyped --burst 100GB took 24 GB and was killed).
func TestScenarioBounds(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"incast --burst 100GB", `invalid value "100GB" for flag -burst: want 0 to 1GiB`},
		{"incast --burst 1GB --senders 250", "--senders × --flows × --burst / --size make about"},
		{"incast --end 1000s", `invalid value "1000s" for flag -end: want 0 to 1s`},
		{"storm --frames 100000000", "--senders × --frames make about"},
		{"nic --frames 99999999", "--flows × --frames and --inbound make about"},
		{"nic --frames -1", "--frames -1"},
		{"sender-tor --duration 1s --interval 1ns", "--hosts × --duration / --interval make about"},
		{"floodgate --upstream 999999999", "--upstream and --local make about"},
		{"two-switch --burst 1GB", "(--hosts + --senders) × --burst / --size make about"},
		{"mix --mice 5000 --mouse 100MB", "--mice × --mouse"},
	} {
		_, err := MakeLine(c.line)
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want a usage error with %q", c.line, err, c.want)
		}
	}
}

// TestCountsChecked: an integer flag below its least value (a negative
// count; no host, sender, flow, frame or receiver; a --pcp or --prio
// below the -1 default) is a usage error naming the flag; it wrote a
// vector of nothing, exit 0. 0 stays valid where it means none.
func TestCountsChecked(t *testing.T) {
	for _, c := range []struct {
		line, err string
	}{
		{"floodgate --local -1", "--local -1: want 0 or more"},
		{"storm --frames -1", "--frames -1: want 1 or more"},
		{"incast --senders 0", "--senders 0: want 1 or more"},
		{"incast --pcp -2", "--pcp -2: want -1 or more"},
		{"incast --mark -5", "--mark -5: want 0 or more"},
		{"incast --mark 0", ""},
		{"incast --pcp -1", ""},
	} {
		_, err := MakeLine(c.line)
		if c.err == "" && err != nil || c.err != "" && (!errors.Is(err, ErrUsage) || !strings.Contains(fmt.Sprint(err), c.err)) {
			t.Errorf("%s: %v, want %q", c.line, err, c.err)
		}
	}
}
