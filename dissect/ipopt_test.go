// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/opensfc/sfc/internal/tsharktest"
)

// The frames of two captures a tester crafted (/tmp/hard/v4badopt.pcap
// and hbhopt.pcap), byte for byte: a BTS over UDP to port 1021 behind an
// IPv4 header of IHL 6 whose option is malformed (length 0; past the
// header) or valid (Router Alert), and behind an IPv6 Hop-by-Hop or
// Destination Options header of 8 octets whose option TLV is valid or
// runs past it.
var (
	v4optFrames = []string{
		v4optHead + "c0000000" + v4optTail,
		v4optHead + "07200000" + v4optTail,
		v4optHead + "94040000" + v4optTail,
	}
	hbhoptFrames = []string{
		v6optHead("00") + "1100010400000000" + v6optTail,
		v6optHead("00") + "1100010a00000000" + v6optTail,
		v6optHead("00") + "11001e0200000100" + v6optTail,
		v6optHead("3c") + "1100050900000000" + v6optTail,
	}
)

const (
	v4optHead = "020000000001 020000000002 0800 46c0 0058 0000 0000 4011 0000 0a000002 0a000001"
	v4optTail = "c00003fd00400000 11000014 00000007 00050003 0005b8d8" +
		"4568003c00000000 4011000a 0a000001 0a000002 c00012b700280000 0a00ffff000000d200000000"
	v6optTail = "c00103fd00540000 1100000c 00000009 ffff0000 00000000" +
		"6a00000000141140 fd000000000000000000000000000001 fd000000000000000000000000000002 c00112b700140000 0a00ffff0000abcd00000000"
)

func v6optHead(nh string) string {
	return "020000000001 020000000002 86dd 60000000 005c " + nh + " 40 fd000000000000000000000000000002 fd000000000000000000000000000001"
}

// TestMalformedOptionShown: a malformed IPv4 option, or an IPv6 option TLV
// past its header, is a warning of the ip (ipv6ext) layer naming the
// option and its offset, in the summary's count, the verbose tree and
// JSON; the IP header stays and the UDP and BTS behind it are shown, with
// no error, rendering without allocating. Before, the IPv4 frames had
// only their MACs, with "[malformed: IPv4 at frame offset 14: Invalid IP
// option type 192 length 0...]", and the IPv6 ones "IP proto 0" with
// "length field points past the data".
func TestMalformedOptionShown(t *testing.T) {
	cases := []struct {
		frame string
		warn  string // "" none
	}{
		{v4optFrames[0], "ip: malformed ipv4 option type 192 at offset 20: length 0, less than 2"},
		{v4optFrames[1], "ip: malformed ipv4 option type 7 at offset 20: length 32 runs past the header (4 octets left)"},
		{v4optFrames[2], ""},
		{hbhoptFrames[0], ""},
		{hbhoptFrames[1], "ipv6ext: malformed hopopts option type 1 at offset 2: length 10 runs past the header (12 octets with type and length, 6 left)"},
		{hbhoptFrames[2], ""},
		{hbhoptFrames[3], "ipv6ext: malformed dstopts option type 5 at offset 2: length 9 runs past the header (11 octets with type and length, 6 left)"},
	}
	var e Encoder
	buf := make([]byte, 0, 1<<14)
	dport, _ := LookupField("udp.dstport")
	for i, c := range cases {
		data := mustHex(t, c.frame)
		f := decodeFrame(data, len(data), 100e9)
		if f.Err != nil {
			t.Errorf("frame %d: %v", i+1, f.Err)
			continue
		}
		js := string(e.AppendJSON(nil, f))
		tree := string(e.AppendTree(nil, f))
		sum := string(AppendSummary(nil, f))
		if !strings.Contains(js, `"ip":{"version":`) || !strings.Contains(js, `"udp":{"sport":`) || !strings.Contains(js, `"bts":{"version":1,`) ||
			!strings.Contains(sum, "BTS pause ") || strings.Contains(sum, "malformed") {
			t.Errorf("frame %d: IP, UDP and BTS not all shown:\n%s\n%s", i+1, sum, js)
		}
		if v := dport.Values(f, nil); len(v) != 1 || v[0].U != 1021 {
			t.Errorf("frame %d: udp.dstport %v", i+1, v)
		}
		if c.warn == "" {
			if strings.Contains(js, "malformed") {
				t.Errorf("frame %d: a warning on a valid option: %s", i+1, js)
			}
		} else {
			if !strings.Contains(js, `"warnings":["`+c.warn+`"`) || !strings.Contains(tree, "    warning: "+c.warn+"\n") {
				t.Errorf("frame %d: want warning %q:\n%s\n%s", i+1, c.warn, js, tree)
			}
			if ws := FrameWarnings(f); len(ws) == 0 || ws[0] != c.warn {
				t.Errorf("frame %d: FrameWarnings %q", i+1, ws)
			}
			n := len(FrameWarnings(f))
			if countWarnings(f) != n || !strings.Contains(sum, " ["+strconv.Itoa(n)+" warning") {
				t.Errorf("frame %d: %d warnings, counted %d: %s", i+1, n, countWarnings(f), sum)
			}
		}
		render := func() {
			b := e.AppendJSON(buf[:0], f)
			b = AppendSummary(b, f)
			_ = e.AppendTree(b, f)
		}
		if n := testing.AllocsPerRun(20, render); n != 0 {
			t.Errorf("frame %d: %v allocations per render", i+1, n)
		}
	}
}

// TestMalformedOptionTshark: the frames that udp.dstport == 1021 matches
// in the two captures are tshark 4.0's (1 2 3 and 1 2 3 4; before, 3 and
// 1 3).
func TestMalformedOptionTshark(t *testing.T) {
	bin := tsharktest.Path(t)
	dport, _ := LookupField("udp.dstport")
	for name, hexes := range map[string][]string{"v4badopt": v4optFrames, "hbhopt": hbhoptFrames} {
		var frames [][]byte
		var ours []string
		for i, h := range hexes {
			data := mustHex(t, h)
			frames = append(frames, data)
			f := decodeFrame(data, len(data), 100e9)
			for _, v := range dport.Values(f, nil) {
				if v.U == 1021 {
					ours = append(ours, strconv.Itoa(i+1))
				}
			}
		}
		path := t.TempDir() + "/" + name + ".pcap"
		writePcap(t, path, 1, frames...)
		out, err := exec.Command(bin, "-r", path, "-Y", "udp.dstport == 1021", "-T", "fields", "-e", "frame.number").Output()
		if err != nil {
			t.Fatalf("tshark: %v", err)
		}
		theirs := strings.Fields(string(out))
		if strings.Join(ours, " ") != strings.Join(theirs, " ") || len(theirs) != len(hexes) {
			t.Errorf("%s: udp.dstport == 1021 matches frames %v, tshark %v (want every frame)", name, ours, theirs)
		}
	}
}
