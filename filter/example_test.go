// SPDX-License-Identifier: Apache-2.0

package filter_test

import (
	"fmt"

	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/filter"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/sample"
)

// Compile a display filter once, then match decoded frames with it.
func Example() {
	f := filter.MustCompile("bts.pause_us > 10 && flow.qp == 0xd2 || pfc.c3")
	p := layers.NewParser()
	for i, sf := range sample.Frames() {
		fr := dissect.Frame{Number: i + 1, P: p}
		fr.Err = p.Decode(sf.Data)
		if f.Match(&fr) {
			fmt.Println(fr.Number, sf.Name)
		}
	}
	// A bad filter is an error that points at the offending token.
	_, err := filter.Compile("bts.pause_us >")
	fmt.Println(err != nil)
	// Output:
	// 2 802.1Qbb PFC: priority 3 paused 65535 quanta, priority 5 resumed
	// 9 BTS from the congestion point (origin queue, C), IPv4
	// true
}

// Wireshark's syntax and field names: sets with ranges, slices, bit tests,
// and tshark's names for the RoCEv2 and PFC fields.
func Example_wireshark() {
	f := filter.MustCompile(`infiniband.bth.opcode in {0..5, 10} && eth.src[-1] == 01 || macc.cbfc.pause_time.c3 & 0x8000`)
	p := layers.NewParser()
	for i, sf := range sample.Frames() {
		fr := dissect.Frame{Number: i + 1, P: p}
		fr.Err = p.Decode(sf.Data)
		if f.Match(&fr) {
			fmt.Println(fr.Number, sf.Name)
		}
	}
	_, err := filter.Compile("udp.dstport in {4791, x}")
	fmt.Println(err)
	// Output:
	// 2 802.1Qbb PFC: priority 3 paused 65535 quanta, priority 5 resumed
	// 3 RoCEv2 RC RDMA WRITE Only with RETH, IPv4
	// 6 RoCEv2 RC SEND Only with FECN set, IPv4
	// filter: column 23: udp.dstport is a number field; "x" is not a number
}
