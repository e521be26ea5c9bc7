// SPDX-License-Identifier: Apache-2.0

package bfc

import (
	"bytes"
	"math/rand/v2"
	"net/netip"
	"runtime"
	"testing"

	"github.com/opensfc/sfc/device"
)

// TestFanInQueueBound reproduces the BFC paper's queue-length claim (Fig.
// 10) on a small topology: 2 sender NICs with 8, 16, 32 and 64 concurrent
// flows (64 flows share the 32 physical queues two by two) into one
// 100 Gb/s receiver port, 100 frames of 1,078 octets per flow, 1 µs links
// (hop RTT 2 µs, hop BDP = 2 µs × 12.5 octets/ns = 25,000 octets). Without
// pausing, every flow waits in one shared queue whose peak grows linearly
// with the number of flows; with BFC no physical queue holds more than about
// 2 hop BDPs, their mean depth stays under one, and the flows finish as
// fast.
func TestFanInQueueBound(t *testing.T) {
	const hopBDP = 25_000
	var noPause []int64
	for _, n := range []int{8, 16, 32, 64} {
		var res [2]*FanIn
		for i, on := range []bool{false, true} {
			x, err := NewFanIn(FanInConfig{Flows: n, Frames: 100, BFC: on})
			if err != nil {
				t.Fatal(err)
			}
			x.Run()
			if got := x.Delivered(); got != int64(n)*100 {
				t.Fatalf("%d flows, bfc %v: %d frames delivered", n, on, got)
			}
			res[i] = x
		}
		np, b := res[0], res[1]
		noPause = append(noPause, np.Stats.MaxQueue)
		t.Logf("%2d flows: no pause: shared queue peak %7d octets (%5.1f hop BDP), done at %6d ns; BFC: largest physical queue %6d (%.2f hop BDP), mean %6d (%.2f), first-packet queue peak %6d, port peak %7d, done at %6d ns, %d pauses",
			n, np.Stats.MaxQueue, float64(np.Stats.MaxQueue)/hopBDP, np.Sim.Now(),
			b.Stats.MaxQueue, float64(b.Stats.MaxQueue)/hopBDP, b.Stats.MeanQueue, float64(b.Stats.MeanQueue)/hopBDP,
			b.Stats.FirstPacketPeak, b.Stats.PortPeak, b.Sim.Now(), b.BFC.Pauses)
		if b.Stats.MaxQueue > 3*hopBDP {
			t.Errorf("%d flows: BFC physical queue peak %d > 3 hop BDP", n, b.Stats.MaxQueue)
		}
		if b.Stats.MeanQueue > hopBDP {
			t.Errorf("%d flows: BFC mean queue %d > 1 hop BDP", n, b.Stats.MeanQueue)
		}
		if b.Sim.Now() > np.Sim.Now()*103/100 {
			t.Errorf("%d flows: BFC done at %d, no pause at %d", n, b.Sim.Now(), np.Sim.Now())
		}
		if b.BFC.Flows() != 0 || b.BFC.nPausedT != 0 {
			t.Errorf("%d flows: %d flow entries, %d paused left", n, b.BFC.Flows(), b.BFC.nPausedT)
		}
	}
	// Linear growth without pause: 8 times the flows, about 8 times the peak.
	if r := float64(noPause[3]) / float64(noPause[0]); r < 7.5 || r > 8.5 {
		t.Errorf("no-pause peak ratio 64/8 flows = %.2f", r)
	}
}

// TestDeterminism: the same scenario gives byte-identical output twice.
func TestDeterminism(t *testing.T) {
	run := func() (uint64, int, []byte) {
		var h uint64 = 14695981039346656037
		n := 0
		add := func(b byte) { h = (h ^ uint64(b)) * 1099511628211 }
		x, err := NewFanIn(FanInConfig{Flows: 40, Frames: 30, BFC: true, Stagger: 300, Output: func(o device.Out) {
			n++
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
		if err := x.Switch.Record().WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		return h, n, js.Bytes()
	}
	h1, n1, j1 := run()
	h2, n2, j2 := run()
	if h1 != h2 || n1 != n2 || n1 == 0 || !bytes.Equal(j1, j2) {
		t.Errorf("runs differ: %x/%d vs %x/%d", h1, n1, h2, n2)
	}
}

// TestFlatMemory: a switch that has carried a stream of short flows holds
// state only for the flows still queued or paused, and in steady state
// forwarding a frame (pause frames and resumes included) allocates nothing.
func TestFlatMemory(t *testing.T) {
	d, s, _ := tor(t, Params{})
	d.OnOutput(nil)
	frames := make([][]byte, 512)
	for i := range frames {
		frames[i] = frame(t, hostA, recv, uint16(i), 1000)
	}
	var now int64
	i := 0
	round := func() {
		// 10 frames from 10 flows, then 1 µs: 80 Gb/s offered into a
		// 100 Gb/s port; flows are reused every 51 rounds.
		for k := 0; k < 10; k++ {
			_ = d.Input(0, now, frames[i%len(frames)])
			i++
		}
		now += 1000
		d.AdvanceTo(now)
	}
	for k := 0; k < 2000; k++ {
		round()
	}
	if s.Flows() > 20 {
		t.Errorf("%d flow entries in steady state", s.Flows())
	}
	if a := testing.AllocsPerRun(500, round); a > 0 {
		t.Errorf("%.1f allocations per round in steady state", a)
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
		t.Errorf("heap grew by %d octets over 50,000 frames", grow)
	}
	d.Flush()
	if s.Flows() != 0 {
		t.Errorf("%d flow entries after drain", s.Flows())
	}
}

// TestArbitraryInput feeds random and mutated frames, including BFC frames
// with random geometry, at random times into a BFC switch and a BFC NIC:
// nothing panics and the devices stay consistent.
func TestArbitraryInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d, s, _ := tor(t, Params{Queues: 4})
	n, err := device.NewNIC(device.Config{Name: "h", Ports: []device.PortConfig{{ID: 0, Speed: 25 * device.Gbps,
		Prefixes: []netip.Prefix{netip.PrefixFrom(hostA, 32)}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Attach(NewNIC()); err != nil {
		t.Fatal(err)
	}
	if _, err := n.AddFlow(device.FlowSpec{Template: frame(t, hostA, recv, 9, 500), Count: -1}); err != nil {
		t.Fatal(err)
	}
	seed := [][]byte{frame(t, hostA, recv, 1, 1000), frame(t, hostB, recv, 2, 64)}
	for i := 0; i < 8; i++ {
		f := make([]byte, 128)
		for j := range f {
			f[j] = byte(rng.Uint32())
		}
		b, _ := AppendFrame(nil, device.MAC{}, 4, rng.Uint32(), f)
		seed = append(seed, b)
	}
	var now int64
	for i := 0; i < 20000; i++ {
		f := append([]byte(nil), seed[rng.IntN(len(seed))]...)
		switch rng.IntN(4) {
		case 0:
			f[rng.IntN(len(f))] = byte(rng.Uint32())
		case 1:
			f = f[:rng.IntN(len(f)+1)]
		case 2:
			if len(f) > 20 {
				f[14+rng.IntN(8)] = byte(rng.Uint32()) // BFC header fields
			}
		}
		now += int64(rng.IntN(300))
		_ = d.Input(rng.IntN(3), now, f)
		_ = n.Input(0, now, f)
	}
	d.Flush()
	n.AdvanceTo(now + 100_000)
	if s.Pauses < s.Resumes {
		t.Errorf("pauses %d < resumes %d", s.Pauses, s.Resumes)
	}
}

// TestIdleJump: once idle, a switch schedules nothing, so an input far in
// the future costs a handful of events, not one per τ; ticks resume on
// the τ grid with the next frame. (2^42 ns: the device's femtosecond port
// clocks wrap past 2^63 fs, about 2.56 hours of virtual time.)
func TestIdleJump(t *testing.T) {
	d, _, outs := tor(t, Params{})
	for i := 0; i < 60; i++ {
		input(t, d, 0, 0, frame(t, hostA, recv, 1, 1000))
	}
	d.Flush()
	d.AdvanceTo(100_000)
	ev := d.Sim().Events
	far := int64(1) << 42
	input(t, d, 0, far+500, frame(t, hostA, recv, 1, 1000))
	d.AdvanceTo(far + 5000)
	if n := d.Sim().Events - ev; n > 20 {
		t.Errorf("%d events for a jump of 2^42 ns", n)
	}
	frames, times := pauseFrames(t, *outs, 0)
	n := len(frames)
	// 60 frames drain in about 5 µs: pause frames at 1..5 µs, then none
	// until the tick after the new frame.
	if want := (far+500)/1000*1000 + 1000; n != 6 || times[4] != 5000 || times[5] != want || frames[5].Seq != 5 {
		t.Errorf("pause frames at %v (last seq %d), want 1..5 µs and %d", times, frames[n-1].Seq, want)
	}
}
