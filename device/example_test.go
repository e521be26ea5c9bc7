// SPDX-License-Identifier: Apache-2.0

package device_test

import (
	"fmt"
	"net/netip"

	"github.com/opensfc/sfc/device"
)

// A switch with two 100 Gb/s ports forwards three frames that arrive
// together: they leave back to back, 88.16 ns apart.
func Example() {
	d, err := device.NewSwitch(device.Config{Name: "tor", Ports: []device.PortConfig{
		{ID: 0, Speed: 100 * device.Gbps, Prefixes: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/24")}},
		{ID: 1, Speed: 100 * device.Gbps, ServerFacing: true, Prefixes: []netip.Prefix{netip.MustParsePrefix("10.0.1.0/24")}},
	}})
	if err != nil {
		panic(err)
	}
	d.OnOutput(func(o device.Out) { fmt.Printf("port %d t=%dns %d octets\n", o.Port, o.Time, len(o.Frame)) })
	frame, _ := device.BuildUDP(nil, device.UDPSpec{
		Src: netip.MustParseAddr("10.0.0.1"), Dst: netip.MustParseAddr("10.0.1.1"), SrcPort: 1, DstPort: 2, Len: 1078})
	for i := 0; i < 3; i++ {
		_ = d.Input(0, 1000, frame)
	}
	fmt.Println("depth", d.Depth(1, 0))
	d.Flush()
	r := d.Record()
	fmt.Println("peak", r.Queue(1, 0).Peak, "at", r.Queue(1, 0).PeakAt)
	// Output:
	// port 1 t=1000ns 1078 octets
	// depth 3234
	// port 1 t=1089ns 1078 octets
	// port 1 t=1177ns 1078 octets
	// peak 3234 at 1000
}

// Two NICs and a switch share a Sim and are joined by 1 µs links; the
// sender's host offers a generated flow of 2 frames.
func ExampleConnect() {
	sim := device.NewSim()
	sw, _ := device.NewSwitch(device.Config{Name: "sw", Sim: sim, Ports: []device.PortConfig{
		{ID: 0, Speed: 100 * device.Gbps, Prefixes: []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32")}},
		{ID: 1, Speed: 100 * device.Gbps, Prefixes: []netip.Prefix{netip.MustParsePrefix("10.0.0.2/32")}},
	}})
	a, _ := device.NewNIC(device.Config{Name: "a", Sim: sim, Ports: []device.PortConfig{{ID: 0, Speed: 100 * device.Gbps}}})
	b, _ := device.NewNIC(device.Config{Name: "b", Sim: sim, Ports: []device.PortConfig{{ID: 0, Speed: 100 * device.Gbps}}})
	_ = device.Connect(a, device.WirePort, sw, 0, device.Microsecond)
	_ = device.Connect(sw, 1, b, device.WirePort, device.Microsecond)
	b.OnOutput(func(o device.Out) {
		if o.Port == device.HostPort {
			fmt.Printf("host b got %d octets at %d ns\n", len(o.Frame), o.Time)
		}
	})
	f, _ := device.BuildUDP(nil, device.UDPSpec{Src: netip.MustParseAddr("10.0.0.1"), Dst: netip.MustParseAddr("10.0.0.2"),
		SrcPort: 7, DstPort: 9, Len: 1078})
	_, _ = a.AddFlow(device.FlowSpec{Template: f, Count: 2, Start: 0})
	sim.Run()
	// Output:
	// host b got 1078 octets at 2000 ns
	// host b got 1078 octets at 2089 ns
}
