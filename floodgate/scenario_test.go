// SPDX-License-Identifier: Apache-2.0

package floodgate

import (
	"bytes"
	"math/rand/v2"
	"net/netip"
	"runtime"
	"testing"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

// TestIncastMovesBuffering: 8 senders (2 source ToRs × 4 hosts, 100 Gb/s
// each) send 500 frames of 1,078 octets (539,000 octets) each to one
// receiver; ToR uplinks run at 400 Gb/s and the core-to-destination link at
// 100 Gb/s, so without Floodgate the whole incast piles up in the core's
// queue toward the destination ToR (3.77 MB). With Floodgate that queue
// holds at most the core's window for the receiver (W = BDP_nextHop +
// C_out × τ = 15,000 + 125,000 = 140,000 octets with m = 1), the excess
// waits in the core's VOQ, moves on to the source ToRs (delay-credit),
// which dst-pause their hosts; every frame arrives, about as fast.
//
// The credits count octets as they join the downstream egress queue
// (behaviour.md §7), so a window bounds the queue of the hop that keeps
// it: with an 800 Gb/s core link the receiver ToR's port to the receiver
// would hold the whole incast (see fidelity/floodgate.go).
func TestIncastMovesBuffering(t *testing.T) {
	var res [2]*Incast
	for i, on := range []bool{false, true} {
		x, err := NewIncast(IncastConfig{Floodgate: on, Frames: 500, CoreSpeed: 100 * device.Gbps})
		if err != nil {
			t.Fatal(err)
		}
		x.Run()
		if got := x.Delivered(); got != 8*500 {
			t.Fatalf("floodgate %v: %d frames delivered", on, got)
		}
		res[i] = x
	}
	ns, nc, nd := res[0].Peaks()
	fs, fc, fd := res[1].Peaks()
	nq := res[0].Core.Record().Queue(2, 0).Peak
	fq := res[1].Core.Record().Queue(2, 0).Peak
	t.Logf("no Floodgate: peak buffer source ToR %d, core %d (queue to the destination ToR %d), destination ToR %d octets, done at %d ns", ns, nc, nq, nd, res[0].Sim.Now())
	t.Logf("Floodgate:    peak buffer source ToR %d, core %d (queue to the destination ToR %d), destination ToR %d octets, done at %d ns", fs, fc, fq, fd, res[1].Sim.Now())
	f := res[1]
	for i, s := range append(f.SourceFG, f.CoreFG, f.DstFG) {
		t.Logf("switch %d: %d packets waited in a VOQ (peak %d octets), %d credit frames (%d octets), %d held, %d dst-pauses, %d resumes",
			i, s.Queued, s.PeakVOQ, s.CreditFrames, s.CreditsSent, s.HeldTicks, s.DstPauses, s.DstResumes)
		if s.Destinations() != 0 || s.npend != 0 {
			t.Errorf("switch %d: %d destinations, %d pending credits left", i, s.Destinations(), s.npend)
		}
	}
	w := f.CoreFG.InitialWindow(f.Core, 2)
	if w != 140_000 {
		t.Errorf("core window %d, want 140,000", w)
	}
	if fq > w {
		t.Errorf("core queue to the destination ToR peaks at %d with Floodgate, above its window %d", fq, w)
	}
	if nq < 10*w {
		t.Errorf("core queue %d without Floodgate: the incast is too mild to show the window", nq)
	}
	if fc >= nc {
		t.Errorf("core buffer %d with Floodgate, %d without", fc, nc)
	}
	if fs < 10*ns {
		t.Errorf("source ToR peak %d with Floodgate, %d without: buffering did not move there", fs, ns)
	}
	if f.SourceFG[0].DstPauses == 0 || f.SourceFG[0].DstPauses != f.SourceFG[0].DstResumes {
		t.Errorf("dst-pause %d / resume %d", f.SourceFG[0].DstPauses, f.SourceFG[0].DstResumes)
	}
	if f.CoreFG.HeldTicks == 0 {
		t.Error("the core never delayed credits")
	}
	if res[1].Sim.Now() > res[0].Sim.Now()*105/100 {
		t.Errorf("Floodgate done at %d, without at %d", res[1].Sim.Now(), res[0].Sim.Now())
	}
}

// TestDeterminism: the same scenario gives byte-identical output twice.
func TestDeterminism(t *testing.T) {
	run := func() (uint64, int, []byte) {
		var h uint64 = 14695981039346656037
		n := 0
		add := func(b byte) { h = (h ^ uint64(b)) * 1099511628211 }
		x, err := NewIncast(IncastConfig{Floodgate: true, Frames: 200, Output: func(dev string, o device.Out) {
			n++
			add(dev[0])
			for i := 0; i < 8; i++ {
				add(byte(o.Time >> (8 * i)))
			}
			add(byte(o.Port))
			for _, c := range o.Frame {
				add(c)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		x.Run()
		var js bytes.Buffer
		for _, d := range append(x.SourceToR, x.Core, x.DstToR) {
			if err := d.Record().WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
		}
		return h, n, js.Bytes()
	}
	h1, n1, j1 := run()
	h2, n2, j2 := run()
	if h1 != h2 || n1 != n2 || n1 == 0 || !bytes.Equal(j1, j2) {
		t.Errorf("runs differ: %x/%d vs %x/%d", h1, n1, h2, n2)
	}
}

// TestFlatMemory: a switch that forwards a long stream from a host toward
// two destinations behind window ports, credits returning every τ, keeps
// state only for those destinations and allocates nothing per frame in
// steady state (VOQ rings and credit lists are reused).
func TestFlatMemory(t *testing.T) {
	r := newRig(t, Params{NoDstPause: false})
	r.d.OnOutput(nil)
	dsts := [][]byte{data(t, h0, d1, 1000), data(t, h0, d2, 1000)}
	var now int64
	var sent [2]int64
	var b builder
	ents := make([]layers.CreditEntry, 1)
	round := func() {
		for k := 0; k < 8; k++ {
			_ = r.d.Input(0, now, dsts[k%2])
			sent[k%2] += 1000
		}
		now += 1000
		r.d.AdvanceTo(now)
		if now%10_000 == 0 { // the downstream returns every octet each τ
			for j, dst := range [2]netip.Addr{d1, d2} {
				ents[0] = layers.CreditEntry{Credits: uint32(sent[j]), Dst: dst}
				f, _ := b.creditFrame(device.MAC{2}, 4, ents)
				_ = r.d.Input(3+j, now, f)
				sent[j] = 0
			}
		}
	}
	for k := 0; k < 3000; k++ {
		round()
	}
	if r.s.Destinations() > 4 {
		t.Errorf("%d destinations", r.s.Destinations())
	}
	if a := testing.AllocsPerRun(1000, round); a > 0 {
		t.Errorf("%.2f allocations per round", a)
	}
	var m1, m2 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m1)
	for k := 0; k < 5000; k++ {
		round()
	}
	runtime.GC()
	runtime.ReadMemStats(&m2)
	if grow := int64(m2.HeapAlloc) - int64(m1.HeapAlloc); grow > 256<<10 {
		t.Errorf("heap grew by %d octets over 40,000 frames", grow)
	}
}

// TestArbitraryInput feeds random and mutated frames (Floodgate frames with
// random counts, families and credits among them) at random times into a
// Floodgate switch and NIC: nothing panics.
func TestArbitraryInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	r := newRig(t, Params{DstPause: 3000, DelayCredit: 2000})
	n, err := device.NewNIC(device.Config{Name: "h", Ports: []device.PortConfig{{ID: 0, Speed: 25 * device.Gbps,
		Prefixes: []netip.Prefix{netip.PrefixFrom(h0, 32)}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Attach(NewNIC()); err != nil {
		t.Fatal(err)
	}
	if _, err := n.AddFlow(device.FlowSpec{Template: data(t, h0, d1, 500), Count: -1}); err != nil {
		t.Fatal(err)
	}
	v6 := netip.MustParseAddr("fd00::1")
	c1, _ := AppendCredit(nil, device.MAC{}, []layers.CreditEntry{{Credits: 5000, Dst: d1}, {Credits: 1 << 31, Dst: d2}})
	c6, _ := AppendCredit(nil, device.MAC{}, []layers.CreditEntry{{Credits: 7, Dst: v6}})
	p1, _ := AppendDstPause(nil, device.MAC{}, d1, 0xffff)
	p0, _ := AppendDstPause(nil, device.MAC{}, d1, 0)
	p6, _ := AppendDstPause(nil, device.MAC{}, v6, 9)
	seed := [][]byte{data(t, h0, d1, 1000), data(t, h1, d2, 64), data(t, d1, h2, 300), c1, c6, p1, p0, p6}
	var now int64
	for i := 0; i < 20000; i++ {
		f := append([]byte(nil), seed[rng.IntN(len(seed))]...)
		switch rng.IntN(4) {
		case 0:
			f[rng.IntN(len(f))] = byte(rng.Uint32())
		case 1:
			f = f[:rng.IntN(len(f)+1)]
		case 2:
			if len(f) > 24 {
				f[14+4+rng.IntN(6)] = byte(rng.Uint32())
			}
		}
		now += int64(rng.IntN(500))
		_ = r.d.Input(rng.IntN(5), now, f)
		_ = n.Input(0, now, f)
	}
	r.d.Flush()
	n.AdvanceTo(now + 1_000_000)
}

// TestIdleJump: once idle, a switch schedules nothing, so an input far in
// the future costs a handful of events.
func TestIdleJump(t *testing.T) {
	r := newRig(t, Params{})
	for i := 0; i < 10; i++ {
		r.input(t, 3, 0, data(t, d1, h0, 1000))
		r.input(t, 0, 0, data(t, h0, d1, 1000))
	}
	r.d.Flush()
	r.d.AdvanceTo(1_000_000)
	ev := r.d.Sim().Events
	far := int64(1) << 42
	r.input(t, 0, far, data(t, h0, d2, 1000))
	if n := r.d.Sim().Events - ev; n > 20 {
		t.Errorf("%d events for a jump of 2^42 ns", n)
	}
	if fs, _ := r.credits(t, 3); len(fs) != 1 || fs[0][0].Credits != 10_000 {
		t.Errorf("credits %v", fs)
	}
}
