// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/binary"
	"flag"
	"fmt"
	"net/netip"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/sample"
)

func init() {
	register(&Scenario{Name: "malformed", Summary: "malformed and truncated frames of every format between good RoCEv2 traffic of two hosts", setup: malformedSetup})
}

func malformedSetup(fs *flag.FlagSet, g *common) func() (*Vector, error) {
	spacing := durFlag(fs, "spacing", "1us", "time between input frames")
	return func() (*Vector, error) {
		if g.ipv6 {
			return nil, fmt.Errorf("%w: malformed uses the sample frames' IPv4 hosts; --ipv6 is not supported", ErrUsage)
		}
		d := g.doc("switch", "sfc-cache")
		// The sample frames use hosts 10.0.0.1 and 10.0.0.2 with MACs
		// 02:00:00:00:00:01 and :02.
		a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
		macA, macB := device.MAC{2, 0, 0, 0, 0, 1}, device.MAC{2, 0, 0, 0, 0, 2}
		d.ports = []port{
			{id: 0, speed: g.speed.s, serverFacing: true, mac: SwitchMAC(0), peer: macA, prefixes: []string{"10.0.0.1/32"}},
			{id: 1, speed: g.speed.s, serverFacing: true, mac: SwitchMAC(1), peer: macB, prefixes: []string{"10.0.0.2/32"}},
		}
		d.desc = g.desc
		if d.desc == "" {
			d.desc = fmt.Sprintf("malformed and truncated frames between good traffic, schemes %v", d.schemes)
		}
		ab := &flow{src: a, dst: b, srcMAC: macA, dstMAC: SwitchMAC(0), sport: 49152, qp: 0x11, dscp: uint8(g.dscp), size: int(g.size.v)}
		ba := &flow{src: b, dst: a, srcMAC: macB, dstMAC: SwitchMAC(1), sport: 49153, qp: 0x22, dscp: uint8(g.dscp), size: int(g.size.v)}
		good, err := ab.next()
		if err != nil {
			return nil, err
		}
		type bad struct {
			name string
			port int
			data []byte
		}
		var bads []bad
		for _, f := range sample.Malformed() {
			// The sample puts frames to host A on interface 1: they
			// arrive where the other host is.
			bads = append(bads, bad{f.Name, f.Interface, f.Data})
		}
		runt := append([]byte(nil), good[:10]...)
		cutIP := append([]byte(nil), good[:14+12]...)
		badIHL := append([]byte(nil), good...)
		badIHL[14] = 0x42
		cutUDP := append([]byte(nil), good[:14+20+5]...)
		longIPLen := append([]byte(nil), good...)
		binary.BigEndian.PutUint16(longIPLen[14+2:], 9000)
		unknown := append([]byte(nil), good[:60]...)
		binary.BigEndian.PutUint16(unknown[12:], 0x88b6)
		vlanCut := append(append([]byte(nil), good[:12]...), 0x81, 0x00, 0x00)
		bads = append(bads,
			bad{"runt: 10 octets, no EtherType", 0, runt},
			bad{"IPv4 header cut at 12 octets", 0, cutIP},
			bad{"IPv4 with IHL 2 (8 octets)", 0, badIHL},
			bad{"UDP header cut at 5 octets", 0, cutUDP},
			bad{"IPv4 total length 9000 past the frame", 0, longIPLen},
			bad{"unknown EtherType 0x88b6", 0, unknown},
			bad{"802.1Q tag cut short", 0, vlanCut},
		)
		var out []Frame
		t := int64(0)
		for i, x := range bads {
			for _, f := range []*flow{ab, ba} {
				b, err := f.next()
				if err != nil {
					return nil, err
				}
				port := 0
				if f == ba {
					port = 1
				}
				out = append(out, Frame{Port: port, T: t, Data: b, Step: "good RoCEv2 data"})
				t += spacing.v
			}
			out = append(out, Frame{Port: x.port, T: t, Data: x.data, Step: fmt.Sprintf("malformed %d: %s", i+1, x.name)})
			t += spacing.v
		}
		return d.finish(out)
	}
}
