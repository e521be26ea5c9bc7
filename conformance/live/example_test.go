// SPDX-License-Identifier: Apache-2.0

package live_test

import (
	"fmt"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/conformance/live"
)

// A port map names the host interface wired to each port of a case.
func ExamplePortMap_Resolve() {
	c, err := conformance.LoadCase("../../pcaps/sfc/nic-overwrite/case.yaml")
	if err != nil {
		panic(err)
	}
	m, err := live.ParsePortMap([]string{"0=eth1", "host=veth-host", "3=eth4"})
	if err != nil {
		panic(err)
	}
	ids, unknown, err := m.Resolve(c)
	fmt.Println(ids, unknown, err)
	// Output: map[0:eth1 1:veth-host] [3] <nil>
}

// The switch `sfcdump emulate --scheme pfc --port 0=... --port 1=...` runs.
func ExampleDefaultCase() {
	c, err := live.DefaultCase("pfc", []int{0, 1}, "25G")
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Role, c.Schemes, c.Ports[1].Speed, c.Ports[1].Prefixes)
	// Output: switch [pfc] 25000000000 [10.0.1.0/24 fd00:0:0:1::/64]
}

// Faults make the emulator a faulty device, for tests.
func ExampleParseFault() {
	f, err := live.ParseFault("drop-first-bts,pause+1")
	fmt.Printf("%s %+d %v\n", f.DropFirst, f.PauseDelta, err)
	// Output: bts +1 <nil>
}
