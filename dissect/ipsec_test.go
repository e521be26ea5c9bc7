// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"os"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/pcapgo"

	"github.com/opensfc/sfc/internal/tsharktest"
	"github.com/opensfc/sfc/layers"
)

// tableFrame is one frame of a golden table of layers/testdata (name
// proto sport dport kind hex, as ipv6ext/frames.txt).
type tableFrame struct {
	name, kind string
	data       []byte
}

// readTable reads the golden table at path.
func readTable(t *testing.T, path string) []tableFrame {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []tableFrame
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		w := strings.Fields(line)
		out = append(out, tableFrame{w[0], w[4], mustHex(t, w[5])})
	}
	return out
}

const (
	ah4Table = "../layers/testdata/ipv4ah/frames.txt"
	ah4Pcap  = "../layers/testdata/ipv4ah/frames.pcap"
	ext6Pcap = "../layers/testdata/ipv6ext/frames.pcap"
)

// TestIPv4AHTshark: the IPv4 AH and ESP goldens show the AH (ah, by
// Wireshark's names: next_header, length, spi, sequence, icv) and what is
// behind it in the verbose tree, JSON and the summary, rendering without
// allocating; ip.proto stays the IPv4 header's 51 (50 for ESP), as
// tshark's; ESP ends decoding with its note. By Wireshark's names, the
// fields are tshark 4.0's, on these frames and on the IPv6 ones, whose AH
// and ESP are Wireshark's ah and esp too. Before, the frames were "IP
// proto 51" and had no ah.
func TestIPv4AHTshark(t *testing.T) {
	var e Encoder
	buf := make([]byte, 0, 1<<16)
	for _, fr := range readTable(t, ah4Table) {
		f := decodeFrame(fr.data, len(fr.data), 100e9)
		if f.Err != nil {
			t.Fatalf("%s: %v", fr.name, f.Err)
		}
		tree := string(e.AppendTree(nil, f))
		js := string(e.AppendJSON(nil, f))
		sum := string(AppendSummary(nil, f))
		behind := map[string]string{"roce": "bth", "bts": "bts", "postcard": "postcard", "cim": "cim"}[fr.kind]
		switch {
		case fr.kind == "frag":
			if strings.Contains(tree, "\n    ah\n") || !strings.Contains(sum, "fragment offset 0 more") {
				t.Errorf("%s: a fragment:\n%s%s", fr.name, sum, tree)
			}
		case fr.kind == "esp":
			if !strings.Contains(tree, "\n    esp\n        esp.spi: 0x4242\n        esp.sequence: 1\n") ||
				!strings.Contains(js, `"esp":{"spi":16962,"sequence":1}`) ||
				!strings.Contains(sum, "ESP spi 0x4242 seq 1, encrypted [1 warning]") ||
				!strings.Contains(tree, "warning: esp: ESP: the rest of the packet is encrypted, not decoded") {
				t.Errorf("%s: ESP:\n%s\n%s\n%s", fr.name, sum, js, tree)
			}
		default:
			if !strings.Contains(tree, "\n    ah\n        ah.next_header: ") || !strings.Contains(tree, "ah.spi: 0x") ||
				!strings.Contains(js, `"ah":{"next_header":`) || !strings.Contains(tree, "ip.proto: 51\n") ||
				strings.Contains(sum, "IP proto 51") {
				t.Errorf("%s: no AH:\n%s\n%s\n%s", fr.name, sum, js, tree)
			}
			if behind != "" && (!strings.Contains(tree, "\n    "+behind+"\n") || !strings.Contains(js, `"`+behind+`":{`)) {
				t.Errorf("%s: no %s behind the AH:\n%s\n%s", fr.name, behind, js, tree)
			}
		}
		if strings.Contains(tree, "icrc_ok") {
			t.Errorf("%s: ICRC checked behind an AH:\n%s", fr.name, tree)
		}
		render := func() {
			b := e.AppendJSON(buf[:0], f)
			b = AppendSummary(b, f)
			_ = e.AppendTree(b, f)
		}
		if n := testing.AllocsPerRun(20, render); n != 0 {
			t.Errorf("%s: %v allocations per render", fr.name, n)
		}
	}

	bin := tsharktest.Path(t)
	names := []string{"ah.spi", "ah.sequence", "ah.next_header", "ah.length", "ah.icv", "esp.spi", "esp.sequence",
		"udp.dstport", "infiniband.bth.destqp"}
	for _, file := range []string{ah4Pcap, ext6Pcap} {
		ns := names
		if file == ah4Pcap {
			ns = append([]string{"ip.proto"}, names...) // tshark's ip.proto is IPv4's only
		}
		compareTshark(t, bin, file, ns, func(name string, b []byte) string {
			if name == "ah.icv" {
				return strings.ReplaceAll(string(b), ":", "") // tshark prints octets without colons
			}
			return string(b)
		})
	}
}

// compareTshark compares the fields names of every frame of the capture
// file, as sfcdump -T fields prints them (each value through norm, when
// not nil), with tshark 4.0's.
func compareTshark(t *testing.T, bin, file string, names []string, norm func(name string, b []byte) string) {
	t.Helper()
	frames := readPcap(t, file)
	var ours []string
	for _, data := range frames {
		fr := decodeFrame(data, len(data), 100e9)
		var cols []string
		for _, name := range names {
			fd := mustField(t, name)
			st, _ := TsharkStyleOf(name)
			var vs []string
			for _, v := range fd.Values(fr, nil) {
				b := AppendTshark(nil, v, st)
				if norm == nil {
					vs = append(vs, string(b))
				} else {
					vs = append(vs, norm(name, b))
				}
			}
			cols = append(cols, strings.Join(vs, ","))
		}
		ours = append(ours, strings.Join(cols, "\t"))
	}
	theirs := tsharktest.FieldLines(t, bin, file, names, "-n", "-E", "occurrence=a", "-E", "aggregator=,")
	if len(theirs) != len(ours) {
		t.Fatalf("%s: tshark printed %d lines for %d frames", file, len(theirs), len(ours))
	}
	for i := range ours {
		if ours[i] != theirs[i] {
			t.Errorf("%s frame %d (%s):\n ours   %q\n tshark %q", file, i+1, strings.Join(names, " "), ours[i], theirs[i])
		}
	}
}

// TestAHCut: an IPv4 AH cut short keeps the fields it holds whole, the
// others absent (null in JSON), and the frame is marked truncated where
// the data ended; a frame ending where its AH should begin has no AH
// fields (not the previous frame's).
func TestAHCut(t *testing.T) {
	var roce []byte
	for _, fr := range readTable(t, ah4Table) {
		if fr.name == "ah-roce" {
			roce = fr.data
		}
	}
	const ahAt = 14 + 20
	var e Encoder
	for _, tc := range []struct {
		n    int
		want string // the ah object in JSON
	}{
		{0, `"ah":{"next_header":null,"length":null,"spi":null,"sequence":null,"icv":null}`},
		{1, `"ah":{"next_header":17,"length":null,"spi":null,"sequence":null,"icv":null}`},
		{9, `"ah":{"next_header":17,"length":4,"spi":4660,"sequence":null,"icv":null}`},
		// The fixed part whole, the ICV past the data: the length lies
		// (as an IPv6 extension header's), the frame is not cut.
		{12, `"ah":{"next_header":17,"length":4,"spi":4660,"sequence":9},`},
	} {
		// One parser: a whole AH decoded before, nothing of it may stay.
		p := layers.NewParser()
		_ = p.Decode(roce)
		// Cut by the capture (the frame was longer), but at 12: whole.
		f := &Frame{Number: 1, Len: len(roce), CapLen: ahAt + tc.n, P: p}
		if tc.n == 12 {
			f.Len = f.CapLen
		}
		f.Err = p.Decode(roce[: ahAt+tc.n : ahAt+tc.n])
		if js := string(e.AppendJSON(nil, f)); !strings.Contains(js, tc.want) || strings.Contains(js, `"truncated":`) != (tc.n < 12) {
			t.Errorf("AH cut at %d: %s, want %s", tc.n, js, tc.want)
		}
		if fd := mustField(t, "ah.spi"); len(fd.Values(f, nil)) != map[bool]int{true: 1, false: 0}[tc.n >= 8] {
			t.Errorf("AH cut at %d: ah.spi %v", tc.n, fd.Values(f, nil))
		}
	}
	// ICV cut by the capture: the fixed fields, no ICV.
	f := decodeFrame(roce[:ahAt+20], len(roce), 0)
	if js := string(e.AppendJSON(nil, f)); !strings.Contains(js, `"ah":{"next_header":17,"length":4,"spi":4660,"sequence":9}`) {
		t.Errorf("ICV cut: %s", js)
	}
}

// readPcap returns the frames of the pcap file.
func readPcap(t *testing.T, file string) [][]byte {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for {
		data, _, err := r.ReadPacketData()
		if err != nil {
			return out
		}
		out = append(out, data)
	}
}
