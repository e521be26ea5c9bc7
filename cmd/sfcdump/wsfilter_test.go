// SPDX-License-Identifier: Apache-2.0

package main

import (
	"strings"
	"testing"
)

// TestWiresharkFilters: read -Y takes Wireshark's syntax and field names,
// -e takes Wireshark's names, and a bad filter is a usage error (exit 2)
// that names the column and what was expected.
func TestWiresharkFilters(t *testing.T) {
	out, errs, code := sfcdump(t, "read", "-T", "fields", "-e", "frame.number", "-e", "infiniband.bth.destqp", "-e", "udp.dstport",
		"-Y", "udp.dstport in {4791, 1022} && infiniband.bth.opcode != 0x81 && eth.src[-1] == 01", sampleCap)
	if code != 0 || errs != "" || out != "3\t210\t4791\n4\t43981\t4791\n5\t17\t4791\n6\t210\t4791\n" {
		t.Errorf("exit %d, stderr %q, stdout %q", code, errs, out)
	}
	out, _, _ = sfcdump(t, "read", "-T", "fields", "-e", "frame.number", "-Y", `macc.cbfc.pause_time.c3 == 65535 || frame matches "\x12\xb7\x00" && ipv6`, sampleCap)
	if out != "2\n4\n5\n8\n10\n14\n16\n" {
		t.Errorf("macc/matches filter selects %q", out)
	}
	for _, tc := range []struct{ filter, msg string }{
		{"eth.src[0:3 == 02", "column 13: expected , or ] in a slice, found \"==\""},
		{"udp.dstport in {4791, abc}", "column 23: udp.dstport is a number field; \"abc\" is not a number"},
		{"udp.dstport in 4791", "column 16: expected { after in"},
		{`udp.payload matches "("`, "column 21: bad regular expression"},
	} {
		out, errs, code := sfcdump(t, "read", "-Y", tc.filter, sampleCap)
		if code != 2 || out != "" || !strings.Contains(errs, tc.msg) || !strings.Contains(errs, "^") {
			t.Errorf("-Y %s: exit %d, stdout %q, stderr %q; want 2 and %q with a caret", tc.filter, code, out, errs, tc.msg)
		}
	}
	_, errs, code = sfcdump(t, "stats", "-Y", "udp.dstport ===", sampleCap)
	if code != 2 || !strings.Contains(errs, "expected a value after ===") {
		t.Errorf("stats -Y: exit %d, stderr %q", code, errs)
	}
	out, _, code = sfcdump(t, "fields", "infiniband", "macc")
	for _, want := range []string{"infiniband.bth.destqp", "Wireshark: = bth.destqp", "macc.cbfc.pause_time.c3", "Wireshark: = pfc.time_c3"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("fields infiniband macc: exit %d, no %q in\n%s", code, want, out)
		}
	}
	out, _, _ = sfcdump(t, "__complete", "read", "-Y", "")
	for _, want := range []string{"\nipv6.src\n", "\nudp.dstport\n", "\nmacc.cbfc.enbv.c3\n", "\nbth.destqp\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("-Y completion has no %q", strings.TrimSpace(want))
		}
	}
}
