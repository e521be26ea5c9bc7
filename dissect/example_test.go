// SPDX-License-Identifier: Apache-2.0

package dissect_test

import (
	"fmt"

	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/sample"
)

// Render one decoded frame as sfcdump does: a summary line, JSON, and
// fields by name.
func Example() {
	p := layers.NewParser()
	bts := sample.Frames()[8] // a BTS from the congestion point
	f := dissect.Frame{Number: 9, Time: sample.Start, Len: len(bts.Data), CapLen: len(bts.Data), P: p}
	f.Err = p.Decode(bts.Data)

	var e dissect.Encoder
	fmt.Println(string(dissect.AppendSummary(nil, &f)))
	pause, _ := dissect.LookupField("bts.pause_us")
	src, _ := dissect.LookupField("flow.src")
	fmt.Println(string(e.AppendFields(nil, &f, []*dissect.Field{pause, src})))
	// Output:
	// 10.0.0.2 > 10.0.0.1  BTS pause 20us origin queue C reporter 7 depth 375000 flow 10.0.0.1:49152 > 10.0.0.2:4791 proto 17 dscp 26 qp 0x0000d2
	// 20	10.0.0.1
}
