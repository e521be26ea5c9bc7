// SPDX-License-Identifier: Apache-2.0

package postcard

import (
	"errors"
	"math"
	"net/netip"
	"testing"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

var (
	sender = netip.MustParseAddr("10.1.0.1") // behind port 0
	recv   = netip.MustParseAddr("10.2.0.1") // behind port 1
	swA    = device.MAC{2, 0, 0, 0, 0, 0xa}
	swB    = device.MAC{2, 0, 0, 0, 0, 0xb}
)

func data(t testing.TB, src, dst netip.Addr, sport uint16, mark bool, n int) []byte {
	t.Helper()
	var dscp uint8
	if mark {
		dscp = 1 // TOS 0x04: the PBT mark
	}
	b, err := device.BuildUDP(nil, device.UDPSpec{Src: src, Dst: dst, DSCP: dscp, SrcPort: sport, DstPort: 4791, Len: n})
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

// newRig builds a 100 Gb/s switch with the sender on port 0 and the
// receiver on port 1, PB-FS with the defaults (N 8, DC_RTT 25 µs, Δ 6,
// MTU 1078, R_s 100 Gb/s), and class 0 of port 1 paused so that its queue only grows.
func newRig(t testing.TB) *rig {
	t.Helper()
	d, err := device.NewSwitch(device.Config{Name: "sw", Ports: []device.PortConfig{
		{ID: 0, Speed: 100 * device.Gbps, ServerFacing: true, Prefixes: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}},
		{ID: 1, Speed: 100 * device.Gbps, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(recv, 32)}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{d: d, s: NewSwitch(SwitchParams{SwitchID: swA})}
	if err := d.Attach(r.s); err != nil {
		t.Fatal(err)
	}
	d.OnOutput(func(o device.Out) {
		o.Frame = append([]byte(nil), o.Frame...)
		r.outs = append(r.outs, o)
	})
	d.PauseClass(1, 0, math.MaxInt64/2, "test")
	return r
}

func (r *rig) in(t testing.TB, at int64, n int, mark bool) {
	t.Helper()
	for i := 0; i < n; i++ {
		if err := r.d.Input(0, at, data(t, sender, recv, 5, mark, 1000)); err != nil {
			t.Fatal(err)
		}
	}
}

func (r *rig) postcards(t testing.TB) []layers.Postcard {
	t.Helper()
	var ps []layers.Postcard
	for _, o := range r.outs {
		if o.Kind != device.KindPostcard {
			continue
		}
		l, err := Decode(o.Frame, 0)
		if err != nil {
			t.Fatal(err)
		}
		if o.Port != 0 || !o.Generated {
			t.Errorf("postcard on port %d", o.Port)
		}
		ps = append(ps, l)
	}
	return ps
}

func TestRules(t *testing.T) {
	// I_p = Σ I^i + N × I^N: slots of 10,000 .. 80,000 octets:
	// 360,000 + 8 × 80,000 = 1,000,000.
	slots := []int64{10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 70_000, 80_000}
	if ip := PredictIP(slots); ip != 1_000_000 {
		t.Errorf("I_p = %d", ip)
	}
	// T × DC_RTT at 100 Gb/s over 25 µs: 12.5 × 25,000 = 312,500.
	if c := Capacity(100*device.Gbps, 25_000); c != 312_500 {
		t.Errorf("capacity %d", c)
	}
	for _, c := range []struct {
		ip, q1 int64
		want   bool
	}{{312_500, 0, false}, {312_501, 0, true}, {16_000, 300_000, true}, {16_000, 290_000, false}, {0, 400_000, true}} {
		if got := Congested(c.ip, c.q1, 100*device.Gbps, 25_000); got != c.want {
			t.Errorf("I_p %d Q^1 %d: congested %v", c.ip, c.q1, got)
		}
	}
}

// TestReaction computes the sender's reaction by hand for postcards from a
// 100 Gb/s port over DC_RTT 25 µs (T × DC_RTT = 312,500), Δ = 6, μ = 0.95,
// I_min = 20 % × 312,500 = 62,500, MaxRate 100 Gb/s.
func TestReaction(t *testing.T) {
	cases := []struct {
		name                      string
		ip, q1, recent, marked    int64
		ipbt, inon, i, cnum, cden int64
		rate                      int64
	}{
		// I_PBT = 6 × 2,000 / 60,000 × 500,000 = 100,000; I_nonPBT =
		// 400,000; 312,500 − 50,000 − 400,000 < 0, so I = I_min = 62,500;
		// c = 100,000 / (0.95 × 62,500) = 100,000 / 59,375 = 1.684;
		// rate = 100 Gb/s × 59,375 / 100,000 = 59.375 Gb/s.
		{"I_min", 500_000, 50_000, 60_000, 2_000, 100_000, 400_000, 62_500, 100_000e6, 59_375e6, 59_375_000_000},
		// I_PBT = 6 × 4,000 / 30,000 × 400,000 = 320,000; I_nonPBT =
		// 80,000; I = 312,500 − 10,000 − 80,000 = 222,500; c = 320,000 /
		// 211,375 = 1.514; rate = 100 Gb/s × 211,375 / 320,000 =
		// 66,054,687,500 bit/s.
		{"I", 400_000, 10_000, 30_000, 4_000, 320_000, 80_000, 222_500, 320_000e6, 211_375e6, 66_054_687_500},
		// c ≤ 1: I_PBT = 6 × 1,000 / 60,000 × 120,000 = 12,000, I =
		// 312,500 − 108,000 = 204,500, c = 12,000 / 194,275: no proposal.
		{"c below 1", 120_000, 0, 60_000, 1_000, 12_000, 108_000, 204_500, 12_000e6, 194_275e6, 0},
		// Marked share above 1/Δ: I_PBT is capped at I_p.
		{"all marked", 100_000, 0, 6_000, 6_000, 100_000, 0, 312_500, 100_000e6, 296_875e6, 0},
		// No recent traffic: no PBT share.
		{"no recent", 100_000, 0, 0, 0, 0, 100_000, 212_500, 0, 201_875e6, 0},
	}
	for _, c := range cases {
		r := React(Assessment{RateMbps: 100_000, WindowNS: 25_000, IP: c.ip, Q1: c.q1, Recent: c.recent, RecentMarked: c.marked},
			6, 950_000, 62_500, 100*device.Gbps)
		if r.IPBT != c.ipbt || r.INonPBT != c.inon || r.I != c.i || r.CNum != c.cnum || r.CDen != c.cden || r.Rate != c.rate {
			t.Errorf("%s: %+v, want I_PBT %d I_nonPBT %d I %d c %d/%d rate %d", c.name, r, c.ipbt, c.inon, c.i, c.cnum, c.cden, c.rate)
		}
	}
}

// TestSwitchAssessment feeds known octets into known slots of 1,562.5 ns
// (DC_RTT 25 µs / 16; slot k starts at ceil(k × 1,562.5) ns) with the
// egress frozen, and checks the postcards of two marked packets.
func TestSwitchAssessment(t *testing.T) {
	r := newRig(t)
	for k, want := range []int64{0, 1563, 3125, 4688, 6250, 7813, 9375, 10938, 12500, 14063} {
		if got := r.s.SlotStart(int64(k)); got != want {
			t.Fatalf("slot %d starts at %d, want %d", k, got, want)
		}
	}
	// Slot 0: 20 frames; slot j = 1..8: 10 × j frames; all of 1,000 octets.
	r.in(t, 100, 20, false)
	for j := int64(1); j <= 8; j++ {
		r.in(t, r.s.SlotStart(j)+100, int(10*j), false)
	}
	// Slot 9: two unmarked at 14,163, a marked one at 14,363 and another
	// at t0 = 14,663. T_Δ = 6 × 1,078 × 8 / 100 Gb/s = 517 ns.
	r.in(t, 14_163, 2, false)
	r.in(t, 14_363, 1, true)
	r.in(t, 14_663, 1, true)
	r.d.AdvanceTo(20_000)
	ps := r.postcards(t)
	if len(ps) != 2 {
		t.Fatalf("%d postcards", len(ps))
	}
	// Complete slots 1..8: I^1..I^8 = 10,000..80,000, I_p = 360,000 + 8 ×
	// 80,000 = 1,000,000. Q^1 = depth at the start of slot 1 = slot 0's
	// 20,000 (the queue does not drain). 1,000,000 > 312,500 − 20,000.
	// Recent for the first: (13,846, 14,363] holds 2 + 1 frames, 1 marked;
	// for the second: (14,146, 14,663] holds 4, 2 marked.
	want := []struct{ recent, marked uint32 }{{3000, 1000}, {4000, 2000}}
	for i, p := range ps {
		if p.IPBytes != 1_000_000 || p.Q1Bytes != 20_000 || p.RecentBytes != want[i].recent || p.RecentMarkedBytes != want[i].marked {
			t.Errorf("postcard %d: I_p %d Q^1 %d recent %d marked %d", i, p.IPBytes, p.Q1Bytes, p.RecentBytes, p.RecentMarkedBytes)
		}
		if p.Port != 1 || p.RateMbps != 100_000 || p.WindowNS != 25_000 || [6]byte(p.SwitchID) != swA {
			t.Errorf("postcard %d fields: port %d rate %d window %d id %v", i, p.Port, p.RateMbps, p.WindowNS, p.SwitchID)
		}
		if p.Flow.Src != sender || p.Flow.Dst != recv || p.Flow.SrcPort != 5 || p.Flow.DSCP != 1 || len(p.Quote) != 64 {
			t.Errorf("quote %+v", p.Flow)
		}
	}
	var m device.Meta
	cp := device.Codepoints{}
	for _, o := range r.outs {
		if o.Kind == device.KindPostcard {
			device.Parse(o.Frame, &m, &cp)
			break
		}
	}
	if m.Src != netip.AddrFrom4([4]byte{169, 254, 0, 0xa}) || m.Dst != sender || m.DSCP != 48 || m.SrcPort != 5 || m.DstPort != 1022 || m.TTL != 64 {
		t.Errorf("postcard headers %+v", m)
	}
	if r.s.Marked != 2 || r.s.Postcards != 2 {
		t.Errorf("marked %d postcards %d", r.s.Marked, r.s.Postcards)
	}
}

// TestSwitchQ1: Q^1 decides. 300 frames in slot 0 and one per slot after:
// I_p = 8,000 + 8 × 1,000 = 16,000 > 312,500 − 300,000 = 12,500; with 290
// frames, 16,000 is not above 22,500.
func TestSwitchQ1(t *testing.T) {
	for _, c := range []struct {
		first int
		want  int
	}{{300, 1}, {290, 0}} {
		r := newRig(t)
		r.in(t, 0, c.first, false)
		for j := int64(1); j <= 8; j++ {
			r.in(t, r.s.SlotStart(j), 1, false)
		}
		r.in(t, r.s.SlotStart(9)+5, 1, true)
		if a := r.s.Assessment(r.d, 1); a.IP != 16_000 || a.Q1 != int64(c.first)*1000 || a.Recent != 1000 || a.RecentMarked != 1000 {
			t.Errorf("assessment %+v", a)
		}
		r.d.AdvanceTo(20_000)
		ps := r.postcards(t)
		if len(ps) != c.want {
			t.Fatalf("Q^1 %d: %d postcards", c.first*1000, len(ps))
		}
	}
	// Uncongested: a lone marked packet on a fresh switch.
	r := newRig(t)
	r.in(t, 0, 1, true)
	if len(r.postcards(t)) != 0 || r.s.Marked != 1 {
		t.Error("postcard on an idle port")
	}
}

// nic builds a 100 Gb/s NIC with a PB-FS sender.
func nic(t testing.TB, p SenderParams) (*device.Device, *Sender, *[]device.Out) {
	t.Helper()
	n, err := device.NewNIC(device.Config{Name: "h", Ports: []device.PortConfig{{ID: 0, Speed: 100 * device.Gbps,
		Prefixes: []netip.Prefix{netip.PrefixFrom(sender, 32)}}}})
	if err != nil {
		t.Fatal(err)
	}
	s := NewSender(p)
	if err := n.Attach(s); err != nil {
		t.Fatal(err)
	}
	outs := &[]device.Out{}
	n.OnOutput(func(o device.Out) {
		if o.Port == device.WirePort {
			o.Frame = append([]byte(nil), o.Frame...)
			*outs = append(*outs, o)
		}
	})
	return n, s, outs
}

func postcard(t testing.TB, id device.MAC, a Assessment, sport uint16) []byte {
	t.Helper()
	f, err := Build(nil, data(t, sender, recv, sport, true, 1078), a, BuildOptions{Src: netip.MustParseAddr("169.254.0.1"), SwitchID: id, Port: 1})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func pc(ip, q1, recent, marked int64) Assessment {
	return Assessment{RateMbps: 100_000, WindowNS: 25_000, IP: ip, Q1: q1, Recent: recent, RecentMarked: marked}
}

// TestMarking: a flow of at least MaxRate × τ = 100 Gb/s × 12.5 µs =
// 156,250 octets has packets 6, 12, 18, ... marked (with a valid IPv4
// checksum) until its first postcard; a shorter flow is never marked.
func TestMarking(t *testing.T) {
	n, s, outs := nic(t, SenderParams{})
	long, err := s.AddFlow(n, device.FlowSpec{Template: data(t, sender, recv, 1, false, 1078), Count: 146}) // 157,388 octets
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddFlow(n, device.FlowSpec{Template: data(t, sender, recv, 2, true, 1078), Count: 144}); err != nil { // 155,232: short
		t.Fatal(err)
	}
	n.AdvanceTo(2000)
	// A postcard for the long flow at 2 µs stops its marking.
	if err := n.Input(0, 2000, postcard(t, swA, pc(0, 0, 1, 1), 1)); err != nil {
		t.Fatal(err)
	}
	n.Flush()
	var k [3]int
	var markedAt []int
	cp := device.Codepoints{}
	for _, o := range *outs {
		var m device.Meta
		device.Parse(o.Frame, &m, &cp)
		k[m.SrcPort]++
		if m.DSCP&1 != 0 {
			if m.SrcPort != 1 {
				t.Fatalf("short flow frame %d marked", k[m.SrcPort])
			}
			markedAt = append(markedAt, k[1])
		}
		if sum := checksum(o.Frame[14:34]); sum != 0xffff {
			t.Fatalf("IPv4 header checksum broken: %04x", sum)
		}
	}
	// The NIC alternates the two flows at 88.16 ns a frame: the long
	// flow's frame k starts at (2k − 2) × 88.16 ns, so frames 6 (881.6 ns)
	// and 12 (1,939.5 ns) leave before the postcard at 2 µs, and only they
	// are marked.
	if len(markedAt) != 2 || markedAt[0] != 6 || markedAt[1] != 12 {
		t.Errorf("marked frames %v", markedAt)
	}
	if long.TxFrames != 146 || s.Marked != 2 {
		t.Errorf("tx %d marked %d", long.TxFrames, s.Marked)
	}
	// Without a postcard: 6, 12, 18, ... up to the ACK at 25 µs.
	n2, s2, outs2 := nic(t, SenderParams{})
	if _, err := s2.AddFlow(n2, device.FlowSpec{Template: data(t, sender, recv, 1, false, 1078), Count: 400}); err != nil {
		t.Fatal(err)
	}
	n2.Flush()
	// 25 µs / 88.16 ns: frames 1..284 start before the ACK: 47 marks.
	cnt := 0
	for i, o := range *outs2 {
		if o.Frame[15]&0x04 != 0 {
			cnt++
			if (i+1)%6 != 0 || o.Time >= 25_000 {
				t.Fatalf("frame %d at %d marked", i+1, o.Time)
			}
		}
	}
	if cnt != 47 || s2.Marked != 47 {
		t.Errorf("%d marks", cnt)
	}
}

func checksum(h []byte) uint16 {
	var s uint32
	for i := 0; i+1 < len(h); i += 2 {
		s += uint32(h[i])<<8 | uint32(h[i+1])
	}
	for s>>16 != 0 {
		s = s&0xffff + s>>16
	}
	return uint16(s)
}

// TestLMap walks the adoption rule of Algorithm 1 with postcards from two
// switches (c values from TestReaction's arithmetic).
func TestLMap(t *testing.T) {
	n, s, outs := nic(t, SenderParams{NoAck: true})
	if _, err := s.AddFlow(n, device.FlowSpec{Template: data(t, sender, recv, 1, false, 1078), Count: 1000}); err != nil {
		t.Fatal(err)
	}
	n.AdvanceTo(100)
	k := n.Flows()[0].Key
	step := func(at int64, id device.MAC, a Assessment, wantRate int64, why string) {
		t.Helper()
		if err := n.Input(0, at, postcard(t, id, a, 1)); err != nil {
			t.Fatal(err)
		}
		if got := s.Rate(k); got != wantRate {
			t.Fatalf("%s: rate %d, want %d", why, got, wantRate)
		}
	}
	c1684 := pc(500_000, 50_000, 60_000, 2_000) // c = 100,000/59,375, rate 59.375 Gb/s
	c1514 := pc(400_000, 10_000, 30_000, 4_000) // c = 320,000/211,375, rate 66.0546875 Gb/s
	// c = 120,000 / 59,375 = 2.021: rate 100 Gb/s × 59,375 / 120,000.
	c2021 := pc(600_000, 50_000, 60_000, 2_000)
	step(200, swA, c1684, 59_375_000_000, "first postcard (A)")
	step(300, swB, c1514, 59_375_000_000, "B with c below L[A]: not adopted")
	if num, den := s.L(k, swB); num != 320_000e6 || den != 211_375e6 {
		t.Errorf("L[B] = %d/%d", num, den)
	}
	step(400, swB, c2021, 49_479_166_666, "B with c above L[A]: adopted, B sets the rate")
	step(500, swA, c1514, 49_479_166_666, "A, not the setter, c below L[B]")
	step(600, swB, c1514, 66_054_687_500, "B, the setter: adopted even though the rate rises")
	step(700, swB, pc(10_000, 0, 60_000, 1_000), 66_054_687_500, "c ≤ 1: no proposal")
	if num, _ := s.L(k, swB); num != 1_000e6 {
		t.Errorf("L[B] after c ≤ 1: %d", num)
	}
	s.Ack(k)
	step(800, swA, c2021, 66_054_687_500, "after the ACK: ignored")
	if s.Postcards != 6 || s.Ignored != 1 || s.RateChanges != 3 {
		t.Errorf("postcards %d ignored %d changes %d", s.Postcards, s.Ignored, s.RateChanges)
	}
	// Paced at 66,054,687,500 bit/s: a 1,102-wire-octet frame every
	// 8,816 / 66.0546875 = 133.466 ns.
	n.AdvanceTo(20_000)
	var ts []int64
	for _, o := range *outs {
		if o.Time > 1000 {
			ts = append(ts, o.Time)
		}
	}
	if len(ts) < 100 {
		t.Fatalf("%d frames", len(ts))
	}
	span := ts[len(ts)-1] - ts[0]
	if per := float64(span) / float64(len(ts)-1); math.Abs(per-133.466) > 0.1 {
		t.Errorf("pacing %.3f ns per frame", per)
	}
}

func TestParams(t *testing.T) {
	sw := func(p SwitchParams) error {
		d, _ := device.NewSwitch(device.Config{Ports: []device.PortConfig{{ID: 0, Speed: device.Gbps}}})
		return d.Attach(NewSwitch(p))
	}
	nc := func(p SenderParams) error {
		d, _ := device.NewNIC(device.Config{Ports: []device.PortConfig{{ID: 0, Speed: device.Gbps}}})
		return d.Attach(NewSender(p))
	}
	cases := []struct {
		err  error
		want string
	}{
		{sw(SwitchParams{Slots: 65}), "n"},
		{sw(SwitchParams{DCRTT: 3}), "dc_rtt"},
		{sw(SwitchParams{DCRTT: 5 * device.Second}), "dc_rtt"},
		{sw(SwitchParams{Delta: 2000}), "delta"},
		{sw(SwitchParams{MTU: 10}), "mtu"},
		{sw(SwitchParams{SenderRate: 1000}), "sender_rate"},
		{sw(SwitchParams{SenderRate: -1}), "sender_rate"},
		{sw(SwitchParams{DSCP: 70}), "dscp"},
		{sw(SwitchParams{Addr4: netip.MustParseAddr("fd00::1")}), "addr4"},
		{sw(SwitchParams{Addr6: netip.MustParseAddr("10.0.0.1")}), "addr6"},
		{nc(SenderParams{Mu: 1.5}), "mu"},
		{nc(SenderParams{Mu: math.NaN()}), "mu"},
		{nc(SenderParams{Delta: -1}), "delta"},
		{nc(SenderParams{MaxRate: 5}), "max_rate"},
		{nc(SenderParams{IMin: -4}), "i_min"},
		{nc(SenderParams{AckAfter: -1}), "ack_after"},
		{nc(SenderParams{DCRTT: -1}), "dc_rtt"},
	}
	for i, c := range cases {
		var pe *device.ParamError
		if !errors.As(c.err, &pe) || pe.Name != c.want || !errors.Is(c.err, device.ErrParam) {
			t.Errorf("case %d: %v, want parameter %s", i, c.err, c.want)
		}
	}
	d, _ := device.NewSwitch(device.Config{Ports: []device.PortConfig{{ID: 0, Speed: device.Gbps}}})
	if err := d.Attach(NewSender(SenderParams{})); !errors.Is(err, device.ErrParam) {
		t.Errorf("sender on a switch: %v", err)
	}
	n, s, _ := nic(t, SenderParams{})
	_ = n
	if s.P.IMin != 62_500 || s.long != 156_250 || s.muPPM != 950_000 || s.P.AckAfter != 25_000 {
		t.Errorf("defaults %+v long %d", s.P, s.long)
	}
	if _, err := Build(nil, []byte{1, 2, 3}, Assessment{}, BuildOptions{}); !errors.Is(err, ErrTrigger) {
		t.Errorf("Build of a non-IP frame: %v", err)
	}
	if _, err := Decode(data(t, sender, recv, 1, false, 100), 0); !errors.Is(err, ErrNotPostcard) {
		t.Errorf("Decode of data: %v", err)
	}
}

// TestSenderWindow: behaviour.md §8, T_Δ = Δ × MTU / R_s is the time a
// sender at its line rate R_s takes to send Δ full-size frames (MTU 1,078
// octets by default), not Δ × 1,500 octets at the output port's speed.
func TestSenderWindow(t *testing.T) {
	if got := TDelta(6, 1078, 100*device.Gbps); got != 517 {
		t.Errorf("TDelta(6, 1078, 100G) = %d, want 517 (517.44)", got)
	}
	if got := TDelta(6, 1078, 25*device.Gbps); got != 2069 {
		t.Errorf("TDelta(6, 1078, 25G) = %d, want 2069 (2069.76)", got)
	}
	r := newRig(t)
	if got := r.s.SenderWindow(r.d, 1); got != 517 || r.s.P.MTU != 1078 {
		t.Errorf("default T_Δ %d with MTU %d, want 517 with 1078 (the old 1,500-octet MTU gave 720)", got, r.s.P.MTU)
	}
	// Frames 600 ns apart: the first is out of the 517 ns window of the
	// second (the old 720 ns window held both).
	r.in(t, 1000, 1, false)
	r.in(t, 1600, 1, true)
	if a := r.s.Assessment(r.d, 1); a.Recent != 1000 || a.RecentMarked != 1000 {
		t.Errorf("recent %d marked %d at 1,600 ns, want 1000 and 1000", a.Recent, a.RecentMarked)
	}
	// 25 Gb/s hosts behind a 100 Gb/s port toward the receiver, the PB-FS
	// paper's setup: R_s is the hosts' rate, so T_Δ on the 100 Gb/s port
	// is 2,069 ns (the port's speed would give 517).
	mk := func(p SwitchParams, hostFacing bool) (*device.Device, *Switch) {
		d, err := device.NewSwitch(device.Config{Name: "tor", Ports: []device.PortConfig{
			{ID: 0, Speed: 25 * device.Gbps, ServerFacing: hostFacing, Prefixes: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}},
			{ID: 1, Speed: 100 * device.Gbps, Prefixes: []netip.Prefix{netip.PrefixFrom(recv, 32)}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		s := NewSwitch(p)
		if err := d.Attach(s); err != nil {
			t.Fatal(err)
		}
		return d, s
	}
	cases := []struct {
		name       string
		p          SwitchParams
		hostFacing bool
		want       int64
	}{
		{"server-facing 25G", SwitchParams{}, true, 2069},
		{"sender_rate 50G", SwitchParams{SenderRate: 50 * device.Gbps}, true, 1034},
		{"mtu 1500 at 25G", SwitchParams{MTU: 1500}, true, 2880},
		{"no server-facing port: the port's own speed", SwitchParams{}, false, 517},
	}
	for _, c := range cases {
		d, s := mk(c.p, c.hostFacing)
		if got := s.SenderWindow(d, 1); got != c.want {
			t.Errorf("%s: T_Δ %d on the 100G port, want %d", c.name, got, c.want)
		}
	}
}
