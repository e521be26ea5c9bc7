// SPDX-License-Identifier: Apache-2.0

package bts

import (
	"net/netip"
	"testing"

	"github.com/opensfc/sfc/device"
)

// BenchmarkSwitchIncast measures the SFC switch model alone under a 63-to-1
// incast: 63 senders offer 1,078-octet frames at 100 Gb/s each into one
// 100 Gb/s receiver port; a sender stops while a BTS the switch sent it is
// in force (2 µs after it left), so the queue stays bounded and memory
// depends on queued frames, not on frames processed. One op = one frame
// through the switch: its arrival (Input, parse, route, SFC rules,
// enqueue) and its departure (dequeue, output, transmit completion).
// frame-events/s counts arrivals plus departures.
func BenchmarkSwitchIncast(b *testing.B) {
	const n = 63
	ports := make([]device.PortConfig, 0, n+1)
	frames := make([][]byte, n)
	recv := netip.MustParseAddr("10.2.0.1")
	for i := 0; i < n; i++ {
		a := netip.AddrFrom4([4]byte{10, 1, 0, byte(i)})
		ports = append(ports, device.PortConfig{ID: i, Speed: 100 * device.Gbps, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(a, 32)}})
		frames[i], _ = device.BuildUDP(nil, device.UDPSpec{Src: a, Dst: recv, SrcPort: uint16(1000 + i), DstPort: 4791, Len: 1078})
	}
	ports = append(ports, device.PortConfig{ID: n, Speed: 100 * device.Gbps, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(recv, 32)}})
	d, err := device.NewSwitch(device.Config{Name: "tor", Ports: ports})
	if err != nil {
		b.Fatal(err)
	}
	sw := NewSwitch(Params{Cache: true})
	if err := d.Attach(sw); err != nil {
		b.Fatal(err)
	}
	// A BTS takes effect at its sender 2 µs after it left (link delay and
	// back), and the sender's frames sent meanwhile still arrive.
	const feedback = 2 * device.Microsecond
	var pauseStart, pauseEnd [n]int64
	var outs int64
	d.OnOutput(func(o device.Out) {
		outs++
		if o.Kind == device.KindBTS {
			s, err := Decode(o.Frame, 0)
			if err == nil {
				pauseStart[o.Port] = o.Time + feedback
				pauseEnd[o.Port] = o.Time + feedback + s.PauseNs()
			}
		}
	})
	b.ReportAllocs()
	b.ResetTimer()
	in := 0
	var t int64
	for in < b.N {
		for s := 0; s < n && in < b.N; s++ {
			if t < pauseStart[s] || t >= pauseEnd[s] {
				if err := d.Input(s, t, frames[s]); err != nil {
					b.Fatal(err)
				}
				in++
			}
		}
		t += 89
	}
	d.Flush()
	b.StopTimer()
	events := float64(in) + float64(outs)
	b.ReportMetric(events/b.Elapsed().Seconds(), "frame-events/s")
	b.ReportMetric(float64(d.Record().Queue(n, 0).Peak), "peak-octets")
}

// BenchmarkIncastScenario runs the whole 63-to-1 dumbbell (63 sender NICs,
// two ToRs, a receiver NIC; BTS with the cache) once per op, 500 frames per
// sender. sim-events/s counts every event of the shared clock (frame
// deliveries, transmit completions, wakes, timers).
func BenchmarkIncastScenario(b *testing.B) {
	b.ReportAllocs()
	var events int64
	for i := 0; i < b.N; i++ {
		x, err := NewIncast(IncastConfig{N: 63, Window: 50 * device.Microsecond, Mode: IngressBTSCache, Frames: 500})
		if err != nil {
			b.Fatal(err)
		}
		x.Run()
		events += x.Sim.Events
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "sim-events/s")
}
