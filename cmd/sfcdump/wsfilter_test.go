// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	glayers "github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/opensfc/sfc/internal/tsharktest"
	"github.com/opensfc/sfc/pcapio"
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
	// bom=y: tshark's UTF-8 byte order mark, once, before the header.
	out, _, code = sfcdump(t, "read", "-T", "fields", "-E", "bom=y", "-E", "header=y", "-e", "frame.number", "-c", "2", sampleCap)
	if code != 0 || out != "\ufeffframe.number\n1\n2\n" {
		t.Errorf("-E bom=y: %d %q", code, out)
	}
	out, _, _ = sfcdump(t, "read", "-T", "fields", "-E", "bom=n", "-e", "frame.number", "-c", "1", sampleCap)
	if out != "1\n" {
		t.Errorf("-E bom=n: %q", out)
	}
	for _, e := range []string{"header=maybe", "separator=ab", "quote=x", "occurrence=0", "aggregator=", "bogus=1", "header", "bom=x"} {
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

// TestInterfaceFieldsTshark: frame.interface_id is absent for a classic
// pcap (no interfaces) and frame.interface_description is the pcapng
// if_description, in read and stats as in tshark; a filter of only spaces
// is no filter, as tshark takes it.
func TestInterfaceFieldsTshark(t *testing.T) {
	bin := tsharktest.Path(t)
	frames := loadFrames(t, sampleCap)
	dir := t.TempDir()
	classic, ng := filepath.Join(dir, "c.pcap"), filepath.Join(dir, "d.pcapng")
	f, _ := os.Create(classic)
	pw := pcapgo.NewWriter(f)
	pw.WriteFileHeader(65535, glayers.LinkTypeEthernet)
	g, _ := os.Create(ng)
	nw, err := pcapio.NewWriterInterfaces(g, pcapio.Interface{Name: "p0", LinkType: 1, Description: "uplink to spine 1"},
		pcapio.Interface{Name: "p1", LinkType: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i, fr := range frames {
		ts := time.Unix(1_700_000_000, int64(i)*1000)
		pw.WritePacket(gopacket.CaptureInfo{Timestamp: ts, CaptureLength: len(fr.Data), Length: len(fr.Data)}, fr.Data)
		nw.Write(i%2, ts, fr.Data, len(fr.Data))
	}
	nw.Flush()
	f.Close()
	g.Close()
	fields := []string{"-T", "fields", "-e", "frame.number", "-e", "frame.interface_id", "-e", "frame.interface_description"}
	for _, in := range []string{classic, ng} {
		for _, flt := range []string{" ", "frame.interface_id == 0", "frame.interface_id", `frame.interface_description contains "spine"`, "!frame.interface_description"} {
			ours, errs, code := sfcdump(t, append(append([]string{"read"}, fields...), "-Y", flt, in)...)
			theirs, err := exec.Command(bin, append([]string{"-r", in, "-Y", flt}, fields...)...).Output()
			if err != nil || code != 0 {
				t.Fatalf("%s -Y %q: tshark %v, sfcdump %d %s", filepath.Base(in), flt, err, code, errs)
			}
			if ours != string(theirs) {
				t.Errorf("%s -Y %q:\nsfcdump:\n%s\ntshark:\n%s", filepath.Base(in), flt, clipLines(ours), clipLines(string(theirs)))
			}
			want := strings.Count(ours, "\n")
			if out, errs, code := sfcdump(t, "stats", "-Y", flt, in); code != 0 || !strings.HasPrefix(out, "Frames: "+strconv.Itoa(want)+" ") {
				t.Errorf("stats %s -Y %q: exit %d, %s; want %d frames\n%s", filepath.Base(in), flt, code, errs, want, clipLines(out))
			}
		}
	}
}

// TestIPv4OnlyTshark: in -Y (read and stats) and -e, ip and ip.* are
// Wireshark's, IPv4's alone: an IPv6 frame has no ip, no ip.src, ip.ttl,
// ip.proto (its header is ipv6.*), and ip.version is in both, as tshark
// 4.0 gives them, on the sample, which holds IPv4 and IPv6 frames.
// JSON's "ip" object stays ours, either family's.
func TestIPv4OnlyTshark(t *testing.T) {
	bin := tsharktest.Path(t)
	for _, flt := range []string{"ip", "!ip", "ip.src != 10.0.0.1", "ip.ttl >= 64", "ip.ttl >= 64 && ip.ttl <= 255",
		"ip.proto == 17", "ip contains 12:b7", `ip contains "\x12\xb7"`, "ip contains 00:00", "!(ip contains 00:00)", "ip.dst", "ip.version == 6",
		"ipv6", "ipv6.nxt == 17", "ipv6.hlim == 64", "ip || ipv6", "!ip && udp"} {
		ours, errs, code := sfcdump(t, "read", "-T", "fields", "-e", "frame.number", "-Y", flt, sampleCap)
		theirs, err := exec.Command(bin, "-r", sampleCap, "-T", "fields", "-e", "frame.number", "-Y", flt).Output()
		if err != nil || code != 0 {
			t.Fatalf("-Y %s: tshark %v, sfcdump %d %s", flt, err, code, errs)
		}
		if ours != string(theirs) {
			t.Errorf("-Y %q selects\n sfcdump %q\n tshark  %q", flt, ours, theirs)
		}
		stats, errs, code := sfcdump(t, "stats", "-Y", flt, sampleCap)
		if n := strings.Count(ours, "\n"); code != 0 || !strings.HasPrefix(stats, "Frames: "+strconv.Itoa(n)+" ") {
			t.Errorf("stats -Y %q: exit %d %s, want %d frames in\n%s", flt, code, errs, n, clipLines(stats))
		}
	}
	fields := []string{"-e", "ip.src", "-e", "ipv6.src", "-e", "ip.proto", "-e", "ip.dst", "-e", "ip.ttl", "-e", "ip.addr",
		"-e", "ip.version", "-e", "ipv6.nxt", "-e", "ipv6.hlim", "-e", "ipv6.plen", "-e", "ipv6.flow", "-e", "ipv6.tclass.dscp"}
	ours, errs, code := sfcdump(t, append(append([]string{"read", "-T", "fields"}, fields...), sampleCap)...)
	theirs, err := exec.Command(bin, append([]string{"-r", sampleCap, "-T", "fields"}, fields...)...).Output()
	if err != nil || code != 0 {
		t.Fatalf("-T fields: tshark %v, sfcdump %d %s", err, code, errs)
	}
	if ours != string(theirs) {
		t.Errorf("-T fields %v:\nsfcdump:\n%s\ntshark:\n%s", fields, ours, theirs)
	}
	out, _, _ := sfcdump(t, "read", "-T", "json", "-Y", "ipv6", "-c", "1", sampleCap)
	if !strings.Contains(out, `"ip":{"version":6,"src":"fd00::1"`) {
		t.Errorf("JSON's ip object of an IPv6 frame: %s", out)
	}
}
