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
