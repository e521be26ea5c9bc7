// SPDX-License-Identifier: Apache-2.0

package postcard_test

import (
	"fmt"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/postcard"
)

// A sender's reaction to one CC-postcard (behaviour.md §8): a 100 Gb/s
// port assessed over 25 µs expects 500,000 octets with 50,000 queued; 2,000
// of the last 60,000 octets were marked, so with Δ = 6 the PBT flows bring
// 100,000 of them and must share the room left, at least I_min = 62,500.
func ExampleReact() {
	a := postcard.Assessment{RateMbps: 100_000, WindowNS: 25_000, IP: 500_000, Q1: 50_000, Recent: 60_000, RecentMarked: 2_000}
	fmt.Println("congested:", postcard.Congested(a.IP, a.Q1, 100*device.Gbps, a.WindowNS))
	r := postcard.React(a, 6, 950_000, 62_500, 100*device.Gbps)
	fmt.Printf("I_PBT %d, I_nonPBT %d, I %d, c %.4f, new rate %.3f Gb/s\n", r.IPBT, r.INonPBT, r.I, r.C(), float64(r.Rate)/1e9)
	// Output:
	// congested: true
	// I_PBT 100000, I_nonPBT 400000, I 62500, c 1.6842, new rate 59.375 Gb/s
}
