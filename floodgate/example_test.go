// SPDX-License-Identifier: Apache-2.0

package floodgate_test

import (
	"fmt"
	"net/netip"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/floodgate"
	"github.com/opensfc/sfc/layers"
)

// A Floodgate switch lets a destination's packets through while its window
// lasts, holds the rest in the destination's VOQ, and releases them as
// credits come back from the next switch.
func Example() {
	host, dst := netip.MustParseAddr("10.1.0.1"), netip.MustParseAddr("10.2.0.1")
	d, _ := device.NewSwitch(device.Config{Ports: []device.PortConfig{
		{ID: 0, Speed: 100 * device.Gbps, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(host, 32)}},
		{ID: 1, Speed: 100 * device.Gbps, Prefixes: []netip.Prefix{netip.MustParsePrefix("10.2.0.0/16")}},
	}})
	fg := floodgate.NewSwitch(floodgate.Params{}) // m 1, 1.2 µs next-hop RTT, τ 10 µs
	_ = d.Attach(fg)
	fmt.Println("initial window:", fg.InitialWindow(d, 1), "octets")
	pkt, _ := device.BuildUDP(nil, device.UDPSpec{Src: host, Dst: dst, SrcPort: 1, DstPort: 4791, Len: 1000})
	for i := 0; i < 150; i++ {
		_ = d.Input(0, 0, pkt)
	}
	w, voq, _ := fg.Window(dst)
	fmt.Println("window left:", w, "waiting:", voq)
	credit, _ := floodgate.AppendCredit(nil, device.MAC{}, []layers.CreditEntry{{Credits: 2500, Dst: dst}})
	_ = d.Input(1, 1000, credit)
	w, voq, _ = fg.Window(dst)
	fmt.Println("after 2,500 credits: window", w, "waiting:", voq)
	// Output:
	// initial window: 140000 octets
	// window left: 0 waiting: 10000
	// after 2,500 credits: window 500 waiting: 8000
}
