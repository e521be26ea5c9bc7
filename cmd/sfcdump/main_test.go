// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/opensfc/sfc/pcapio"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// sfcdump runs the command in-process and returns its stdout, stderr and
// exit status.
func sfcdump(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

// writeCapture writes a pcapng capture at path with interfaces ifaces
// and n frames, frame i as at gives it (its interface, time, data and
// length on the wire).
func writeCapture(t *testing.T, path string, ifaces []string, n int, at func(i int) (iface int, when time.Time, data []byte, origLen int)) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := pcapio.NewWriter(f, ifaces...)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		iface, when, data, origLen := at(i)
		if err := w.Write(iface, when, data, origLen); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/sfcdump -update to create it)", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs at line %d:\n got: %s\nwant: %s\n(run go test ./cmd/sfcdump -update if the change is intended)", name, i+1, g, w)
			}
		}
	}
}

const (
	sampleCap    = "../../pcaps/sample.pcapng"
	malformedCap = "../../pcaps/malformed.pcapng"
	// VLAN tags (0x9100 alone, with 0x8100 or 0x88A8) and IPv6
	// extension header chains: each tag and header is its own entry.
	vlanCap    = "../../layers/testdata/vlan9100.pcap"
	ipv6ExtCap = "../../layers/testdata/ipv6ext/frames.pcap"
)

func TestReadGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"sample.txt", []string{"read", sampleCap}},
		{"sample-verbose.txt", []string{"read", "-V", "--link-speed", "100G", "--link-speed", "port0=25G", sampleCap}},
		{"sample.json", []string{"read", "-T", "json", sampleCap}},
		{"sample-fields.tsv", []string{"read", "-T", "fields", "-e", "frame.number", "-e", "frame.interface", "-e", "bth.destqp",
			"-e", "bts.pause_us", "-e", "bts.origin", "-e", "flow.src", "-e", "flow.qp", "-e", "fgcredit.credits", "-e", "pfc.time_c3", "-e", "cim.sa", sampleCap}},
		{"sample-filter.txt", []string{"read", "-Y", "(bts || cim) && flow.qp == 0xd2 && !(bts.origin == estimate)", sampleCap}},
		{"malformed.txt", []string{"read", malformedCap}},
		{"malformed-verbose-hex.txt", []string{"read", "-V", "-x", malformedCap}},
		{"malformed.json", []string{"read", "-T", "json", malformedCap}},
		{"malformed-fields.tsv", []string{"read", "-T", "fields", "-e", "frame.number", "-e", "frame.malformed", "-e", "frame.warnings",
			"-e", "bts.version", "-e", "bth.icrc_ok", "-e", "bth.icrc", malformedCap}},
		{"vlan-verbose.txt", []string{"read", "-V", vlanCap}},
		{"vlan.json", []string{"read", "-T", "json", vlanCap}},
		{"ipv6ext-verbose.txt", []string{"read", "-V", ipv6ExtCap}},
		{"ipv6ext.json", []string{"read", "-T", "json", ipv6ExtCap}},
		// Every header's own fields, and no Next Header for ESP: frame 9
		// alone (a second header's values, ESP's nxt, matched nothing and
		// 0 before).
		{"ipv6ext-filter.txt", []string{"read", "-Y", "ipv6ext.nxt == 0 || ipv6ext.routing_type == 4 && ipv6ext.frag_id == 7 && ipv6ext.nxt == 51", ipv6ExtCap}},
		{"vlan-fields.tsv", []string{"read", "-T", "fields", "-e", "vlan.tpid", "-e", "vlan.pcp", "-e", "vlan.dei", "-e", "vlan.vid",
			"-e", "vlan.id", "-e", "vlan.priority", "-e", "eth.pcp", vlanCap}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := sfcdump(t, tc.args...)
			if code != 0 || errs != "" {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			golden(t, tc.name, out)
		})
	}
}

func TestReadBadInput(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(sampleCap)
	if err != nil {
		t.Fatal(err)
	}
	trunc := filepath.Join(dir, "trunc.pcapng")
	os.WriteFile(trunc, data[:1500], 0o644)
	notCap := filepath.Join(dir, "notes.txt")
	os.WriteFile(notCap, []byte("hello, this is not a capture"), 0o644)
	// A classic pcap with link type 105 (802.11; raw IP, 101, is read).
	rawIP := filepath.Join(dir, "raw.pcap")
	os.WriteFile(rawIP, []byte{0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 105, 0, 0, 0}, 0o644)

	out, errs, code := sfcdump(t, "read", trunc)
	if code != 1 || strings.Count(out, "\n") != 8 || !strings.Contains(errs, "trunc.pcapng: after frame 8 (the last good one)") {
		t.Errorf("truncated: exit %d, %d lines, stderr %q", code, strings.Count(out, "\n"), errs)
	}
	for _, tc := range []struct{ file, msg string }{
		{filepath.Join(dir, "missing.pcap"), "missing.pcap: no such file"},
		{notCap, "notes.txt: not a pcap or pcapng capture"},
		{rawIP, "raw.pcap: interface 0: unsupported link type"},
	} {
		out, errs, code := sfcdump(t, "read", tc.file, sampleCap)
		if code != 2 || !strings.Contains(errs, tc.msg) || strings.Count(out, "\n") != 21 {
			t.Errorf("%s: exit %d, stderr %q, %d lines (want 2, %q, the 21 frames of the next file)", tc.file, code, errs, strings.Count(out, "\n"), tc.msg)
		}
	}
	for _, args := range [][]string{
		{"read", "-Y", "bts.pause_us >", sampleCap},
		{"read", "-T", "xml", sampleCap},
		{"read", "-T", "fields", "-e", "bts.nothing", sampleCap},
		{"read", "--decode-as", "udp.port==5000:http", sampleCap},
		{"read", "--link-speed", "fast", sampleCap},
		{"read"},
		{"read", "--no-such-flag", sampleCap},
	} {
		out, errs, code := sfcdump(t, args...)
		if code != 2 || out != "" || errs == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing, a reason", args, code, out, errs)
		}
	}
	_, errs, _ = sfcdump(t, "read", "-Y", "bts && pfc.time_c9 == 1", sampleCap)
	if !strings.Contains(errs, "column 8: unknown field \"pfc.time_c9\"") || !strings.Contains(errs, "       ^") {
		t.Errorf("bad filter report: %q", errs)
	}
}

func TestReadWriteKeepsInterfacesAndComments(t *testing.T) {
	out := filepath.Join(t.TempDir(), "bts.pcapng")
	stdout, errs, code := sfcdump(t, "read", "-Y", "bts || pfc", "-w", out, sampleCap)
	if code != 0 || stdout != "" || errs != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, errs)
	}
	got, _, _ := sfcdump(t, "read", "-V", out)
	want, _, _ := sfcdump(t, "read", "-V", "-Y", "bts || pfc", sampleCap)
	// Frame numbers and relative times restart in the new capture; the
	// interfaces, comments and every field stay.
	strip := func(s string) []string {
		var lines []string
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "    ") {
				lines = append(lines, l)
			}
		}
		return lines
	}
	if g, w := strip(got), strip(want); strings.Join(g, "\n") != strings.Join(w, "\n") || len(g) < 50 {
		t.Errorf("written capture reads back differently:\n%s\nwant\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
	if !strings.Contains(got, "frame.comment: BTS from a pause cache") || !strings.Contains(got, " port1 ") {
		t.Errorf("comments or interface names lost:\n%s", got)
	}
}

// TestReadWriteKeepsMetadata: read -w copies what the capture says
// beyond the frames: the section's comment, hardware, OS and
// application; each interface's comment, description, filter, OS, FCS
// length, speed and timestamp resolution (a microsecond capture stays
// one, which conformance allows for); each frame's comments and
// epb_flags (direction, reception, FCS length: conformance reads the
// direction) and epb_dropcount, each also when 0 if the block has it;
// each interface's last statistics block
// (whose drop counters device mode reads). A filter that drops frames
// drops nothing else.
func TestReadWriteKeepsMetadata(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.pcapng"), filepath.Join(dir, "out.pcapng")
	// Several comments, an empty one among them, each its own option.
	sec := pcapio.SectionInfo{Comment: "lab 3\n\nDUT fw 1.2", Comments: []string{"lab 3", "", "DUT fw 1.2"}, Hardware: "x86_64", OS: "Linux 6.1",
		Application: "Dumpcap (Wireshark) 4.0.17"}
	ifs := []pcapio.Interface{
		{Name: "swp1", LinkType: 1, Comment: "to the DUT\n", Comments: []string{"to the DUT", ""}, Description: "port 1", Filter: "ether proto 0x8808",
			OS: "Linux", Speed: 25e9, FCSLen: 4, Resolution: 1000},
		{Name: "swp2", LinkType: 1, Resolution: 1},
	}
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pcapio.NewWriterSection(f, sec, ifs...)
	if err != nil {
		t.Fatal(err)
	}
	pfc, _ := hex.DecodeString("0180c20000010000000000018808010100080001000000000000000000000000000000000000000000000000000000000000000000000000000000000000")
	t0 := time.Unix(1_700_000_000, 0)
	// wantFlags and wantDrops are frame i's options: its flags and drop
	// count, and whether the block carries them (frame 0 an explicit drop
	// count of 0, frame 4 explicit flags of 0 and no drop count).
	wantFlags := func(i int) (uint32, bool) {
		if i == 4 {
			return 0, true
		}
		return uint32(1+i%2) | 0x80, true
	}
	wantDrops := func(i int) (uint64, bool) {
		if i == 4 {
			return 0, false
		}
		return uint64(i), true
	}
	for i := 0; i < 5; i++ {
		data := pfc
		if i == 1 {
			data = make([]byte, 60) // not PFC: filtered out
		}
		fr := pcapio.Frame{Time: t0.Add(time.Duration(i) * time.Millisecond), Data: data, Len: len(data) + 4,
			Comments: []string{"frame " + strconv.Itoa(i)}}
		fr.Flags, fr.HasFlags = wantFlags(i)
		fr.DropCount, fr.HasDropCount = wantDrops(i)
		if err := w.WriteFrame(i%2, &fr); err != nil {
			t.Fatal(err)
		}
	}
	isb := pcapio.InterfaceStats{Time: t0.Add(time.Second), Comment: "end", Comments: []string{"end"}, Received: 9, Dropped: 2, OSDropped: 1,
		Has: pcapio.StatsReceived | pcapio.StatsDropped | pcapio.StatsOSDropped}
	if err := w.WriteStats(1, isb); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if stdout, errs, code := sfcdump(t, "read", "-Y", "pfc", "-w", out, in); code != 0 || stdout != "" || errs != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, errs)
	}
	r, err := pcapio.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Section(); !reflect.DeepEqual(got, sec) {
		t.Errorf("section %+v, want %+v", got, sec)
	}
	for _, k := range []int{0, 2, 3, 4} {
		fr, err := r.Next()
		if err != nil {
			t.Fatalf("frame %d: %v", k, err)
		}
		want := ifs[k%2]
		want.ID, want.LinkType, want.FCSLen = k%2, 1, map[int]int{0: 4, 1: -1}[k%2]
		if got := r.Interface(fr.Interface); !reflect.DeepEqual(got, want) {
			t.Errorf("frame %d: interface %+v, want %+v", k, got, want)
		}
		flags, hasFlags := wantFlags(k)
		drops, hasDrops := wantDrops(k)
		if !fr.Time.Equal(t0.Add(time.Duration(k)*time.Millisecond)) || fr.Flags != flags || fr.HasFlags != hasFlags || fr.DropCount != drops ||
			fr.HasDropCount != hasDrops || len(fr.Comments) != 1 || fr.Comments[0] != "frame "+strconv.Itoa(k) {
			t.Errorf("frame %d: at %v, flags %#x (%v), drop count %d (%v), comments %q", k, fr.Time, fr.Flags, fr.HasFlags, fr.DropCount, fr.HasDropCount, fr.Comments)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the last frame: %v", err)
	}
	if st, ok := r.Stats(1); !ok || !st.Time.Equal(isb.Time) || func() bool { st.Time = isb.Time; return !reflect.DeepEqual(st, isb) }() {
		t.Errorf("interface statistics %+v, %v; want %+v", st, ok, isb)
	}
	if _, ok := r.Stats(0); ok {
		t.Error("statistics for an interface that had none")
	}
}

func TestReadGzipAndCount(t *testing.T) {
	data, _ := os.ReadFile(sampleCap)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	path := filepath.Join(t.TempDir(), "sample.pcapng.gz")
	os.WriteFile(path, gz.Bytes(), 0o644)
	out, errs, code := sfcdump(t, "read", "-c", "2", "-Y", "cnp", path)
	if code != 0 || errs != "" || out != "7 0.000006000 port1 10.0.0.2 > 10.0.0.1  RoCEv2 CNP qp 0x0000d2 BECN\n8 0.000007000 port1 fd00::2 > fd00::1  RoCEv2 CNP qp 0x00abcd BECN\n" {
		t.Errorf("exit %d, stderr %q, out %q", code, errs, out)
	}
}

func TestDecodeAs(t *testing.T) {
	// Frame 9 of the sample is a BTS to port 1021; moved to another port
	// it is plain UDP until --decode-as names the port.
	data, _ := os.ReadFile(sampleCap)
	path := filepath.Join(t.TempDir(), "moved.pcapng")
	moved := bytes.ReplaceAll(data, []byte{0xc0, 0x00, 0x03, 0xfd}, []byte{0xc0, 0x00, 0x13, 0x88}) // sport 49152, dport 1021 -> 5000
	os.WriteFile(path, moved, 0o644)
	out, _, _ := sfcdump(t, "read", "-T", "fields", "-e", "frame.number", "-e", "udp.dport", "-Y", "udp.dport == 5000", path)
	if out != "9\t5000\n11\t5000\n" {
		t.Fatalf("moved BTS frames: %q", out)
	}
	out, _, _ = sfcdump(t, "read", "-T", "fields", "-e", "bts.pause_us", "-Y", "udp.dport == 5000 && bts", "--decode-as", "udp.port==5000:bts", path)
	if out != "20\n0\n" {
		t.Errorf("--decode-as udp.port==5000:bts: %q", out)
	}
}

// TestSerialMatchesParallel checks the one-goroutine path (used on one CPU
// and by capture) renders exactly what the parallel reader does.
func TestSerialMatchesParallel(t *testing.T) {
	for _, args := range [][]string{
		{"read", "-V", "-x", sampleCap, malformedCap},
		{"read", "-T", "json", "-Y", "bth || cim", sampleCap, malformedCap},
		{"read", "-c", "5", "-Y", "ip.version == 6 || frame.malformed", sampleCap, malformedCap},
	} {
		par, _, _ := sfcdump(t, args...)
		old := runtime.GOMAXPROCS(1)
		ser, _, _ := sfcdump(t, args...)
		runtime.GOMAXPROCS(old)
		if par != ser || par == "" {
			t.Errorf("%v: serial and parallel output differ:\n%s\n---\n%s", args, ser, par)
		}
	}
}

// TestHelpAndCompletion checks every command has examples in its help, and
// that shell completion works for commands, flags and field names.
func TestHelpAndCompletion(t *testing.T) {
	root := newRootCmd("")
	for _, c := range append(root.Commands(), root) {
		if c.Name() == "help" || c.Name() == "completion" || c.Hidden {
			continue
		}
		for _, sub := range append(c.Commands(), c) {
			if sub.Runnable() && !sub.HasSubCommands() && sub.Example == "" && sub.Name() != "help" {
				t.Errorf("%s has no examples in its help", sub.CommandPath())
			}
		}
	}
	out, _, code := sfcdump(t, "read", "--help")
	if code != 0 || !strings.Contains(out, "Examples:") || !strings.Contains(out, "--display-filter") {
		t.Errorf("read --help: exit %d\n%s", code, out)
	}
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		if out, _, code := sfcdump(t, "completion", sh); code != 0 || len(out) < 500 {
			t.Errorf("completion %s: exit %d, %d octets", sh, code, len(out))
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "st"}, "stats"},
		{[]string{"__complete", "read", "-T", ""}, "fields"},
		{[]string{"__complete", "read", "-e", "bts.pa"}, "bts.pause_us"},
		{[]string{"__complete", "stats", "--progress", ""}, "always"},
		{[]string{"__complete", "read", "--decode-as", ""}, "udp.port==1021:bts"},
		{[]string{"__complete", "conform", "check", "--digest", ""}, "sha256"},
		{[]string{"__complete", "conform", "run", "-T", ""}, "junit"},
	} {
		out, _, _ := sfcdump(t, tc.args...)
		if !strings.Contains(out, tc.want) {
			t.Errorf("%v: %q lacks %q", tc.args, out, tc.want)
		}
	}
}

// TestSerialMatchesParallelManyBatches runs the parallel reader over a
// capture of many batches (20,000 frames: the sample and malformed
// captures over and over, on two interfaces) and checks it renders and
// writes what the serial path does, also when -c stops it in the middle
// of a later batch.
func TestSerialMatchesParallelManyBatches(t *testing.T) {
	frames := append(loadFrames(t, sampleCap), loadFrames(t, malformedCap)...)
	dir := t.TempDir()
	path := filepath.Join(dir, "many.pcapng")
	t0 := time.Unix(1700000000, 0)
	writeCapture(t, path, []string{"port0", "port1"}, 20000, func(i int) (int, time.Time, []byte, int) {
		fr := frames[i%len(frames)]
		return i % 2, t0.Add(time.Duration(i) * time.Microsecond), fr.Data, fr.Len
	})
	for _, args := range [][]string{
		{"read", path},
		{"read", "-c", "7001", "-Y", "bth || frame.malformed", path},
		{"read", "-T", "fields", "-e", "frame.number", "-e", "bth.psn", "-e", "frame.interface", path},
		{"read", "-c", "12345", "-w", filepath.Join(dir, "OUT"), "-P", path},
	} {
		par, _, pc := sfcdump(t, args...)
		var wpar []byte
		if args[len(args)-2] == "-P" {
			wpar, _ = os.ReadFile(filepath.Join(dir, "OUT"))
		}
		old := runtime.GOMAXPROCS(1)
		ser, _, sc := sfcdump(t, args...)
		runtime.GOMAXPROCS(old)
		if par != ser || pc != sc || strings.Count(par, "\n") < 5000 {
			t.Errorf("%v: serial and parallel output differ (%d and %d lines, exit %d and %d)", args, strings.Count(ser, "\n"), strings.Count(par, "\n"), sc, pc)
		}
		if wpar != nil {
			if wser, _ := os.ReadFile(filepath.Join(dir, "OUT")); !bytes.Equal(wser, wpar) || len(wpar) < 100000 {
				t.Errorf("%v: -w files differ (%d and %d octets)", args, len(wser), len(wpar))
			}
		}
	}
	// The same capture gzipped (read under the lock with ReadBatch, not by
	// position), and cut short in a later chunk (the error and the frames
	// before it, by position): what the serial path prints, exit code and
	// error included.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(data)
	zw.Close()
	gz := filepath.Join(dir, "many.pcapng.gz")
	cut := filepath.Join(dir, "cut.pcapng")
	os.WriteFile(gz, z.Bytes(), 0o644)
	os.WriteFile(cut, data[:len(data)*2/3+5], 0o644)
	for _, args := range [][]string{{"read", gz}, {"read", "-T", "json", cut}} {
		par, perr, pc := sfcdump(t, args...)
		old := runtime.GOMAXPROCS(1)
		ser, serr, sc := sfcdump(t, args...)
		runtime.GOMAXPROCS(old)
		if par != ser || perr != serr || pc != sc || strings.Count(par, "\n") < 5000 {
			t.Errorf("%v: serial and parallel output differ (%d and %d lines, exit %d and %d, errors %q and %q)",
				args, strings.Count(ser, "\n"), strings.Count(par, "\n"), sc, pc, serr, perr)
		}
		if args[len(args)-1] == cut && (pc != 1 || !strings.Contains(perr, "cut short")) {
			t.Errorf("%v: exit %d, %q: want 1 and the record cut short", args, pc, perr)
		}
	}
}

// TestParallelOutputInOrder holds back the rendering of some batches so
// that the batches after them finish first: the worker that renders the
// batch next in order writes it and those waiting after it, so the output
// is still the serial path's, frame for frame.
func TestParallelOutputInOrder(t *testing.T) {
	if parallelism() == 0 {
		t.Skip("one CPU: the serial path")
	}
	frames := append(loadFrames(t, sampleCap), loadFrames(t, malformedCap)...)
	path := filepath.Join(t.TempDir(), "many.pcapng")
	t0 := time.Unix(1700000000, 0)
	writeCapture(t, path, []string{"port0"}, 30000, func(i int) (int, time.Time, []byte, int) {
		fr := frames[i%len(frames)]
		return 0, t0.Add(time.Duration(i) * time.Microsecond), fr.Data, fr.Len
	})
	old := runtime.GOMAXPROCS(1)
	ser, _, _ := sfcdump(t, "read", path)
	runtime.GOMAXPROCS(old)
	var late atomic.Int32
	testBeforeRender = func(seq int) {
		if seq%3 == 0 {
			late.Add(1)
			time.Sleep(2 * time.Millisecond)
		}
	}
	defer func() { testBeforeRender = nil }()
	par, _, _ := sfcdump(t, "read", path)
	if par != ser || strings.Count(par, "\n") != 30000 {
		t.Errorf("parallel output with batches finishing out of order differs from the serial (%d and %d lines)",
			strings.Count(par, "\n"), strings.Count(ser, "\n"))
	}
	if late.Load() < 3 {
		t.Errorf("only %d batches held back: the capture is too small to test the order", late.Load())
	}
}

// TestBatchStack checks the free batches are taken last in, first out,
// and that pop waits for a push.
func TestBatchStack(t *testing.T) {
	st := &batchStack{}
	st.cond.L = &st.mu
	a, b := &batch{}, &batch{}
	st.push(a)
	st.push(b)
	if st.pop() != b || st.pop() != a {
		t.Fatal("not last in, first out")
	}
	got := make(chan *batch)
	go func() { got <- st.pop() }()
	time.Sleep(time.Millisecond)
	st.push(a)
	if <-got != a {
		t.Fatal("pop did not get the batch pushed while it waited")
	}
}

// TestReadWriteInterfaceOrder: -w adds a source's interfaces in order,
// each once, whichever frame first names one (a frame on the last
// interface first, then the first): each frame keeps its interface id and
// name, and an interface with no frame before the last one is written too.
func TestReadWriteInterfaceOrder(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.pcapng"), filepath.Join(dir, "out.pcapng")
	order := []int{3, 0, 2, 3, 0}
	writeCapture(t, in, []string{"a", "b", "c", "d"}, len(order), func(i int) (int, time.Time, []byte, int) {
		return order[i], time.Unix(int64(i+1), 0), make([]byte, 60), 60
	})
	if _, errs, code := sfcdump(t, "read", "-q", "-w", out, in); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	r, err := pcapio.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i, want := range order {
		fr, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if fr.Interface != want || r.Interface(want).Name != "abcd"[want:want+1] {
			t.Errorf("frame %d: interface %d %q, want %d", i+1, fr.Interface, r.Interface(fr.Interface).Name, want)
		}
	}
	if r.NInterfaces() != 4 {
		t.Errorf("%d interfaces written, want 4", r.NInterfaces())
	}
}

// TestReadMetadataBudget: a capture whose interface comments exceed
// pcapio.MetadataBudget is read, with a note saying how much was not
// kept; the frames are all read.
func TestReadMetadataBudget(t *testing.T) {
	in := filepath.Join(t.TempDir(), "meta.pcapng")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pcapio.NewWriter(f, "i0")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 300; i++ {
		if _, err := w.AddInterfaceOf(pcapio.Interface{Name: "i", LinkType: 1, Comment: strings.Repeat("c", 64000)}); err != nil {
			t.Fatal(err)
		}
	}
	w.Write(299, time.Unix(1, 0), make([]byte, 60), 60)
	w.Flush()
	f.Close()
	out, errs, code := sfcdump(t, "read", in)
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.Contains(errs, "octets of interface names, comments and descriptions past 16 MiB were not kept") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestReadWriteNothingMatched: a -w capture that no frame reached still
// says where the input was taken: its first interface (name, speed, link
// type) and section, not a made-up "if0".
func TestReadWriteNothingMatched(t *testing.T) {
	out := filepath.Join(t.TempDir(), "none.pcapng")
	if _, errs, code := sfcdump(t, "read", "-Y", "frame.number == 0", "-w", out, "--speed", "25G", sampleCap); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	r, err := pcapio.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	in, err := pcapio.Open(sampleCap)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("a frame in the empty capture: %v", err)
	}
	got, want := r.Interface(0), in.Interface(0)
	if r.NInterfaces() != 1 || got.Name != want.Name || got.Name == "" || got.Speed != 25e9 || got.LinkType != want.LinkType {
		t.Errorf("interfaces %d, the first %+v; want %q at 25G", r.NInterfaces(), got, want.Name)
	}
}

// TestReadWriteStatsItCannotHold: an interface statistics block whose
// start time the copy cannot say (2^-20 s units far in the future, past
// an if_tsoffset of 2^40 s, which the copy does not write: 64 bits of
// 2^-20 s overflow) is left out with a note; the frames are written.
func TestReadWriteStatsItCannotHold(t *testing.T) {
	le := binary.LittleEndian
	block := func(typ uint32, body []byte) []byte {
		for len(body)%4 != 0 {
			body = append(body, 0)
		}
		n := uint32(12 + len(body))
		b := le.AppendUint32(le.AppendUint32(nil, typ), n)
		return le.AppendUint32(append(b, body...), n)
	}
	shb := block(0x0a0d0d0a, le.AppendUint64(le.AppendUint32(le.AppendUint32(nil, 0x1a2b3c4d), 1), ^uint64(0)))
	// Ethernet, if_tsresol 2^-20, if_tsoffset 2^40 s.
	idb := block(1, []byte{1, 0, 0, 0, 0, 0, 0, 0, 9, 0, 1, 0, 0x94, 0, 0, 0, 14, 0, 8, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0})
	ts := uint64(1767225600) << 20
	epb := le.AppendUint32(le.AppendUint32(le.AppendUint32(le.AppendUint32(le.AppendUint32(nil, 0), uint32(ts>>32)), uint32(ts)), 60), 60)
	epb = append(epb, make([]byte, 60)...)
	huge := ^uint64(0)
	isb := le.AppendUint32(le.AppendUint32(le.AppendUint32(nil, 0), uint32(ts>>32)), uint32(ts))
	isb = append(isb, 2, 0, 8, 0) // isb_starttime: high 32 bits, then low
	isb = le.AppendUint32(le.AppendUint32(isb, uint32(huge>>32)), uint32(huge))
	isb = append(isb, 0, 0, 0, 0)
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.pcapng"), filepath.Join(dir, "out.pcapng")
	if err := os.WriteFile(in, bytes.Join([][]byte{shb, idb, block(6, epb), block(5, isb)}, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code := sfcdump(t, "read", "-q", "-w", out, in)
	if code != 0 || !strings.Contains(errs, "note: the statistics of interface 0 are not copied") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if n := countFrames(t, out); n != 1 {
		t.Errorf("%d frames written, want 1", n)
	}
}

// TestParallelCountBeforeCut: with -c reached before a later batch meets
// the capture's cut, the parallel reader exits as the serial one does (0,
// no error), whichever batch is rendered first (found in review: the read
// error of a batch read ahead failed the run).
func TestParallelCountBeforeCut(t *testing.T) {
	if parallelism() == 0 {
		t.Skip("one CPU")
	}
	frames := loadFrames(t, sampleCap)
	dir := t.TempDir()
	full := filepath.Join(dir, "full.pcapng")
	t0 := time.Unix(1700000000, 0)
	writeCapture(t, full, []string{"port0"}, 200, func(i int) (int, time.Time, []byte, int) {
		fr := frames[i%len(frames)]
		return 0, t0.Add(time.Duration(i) * time.Microsecond), fr.Data, fr.Len
	})
	data, _ := os.ReadFile(full)
	cut := filepath.Join(dir, "cut.pcapng")
	os.WriteFile(cut, data[:len(data)-7], 0o644)
	old := runtime.GOMAXPROCS(1)
	ser, serr, sc := sfcdump(t, "read", "-c", "5", cut)
	runtime.GOMAXPROCS(old)
	testBeforeRender = func(seq int) { // batch 0 rendered late (a busy machine, -V)
		if seq == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	defer func() { testBeforeRender = nil }()
	par, perr, pc := sfcdump(t, "read", "-c", "5", cut)
	if par != ser || perr != serr || pc != sc {
		t.Errorf("parallel: exit %d %q; serial: exit %d %q (outputs equal: %v)", pc, perr, sc, serr, par == ser)
	}
}
