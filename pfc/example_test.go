// SPDX-License-Identifier: Apache-2.0

package pfc_test

import (
	"fmt"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/pfc"
)

// Quanta at the link speeds of a data center: a quantum is 512 bit times.
func ExampleQuantaToNs() {
	for _, g := range []int64{25, 100, 400} {
		bps := g * device.Gbps
		fmt.Printf("%d Gb/s: 0xFFFF quanta = %d ns; 20 us = %d quanta\n", g, pfc.QuantaToNs(0xFFFF, bps), pfc.NsToQuanta(20_000, bps))
	}
	// Output:
	// 25 Gb/s: 0xFFFF quanta = 1342157 ns; 20 us = 977 quanta
	// 100 Gb/s: 0xFFFF quanta = 335540 ns; 20 us = 3907 quanta
	// 400 Gb/s: 0xFFFF quanta = 83885 ns; 20 us = 15625 quanta
}

func ExampleAppendFrame() {
	f := pfc.AppendFrame(nil, device.MAC{2, 0, 0, 0, 0, 1}, 1<<3, [8]uint16{3: 0xFFFF})
	en, times, err := pfc.Decode(f)
	fmt.Printf("%d octets, enable %08b, time[3] %d, %v\n", len(f), en, times[3], err)
	// Output: 60 octets, enable 00001000, time[3] 65535, <nil>
}
