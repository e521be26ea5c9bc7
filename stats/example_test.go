// SPDX-License-Identifier: Apache-2.0

package stats_test

import (
	"fmt"

	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/sample"
	"github.com/opensfc/sfc/stats"
)

// Feed decoded frames to a Collector in capture order, then read the
// report: who was paused, by what, for how long. The sample holds four
// paused flows: two quoted by BTS/CIM (IPv4 and IPv6) and two Floodgate
// dst-pause destinations.
func Example() {
	c := stats.New()
	p := layers.NewParser()
	for i, sf := range sample.Frames() {
		f := dissect.Frame{Number: i + 1, Time: sample.Start, Len: len(sf.Data), CapLen: len(sf.Data), P: p}
		f.Err = p.Decode(sf.Data)
		c.Add(&f, "")
	}
	r := c.Finish()
	fmt.Println(r.Frames, "frames,", len(r.Flows), "paused flows,", len(r.CNPs), "QPs with CNPs")
	// Output:
	// 21 frames, 4 paused flows, 2 QPs with CNPs
}
