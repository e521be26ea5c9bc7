// SPDX-License-Identifier: Apache-2.0

package floodgate

import (
	"net/netip"
	"testing"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

// BenchmarkSwitch measures the Floodgate switch model alone: host port 0
// offers 1,000-octet frames to two destinations behind window ports at
// line rate, and the downstream returns every octet as credit each τ, so
// windows, VOQs, credit counting and credit frames all work. One op = one
// frame through the switch; frame-events/s counts arrivals and departures.
func BenchmarkSwitch(b *testing.B) {
	r := newRig(b, Params{})
	var outs int64
	r.d.OnOutput(func(device.Out) { outs++ })
	dsts := [2]netip.Addr{d1, d2}
	frames := [2][]byte{data(b, h0, d1, 1000), data(b, h0, d2, 1000)}
	var sent [2]int64
	var bl builder
	ents := make([]layers.CreditEntry, 1)
	b.ReportAllocs()
	b.ResetTimer()
	var now int64
	for i := 0; i < b.N; i++ {
		if err := r.d.Input(0, now, frames[i%2]); err != nil {
			b.Fatal(err)
		}
		sent[i%2] += 1000
		now += 82
		if i%122 == 121 { // about every 10 µs
			r.d.AdvanceTo(now)
			for j := range dsts {
				ents[0] = layers.CreditEntry{Credits: uint32(sent[j]), Dst: dsts[j]}
				f, _ := bl.creditFrame(device.MAC{2}, 4, ents)
				_ = r.d.Input(3+j, now, f)
				sent[j] = 0
			}
		}
	}
	r.d.Flush()
	b.StopTimer()
	b.ReportMetric((float64(b.N)+float64(outs))/b.Elapsed().Seconds(), "frame-events/s")
}

// BenchmarkIncast runs the whole two-tier incast (8 senders × 500 frames,
// Floodgate on every switch) once per op; sim-events/s counts every event
// of the shared clock.
func BenchmarkIncast(b *testing.B) {
	b.ReportAllocs()
	var events int64
	for i := 0; i < b.N; i++ {
		x, err := NewIncast(IncastConfig{Floodgate: true, Frames: 500})
		if err != nil {
			b.Fatal(err)
		}
		x.Run()
		events += x.Sim.Events
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "sim-events/s")
}
