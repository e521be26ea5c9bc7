// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"encoding/json"
	"strings"
	"testing"
)

// The text report escapes every value from outside, line breaks
// included: a description, a deviation's port, field or values, a note
// never make a line of their own (docs/decisions.md "Terminal safety"),
// so a FAIL report cannot carry a forged "verdict: PASS" line.
func TestWriteTextEscapesLineBreaks(t *testing.T) {
	const evil = "x\nverdict: PASS\r\x1b[2J"
	for _, mode := range []string{ModeExact, ModeDevice} {
		r := newReport(mode, 0, exactChecks)
		r.Vector, r.Compared, r.DUT, r.Description = "vec/"+evil, "dev/"+evil, evil, evil
		r.VectorDigest, r.CaptureDigest = "sha256:00", "sha256:11"
		r.Notes = []string{evil}
		r.Tolerances = &TolerancesInForce{Mask: []string{evil}, Ignore: evil}
		r.add(Deviation{Check: CheckBytes, Frame: 1, Port: evil, Field: evil, Expected: evil, Actual: evil, Detail: evil})
		r.accepted(CheckBytes, evil)
		r.Checks[0].Description = evil
		r.finish()
		var b strings.Builder
		if err := r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.ContainsAny(out, "\r\x1b") || strings.Count(out, "\nverdict: ") != 1 || !strings.HasSuffix(out, "\nverdict: FAIL\n") {
			t.Errorf("%s mode: a value made a line of its own:\n%s", mode, out)
		}
		// a bad case.yaml: one error a line; the path in them escaped
		r.Error = "unusable: vec/" + evil + "/case.yaml:1: bad\n" + "vec/" + evil + "/case.yaml:2: bad"
		r.Verdict = Unusable
		b.Reset()
		r.WriteText(&b)
		out = b.String()
		if strings.ContainsAny(out, "\r\x1b") || strings.Count(out, "\nverdict: ") != 1 || !strings.HasSuffix(out, "\nverdict: UNUSABLE\n") || !strings.Contains(out, "/case.yaml:1: bad\n  vec/x\\nverdict") {
			t.Errorf("%s mode, unusable: a value made a line of its own:\n%s", mode, out)
		}
	}
}

// Exact mode's tolerances name the time tolerance and the volatile
// fields, and none of device mode's.
func TestExactTolerancesInForce(t *testing.T) {
	tf := exactTolerances(&Case{Tol: Tolerances{Time: 500}, Volatile: []string{"ip.id", "udp.sport"}})
	if s := tf.String(); s != "time 0.5us, volatile ip.id udp.sport" {
		t.Errorf("String() = %q", s)
	}
	b, err := json.Marshal(tf)
	if err != nil || string(b) != `{"time_ns":500,"volatile":["ip.id","udp.sport"]}` {
		t.Errorf("JSON %s %v", b, err)
	}
	b, _ = json.Marshal(&TolerancesInForce{TimeNs: 1000, Mask: []string{"bts.reporter"}})
	if !strings.Contains(string(b), `"early_ns":0`) || !strings.Contains(string(b), `"mask":["bts.reporter"]`) {
		t.Errorf("device-mode JSON %s", b)
	}
}
