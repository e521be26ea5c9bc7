// SPDX-License-Identifier: Apache-2.0

package filter_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	glayers "github.com/gopacket/gopacket/layers"

	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/filter"
	"github.com/opensfc/sfc/internal/tsharktest"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/pcapio"
	"github.com/opensfc/sfc/sample"
)

// differential are display filters in Wireshark 4.0's syntax and field
// names, over the fields both tshark 4.0 and sfcdump decode, that must
// select the same frames of the corpus in both (docs/interop.md lists what
// is left out and why).
var differential = []string{
	// Character constants: numbers, one octet against octets.
	"ip.ttl == '@'",
	"udp.payload[0] == '\\x00' || ip.ttl < '\\101'",
	"udp.payload contains 'h'",
	// Ethernet, by field, slice, set, bit test and protocol slice.
	"eth.type == 0x8808",
	"eth.dst == 01:80:c2:00:00:01",
	"eth.dst eq 01-80-c2-00-00-01 or eth.type == 0x88b5",
	"eth.src[0:3] == 02:00:00 && eth.src[-1] != 01",
	"eth.src[1-2] == 00:00 and eth.dst[5] == 02",
	"eth.src[4:] > 00:01",
	"eth.src[0 : 2] == 02:00 && eth.src[4 - 5] == 00:01", // spaces in a slice
	"eth.src[0:1,5] == 02:01",
	"eth.addr == 02:00:00:00:00:02",
	"eth.type in {0x0800, 0x86dd}",
	// The I/G (group) and U/L (locally administered) bits of the
	// addresses: booleans, present in every Ethernet frame.
	"eth.dst.ig == 1",
	"eth.dst.ig != 1",
	"eth.dst.ig && eth.type == 0x8808",
	"eth.dst.lg == 0",
	"eth.dst.lg != 0",
	"eth.src.ig == 0 && eth.dst.ig == 1",
	"eth.src.lg == 1 && eth.dst.lg == 0",
	"eth.ig == 1",
	"eth.ig != 1",
	"eth.lg == 0",
	"all eth.lg == 1",
	"eth.ig && !ipv6",
	"eth.type & 0x0f00 == 0x0600",
	"eth.type bitwise_and 0x0100",
	"eth.dst[0] & 1", // bit tests on octets: slices, byte strings, MACs
	"eth.dst[0] & 0x01 == 0x01",
	"eth.src[5] & 1 == 0",
	"eth.dst[0:2] & 0x01 == 0x01", // the shorter length
	"eth.dst[0:2] & 01:ff == 01:80",
	"frame[12:2] & 80:00 == 80:00",
	"eth.dst & 01:00:00:00:00:00",
	"udp.payload & 0x80",
	"udp.payload[0:2] & ff:00 == 81:00",
	"ip.src & 0.0.0.255 == 0.0.0.1", // and on addresses (an IPv4 mask leaves out IPv6)
	"ip.src & 255.255.255.0 > 10.0.0.0",
	"ipv6.src & ::ff", // tshark 4.0 compares a masked IPv6 address wrongly: bare test only
	"infiniband.bth.opcode & 0x80",
	"frame[12:2] == 88:08",
	"eth[12:2] == 88:b5",
	"frame contains 12:b7",
	"frame matches \"\\x12\\xb7\"",
	"eth.src contains 00:01",
	// IPv4 (ip.* of Wireshark is IPv4 only: these name IPv4 values).
	"ip.src == 10.0.0.0/24",
	"ip.dst in {10.0.0.1..10.0.0.3, 10.0.1.7}",
	"ip.addr == 10.0.0.1",
	"ip.addr != 10.0.0.1",
	"ip.addr === 10.0.0.1 || ip.dsfield.dscp === 26",
	"ip.addr !== 10.0.0.2",
	"ip.addr ~= 10.0.0.1",
	"ip.dsfield.dscp == 26 || ip.dsfield.ecn != 0",
	"ip.len > 100 && ip.flags.df == 0",
	"ip.hdr_len == 20 && ip.id >= 0",
	"ip.dsfield & 0x68 == 0x68",
	"ip.flags & 0x2 || ip.flags.mf",
	"ip.src[3] == 01", // IPv4's alone (fd00:1::1 has 01 at [3])
	"ip.src != ip.dst && udp.srcport > udp.dstport",
	// ip and ip.* are IPv4's alone, as in Wireshark: an IPv6 packet has
	// no ip, ip.src, ip.ttl, ip.proto (ipv6.* name its header), but
	// ip.version is in both.
	"ip",
	"!ip",
	"ip.src != 10.0.0.1",
	"ip.dst",
	"ip.ttl >= 64",
	"ip.ttl >= 64 && ip.ttl <= 255",
	"ip.proto == 17",
	"ip.proto != 6",
	"ip.version == 6",
	"!ip && udp",
	"ip || ipv6",
	"ipv6.nxt == 17",
	"ipv6.hlim == 64",
	"ip[9] == 11",
	"!(ip contains 00:00:00:00)",
	// IPv6.
	"ipv6",
	"ipv6.src == fd00::1",
	"ipv6.addr == fd00::2",
	"ipv6.dst in {fd00::1..fd00::3}",
	"ipv6.hlim == 64 and ipv6.plen > 60",
	"ipv6.tclass.dscp == 26 || ipv6.tclass.ecn == 3",
	"ipv6.flow == 0",
	"ipv6.src[15] == 01",
	"ipv6 && !ipv6.fraghdr && !ipv6.routing && !ipv6.hopopts && !ipv6.dstopts",
	// UDP.
	"udp.dstport == 4791",
	"udp.srcport in {49152..65535}",
	"udp.port == 4791 && !ipv6",
	"udp.length >= 100",
	"udp.dstport != 4791 && udp",
	"udp[2:2] == 12:b7",
	"not udp.dstport == 4791",
	"udp.dstport not in {4791}",
	// RoCEv2 BTH, RETH, AETH.
	"infiniband",
	"infiniband.bth.opcode == 10",
	"infiniband.bth.opcode in {0..5, 10}",
	"infiniband.bth.destqp == 0xd2",
	"infiniband.bth.psn > 100",
	"infiniband.bth.se",
	"infiniband.bth.se == 0 && infiniband.bth.m == 0",
	"infiniband.bth.a == true",
	"infiniband.bth.p_key == 65535",
	"infiniband.bth.padcnt != 0",
	"infiniband.bth.tver == 0 && infiniband.bth.opcode < 0x81",
	"infiniband.reth",
	"infiniband.reth.dmalen > 0",
	"infiniband.reth.r_key != 0",
	"infiniband.aeth.syndrome == 0x1f",
	"infiniband.aeth.msn >= 0",
	// PAUSE and PFC (Wireshark 4.0: MAC Control).
	"macc",
	"macc.opcode == 0x0101",
	"macc.pause_time > 0",
	"macc.cbfc.enbv.c3 == 1 && macc.cbfc.pause_time.c3 == 65535",
	"macc.cbfc.enbv & 0x08",
	"macc.cbfc.pause_time.c3 in {1 .. 65535}", // spaces around a range's ..
	"macc.cbfc.pause_time.c5 in {0, 1 ..65535}",
	"udp.dstport in {1022, 4000.. 5000}",
	"ip.dst in {10.0.0.1 .. 10.0.0.3, 10.0.1.7}",
	"macc.cbfc.pause_time.c5 == 0",
	// Frame metadata.
	"frame.len in {60..64}",
	"frame.cap_len == frame.len && frame.len < 100",
	"frame.number in {1, 3..5} || frame.number == 100",
	// Functions, and the UDP payload.
	"count(ip.addr) == 2",
	"len(frame) > 100",
	"len(ip.src) == 4",
	"udp.payload contains 12:b7",
	"len(udp.payload) > 40",
	"udp.payload[0] == 0a",
	"udp.payload[0] == 0x81", // one octet as 0xHH
	"udp.payload[0:2] == 81:00",
	"udp.payload[0] contains 0x81 || eth.dst[0] == 0x01",
	"udp.payload[0] == 10", // hex, as every byte string
	"frame[12:3] == 88080", // a lone last digit is an octet
	"frame[12:2] == 88-8 && frame[12:4] == 8808.0001",
	// A bare protocol's contains and matches search what it carries too.
	"udp contains 12:b7",
	"udp contains c0:00",
	"eth contains 88:08:00:01",
	"eth contains 08:00 && !ipv6",
	"ipv6 contains 12:b7",
	"ip contains 12:b7",
	`ip contains "\x12\xb7"`,
	`ip matches "\x12\xb7"`,
	`udp matches "\x12\xb7"`,
	"!(udp contains 00:00:00)",
	// matches is case-insensitive (PCRE2 CASELESS, ASCII letters only);
	// contains is not.
	`frame matches "\xe0"`,
	`frame matches "[\xc0-\xc5]"`,
	`udp.payload matches "HELLO" || eth.type == 0x8808`,
	`frame matches "(?-i)HELLO" || eth.type == 0x8808`,
	`frame contains "HELLO" || eth.type == 0x8808`,
	// tshark 4.0's escapes: octal and hex of one digit.
	`udp.payload contains "\1"`,
	`udp.payload contains "\x3"`,
	// A negative number for an unsigned field compares with nothing.
	"udp.dstport != -1",
	"udp.dstport === -1",
	"udp.dstport == -1 || udp.dstport >= -0 && udp.srcport > 50000",
	"udp.dstport not in {-1} && udp.dstport in {-5..5000, 4791}",
	"infiniband.bth.padcnt in {1..4}", // an FT_UINT8 of 2 bits: tshark takes up to 255
	// Quantifiers, and count() of a protocol.
	"any udp.port == 4791",
	"all udp.port != 4791",
	"any udp.port in {1022}",
	"all ip.addr in {10.0.0.0/24}",
	"all udp.port > 1000 && !ipv6",
	"all eth.addr[0] == 02",
	"any count(ip.addr) == 2",
	"count(udp) == 1",
	"count(vlan) == 1",
	"vlan.dei == 0",
	"vlan.dei != 1 && udp",
	"vlan.dei && !vlan.cfi",
	"count(frame) == 1 && count(infiniband) == 1",
}

// corpusCapture writes the frames of the corpus captures (pcaps/: every
// frame of sample.pcapng and malformed.pcapng, the first perCapture of each
// other) into one pcapng, and returns its path and the frames decoded.
func corpusCapture(t *testing.T, perCapture int) (string, []*dissect.Frame) {
	return statCapture(t, tsharktest.Captures(t, filepath.Join("..", "pcaps")),
		func(file string) int {
			if filepath.Dir(file) == filepath.Join("..", "pcaps") {
				return 0
			}
			return perCapture
		},
		func(_ string, df *dissect.Frame) bool {
			// tshark drops a header cut short; sfcdump keeps the fields
			// before the cut (docs/interop.md).
			_, cut := dissect.CutOf(df)
			return !cut
		})
}

// statCapture writes the Ethernet frames of files (at most limit(file) of
// each, 0 all; limit nil: all) that keep keeps into one pcapng as
// tsharkSelect reads it: frame N at second N, then one more two seconds
// after the last; it returns its path and the frames kept, decoded.
func statCapture(t *testing.T, files []string, limit func(file string) int, keep func(file string, df *dissect.Frame) bool) (string, []*dissect.Frame) {
	return statCaptureOn(t, nil, files, limit, keep)
}

// statCaptureOn is statCapture on the interfaces ifs (none: one Ethernet
// interface that says nothing): the k-th frame kept goes on interface
// k mod len(ifs), and its frame knows the interface's number, name and
// description, as sfcdump read gives them.
func statCaptureOn(t *testing.T, ifs []pcapio.Interface, files []string, limit func(file string) int, keep func(file string, df *dissect.Frame) bool) (string, []*dissect.Frame) {
	path := filepath.Join(t.TempDir(), "frames.pcapng")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var w *pcapio.Writer
	if len(ifs) == 0 {
		w, err = pcapio.NewWriter(out)
	} else {
		w, err = pcapio.NewWriterInterfaces(out, ifs...)
	}
	if err != nil {
		t.Fatal(err)
	}
	var frames []*dissect.Frame
	for _, file := range files {
		r, err := pcapio.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		max1 := 0
		if limit != nil {
			max1 = limit(file)
		}
		for n := 0; max1 == 0 || n < max1; n++ {
			fr, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if fr.LinkType != glayers.LinkTypeEthernet {
				continue
			}
			data := append([]byte(nil), fr.Data...)
			p := layers.NewParser()
			df := &dissect.Frame{Number: len(frames) + 1, Time: fr.Time, Len: max(fr.Len, len(data)), CapLen: len(data), P: p}
			df.Err = p.Decode(data)
			if !keep(file, df) {
				continue
			}
			// Frame N at second N, for tshark's io,stat.
			df.Time = time.Unix(int64(df.Number), 0)
			if len(ifs) > 0 {
				df.Interface = len(frames) % len(ifs)
				df.IfName, df.IfDescription = ifs[df.Interface].Name, ifs[df.Interface].Description
			}
			if err := w.Write(df.Interface, df.Time, data, fr.Len); err != nil {
				t.Fatal(err)
			}
			frames = append(frames, df)
		}
		r.Close()
	}
	// A last frame a second after the others, alone in the interval
	// io,stat closes with its end (tsharkSelect reads the rows before).
	last := frames[len(frames)-1]
	if err := w.Write(0, last.Time.Add(2*time.Second), []byte(last.P.Eth.Contents), 0); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return path, frames
}

// TestTsharkDifferential runs each filter of differential through tshark
// and through package filter over the same capture, and compares the frame
// numbers selected. Each filter must select some frames but not all, so
// that a filter that always (or never) matches cannot pass unnoticed.
func TestTsharkDifferential(t *testing.T) {
	bin := tsharktest.Path(t)
	path, frames := corpusCapture(t, 30)
	t.Logf("%d frames from the corpus", len(frames))
	theirs := tsharkSelect(t, bin, path, differential, len(frames))
	for i, expr := range differential {
		sameSelection(t, expr, frames, theirs[i])
	}
}

// selected returns the numbers of the frames expr selects, or the error
// compiling it.
func selected(expr string, frames []*dissect.Frame) ([]string, error) {
	f, err := filter.Compile(expr)
	if err != nil {
		return nil, err
	}
	var ours []string
	for _, fr := range frames {
		if f.Match(fr) {
			ours = append(ours, strconv.Itoa(fr.Number))
		}
	}
	return ours, nil
}

// sameSelection checks that expr selects the frames tshark selected
// (theirs, frame numbers), and some frames but not all, so that a filter
// that always (or never) matches cannot pass unnoticed.
func sameSelection(t *testing.T, expr string, frames []*dissect.Frame, theirs []string) {
	t.Helper()
	ours, err := selected(expr, frames)
	if err != nil {
		t.Errorf("%s: %v", expr, err)
		return
	}
	if got, want := strings.Join(ours, " "), strings.Join(theirs, " "); got != want {
		t.Errorf("%s:\n sfcdump selects %d frames: %s\n tshark  selects %d frames: %s", expr, len(ours), clip(got), len(theirs), clip(want))
		return
	}
	if len(ours) == 0 || len(ours) == len(frames) {
		t.Errorf("%s selects %d of %d frames: pick a filter that separates them", expr, len(ours), len(frames))
	}
}

// tsharkSelect returns, for each filter, the numbers of the frames of the
// capture at path (n frames, frame N at second N, then one more two
// seconds after the last) that tshark selects. The
// filters without a comma run together as columns of one io,stat (tshark
// starts once); the others, which io,stat would split, run one by one
// with -Y.
func tsharkSelect(t *testing.T, bin, path string, exprs []string, n int) [][]string {
	out := make([][]string, len(exprs))
	stat := "io,stat,1"
	var batched []int
	for i, expr := range exprs {
		if strings.Contains(expr, ",") {
			outb := tshark(t, bin, "-n", "-r", path, "-Y", expr, "-T", "fields", "-e", "frame.number")
			for _, num := range strings.Fields(outb) {
				if k, err := strconv.Atoi(num); err == nil && k <= n { // not the last frame
					out[i] = append(out[i], num)
				}
			}
			continue
		}
		stat += ",COUNT(frame)frame && (" + expr + ")"
		batched = append(batched, i)
	}
	if len(batched) == 0 {
		return out
	}
	rows := 0
	for _, line := range strings.Split(tshark(t, bin, "-n", "-q", "-r", path, "-z", stat), "\n") {
		cols := strings.Split(line, "|")
		if len(cols) < len(batched)+2 || !strings.Contains(cols[1], "<>") || rows == n {
			continue
		}
		rows++
		for k, i := range batched {
			switch strings.TrimSpace(cols[k+2]) {
			case "0":
			case "1":
				out[i] = append(out[i], strconv.Itoa(rows))
			default:
				t.Fatalf("io,stat row %d column %d: %q is not 0 or 1", rows, k+1, cols[k+2])
			}
		}
	}
	if rows < n {
		t.Fatalf("tshark io,stat gave %d rows for %d frames", rows, n)
	}
	return out
}

func tshark(t *testing.T, bin string, args ...string) string {
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outb, err := cmd.Output()
	if err != nil {
		t.Fatalf("tshark %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(outb)
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + " ..."
	}
	return s
}

// TestTsharkFields prints every field by each of Wireshark's names that
// sfcdump knows, and by the names both use that tshark prints in hex
// (eth.type), as sfcdump -T fields does (dissect.TsharkStyleOf and
// AppendTshark, values joined by commas), and compares the text with
// tshark -T fields on the same capture, frame by frame.
func TestTsharkFields(t *testing.T) {
	bin := tsharktest.Path(t)
	path, frames := corpusCapture(t, 30)
	var names []string
	for _, w := range dissect.WiresharkNames() {
		if w.Field != nil {
			names = append(names, w.Name)
		}
	}
	// ip.* both use are IPv4's alone in -e, as in tshark (ip.version is
	// in an IPv6 header too).
	names = append(names, "eth.type", "eth.src", "ip.version", "ip.src", "ip.dst", "ip.ttl", "ip.proto")
	// The CNP's ICRC is tshark's infiniband.vendor.
	skip := map[string]func(fr *dissect.Frame) bool{
		"infiniband.invariant.crc": func(fr *dissect.Frame) bool { return fr.P.BTH.Opcode == 129 },
	}
	sameFields(t, bin, path, frames, 1, names, skip)
}

// sameFields prints the fields names of frames, the frames of the
// capture at path (which has extra frames more after them), as sfcdump
// -T fields does, and compares the text with tshark -T fields on the
// capture, frame by frame, but for the fields skip skips in a frame.
func sameFields(t *testing.T, bin, path string, frames []*dissect.Frame, extra int, names []string, skip map[string]func(fr *dissect.Frame) bool) {
	t.Helper()
	args := []string{"-n", "-r", path, "-T", "fields"}
	for _, n := range names {
		args = append(args, "-e", n)
	}
	lines := strings.Split(strings.TrimSuffix(tshark(t, bin, args...), "\n"), "\n")
	if len(lines) != len(frames)+extra {
		t.Fatalf("tshark printed %d lines for %d frames", len(lines), len(frames)+extra)
	}
	bad := 0
	for i, fr := range frames {
		theirs := strings.Split(lines[i], "\t")
		for j, n := range names {
			fd, _ := dissect.LookupField(n)
			st, ws := dissect.TsharkStyleOf(n)
			var b []byte
			for k, v := range fd.Values(fr, nil) {
				if k > 0 {
					b = append(b, ',')
				}
				if ws {
					b = dissect.AppendTshark(b, v, st)
				} else {
					b = dissect.AppendValue(b, v, false)
				}
			}
			if s := skip[n]; s != nil && s(fr) {
				continue
			}
			if string(b) != theirs[j] && bad < 20 {
				t.Logf("frame %d: caplen %d len %d err %v", fr.Number, fr.CapLen, fr.Len, fr.Err)
				bad++
				t.Errorf("frame %d %s: sfcdump %q, tshark %q", fr.Number, n, b, theirs[j])
			}
		}
	}
}

// TestTsharkNamesAndTimes compares filters on interface names and on
// times with tshark, over the sample frames on interfaces port0, port1,
// Port1 and PORT2, written twice with the same times (as mergecap -a joins
// two captures): the first frame of the second copy is 20 µs before the
// frame before it, a negative frame.time_delta.
func TestTsharkNamesAndTimes(t *testing.T) {
	bin := tsharktest.Path(t)
	names := []string{"port0", "port1", "Port1", "PORT2"}
	path := filepath.Join(t.TempDir(), "joined.pcapng")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pcapio.NewWriter(out, names...)
	if err != nil {
		t.Fatal(err)
	}
	var frames []*dissect.Frame
	var prev time.Time
	sf := sample.Frames()
	for copyN := 0; copyN < 2; copyN++ {
		for i, x := range sf {
			n := len(frames)
			at := sample.Start.Add(time.Duration(i) * time.Microsecond)
			if err := w.Write(n%len(names), at, x.Data, len(x.Data)); err != nil {
				t.Fatal(err)
			}
			p := layers.NewParser()
			fr := &dissect.Frame{Number: n + 1, Time: at, Start: sample.Start, Prev: prev,
				IfName: names[n%len(names)], Interface: n % len(names), Len: len(x.Data), CapLen: len(x.Data), P: p}
			fr.Err = p.Decode(x.Data)
			frames = append(frames, fr)
			prev = at
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	exprs := []string{
		`frame.interface_name matches "PORT1"`,
		`frame.interface_name ~ "^port[12]$"`,
		`frame.interface_name matches "(?-i)Port1"`,
		`frame.interface_name matches "(?-i:P)ORT"`,
		`frame.interface_name contains "Port"`,
		`frame.interface_name == "Port\61"`,
		`frame.interface_name contains "\x50"`,
		`frame.interface_name matches "(?-i)port\\d"`,
		`frame.interface_name > "port0"`,
		`frame.interface_name <= "Port1"`,
		`frame.interface_name in {"PORT2".."port0"}`,
		`frame.interface_name in {"port0" .. "port1", PORT2}`,
		`frame.interface_name in {Port1..port0}`,
		"frame.time_delta < 0",
		"frame.time_delta == -0.000020",
		"frame.time_delta in {-1 .. -0.00001}",
		"frame.time_delta in {-1..0}",
		"frame.time_delta == -0",
		"frame.time_delta > -0.00001",
		"frame.time_delta < 1000000 && frame.time_delta > 0",
		"frame.time_relative > -1 && frame.time_relative <= 0.000001",
		"frame.time_epoch > -1 && frame.number < 5",
		"all frame.time_delta >= 0",
	}
	theirAll := parallel(exprs, func(expr string) string {
		cmd := exec.Command(bin, "-n", "-r", path, "-Y", expr, "-T", "fields", "-e", "frame.number")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		outb, err := cmd.Output()
		if err != nil {
			t.Errorf("tshark -Y %s: %v\n%s", expr, err, stderr.String())
		}
		return string(outb)
	})
	for k, expr := range exprs {
		sameSelection(t, expr, frames, strings.Fields(theirAll[k]))
	}
}

// TestTsharkRefuses compiles filters tshark 4.0 refuses and filters it
// takes, and checks that sfcdump does the same; where tshark names the
// largest number a field holds ("too big for this field, maximum N"),
// sfcdump's message names the same maximum. Every number field known by
// one of Wireshark's names is tried with 2^64-1.
func TestTsharkRefuses(t *testing.T) {
	bin := tsharktest.Path(t)
	path := filepath.Join("..", "pcaps", "sample.pcapng")
	exprs := []string{
		"ip.ttl == 'ab'",
		"ip.ttl == 'a",
		"ip.ttl == '\\q'",
		"frame.len == 0xFFFFFFFFFFFFFFFF",
		"frame.len == 4294967295",
		"frame.number == 4294967296",
		"frame.len == 18446744073709551616",
		"count(ip.addr) == 4294967296",
		"len(udp.payload) == 4294967296",
		"udp.dstport & 0x10000",
		"udp.dstport & 0xff == 70000",
		"udp.dstport != -70000",
		"udp.dstport == -1",
		"infiniband.bth.padcnt == 4",
		"ip.version == 200",
		`udp.payload contains "\d"`,
		`udp.payload matches "\d"`,
		`udp.payload matches "\\d"`,
		`udp.payload matches r"\d"`,
		`udp.payload contains "\400"`,
		`udp.payload contains "\1"`,
		`udp.payload contains "\18"`,
		`udp.payload contains "\x3"`,
		`udp.payload contains "\x1g"`,
		`udp.payload contains "\xg"`,
		`udp.payload contains "\'"`,
		`udp.payload contains "\u00e9"`,
		`udp.payload contains "\U0001F600"`,
		`udp.payload contains "\u0041"`,
		`udp.payload contains "\u12"`,
		"frame.time_delta == -0.000007",
		"frame.time_delta < -0.0000200001",
		"any udp.port == 4791",
		"all udp.port not in {1}",
		"all udp.port",
		`frame.interface_name > "port0"`,
		`frame.interface_name in {"port0".."port1"}`,
		"count(vlan) == 2",
	}
	for _, w := range dissect.WiresharkNames() {
		if w.Field != nil && w.Field.Kind == dissect.KindUint {
			exprs = append(exprs, w.Name+" == 18446744073709551615")
		}
	}
	maxRe := regexp.MustCompile(`maximum (\d+)`)
	// "" when tshark takes the filter, else what it says.
	refusals := parallel(exprs, func(expr string) string {
		cmd := exec.Command(bin, "-n", "-r", path, "-Y", expr, "-c", "1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if err == nil {
			return ""
		}
		if _, ok := err.(*exec.ExitError); !ok {
			t.Errorf("tshark: %v", err)
		}
		return "refused: " + stderr.String()
	})
	for k, expr := range exprs {
		theirs := refusals[k]
		_, ourErr := filter.Compile(expr)
		switch {
		case theirs == "" && ourErr != nil:
			t.Errorf("%s: tshark takes it, sfcdump refuses it: %v", expr, ourErr)
		case theirs != "" && ourErr == nil:
			t.Errorf("%s: tshark %s, sfcdump takes it", expr, strings.TrimSpace(theirs))
		case theirs != "":
			if m := maxRe.FindStringSubmatch(theirs); m != nil && !strings.Contains(ourErr.Error(), "maximum "+m[1]+" ") {
				t.Errorf("%s: tshark says maximum %s, sfcdump: %v", expr, m[1], ourErr)
			}
		}
	}
}

// parallel returns run(x) for each x of xs, running a few at a time
// (each runs tshark, which takes a while to start).
func parallel(xs []string, run func(string) string) []string {
	out := make([]string, len(xs))
	sem := make(chan struct{}, max(4, runtime.NumCPU()))
	var wg sync.WaitGroup
	for i, x := range xs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			out[i] = run(x)
			<-sem
		}()
	}
	wg.Wait()
	return out
}
