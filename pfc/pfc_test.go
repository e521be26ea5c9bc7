// SPDX-License-Identifier: Apache-2.0

package pfc

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/opensfc/sfc/device"
)

func TestQuanta(t *testing.T) {
	cases := []struct {
		bps    int64
		q      uint16
		ns     int64
		ns20us uint16 // quanta for 20 µs
	}{
		// 65535 × 512 bit / 10^10 = 3,355,392 ns.
		{10 * device.Gbps, 0xFFFF, 3_355_392, 391},
		// 65535 × 512 / 25·10^9 = 1,342,156.8 → 1,342,157; 20 µs = 976.5625 → 977.
		{25 * device.Gbps, 0xFFFF, 1_342_157, 977},
		{40 * device.Gbps, 0xFFFF, 838_848, 1563},
		{50 * device.Gbps, 0xFFFF, 671_079, 1954},
		// 100 Gb/s: 5.12 ns a quantum, 335,539.2 → 335,540; 20 µs = 3906.25 → 3907.
		{100 * device.Gbps, 0xFFFF, 335_540, 3907},
		{100 * device.Gbps, 1, 6, 3907},
		{100 * device.Gbps, 0, 0, 3907},
		{200 * device.Gbps, 0xFFFF, 167_770, 7813},
		// 400 Gb/s: 1.28 ns a quantum; 20 µs = 15625 exactly.
		{400 * device.Gbps, 0xFFFF, 83_885, 15625},
		{400 * device.Gbps, 1000, 1280, 15625},
		// 800 Gb/s: 0.64 ns a quantum; 20 µs = 31250.
		{800 * device.Gbps, 0xFFFF, 41_943, 31250},
	}
	for _, c := range cases {
		if got := QuantaToNs(c.q, c.bps); got != c.ns {
			t.Errorf("QuantaToNs(%d, %d) = %d, want %d", c.q, c.bps, got, c.ns)
		}
		if got := NsToQuanta(20_000, c.bps); got != c.ns20us {
			t.Errorf("NsToQuanta(20us, %d) = %d, want %d", c.bps, got, c.ns20us)
		}
	}
	if NsToQuanta(0, 100*device.Gbps) != 0 || NsToQuanta(-5, 100*device.Gbps) != 0 {
		t.Error("non-positive time must give 0 quanta")
	}
	if NsToQuanta(device.Second, 800*device.Gbps) != MaxQuanta || NsToQuanta(1<<62, 800*device.Gbps) != MaxQuanta {
		t.Error("long pause must clamp to 65535")
	}
}

func TestFrames(t *testing.T) {
	src := device.MAC{2, 0, 0, 0, 0, 9}
	f := AppendFrame(nil, src, 0x28, [8]uint16{3: 100, 5: 200, 7: 999})
	if len(f) != 60 || f[0] != 0x01 || f[5] != 0x01 || f[11] != 9 {
		t.Fatalf("frame % x", f)
	}
	en, times, err := Decode(f)
	if err != nil || en != 0x28 || times[3] != 100 || times[5] != 200 {
		t.Errorf("decode %08b %v %v", en, times, err)
	}
	en, times, err = Decode(AppendPause(nil, src, 77))
	if err != nil || en != 0xff || times[0] != 77 || times[7] != 77 {
		t.Errorf("pause decode %08b %v %v", en, times, err)
	}
	bad := []struct {
		name string
		f    []byte
	}{
		{"not mac control", make([]byte, 60)},
		{"short", []byte{1, 2, 3}},
		{"cut pfc", AppendFrame(nil, src, 1, [8]uint16{})[:18]},
	}
	for _, b := range bad {
		if _, _, err := Decode(b.f); err == nil {
			t.Errorf("%s: no error", b.name)
		}
	}
	if _, _, err := Decode(make([]byte, 60)); !errors.Is(err, ErrNotPause) {
		t.Errorf("want ErrNotPause, got %v", err)
	}
}

var (
	hA = netip.MustParseAddr("10.0.0.1")
	hB = netip.MustParseAddr("10.0.1.1")
)

func sw(t testing.TB, schemes ...device.Scheme) *device.Device {
	t.Helper()
	d, err := device.NewSwitch(device.Config{Name: "s", Buffer: 10_000_000, Ports: []device.PortConfig{
		{ID: 0, Speed: 100 * device.Gbps, Prefixes: []netip.Prefix{netip.PrefixFrom(hA, 32)}},
		{ID: 1, Speed: 100 * device.Gbps, Prefixes: []netip.Prefix{netip.PrefixFrom(hB, 32)}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Attach(schemes...); err != nil {
		t.Fatal(err)
	}
	return d
}

func data(t testing.TB, dscp uint8, n int) []byte {
	b, err := device.BuildUDP(nil, device.UDPSpec{Src: hA, Dst: hB, DSCP: dscp, SrcPort: 1, DstPort: 2, Len: n})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type pfcOut struct {
	t      int64
	en     uint8
	quanta uint16
}

func pfcOuts(t testing.TB, d *device.Device) *[]pfcOut {
	var outs []pfcOut
	d.OnOutput(func(o device.Out) {
		if o.Kind == device.KindPFC && o.Port == 0 {
			en, times, err := Decode(o.Frame)
			if err != nil {
				t.Fatal(err)
			}
			outs = append(outs, pfcOut{o.Time, en, times[0]})
		}
	})
	return &outs
}

// TestXOFFXON: 20 frames of 1,000 octets arrive at once on port 0 for
// port 1 (XOFF 10,000, XON 10,000 − 2 × 1,500 = 7,000). The 11th frame takes
// the count over XOFF: PFC(time 0xFFFF) out of port 0 at 0. Port 1 drains
// a frame every 81.92 ns ((1000 + 24) × 8 / 100); after 13 have left the
// count is 7,000 = XON: PFC(time 0) at ceil(13 × 81.92) = 1065.
func TestXOFFXON(t *testing.T) {
	s := NewSwitch(Params{XOFF: 10_000})
	d := sw(t, s, &Receiver{})
	outs := pfcOuts(t, d)
	for i := 0; i < 20; i++ {
		_ = d.Input(0, 0, data(t, 0, 1000))
	}
	if !s.XOFF(d, 0, 0) || s.Count(d, 0, 0) != 20_000 {
		t.Fatalf("xoff %v count %d", s.XOFF(d, 0, 0), s.Count(d, 0, 0))
	}
	d.Flush()
	want := []pfcOut{{0, 1, 0xFFFF}, {1065, 1, 0}}
	if len(*outs) != 2 || (*outs)[0] != want[0] || (*outs)[1] != want[1] {
		t.Errorf("PFC frames %v, want %v", *outs, want)
	}
	if s.XOFFSent != 1 || s.XONSent != 1 || s.Count(d, 0, 0) != 0 {
		t.Errorf("sent %d/%d count %d", s.XOFFSent, s.XONSent, s.Count(d, 0, 0))
	}
}

// TestRefresh: with port 1 paused until 400 µs, the count stays above XON:
// XOFF at 0, refreshed every 335,540 / 2 = 167,770 ns (at 167,770 and
// 335,540); the port resumes at 400,000 and XON follows 1065 ns later.
func TestRefresh(t *testing.T) {
	s := NewSwitch(Params{XOFF: 10_000})
	d := sw(t, s, &Receiver{})
	outs := pfcOuts(t, d)
	d.PauseClass(1, 0, 400_000, "test")
	for i := 0; i < 20; i++ {
		_ = d.Input(0, 0, data(t, 0, 1000))
	}
	d.Flush()
	want := []pfcOut{{0, 1, 0xFFFF}, {167_770, 1, 0xFFFF}, {335_540, 1, 0xFFFF}, {401_065, 1, 0}}
	if len(*outs) != len(want) {
		t.Fatalf("PFC frames %v, want %v", *outs, want)
	}
	for i := range want {
		if (*outs)[i] != want[i] {
			t.Errorf("PFC frames %v, want %v", *outs, want)
			break
		}
	}
}

func TestHeadroom(t *testing.T) {
	s := NewSwitch(Params{XOFF: 10_000, Headroom: 2_000})
	d := sw(t, s)
	for i := 0; i < 20; i++ {
		_ = d.Input(0, 0, data(t, 0, 1000))
	}
	d.Flush()
	if n := d.Record().Dropped("pfc headroom"); n != 7 {
		t.Errorf("headroom drops %d, want 7 (frames 14..20)", n)
	}
	if f := s.Fault(); f == nil || f.Frames != 7 || f.Octets != 7000 || f.Port != 0 || f.Priority != 0 || f.Headroom != 2000 {
		t.Errorf("fault %+v, want 7 frames of 1000 octets on port 0 priority 0, headroom 2000", f)
	}
	// A priority outside the lossless set is not counted.
	s2 := NewSwitch(Params{XOFF: 1000, Priorities: 0x02})
	d2 := sw(t, s2)
	_ = d2.Input(0, 0, data(t, 0, 1000))
	_ = d2.Input(0, 0, data(t, 0, 1000))
	if s2.XOFF(d2, 0, 0) || s2.XOFFSent != 0 {
		t.Error("priority 0 is not lossless here")
	}
}

func TestDynamicXOFF(t *testing.T) {
	// α_pfc = 1/8 of a 100,000-octet buffer: XOFF when the count exceeds
	// (100,000 − used) / 8; with frames of 1,000 the 12th frame sees count
	// 12,000 > (100,000 − 12,000) / 8 = 11,000.
	s := NewSwitch(Params{Dynamic: true})
	d, _ := device.NewSwitch(device.Config{Buffer: 100_000, Ports: []device.PortConfig{
		{ID: 0, Speed: 100 * device.Gbps, Prefixes: []netip.Prefix{netip.PrefixFrom(hA, 32)}},
		{ID: 1, Speed: 100 * device.Gbps, Prefixes: []netip.Prefix{netip.PrefixFrom(hB, 32)}},
	}})
	if err := d.Attach(s); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 12; i++ {
		_ = d.Input(0, 0, data(t, 0, 1000))
		if s.XOFF(d, 0, 0) != (i == 12) {
			t.Fatalf("frame %d: xoff %v", i, s.XOFF(d, 0, 0))
		}
	}
}

func TestParamErrors(t *testing.T) {
	cases := []struct {
		name  string
		p     Params
		param string
		buf   int64
	}{
		{"xon above xoff", Params{XOFF: 1000, XON: 2000}, "xon", 0},
		{"dynamic no buffer", Params{Dynamic: true}, "dynamic", 0},
		{"alpha", Params{Dynamic: true, AlphaPFC: 1000}, "alpha_pfc", 1000},
		{"mtu", Params{MTU: 10}, "mtu", 0},
		{"negative xoff", Params{XOFF: -1}, "xoff", 0},
	}
	for _, c := range cases {
		d, _ := device.NewSwitch(device.Config{Buffer: c.buf, Ports: []device.PortConfig{{ID: 0, Speed: 100 * device.Gbps}}})
		err := d.Attach(NewSwitch(c.p))
		var pe *device.ParamError
		if !errors.As(err, &pe) || pe.Name != c.param {
			t.Errorf("%s: %v, want error on %s", c.name, err, c.param)
		}
	}
}

// TestReceiver: PFC time 1000 quanta for priority 3 at 100 Gb/s pauses
// class 3 for 5,120 ns; class 0 flows on; time 0 resumes; PAUSE stops all.
func TestReceiver(t *testing.T) {
	r := &Receiver{}
	d := sw(t, r)
	var got []int64
	d.OnOutput(func(o device.Out) {
		if o.Port == 1 {
			got = append(got, o.Time)
		}
	})
	_ = d.Input(1, 0, AppendFrame(nil, device.MAC{}, 1<<3, [8]uint16{3: 1000}))
	_ = d.Input(0, 10, data(t, 24, 100)) // class 3: waits until 5120
	_ = d.Input(0, 20, data(t, 0, 100))  // class 0: goes now
	d.Flush()
	if len(got) != 2 || got[0] != 20 || got[1] != 5120 {
		t.Errorf("times %v, want [20 5120]", got)
	}
	got = nil
	_ = d.Input(1, 6000, AppendPause(nil, device.MAC{}, 100)) // all classes for 512 ns
	_ = d.Input(0, 6010, data(t, 0, 100))
	_ = d.Input(1, 6100, AppendFrame(nil, device.MAC{}, 1, [8]uint16{})) // resume class 0 at 6100
	_ = d.Input(0, 6110, data(t, 8, 100))                                // class 1: still paused until 6512
	d.Flush()
	if len(got) != 2 || got[0] != 6100 || got[1] != 6512 {
		t.Errorf("times %v, want [6100 6512]", got)
	}
	if r.Received != 3 {
		t.Errorf("received %d", r.Received)
	}
	// A malformed PFC is dropped and counted.
	_ = d.Input(1, 7000, AppendFrame(nil, device.MAC{}, 1, [8]uint16{})[:17])
	if d.Record().Dropped("pfc malformed")+d.Record().Dropped("malformed") == 0 {
		t.Error("malformed PFC not counted")
	}
}

// losslessSwitch is a switch with a shared buffer and the egress dynamic
// threshold (α = 1: a queue may grow to the free buffer).
func losslessSwitch(t *testing.T, buffer int64, s *Switch) *device.Device {
	t.Helper()
	d, err := device.NewSwitch(device.Config{Name: "s", Buffer: buffer, DynamicThreshold: true, Ports: []device.PortConfig{
		{ID: 0, Speed: 100 * device.Gbps, Prefixes: []netip.Prefix{netip.PrefixFrom(hA, 32)}},
		{ID: 1, Speed: 100 * device.Gbps, Prefixes: []netip.Prefix{netip.PrefixFrom(hB, 32)}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Attach(s, &Receiver{}); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestLosslessIgnoresDynamicThreshold: behaviour.md §4, lossless means
// lossless. 70 frames of 1,000 octets of a lossless priority arrive at
// once into a 100,000-octet buffer whose egress dynamic threshold (α = 1)
// stops a lossy queue at about half the buffer (q + n > free): none of
// them is dropped (the old model dropped 20 as "dynamic threshold"),
// while the same burst in a lossy class loses frames to the threshold.
func TestLosslessIgnoresDynamicThreshold(t *testing.T) {
	for _, lossless := range []bool{true, false} {
		p := Params{XOFF: 90_000, Headroom: 50_000}
		if !lossless {
			p.Priorities = 0x02 // class 0 is lossy
		}
		s := NewSwitch(p)
		d := losslessSwitch(t, 100_000, s)
		for i := 0; i < 70; i++ {
			if err := d.Input(0, 0, data(t, 0, 1000)); err != nil {
				t.Fatal(err)
			}
		}
		d.Flush()
		r := d.Record()
		if lossless {
			if n := r.Dropped(""); n != 0 {
				t.Errorf("lossless: %d frames dropped (%v), want none", n, r.Drops)
			}
			if got := r.Ports[1].TxFrames; got != 70 {
				t.Errorf("lossless: %d frames forwarded, want 70", got)
			}
			if s.Fault() != nil {
				t.Errorf("lossless: fault %v", s.Fault())
			}
		} else if n := r.Dropped("dynamic threshold"); n == 0 {
			t.Errorf("lossy: no dynamic-threshold drop (%v)", r.Drops)
		}
	}
}

// TestLosslessBufferFullUsesHeadroom: a lossless frame that finds the
// shared buffer full goes into its headroom and XOFF leaves at once, even
// below the static XOFF; once the headroom is exhausted the frames are
// dropped as "pfc headroom" and the run reports a configuration fault
// naming the port, the priority and the headroom.
func TestLosslessBufferFullUsesHeadroom(t *testing.T) {
	s := NewSwitch(Params{XOFF: 50_000, Headroom: 5_000})
	d := losslessSwitch(t, 10_000, s)
	outs := pfcOuts(t, d)
	for i := 0; i < 20; i++ {
		_ = d.Input(0, 0, data(t, 0, 1000))
	}
	r := d.Record()
	if n := r.Dropped("buffer full") + r.Dropped("dynamic threshold"); n != 0 {
		t.Errorf("%d lossless frames dropped by the shared buffer rules: %v", n, r.Drops)
	}
	if n := r.Dropped("pfc headroom"); n != 5 {
		t.Errorf("headroom drops %d, want 5 (frames 16..20): %v", n, r.Drops)
	}
	if len(*outs) == 0 || (*outs)[0].en != 1 || (*outs)[0].quanta != MaxQuanta {
		t.Errorf("PFC frames %v, want an XOFF for priority 0 when the buffer filled", *outs)
	}
	f := s.Fault()
	if f == nil {
		t.Fatal("no configuration fault after lossless drops")
	}
	if f.Frames != 5 || f.Port != 0 || f.Priority != 0 || f.Headroom != 5000 || f.Time != 0 {
		t.Errorf("fault %+v", f)
	}
	for _, w := range []string{"configuration fault", "5 lossless frame(s)", "port 0 priority 0", "headroom of 5000 octets"} {
		if !strings.Contains(f.Error(), w) {
			t.Errorf("fault %q does not say %q", f.Error(), w)
		}
	}
	d.Flush()
	if got := d.Record().Ports[1].TxFrames; got != 15 {
		t.Errorf("%d frames forwarded, want 15", got)
	}
}
