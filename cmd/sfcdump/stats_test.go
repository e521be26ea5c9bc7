// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"encoding/json"
	"math"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/pcapio"
	"github.com/opensfc/sfc/sample"
	"github.com/opensfc/sfc/stats"
)

// statsCapture writes a capture whose statistics are worked out by hand in
// TestStatsByHand. Times are µs after t0.
func statsCapture(t *testing.T) string {
	t.Helper()
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	must := func(f []byte, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	write := must(sample.RoCE(a, b, 26, 49152, &layers.BTH{Opcode: layers.OpcodeRCWriteOnly, PKey: 0xffff, DestQP: 0xd2,
		RETH: layers.RETH{DMALen: 16}}, make([]byte, 16)))
	q := layers.Quote(sample.IPPacket(write))
	bts := func(us uint16) []byte {
		return must(sample.UDPFrame(b, a, 48, 49152, layers.DefaultBTSPort, &layers.BTS{Version: 1, Origin: layers.OriginQueue,
			PauseUS: us, Reporter: 7, QueueDepth: 1000, Quote: q}))
	}
	cim := must(sample.UDPFrame(b, a, 48, 49152, layers.DefaultCIMPort, &layers.CIM{Add: true, DA: net.HardwareAddr{2, 0, 0, 0, 0, 2},
		SA: net.HardwareAddr{2, 0, 0, 0, 0, 1}, MSDU: layers.CIMMSDU(sample.IPPacket(write)), HasSFC: true,
		SFC: layers.SFCPause{PauseUS: 15, Origin: layers.OriginCache, Reporter: 9}}))
	dst := netip.MustParseAddr("10.0.0.9")
	fgp := func(us uint16) []byte {
		return must(sample.L2Frame(net.HardwareAddr{2, 0, 0, 0, 0, 3}, layers.HopByHopDst, layers.EthernetTypeFCExp,
			&layers.FGPause{Version: 1, Family: 4, Entries: []layers.DstPauseEntry{{PauseUS: us, Dst: dst}}}))
	}
	pfc := func(prio int, quanta uint16) []byte {
		m := &layers.PFC{}
		m.Enable(prio, quanta)
		return must(sample.L2Frame(net.HardwareAddr{2, 0, 0, 0, 0, 3}, layers.MACControlDst, layers.EthernetTypeMACControl, m))
	}
	pause := must(sample.L2Frame(net.HardwareAddr{2, 0, 0, 0, 0, 3}, layers.MACControlDst, layers.EthernetTypeMACControl, &layers.Pause{Quanta: 0xffff}))
	cnp := func(qp uint32) []byte {
		return must(sample.RoCE(b, a, 48, 49152, &layers.BTH{Opcode: layers.OpcodeCNP, PKey: 0xffff, BECN: true, DestQP: qp}, nil))
	}
	badICRC := append([]byte(nil), write...)
	badICRC[len(badICRC)-1] ^= 1
	shortQuote := must(sample.UDPFrame(b, a, 48, 49152, layers.DefaultBTSPort, &layers.BTS{Version: 1, PauseUS: 5, Quote: q[:20]}))

	frames := []struct {
		us    int
		iface int
		data  []byte
	}{
		{0, 1, bts(20)}, {0, 1, pfc(3, 1000)}, {5, 0, write},
		{10, 1, bts(30)}, {10, 1, pfc(3, 500)},
		{50, 1, cim}, {55, 1, bts(0)},
		{60, 1, cnp(0xd2)}, {61, 1, cnp(0xd2)}, {62, 1, cnp(0xd2)}, {63, 1, cnp(0x11)},
		{70, 0, badICRC}, {80, 1, shortQuote},
		{100, 1, fgp(0xffff)}, {130, 1, fgp(0)},
		{200, 1, pfc(5, 0)}, {300, 0, pause},
	}
	path := filepath.Join(t.TempDir(), "stats.pcapng")
	var buf bytes.Buffer
	w, err := pcapio.NewWriter(&buf, "port0", "port1")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, f := range frames {
		if err := w.Write(f.iface, t0.Add(time.Duration(f.us)*time.Microsecond), f.data, len(f.data)); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	os.WriteFile(path, buf.Bytes(), 0o644)
	return path
}

func TestStatsByHand(t *testing.T) {
	path := statsCapture(t)
	out, errs, code := sfcdump(t, "stats", "--json", "--link-speed", "port1=25G", path)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r stats.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-3 { // paused times are whole nanoseconds
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	if r.Frames != 17 || r.DurationUS != 300 {
		t.Errorf("frames %d span %v, want 17 and 300", r.Frames, r.DurationUS)
	}
	// Flow 10.0.0.1 > 10.0.0.2 qp 0xd2: BTS 20 at 0 (cut at 10: 10 us), BTS
	// 30 at 10 (runs out at 40: 30 us), CIM 15 at 50 (resumed at 55: 5 us).
	// The short-quote BTS names no flow and counts only as malformed.
	if len(r.Flows) != 2 {
		t.Fatalf("flows: %+v", r.Flows)
	}
	f := r.Flows[0]
	if f.Label != "10.0.0.1:49152 > 10.0.0.2:4791 qp 0x0000d2" || f.Signals != 3 || f.Resumes != 1 || f.BTS != 3 || f.CIM != 1 {
		t.Errorf("flow row %+v", f)
	}
	near("flow requested_us", f.RequestedUS, 65)
	near("flow paused_us", f.PausedUS, 45)
	// dst-pause until resumed at 100, resumed at 130.
	g := r.Flows[1]
	if g.Label != "* > 10.0.0.9 (dst-pause)" || g.Signals != 1 || g.Resumes != 1 || g.FG != 2 {
		t.Errorf("dst-pause row %+v", g)
	}
	near("dst-pause paused_us", g.PausedUS, 30)
	// PFC port1 prio 3 at 25G: 1000 quanta (20.48 us) at 0, cut at 10; 500
	// quanta (10.24 us) at 10. PAUSE port0 at 100G: 65535 quanta, 335.5392
	// us, running past the end of the capture.
	if len(r.PFC) != 3 {
		t.Fatalf("pfc rows: %+v", r.PFC)
	}
	want := []struct {
		iface, prio       string
		frames            int
		quanta            uint64
		quantaUS, pauseUS float64
		speed             string
	}{
		{"port0", "all", 1, 65535, 335.5392, 335.5392, "100G"},
		{"port1", "3", 2, 1500, 30.72, 20.24, "25G"},
		{"port1", "5", 1, 0, 0, 0, "25G"},
	}
	for i, w := range want {
		p := r.PFC[i]
		if p.Interface != w.iface || p.Priority != w.prio || p.Frames != w.frames || p.Quanta != w.quanta || p.LinkSpeed != w.speed {
			t.Errorf("pfc row %d: %+v, want %+v", i, p, w)
		}
		near("pfc quanta_us "+w.iface+"/"+w.prio, p.QuantaUS, w.quantaUS)
		near("pfc paused_us "+w.iface+"/"+w.prio, p.PausedUS, w.pauseUS)
	}
	if len(r.CNPs) != 2 || r.CNPs[0].DestQP != 0xd2 || r.CNPs[0].CNPs != 3 || r.CNPs[0].Src != "10.0.0.2" || r.CNPs[1].DestQP != 0x11 || r.CNPs[1].CNPs != 1 {
		t.Errorf("cnps %+v", r.CNPs)
	}
	if r.ICRC.Checked != 6 || r.ICRC.Failed != 1 || len(r.ICRC.Frames) != 1 || r.ICRC.Frames[0] != 12 {
		t.Errorf("icrc %+v", r.ICRC)
	}
	if r.Malformed.Frames != 1 || r.Malformed.Reasons[0].Reason != "bts: quote too short to name a flow" || r.Malformed.Reasons[0].Frames[0] != 13 {
		t.Errorf("malformed %+v", r.Malformed)
	}
	if len(r.Reporters) != 2 || r.Reporters[0].Reporter != "reporter 7" || r.Reporters[0].BTS != 3 || r.Reporters[0].Queue != 3 ||
		r.Reporters[1].Reporter != "reporter 9" || r.Reporters[1].CIM != 1 || r.Reporters[1].Cache != 1 {
		t.Errorf("reporters %+v", r.Reporters)
	}
	// Histogram: resumes bts 1, fgpause 1, pfc 1; bts 20 and 30 in 16-31,
	// cim 15 in 8-15; pfc 20.48 in 16-31, 10.24 in 8-15; pause 335.5 in
	// 256-511; dst-pause until resumed in the open bucket.
	hist := map[string]map[string]int{}
	for _, b := range r.Histogram {
		hist[b.Label] = b.Counts
	}
	for label, want := range map[string]map[string]int{
		"0 (resume)": {"bts": 1, "fgpause": 1, "pfc": 1},
		"8-15":       {"cim": 1, "pfc": 1},
		"16-31":      {"bts": 2, "pfc": 1},
		"256-511":    {"pause": 1},
		">=65536":    {"fgpause": 1},
	} {
		for k, n := range want {
			if hist[label][k] != n {
				t.Errorf("histogram %s %s = %d, want %d (%v)", label, k, hist[label][k], n, hist)
			}
		}
	}
	if len(r.Histogram) != 5 {
		t.Errorf("histogram has %d buckets, want 5: %+v", len(r.Histogram), r.Histogram)
	}
	// The text report says the same.
	text, _, _ := sfcdump(t, "stats", "--link-speed", "port1=25G", path)
	for _, s := range []string{"10.0.0.1:49152 > 10.0.0.2:4791 qp 0x0000d2  3        1        3    1    0        65.000        45.000",
		"port1      3     2       2       0        1500    30.720     25G   20.240", "ICRC: 6 checked, 1 failed (frames 12)"} {
		if !strings.Contains(text, s) {
			t.Errorf("text report lacks %q:\n%s", s, text)
		}
	}
}

func TestStatsGolden(t *testing.T) {
	out, errs, code := sfcdump(t, "stats", sampleCap)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	golden(t, "sample-stats.txt", out)
}

func TestStatsProgress(t *testing.T) {
	// Off the terminal, auto shows nothing; always shows progress on stderr.
	if _, errs, _ := sfcdump(t, "stats", sampleCap); errs != "" {
		t.Errorf("progress shown off a terminal: %q", errs)
	}
	_, errs, code := sfcdump(t, "stats", "--progress", "always", sampleCap)
	if code != 0 || !strings.Contains(errs, "sample.pcapng: 0 frames") {
		t.Errorf("--progress always: exit %d, stderr %q", code, errs)
	}
	if _, errs, code := sfcdump(t, "stats", "--progress", "sometimes", sampleCap); code != 2 || !strings.Contains(errs, "auto, always or never") {
		t.Errorf("bad --progress: exit %d, %q", code, errs)
	}
}

// TestStatsNoCapture: when no input is a capture, stats prints the error
// and exits 2 with nothing on stdout, as text or JSON: an empty report
// would read as a capture without frames. With one good input beside a
// bad one, the good one's report is printed and the exit is still 2.
func TestStatsNoCapture(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty")
	os.WriteFile(empty, nil, 0o644)
	for _, args := range [][]string{{"stats", empty}, {"stats", "--json", empty}, {"stats", "--json", empty, "/nonexistent.pcap"}} {
		out, errs, code := sfcdump(t, args...)
		if code != 2 || out != "" || !strings.Contains(errs, "not a pcap") && !strings.Contains(errs, "no such file") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	out, _, code := sfcdump(t, "stats", "--json", sampleCap, empty)
	if code != 2 || !strings.Contains(out, `"frames"`) {
		t.Errorf("a good and a bad input: exit %d, stdout %q", code, out)
	}
}

// TestLinkSpeedNamesAnInterface: --link-speed (or --speed) naming an
// interface that no input has, by name or index, is a usage error (exit
// 2) after the run, in read and stats: a typo would otherwise leave the
// pause times at the default speed without a word. Names and indexes the
// capture has, with or without frames, are fine.
func TestLinkSpeedNamesAnInterface(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"read", "--link-speed", "port9=25G", sampleCap}, 2},
		{[]string{"read", "--speed", "7=25G", sampleCap}, 2},
		{[]string{"stats", "--link-speed", "portX=25G", sampleCap}, 2},
		{[]string{"read", "--link-speed", "port1=25G", "--link-speed", "0=40G", sampleCap}, 0},
		{[]string{"read", "-c", "1", "--link-speed", "port0=25G", sampleCap}, 0},
		{[]string{"stats", "--link-speed", "port0=25G", sampleCap}, 0},
		{[]string{"read", "--link-speed", "25G", sampleCap}, 0},
	} {
		_, errs, code := sfcdump(t, tc.args...)
		if code != tc.code || (code == 2) != strings.Contains(errs, "no interface of the input has that name or index") {
			t.Errorf("%v: exit %d, stderr %q; want %d", tc.args, code, errs, tc.code)
		}
	}
}

// TestStatsNumbersAcrossFiles: stats numbers frames across the files it
// reads, as read does: the malformed examples of a second file and the
// frame an error follows.
func TestStatsNumbersAcrossFiles(t *testing.T) {
	out, _, code := sfcdump(t, "stats", malformedCap, malformedCap)
	if code != 0 || !strings.Contains(out, "(frames 5, 14)") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	data, err := os.ReadFile(sampleCap)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.pcapng")
	if err := os.WriteFile(cut, data[:1500], 0o644); err != nil {
		t.Fatal(err)
	}
	_, readErr, _ := sfcdump(t, "read", sampleCap, cut)
	_, statsErr, code := sfcdump(t, "stats", sampleCap, cut)
	if code != 1 || statsErr != readErr || !strings.Contains(statsErr, "after frame 29 (the last good one)") {
		t.Errorf("stats (exit %d): %q; read: %q", code, statsErr, readErr)
	}
}
