// SPDX-License-Identifier: Apache-2.0

package bts_test

import (
	"fmt"
	"net/netip"

	"github.com/opensfc/sfc/bts"
	"github.com/opensfc/sfc/device"
)

// An SFC ToR with 374 KB queued toward a 100 Gb/s server port answers the
// next 1,000-octet packet with a 20 µs BTS: the decision is taken from the
// 374 KB the packet finds (over Q_th = 250 KB), the pause from qd_e = 375
// KB, the depth with the packet: (375,000 − 125,000) × 8 / 10^11 s.
func Example() {
	recv := netip.MustParseAddr("10.0.1.1")
	d, _ := device.NewSwitch(device.Config{Name: "tor", Ports: []device.PortConfig{
		{ID: 0, Speed: 100 * device.Gbps, Prefixes: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/16")}},
		{ID: 1, Speed: 100 * device.Gbps, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(recv, 32)}},
	}})
	sfc := bts.NewSwitch(bts.Params{Reporter: 1})
	if err := d.Attach(sfc); err != nil {
		panic(err)
	}
	d.OnOutput(func(o device.Out) {
		if o.Kind == device.KindBTS {
			s, _ := bts.Decode(o.Frame, 0)
			fmt.Printf("BTS to %v at %d ns: pause %d us, origin %v, C %v, depth %d\n", s.Dst, o.Time, s.PauseUS, s.Origin, s.Cacheable, s.QueueDepth)
		}
	})
	fill, _ := device.BuildUDP(nil, device.UDPSpec{Src: netip.MustParseAddr("10.0.9.9"), Dst: recv, SrcPort: 1, DstPort: 2, Len: 1000})
	for i := 0; i < 251; i++ { // up to qd = 250 KB = Q_th: no BTS yet
		_ = d.Input(0, 0, fill)
	}
	for i := 0; i < 123; i++ { // the 252nd sees 251 KB > Q_th: a BTS (qd_e 252 KB); then suppressed
		_ = d.Input(0, 0, fill)
	}
	pkt, _ := device.BuildUDP(nil, device.UDPSpec{Src: netip.MustParseAddr("10.0.0.7"), Dst: recv, SrcPort: 3, DstPort: 4, Len: 1000})
	_ = d.Input(0, 0, pkt)
	d.Flush()
	// Output:
	// BTS to 10.0.9.9 at 0 ns: pause 11 us, origin queue, C true, depth 252000
	// BTS to 10.0.0.7 at 12 ns: pause 20 us, origin queue, C true, depth 375000
}

// With a BTS pipeline latency (bts_latency) the decision is still taken
// when a packet arrives, but its BTS is built and sent later, from the
// queue as it is then: here 2 µs later, when 24 of the 101 frames queued
// toward the 100 Gb/s port have left (77 KB: (77,000 − 5,000) × 8 / 10^11
// s = 5.76 µs, 6 µs rounded up). The two BTS leave one after the other.
func Example_latency() {
	recv := netip.MustParseAddr("10.0.1.1")
	d, _ := device.NewSwitch(device.Config{Name: "tor", Ports: []device.PortConfig{
		{ID: 0, Speed: 100 * device.Gbps, Prefixes: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/16")}},
		{ID: 1, Speed: 100 * device.Gbps, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(recv, 32)}},
	}})
	sfc := bts.NewSwitch(bts.Params{QTh: 10_000, QTg: 5_000, Latency: 2 * device.Microsecond})
	if err := d.Attach(sfc); err != nil {
		panic(err)
	}
	d.OnOutput(func(o device.Out) {
		if o.Kind == device.KindBTS {
			s, _ := bts.Decode(o.Frame, 0)
			fmt.Printf("BTS to %v at %d ns: pause %d us, depth %d\n", s.Dst, o.Time, s.PauseUS, s.QueueDepth)
		}
	})
	fill, _ := device.BuildUDP(nil, device.UDPSpec{Src: netip.MustParseAddr("10.0.9.9"), Dst: recv, SrcPort: 1, DstPort: 2, Len: 1000})
	for i := 0; i < 100; i++ { // its 12th frame finds 11 KB > Q_th: a BTS for t_e = 2 µs
		_ = d.Input(0, 0, fill)
	}
	pkt, _ := device.BuildUDP(nil, device.UDPSpec{Src: netip.MustParseAddr("10.0.0.7"), Dst: recv, SrcPort: 3, DstPort: 4, Len: 1000})
	_ = d.Input(0, 0, pkt)
	d.Flush()
	// Output:
	// BTS to 10.0.9.9 at 2000 ns: pause 6 us, depth 77000
	// BTS to 10.0.0.7 at 2012 ns: pause 6 us, depth 77000
}
