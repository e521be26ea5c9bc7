// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTruncatedTailFields: a RoCEv2 WRITE the capture cut anywhere
// before its end has no ICRC (the packet's last 4 octets were not
// captured), whichever layer the cut fell in: the BTH, its RETH or the
// payload. Without the fix a cut in the RETH read an ICRC from the RETH's
// octets, and Wireshark's infiniband.invariant.crc gave 0x00000000 for a
// cut in the BTH, which `-Y 'infiniband.invariant.crc == 0'` matched.
func TestTruncatedTailFields(t *testing.T) {
	write, err := hex.DecodeString(strings.ReplaceAll("020000000002 020000000001 0800 4500005000000000401100000a0000010a000002 c00012b7003c0000 0a40ffff000000d2800003e8 00000000000010000000000100000010 1111111111111111111111111111111111111111 01020304", " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	cuts := []int{50, 52, 56, 58, 60, 64, 70, 80, 93}
	path := filepath.Join(t.TempDir(), "cut.pcapng")
	writeCapture(t, path, []string{"eth0"}, len(cuts)+1, func(i int) (int, time.Time, []byte, int) {
		if i == len(cuts) {
			return 0, time.Unix(1, 0), write, len(write) // whole: its ICRC is there
		}
		return 0, time.Unix(1, 0), write[:cuts[i]], len(write)
	})
	out, errs, code := sfcdump(t, "read", "-T", "fields", "-e", "frame.cap_len", "-e", "bth.icrc", "-e", "infiniband.invariant.crc", "-e", "bth.icrc_ok", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(cuts)+1 {
		t.Fatalf("%d lines: %q", len(lines), out)
	}
	for i, l := range lines[:len(cuts)] {
		if want := strings.Repeat("\t", 3); !strings.HasSuffix(l, want) || strings.Count(l, "\t") != 3 {
			t.Errorf("cut at %d: %q, want the ICRC fields empty", cuts[i], l)
		}
	}
	if last := lines[len(cuts)]; !strings.HasPrefix(last, "94\t") || strings.HasSuffix(last, "\t\t\t") {
		t.Errorf("whole frame: %q, want its ICRC", last)
	}
	if out, _, _ := sfcdump(t, "read", "-Y", "infiniband.invariant.crc == 0 || bth.icrc", "-T", "fields", "-e", "frame.cap_len", path); out != "94\n" {
		t.Errorf("-Y on the ICRC selected %q, want the whole frame alone", out)
	}
	js, _, _ := sfcdump(t, "read", "-T", "json", path)
	for i, l := range strings.Split(strings.TrimSuffix(js, "\n"), "\n")[:len(cuts)] {
		if strings.Contains(l, `"icrc":`) && !strings.Contains(l, `"icrc":null`) {
			t.Errorf("cut at %d: JSON has an ICRC: %s", cuts[i], l)
		}
	}
}

// TestTruncatedIPv6Chain: an IPv6 packet cut inside (or right before) its
// extension headers has no known upper-layer protocol: ip.proto (JSON)
// and ipv6.nxt are absent, not the Next Header of the fixed header or of
// the cut header (0 here, which names Hop-by-Hop as the upper layer); the
// whole packet and one cut after the chain give 17.
func TestTruncatedIPv6Chain(t *testing.T) {
	pkt, err := hex.DecodeString(strings.ReplaceAll("020000000002 020000000001 86dd 60000000 0018 00 40 fd000000000000000000000000000001 fd000000000000000000000000000002 1100 0104 00000000 c000270f00100000 0102030405060708", " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	cuts := []int{54, 58, 62, 66, len(pkt)}
	path := filepath.Join(t.TempDir(), "v6cut.pcapng")
	writeCapture(t, path, []string{"eth0"}, len(cuts), func(i int) (int, time.Time, []byte, int) {
		return 0, time.Unix(1, 0), pkt[:cuts[i]], len(pkt)
	})
	out, errs, code := sfcdump(t, "read", "-T", "fields", "-e", "frame.cap_len", "-e", "ipv6.nxt", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if want := "54\t\n58\t\n62\t17\n66\t17\n78\t17\n"; out != want {
		t.Errorf("ipv6.nxt:\n%s\nwant\n%s", out, want)
	}
	js, _, _ := sfcdump(t, "read", "-T", "json", path)
	for i, l := range strings.Split(strings.TrimSuffix(js, "\n"), "\n") {
		want := `"proto":17`
		if cuts[i] < 62 {
			want = `"proto":null`
		}
		if !strings.Contains(l, want) {
			t.Errorf("cut at %d: JSON lacks %s: %s", cuts[i], want, l)
		}
	}
	if out, _, _ := sfcdump(t, "read", "-Y", "ipv6.nxt == 0", path); out != "" {
		t.Errorf("-Y 'ipv6.nxt == 0' matched %q", out)
	}
	// The Hop-by-Hop header cut after its first 4 octets still shows its
	// Next Header (tshark's ipv6.hopopts.nxt) and length; the line does
	// not say "IP proto 0".
	out, _, _ = sfcdump(t, "read", "-T", "fields", "-e", "frame.cap_len", "-e", "ipv6.hopopts.nxt", path)
	if want := "54\t\n58\t17\n62\t17\n66\t17\n78\t17\n"; out != want {
		t.Errorf("ipv6.hopopts.nxt:\n%s\nwant\n%s", out, want)
	}
	if !strings.Contains(strings.Split(js, "\n")[1], `"ipv6ext":{"entries":[{"header":"hopopts","nxt":17,"len":8}]}`) {
		t.Errorf("cut at 58: JSON %s", strings.Split(js, "\n")[1])
	}
	text, _, _ := sfcdump(t, "read", "-c", "2", path)
	if l := strings.Split(text, "\n")[1]; !strings.Contains(l, "IPv6 (extension headers cut short)") || strings.Contains(l, "proto 0") {
		t.Errorf("cut at 58: %q", l)
	}
}

// TestFilterStringsRaw: filters test a capture's strings as the capture
// has them (an ESC, a bidi override, octets that are not UTF-8), as
// tshark's do, while every output still shows them escaped: contains "\x1b"
// finds the name, contains "\\x1b" (a backslash and x1b) does not, and
// len() counts the capture's octets.
func TestFilterStringsRaw(t *testing.T) {
	evil := evilCapture(t)
	for _, tc := range []struct {
		filter string
		frames int
	}{
		{`frame.interface_name contains "\x1b"`, 21},
		{`frame.interface_name contains "\\x1b"`, 0},
		{`frame.interface_name contains "\xe2\x80\xae"`, 21},
		{`frame.comment contains "\x07"`, 21},
		{`frame.comment contains "\\a"`, 0},
		{fmt.Sprintf("len(frame.comment) == %d", len("comment "+evilName)), 21},
		{fmt.Sprintf("len(frame.interface_name) == %d", len(evilName)), 21},
		{`frame.interface_name matches "\x1b\\[2J"`, 21},
	} {
		out, errs, code := sfcdump(t, "read", "-Y", tc.filter, "-T", "fields", "-e", "frame.interface_name", "-e", "frame.comment", evil)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", tc.filter, code, errs)
			continue
		}
		if n := strings.Count(out, "\n"); n != tc.frames {
			t.Errorf("%s: %d frames, want %d", tc.filter, n, tc.frames)
		}
		for _, bad := range []string{"\x1b", "\a", "\r", "\xff", "\u202e"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: -T fields shows %q raw", tc.filter, bad)
			}
		}
	}
}

// TestTruncatedEthernet: a frame the capture cut inside its Ethernet
// header after both addresses shows them (text, JSON, -T fields), as
// tshark does, and no EtherType (it showed neither, or "ethertype 0x0").
func TestTruncatedEthernet(t *testing.T) {
	frame, _ := hex.DecodeString("020000000002020000000001" + "0800" + strings.Repeat("00", 50))
	path := filepath.Join(t.TempDir(), "eth.pcapng")
	writeCapture(t, path, []string{"eth0"}, 2, func(i int) (int, time.Time, []byte, int) {
		return 0, time.Unix(1, 0), frame[:12+i], len(frame)
	})
	out, errs, code := sfcdump(t, "read", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !strings.Contains(l, "02:00:00:00:00:01 > 02:00:00:00:00:02") || strings.Contains(l, "ethertype") || !strings.Contains(l, fmt.Sprintf("[truncated at octet %d]", 12+i)) {
			t.Errorf("line %d: %q", i+1, l)
		}
	}
	js, _, _ := sfcdump(t, "read", "-T", "json", path)
	if n := strings.Count(js, `"eth":{"src":"02:00:00:00:00:01","dst":"02:00:00:00:00:02","type":null}`); n != 2 {
		t.Errorf("JSON: %d frames with both addresses and no type:\n%s", n, js)
	}
	f, _, _ := sfcdump(t, "read", "-T", "fields", "-e", "eth.src", "-e", "eth.type", path)
	if f != "02:00:00:00:00:01\t\n02:00:00:00:00:01\t\n" {
		t.Errorf("-T fields: %q", f)
	}
}

// TestTruncatedVLANTag: a frame the capture cut inside a VLAN tag, after
// its TCI, shows the tag's priority, DEI and identifier (as tshark's
// vlan.id and vlan.priority) and no EtherType after it; it showed no tag.
func TestTruncatedVLANTag(t *testing.T) {
	frame, _ := hex.DecodeString("020000000002020000000001" + "8100" + "b064" + "0800" + strings.Repeat("00", 40))
	path := filepath.Join(t.TempDir(), "vlan.pcapng")
	writeCapture(t, path, []string{"eth0"}, 2, func(i int) (int, time.Time, []byte, int) {
		return 0, time.Unix(1, 0), frame[:16+i], len(frame)
	})
	out, errs, code := sfcdump(t, "read", "-T", "fields", "-e", "vlan.id", "-e", "vlan.priority", "-e", "vlan.dei", "-e", "vlan.etype", "-e", "eth.vlan", path)
	if code != 0 || out != "100\t5\t1\t\t100\n100\t5\t1\t\t100\n" {
		t.Errorf("exit %d %q: %q", code, errs, out)
	}
	js, _, _ := sfcdump(t, "read", "-T", "json", "-c", "1", path)
	if !strings.Contains(js, `"vlan":{"entries":[{"tpid":33024,"pcp":5,"dei":true,"vid":100}]}`) || !strings.Contains(js, `"truncated":16`) {
		t.Errorf("JSON: %s", js)
	}
}
