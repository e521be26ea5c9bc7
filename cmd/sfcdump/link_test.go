// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/opensfc/sfc/pcapio"
	"github.com/opensfc/sfc/sample"
)

const linkDir = "../../layers/testdata/link/"

// TestLinkTypesEveryCommand: captures of `tcpdump -i any` (Linux SLL and
// SLL2) and raw IP decode in read (text, JSON, fields, a filter), stats,
// timeline, and survive -w with their link type.
func TestLinkTypesEveryCommand(t *testing.T) {
	for _, name := range []string{"sll.pcap", "sll2.pcap", "sll-ipoib.pcap", "sll2-ipoib.pcap", "raw.pcap", "ipv4.pcap", "ipv6.pcap"} {
		file := linkDir + name
		out, errs, code := sfcdump(t, "read", file)
		if code != 0 || !strings.Contains(out, "RoCEv2 RC WRITE Only qp 0x00abcd") && !strings.Contains(out, "BTS pause 20us") {
			t.Errorf("%s: read: %d %q\n%s", name, code, errs, out)
		}
		out, _, code = sfcdump(t, "read", "-T", "fields", "-e", "udp.dport", "-e", "bth.destqp", "-e", "flow.qp", "-Y", "bth || bts", file)
		if code != 0 || !strings.Contains(out, "4791\t43981\t") && !strings.Contains(out, "1021\t\t4660") {
			t.Errorf("%s: fields: %d\n%s", name, code, out)
		}
		out, _, code = sfcdump(t, "read", "-T", "json", "-c", "1", file)
		if code != 0 || strings.HasPrefix(name, "sll") != strings.Contains(out, `"sll":{"pkttype":`) || !strings.Contains(out, `"udp":{`) {
			t.Errorf("%s: json: %d\n%s", name, code, out)
		}
		out, errs, code = sfcdump(t, "stats", file)
		if code != 0 || !strings.Contains(out, "bts") && !strings.Contains(out, "bth") && !strings.Contains(out, "RoCE") {
			t.Errorf("%s: stats: %d %q\n%s", name, code, errs, out)
		}
		svg := filepath.Join(t.TempDir(), "t.svg")
		if name != "ipv4.pcap" { // ipv4.pcap holds no signal to draw
			_, errs, code := sfcdump(t, "timeline", "-o", svg, file)
			if b, _ := os.ReadFile(svg); code != 0 || !strings.Contains(string(b), "0x001234") {
				t.Errorf("%s: timeline: %d %s", name, code, errs)
			}
		}
		w := filepath.Join(t.TempDir(), "out.pcapng")
		if _, errs, code := sfcdump(t, "read", "-w", w, file); code != 0 {
			t.Fatalf("%s: -w: %d %s", name, code, errs)
		}
		r, err := pcapio.Open(w)
		if err != nil {
			t.Fatal(err)
		}
		in, _ := pcapio.Open(file)
		if got, want := r.Interface(0).LinkType, in.Interface(0).LinkType; got != want {
			t.Errorf("%s: -w wrote link type %v, want %v", name, got, want)
		}
		r.Close()
		in.Close()
	}
}

// ngFile builds a little-endian pcapng capture block by block.
type ngFile struct{ buf []byte }

var le = binary.LittleEndian

func (f *ngFile) block(typ uint32, body []byte) *ngFile {
	for len(body)%4 != 0 {
		body = append(body, 0)
	}
	f.buf = le.AppendUint32(f.buf, typ)
	f.buf = le.AppendUint32(f.buf, uint32(12+len(body)))
	f.buf = append(f.buf, body...)
	f.buf = le.AppendUint32(f.buf, uint32(12+len(body)))
	return f
}

func ngOpt(b []byte, code uint16, v []byte) []byte {
	b = le.AppendUint16(b, code)
	b = le.AppendUint16(b, uint16(len(v)))
	b = append(b, v...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// shb starts a section.
func (f *ngFile) shb() *ngFile {
	shb := le.AppendUint32(nil, 0x1a2b3c4d)
	shb = append(shb, 1, 0, 0, 0)
	shb = le.AppendUint64(shb, ^uint64(0))
	return f.block(0x0a0d0d0a, shb)
}

// idb adds an Ethernet interface named name, with if_tsresol 10^-9 and
// if_speed speed (none when 0).
func (f *ngFile) idb(name string, speed uint64) *ngFile {
	b := le.AppendUint16(nil, 1)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint32(b, 0)
	b = ngOpt(b, 2, []byte(name))
	b = ngOpt(b, 9, []byte{9})
	if speed != 0 {
		b = ngOpt(b, 8, le.AppendUint64(nil, speed))
	}
	return f.block(1, ngOpt(b, 0, nil))
}

// epb adds a frame on interface id of the section at ts (units of the
// interface's resolution).
func (f *ngFile) epb(id uint32, ts uint64, data []byte, orig int) *ngFile {
	b := le.AppendUint32(nil, id)
	b = le.AppendUint32(b, uint32(ts>>32))
	b = le.AppendUint32(b, uint32(ts))
	b = le.AppendUint32(b, uint32(len(data)))
	b = le.AppendUint32(b, uint32(orig))
	return f.block(6, append(b, data...))
}

// spb adds a Simple Packet Block: interface 0 of the section, no time.
func (f *ngFile) spb(data []byte) *ngFile {
	return f.block(3, append(le.AppendUint32(nil, uint32(len(data))), data...))
}

// write writes the capture to a file in a temporary directory.
func (f *ngFile) write(t *testing.T, name string) string {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, f.buf, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// pfcFrame asks 0xffff quanta on priority 3.
var pfcFrame, _ = hex.DecodeString("0180c2000001020000000001880801010008000000000000ffff00000000000000000000000000000000000000000000000000000000000000000000")

// pcapngPFC is a pcapng with two interfaces, port25 (if_speed 25 Gb/s,
// if_tsresol 10^-9) and port0 (no speed), each with a PFC frame asking
// 0xffff quanta on priority 3; on port25 the frame's captured length (60)
// exceeds its original length (50).
func pcapngPFC(t *testing.T) string {
	f := (&ngFile{}).shb().idb("port25", 25e9).idb("port0", 0)
	for i, orig := range []int{50, 60} {
		f.epb(uint32(i), uint64(1_000_000_000*(i+1)), pfcFrame, orig)
	}
	return f.write(t, "pfc.pcapng")
}

// TestSectionsInEveryCommand: in a pcapng of two sections, section 1 with
// a0 (25G) and a1 (400G), section 2 with b0 (10G), every frame is shown
// on its own section's interface at its speed, by read (text, fields,
// serial and parallel over many batches, -w) and stats; the second
// section's interface 0 is not the first's.
func TestSectionsInEveryCommand(t *testing.T) {
	const n = 3000 // per section: several batches
	f := (&ngFile{}).shb().idb("a0", 25e9).idb("a1", 400e9)
	for i := 0; i < n; i++ {
		f.epb(uint32(i%2), uint64(i)*1000, pfcFrame, len(pfcFrame))
	}
	f.shb().idb("b0", 10e9)
	for i := n; i < 2*n; i++ {
		f.epb(0, uint64(i)*1000, pfcFrame, len(pfcFrame))
	}
	file := f.write(t, "sections.pcapng")
	// 0xffff quanta of 512 bit times at each speed, in ns.
	pause := []string{"1342156", "83884", "3355392"}
	check := func(how string, out string, withPause bool) {
		t.Helper()
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 2*n {
			t.Fatalf("%s: %d lines", how, len(lines))
		}
		for i, l := range lines {
			iface := i % 2 // a0, a1
			if i >= n {
				iface = 2 // b0
			}
			w := fmt.Sprintf("%d\t%d", i+1, iface)
			if withPause {
				w += "\t" + pause[iface]
			}
			if l != w {
				t.Fatalf("%s: line %d: %q, want %q", how, i+1, l, w)
			}
		}
	}
	args := []string{"read", "-T", "fields", "-e", "frame.number", "-e", "frame.interface", "-e", "pfc.pause_ns_c3", file}
	out, errs, code := sfcdump(t, args...)
	if code != 0 {
		t.Fatalf("read: %d %s", code, errs)
	}
	check("parallel", out, true)
	old := runtime.GOMAXPROCS(1)
	out, _, _ = sfcdump(t, args...)
	runtime.GOMAXPROCS(old)
	check("serial", out, true)
	out, _, _ = sfcdump(t, "read", "-c", "1", "-Y", "frame.number == 3001", file)
	if !strings.Contains(out, " b0 ") || !strings.Contains(out, "(3355.392 us)") {
		t.Errorf("text, section 2: %s", out)
	}
	out, _, _ = sfcdump(t, "stats", file)
	for _, row := range []string{"a0         3     1500", "a1         3     1500", "b0         3     3000"} {
		if !strings.Contains(out, row) {
			t.Errorf("stats lacks %q:\n%s", row, out)
		}
	}
	w := filepath.Join(t.TempDir(), "out.pcapng")
	if _, errs, code := sfcdump(t, "read", "-q", "-w", w, file); code != 0 {
		t.Fatalf("-w: %s", errs)
	}
	out, _, _ = sfcdump(t, "read", "-T", "fields", "-e", "frame.number", "-e", "frame.interface", w)
	check("-w", out, false)
	out, _, _ = sfcdump(t, "read", "-Y", "frame.number >= 2999 && frame.number <= 3001", w)
	if !strings.Contains(out, "2999 0.002998000 a0 ") || !strings.Contains(out, "3000 0.002999000 a1 ") || !strings.Contains(out, "3001 0.003000000 b0 ") {
		t.Errorf("-w kept the interface names:\n%s", out)
	}
}

// TestIfSpeedAndSpeedFlag: PFC quanta turn into time at the interface's
// own speed (pcapng if_speed; 100G when the capture does not say), in
// JSON and fields; --speed (--link-speed) overrides it; the record whose
// caplen exceeds its origlen is flagged on its own line, and the next
// frame is read.
func TestIfSpeedAndSpeedFlag(t *testing.T) {
	file := pcapngPFC(t)
	out, errs, code := sfcdump(t, "read", "-T", "fields", "-e", "frame.number", "-e", "pfc.pause_ns_c3", file)
	if code != 0 || out != "1\t1342156\n2\t335539\n" {
		t.Errorf("if_speed: %d %q %q", code, out, errs)
	}
	for _, flag := range []string{"--speed", "--link-speed"} {
		out, _, _ = sfcdump(t, "read", "-T", "fields", "-e", "pfc.pause_ns_c3", flag, "10G", file)
		if out != "3355392\n3355392\n" {
			t.Errorf("%s 10G: %q", flag, out)
		}
		out, _, _ = sfcdump(t, "read", "-T", "fields", "-e", "pfc.pause_ns_c3", flag, "port0=10G", file)
		if out != "1342156\n3355392\n" {
			t.Errorf("%s port0=10G: %q", flag, out)
		}
	}
	out, _, _ = sfcdump(t, "stats", file)
	if !strings.Contains(out, "1342.156   25G   1342.156") || !strings.Contains(out, "335.539    100G  335.539") {
		t.Errorf("stats at the interfaces' speeds:\n%s", out)
	}
	out, _, code = sfcdump(t, "read", file)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.Contains(lines[0], "[1 warning]") || strings.Contains(lines[1], "warning") {
		t.Errorf("caplen > origlen: %d\n%s", code, out)
	}
	out, _, _ = sfcdump(t, "read", "-T", "json", "-c", "1", file)
	if !strings.Contains(out, `"warnings":["frame: captured length 60 exceeds original length 50"]`) || !strings.Contains(out, `"pause_ns_c3":1342156`) {
		t.Errorf("json: %s", out)
	}
	// -w keeps each interface's if_speed, so the capture it writes reads
	// back at the same pause times; a --speed given is what it records.
	// Neither invents one: without if_speed or --speed none is written.
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		args  []string
		speed [2]uint64
		want  string
	}{
		{"kept", nil, [2]uint64{25e9, 0}, "1\t1342156\n2\t335539\n"},
		{"--speed", []string{"--speed", "port0=10G"}, [2]uint64{25e9, 10e9}, "1\t1342156\n2\t3355392\n"},
		{"--speed all", []string{"--speed", "40G"}, [2]uint64{40e9, 40e9}, "1\t838848\n2\t838848\n"},
	} {
		w := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".pcapng")
		if _, errs, code := sfcdump(t, append([]string{"read", "-q", "-w", w, file}, c.args...)...); code != 0 {
			t.Fatalf("%s: -w: %s", c.name, errs)
		}
		out, _, _ = sfcdump(t, "read", "-T", "fields", "-e", "frame.number", "-e", "pfc.pause_ns_c3", w)
		if out != c.want {
			t.Errorf("%s: read back: %q, want %q", c.name, out, c.want)
		}
		r, err := pcapio.Open(w)
		if err != nil {
			t.Fatal(err)
		}
		for i, sp := range c.speed {
			if in := r.Interface(i); i < r.NInterfaces() && in.Speed != sp {
				t.Errorf("%s: interface %d (%s) if_speed %d, want %d", c.name, i, in.Name, in.Speed, sp)
			}
		}
		r.Close()
	}
}

// TestNoTimestampEveryOutput: frames of simple packet blocks have no time,
// and every output says so rather than print the year 1 or an overflow:
// text "-" (relative times count from the first frame that has a time,
// though an untimed frame comes first), -V "none", JSON null, -T fields
// empty, stats' span from the timed frames only; -w keeps them untimed.
func TestNoTimestampEveryOutput(t *testing.T) {
	f := (&ngFile{}).shb().idb("p", 25e9).
		spb(pfcFrame).
		epb(0, 1_700_000_000_000_000_000, pfcFrame, len(pfcFrame)).
		spb(pfcFrame).
		epb(0, 1_700_000_000_500_000_000, pfcFrame, len(pfcFrame))
	file := f.write(t, "spb.pcapng")
	check := func(file string) {
		t.Helper()
		for _, procs := range []int{0, 1} {
			old := runtime.GOMAXPROCS(procs)
			out, errs, code := sfcdump(t, "read", file)
			runtime.GOMAXPROCS(old)
			var rel []string
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				rel = append(rel, strings.Fields(l)[1])
			}
			if code != 0 || strings.Join(rel, " ") != "- 0.000000000 - 0.500000000" {
				t.Errorf("text (GOMAXPROCS %d): %d %s\n%s", procs, code, errs, out)
			}
		}
		out, _, _ := sfcdump(t, "read", "-T", "fields", "-e", "frame.number", "-e", "frame.time_epoch", file)
		if out != "1\t\n2\t1700000000.000000000\n3\t\n4\t1700000000.500000000\n" {
			t.Errorf("fields: %q", out)
		}
		out, _, _ = sfcdump(t, "read", "-T", "json", file)
		if strings.Count(out, `"time":null`) != 2 || !strings.Contains(out, `"time":"2023-11-14T22:13:20.5Z"`) {
			t.Errorf("json:\n%s", out)
		}
		out, _, _ = sfcdump(t, "read", "-V", "-c", "1", file)
		if !strings.Contains(out, "frame.time: none (the capture gives no timestamp)\n") {
			t.Errorf("-V:\n%s", out)
		}
		out, _, _ = sfcdump(t, "stats", file)
		if !strings.Contains(out, "Frames: 4  octets: 240  span: 500000.000 us  (2023-11-14T22:13:20Z .. 2023-11-14T22:13:20.5Z)  2 without a timestamp") {
			t.Errorf("stats:\n%s", out)
		}
	}
	check(file)
	w := filepath.Join(t.TempDir(), "out.pcapng")
	if _, errs, code := sfcdump(t, "read", "-q", "-w", w, file); code != 0 {
		t.Fatalf("-w: %s", errs)
	}
	check(w)
}

// TestRuntFrameHasNoStaleFields: a 10-octet frame after whole ones (one
// parser for all) has no Ethernet header: no eth field in any output and
// no match for -Y eth. gopacket's Ethernet returns before it reads a
// field, so what its struct held was the previous frame's.
func TestRuntFrameHasNoStaleFields(t *testing.T) {
	in := filepath.Join("..", "..", "pcaps", "malformed", "mixed", "input.pcapng")
	out, _, _ := sfcdump(t, "read", "-T", "fields", "-e", "frame.len", "-e", "eth.src", "-e", "eth.type", "-Y", "frame.len < 14", in)
	if out != "10\t\t\n" {
		t.Errorf("fields of the runt: %q", out)
	}
	out, _, _ = sfcdump(t, "read", "-T", "json", "-Y", "frame.len < 14", in)
	if !strings.Contains(out, `"len":10`) || strings.Contains(out, `"eth"`) {
		t.Errorf("json of the runt: %s", out)
	}
	out, _, _ = sfcdump(t, "read", "-V", "-Y", "frame.len < 14", in)
	if strings.Contains(out, "eth.src") {
		t.Errorf("-V of the runt: %s", out)
	}
	if out, _, _ = sfcdump(t, "read", "-Y", "frame.len < 14 && eth", in); out != "" {
		t.Errorf("-Y eth selects the runt: %s", out)
	}
}

// TestWriteKeepsSnapLen: -w records each interface's snap length (the
// input's), so readers of the written capture know frames may be cut.
func TestWriteKeepsSnapLen(t *testing.T) {
	in := filepath.Join("..", "..", "layers", "testdata", "link", "raw.pcap")
	r, err := pcapio.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	want := r.Interface(0)
	r.Close()
	if want.SnapLen == 0 {
		t.Fatal("raw.pcap has no snap length; the test needs one")
	}
	w := filepath.Join(t.TempDir(), "out.pcapng")
	if _, errs, code := sfcdump(t, "read", "-q", "-w", w, in); code != 0 {
		t.Fatal(errs)
	}
	r, err = pcapio.Open(w)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.Next()
	if got := r.Interface(0); got.SnapLen != want.SnapLen || got.LinkType != want.LinkType {
		t.Errorf("-w interface %+v, want snap length %d and link type %v", got, want.SnapLen, want.LinkType)
	}
}

// TestUnnamedInterfaceHasNoName: frame.interface_name is absent for an
// interface the capture does not name (as tshark leaves it), not the
// "if0" shown in text; an error in a second file counts frames across
// the files, as they were printed.
func TestUnnamedInterfaceHasNoName(t *testing.T) {
	f := (&ngFile{}).shb().idb("", 0).epb(0, 1_000_000_000, pfcFrame, len(pfcFrame))
	file := f.write(t, "unnamed.pcapng")
	out, _, code := sfcdump(t, "read", "-T", "fields", "-e", "frame.number", "-e", "frame.interface_name", file)
	if code != 0 || out != "1\t\n" {
		t.Errorf("unnamed interface: %d %q", code, out)
	}
	b, _ := os.ReadFile(file)
	cut := filepath.Join(t.TempDir(), "cut.pcapng")
	os.WriteFile(cut, b[:len(b)-10], 0o644)
	_, errs, _ := sfcdump(t, "read", "-q", file, file, cut)
	if !strings.Contains(errs, "after frame 2 (the last good one)") {
		t.Errorf("an error in the third file: %q", errs)
	}
}

// TestMixedLinkTypes: a pcapng with an Ethernet interface and one of a
// link type sfcdump does not decode (147, a user DLT) shows the Ethernet
// frames (the PFC was never shown: the whole capture was refused, exit 1)
// and the other one undecoded, not malformed, as tshark does; stats counts
// the PFC; -w keeps both interfaces with their link types.
func TestMixedLinkTypes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mixed.pcapng")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pcapio.NewWriterInterfaces(f, pcapio.Interface{Name: "eth0", LinkType: 1}, pcapio.Interface{Name: "usr0", LinkType: 147})
	if err != nil {
		t.Fatal(err)
	}
	pfc, _ := hex.DecodeString("0180c2000001020000000002880801010008000000000000ffff000000000000000000000000000000000000000000000000000000000000")
	for i, in := range []int{0, 1, 0} {
		data := pfc
		if in == 1 {
			data = []byte{1, 2, 3}
		}
		if err := w.Write(in, time.Unix(0, int64(i)*1000), data, len(data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out, errs, code := sfcdump(t, "read", path)
	if code != 0 || strings.Count(out, "PFC p3=65535") != 2 || !strings.Contains(out, "link type 147") || !strings.Contains(out, "not decoded") || strings.Contains(out, "malformed") {
		t.Errorf("read: exit %d %q\n%s", code, errs, out)
	}
	out, _, code = sfcdump(t, "stats", path)
	if code != 0 || !strings.Contains(out, "pfc    2") {
		t.Errorf("stats: exit %d\n%s", code, out)
	}
	kept := filepath.Join(dir, "kept.pcapng")
	if _, errs, code := sfcdump(t, "read", "-w", kept, path); code != 0 {
		t.Fatalf("-w: exit %d %q", code, errs)
	}
	r, err := pcapio.Open(kept)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var links []uint32
	for {
		fr, err := r.Next()
		if err != nil {
			break
		}
		links = append(links, uint32(fr.LinkType))
	}
	if fmt.Sprint(links) != "[1 147 1]" {
		t.Errorf("-w kept link types %v, want [1 147 1]", links)
	}
}

// TestCutByCaptureNotLength: a CNP the capture cut inside its extension
// headers (caplen 60 of 78 octets) is truncated, not a length field
// pointing past the data; the same octets as a whole frame (caplen = len)
// keep the length error.
func TestCutByCaptureNotLength(t *testing.T) {
	var cnp []byte
	for _, f := range sample.Frames() {
		if f.Name == "RoCEv2 CNP, IPv4" {
			cnp = f.Data
		}
	}
	if len(cnp) <= 60 {
		t.Fatalf("no IPv4 CNP of more than 60 octets in sample.Frames (%d)", len(cnp))
	}
	path := filepath.Join(t.TempDir(), "cut.pcapng")
	// Frame 1 cut by the capture (60 of len(cnp) octets); frame 2 whole,
	// its lengths lying.
	writeCapture(t, path, []string{"port0"}, 2, func(i int) (int, time.Time, []byte, int) {
		return 0, time.Unix(1700000000, 0), cnp[:60], []int{len(cnp), 60}[i]
	})
	out, errs, code := sfcdump(t, "read", path)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("exit %d, %q:\n%s", code, errs, out)
	}
	if l := lines[0]; !strings.Contains(l, "[truncated at octet 60]") || !strings.Contains(l, "cnp at offset 12: truncated (") ||
		!strings.Contains(l, "the capture kept 60 octets") || strings.Contains(l, "points past") {
		t.Errorf("cut by the capture: %s", l)
	}
	if l := lines[1]; strings.Contains(l, "truncated") || !strings.Contains(l, "points past the data") {
		t.Errorf("whole frame with lying lengths: %s", l)
	}
}

// TestCutByCaptureQuote: a BTS the capture cut inside its quote (caplen
// 60) is truncated, with stats grouping it so; the same octets as a whole
// frame (a BTS sent with a 2-octet quote) keep "quote too short".
func TestCutByCaptureQuote(t *testing.T) {
	var bts []byte
	for _, f := range sample.Frames() {
		if strings.HasPrefix(f.Name, "BTS") && len(f.Data) > 60 && f.Data[12] == 0x08 {
			bts = f.Data
			break
		}
	}
	if bts == nil {
		t.Fatal("no IPv4 BTS of more than 60 octets in sample.Frames")
	}
	path := filepath.Join(t.TempDir(), "cut.pcapng")
	writeCapture(t, path, []string{"port0"}, 2, func(i int) (int, time.Time, []byte, int) {
		return 0, time.Unix(1700000000, 0), bts[:60], []int{len(bts), 60}[i]
	})
	out, errs, code := sfcdump(t, "read", path)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("exit %d, %q:\n%s", code, errs, out)
	}
	if l := lines[0]; !strings.Contains(l, "bts: quote at offset 16: truncated (quote: ") || !strings.Contains(l, "the capture kept 60 octets") {
		t.Errorf("cut by the capture: %s", l)
	}
	if l := lines[1]; strings.Contains(l, "truncated") || !strings.Contains(l, "quote too short to name a flow") {
		t.Errorf("whole frame with a short quote: %s", l)
	}
	st, _, _ := sfcdump(t, "stats", path)
	if !strings.Contains(st, "bts: truncated") || !strings.Contains(st, "bts: quote too short to name a flow") {
		t.Errorf("stats:\n%s", st)
	}
}
