// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os/exec"
	"path/filepath"

	"github.com/opensfc/sfc/internal/tsharktest"
	"strings"
	"testing"
)

// TestWiresharkFilters: read -Y takes Wireshark's syntax and field names,
// -e takes Wireshark's names, and a bad filter is a usage error (exit 2)
// that names the column and what was expected.
func TestWiresharkFilters(t *testing.T) {
	out, errs, code := sfcdump(t, "read", "-T", "fields", "-e", "frame.number", "-e", "infiniband.bth.destqp", "-e", "udp.dstport",
		"-Y", "udp.dstport in {4791, 1022} && infiniband.bth.opcode != 0x81 && eth.src[-1] == 01", sampleCap)
	// Wireshark's names print as tshark prints them (hex 0x and the
	// field's width); ours as ours.
	if code != 0 || errs != "" || out != "3\t0x0000d2\t4791\n4\t0x00abcd\t4791\n5\t0x000011\t4791\n6\t0x0000d2\t4791\n" {
		t.Errorf("exit %d, stderr %q, stdout %q", code, errs, out)
	}
	out, _, _ = sfcdump(t, "read", "-T", "fields", "-e", "bth.destqp", "-e", "bth.ackreq", "-e", "infiniband.bth.a", "-c", "1", "-Y", "bth", sampleCap)
	if out != "210\ttrue\t1\n" {
		t.Errorf("ours and Wireshark's names side by side: %q", out)
	}
	// tshark's -E options.
	out, _, code = sfcdump(t, "read", "-T", "fields", "-E", "header=y", "-E", "separator=,", "-E", "quote=d", "-E", "occurrence=l",
		"-e", "frame.number", "-e", "udp.port", "-e", "macc.opcode", "-c", "3", sampleCap)
	if code != 0 || out != "frame.number,udp.port,macc.opcode\n\"1\",,\"0x0001\"\n\"2\",,\"0x0101\"\n\"3\",\"4791\",\n" {
		t.Errorf("-E: %d %q", code, out)
	}
	for _, e := range []string{"header=maybe", "separator=ab", "quote=x", "occurrence=0", "aggregator=", "bogus=1", "header"} {
		if _, errs, code := sfcdump(t, "read", "-T", "fields", "-e", "frame.number", "-E", e, sampleCap); code != 2 || !strings.Contains(errs, "-E") {
			t.Errorf("-E %s: exit %d, %q; want a usage error naming -E", e, code, errs)
		}
	}
	if _, errs, code := sfcdump(t, "read", "-E", "header=y", sampleCap); code != 2 || !strings.Contains(errs, "-E needs -T fields") {
		t.Errorf("-E without -T fields: %d %q", code, errs)
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

// TestFrameMetadataTshark: frame.time_relative, frame.time_delta, frame.interface_name and
// frame.comment print and filter as tshark's do, on a vector's input
// (named interfaces, a comment on every frame).
func TestFrameMetadataTshark(t *testing.T) {
	bin := tsharktest.Path(t)
	in := filepath.Join("..", "..", "pcaps", "sfc", "incast-first-bts", "input.pcapng")
	fields := []string{"-e", "frame.number", "-e", "frame.time_relative", "-e", "frame.time_delta", "-e", "frame.interface_name", "-e", "frame.comment"}
	for _, flt := range []string{"", `frame.time_relative > 0.0000009 && frame.time_relative < 0.0000012`, `frame.comment contains "sender 1"`, `frame.time_delta > 0.00000004`,
		`frame.interface_name == "port1"`, `frame.comment matches "flow 0 frame [12]$"`} {
		args := append([]string{"read", "-T", "fields"}, fields...)
		targs := append([]string{"-r", in, "-T", "fields"}, fields...)
		if flt != "" {
			args = append(args, "-Y", flt)
			targs = append(targs, "-Y", flt)
		}
		ours, errs, code := sfcdump(t, append(args, in)...)
		theirs, err := exec.Command(bin, targs...).Output()
		if err != nil || code != 0 {
			t.Fatalf("%s: tshark %v, sfcdump %d %s", flt, err, code, errs)
		}
		if ours != string(theirs) || strings.Count(ours, "\n") < 5 {
			t.Errorf("-Y %q:\nsfcdump:\n%s\ntshark:\n%s", flt, clipLines(ours), clipLines(string(theirs)))
		}
	}
}

func clipLines(s string) string {
	l := strings.SplitAfter(s, "\n")
	if len(l) > 6 {
		l = append(l[:6], "...\n")
	}
	return strings.Join(l, "")
}
