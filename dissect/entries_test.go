// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	glayers "github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/opensfc/sfc/internal/tsharktest"
)

// entryFrames are frames with several VLAN tags or IPv6 extension headers
// of one kind, each header or tag with its own values.
var entryFrames = []struct{ name, hex string }{
	// 802.1ad VID 10 PCP 5, then 802.1Q VID 20 PCP 3: an IPv4 RoCEv2 WRITE.
	{"qinq", "02000000000202000000000188a8a00a8100601408004500007c000100004011666e0a0000010a000002c00012b70068c9570a40ffff000000d2800003e80000000000001000000012340000004000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000deadbeef"},
	// Priority-tagged: VID 0, PCP 3.
	{"prio", "0200000000020200000000018100600008004500007c000100004011666e0a0000010a000002c00012b70068c9570a40ffff000000d2800003e80000000000001000000012340000004000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000deadbeef"},
	// Three 802.1Q tags (30, 40, 50), DEI set on the second: IPv6 RoCEv2.
	{"three", "0200000000020200000000018100001e810010288100003286dd6000000000681140fd000000000000000000000000000001fd000000000000000000000000000002c00012b70068e3550a40ffff000000d2800003e80000000000001000000012340000004000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000deadbeef"},
	// PFC behind an 802.1Q tag (VID 7).
	{"pfc", "0180c200000102000000000281000007880801010008000000000000ffff000000000000000000000000000000000000000000000000000000000000"},
	// Routing type 0 (segments left 1), Destination Options, a Segment
	// Routing Header (type 4, segments left 1, last entry 1, tag 0x1234).
	{"rh0-srh", "02000000000202000000000186dd6000000000b02b40fd000000000000000000000000000001fd0000000000000000000000000000023c02000100000000fd0000000000000000000000000000092b000104000000001104040101001234fd000000000000000000000000000002fd000000000000000000000000000008c00112b70068e3540a40ffff000000d2800003e80000000000001000000012340000004000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000deadbeef"},
	// Two atomic Fragment headers, identifications 1 and 2.
	{"frag-frag", "02000000000202000000000186dd6000000000782c40fd000000000000000000000000000001fd0000000000000000000000000000022c000000000000011100000000000002c00112b70068e3540a40ffff000000d2800003e80000000000001000000012340000004000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000deadbeef"},
	// ESP (SPI 0x200, sequence 1) right after the IPv6 header.
	{"esp", "02000000000202000000000186dd6000000000703240fd000000000000000000000000000001fd0000000000000000000000000000020000020000000001c00112b7006800000a40ffff000000d2800003e80000000000001000000012340000004000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000deadbeef"},
}

// TestEntriesShown: every VLAN tag (outer first) and every IPv6 extension
// header is its own subtree of the verbose tree and its own entry in
// JSON, with its own fields: the second Routing header's type 4 and the
// second Fragment header's identification 2 are there, ESP's entry has no
// next header (it is in the encrypted trailer), and a frame without tags
// has no vlan. Rendering allocates nothing. Before, the tree and JSON had
// no VLAN tags at all, the tree grouped the extension headers' values by
// field, and only the first Routing and Fragment header had their fields.
func TestEntriesShown(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tree  []string // substrings of the verbose tree
		json  []string // substrings of JSON
		notJS []string
	}{
		{"qinq", []string{"    eth\n        eth.src: 02:00:00:00:00:01\n        eth.dst: 02:00:00:00:00:02\n        eth.type: 0x88a8\n" +
			"    vlan\n" +
			"        tag 1\n            vlan.tpid: 0x88a8\n            vlan.pcp: 5\n            vlan.dei: false\n            vlan.vid: 10\n            vlan.etype: 0x8100\n" +
			"        tag 2\n            vlan.tpid: 0x8100\n            vlan.pcp: 3\n            vlan.dei: false\n            vlan.vid: 20\n            vlan.etype: 0x800\n" +
			"    ip\n"},
			[]string{`"eth":{"src":"02:00:00:00:00:01","dst":"02:00:00:00:00:02","type":34984},"vlan":{"entries":[` +
				`{"tpid":34984,"pcp":5,"dei":false,"vid":10,"etype":33024},{"tpid":33024,"pcp":3,"dei":false,"vid":20,"etype":2048}]},"ip":{`}, nil},
		{"prio", []string{"    vlan\n        tag 1\n            vlan.tpid: 0x8100\n            vlan.pcp: 3\n            vlan.dei: false\n            vlan.vid: 0\n            vlan.etype: 0x800\n    ip\n"},
			[]string{`"vlan":{"entries":[{"tpid":33024,"pcp":3,"dei":false,"vid":0,"etype":2048}]}`}, nil},
		{"three", []string{"        tag 2\n            vlan.tpid: 0x8100\n            vlan.pcp: 0\n            vlan.dei: true\n            vlan.vid: 40\n            vlan.etype: 0x8100\n" +
			"        tag 3\n            vlan.tpid: 0x8100\n            vlan.pcp: 0\n            vlan.dei: false\n            vlan.vid: 50\n            vlan.etype: 0x86dd\n    ip\n"},
			[]string{`"vlan":{"entries":[{"tpid":33024,"pcp":0,"dei":false,"vid":30,"etype":33024},{"tpid":33024,"pcp":0,"dei":true,"vid":40,"etype":33024},{"tpid":33024,"pcp":0,"dei":false,"vid":50,"etype":34525}]}`}, nil},
		{"pfc", []string{"    vlan\n        tag 1\n            vlan.tpid: 0x8100\n            vlan.pcp: 0\n            vlan.dei: false\n            vlan.vid: 7\n            vlan.etype: 0x8808\n    pfc\n"},
			[]string{`"vlan":{"entries":[{"tpid":33024,"pcp":0,"dei":false,"vid":7,"etype":34824}]},"pfc":{`}, nil},
		{"rh0-srh", []string{"    ipv6ext\n" +
			"        header 1\n            ipv6ext.header: routing\n            ipv6ext.nxt: 60\n            ipv6ext.len: 24\n            ipv6ext.routing_type: 0\n            ipv6ext.segleft: 1\n" +
			"        header 2\n            ipv6ext.header: dstopts\n            ipv6ext.nxt: 43\n            ipv6ext.len: 8\n" +
			"        header 3\n            ipv6ext.header: routing\n            ipv6ext.nxt: 17\n            ipv6ext.len: 40\n            ipv6ext.routing_type: 4\n            ipv6ext.segleft: 1\n" +
			"            ipv6ext.srh_last_entry: 1\n            ipv6ext.srh_flags: 0x0\n            ipv6ext.srh_tag: 0x1234\n" +
			"    udp\n"},
			[]string{`"ipv6ext":{"entries":[{"header":"routing","nxt":60,"len":24,"routing_type":0,"segleft":1},{"header":"dstopts","nxt":43,"len":8},` +
				`{"header":"routing","nxt":17,"len":40,"routing_type":4,"segleft":1,"srh_last_entry":1,"srh_flags":0,"srh_tag":4660}]},"udp":{`}, []string{`"vlan"`}},
		{"frag-frag", []string{"    ipv6ext\n" +
			"        header 1\n            ipv6ext.header: fragment\n            ipv6ext.nxt: 44\n            ipv6ext.len: 8\n            ipv6ext.frag_offset: 0\n            ipv6ext.frag_more: false\n            ipv6ext.frag_id: 0x1\n" +
			"        header 2\n            ipv6ext.header: fragment\n            ipv6ext.nxt: 17\n            ipv6ext.len: 8\n            ipv6ext.frag_offset: 0\n            ipv6ext.frag_more: false\n            ipv6ext.frag_id: 0x2\n" +
			"    udp\n"},
			[]string{`"ipv6ext":{"entries":[{"header":"fragment","nxt":44,"len":8,"frag_offset":0,"frag_more":false,"frag_id":1},` +
				`{"header":"fragment","nxt":17,"len":8,"frag_offset":0,"frag_more":false,"frag_id":2}]},"udp":{`}, nil},
		{"esp", []string{"    ipv6ext\n        header 1\n            ipv6ext.header: esp\n            ipv6ext.len: 112\n            ipv6ext.esp_spi: 0x200\n            ipv6ext.esp_seq: 1\n    esp\n"},
			[]string{`"ipv6ext":{"entries":[{"header":"esp","len":112,"esp_spi":512,"esp_seq":1}]},"esp":{`}, []string{`"nxt"`}},
	} {
		var data []byte
		for _, fr := range entryFrames {
			if fr.name == tc.name {
				data = mustHex(t, fr.hex)
			}
		}
		f := decodeFrame(data, len(data), 100e9)
		if f.Err != nil {
			t.Fatalf("%s: %v", tc.name, f.Err)
		}
		var e Encoder
		tree, js := string(e.AppendTree(nil, f)), string(e.AppendJSON(nil, f))
		for _, w := range tc.tree {
			if !strings.Contains(tree, w) {
				t.Errorf("%s: the tree lacks\n%s\nin\n%s", tc.name, w, tree)
			}
		}
		for _, w := range tc.json {
			if !strings.Contains(js, w) {
				t.Errorf("%s: JSON lacks\n%s\nin\n%s", tc.name, w, js)
			}
		}
		for _, w := range tc.notJS {
			if strings.Contains(js, w) {
				t.Errorf("%s: JSON has %s:\n%s", tc.name, w, js)
			}
		}
		buf := make([]byte, 0, 1<<14)
		if n := testing.AllocsPerRun(20, func() { _ = e.AppendTree(e.AppendJSON(buf[:0], f), f) }); n != 0 {
			t.Errorf("%s: %v allocations per render", tc.name, n)
		}
	}
}

// TestEntryFieldValues: filters and -e take every entry's value, in
// order (ipv6ext.routing_type is 0 and 4, frag_id 1 and 2: they were the
// first header's alone), and ESP has no ipv6ext.nxt, so that
// "ipv6ext.nxt == 0" no longer matches an ESP packet. Wireshark's vlan.*
// (LookupField) stay Wireshark's, the 802.1Q tags alone; ours
// (OurField) are every tag's.
func TestEntryFieldValues(t *testing.T) {
	frames := map[string]*Frame{}
	for _, fr := range entryFrames {
		data := mustHex(t, fr.hex)
		frames[fr.name] = decodeFrame(data, len(data), 0)
	}
	var e Encoder
	for _, tc := range []struct {
		frame, field string
		ours         bool
		want         string
	}{
		{"rh0-srh", "ipv6ext.routing_type", true, "0,4"},
		{"rh0-srh", "ipv6ext.segleft", true, "1,1"},
		{"rh0-srh", "ipv6ext.srh_tag", true, "4660"},
		{"rh0-srh", "ipv6ext.nxt", true, "60,43,17"},
		{"frag-frag", "ipv6ext.frag_id", true, "1,2"},
		{"esp", "ipv6ext.nxt", true, ""},
		{"esp", "ipv6ext.esp_spi", true, "512"},
		{"qinq", "vlan.vid", true, "10,20"},
		{"qinq", "vlan.tpid", true, "34984,33024"},
		{"qinq", "vlan.dei", true, "false,false"},
		{"qinq", "vlan.etype", true, "33024,2048"},
		{"qinq", "vlan.id", false, "20"},
		{"qinq", "vlan.dei", false, "false"},
		{"qinq", "vlan.etype", false, "2048"},
		{"three", "vlan.pcp", true, "0,0,0"},
	} {
		fd, ok := OurField(tc.field)
		if !tc.ours {
			fd, ok = LookupField(tc.field)
		}
		if !ok {
			t.Fatalf("no field %s", tc.field)
		}
		if got := string(e.AppendField(nil, frames[tc.frame], fd)); got != tc.want {
			t.Errorf("%s: %s (ours %v) = %q, want %q", tc.frame, tc.field, tc.ours, got, tc.want)
		}
	}
	if !IsWiresharkName("vlan") || !IsWiresharkName("vlan.dei") || IsWiresharkName("vlan.vid") {
		t.Errorf("IsWiresharkName: vlan %v, vlan.dei %v, vlan.vid %v", IsWiresharkName("vlan"), IsWiresharkName("vlan.dei"), IsWiresharkName("vlan.vid"))
	}
	if p, _ := LookupProto("vlan"); p == byProto["vlan"] || p.Present(frames["rh0-srh"]) {
		t.Errorf("LookupProto(vlan) is ours")
	}
}

// TestEntriesTshark: the entries' values, header by header and tag by
// tag, are tshark 4.0's: a Routing header's type, Segments Left and (SRH)
// Last Entry, Flags and Tag (tshark's octets in hex), a Fragment header's identification and Next
// Header, ESP's SPI; an 802.1Q tag's priority, DEI, VLAN ID and the
// EtherType after it (vlan.*), an 802.1ad tag's priority, DEI and S-VID
// (ieee8021ad.*).
func TestEntriesTshark(t *testing.T) {
	bin := tsharktest.Path(t)
	file := filepath.Join(t.TempDir(), "entries.pcap")
	out, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	w := pcapgo.NewWriter(out)
	if err := w.WriteFileHeader(65535, glayers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	var frames []*Frame
	for _, fr := range entryFrames {
		data := mustHex(t, fr.hex)
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: time.Unix(0, 0), CaptureLength: len(data), Length: len(data)}, data); err != nil {
			t.Fatal(err)
		}
		frames = append(frames, decodeFrame(data, len(data), 0))
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	// Ours, each entry's value where the entry is of the kind: a Routing
	// header, a Fragment header, an 802.1Q tag, ...
	type col struct {
		tshark, ours string
		of           func(f *Frame, i int) bool
		octets       bool // tshark prints the field's octets in hex
	}
	hdr := func(typ uint8) func(f *Frame, i int) bool {
		return func(f *Frame, i int) bool { return f.P.IPv6Ext.Headers[i].Type == typ }
	}
	tag := func(ad bool) func(f *Frame, i int) bool {
		return func(f *Frame, i int) bool { return (f.P.Dot1Q.Tags[i].TPID == glayers.EthernetTypeQinQ) == ad }
	}
	cols := []col{
		{"ipv6.routing.type", "ipv6ext.routing_type", hdr(43), false},
		{"ipv6.routing.segleft", "ipv6ext.segleft", hdr(43), false},
		{"ipv6.routing.nxt", "ipv6ext.nxt", hdr(43), false},
		{"ipv6.routing.srh.last_entry", "ipv6ext.srh_last_entry", hdr(43), false},
		{"ipv6.routing.srh.flags", "ipv6ext.srh_flags", hdr(43), false},
		{"ipv6.routing.srh.tag", "ipv6ext.srh_tag", hdr(43), true},
		{"ipv6.fraghdr.ident", "ipv6ext.frag_id", hdr(44), false},
		{"ipv6.fraghdr.nxt", "ipv6ext.nxt", hdr(44), false},
		{"esp.spi", "ipv6ext.esp_spi", hdr(50), false},
		{"vlan.priority", "vlan.pcp", tag(false), false},
		{"vlan.dei", "vlan.dei", tag(false), false},
		{"vlan.id", "vlan.vid", tag(false), false},
		{"vlan.etype", "vlan.etype", tag(false), false},
		{"ieee8021ad.priority", "vlan.pcp", tag(true), false},
		{"ieee8021ad.dei", "vlan.dei", tag(true), false},
		{"ieee8021ad.id", "vlan.vid", tag(true), false},
	}
	var names []string
	for _, c := range cols {
		names = append(names, c.tshark)
	}
	theirs := tsharktest.FieldLines(t, bin, file, names, "-n", "-E", "occurrence=a", "-E", "aggregator=,")
	if len(theirs) != len(frames) {
		t.Fatalf("tshark printed %d lines for %d frames", len(theirs), len(frames))
	}
	// num reads a value as tshark or we print it: decimal, 0x hex, a
	// boolean.
	num := func(s string) string {
		switch s {
		case "true", "True":
			return "1"
		case "false", "False":
			return "0"
		}
		if strings.HasPrefix(s, "0x") {
			v, err := strconv.ParseUint(s[2:], 16, 64)
			if err == nil {
				return strconv.FormatUint(v, 10)
			}
		}
		if v, err := strconv.ParseUint(s, 10, 64); err == nil {
			return strconv.FormatUint(v, 10)
		}
		return s
	}
	for k, f := range frames {
		tcols := strings.Split(theirs[k], "\t")
		for j, c := range cols {
			fd, ok := OurField(c.ours)
			if !ok {
				t.Fatalf("no field %s", c.ours)
			}
			p := fd.Proto()
			var ours []string
			if p.Present(f) {
				for i := range p.entries(f) {
					if !c.of(f, i) {
						continue
					}
					if v, ok := fd.at(f, i); ok {
						ours = append(ours, num(string(AppendValue(nil, v, false))))
					}
				}
			}
			var ts []string
			if j < len(tcols) && tcols[j] != "" {
				for _, s := range strings.Split(tcols[j], ",") {
					if c.octets {
						s = "0x" + s
					}
					ts = append(ts, num(s))
				}
			}
			if strings.Join(ours, ",") != strings.Join(ts, ",") {
				t.Errorf("%s: %s %v, tshark's %s %v", entryFrames[k].name, c.ours, ours, c.tshark, ts)
			}
		}
	}
}
