// SPDX-License-Identifier: Apache-2.0

package bfc

import (
	"net/netip"
	"testing"

	"github.com/opensfc/sfc/device"
)

// BenchmarkSwitch measures the BFC switch model alone: 64 flows from two
// ingress ports offer 1,000-octet frames into one 100 Gb/s port at line
// rate; the switch assigns queues, pauses, resumes and sends a pause frame
// per port every τ. One op = one frame through the switch (arrival and
// departure); frame-events/s counts both.
func BenchmarkSwitch(b *testing.B) {
	d, s, _ := tor(b, Params{})
	var outs int64
	d.OnOutput(func(device.Out) { outs++ })
	frames := make([][]byte, 64)
	for i := range frames {
		src := []netip.Addr{hostA, hostB}[i%2]
		frames[i] = frame(b, src, recv, uint16(i), 1000)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var t int64
	for i := 0; i < b.N; i++ {
		if err := d.Input(i%2, t, frames[i%64]); err != nil {
			b.Fatal(err)
		}
		if i%2 == 1 {
			t += 82 // two frames per 82 ns: about 200 Gb/s offered into 100 Gb/s
		}
		if i%64 == 63 {
			d.AdvanceTo(t)
			if d.BufferUsed() > 2_000_000 {
				t += 20_000 // let a backlog drain, as paused senders would
			}
		}
	}
	d.Flush()
	b.StopTimer()
	b.ReportMetric((float64(b.N)+float64(outs))/b.Elapsed().Seconds(), "frame-events/s")
	b.ReportMetric(float64(s.Pauses)/float64(b.N), "pauses/frame")
}

// BenchmarkFanIn runs the whole fan-in scenario (2 sender NICs, 64 flows of
// 100 frames, BFC switch and NICs) once per op; sim-events/s counts every
// event of the shared clock.
func BenchmarkFanIn(b *testing.B) {
	b.ReportAllocs()
	var events int64
	for i := 0; i < b.N; i++ {
		x, err := NewFanIn(FanInConfig{Flows: 64, Frames: 100, BFC: true})
		if err != nil {
			b.Fatal(err)
		}
		x.Run()
		events += x.Sim.Events
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "sim-events/s")
}
