// SPDX-License-Identifier: Apache-2.0

package bfc

import (
	"errors"
	"fmt"
	"hash/crc32"
	"net/netip"
	"slices"
	"testing"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

var (
	hostA = netip.MustParseAddr("10.0.0.1") // behind port 0
	hostB = netip.MustParseAddr("10.0.1.1") // behind port 1
	recv  = netip.MustParseAddr("10.0.2.1") // behind port 2
)

func frame(t testing.TB, src, dst netip.Addr, sport uint16, n int) []byte {
	t.Helper()
	b, err := device.BuildUDP(nil, device.UDPSpec{Src: src, Dst: dst, SrcPort: sport, DstPort: 4791, Len: n})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func key(src, dst netip.Addr, sport uint16) device.FlowKey {
	return device.FlowKey{Src: src, Dst: dst, Proto: 17, SrcPort: sport, DstPort: 4791}
}

// tor is a three-port 100 Gb/s switch with BFC: hosts A and B on ports 0
// and 1, the receiver on port 2.
func tor(t testing.TB, p Params) (*device.Device, *Switch, *[]device.Out) {
	t.Helper()
	nq := QueuesFor(p.Queues)
	d, err := device.NewSwitch(device.Config{Name: "tor", Ports: []device.PortConfig{
		{ID: 0, Speed: 100 * device.Gbps, ServerFacing: true, Queues: nq, Prefixes: []netip.Prefix{netip.PrefixFrom(hostA, 32)}},
		{ID: 1, Speed: 100 * device.Gbps, ServerFacing: true, Queues: nq, Prefixes: []netip.Prefix{netip.PrefixFrom(hostB, 32)}},
		{ID: 2, Speed: 100 * device.Gbps, ServerFacing: true, Queues: nq, Prefixes: []netip.Prefix{netip.PrefixFrom(recv, 32)}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	s := NewSwitch(p)
	if err := d.Attach(s); err != nil {
		t.Fatal(err)
	}
	outs := &[]device.Out{}
	d.OnOutput(func(o device.Out) {
		o.Frame = append([]byte(nil), o.Frame...)
		*outs = append(*outs, o)
	})
	return d, s, outs
}

func input(t testing.TB, d *device.Device, port int, at int64, f []byte) {
	t.Helper()
	if err := d.Input(port, at, f); err != nil {
		t.Fatal(err)
	}
}

// pauseFrames returns the BFC frames the switch sent on port, decoded.
func pauseFrames(t testing.TB, outs []device.Out, port int) ([]layers.BFC, []int64) {
	t.Helper()
	var fs []layers.BFC
	var ts []int64
	for _, o := range outs {
		if o.Port != port || o.Kind != device.KindExperimental {
			continue
		}
		var l layers.BFC
		if err := Decode(o.Frame, &l); err != nil {
			t.Fatal(err)
		}
		fs = append(fs, l)
		ts = append(ts, o.Time)
	}
	return fs, ts
}

func TestThresholdRule(t *testing.T) {
	// Th = (HRTT + τ) × μ / N_active. HRTT 2 µs, τ 1 µs, μ 100 Gb/s =
	// 12.5 octets/ns: 3,000 ns × 12.5 = 37,500 octets for one active
	// queue, 18,750 for two, 9,375 for four.
	for _, c := range []struct {
		n    int
		want int64
	}{{0, 37_500}, {1, 37_500}, {2, 18_750}, {4, 9_375}, {32, 1_171}} {
		if got := Threshold(2000, 1000, 100*device.Gbps, c.n); got != c.want {
			t.Errorf("N_active %d: Th %d, want %d", c.n, got, c.want)
		}
	}
	// 25 Gb/s, HRTT 4 µs, τ 2 µs: 6,000 ns × 3.125 = 18,750.
	if got := Threshold(4000, 2000, 25*device.Gbps, 1); got != 18_750 {
		t.Errorf("25G: %d", got)
	}
}

// TestPauseAtThreshold drives N_active = 1, 2 and 4 queues with 1,000-octet
// frames that all arrive at time 0, and checks that each flow is paused by
// exactly the arrival that takes its physical queue above Th.
func TestPauseAtThreshold(t *testing.T) {
	for _, c := range []struct {
		flows int
		th    int64
		// the flow's physical-queue packet that pauses it: the first k
		// with k × 1,000 > Th.
		k int
	}{{1, 37_500, 38}, {2, 18_750, 19}, {4, 9_375, 10}} {
		d, s, _ := tor(t, Params{})
		// Flows alternate between ports 0 and 1; flow i has source port
		// 100 + i. The first packet of each flow goes to the high-priority
		// queue, so the flow's k-th physical packet is its (k+1)-th.
		for i := 0; i < c.flows; i++ {
			src := []netip.Addr{hostA, hostB}[i%2]
			input(t, d, i%2, 0, frame(t, src, recv, uint16(100+i), 1000))
		}
		for k := 1; k <= c.k; k++ {
			for i := 0; i < c.flows; i++ {
				src := []netip.Addr{hostA, hostB}[i%2]
				fk := key(src, recv, uint16(100+i))
				input(t, d, i%2, 0, frame(t, src, recv, uint16(100+i), 1000))
				paused, in := s.IsPaused(d, 2, fk)
				if want := k == c.k; paused != want {
					t.Fatalf("%d flows: flow %d after %d physical packets (%d octets, Th %d): paused %v, want %v",
						c.flows, i, k, k*1000, c.th, paused, want)
				}
				if paused && in != i%2 {
					t.Errorf("paused at port %d, want %d", in, i%2)
				}
			}
		}
		if got := s.Active(d, 2); got != c.flows {
			t.Errorf("N_active %d, want %d", got, c.flows)
		}
		if got := s.Threshold(d, 2); got != c.th {
			t.Errorf("Th %d, want %d", got, c.th)
		}
		if s.Pauses != int64(c.flows) || s.FirstPackets != int64(c.flows) {
			t.Errorf("pauses %d first packets %d", s.Pauses, s.FirstPackets)
		}
	}
}

// TestQueueAssignment: a flow keeps its queue while it has packets there;
// a new flow takes the lowest-numbered empty queue, and when none is empty
// it shares queue VFID mod N_q.
func TestQueueAssignment(t *testing.T) {
	d, s, _ := tor(t, Params{Queues: 2})
	var queues []int
	probe := &queueProbe{q: &queues}
	if err := d.Attach(probe); err != nil {
		t.Fatal(err)
	}
	send := func(sport uint16) {
		input(t, d, 0, 0, frame(t, hostA, recv, sport, 1000))
	}
	send(1) // first packet: high-priority queue
	send(1) // physical queue 0
	send(2) // first packet of flow 2
	send(2) // physical queue 1
	send(1) // keeps queue 0
	send(3) // first packet of flow 3
	send(3) // no empty queue: shares VFID mod 2
	v3 := VFID(key(hostA, recv, 3))
	want := []int{HighPriorityQueue, FirstPhysicalQueue, HighPriorityQueue, FirstPhysicalQueue + 1, FirstPhysicalQueue,
		HighPriorityQueue, FirstPhysicalQueue + int(v3%2)}
	if len(queues) != len(want) {
		t.Fatalf("queues %v", queues)
	}
	for i := range want {
		if queues[i] != want[i] {
			t.Fatalf("queues %v, want %v", queues, want)
		}
	}
	if s.Shared != 1 || s.Flows() != 3 {
		t.Errorf("shared %d flows %d", s.Shared, s.Flows())
	}
	d.Flush()
	if s.Flows() != 0 {
		t.Errorf("%d flow entries left after drain", s.Flows())
	}
}

// TestPFCKeepsFlowOrder: a first packet waits in the high-priority queue
// behind another flow's frame whose class PFC pauses; its flow's later
// packet, in a physical queue, must wait for it rather than leave first.
func TestPFCKeepsFlowOrder(t *testing.T) {
	d, _, outs := tor(t, Params{Queues: 2})
	d.PauseClass(2, 3, 50_000, "test")
	held, err := device.BuildUDP(nil, device.UDPSpec{Src: hostB, Dst: recv, SrcPort: 9, DstPort: 4791, Len: 500, DSCP: 24})
	if err != nil {
		t.Fatal(err)
	}
	input(t, d, 1, 0, held)                           // class 3: heads the high-priority queue, paused
	input(t, d, 0, 0, frame(t, hostA, recv, 1, 1000)) // flow 1's first packet, behind it
	input(t, d, 0, 0, frame(t, hostA, recv, 1, 1001)) // flow 1's second: a physical queue
	d.Flush()
	var sizes []int
	var times []int64
	for _, o := range *outs {
		if o.Port == 2 && o.Kind == device.KindData {
			sizes = append(sizes, len(o.Frame))
			times = append(times, o.Time)
		}
	}
	first, second := len(frame(t, hostA, recv, 1, 1000)), len(frame(t, hostA, recv, 1, 1001))
	if len(sizes) != 3 || sizes[1] != first || sizes[2] != second {
		t.Fatalf("port 2 sent frames of %v octets, want the paused class's %d, then flow 1's %d and %d", sizes, len(held), first, second)
	}
	if times[0] < 50_000 {
		t.Errorf("the paused class left at %d ns, before its pause ended at 50,000", times[0])
	}
}

// TestStaticQueues: with StaticQueues (the paper's BFC-VFID) a flow takes
// queue VFID mod N_q even when another queue is empty, so two flows whose
// VFIDs agree mod N_q share a queue the dynamic assignment would split.
func TestStaticQueues(t *testing.T) {
	const nq = 8
	// Two source ports whose VFIDs land in the same queue.
	var a, b uint16
	for sp := uint16(1); sp < 1000 && b == 0; sp++ {
		if a == 0 {
			a = sp
			continue
		}
		if VFID(key(hostA, recv, sp))%nq == VFID(key(hostA, recv, a))%nq {
			b = sp
		}
	}
	want := FirstPhysicalQueue + int(VFID(key(hostA, recv, a))%nq)
	for _, static := range []bool{false, true} {
		d, s, _ := tor(t, Params{Queues: nq, StaticQueues: static})
		var queues []int
		if err := d.Attach(&queueProbe{q: &queues}); err != nil {
			t.Fatal(err)
		}
		for _, sp := range []uint16{a, a, b, b} { // first packets go high priority
			input(t, d, 0, 0, frame(t, hostA, recv, sp, 1000))
		}
		qa, qb := queues[1], queues[3]
		switch {
		case static && (qa != want || qb != want || s.Shared != 1):
			t.Errorf("static: queues %d, %d (want both %d), shared %d (want 1)", qa, qb, want, s.Shared)
		case !static && (qa != FirstPhysicalQueue || qb != FirstPhysicalQueue+1 || s.Shared != 0):
			t.Errorf("dynamic: queues %d, %d (want %d, %d), shared %d", qa, qb, FirstPhysicalQueue, FirstPhysicalQueue+1, s.Shared)
		}
		d.Flush()
	}
}

// TestFilterGatesFirst: a flow the downstream has paused (its filter on
// the egress port matches) and that has nothing queued here goes through
// the high-priority queue by default, which the filter never holds; with
// FilterGatesFirst it joins a physical queue instead, so the pause holds.
func TestFilterGatesFirst(t *testing.T) {
	fa := Hashes(key(hostA, recv, 1))
	filter := make([]byte, 128)
	for st := 0; st < 4; st++ {
		layers.SetFilterBit(layers.BFCVersion, filter, 4, &fa, st)
	}
	pause, err := AppendFrame(nil, device.MAC{}, 4, 1, filter)
	if err != nil {
		t.Fatal(err)
	}
	for _, gate := range []bool{false, true} {
		d, _, _ := tor(t, Params{FilterGatesFirst: gate})
		var queues []int
		if err := d.Attach(&queueProbe{q: &queues}); err != nil {
			t.Fatal(err)
		}
		input(t, d, 2, 0, pause)
		input(t, d, 0, 10, frame(t, hostA, recv, 1, 1000)) // paused downstream
		input(t, d, 0, 10, frame(t, hostA, recv, 2, 1000)) // not paused
		want := []int{HighPriorityQueue, HighPriorityQueue}
		if gate {
			want[0] = FirstPhysicalQueue
		}
		if !slices.Equal(queues, want) {
			t.Errorf("gate %v: queues %v, want %v", gate, queues, want)
		}
	}
}

type queueProbe struct {
	device.NopScheme
	q *[]int
}

func (p *queueProbe) OnEnqueue(_ *device.Device, pk *device.Packet) device.Verdict {
	*p.q = append(*p.q, pk.Queue)
	return device.Pass
}

// TestResumePacing pauses three flows at ingress port 0 and two at port 1,
// lets the egress drain, and checks the pause frames: each port's frame
// loses at most one paused flow per τ, the ports are paced independently,
// and every flow is resumed.
func TestResumePacing(t *testing.T) {
	d, s, outs := tor(t, Params{})
	type fl struct {
		port  int
		src   netip.Addr
		sport uint16
	}
	flows := []fl{{0, hostA, 1}, {0, hostA, 2}, {0, hostA, 3}, {1, hostB, 4}, {1, hostB, 5}}
	// 40 frames per flow at time 0: with 5 active queues Th = 7,500, so
	// every flow is paused.
	for k := 0; k < 40; k++ {
		for _, f := range flows {
			input(t, d, f.port, 0, frame(t, f.src, recv, f.sport, 1000))
		}
	}
	if s.PausedAt(d, 0) != 3 || s.PausedAt(d, 1) != 2 {
		t.Fatalf("paused %d at port 0, %d at port 1", s.PausedAt(d, 0), s.PausedAt(d, 1))
	}
	d.Flush()
	if s.PausedAt(d, 0) != 0 || s.PausedAt(d, 1) != 0 || s.Resumes != 5 || s.Flows() != 0 {
		t.Fatalf("after drain: paused %d/%d resumes %d flows %d", s.PausedAt(d, 0), s.PausedAt(d, 1), s.Resumes, s.Flows())
	}
	for port, fs := range map[int][]fl{0: flows[:3], 1: flows[3:]} {
		frames, times := pauseFrames(t, *outs, port)
		prev := -1
		var first int64 = -1
		var seqn []int
		for i, l := range frames {
			if times[i] != int64(i+1)*1000 {
				t.Fatalf("port %d: frame %d at %d ns, want every τ = 1 µs", port, i, times[i])
			}
			if l.Seq != uint32(i) {
				t.Fatalf("port %d: frame %d has seq %d", port, i, l.Seq)
			}
			n := 0
			for _, f := range fs {
				if l.Matches(layers.Flow{Src: f.src, Dst: recv, Proto: 17, SrcPort: f.sport, DstPort: 4791}) {
					n++
				}
			}
			if prev >= 0 && n < prev-1 {
				t.Fatalf("port %d: %d paused flows then %d one τ later", port, prev, n)
			}
			if prev > n && first < 0 {
				first = times[i]
			}
			prev = n
			seqn = append(seqn, n)
		}
		if prev != 0 {
			t.Errorf("port %d: last frame still pauses %d flows", port, prev)
		}
		// By hand: 5 first packets then round-robin over 5 queues of 39
		// frames; with N_active = 5, Th = 7,500, so a queue lists its flow
		// when at most 7 frames stay behind the one leaving: after 5 + 5 ×
		// 32 = 165 frames of 81.92 ns (1,024 wire octets at 100 Gb/s),
		// 13.52 µs. The ticks at 14, 15 and 16 µs then resume one flow per
		// port each.
		want := map[int][]int{0: {3, 2, 1, 0}, 1: {2, 1, 0, 0}}[port]
		if len(seqn) != 16 || fmt.Sprint(seqn[:13]) != fmt.Sprint(slices.Repeat([]int{want[0]}, 13)) || fmt.Sprint(seqn[12:]) != fmt.Sprint(want) {
			t.Errorf("port %d: paused flows per frame %v, want 13 × %d then %v", port, seqn, want[0], want[1:])
		}
		t.Logf("port %d: paused flows per frame %v, first resume visible at %d ns", port, seqn, first)
	}
}

// TestPauseFrames: every τ each port sends a 154-octet BFC frame (L = 128,
// k = 4) to 01:80:C2:00:00:0E with sequence 0, 1, 2, ...; bits are set
// exactly where a paused flow hashes.
func TestPauseFrames(t *testing.T) {
	d, s, outs := tor(t, Params{})
	for k := 0; k < 100; k++ {
		input(t, d, 0, 0, frame(t, hostA, recv, 7, 1000))
	}
	d.AdvanceTo(3500)
	frames, times := pauseFrames(t, *outs, 0)
	if len(frames) != 3 || times[0] != 1000 || times[2] != 3000 {
		t.Fatalf("%d frames at %v", len(frames), times)
	}
	for _, o := range *outs {
		if o.Kind == device.KindExperimental && o.Port == 0 {
			if len(o.Frame) != 154 || [6]byte(o.Frame[:6]) != HopByHopDst || !o.Generated {
				t.Fatalf("frame % x", o.Frame[:16])
			}
			break
		}
	}
	l := frames[0]
	if l.Version != 2 || l.Hashes != 4 || l.FilterLen != 128 || l.Seq != 0 || l.BitsSet() != 4 {
		t.Errorf("frame %+v bits %d", l, l.BitsSet())
	}
	// Stage s holds bit CRC_s(key) mod 256 (wire.md §7.1), the key written
	// out by hand and hashed with hash/crc32.
	k := append(append(append(hostA.AsSlice(), recv.AsSlice()...), 17), 0, 7, 0x12, 0xb7)
	for st := 0; st < 4; st++ {
		i := crc32.Checksum(k, crc32.MakeTable(layers.BFCPolynomials[st])) % 256
		if l.Filter[st*32+int(i/8)]&(0x80>>(i%8)) == 0 {
			t.Errorf("stage %d: bit %d not set", st, i)
		}
	}
	h := Hashes(key(hostA, recv, 7))
	if !layers.FilterMatches(layers.BFCVersion, l.Filter, 4, &h) || string(l.Filter) != string(s.Filter(d, 0)) {
		t.Error("filter does not pause the flow")
	}
	other, _ := pauseFrames(t, *outs, 1)
	if len(other) != 3 || other[0].BitsSet() != 0 {
		t.Errorf("port 1 frames %d", len(other))
	}
}

// TestUpstreamSwitch: a switch that receives a BFC frame on a port skips
// the physical queue whose head flow matches, keeps serving the others and
// the first-packet queue, ignores a stale sequence number and resumes on
// a newer frame that clears the bit.
func TestUpstreamSwitch(t *testing.T) {
	d, s, outs := tor(t, Params{})
	fa := Hashes(key(hostA, recv, 1))
	filter := make([]byte, 128)
	for st := 0; st < 4; st++ {
		layers.SetFilterBit(layers.BFCVersion, filter, 4, &fa, st)
	}
	var src device.MAC
	mk := func(seq uint32, f []byte) []byte {
		b, err := AppendFrame(nil, src, 4, seq, f)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	input(t, d, 2, 0, mk(5, filter))
	for k := 0; k < 3; k++ {
		input(t, d, 0, 10, frame(t, hostA, recv, 1, 1000))
		input(t, d, 1, 10, frame(t, hostB, recv, 2, 1000))
	}
	// A stale frame (seq 4) that would clear the filter is ignored.
	input(t, d, 2, 20, mk(4, make([]byte, 128)))
	d.AdvanceTo(5000)
	count := func() (a, b int) {
		for _, o := range *outs {
			if o.Port != 2 || o.Kind != device.KindData {
				continue
			}
			switch o.Frame[0x23] { // low octet of the UDP source port
			case 1:
				a++
			case 2:
				b++
			}
		}
		return
	}
	if a, b := count(); a != 1 || b != 3 {
		t.Fatalf("while paused: %d frames of A (only its first, through the high-priority queue), %d of B", a, b)
	}
	if s.StaleFrames != 1 || s.FramesApplied != 1 {
		t.Errorf("stale %d applied %d", s.StaleFrames, s.FramesApplied)
	}
	input(t, d, 2, 5000, mk(6, make([]byte, 128)))
	d.AdvanceTo(6000)
	if a, _ := count(); a != 3 {
		t.Errorf("after resume: %d frames of A", a)
	}
	// Serial-number arithmetic: seq 0 after 0xFFFFFFFF is newer.
	d2, s2, _ := tor(t, Params{})
	input(t, d2, 2, 0, mk(0xFFFFFFFF, filter))
	input(t, d2, 2, 0, mk(0, filter))
	if s2.StaleFrames != 0 || s2.FramesApplied != 2 {
		t.Errorf("wrap: stale %d", s2.StaleFrames)
	}
	// A malformed BFC frame is dropped and counted.
	bad := mk(9, filter)
	bad[14+4] = 0 // k = 0
	input(t, d2, 2, 0, bad)
	if d2.Record().Dropped("bfc malformed") != 1 {
		t.Error("malformed frame not dropped")
	}
}

// TestNIC: a NIC holds back the flows the last applied filter pauses and
// resumes them when a newer frame clears their bits.
func TestNIC(t *testing.T) {
	n, err := device.NewNIC(device.Config{Name: "h", Ports: []device.PortConfig{{ID: 0, Speed: 100 * device.Gbps,
		Prefixes: []netip.Prefix{netip.PrefixFrom(hostA, 32)}}}})
	if err != nil {
		t.Fatal(err)
	}
	nic := NewNIC()
	if err := n.Attach(nic); err != nil {
		t.Fatal(err)
	}
	var sent [3]int
	var last [3]int64
	n.OnOutput(func(o device.Out) {
		if o.Port == device.WirePort {
			sent[o.Frame[0x23]]++
			last[o.Frame[0x23]] = o.Time
		}
	})
	for sp := uint16(1); sp <= 2; sp++ {
		if _, err := n.AddFlow(device.FlowSpec{Template: frame(t, hostA, recv, sp, 1000), Count: 20, Start: 10}); err != nil {
			t.Fatal(err)
		}
	}
	filter := make([]byte, 128)
	h1 := Hashes(key(hostA, recv, 1))
	for st := 0; st < 4; st++ {
		layers.SetFilterBit(layers.BFCVersion, filter, 4, &h1, st)
	}
	f1, _ := AppendFrame(nil, device.MAC{}, 4, 1, filter)
	f0, _ := AppendFrame(nil, device.MAC{}, 4, 0, make([]byte, 128))
	f2, _ := AppendFrame(nil, device.MAC{}, 4, 2, make([]byte, 128))
	input(t, n, 0, 0, f1)
	input(t, n, 0, 100, f0) // stale
	n.AdvanceTo(3000)
	if sent[1] != 0 || sent[2] != 20 {
		t.Fatalf("paused flow sent %d, other %d", sent[1], sent[2])
	}
	if !nic.Paused(key(hostA, recv, 1)) || nic.StaleFrames != 1 {
		t.Error("nic state")
	}
	input(t, n, 0, 3000, f2)
	n.Flush()
	if sent[1] != 20 || last[1] < 3000 {
		t.Errorf("after resume sent %d, last at %d", sent[1], last[1])
	}
	sw, _, _ := tor(t, Params{})
	if err := sw.Attach(NewNIC()); !errors.Is(err, device.ErrParam) {
		t.Errorf("NIC scheme on a switch: %v", err)
	}
}

func TestParams(t *testing.T) {
	cases := []struct {
		name string
		p    Params
		want string
	}{
		{"queues", Params{Queues: 5000}, "n_q"},
		{"hrtt", Params{HopRTT: 5}, "hrtt"},
		{"tau", Params{Tau: 3 * device.Microsecond}, "tau"},
		{"k", Params{Hashes: 9}, "k"},
		{"l", Params{FilterLen: 2048}, "l"},
		{"l multiple", Params{FilterLen: 130}, "l"},
	}
	for _, c := range cases {
		p := c.p
		err := p.resolve()
		var pe *device.ParamError
		if !errors.As(err, &pe) || pe.Name != c.want || pe.Allowed == "" || !errors.Is(err, device.ErrParam) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	p := Params{}
	if err := p.resolve(); err != nil || p.Queues != 32 || p.HopRTT != 2000 || p.Tau != 1000 || p.FilterLen != 128 || p.Hashes != 4 {
		t.Errorf("defaults %+v %v", p, err)
	}
	// A port with too few egress queues for N_q.
	d, err := device.NewSwitch(device.Config{Ports: []device.PortConfig{{ID: 0, Speed: device.Gbps}}})
	if err != nil {
		t.Fatal(err)
	}
	var pe *device.ParamError
	if err := d.Attach(NewSwitch(Params{})); !errors.As(err, &pe) || pe.Name != "n_q" {
		t.Errorf("8 queues: %v", err)
	}
	if QueuesFor(0) != 41 || QueuesFor(4) != 13 {
		t.Error("QueuesFor")
	}
}
