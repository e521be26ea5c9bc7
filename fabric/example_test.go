// SPDX-License-Identifier: Apache-2.0

package fabric_test

import (
	"fmt"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/fabric"
)

// A 16:1 incast on a small leaf-spine with HPCC: run it and read the
// slowdown and the peak buffer.
func Example() {
	recv := 0
	res, err := fabric.Run(fabric.Scenario{Name: "incast", Seed: 1,
		Topology:  fabric.Topo{Kind: fabric.LeafSpine, ToRs: 2, Spines: 2, HostsPerToR: 16},
		Transport: fabric.TransportConfig{CC: fabric.CCHPCC, Recovery: fabric.IRN},
		Workload:  fabric.Workload{Degree: 16, Size: 100_000, Incasts: 1, Receiver: &recv, Duration: 1},
	}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d/%d flows done, peak buffer %.2f MB\n", res.Completed, res.Flows, float64(res.MaxBuffer)/float64(device.MB))
	// Output: 16/16 flows done, peak buffer 0.96 MB
}
