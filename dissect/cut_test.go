// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	glayers "github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/opensfc/sfc/internal/tsharktest"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/sample"
)

// decodeFrame decodes data as a frame of an interface at bps bit/s.
func decodeFrame(data []byte, origLen int, bps uint64) *Frame {
	p := layers.NewParser()
	f := &Frame{Number: 1, Len: origLen, CapLen: len(data), P: p, LinkBPS: bps}
	f.Err = p.Decode(data)
	return f
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pfcFrame: a PFC enabling priorities 0, 1 and 3 (time_c0 0x10, time_c1
// 0x20, time_c3 0xffff), no pad.
const pfcFrame = "0180c2000001 020000000001 8808 0101 000b 0010 0020 0000 ffff 0000 0000 0000 0000"

// TestTruncatedFields (issue 19 item 5): a frame cut short shows every
// field before the cut and none after (null in JSON, left out of the
// verbose tree and -T fields, not 0), and says where it was cut, in JSON,
// the summary and the tree.
func TestTruncatedFields(t *testing.T) {
	full := mustHex(t, pfcFrame)
	cnp := mustHex(t, "020000000002 020000000001 0800 45c0003c00000000401165ef0a0000010a000002 c00012b700280000 8100ffff400000d200000000 00000000000000000000000000000000 5c763923")
	for _, tc := range []struct {
		name      string
		data      []byte
		at        int
		proto     string
		present   map[string]any // field: JSON value
		absent    []string
		text, not string // in the summary / the verbose tree
	}{
		{"pfc cut at 22", full[:22], 22, "pfc",
			map[string]any{"opcode": 257.0, "enable_vector": 11.0, "c3": true, "time_c0": 16.0, "time_c1": 32.0, "pause_ns_c1": 163.0},
			[]string{"time_c2", "time_c3", "time_c7", "pause_ns_c2", "pause_ns_c3"}, "[truncated at octet 22]", "pfc.time_c2"},
		{"pfc cut at 17", full[:17], 17, "pfc",
			map[string]any{"opcode": 257.0},
			[]string{"enable_vector", "c0", "c3", "time_c0"}, "[truncated at octet 17]", "pfc.c0"},
		{"bth cut in the psn", cnp[:14+20+8+10], 14 + 20 + 8 + 10, "bth",
			map[string]any{"opcode": 129.0, "destqp": 210.0, "becn": true},
			[]string{"psn", "icrc", "icrc_ok"}, "[truncated at octet 52]", "bth.psn"},
		{"bth cut before the icrc", cnp[:14+20+8+14], 14 + 20 + 8 + 14, "bth",
			map[string]any{"opcode": 129.0, "psn": 0.0},
			[]string{"icrc", "icrc_ok"}, "[truncated at octet 56]", "bth.icrc"},
		// The capture cut the RETH: the BTH's 12 octets are all there,
		// but the ICRC, the packet's last 4 octets, is not (it was read
		// from the RETH's octets).
		{"write cut in the reth", mustHex(t, "020000000002 020000000001 0800 4500005000000000401100000a0000010a000002 c00012b7003c0000 0a40ffff000000d2800003e8 00000000000010000000000100000010 0000000000000000000000000000000000000000 01020304")[:64], 64, "bth",
			map[string]any{"opcode": 10.0, "psn": 1000.0, "destqp": 210.0}, []string{"icrc", "icrc_ok"}, "[truncated at octet 64]", "bth.icrc"},
		{"bts cut after the reporter", mustHex(t, "020000000002 020000000001 0800 45c0002600000000401165ef0a0000020a000001 c00003fd00120000 1100001400000007"), 14 + 20 + 8 + 8, "bts",
			map[string]any{"version": 1.0, "cacheable": true, "origin": "queue", "pause_us": 20.0, "reporter": 7.0},
			[]string{"cp_port", "cp_queue", "queue_depth", "quote_len"}, "[truncated at octet 50]", "bts.cp_port"},
		{"cim cut in the sa", mustHex(t, "020000000002 020000000001 89a2 03 020000000002 0200000000"), 14 + 12, "cim",
			map[string]any{"version": 0.0, "add": true, "ext": true, "da": "02:00:00:00:00:02"},
			[]string{"sa", "vid", "msdu_len"}, "[truncated at octet 26]", "cim.sa"},
		{"pause cut at 17", mustHex(t, "0180c2000001 020000000001 8808 0001 ff"), 17, "pause",
			map[string]any{"opcode": 1.0}, []string{"quanta", "pause_ns"}, "[truncated at octet 17]", "pause.quanta"},
		{"ipv4 cut in the src", cnp[:14+14], 14 + 14, "ip",
			map[string]any{"version": 4.0, "dscp": 48.0, "ttl": 64.0, "proto": 17.0}, []string{"src", "dst"}, "[truncated at octet 28]", "ip.src"},
		{"udp cut in the dport", cnp[:14+20+3], 14 + 20 + 3, "udp",
			map[string]any{"sport": 49152.0}, []string{"dport"}, "[truncated at octet 37]", "udp.dport"},
		{"ipv6 cut in the dst", mustHex(t, "020000000002 020000000001 86dd 6b800000 00300640 20010db8000000000000000000000001 20010db8"), 14 + 28, "ip",
			map[string]any{"version": 6.0, "dscp": 46.0, "ttl": 64.0, "proto": 6.0, "src": "2001:db8::1"}, []string{"dst"}, "[truncated at octet 42]", "ip.dst"},
		{"bfc cut in filter_len", mustHex(t, "0180c200000e 020000000002 88b5 4643 0102 04 00 00"), 21, "bfc",
			map[string]any{"version": 2.0, "hashes": 4.0}, []string{"filter_len", "seq", "bits_set"}, "[truncated at octet 21]", "bfc.filter_len"},
		{"bfc cut in the seq", mustHex(t, "0180c200000e 020000000002 88b5 4643 0102 04 00 0080 0000"), 24, "bfc",
			map[string]any{"version": 2.0, "hashes": 4.0, "filter_len": 128.0}, []string{"seq", "bits_set"}, "[truncated at octet 24]", "bfc.seq"},
		{"fgcredit cut in the count", mustHex(t, "0180c200000e 020000000002 88b5 4643 0201 04 00 00"), 21, "fgcredit",
			map[string]any{"version": 1.0, "family": 4.0}, []string{"count"}, "[truncated at octet 21]", "fgcredit.count"},
		{"fgpause cut in the family", mustHex(t, "0180c200000e 020000000002 88b5 4643 0301"), 18, "fgpause",
			map[string]any{"version": 1.0}, []string{"family", "count"}, "[truncated at octet 18]", "fgpause.family"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Cut by the capture from a longer frame (caplen < len): the
			// same octets as a whole frame are a runt, malformed but not
			// truncated (TestRuntNotTruncated).
			f := decodeFrame(tc.data, len(tc.data)+64, 100e9)
			c, ok := CutOf(f)
			if !ok || c.At != tc.at {
				t.Fatalf("CutOf = %+v, %v; want at %d (err %v)", c, ok, tc.at, f.Err)
			}
			var e Encoder
			var top map[string]any
			out := e.AppendJSON(nil, f)
			if err := json.Unmarshal(out, &top); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			js := map[string]map[string]any{}
			for k, v := range top {
				if m, ok := v.(map[string]any); ok {
					js[k] = m
				}
			}
			if js["frame"]["truncated"] != float64(tc.at) {
				t.Errorf("frame.truncated = %v: %s", js["frame"]["truncated"], out)
			}
			for k, v := range tc.present {
				if js[tc.proto][k] != v {
					t.Errorf("%s.%s = %v, want %v", tc.proto, k, js[tc.proto][k], v)
				}
			}
			for _, k := range tc.absent {
				if v, ok := js[tc.proto][k]; !ok || v != nil {
					t.Errorf("%s.%s = %v (present %v), want null", tc.proto, k, v, ok)
				}
				fd, _ := LookupField(tc.proto + "." + k)
				if vs := fd.Values(f, nil); len(vs) != 0 {
					t.Errorf("%s.%s has values %v", tc.proto, k, vs)
				}
			}
			s := string(AppendSummary(nil, f))
			if !strings.Contains(s, tc.text) {
				t.Errorf("summary %q lacks %q", s, tc.text)
			}
			// The line shows what the cut layer holds before the cut, and
			// nothing of what it does not.
			if tc.proto != "ip" && tc.proto != "udp" {
				for k, v := range tc.present {
					want := " " + k + "="
					if b, ok := v.(bool); ok && b {
						want = " " + k + " "
					}
					if !strings.Contains(s, want) {
						t.Errorf("summary %q lacks %q", s, want)
					}
				}
				for _, k := range tc.absent {
					if strings.Contains(s, " "+k+"=") {
						t.Errorf("summary %q shows %s, which the cut took", s, k)
					}
				}
			}
			tree := string(e.AppendTree(nil, f))
			if strings.Contains(tree, tc.not+":") || !strings.Contains(tree, "truncated at octet") {
				t.Errorf("tree shows %s or no cut:\n%s", tc.not, tree)
			}
		})
	}
	// A whole frame is not cut; a frame the capture cut (caplen < len)
	// is, at its caplen.
	if _, ok := CutOf(decodeFrame(full, len(full), 100e9)); ok {
		t.Error("whole frame cut")
	}
	if c, ok := CutOf(decodeFrame(full, 64, 100e9)); !ok || c.At != len(full) {
		t.Errorf("snapped frame: %+v %v", c, ok)
	}
}

// TestBogusIPv4HeaderLength: an IPv4 header length under 20 octets (IHL
// 3) in a whole frame shows the ip layer with the version and the header
// length, as tshark does ("Bogus IP header length (12, must be at least
// 20)": -T fields gives 4 and 12 and nothing else), every other field
// absent (null in JSON), and the frame malformed but not truncated.
func TestBogusIPv4HeaderLength(t *testing.T) {
	data := mustHex(t, "020000000002 020000000001 0800 4300003c1c4640004011b1e6c0a80001c0a80002 c35012b700280000"+strings.Repeat("00", 32))
	f := decodeFrame(data, len(data), 100e9)
	if f.Err == nil || !strings.Contains(f.Err.Error(), "bogus header length 12 octets") {
		t.Fatalf("error %v", f.Err)
	}
	for name, want := range map[string]string{"ip.version": "4", "ip.hdr_len": "12", "ip.src": "", "ip.len": "", "ip.proto": "", "ip.ttl": "", "udp.srcport": ""} {
		fd, ok := LookupField(name)
		if !ok {
			t.Fatalf("no field %s", name)
		}
		got := ""
		for _, v := range fd.Values(f, nil) {
			got += string(AppendValue(nil, v, false))
		}
		if got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	var e Encoder
	var top struct{ Frame, IP map[string]any }
	out := e.AppendJSON(nil, f)
	if err := json.Unmarshal(out, &top); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if _, cut := top.Frame["truncated"]; cut || top.IP["version"] != 4.0 || top.IP["src"] != nil {
		t.Errorf("JSON: %s", out)
	}
	if s := string(AppendSummary(nil, f)); !strings.Contains(s, "IP (bogus header length 12)") || strings.Contains(s, "truncated") {
		t.Errorf("summary %q", s)
	}
	if tree := string(e.AppendTree(nil, f)); !strings.Contains(tree, "ip.version: 4") || strings.Contains(tree, "truncated") || strings.Contains(tree, "ip.ttl:") {
		t.Errorf("tree:\n%s", tree)
	}
	// The capture cut it as well (caplen 40 of 74): truncated where the
	// capture cut, the fields still those of the bogus header.
	f = decodeFrame(data[:40], len(data), 100e9)
	if s := string(AppendSummary(nil, f)); !strings.Contains(s, "[truncated at octet 40]") {
		t.Errorf("cut bogus header: summary %q", s)
	}
	if fd, _ := LookupField("ip.src"); len(fd.Values(f, nil)) != 0 {
		t.Error("cut bogus header: ip.src present")
	}
}

// TestTruncatedEntries: a Floodgate frame the capture cut inside its
// entries keeps the entries it holds whole (and stats counts them); a
// BFC frame cut inside its filter keeps its header and has no bits_set.
func TestTruncatedEntries(t *testing.T) {
	dp := mustHex(t, "0180c200000e 020000000002 88b5 4643 0301 04 00 0002 01f4 0000 0a000002 02bc 0000 0a000003")
	f := decodeFrame(dp[:32], len(dp), 100e9) // the second entry cut after 2 octets
	if c, ok := CutOf(f); !ok || c.At != 32 {
		t.Fatalf("CutOf = %+v, %v", c, ok)
	}
	dst, _ := LookupField("fgpause.dst")
	pause, _ := LookupField("fgpause.pause_us")
	if d, p := dst.Values(f, nil), pause.Values(f, nil); len(d) != 1 || d[0].A.String() != "10.0.0.2" || len(p) != 1 || p[0].U != 500 {
		t.Errorf("entries of the cut frame: dst %v, pause %v; want the first whole entry, 10.0.0.2 500us", d, p)
	}
	// A whole BFC frame whose capture lacks only the FCS keeps bits_set.
	whole := append(mustHex(t, "0180c200000e 020000000002 88b5 4643 0102 04 00 0080 0000002a"), make([]byte, 128)...)
	whole[30] = 0xff
	if vs := mustField(t, "bfc.bits_set").Values(decodeFrame(whole, len(whole)+4, 100e9), nil); len(vs) != 1 || vs[0].U != 8 {
		t.Errorf("bfc.bits_set of a whole filter, FCS not captured: %v, want 8", vs)
	}
	bfc := mustHex(t, "0180c200000e 020000000002 88b5 4643 0102 04 00 0080 0000002a ffff0000")
	f = decodeFrame(bfc, len(bfc)+124, 100e9)
	for name, want := range map[string]int{"bfc.version": 2, "bfc.hashes": 4, "bfc.filter_len": 128, "bfc.seq": 42, "bfc.bits_set": -1} {
		fd, _ := LookupField(name)
		vs := fd.Values(f, nil)
		if want < 0 && len(vs) != 0 || want >= 0 && (len(vs) != 1 || vs[0].U != uint64(want)) {
			t.Errorf("%s of a BFC frame cut in its filter: %v, want %d (-1: none)", name, vs, want)
		}
	}
}

// TestPauseTime: PAUSE and PFC times are given in nanoseconds at the
// interface's speed, in every output; absent when the speed is unknown.
func TestPauseTime(t *testing.T) {
	full := mustHex(t, pfcFrame)
	for _, tc := range []struct {
		bps  uint64
		want string // pause_ns_c3 for 0xffff quanta
		us   string // in the summary
	}{{100e9, "335539", "335.539"}, {25e9, "1342156", "1342.156"}, {10e9, "3355392", "3355.392"}} {
		f := decodeFrame(full, len(full), tc.bps)
		var e Encoder
		if s := string(AppendSummary(nil, f)); !strings.Contains(s, "p3=65535 ("+tc.us+" us)") {
			t.Errorf("%d b/s: summary %q", tc.bps, s)
		}
		fd, _ := LookupField("pfc.pause_ns_c3")
		if got := string(e.AppendField(nil, f, fd)); got != tc.want {
			t.Errorf("%d b/s: pfc.pause_ns_c3 = %s, want %s", tc.bps, got, tc.want)
		}
		if js := string(e.AppendJSON(nil, f)); !strings.Contains(js, `"pause_ns_c3":`+tc.want) {
			t.Errorf("%d b/s: JSON %s", tc.bps, js)
		}
		if tree := string(e.AppendTree(nil, f)); !strings.Contains(tree, "pfc.pause_ns_c3: "+tc.want+"\n") {
			t.Errorf("%d b/s: tree\n%s", tc.bps, tree)
		}
	}
	f := decodeFrame(full, len(full), 0)
	if js := string(new(Encoder).AppendJSON(nil, f)); strings.Contains(js, "pause_ns") {
		t.Errorf("speed unknown: %s", js)
	}
}

// TestNoTimestamp: a frame without a timestamp (zero Time: a pcapng
// simple packet block) has "time":null in JSON and no frame.time_epoch
// (empty in -T fields, no match in filters); one with a time has both.
func TestNoTimestamp(t *testing.T) {
	full := mustHex(t, pfcFrame)
	fd, _ := LookupField("frame.time_epoch")
	var e Encoder
	f := decodeFrame(full, len(full), 100e9)
	if js := string(e.AppendJSON(nil, f)); !strings.HasPrefix(js, `{"frame":{"number":1,"time":null,"interface":0,`) {
		t.Errorf("no time: JSON %s", js)
	}
	if got := string(e.AppendField(nil, f, fd)); got != "" {
		t.Errorf("no time: frame.time_epoch = %q", got)
	}
	f.Time = time.Unix(1_700_000_000, 5).UTC()
	if js := string(e.AppendJSON(nil, f)); !strings.HasPrefix(js, `{"frame":{"number":1,"time":"2023-11-14T22:13:20.000000005Z","interface":0,`) {
		t.Errorf("time: JSON %s", js)
	}
	if got := string(e.AppendField(nil, f, fd)); got != "1700000000.000000005" {
		t.Errorf("time: frame.time_epoch = %q", got)
	}
}

// TestIPv6ExtFields: with extension headers, ip.proto names the upper
// layer (it said 0 behind Hop-by-Hop), and ipv6ext lists each header with
// its own fields (JSON: one entry per header; the tree: one subtree per
// header; ESP's entry has no nxt).
func TestIPv6ExtFields(t *testing.T) {
	raw, err := os.ReadFile("../layers/testdata/ipv6ext/frames.txt")
	if err != nil {
		t.Fatal(err)
	}
	frames := map[string][]byte{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		w := strings.Fields(line)
		frames[w[0]] = mustHex(t, w[5])
	}
	var e Encoder
	for name, want := range map[string][]string{
		"hbh-roce": {`"ip":{"version":6`, `"proto":17}`, `"ipv6ext":{"entries":[{"header":"hopopts","nxt":17,"len":8}]}`, `"bth":{"opcode":10`},
		"rfc8200-order-cnp": {`"proto":17}`, `{"header":"routing","nxt":44,"len":40,"routing_type":4,"segleft":1,"srh_last_entry":1,"srh_flags":0,"srh_tag":0}`,
			`{"header":"fragment","nxt":51,"len":8,"frag_offset":0,"frag_more":false,"frag_id":7}`, `{"header":"ah","nxt":60,"len":24,"ah_spi":4660,"ah_seq":9}`,
			`"cnp":{"destqp":43981}`},
		"esp":           {`"proto":50}`, `{"header":"esp","len":`, `"esp_spi":16962`, `"warnings":["ipv6ext: ESP: the rest of the packet is encrypted, not decoded"]`},
		"nonfirst-frag": {`"proto":17}`, `"frag_offset":64,"frag_more":false`},
	} {
		f := decodeFrame(frames[name], len(frames[name]), 0)
		js := string(e.AppendJSON(nil, f))
		for _, w := range want {
			if !strings.Contains(js, w) {
				t.Errorf("%s: JSON lacks %s:\n%s", name, w, js)
			}
		}
		if strings.Contains(name, "frag") && strings.Contains(js, `"bth"`) {
			t.Errorf("%s: a fragment decoded as RoCEv2", name)
		}
	}
	// The one-line summary says what a fragment or ESP is.
	for name, want := range map[string]string{
		"nonfirst-frag":   "fd00::1 > fd00::2  fragment offset 64 id 0x5 proto 17",
		"first-frag-roce": "fd00::1 > fd00::2  fragment offset 0 more id 0x5 proto 17",
		"esp":             "fd00::1 > fd00::2  ESP spi 0x4242 seq 1, encrypted [1 warning]",
	} {
		f := decodeFrame(frames[name], len(frames[name]), 0)
		if got := string(AppendSummary(nil, f)); got != want {
			t.Errorf("%s: summary %q, want %q", name, got, want)
		}
	}
	f := decodeFrame(frames["srh-roce"], len(frames["srh-roce"]), 0)
	if tree := string(e.AppendTree(nil, f)); !strings.Contains(tree, "    ipv6ext\n        header 1\n            ipv6ext.header: routing\n") ||
		!strings.Contains(tree, "            ipv6ext.routing_type: 4\n") {
		t.Errorf("tree:\n%s", tree)
	}
}

// TestSnappedICRC: a RoCEv2 frame the capture cut (caplen < len, no decode
// error) has no ICRC: bth.icrc and icrc_ok are absent and there is no ICRC
// warning, where the last captured octets used to be read as a bad ICRC.
func TestSnappedICRC(t *testing.T) {
	raw, err := os.ReadFile("../layers/testdata/ipv6ext/frames.txt")
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Fields(strings.SplitN(string(raw), "\n", 2)[0]) // plain-roce: a WRITE of 8 octets, ICRC 01020304 (not the right one)
	frame := mustHex(t, w[5])
	var e Encoder
	whole := decodeFrame(frame, len(frame), 100e9)
	if js := string(e.AppendJSON(nil, whole)); !strings.Contains(js, `"icrc_ok":false`) || !strings.Contains(js, "ICRC mismatch") {
		t.Errorf("whole: %s", js)
	}
	f := decodeFrame(frame[:len(frame)-6], len(frame), 100e9)
	js := string(e.AppendJSON(nil, f))
	if !strings.Contains(js, `"icrc":null,"icrc_ok":null`) || strings.Contains(js, "ICRC mismatch") || !strings.Contains(js, `"truncated":`) {
		t.Errorf("snapped: %s", js)
	}
	if s := string(AppendSummary(nil, f)); strings.Contains(s, "bad ICRC") || strings.Contains(s, "warning") || !strings.Contains(s, "[truncated at octet 96]") {
		t.Errorf("summary %q", s)
	}
}

// TestSnappedMACControl: a PAUSE or PFC frame cut by the capture's snap
// length is not "shorter than 46 octets" (the frame was 60 on the wire;
// the capture says it is truncated); one that is short on the wire is.
func TestSnappedMACControl(t *testing.T) {
	pause := append(mustHex(t, "0180c2000001 020000000002 8808 0001 0064"), make([]byte, 42)...)
	pfc := append(mustHex(t, "0180c2000001 020000000002 8808 0101 0008 0000 0000 0000 ffff"), make([]byte, 28)...)
	var e Encoder
	for _, c := range []struct {
		name      string
		data      []byte
		orig      int
		wantShort bool
	}{
		{"pause snapped at 20", pause[:20], 60, false},
		{"pause snapped at 50", pause[:50], 60, false},
		{"pause whole", pause, 60, false},
		{"pause short on the wire", pause[:20], 20, true},
		{"pfc snapped at 40", pfc[:40], 60, false},
		{"pfc short on the wire", pfc[:40], 40, true},
		{"pfc short on the wire and snapped", pfc[:34], 40, true},
	} {
		f := decodeFrame(c.data, c.orig, 100e9)
		js := string(e.AppendJSON(nil, f))
		short := strings.Contains(js, "shorter than 46")
		sum := string(AppendSummary(nil, f))
		if short != c.wantShort || strings.Contains(sum, "warning") != c.wantShort || (countWarnings(f) > 0) != c.wantShort {
			t.Errorf("%s: json %s; summary %q; %d warnings", c.name, js, sum, countWarnings(f))
		}
	}
}

// TestSLLFieldsTshark: the sll fields of tcpdump -i any captures (SLL and
// SLL2, of Ethernet and IPoIB interfaces) and of SLL headers of every
// address length, over 8 too, agree with tshark's,
// by Wireshark's names as sfcdump -T fields prints them (TsharkStyleOf):
// sll.etype in hex (it printed 34824 for 0x8808), sll.halen, the address
// by its length (sll.src.eth, .ipv4, .other), sll.unused and sll.ltype,
// which were unknown.
func TestSLLFieldsTshark(t *testing.T) {
	bin := tsharktest.Path(t)
	names := []string{"sll.pkttype", "sll.hatype", "sll.halen", "sll.src.eth", "sll.src.ipv4", "sll.src.other",
		"sll.unused", "sll.etype", "sll.ltype", "sll.ifindex"}
	// SLL headers of address lengths 6, 4, 8, 0 and 3, and one whose
	// protocol is a Linux type (0x0004: 802.2), not an EtherType.
	ipUDP := "4500002400010000401166c50a0000010a000002000100020010000061616161616161616"
	crafted := []string{
		"0000000100060200000000010000" + "0800" + ipUDP + "1",
		"0004000100040a00000100000000" + "0800" + ipUDP + "1",
		"0000030800040a00000100000000" + "0800" + ipUDP + "1",
		"0000000100080102030405060708" + "0800" + ipUDP + "1",
		"0000000100000000000000000000" + "0800" + ipUDP + "1",
		"000000200003aabbcc0000000000" + "0800" + ipUDP + "1",
		"0000000100060200000000010000" + "0004" + "424203" + strings.Repeat("00", 35),
		// Longer than the 8-octet field: IPoIB's 20 (ARPHRD_INFINIBAND),
		// 9, and the most the field can say; tshark shows the 8 kept.
		"00000020001480000048fe800000" + "0800" + ipUDP + "1",
		"000000010009aabbccddeeff0011" + "0800" + ipUDP + "1",
		"00040001ffff0102030405060708" + "0800" + ipUDP + "1",
	}
	dir := t.TempDir()
	var frames [][]byte
	for _, h := range crafted {
		frames = append(frames, mustHex(t, h))
	}
	writePcap(t, dir+"/crafted.pcap", 113, frames...)
	for _, file := range []string{"../layers/testdata/link/sll.pcap", "../layers/testdata/link/sll2.pcap",
		"../layers/testdata/link/sll-ipoib.pcap", "../layers/testdata/link/sll2-ipoib.pcap", dir + "/crafted.pcap"} {
		want := tsharktest.FieldLines(t, bin, file, names)
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		r, err := pcapgo.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; ; i++ {
			data, _, err := r.ReadPacketData()
			if err != nil {
				break
			}
			p := layers.NewParser()
			fr := &Frame{Len: len(data), CapLen: len(data), P: p}
			fr.Err = p.DecodeLink(r.LinkType(), data)
			var got []string
			for _, name := range names {
				got = append(got, tsharkText(t, fr, name))
			}
			if i >= len(want) || strings.Join(got, "\t") != want[i] {
				t.Errorf("%s frame %d:\n ours   %q\n tshark %q", file, i+1, strings.Join(got, "\t"), want[min(i, len(want)-1)])
			}
		}
		f.Close()
	}
}

// tsharkText renders field name of fr as sfcdump -T fields does for a
// Wireshark name (TsharkStyleOf, AppendTshark, values joined by commas).
func tsharkText(t *testing.T, fr *Frame, name string) string {
	t.Helper()
	fd, ok := LookupField(name)
	if !ok {
		t.Fatalf("unknown field %s", name)
	}
	st, _ := TsharkStyleOf(name)
	var b []byte
	for i, v := range fd.Values(fr, nil) {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendTshark(b, v, st)
	}
	return string(b)
}

// writePcap writes frames, whole, as a pcap of link type lt.
func writePcap(t *testing.T, path string, lt int, frames ...[]byte) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := pcapgo.NewWriter(f)
	if err := w.WriteFileHeader(65535, glayers.LinkType(lt)); err != nil {
		t.Fatal(err)
	}
	for i, d := range frames {
		ci := gopacket.CaptureInfo{Timestamp: time.Unix(1767225600+int64(i), 0), CaptureLength: len(d), Length: len(d)}
		if err := w.WritePacket(ci, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestIPv6ExtTshark: the ipv6ext fields of the scapy goldens agree with
// tshark's ipv6.routing.*, ipv6.fraghdr.*, ah.* and esp.* (first
// occurrence; tshark's fragment offset counts 8-octet units, ours octets).
func TestIPv6ExtTshark(t *testing.T) {
	bin := tsharktest.Path(t)
	out, err := exec.Command(bin, "-r", "../layers/testdata/ipv6ext/frames.pcap", "-T", "fields", "-E", "occurrence=f",
		"-e", "ipv6.routing.type", "-e", "ipv6.routing.segleft", "-e", "ipv6.fraghdr.offset", "-e", "ipv6.fraghdr.more",
		"-e", "ipv6.fraghdr.ident", "-e", "ah.spi", "-e", "ah.sequence", "-e", "esp.spi", "-e", "esp.sequence").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	raw, err := os.ReadFile("../layers/testdata/ipv6ext/frames.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d frames, tshark %d lines", len(lines), len(want))
	}
	for i, line := range lines {
		w := strings.Fields(line)
		data := mustHex(t, w[5])
		f := decodeFrame(data, len(data), 0)
		var got []string
		for _, name := range []string{"routing_type", "segleft", "frag_offset", "frag_more", "frag_id", "ah_spi", "ah_seq", "esp_spi", "esp_seq"} {
			fd, _ := LookupField("ipv6ext." + name)
			vs := fd.Values(f, nil)
			if len(vs) == 0 {
				got = append(got, "")
				continue
			}
			v := vs[0].U
			switch name {
			case "frag_offset":
				got = append(got, fmt.Sprint(v/8))
			case "frag_id", "ah_spi", "esp_spi":
				got = append(got, fmt.Sprintf("0x%08x", v))
			default:
				got = append(got, fmt.Sprint(v))
			}
		}
		if g := strings.Join(got, "\t"); g != want[i] {
			t.Errorf("%s: ours %q, tshark %q", w[0], g, want[i])
		}
	}
}

// TestCutOffsetEveryOctet (docs/decisions.md, "Truncated frames"): a frame
// is marked at its first missing octet, wherever the cut falls. Every
// sample frame (one of each format) and every IPv6 extension header frame
// is cut at every octet: cut by the capture (caplen < len), the mark is
// the caplen; ending there (caplen == len), a layer that ran out of data
// marks it at the same octet, and a cut inside the fixed header of any of
// our protocols is always reported. It used to be the first octet of the
// field the cut fell in (a PFC of 25 octets said 24).
func TestCutOffsetEveryOctet(t *testing.T) {
	type named struct {
		name string
		data []byte
	}
	var all []named
	for _, sf := range sample.Frames() {
		all = append(all, named{sf.Name, sf.Data})
	}
	raw, err := os.ReadFile("../layers/testdata/ipv6ext/frames.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		w := strings.Fields(line)
		all = append(all, named{"ipv6ext " + w[0], mustHex(t, w[5])})
	}
	for _, fr := range readTable(t, ah4Table) {
		all = append(all, named{"ipv4ah " + fr.name, fr.data})
	}
	// The fixed header of each of our protocols: a cut inside it is a cut
	// of that layer even when the frame ends there, from the octet that
	// names the protocol on (a MAC Control opcode of one octet is
	// MACControl's cut; a 0x88B5 body shorter than its 4-octet common
	// header is an unknown payload, not ours).
	type hdr struct{ from, n int }
	hdrLen := map[gopacket.LayerType]hdr{
		layers.LayerTypePause: {2, 4}, layers.LayerTypePFC: {2, 20}, layers.LayerTypeBTH: {1, 16}, layers.LayerTypeBTS: {1, 16},
		layers.LayerTypePostcard: {1, 36}, layers.LayerTypeCIM: {1, 17}, layers.LayerTypeBFC: {4, 12},
		layers.LayerTypeFGCredit: {4, 8}, layers.LayerTypeFGPause: {4, 8},
		glayers.LayerTypeIPSecAH: {1, 12}, glayers.LayerTypeIPSecESP: {1, 8},
	}
	protos := 0
	for _, fr := range all {
		full := decodeFrame(fr.data, len(fr.data), 0)
		if full.Err != nil {
			t.Fatalf("%s: %v", fr.name, full.Err)
		}
		// The octets strictly inside one of our fixed headers.
		inside := map[int]gopacket.LayerType{}
		for _, lt := range full.P.Decoded {
			h, ok := hdrLen[lt]
			if !ok {
				continue
			}
			protos++
			start := cap(fr.data) - cap(full.P.Layer(lt).(gopacket.Layer).LayerContents())
			for c := start + h.from; c < start+h.n; c++ {
				inside[c] = lt
			}
			if h.from == 2 {
				inside[start+1] = layers.LayerTypeMACControl
			}
		}
		for n := 1; n < len(fr.data); n++ {
			data := fr.data[:n:n]
			if c, ok := CutOf(decodeFrame(data, len(fr.data), 0)); !ok || c.At != n {
				t.Errorf("%s: caplen %d of %d: CutOf = %+v, %v; want at %d", fr.name, n, len(fr.data), c, ok, n)
			}
			f := decodeFrame(data, n, 0)
			c, ok := CutOf(f)
			if ok && c.At != n {
				t.Errorf("%s: ends at %d: CutOf = %+v, want at %d (err %v)", fr.name, n, c, n, f.Err)
			}
			if lt, in := inside[n]; in && (!ok || c.Layer != lt) {
				t.Errorf("%s: ends at %d, inside the %v header: CutOf = %+v, %v (err %v)", fr.name, n, lt, c, ok, f.Err)
			}
			if ok {
				// Whole as captured (caplen = len): a runt, malformed, not
				// cut by the capture; the same octets snapped from the
				// whole frame are truncated.
				var e Encoder
				if s := string(AppendSummary(nil, f)); strings.Contains(s, "truncated at") || !strings.Contains(s, "[malformed: ") {
					t.Errorf("%s: ends at %d: summary %q", fr.name, n, s)
				}
				if js := string(e.AppendJSON(nil, f)); strings.Contains(js, `"truncated"`) {
					t.Errorf("%s: ends at %d: JSON %s", fr.name, n, js)
				}
				snapped := decodeFrame(data, len(fr.data), 0)
				if s := string(AppendSummary(nil, snapped)); !strings.Contains(s, fmt.Sprintf("[truncated at octet %d]", n)) {
					t.Errorf("%s: caplen %d of %d: summary %q", fr.name, n, len(fr.data), s)
				}
				if js := string(e.AppendJSON(nil, snapped)); !strings.Contains(js, fmt.Sprintf(`"truncated":%d}`, n)) {
					t.Errorf("%s: caplen %d of %d: JSON %s", fr.name, n, len(fr.data), js)
				}
			}
		}
	}
	if protos < len(sample.Frames()) {
		t.Errorf("only %d fixed headers cut", protos)
	}
}

// TestCutByOuterLength: a layer whose data ends inside its fixed header
// because the UDP length (or the IP length) left it short, with more octets
// in the frame after that end (Ethernet padding), is marked where its data
// ended: the end of the enclosing length, the first octet it needed and
// was not given, not the frame's end nor the cut field's first octet.
func TestCutByOuterLength(t *testing.T) {
	cnp := mustHex(t, "020000000002 020000000001 0800 45c0003c00000000401165ef0a0000010a000002 c00012b700280000 8100ffff400000d200000000 00000000000000000000000000000000 5c763923")
	for _, have := range []int{1, 5, 9, 10, 12, 14} {
		frame := append([]byte(nil), cnp...)
		frame[14+3] = byte(20 + 8 + have) // IPv4 total length
		frame[14+20+5] = byte(8 + have)   // UDP length
		f := decodeFrame(frame, len(frame), 0)
		c, ok := CutOf(f)
		if want := 14 + 20 + 8 + have; !ok || c.At != want || c.Layer != layers.LayerTypeBTH || c.Have != have {
			t.Errorf("BTH given %d octets: CutOf = %+v, %v; want at %d (err %v)", have, c, ok, want, f.Err)
		}
	}
}

// TestFieldBitsNamed: every name of the width table is a field.
func TestFieldBitsNamed(t *testing.T) {
	for name, bits := range fieldBits {
		fd, ok := LookupField(name)
		if !ok || fd.Bits != bits || fd.Kind != KindUint {
			t.Errorf("%s: %v %+v", name, ok, fd)
		}
	}
}

// TestQuantaNSNoOverflow: a sum of quanta far past 2^64 / (512 × 10^9)
// (1000 frames of 0xFFFF, as stats adds up a PFC storm) converts right.
func TestQuantaNSNoOverflow(t *testing.T) {
	if got, want := QuantaNS(1000*0xffff, 100e9), uint64(335539200); got != want {
		t.Errorf("QuantaNS(1000 × 0xFFFF, 100G) = %d, want %d", got, want)
	}
	if got := QuantaNS(0xffff, 25e9); got != 1342156 {
		t.Errorf("QuantaNS(0xFFFF, 25G) = %d", got)
	}
}

// TestQinQTags: a frame with two VLAN tags has both, outer first, in
// eth.vlan and eth.pcp; Wireshark's vlan.id and vlan.priority are its
// 802.1Q (0x8100) tags and those of the pre-802.1ad QinQ TPID 0x9100, so
// an 802.1ad S-tag (0x88A8) is left out of them, as tshark leaves it to
// ieee8021ad (tshark 4.0 on these frames: layers/testdata/vlan9100.pcap).
func TestQinQTags(t *testing.T) {
	cnp := "45c0003c00000000401165ef0a0000010a000002 c00012b700280000 8100ffff400000d200000000 00000000000000000000000000000000 5c763923"
	for _, tc := range []struct {
		name, hex        string
		vlan, pcp, wsIDs []uint64
	}{
		{"8100 8100", "020000000002 020000000001 8100 6005 8100 2006 0800 " + cnp, []uint64{5, 6}, []uint64{3, 1}, []uint64{5, 6}},
		{"88a8 8100", "020000000002 020000000001 88a8 6005 8100 2006 0800 " + cnp, []uint64{5, 6}, []uint64{3, 1}, []uint64{6}},
		{"8100", "020000000002 020000000001 8100 e064 0800 " + cnp, []uint64{100}, []uint64{7}, []uint64{100}},
		{"9100", "020000000002 020000000001 9100 a00a 0800 " + cnp, []uint64{10}, []uint64{5}, []uint64{10}},
		{"9100 8100", "020000000002 020000000001 9100 6005 8100 2006 0800 " + cnp, []uint64{5, 6}, []uint64{3, 1}, []uint64{5, 6}},
		{"8100 9100", "020000000002 020000000001 8100 6005 9100 2006 0800 " + cnp, []uint64{5, 6}, []uint64{3, 1}, []uint64{5, 6}},
		{"88a8 9100", "020000000002 020000000001 88a8 6005 9100 2006 0800 " + cnp, []uint64{5, 6}, []uint64{3, 1}, []uint64{6}},
	} {
		f := decodeFrame(mustHex(t, tc.hex), 0, 100e9)
		f.Len = f.CapLen
		if f.Err != nil {
			t.Fatalf("%s: %v", tc.name, f.Err)
		}
		for name, want := range map[string][]uint64{"eth.vlan": tc.vlan, "eth.pcp": tc.pcp, "vlan.id": tc.wsIDs} {
			fd, _ := LookupField(name)
			var got []uint64
			for _, v := range fd.Values(f, nil) {
				got = append(got, v.U)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: %s = %v, want %v", tc.name, name, got, want)
			}
		}
	}
}

func mustField(t *testing.T, name string) *Field {
	t.Helper()
	fd, ok := LookupField(name)
	if !ok {
		t.Fatalf("no field %s", name)
	}
	return fd
}

// TestQuoteLenOfCutQuote: a BTS or postcard that the capture cut inside
// its quote has no quote_len (its length on the wire is unknown); whole,
// it has its quote's.
func TestQuoteLenOfCutQuote(t *testing.T) {
	for _, sf := range sample.Frames() {
		proto := ""
		switch {
		case strings.HasPrefix(sf.Name, "BTS from the congestion point"):
			proto = "bts"
		case sf.Name == "PB-FS CC-postcard, IPv4":
			proto = "postcard"
		default:
			continue
		}
		fd := mustField(t, proto+".quote_len")
		if vs := fd.Values(decodeFrame(sf.Data, len(sf.Data), 100e9), nil); len(vs) != 1 || vs[0].U == 0 {
			t.Errorf("%s whole: quote_len %v", sf.Name, vs)
		}
		cut := sf.Data[:len(sf.Data)-10]
		if vs := fd.Values(decodeFrame(cut, len(sf.Data), 100e9), nil); len(vs) != 0 {
			t.Errorf("%s cut in its quote: quote_len %v, want none", sf.Name, vs)
		}
	}
}

// TestLengthFieldWarnings: a whole frame whose IPv4 total length or UDP
// length counts more octets than it holds is decoded from what is there,
// with a warning per lying field (tshark: "BAD UDP LENGTH 40 > IP PAYLOAD
// LENGTH", malformed); a frame the capture cut short is not warned of (its
// capture explains the shortfall), nor is one with Ethernet padding.
func TestLengthFieldWarnings(t *testing.T) {
	// IPv4 total length 60 (40 present), UDP length 40 (8 present), port 5000.
	lying := mustHex(t, "020000000002 020000000001 0800 4500003c00000000401100000a0000010a000002 c350138800280000"+strings.Repeat("00", 12))
	for _, tc := range []struct {
		name   string
		data   []byte
		origin int
		want   string
	}{
		{"whole frame, lying lengths", lying, len(lying), "ip: length field counts more octets than the frame holds\nudp: length field counts more octets than the frame holds\n"},
		{"cut by the capture", lying, 200, ""},
		{"padded", mustHex(t, "020000000002 020000000001 0800 4500001c00000000401100000a0000010a000002 c350138800080000"+strings.Repeat("00", 18)), 60, ""},
	} {
		f := decodeFrame(tc.data, tc.origin, 100e9)
		if got := string(AppendWarnings(nil, f, "", "\n")); got != tc.want {
			t.Errorf("%s: warnings %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestSLLSummaryNamesSource: a PFC frame of a Linux cooked capture (no
// Ethernet header) shows its source link address in the one-line summary,
// as tshark does ("02:00:00:00:00:02 →"); it showed none.
func TestSLLSummaryNamesSource(t *testing.T) {
	sll := mustHex(t, "0004 0001 0006 020000000002 0000 8808 0101 0008 0000 0000 0000 ffff"+strings.Repeat("00", 38))
	p := layers.NewParser()
	f := &Frame{Number: 1, Len: len(sll), CapLen: len(sll), P: p, LinkBPS: 100e9}
	f.Err = p.DecodeLink(113, sll)
	if s := string(AppendSummary(nil, f)); !strings.HasPrefix(s, "02:00:00:00:00:02 >  PFC p3=65535") {
		t.Errorf("summary %q (err %v)", s, f.Err)
	}
}

// TestLLCSummary: an 802.3 frame (STP: a length, not an EtherType, after
// the addresses) reads "802.3 LLC, length 39", not "ethertype 0x0".
func TestLLCSummary(t *testing.T) {
	stp := mustHex(t, "0180c2000000 02bb00000009 0027 424203"+strings.Repeat("00", 45))
	f := decodeFrame(stp, len(stp), 100e9)
	if s := string(AppendSummary(nil, f)); !strings.Contains(s, "802.3 LLC, length 39") {
		t.Errorf("summary %q", s)
	}
}
