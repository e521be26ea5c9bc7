// SPDX-License-Identifier: Apache-2.0

package postcard

import (
	"testing"

	"github.com/opensfc/sfc/device"
)

// BenchmarkSwitch measures the PB-FS switch model alone: one port offered
// 1,000-octet frames at 160 Gb/s for 10 µs, then idle for 10 µs (80 Gb/s
// on average into 100 Gb/s), every
// sixth frame marked, so half the marked frames draw a postcard. One op =
// one frame through the switch; frame-events/s counts arrivals and
// departures (postcards included).
func BenchmarkSwitch(b *testing.B) {
	r := newRig(b)
	r.d.PauseClass(1, 0, 0, "")
	var outs int64
	r.d.OnOutput(func(o device.Out) { outs++ })
	fr := [2][]byte{data(b, sender, recv, 5, false, 1000), data(b, sender, recv, 5, true, 1000)}
	b.ReportAllocs()
	b.ResetTimer()
	var now int64
	for i := 0; i < b.N; i++ {
		if err := r.d.Input(0, now, fr[i%6/5]); err != nil {
			b.Fatal(err)
		}
		if i%20 == 19 {
			now += 1000
			if i%200 == 199 {
				now += 10_000 // 200 frames in 20 µs: 80 Gb/s on average
			}
		}
	}
	r.d.Flush()
	b.StopTimer()
	b.ReportMetric((float64(b.N)+float64(outs))/b.Elapsed().Seconds(), "frame-events/s")
	b.ReportMetric(float64(r.s.Postcards)/float64(b.N), "postcards/frame")
}

// BenchmarkIncast runs the whole fast-start incast with PB-FS (8 senders ×
// 200 frames, two ToRs, a receiver) once per op; sim-events/s counts every
// event of the shared clock.
func BenchmarkIncast(b *testing.B) {
	b.ReportAllocs()
	var events int64
	for i := 0; i < b.N; i++ {
		x, err := NewIncast(IncastConfig{PBFS: true})
		if err != nil {
			b.Fatal(err)
		}
		x.Run()
		events += x.Sim.Events
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "sim-events/s")
}
