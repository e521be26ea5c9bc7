// SPDX-License-Identifier: Apache-2.0

package main

import (
	"strings"
	"testing"
	"time"
)

// TestProbeFixes: what a new user's probe found, end to end. A BTS of
// version 2 (pcaps/malformed.pcapng frame 2) is not a resume: bts.pause_us
// == 0 does not select it and -T fields leaves it empty; frame.time is
// a field of -e and -Y; tshark's protocol names tcp, arp, stp, ... are
// listed by sfcdump fields and compile.
func TestProbeFixes(t *testing.T) {
	out, errs, code := sfcdump(t, "read", "-T", "fields", "-e", "frame.number", "-Y", "bts.pause_us == 0", "../../pcaps/malformed.pcapng")
	if code != 0 || strings.TrimSpace(out) != "" {
		t.Errorf("bts.pause_us == 0 selects %q (exit %d, %s), want none", out, code, errs)
	}
	out, _, _ = sfcdump(t, "read", "-T", "fields", "-e", "bts.version", "-e", "bts.pause_us", "-e", "bts.reporter", "-Y", "bts.version == 2", "../../pcaps/malformed.pcapng")
	if out != "2\t\t\n" {
		t.Errorf("version 2 BTS fields %q, want the version alone", out)
	}
	// frame.time prints in local time, as tshark's: here UTC.
	saved := time.Local
	time.Local = time.UTC
	defer func() { time.Local = saved }()
	out, errs, code = sfcdump(t, "read", "-T", "fields", "-e", "frame.time", "-Y", `frame.time >= "2026-01-01 00:00:00.000020 UTC"`, "../../pcaps/sample.pcapng")
	if code != 0 || out != "Jan  1, 2026 00:00:00.000020000 UTC\n" {
		t.Errorf("frame.time: %q (exit %d, %s)", out, code, errs)
	}
	out, _, code = sfcdump(t, "fields")
	for _, p := range []string{"tcp", "icmp", "icmpv6", "arp", "lldp", "llc", "stp"} {
		if code != 0 || !strings.Contains(out, "\n"+p+" ") {
			t.Errorf("sfcdump fields does not list %s", p)
		}
		if _, errs, code := sfcdump(t, "read", "-q", "-Y", "!"+p, "../../pcaps/sample.pcapng"); code != 0 {
			t.Errorf("-Y !%s: exit %d: %s", p, code, errs)
		}
	}
}
