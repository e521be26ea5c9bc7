// SPDX-License-Identifier: Apache-2.0

package stats

import (
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opensfc/sfc/bts"
	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/sample"
)

// TestUntimedFrames: a frame without a timestamp (zero Time: a pcapng
// simple packet block) is counted, but neither moves the capture's span
// (it once stretched it back to year 1) nor gives a pause signal.
func TestUntimedFrames(t *testing.T) {
	pause, _ := hex.DecodeString("0180c2000001020000000002880800010100" + strings.Repeat("00", 42))
	c := New()
	p := layers.NewParser()
	t0 := time.Unix(1_700_000_000, 0)
	for i, at := range []time.Time{t0, {}, t0.Add(time.Second)} {
		f := dissect.Frame{Number: i + 1, Time: at, Len: len(pause), CapLen: len(pause), P: p, LinkBPS: 100e9}
		f.Err = p.Decode(pause)
		c.Add(&f, "port0")
	}
	r := c.Finish()
	if r.Frames != 3 || r.Untimed != 1 || r.Start == nil || !r.Start.Equal(t0) || !r.End.Equal(t0.Add(time.Second)) || r.DurationUS != 1e6 {
		t.Fatalf("frames %d, untimed %d, span %v .. %v (%g us)", r.Frames, r.Untimed, r.Start, r.End, r.DurationUS)
	}
	if len(r.PFC) != 1 || r.PFC[0].Frames != 2 || r.PFC[0].Signals != 2 {
		t.Errorf("PAUSE rows: %+v (want the two timed frames)", r.PFC)
	}
	var b strings.Builder
	if err := r.WriteText(&b, 0); err != nil || !strings.Contains(b.String(), "(2023-11-14T22:13:20Z .. 2023-11-14T22:13:21Z)  1 without a timestamp") {
		t.Errorf("text: %v\n%s", err, b.String())
	}
	// Only untimed frames: no span at all.
	c = New()
	f := dissect.Frame{Number: 1, Len: len(pause), CapLen: len(pause), P: p}
	f.Err = p.Decode(pause)
	c.Add(&f, "port0")
	if r := c.Finish(); r.Start != nil || r.End != nil || r.DurationUS != 0 || r.Untimed != 1 {
		t.Errorf("untimed only: %v .. %v, %g us", r.Start, r.End, r.DurationUS)
	}
}

// TestEmptyListsAreArrays: a report of a capture with nothing to list has
// every list as [] in JSON, not null, and the same µs as read shows for a
// pause (whole nanoseconds): 0xFFFF quanta at 25G is 1342.156, not .157.
func TestEmptyListsAreArrays(t *testing.T) {
	b, err := json.Marshal(New().Finish())
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"protocols", "flows", "pfc", "pause_histogram", "reporters", "cnps", "warnings"} {
		if !strings.Contains(string(b), `"`+key+`":[]`) {
			t.Errorf("%s is not []: %s", key, b)
		}
	}
	if got := quantaUS(0xffff, 25e9); got != 1342.156 {
		t.Errorf("quantaUS(0xffff, 25G) = %v", got)
	}
}

// TestRowsKeptApart: two interfaces of one name at two speeds (two pcapng
// sections) are two PFC rows, each consistent with its speed (they were
// one row whose quanta_us contradicted its paused_us); two flows that
// differ only in DSCP are labelled with it (they printed as one flow
// twice).
func TestRowsKeptApart(t *testing.T) {
	pfc, _ := hex.DecodeString("0180c2000001020000000002880801010008000000000000ffff" + strings.Repeat("00", 34))
	c := New()
	p := layers.NewParser()
	t0 := time.Unix(1_700_000_000, 0)
	for i, bps := range []uint64{100e9, 25e9} {
		f := dissect.Frame{Number: i + 1, Time: t0.Add(time.Duration(i) * time.Millisecond), Len: len(pfc), CapLen: len(pfc), P: p, LinkBPS: bps}
		f.Err = p.Decode(pfc)
		c.Add(&f, "port1")
	}
	for i, dscp := range []byte{26, 34} {
		data, _ := hex.DecodeString(strings.ReplaceAll("020000000002020000000001 0800 4500004400010000401100000a0000010a000002 c00012b700300000 0a400000000000d2000003e8", " ", "") + strings.Repeat("00", 28))
		data[15] = dscp << 2
		b, err := bts.Build(nil, data, bts.Signal{PauseUS: 10, CPPort: 0xffff, Origin: layers.OriginQueue}, bts.BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		f := dissect.Frame{Number: 3 + i, Time: t0.Add(time.Duration(2+i) * time.Millisecond), Len: len(b), CapLen: len(b), P: p, LinkBPS: 100e9}
		f.Err = p.Decode(b)
		c.Add(&f, "port0")
	}
	r := c.Finish()
	if len(r.PFC) != 2 || r.PFC[0].LinkSpeed == r.PFC[1].LinkSpeed {
		t.Fatalf("PFC rows %+v: want one per speed", r.PFC)
	}
	for _, row := range r.PFC {
		if row.Frames != 1 || row.QuantaUS != row.PausedUS {
			t.Errorf("row %+v: quanta_us and paused_us disagree", row)
		}
	}
	if len(r.Flows) != 2 || r.Flows[0].Label == r.Flows[1].Label || !strings.Contains(r.Flows[0].Label+r.Flows[1].Label, "dscp 26") {
		t.Errorf("flows %q / %q: want two labels, naming the DSCP", r.Flows[0].Label, r.Flows[len(r.Flows)-1].Label)
	}
}

// TestTablesBounded: past MaxRows rows a table takes no new row (memory
// does not grow with a capture of ever new flows); what it could not take
// is counted in Untracked, while the totals and the histogram count all.
func TestTablesBounded(t *testing.T) {
	defer func(m int) { MaxRows = m }(MaxRows)
	MaxRows = 4
	p := layers.NewParser()
	c := New()
	t0 := time.Unix(1_700_000_000, 0)
	const n = 10
	for i := 0; i < n; i++ {
		// A BTS from reporter i about a flow of source port i, and a CNP
		// to queue pair i.
		data, _ := hex.DecodeString(strings.ReplaceAll("020000000002020000000001 0800 4500004400010000401100000a0000010a000002 c00012b700300000 0a400000000000d2000003e8", " ", "") + strings.Repeat("00", 28))
		data[34], data[35] = 0xc0, byte(i)
		b, err := bts.Build(nil, data, bts.Signal{PauseUS: 10, CPPort: 0xffff, Origin: layers.OriginQueue, Reporter: uint32(i)}, bts.BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cnp, _ := hex.DecodeString(strings.ReplaceAll("020000000001020000000002 0800 4500003c00010000401100000a0000020a000001 c00012b700280000 8140ffff000000d200000000", " ", "") + strings.Repeat("00", 20))
		cnp[49] = byte(i) // the destination QP's low octet
		for j, fr := range [][]byte{b, cnp} {
			f := dissect.Frame{Number: 2*i + j + 1, Time: t0.Add(time.Duration(2*i+j) * time.Microsecond), Len: len(fr), CapLen: len(fr), P: p, LinkBPS: 100e9}
			f.Err = p.Decode(fr)
			c.Add(&f, "port0")
		}
	}
	r := c.Finish()
	if r.Frames != 2*n || len(r.Flows) != 4 || len(r.Reporters) != 4 || len(r.CNPs) != 4 {
		t.Fatalf("frames %d, rows: %d flows, %d reporters, %d CNP senders; want %d frames, 4 rows each", r.Frames, len(r.Flows), len(r.Reporters), len(r.CNPs), 2*n)
	}
	if u := r.Untracked; u == nil || u.Flows != n-4 || u.Reporters != n-4 || u.CNPs != n-4 {
		t.Fatalf("untracked %+v, want %d flow signals, reporter signals and CNPs", u, n-4)
	}
	hist := 0
	for _, h := range r.Histogram {
		hist += h.Counts["bts"]
	}
	if hist != n {
		t.Errorf("histogram counts %d BTS, want all %d", hist, n)
	}
	var b strings.Builder
	if err := r.WriteText(&b, 0); err != nil || !strings.Contains(b.String(), "each table keeps at most 4 rows; the totals count them): 6 flow signals, 0 PFC/PAUSE signals, 6 reporter signals, 6 CNPs") {
		t.Errorf("text: %v\n%s", err, b.String())
	}
	js, _ := json.Marshal(r)
	if !strings.Contains(string(js), `"untracked":{"flow_signals":6,`) {
		t.Errorf("JSON: %s", js)
	}
	if js, _ := json.Marshal(New().Finish()); strings.Contains(string(js), "untracked") {
		t.Errorf("nothing untracked, yet: %s", js)
	}
}

// TestRuntNotTruncated: a PFC frame whose layer ran out of octets is
// grouped as "frame too short" (a runt, malformed) when the capture kept
// it whole, and as "truncated" when the capture cut it, as read words
// the two.
func TestRuntNotTruncated(t *testing.T) {
	pfc, _ := hex.DecodeString("0180c2000001020000000002880801010008")
	c := New()
	p := layers.NewParser()
	for i, origLen := range []int{len(pfc), 64} {
		f := dissect.Frame{Number: i + 1, Len: origLen, CapLen: len(pfc), P: p, LinkBPS: 100e9}
		f.Err = p.Decode(pfc)
		c.Add(&f, "port0")
	}
	r := c.Finish()
	var got []string
	for _, m := range r.Malformed.Reasons {
		got = append(got, m.Reason)
	}
	if strings.Join(got, "|") != "pfc: frame too short|pfc: truncated" {
		t.Errorf("malformed reasons %q", got)
	}
}

// TestICRCOfCutFrame: a RoCEv2 frame the capture cut (caplen < len) has
// no ICRC in the capture: stats does not count it as checked (nor
// failed), as read shows no ICRC verdict for it; the same frame whole is
// checked.
func TestICRCOfCutFrame(t *testing.T) {
	c := New()
	p := layers.NewParser()
	frame := sampleRoCE(t)
	for i, origLen := range []int{len(frame), len(frame) + 14} {
		f := dissect.Frame{Number: i + 1, Len: origLen, CapLen: len(frame), P: p, LinkBPS: 100e9}
		f.Err = p.Decode(frame)
		c.Add(&f, "port0")
	}
	rep := c.Finish()
	if rep.ICRC.Checked != 1 {
		t.Errorf("ICRC checked %d times, want 1 (the whole frame only): %+v", rep.ICRC.Checked, rep.ICRC)
	}
}

// sampleRoCE returns a sample RoCEv2 frame whose ICRC checks.
func sampleRoCE(t *testing.T) []byte {
	p := layers.NewParser()
	for _, f := range sample.Frames() {
		if p.Decode(f.Data) == nil && p.Has(layers.LayerTypeBTH) && p.BTH.ICRCChecked && p.BTH.ICRCOK {
			return f.Data
		}
	}
	t.Fatal("no sample RoCEv2 frame with a good ICRC")
	return nil
}

// TestFrameListsSayWhenCut: a malformation's frame list shows the first
// five frames and ends with "…" when there were more.
func TestFrameListsSayWhenCut(t *testing.T) {
	pfc, _ := hex.DecodeString("0180c2000001020000000002880801010008")
	for _, n := range []int{5, 7} {
		c := New()
		p := layers.NewParser()
		for i := 0; i < n; i++ {
			f := dissect.Frame{Number: i + 1, Len: len(pfc), CapLen: len(pfc), P: p}
			f.Err = p.Decode(pfc)
			c.Add(&f, "port0")
		}
		var b strings.Builder
		c.Finish().WriteText(&b, 0)
		want := map[int]string{5: "(frames 1, 2, 3, 4, 5)\n", 7: "(frames 1, 2, 3, 4, 5, …)\n"}[n]
		if !strings.Contains(b.String(), want) {
			t.Errorf("%d frames:\n%s", n, b.String())
		}
	}
}

// TestWrongValueNamesField: a BTS whose quoted packet has an unknown IP
// version, and one of an unknown version of its own, are two rows of the
// malformed frames ("bts.quote: unknown version", "bts.version: unknown
// version"); they were one, "bts: unknown version", which read as the
// BTS's own version for both.
func TestWrongValueNamesField(t *testing.T) {
	const (
		head = "020000000001 020000000002 0800 45c0 0054 0000 0000 4011 0000 0a000002 0a000001 c00003fd00400000"
		bts  = "11000014 00000007 00050003 0005b8d8"
		rest = "68003c000000004011000a0a0000010a000002c00012b7002800000a00ffff000000d200000000"
	)
	c := New()
	p := layers.NewParser()
	for i, h := range []string{head + bts + "55" + rest, head + "21" + bts[2:] + "45" + rest} {
		data, err := hex.DecodeString(strings.ReplaceAll(h, " ", ""))
		if err != nil {
			t.Fatal(err)
		}
		f := dissect.Frame{Number: i + 1, Len: len(data), CapLen: len(data), P: p, LinkBPS: 100e9}
		f.Err = p.Decode(data)
		c.Add(&f, "port0")
	}
	var got []string
	for _, m := range c.Finish().Malformed.Reasons {
		got = append(got, m.Reason)
	}
	slices.Sort(got)
	if strings.Join(got, "|") != "bts.quote: unknown version|bts.version: unknown version" {
		t.Errorf("malformed reasons %q", got)
	}
}
