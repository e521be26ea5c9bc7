// SPDX-License-Identifier: Apache-2.0

package postcard

import (
	"bytes"
	"math/rand/v2"
	"net/netip"
	"runtime"
	"testing"

	"github.com/opensfc/sfc/device"
)

// TestFastStartIncast reproduces the PB-FS paper's claim on a dumbbell: 8
// senders start a 215,600-octet flow each at 100 Gb/s at the same time
// toward one 100 Gb/s receiver (1 µs links, 800 Gb/s core). Fast start
// alone piles 7/8 of the incast, 1.5 MB, at the receiver's port; with PB-FS
// the receiver's ToR answers the marked packets with postcards within the
// first RTT, each sender lowers its rate, the peak falls and every flow
// still completes.
func TestFastStartIncast(t *testing.T) {
	var res [2]*Incast
	for i, on := range []bool{false, true} {
		x, err := NewIncast(IncastConfig{PBFS: on})
		if err != nil {
			t.Fatal(err)
		}
		x.Run()
		if got := x.Delivered(); got != 8*200 {
			t.Fatalf("pbfs %v: %d of 1,600 frames delivered", on, got)
		}
		for _, f := range x.Receiver.Flows() {
			if f.RxFrames != 200 {
				t.Errorf("pbfs %v: flow %s got %d frames", on, f.Key, f.RxFrames)
			}
		}
		res[i] = x
	}
	fs, pb := res[0], res[1]
	t.Logf("fast start alone: peak %d octets at the receiver port, done at %d ns", fs.Peak(), fs.Sim.Now())
	t.Logf("PB-FS:            peak %d octets at the receiver port, done at %d ns; right ToR: %d marked, %d postcards; left ToR: %d postcards",
		pb.Peak(), pb.Sim.Now(), pb.RightPB.Marked, pb.RightPB.Postcards, pb.LeftPB.Postcards)
	for i, s := range pb.SenderPB {
		t.Logf("sender %d: %d marked, %d postcards acted on, %d ignored, %d rate changes", i, s.Marked, s.Postcards, s.Ignored, s.RateChanges)
		if s.Postcards == 0 || s.Flows() != 0 {
			t.Errorf("sender %d: %d postcards, %d flows left", i, s.Postcards, s.Flows())
		}
	}
	if pb.Peak() >= fs.Peak()*2/3 {
		t.Errorf("PB-FS peak %d not well below fast start's %d", pb.Peak(), fs.Peak())
	}
	if pb.LeftPB.Postcards != 0 {
		t.Errorf("the uncongested left ToR sent %d postcards", pb.LeftPB.Postcards)
	}
}

// TestDeterminism: the same scenario gives byte-identical output twice.
func TestDeterminism(t *testing.T) {
	run := func() (uint64, int, []byte) {
		var h uint64 = 14695981039346656037
		n := 0
		add := func(b byte) { h = (h ^ uint64(b)) * 1099511628211 }
		x, err := NewIncast(IncastConfig{PBFS: true, Frames: 160, Stagger: 700, Output: func(dev string, o device.Out) {
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
		for _, d := range []*device.Device{x.Left, x.Right, x.Receiver} {
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

// TestFlatMemory: a PB-FS switch that sees a long stream of marked and
// unmarked frames keeps a fixed history per port and a T_Δ window bounded
// by the frames of T_Δ, and allocates nothing per frame in steady state,
// postcards included.
func TestFlatMemory(t *testing.T) {
	r := newRig(t)
	r.d.PauseClass(1, 0, 0, "") // let the port drain
	r.d.OnOutput(nil)
	fr := [2][]byte{data(t, sender, recv, 5, false, 1000), data(t, sender, recv, 5, true, 1000)}
	var now int64
	k, rounds := 0, 0
	round := func() {
		// 10 µs of 20 frames per µs (160 Gb/s into 100 Gb/s), then 10 µs
		// of silence: congested, then drained, at 80 Gb/s on average.
		if rounds%20 < 10 {
			for i := 0; i < 20; i++ {
				_ = r.d.Input(0, now, fr[k%6/5])
				k++
			}
		}
		rounds++
		now += 1000
		r.d.AdvanceTo(now)
	}
	for i := 0; i < 2000; i++ {
		round()
	}
	if r.s.Postcards == 0 {
		t.Fatal("no postcards")
	}
	if a := testing.AllocsPerRun(1000, round); a > 0 {
		t.Errorf("%.2f allocations per round", a)
	}
	var m1, m2 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m1)
	for i := 0; i < 5000; i++ {
		round()
	}
	runtime.GC()
	runtime.ReadMemStats(&m2)
	if grow := int64(m2.HeapAlloc) - int64(m1.HeapAlloc); grow > 256<<10 {
		t.Errorf("heap grew by %d octets over 50,000 frames", grow)
	}
	for i := range r.s.ports {
		if n := len(r.s.ports[i].ring); n > 128 {
			t.Errorf("port %d: T_Δ ring of %d", i, n)
		}
	}
}

// TestSenderMemory: a sender forgets a flow once its ACK came and it has
// nothing left to send.
func TestSenderMemory(t *testing.T) {
	n, s, _ := nic(t, SenderParams{AckAfter: 2000})
	var now int64
	for i := 0; i < 500; i++ {
		if _, err := s.AddFlow(n, device.FlowSpec{Template: data(t, sender, recv, uint16(i), false, 1000), Count: 5, Start: now}); err != nil {
			t.Fatal(err)
		}
		now += 1000
		n.AdvanceTo(now)
	}
	n.Flush()
	if s.Flows() != 0 || len(s.sizes) != 0 {
		t.Errorf("%d flows, %d sizes left", s.Flows(), len(s.sizes))
	}
	if len(s.slots) > 8 {
		t.Errorf("%d timer slots for at most 3 flows at a time", len(s.slots))
	}
}

// TestArbitraryInput feeds random and mutated frames (postcards among
// them) at random times, some far apart, into a PB-FS switch and sender:
// nothing panics.
func TestArbitraryInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	r := newRig(t)
	n, s, _ := nic(t, SenderParams{})
	if _, err := s.AddFlow(n, device.FlowSpec{Template: data(t, sender, recv, 1, false, 700), Count: -1}); err != nil {
		t.Fatal(err)
	}
	v6a, v6b := netip.MustParseAddr("fd00::1"), netip.MustParseAddr("fd00::2")
	seed := [][]byte{data(t, sender, recv, 1, true, 1000), data(t, sender, recv, 1, false, 64), data(t, v6a, v6b, 9, true, 200),
		postcard(t, swA, pc(500_000, 1, 60_000, 2_000), 1), postcard(t, swB, pc(1<<31, 1<<31, 1, 1<<31), 1)}
	var now int64
	for i := 0; i < 20000; i++ {
		f := append([]byte(nil), seed[rng.IntN(len(seed))]...)
		switch rng.IntN(4) {
		case 0:
			f[rng.IntN(len(f))] = byte(rng.Uint32())
		case 1:
			f = f[:rng.IntN(len(f)+1)]
		case 2:
			if len(f) > 80 {
				f[42+rng.IntN(36)] = byte(rng.Uint32()) // postcard body
			}
		}
		gap := int64(rng.IntN(400))
		if rng.IntN(1000) == 0 {
			gap = int64(rng.Uint64() >> 40) // a long silence
		}
		now += gap
		_ = r.d.Input(rng.IntN(2), now, f)
		_ = n.Input(0, now, f)
	}
	r.d.AdvanceTo(now + 1_000_000)
	n.AdvanceTo(now + 1_000_000)
}

// TestIdleJump: a switch whose ports are steady (here, a queue frozen by a
// pause) stops its slot timer, so a jump far ahead costs a handful of
// events, and the history after it is that of a steady port.
func TestIdleJump(t *testing.T) {
	r := newRig(t) // class 0 of port 1 paused: its queue only grows
	r.in(t, 0, 30, false)
	r.d.AdvanceTo(100_000)
	ev := r.d.Sim().Events
	far := int64(1) << 42
	r.in(t, far, 1, true)
	if n := r.d.Sim().Events - ev; n > 20 {
		t.Errorf("%d events for a jump of 2^42 ns", n)
	}
	// Steady: no octets in the last N slots, 30,000 octets queued at each
	// slot start: I_p = 0, not above 312,500 − 30,000.
	if a := r.s.Assessment(r.d, 1); a.IP != 0 || a.Q1 != 30_000 || len(r.postcards(t)) != 0 {
		t.Errorf("assessment %+v", a)
	}
}
