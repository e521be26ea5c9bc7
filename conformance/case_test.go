// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"errors"
	"strings"
	"testing"

	"github.com/opensfc/sfc/device"
)

const goodCase = `description: "two ports"
role: switch
schemes: [sfc, pfc]
ports:
  - id: 0
    speed: 100G
    server_facing: true
    prefixes: [10.0.0.0/24]
  - id: 1
    speed: 25Gbps
    prefixes: [0.0.0.0/0]
params:
  q_th: 250KB
  q_tg: 125KB
  reset: 5us
  xoff: 64KiB
  priorities: [3, 4]
tolerances:
  time: 500ns
volatile: [ip.id]
`

func TestParseCaseGood(t *testing.T) {
	c, err := ParseCase("case.yaml", []byte(goodCase))
	if err != nil {
		t.Fatal(err)
	}
	if c.Role != device.RoleSwitch || len(c.Ports) != 2 || c.Ports[1].Speed != 25*device.Gbps || !c.Ports[0].ServerFacing {
		t.Errorf("ports %+v", c.Ports)
	}
	if c.Params["q_th"].Int != 250_000 || c.Params["reset"].Int != 5000 || c.Params["xoff"].Int != 65536 {
		t.Errorf("params %+v", c.Params)
	}
	if got := c.Params["priorities"].Ints; len(got) != 2 || got[1] != 4 {
		t.Errorf("priorities %v", got)
	}
	if !c.Tol.TimeSet || c.Tol.Time != 500 || c.Tol.PauseSet {
		t.Errorf("tolerances %+v", c.Tol)
	}
	if c.Line("params.q_tg") != 14 {
		t.Errorf("line of q_tg = %d", c.Line("params.q_tg"))
	}
	if _, err := BuildModel(c); err != nil {
		t.Fatal(err)
	}
}

// TestParseCaseErrors checks that every kind of mistake is an error naming
// the key and its line.
func TestParseCaseErrors(t *testing.T) {
	cases := []struct {
		name       string
		edit       func(string) string
		line       int
		key, words string
	}{
		{"unknown top key", func(s string) string { return s + "colour: blue\n" }, 21, "colour", "unknown key"},
		{"unknown port key", func(s string) string {
			return strings.Replace(s, "    server_facing: true", "    server_facing: true\n    vlan: 3", 1)
		}, 8, "ports[0].vlan", "unknown key"},
		{"unknown parameter", func(s string) string { return strings.Replace(s, "  reset: 5us", "  reset: 5us\n  qth: 1KB", 1) }, 16, "params.qth", "unknown parameter"},
		{"missing role", func(s string) string { return strings.Replace(s, "role: switch\n", "", 1) }, 1, "role", "missing"},
		{"missing description", func(s string) string { return strings.Replace(s, `description: "two ports"`+"\n", "", 1) }, 1, "description", "missing"},
		{"missing port speed", func(s string) string { return strings.Replace(s, "    speed: 25Gbps\n", "", 1) }, 9, "ports[1].speed", "missing"},
		{"bad unit", func(s string) string { return strings.Replace(s, "q_th: 250KB", "q_th: 250KM", 1) }, 13, "params.q_th", "not an octet count"},
		{"no unit on a time", func(s string) string { return strings.Replace(s, "reset: 5us", "reset: 5", 1) }, 15, "params.reset", "needs a unit"},
		{"no unit on a size", func(s string) string { return strings.Replace(s, "q_th: 250KB", "q_th: 250", 1) }, 13, "params.q_th", "needs a unit"},
		{"no unit on a speed", func(s string) string { return strings.Replace(s, "speed: 100G", "speed: 100", 1) }, 6, "ports[0].speed", "needs a unit"},
		{"speed out of range", func(s string) string { return strings.Replace(s, "speed: 100G", "speed: 5Tbps", 1) }, 6, "ports[0].speed", "out of range"},
		{"DSCP out of range", func(s string) string { return strings.Replace(s, "  reset: 5us", "  reset: 5us\n  bts_dscp: 64", 1) }, 16, "params.bts_dscp", "out of range"},
		{"latency out of range", func(s string) string { return strings.Replace(s, "  reset: 5us", "  reset: 5us\n  bts_latency: 2s", 1) }, 16, "params.bts_latency", "out of range"},
		{"no unit on remote_speed", func(s string) string {
			return strings.Replace(s, "  reset: 5us", "  reset: 5us\n  remote_speed: 100", 1)
		}, 16, "params.remote_speed", "needs a unit"},
		{"priority out of range", func(s string) string { return strings.Replace(s, "[3, 4]", "[3, 9]", 1) }, 17, "params.priorities", "out of range"},
		{"bad boolean", func(s string) string { return strings.Replace(s, "server_facing: true", "server_facing: yes", 1) }, 7, "ports[0].server_facing", "want true or false"},
		{"bad prefix", func(s string) string { return strings.Replace(s, "10.0.0.0/24", "10.0.0.0/33", 1) }, 8, "ports[0].prefixes", "IP prefix"},
		{"duplicate port id", func(s string) string { return strings.Replace(s, "  - id: 1", "  - id: 0", 1) }, 9, "ports[1].id", "already used"},
		{"duplicate key", func(s string) string { return strings.Replace(s, "role: switch", "role: switch\nrole: nic", 1) }, 3, "role", "duplicate key"},
		{"unknown scheme", func(s string) string { return strings.Replace(s, "[sfc, pfc]", "[sfc, ecn]", 1) }, 3, "schemes", `unknown scheme "ecn"`},
		{"parameter of a scheme that is off", func(s string) string { return strings.Replace(s, "[sfc, pfc]", "[sfc]", 1) }, 16, "params.xoff", "applies to role switch with scheme pfc"},
		{"bad role", func(s string) string { return strings.Replace(s, "role: switch", "role: router", 1) }, 2, "role", "want switch or nic"},
		{"a list where a value goes", func(s string) string { return strings.Replace(s, "q_tg: 125KB", "q_tg: [1KB]", 1) }, 14, "params.q_tg", "want a single value"},
		{"bad volatile field", func(s string) string { return strings.Replace(s, "[ip.id]", "[ip.flags]", 1) }, 20, "volatile", "unknown field"},
		{"unknown tolerance", func(s string) string { return strings.Replace(s, "  time: 500ns", "  time: 500ns\n  phase: 1us", 1) }, 20, "tolerances.phase", "unknown key"},
		{"two-line description", func(s string) string { return strings.Replace(s, `"two ports"`, `"two\nports"`, 1) }, 1, "description", "one line"},
		{"not YAML", func(s string) string { return s + "  - : [\n" }, 20, "", "not valid YAML"},
		{"bad epoch", func(s string) string { return s + "epoch: yesterday\n" }, 21, "epoch", "RFC 3339"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCase("case.yaml", []byte(tc.edit(goodCase)))
			if err == nil {
				t.Fatal("no error")
			}
			var ce *CaseError
			if !errors.As(err, &ce) {
				t.Fatalf("%T %v: not a *CaseError", err, err)
			}
			if ce.Line != tc.line || ce.Key != tc.key || !strings.Contains(ce.Msg, tc.words) {
				t.Errorf("got line %d key %q msg %q; want line %d key %q, %q", ce.Line, ce.Key, ce.Msg, tc.line, tc.key, tc.words)
			}
			if !strings.HasPrefix(err.Error(), "case.yaml:") || !IsUnusable(err) {
				t.Errorf("error text %q", err)
			}
		})
	}
}

// TestModelErrorsNameTheKey checks that a parameter the model rejects
// (a constraint between parameters) comes back at its key and line.
func TestModelErrorsNameTheKey(t *testing.T) {
	c, err := ParseCase("case.yaml", []byte(strings.Replace(goodCase, "q_tg: 125KB", "q_tg: 300KB", 1)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = BuildModel(c)
	var ce *CaseError
	if !errors.As(err, &ce) || ce.Key != "params.q_tg" || ce.Line != 14 || !strings.Contains(ce.Msg, "at most q_th") {
		t.Fatalf("err = %v", err)
	}
}

func TestNICCase(t *testing.T) {
	bad := `description: nic
role: nic
schemes: [sfc-cache]
ports:
  - {id: 0, speed: 100G}
  - {id: 1, speed: 100G}
`
	_, err := ParseCase("c.yaml", []byte(bad))
	if err == nil || !strings.Contains(err.Error(), "a NIC has exactly one port") || !strings.Contains(err.Error(), "applies to a switch, not a NIC") {
		t.Fatalf("err = %v", err)
	}
}

func TestPhaseSet(t *testing.T) {
	s := newPhaseSet(100)
	if !s.require(10, 30) || !s.require(20, 150) || s.empty() {
		t.Fatal("consistent constraints refused")
	}
	// The only phases left are 20..30; a clearing in 40..60 contradicts.
	if s.require(40, 60) {
		t.Fatalf("contradiction accepted: %v", s.ivs)
	}
	// Wrapping arcs: 90..110 is 90..99 and 0..10.
	s = newPhaseSet(100)
	if !s.require(90, 110) || !s.require(105, 108) || s.require(50, 60) {
		t.Fatalf("wrap: %v", s.ivs)
	}
	// Two signals from one trigger leave no time for a clearing.
	s = newPhaseSet(100)
	if s.require(51, 50) {
		t.Fatal("empty arc accepted")
	}
}

func TestFmtTime(t *testing.T) {
	for ns, want := range map[int64]string{0: "0us", 1500: "1.5us", 12345: "12.345us", -88: "-0.088us", 5000: "5us"} {
		if got := fmtTime(ns); got != want {
			t.Errorf("fmtTime(%d) = %q, want %q", ns, got, want)
		}
	}
}

// TestCaseZeroTime: a bare 0 is a time wherever case.yaml takes one
// (README: "Sizes and times always carry a unit (0 excepted)"); where 0 is
// below a key's range the error says so, not "not a duration".
func TestCaseZeroTime(t *testing.T) {
	for _, tc := range []struct {
		key, yaml  string
		get        func(*Case) (int64, bool)
		outOfRange bool
	}{
		{"end", "end: 0\n", func(c *Case) (int64, bool) { return c.End, c.Line("end") > 0 }, false},
		{"tolerances.time", "  time: 0", func(c *Case) (int64, bool) { return c.Tol.Time, c.Tol.TimeSet }, false},
		{"tolerances.early", "  early: 0", func(c *Case) (int64, bool) { return c.Tol.Early, c.Tol.EarlySet }, false},
		{"tolerances.pause", "  pause: 0", func(c *Case) (int64, bool) { return c.Tol.Pause, c.Tol.PauseSet }, false},
		{"tolerances.jitter", "  jitter: 0", func(c *Case) (int64, bool) { return c.Tol.Jitter, c.Tol.JitterSet }, false},
		{"tolerances.window", "  window: 0", nil, true},
		{"params.bts_latency", "  bts_latency: 0", func(c *Case) (int64, bool) {
			p, ok := c.Params["bts_latency"]
			return p.Int, ok
		}, false},
		{"params.reset", "  reset: 0", nil, true},
		{"params.base_rtt", "  base_rtt: 0", nil, true},
	} {
		t.Run(tc.key, func(t *testing.T) {
			text := goodCase
			switch {
			case strings.HasPrefix(tc.key, "tolerances."):
				text = strings.Replace(text, "  time: 500ns\n", tc.yaml+"\n", 1)
			case tc.key == "params.reset":
				text = strings.Replace(text, "  reset: 5us\n", tc.yaml+"\n", 1)
			case strings.HasPrefix(tc.key, "params."):
				text = strings.Replace(text, "  reset: 5us\n", "  reset: 5us\n"+tc.yaml+"\n", 1)
			default:
				text += tc.yaml
			}
			c, err := ParseCase("case.yaml", []byte(text))
			if tc.outOfRange {
				if err == nil || !strings.Contains(err.Error(), tc.key) || !strings.Contains(err.Error(), "out of range") {
					t.Fatalf("err %v; want %s out of range", err, tc.key)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v, set := tc.get(c); v != 0 || !set {
				t.Errorf("%s = %d, set %v; want 0, set", tc.key, v, set)
			}
		})
	}
}

// TestOptionsMaskIgnoreNotBlamedOnCase: a bad Options.Mask or
// Options.Ignore is reported as the option's, not as the case file's (the
// case's own mask and ignore were checked, with lines, by ParseCase), and
// an ignore's column counts from the start of the option.
func TestOptionsMaskIgnoreNotBlamedOnCase(t *testing.T) {
	const v = "../pcaps/sfc/incast-first-bts/"
	for _, tc := range []struct {
		opt  Options
		want string
	}{
		{Options{Mask: []string{"udp.sport", "bogus.field"}}, `unusable: Options.Mask: unknown field "bogus.field"`},
		{Options{Ignore: "udp.dport =="}, "unusable: Options.Ignore: not a display filter: filter: column 13"},
	} {
		_, err := CheckFiles(v+"case.yaml", v+"input.pcapng", v+"expected.pcapng", tc.opt)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "case.yaml") {
			t.Errorf("%+v: %v; want %q, not naming case.yaml", tc.opt, err, tc.want)
		}
	}
}

// TestMaskWiresharkNames: a mask may name a field by Wireshark's name of
// it, as display filters may (udp.srcport is udp.sport); the report lists
// our name.
func TestMaskWiresharkNames(t *testing.T) {
	m, err := newMaskSet([]string{"udp.srcport", "udp.dstport", "bts.reporter"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.list(), " "); got != "bts.reporter udp.dport udp.sport" {
		t.Errorf("masks %q", got)
	}
	if _, err := newMaskSet([]string{"udp.length"}); err == nil {
		t.Error("udp.length (a Wireshark name of no maskable field) accepted")
	}
}
