// SPDX-License-Identifier: Apache-2.0

package bts

import (
	"strings"
	"testing"

	"github.com/opensfc/sfc/device"
)

// TestIncastOrdering runs the SFC paper's micro-benchmark: dumbbell, 100
// Gb/s host links with 1 µs delay, 63-to-1 incast, senders starting evenly
// over a 50 µs window, unlimited buffer, no congestion control. The peak of
// the receiver's queue must order: no flow control > ingress BTS > ingress
// BTS with the pause cache.
func TestIncastOrdering(t *testing.T) {
	var peaks [3]int64
	for _, m := range []Mode{NoFC, IngressBTS, IngressBTSCache} {
		x, err := NewIncast(IncastConfig{N: 63, Window: 50 * device.Microsecond, Mode: m, Frames: 500})
		if err != nil {
			t.Fatal(err)
		}
		x.Run()
		peaks[m], _ = x.Peak()
		r := x.Right.Record()
		if r.Dropped("") != 0 {
			t.Errorf("%v: drops %+v", m, r.Drops)
		}
		// Every frame reaches the receiver: SFC never drops data.
		var rx int64
		for _, f := range x.Receiver.Flows() {
			rx += f.RxFrames
		}
		if rx != 63*500 {
			t.Errorf("%v: receiver got %d frames, want %d", m, rx, 63*500)
		}
		t.Logf("%-20v peak %9d octets", m, peaks[m])
	}
	if !(peaks[NoFC] > peaks[IngressBTS] && peaks[IngressBTS] > peaks[IngressBTSCache]) {
		t.Errorf("peaks %v do not order no FC > BTS > BTS + cache", peaks)
	}
}

// TestIncastAnalysis checks a perfectly synchronized N-to-1 incast against
// the analysis of the SFC paper (appendix C.2), B = N × R × T_F.
//
// Derivation, for this dumbbell (sender -d- left ToR -d- right ToR -d-
// receiver, every hop d = 1 µs, host links R = 100 Gb/s, a core of N × R so
// that the right ToR's receiver port is the only queue):
//
//   - All N senders start at 0 and send back to back at R. Their first
//     bits reach the right ToR at t0 = 2d (plus the core serialization,
//     negligible).
//   - The queue grows at (N − 1) R. The first packets that see it above
//     Q_th arrive at t1 = t0 + Q_th / ((N − 1) R); in that same round every
//     flow gets its BTS (one per flow, suppression).
//   - A BTS needs the feedback delay back to its sender: 2d plus its own
//     serialization s_b (about 146 octets with preamble and FCS at R). The
//     sender then stops starting frames (it finishes the one on the wire,
//     s_d = one data frame time).
//   - What it sent until then is still on the way and arrives over the next
//     2d. So the queue receives N R for T_F = (t1 − t0) + 2d + s_b + s_d + 2d
//     = Q_th / ((N − 1) R) + 4d + s_b + s_d, and drains R meanwhile:
//     B = (N − 1) R T_F ≈ N R T_F (within 1/N).
//
// With N = 63, Q_th = 250 KB: Q_th / (62 R) = 322.6 ns; 4d = 4 µs; s_b =
// 11.7 ns; s_d = 88.2 ns; T_F ≈ 4.42 µs and N R T_F ≈ 3.48 MB.
//
// The peak measured is the first congestion episode's, before any sender
// resumes. Later, the senders' pauses all end together and they resume in
// step: without the cache that second surge can exceed the first (the
// rule of behaviour.md §1 sizes each pause from the local queue, not from
// the flows still arriving); the test reports it.
func TestIncastAnalysis(t *testing.T) {
	const n = 63
	for _, m := range []Mode{IngressBTS, IngressBTSCache} {
		var firstPeak, firstResume int64 = 0, -1
		x, err := NewIncast(IncastConfig{N: n, Mode: m, Frames: 500, Trace: device.Trace{OnDepth: func(port, q int, t, d int64) {
			if port == 1 && firstResume < 0 && d > firstPeak {
				firstPeak = d
			}
		}}})
		if err != nil {
			t.Fatal(err)
		}
		// A sender resumes when it starts a frame more than a frame time
		// after its previous one; from then on a new episode begins.
		for _, s := range x.Senders {
			var last int64 = -1
			s.OnOutput(func(o device.Out) {
				if o.Port != device.WirePort {
					return
				}
				if last >= 0 && o.Time-last > 200 && firstResume < 0 {
					firstResume = o.Time
				}
				last = o.Time
			})
		}
		x.Run()
		qth, _ := x.RightSFC.Thresholds(x.Right, 1)
		r := float64(100 * device.Gbps / 8) // octets per second
		d := 1e-6
		sb := float64(device.WireBits(122)) / 8 / r
		sd := float64(device.WireBits(1078)) / 8 / r
		tf := float64(qth)/((n-1)*r) + 4*d + sb + sd
		b := n * r * tf
		peak, _ := x.Peak()
		t.Logf("%v: T_F = %.3f us, N R T_F = %.0f, first-episode peak %d (%.1f %%), overall peak %d, first resume at %d ns",
			m, tf*1e6, b, firstPeak, 100*(float64(firstPeak)/b-1), peak, firstResume)
		if dev := float64(firstPeak)/b - 1; dev < -0.10 || dev > 0.10 {
			t.Errorf("%v: first-episode peak %d is %.1f %% off N R T_F = %.0f", m, firstPeak, 100*dev, b)
		}
	}
}

// TestDeterminism: the same scenario gives byte-identical outputs twice.
func TestDeterminism(t *testing.T) {
	run := func() (uint64, int, string) {
		var h uint64 = 14695981039346656037
		n := 0
		add := func(b byte) { h = (h ^ uint64(b)) * 1099511628211 }
		x, err := NewIncast(IncastConfig{N: 16, Window: 10 * device.Microsecond, Mode: IngressBTSCache, Frames: 100,
			Output: func(dev string, o device.Out) {
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
		var rec strings.Builder
		for _, d := range append([]*device.Device{x.Left, x.Right, x.Receiver}, x.Senders...) {
			if err := d.Record().WriteJSON(&rec); err != nil {
				t.Fatal(err)
			}
		}
		return h, n, rec.String()
	}
	h1, n1, r1 := run()
	h2, n2, r2 := run()
	if h1 != h2 || n1 != n2 || n1 == 0 {
		t.Errorf("runs differ: %x/%d vs %x/%d", h1, n1, h2, n2)
	}
	if r1 != r2 {
		t.Error("records differ")
	}
}
