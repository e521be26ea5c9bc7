// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"flag"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/floodgate"
	"github.com/opensfc/sfc/layers"
)

func init() {
	register(&Scenario{Name: "floodgate", Summary: "a Floodgate ToR: local hosts and an upstream switch send to a remote receiver through a windowed uplink, credits come back from downstream", setup: floodgateSetup})
}

// floodgateSetup builds a ToR with hosts on ports 0..H-1, an uplink H on
// which an upstream Floodgate switch sends (a credit port: this switch
// returns credits there) and an uplink H+1 toward the remote receivers (a
// window port: per-destination windows and VOQs; credits arrive there).
func floodgateSetup(fs *flag.FlagSet, g *common) func() (*Vector, error) {
	hosts := fs.Int("hosts", 2, "local hosts (ports 0..H-1); uplink H brings upstream traffic, uplink H+1 leads to the receivers")
	burst := bytesFlag(fs, "burst", "24KB", "octets each local host sends to remote receiver 0")
	upstream := fs.Int("upstream", 10, "frames from the upstream switch (uplink H) to remote receiver 0")
	local := fs.Int("local", 4, "frames from the upstream switch to local host 0 (credited back on uplink H)")
	credits := fs.String("credits", "15KB@8us,30KB@14us", "credits for remote receiver 0 arriving on uplink H+1: OCTETS@TIME,...")
	return func() (*Vector, error) {
		h := *hosts
		if h < 1 || h > 64 {
			return nil, fmt.Errorf("%w: --hosts %d: want 1..64", ErrUsage, h)
		}
		d := g.doc("switch", "floodgate")
		for i := 0; i < h; i++ {
			d.ports = append(d.ports, g.hostPort(i))
		}
		up, down := h, h+1
		src4, dst4 := "10.2.0.0/16", "10.1.0.0/16"
		if g.ipv6 {
			src4, dst4 = "fd00:2::/32", "fd00:1::/32"
		}
		d.ports = append(d.ports,
			port{id: up, speed: g.speed.s, mac: SwitchMAC(up), peer: UplinkMAC(up), prefixes: []string{src4}},
			port{id: down, speed: g.speed.s, mac: SwitchMAC(down), peer: UplinkMAC(down), prefixes: []string{dst4}})
		d.desc = g.desc
		if d.desc == "" {
			d.desc = fmt.Sprintf("Floodgate ToR, %d hosts and an upstream switch toward one remote receiver, credits %s, schemes %v", h, *credits, d.schemes)
		}
		recv := Remote(0, g.ipv6)
		size := int(g.size.v)
		if err := budget(float64(h)*framesOf(burst.v, int64(size))+float64(*upstream)+float64(*local), "--hosts × --burst / --size, --upstream and --local"); err != nil {
			return nil, err
		}
		var out []Frame
		for i := 0; i < h; i++ {
			f := flowTo(g, i, recv, HostMAC(i), SwitchMAC(i), i)
			n := ceilDiv(burst.v, int64(size))
			for k := int64(0); k < n; k++ {
				b, err := f.next()
				if err != nil {
					return nil, err
				}
				out = append(out, Frame{Port: i, T: lineTime(int64(i)*30, k, size, g.speed.v), Data: b, Step: fmt.Sprintf("host %d to the remote receiver", i)})
			}
		}
		// The upstream switch's traffic, from remote sender 10.2.0.1.
		upSrc := remoteSource(g.ipv6)
		toRecv := g.tag(&flow{src: upSrc, dst: recv, srcMAC: UplinkMAC(up), dstMAC: SwitchMAC(up), sport: 50000, qp: 0x3000, dscp: uint8(g.dscp), size: size})
		toHost := g.tag(&flow{src: upSrc, dst: Host(0, g.ipv6), srcMAC: UplinkMAC(up), dstMAC: SwitchMAC(up), sport: 50001, qp: 0x3001, dscp: uint8(g.dscp), size: size})
		for k := 0; k < *upstream+*local; k++ {
			f, what := toRecv, "upstream switch to the remote receiver"
			if k%3 == 2 && k/3 < *local || k >= *upstream {
				f, what = toHost, "upstream switch to local host 0"
			}
			b, err := f.next()
			if err != nil {
				return nil, err
			}
			out = append(out, Frame{Port: up, T: 200 + lineTime(0, int64(k), size, g.speed.v), Data: b, Step: what})
		}
		for _, item := range strings.Split(*credits, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			oc, at, ok := strings.Cut(item, "@")
			n, err := device.ParseBytes(oc)
			t, err2 := device.ParseDuration(at)
			if !ok || err != nil || err2 != nil || n < 0 || n > 1<<32-1 {
				return nil, fmt.Errorf("%w: credit %q: want OCTETS@TIME", ErrUsage, item)
			}
			b, err := floodgate.AppendCredit(nil, UplinkMAC(down), []layers.CreditEntry{{Credits: uint32(n), Dst: recv}})
			if err != nil {
				return nil, err
			}
			out = append(out, Frame{Port: down, T: t, Data: b, Step: "downstream credit " + strconv.FormatInt(n, 10) + " octets for the remote receiver"})
		}
		return d.finish(out)
	}
}

// remoteSource is the upstream sender of the floodgate scenario.
func remoteSource(v6 bool) netip.Addr {
	if v6 {
		return netip.MustParseAddr("fd00:2::1")
	}
	return netip.MustParseAddr("10.2.0.1")
}
