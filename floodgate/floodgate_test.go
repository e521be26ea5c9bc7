// SPDX-License-Identifier: Apache-2.0

package floodgate

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"testing"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

var (
	h0 = netip.MustParseAddr("10.1.0.1") // host behind port 0
	h1 = netip.MustParseAddr("10.1.0.2") // host behind port 1
	h2 = netip.MustParseAddr("10.1.0.3") // host behind port 2
	d1 = netip.MustParseAddr("10.2.0.1")
	d2 = netip.MustParseAddr("10.2.0.2")
)

func data(t testing.TB, src, dst netip.Addr, n int) []byte {
	t.Helper()
	b, err := device.BuildUDP(nil, device.UDPSpec{Src: src, Dst: dst, SrcPort: 7, DstPort: 4791, Len: n})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type rig struct {
	d    *device.Device
	s    *Switch
	outs []device.Out
}

func (r *rig) input(t testing.TB, port int, at int64, f []byte) {
	t.Helper()
	if err := r.d.Input(port, at, f); err != nil {
		t.Fatal(err)
	}
}

// count returns the data frames the switch sent on port.
func (r *rig) count(port int) int {
	n := 0
	for _, o := range r.outs {
		if o.Port == port && o.Kind == device.KindData {
			n++
		}
	}
	return n
}

func (r *rig) credits(t testing.TB, port int) ([][]layers.CreditEntry, []int64) {
	t.Helper()
	var fs [][]layers.CreditEntry
	var ts []int64
	for _, o := range r.outs {
		if o.Port != port {
			continue
		}
		var l layers.FGCredit
		if err := DecodeCredit(o.Frame, &l); err != nil {
			continue
		}
		fs = append(fs, append([]layers.CreditEntry(nil), l.Entries...))
		ts = append(ts, o.Time)
	}
	return fs, ts
}

func (r *rig) pauses(t testing.TB, port int) []layers.DstPauseEntry {
	t.Helper()
	var ps []layers.DstPauseEntry
	for _, o := range r.outs {
		var l layers.FGPause
		if o.Port == port && DecodeDstPause(o.Frame, &l) == nil {
			ps = append(ps, l.Entries...)
		}
	}
	return ps
}

// newRig builds a switch with host ports 0, 1, 2 (10.1.0.1..3) and two
// ports toward other switches: port 3 (10.2.0.1) and port 4 (10.2.0.2),
// all 100 Gb/s, with Floodgate p.
func newRig(t testing.TB, p Params) *rig {
	t.Helper()
	d, err := device.NewSwitch(device.Config{Name: "sw", Ports: []device.PortConfig{
		{ID: 0, Speed: 100 * device.Gbps, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(h0, 32)}},
		{ID: 1, Speed: 100 * device.Gbps, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(h1, 32)}},
		{ID: 2, Speed: 100 * device.Gbps, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(h2, 32)}},
		{ID: 3, Speed: 100 * device.Gbps, Prefixes: []netip.Prefix{netip.PrefixFrom(d1, 32)}},
		{ID: 4, Speed: 100 * device.Gbps, Prefixes: []netip.Prefix{netip.PrefixFrom(d2, 32)}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{d: d, s: NewSwitch(p)}
	if err := d.Attach(r.s); err != nil {
		t.Fatal(err)
	}
	d.OnOutput(func(o device.Out) {
		o.Frame = append([]byte(nil), o.Frame...)
		r.outs = append(r.outs, o)
	})
	return r
}

func credit(t testing.TB, es ...layers.CreditEntry) []byte {
	t.Helper()
	f, err := AppendCredit(nil, device.MAC{2}, es)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestInitialWindow(t *testing.T) {
	// The Floodgate example: 100 Gb/s, 600 ns links, m = 1.5, τ = 10 µs.
	// BDP_nexthop = 100 Gb/s × RTT; with RTT = 2 × 600 ns = 1.2 µs it is
	// 12.5 octets/ns × 1,200 ns = 15,000 octets, and W = 1.5 × 15,000 +
	// 12.5 × 10,000 = 22,500 + 125,000 = 147,500 octets. (With the one-way
	// 600 ns as the "RTT" it would be 136,250.)
	bdp := BDP(100*device.Gbps, 1200)
	if bdp != 15_000 {
		t.Fatalf("BDP %d", bdp)
	}
	if w := Window(1.5, bdp, 100*device.Gbps, 10*device.Microsecond); w != 147_500 {
		t.Errorf("W = %d, want 147,500", w)
	}
	if w := Window(1.5, BDP(100*device.Gbps, 600), 100*device.Gbps, 10*device.Microsecond); w != 136_250 {
		t.Errorf("one-way W = %d", w)
	}
	// The default m is 1 (behaviour.md §7): W = BDP_nextHop + C_out × τ =
	// 15,000 + 125,000 (the old default m = 1.5 gave 147,500).
	r := newRig(t, Params{})
	if w := r.s.InitialWindow(r.d, 3); w != 140_000 || r.s.P.M != 1 {
		t.Errorf("switch W0 = %d with m = %v, want 140,000 with m = 1", w, r.s.P.M)
	}
	if r15 := newRig(t, Params{M: 1.5}); r15.s.InitialWindow(r15.d, 3) != 147_500 {
		t.Errorf("m = 1.5: W0 = %d", r15.s.InitialWindow(r15.d, 3))
	}
	// 400 Gb/s, BDP 60,000: 90,000 + 500,000.
	if w := Window(1.5, BDP(400*device.Gbps, 1200), 400*device.Gbps, 10*device.Microsecond); w != 590_000 {
		t.Errorf("400G W = %d", w)
	}
	dp, dc := r.s.Thresholds()
	if dp != 22_500 || dc != 22_500 {
		t.Errorf("thresholds %d %d, want 1.5 × 15,000", dp, dc)
	}
}

// TestWindowAndVOQ: with m = 1.5, 200 frames of 1,000 octets for d1 at
// time 0 from host port 0: 147 pass (147,000 ≤ 147,500), the rest wait in d1's VOQ; a frame
// for d2 is not held by d1's window; credits of 3,000 octets release 3
// frames (500 + 3,000 = 3,500 covers three), in order.
func TestWindowAndVOQ(t *testing.T) {
	r := newRig(t, Params{M: 1.5, NoDstPause: true})
	for i := 0; i < 200; i++ {
		f := data(t, h0, d1, 1000)
		f[14+4], f[14+5] = byte(i>>8), byte(i) // IPv4 identification = sequence
		r.input(t, 0, 0, f)
	}
	r.input(t, 0, 0, data(t, h0, d2, 1000))
	w, voq, ok := r.s.Window(d1)
	if !ok || w != 500 || voq != 53_000 {
		t.Fatalf("W %d voq %d", w, voq)
	}
	r.d.AdvanceTo(50_000)
	if n := r.count(3); n != 147 {
		t.Fatalf("%d frames to d1 passed", n)
	}
	if n := r.count(4); n != 1 {
		t.Errorf("%d frames to d2", n)
	}
	r.input(t, 3, 50_000, credit(t, layers.CreditEntry{Credits: 3000, Dst: d1}))
	r.d.AdvanceTo(60_000)
	if n := r.count(3); n != 150 {
		t.Fatalf("after 3,000 credits: %d frames", n)
	}
	if w, voq, _ := r.s.Window(d1); w != 500 || voq != 50_000 {
		t.Errorf("W %d voq %d", w, voq)
	}
	// In order: identification 0..149.
	k := 0
	for _, o := range r.outs {
		if o.Port == 3 && o.Kind == device.KindData {
			if id := int(o.Frame[18])<<8 | int(o.Frame[19]); id != k {
				t.Fatalf("frame %d has id %d", k, id)
			}
			k++
		}
	}
	// Credits beyond W0 are not kept; credits on the wrong port or for an
	// unknown destination are stray.
	r.input(t, 3, 60_000, credit(t, layers.CreditEntry{Credits: 1 << 30, Dst: d1}))
	r.input(t, 4, 60_000, credit(t, layers.CreditEntry{Credits: 10, Dst: d1}, layers.CreditEntry{Credits: 20, Dst: netip.MustParseAddr("10.9.9.9")}))
	r.d.Flush()
	if n := r.count(3); n != 200 {
		t.Errorf("%d frames", n)
	}
	if w, voq, _ := r.s.Window(d1); w != 147_500-50_000 || voq != 0 {
		t.Errorf("W %d voq %d", w, voq)
	}
	if r.s.StrayCredits != 1<<30-(147_500-500)+30 {
		t.Errorf("stray %d", r.s.StrayCredits)
	}
}

// TestCreditAggregation: the switch counts forwarded data octets per
// (ingress port, destination) for its switch-facing ports and sends one
// credit frame per port every τ with every pending count, in the order the
// destinations first appeared; hosts get none.
func TestCreditAggregation(t *testing.T) {
	r := newRig(t, Params{NoDstPause: true})
	// From port 3 (a switch): 5 × 1,000 to h0, 2 × 500 to h1, then 3 × 1,000
	// to h0 again. From port 4: 4 × 200 to h1 (captured 200). From host
	// port 2: 10 × 1,000 to h0 (no credits: a host).
	for i := 0; i < 5; i++ {
		r.input(t, 3, 100, data(t, d1, h0, 1000))
	}
	for i := 0; i < 2; i++ {
		r.input(t, 3, 200, data(t, d1, h1, 500))
	}
	for i := 0; i < 3; i++ {
		r.input(t, 3, 300, data(t, d1, h0, 1000))
	}
	for i := 0; i < 4; i++ {
		r.input(t, 4, 400, data(t, d2, h1, 200))
	}
	for i := 0; i < 10; i++ {
		r.input(t, 2, 500, data(t, h2, h0, 1000))
	}
	r.d.AdvanceTo(25_000)
	fs, ts := r.credits(t, 3)
	want := []layers.CreditEntry{{Credits: 8000, Dst: h0}, {Credits: 1000, Dst: h1}}
	if len(fs) != 1 || ts[0] != 10_000 || fmt.Sprint(fs[0]) != fmt.Sprint(want) {
		t.Errorf("port 3: credit frames %v at %v, want one at 10,000 ns with %v", fs, ts, want)
	}
	fs, ts = r.credits(t, 4)
	if len(fs) != 1 || ts[0] != 10_000 || fmt.Sprint(fs[0]) != fmt.Sprint([]layers.CreditEntry{{Credits: 800, Dst: h1}}) {
		t.Errorf("port 4: %v at %v", fs, ts)
	}
	for _, p := range []int{0, 1, 2} {
		if fs, _ := r.credits(t, p); len(fs) != 0 {
			t.Errorf("host port %d got credits %v", p, fs)
		}
	}
	if r.s.Pending(r.d, 3, h0) != 0 || r.s.CreditsSent != 9800 || r.s.CreditFrames != 2 {
		t.Errorf("pending %d sent %d frames %d", r.s.Pending(r.d, 3, h0), r.s.CreditsSent, r.s.CreditFrames)
	}
	// A count that arrives at 25 µs goes in the frame of 30 µs.
	r.input(t, 3, 25_000, data(t, d1, h0, 700))
	r.d.Flush()
	if fs, ts := r.credits(t, 3); len(fs) != 2 || ts[1] != 30_000 || fs[1][0].Credits != 700 {
		t.Errorf("second frame %v at %v", fs, ts)
	}
}

// TestCreditAtEnqueue: behaviour.md §7, the downstream counts a frame's
// octets when it joins its egress queue, not when it leaves. 100 frames of
// 1,000 octets from switch port 3 to host h0 at 9 µs take 8.2 µs to leave
// port 0, yet the credit frame of the 10 µs tick returns all 100,000
// octets (counting at departure returned the 12 that had left, 12,000).
// Frames that wait in a VOQ here are counted when they leave it
// (TestDelayCredit).
func TestCreditAtEnqueue(t *testing.T) {
	r := newRig(t, Params{NoDstPause: true})
	for i := 0; i < 100; i++ {
		r.input(t, 3, 9_000, data(t, d1, h0, 1000))
	}
	r.d.AdvanceTo(10_500)
	if n := r.count(0); n >= 100 {
		t.Fatalf("%d frames left port 0 by 10.5 us: the test needs a queue", n)
	}
	fs, ts := r.credits(t, 3)
	want := []layers.CreditEntry{{Credits: 100_000, Dst: h0}}
	if len(fs) != 1 || ts[0] != 10_000 || fmt.Sprint(fs[0]) != fmt.Sprint(want) {
		t.Errorf("credit frames %v at %v, want %v at 10,000 ns", fs, ts, want)
	}
}

// TestDelayCredit: credits for d1 are held back while this switch's own VOQ
// for d1 exceeds the delay-credit threshold, and go out in the first frame
// after it falls back; credits for other destinations are not held.
func TestDelayCredit(t *testing.T) {
	r := newRig(t, Params{M: 1.5, NoDstPause: true, DelayCredit: 5000})
	// From port 4 (a switch): 200 × 1,000 toward d1 behind window port 3
	// (W0 147,500: 53 frames wait, VOQ 53,000 > 5,000) and 10 × 1,000
	// toward host h0.
	for i := 0; i < 200; i++ {
		r.input(t, 4, 0, data(t, d2, d1, 1000))
	}
	for i := 0; i < 10; i++ {
		r.input(t, 4, 0, data(t, d2, h0, 1000))
	}
	r.d.AdvanceTo(15_000)
	fs, _ := r.credits(t, 4)
	// At 10 µs port 0 had sent all 10 frames to h0 (its own port).
	if len(fs) != 1 || fmt.Sprint(fs[0]) != fmt.Sprint([]layers.CreditEntry{{Credits: 10_000, Dst: h0}}) {
		t.Fatalf("credit frames %v, want only h0's", fs)
	}
	// The 147 frames that passed joined port 3's queue at 0: 147,000 held.
	if p := r.s.Pending(r.d, 4, d1); p != 147_000 {
		t.Errorf("held for d1: %d", p)
	}
	// The downstream returns enough credit: the VOQ empties, and the held
	// 147,000 plus the 53,000 released go out at 20 µs.
	r.input(t, 3, 15_000, credit(t, layers.CreditEntry{Credits: 147_500, Dst: d1}))
	r.d.AdvanceTo(25_000)
	fs, ts := r.credits(t, 4)
	if len(fs) != 2 || ts[1] != 20_000 || fmt.Sprint(fs[1]) != fmt.Sprint([]layers.CreditEntry{{Credits: 200_000, Dst: d1}}) {
		t.Errorf("after the VOQ drained: %v at %v", fs, ts)
	}
	if r.s.HeldTicks != 1 {
		t.Errorf("held ticks %d", r.s.HeldTicks)
	}
}

// TestDstPause: when d1's VOQ exceeds the threshold the source ToR sends
// dst-pause (0xFFFF) for d1 to the host ports that sent toward d1 in the
// last τ (not to one silent for longer), pauses a host that starts sending
// while it is in force, and resumes all of them (pause 0) when the VOQ
// falls below half the threshold.
func TestDstPause(t *testing.T) {
	r := newRig(t, Params{M: 1.5, DstPause: 10_000})
	r.input(t, 2, 0, data(t, h2, d1, 1000)) // host 2 sends early, then stops
	for i := 0; i < 150; i++ {
		r.input(t, 0, 20_000, data(t, h0, d1, 1000))
	}
	r.input(t, 1, 20_000, data(t, h1, d1, 1000))
	// W0 147,500: of 152 frames 147 pass (the first from host 2), 5 wait.
	if _, voq, _ := r.s.Window(d1); voq != 5000 || r.s.DstPaused(d1) {
		t.Fatalf("voq %d", voq)
	}
	for i := 0; i < 7; i++ {
		r.input(t, 1, 20_100, data(t, h1, d1, 1000))
	}
	// 12,000 > 10,000: paused (at 11,000).
	if !r.s.DstPaused(d1) {
		t.Fatal("not paused")
	}
	r.input(t, 2, 20_200, data(t, h2, d1, 1000)) // host 2 again: paused on arrival
	r.d.AdvanceTo(21_000)
	for _, c := range []struct {
		port int
		want string
	}{{0, "[{65535 0 10.2.0.1}]"}, {1, "[{65535 0 10.2.0.1}]"}, {2, "[{65535 0 10.2.0.1}]"}} {
		if got := fmt.Sprint(r.pauses(t, c.port)); got != c.want {
			t.Errorf("port %d: %s, want %s", c.port, got, c.want)
		}
	}
	// 13,000 waiting. 7,000 credits release 7 frames: 6,000 is not below
	// 5,000; 1,000 more: 5,000 is not below either; 1,000 more: 4,000 is.
	r.input(t, 3, 21_000, credit(t, layers.CreditEntry{Credits: 7000, Dst: d1}))
	r.input(t, 3, 21_000, credit(t, layers.CreditEntry{Credits: 1000, Dst: d1}))
	if !r.s.DstPaused(d1) {
		t.Fatal("resumed at 5,000")
	}
	r.input(t, 3, 21_000, credit(t, layers.CreditEntry{Credits: 1000, Dst: d1}))
	if r.s.DstPaused(d1) {
		t.Fatal("still paused at 4,000")
	}
	r.d.AdvanceTo(22_000)
	for port := 0; port < 3; port++ {
		ps := r.pauses(t, port)
		if len(ps) != 2 || ps[1].PauseUS != 0 || ps[1].Dst != d1 {
			t.Errorf("port %d: %v", port, ps)
		}
	}
	if r.s.DstPauses != 3 || r.s.DstResumes != 3 {
		t.Errorf("pauses %d resumes %d", r.s.DstPauses, r.s.DstResumes)
	}
	// A host silent for more than τ is not paused.
	r2 := newRig(t, Params{DstPause: 10_000})
	r2.input(t, 2, 0, data(t, h2, d1, 1000))
	for i := 0; i < 160; i++ {
		r2.input(t, 0, 20_000, data(t, h0, d1, 1000))
	}
	r2.d.AdvanceTo(21_000)
	if len(r2.pauses(t, 2)) != 0 || len(r2.pauses(t, 0)) != 1 {
		t.Errorf("silent host paused: %v / %v", r2.pauses(t, 2), r2.pauses(t, 0))
	}
}

// TestNIC: a NIC stops starting frames to a paused destination, keeps
// sending to others, resumes on pause 0 and honours a timed pause.
func TestNIC(t *testing.T) {
	n, err := device.NewNIC(device.Config{Name: "h", Ports: []device.PortConfig{{ID: 0, Speed: 100 * device.Gbps,
		Prefixes: []netip.Prefix{netip.PrefixFrom(h0, 32)}}}})
	if err != nil {
		t.Fatal(err)
	}
	nic := NewNIC()
	if err := n.Attach(nic); err != nil {
		t.Fatal(err)
	}
	got := map[netip.Addr][]int64{}
	n.OnOutput(func(o device.Out) {
		if o.Port == device.WirePort {
			var m device.Meta
			cp := device.Codepoints{}
			device.Parse(o.Frame, &m, &cp)
			got[m.Dst] = append(got[m.Dst], o.Time)
		}
	})
	for _, dst := range []netip.Addr{d1, d2} {
		if _, err := n.AddFlow(device.FlowSpec{Template: data(t, h0, dst, 1000), Count: 10, Start: 10}); err != nil {
			t.Fatal(err)
		}
	}
	p, _ := AppendDstPause(nil, device.MAC{}, d1, layers.PauseUntilResumed)
	if err := n.Input(0, 0, p); err != nil {
		t.Fatal(err)
	}
	n.AdvanceTo(5000)
	if len(got[d1]) != 0 || len(got[d2]) != 10 || nic.Paused(d1) != math.MaxInt64 {
		t.Fatalf("while paused: %d to d1, %d to d2", len(got[d1]), len(got[d2]))
	}
	r, _ := AppendDstPause(nil, device.MAC{}, d1, 0)
	_ = n.Input(0, 5000, r)
	n.AdvanceTo(6000)
	if len(got[d1]) != 10 || got[d1][0] != 5000 {
		t.Errorf("after resume: %v", got[d1])
	}
	// A timed pause of 3 µs.
	if _, err := n.AddFlow(device.FlowSpec{Template: data(t, h0, d2, 500), Count: 2, Start: 7000}); err == nil {
		t.Error("second generator for one flow accepted")
	}
	tp, _ := AppendDstPause(nil, device.MAC{}, d2, 3)
	_ = n.Input(0, 6500, tp)
	_ = n.Input(1, 7000, data(t, h0, d2, 1000))
	n.Flush()
	if last := got[d2][len(got[d2])-1]; last != 9500 {
		t.Errorf("timed pause: sent at %d, want 9,500", last)
	}
	if nic.Applied != 3 {
		t.Errorf("applied %d", nic.Applied)
	}
	bad := append([]byte(nil), p...)
	bad[14+4] = 5 // family 5
	_ = n.Input(0, n.Now(), bad)
	if n.Record().Dropped("floodgate malformed") != 1 {
		t.Error("malformed dst-pause not dropped")
	}
}

func TestParams(t *testing.T) {
	cases := []struct {
		p    Params
		want string
	}{
		{Params{M: -1}, "m"},
		{Params{M: 100}, "m"},
		{Params{M: math.NaN()}, "m"},
		{Params{NextHopRTT: -5}, "next_hop_rtt"},
		{Params{Tau: 10}, "tau"},
		{Params{BDP: -1}, "bdp"},
		{Params{DstPause: -1}, "dst_pause"},
		{Params{DelayCredit: 1 << 50}, "delay_credit"},
		{Params{MaxFrame: 10}, "max_frame"},
		{Params{WindowPorts: []int{9}}, "window_ports"},
		{Params{CreditPorts: []int{-1}}, "credit_ports"},
	}
	for _, c := range cases {
		d, err := device.NewSwitch(device.Config{Ports: []device.PortConfig{{ID: 0, Speed: device.Gbps}}})
		if err != nil {
			t.Fatal(err)
		}
		err = d.Attach(NewSwitch(c.p))
		var pe *device.ParamError
		if !errors.As(err, &pe) || pe.Name != c.want || !errors.Is(err, device.ErrParam) {
			t.Errorf("%+v: %v, want parameter %s", c.p, err, c.want)
		}
	}
	n, _ := device.NewNIC(device.Config{Ports: []device.PortConfig{{ID: 0, Speed: device.Gbps}}})
	if err := n.Attach(NewSwitch(Params{})); !errors.Is(err, device.ErrParam) {
		t.Errorf("switch scheme on a NIC: %v", err)
	}
}
