// SPDX-License-Identifier: Apache-2.0

package bfc_test

import (
	"fmt"
	"net/netip"

	"github.com/opensfc/sfc/bfc"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

// A BFC switch pauses a flow at its ingress port once its physical queue
// passes Th = (HRTT + τ) × μ / N_active and says so in the pause frame it
// sends on that port every τ.
func Example() {
	host, recv := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.2.1")
	q := bfc.QueuesFor(bfc.DefaultQueues)
	d, _ := device.NewSwitch(device.Config{Ports: []device.PortConfig{
		{ID: 0, Speed: 100 * device.Gbps, Queues: q, Prefixes: []netip.Prefix{netip.PrefixFrom(host, 32)}},
		{ID: 1, Speed: 100 * device.Gbps, Queues: q, Prefixes: []netip.Prefix{netip.PrefixFrom(recv, 32)}},
	}})
	sw := bfc.NewSwitch(bfc.Params{}) // N_q 32, HRTT 2 µs, τ 1 µs, L 128, k 4
	_ = d.Attach(sw)
	d.OnOutput(func(o device.Out) {
		var l layers.BFC
		if o.Port == 0 && bfc.Decode(o.Frame, &l) == nil {
			f := layers.Flow{Src: host, Dst: recv, Proto: 17, SrcPort: 5000, DstPort: 4791}
			fmt.Printf("t=%d ns: pause frame seq %d, %d bits set, flow paused: %v\n", o.Time, l.Seq, l.BitsSet(), l.Matches(f))
		}
	})
	data, _ := device.BuildUDP(nil, device.UDPSpec{Src: host, Dst: recv, SrcPort: 5000, DstPort: 4791, Len: 1000})
	for i := 0; i < 100; i++ {
		_ = d.Input(0, 0, data) // 100 kB at once: far above Th = 37,500 octets
	}
	fmt.Println("threshold:", sw.Threshold(d, 1), "octets")
	d.AdvanceTo(2000)
	// Output:
	// threshold: 37500 octets
	// t=1000 ns: pause frame seq 0, 4 bits set, flow paused: true
	// t=2000 ns: pause frame seq 1, 4 bits set, flow paused: true
}
