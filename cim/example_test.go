// SPDX-License-Identifier: Apache-2.0

package cim_test

import (
	"fmt"
	"net/netip"

	"github.com/opensfc/sfc/bts"
	"github.com/opensfc/sfc/cim"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

// A CIM carries the same SFC fields as the BTS it replaces, and converts
// back to it.
func Example() {
	data, _ := device.BuildUDP(nil, device.UDPSpec{Src: netip.MustParseAddr("10.0.0.1"), Dst: netip.MustParseAddr("10.0.1.1"),
		DSCP: 26, SrcPort: 4000, DstPort: 4791, Len: 1078})
	sig := bts.Signal{PauseUS: 20, Cacheable: true, Origin: layers.OriginQueue, Reporter: 7}
	c, _ := cim.Build(nil, data, &sig, cim.Options{})
	pdu, _, _ := cim.Decode(c, 0)
	fmt.Printf("CIM: add %v, MSDU %d octets, pause %d us, C %v, reporter %d\n", pdu.Add, pdu.MSDULen, pdu.SFC.PauseUS, pdu.SFC.Cacheable, pdu.SFC.Reporter)
	b, _ := cim.ToBTS(nil, c, 0, bts.BuildOptions{})
	s, _ := bts.Decode(b, 0)
	fmt.Printf("BTS: %v -> %v, pause %d us, C %v, origin %v, flow %v\n", s.Src, s.Dst, s.PauseUS, s.Cacheable, s.Origin, s.Flow)
	// Output:
	// CIM: add true, MSDU 512 octets, pause 20 us, C true, reporter 7
	// BTS: 10.0.1.1 -> 10.0.0.1, pause 20 us, C true, origin queue, flow 10.0.0.1:4000 > 10.0.1.1:4791 proto 17 dscp 26 qp 0x000000
}
