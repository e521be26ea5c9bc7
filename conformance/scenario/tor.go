// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"flag"
	"fmt"
	"strings"

	"github.com/opensfc/sfc/device"
)

func init() {
	register(&Scenario{Name: "sender-tor", Summary: "a sender-side ToR: local hosts send to a remote receiver while the remote congestion point's signals (BTS or CIM) arrive on the uplink", setup: senderToRSetup})
}

func senderToRSetup(fs *flag.FlagSet, g *common) func() (*Vector, error) {
	hosts := fs.Int("hosts", 2, "local hosts (ports 0..H-1); the uplink is port H")
	kind := fs.String("signal", "bts", "signal format from the remote switch: bts, cim or cim-legacy (no SFC TLV)")
	sigs := fs.String("signals", "20us@5us", "signals: PAUSE@TIME[:HOST],... about HOST's flow (default host 0)")
	cacheable := fs.Bool("cacheable", true, "set the C flag in the remote signals")
	interval := durFlag(fs, "interval", "1us", "each host sends one frame per interval")
	duration := durFlag(fs, "duration", "40us", "hosts send for this long")
	upSpeed := fs.String("uplink-speed", "", "speed of the uplink port (default --speed)")
	sfcpPorts := fs.String("sfcp-ports", "", "with scheme sfc-p: the host ports SFC-P is on for, comma-separated (default all; the others get the BTS itself)")
	return func() (*Vector, error) {
		h := *hosts
		if h < 1 || h > 64 {
			return nil, fmt.Errorf("%w: --hosts %d: want 1..64", ErrUsage, h)
		}
		if interval.v <= 0 {
			return nil, fmt.Errorf("%w: --interval must be positive", ErrUsage)
		}
		if err := budget(float64(h)*(float64(duration.v)/float64(interval.v)+1), "--hosts × --duration / --interval"); err != nil {
			return nil, err
		}
		specs, err := parseSignals(*sigs)
		if err != nil {
			return nil, err
		}
		def := "sfc-cache"
		if *kind != "bts" {
			def = "sfc-cache,cim"
		}
		d := g.doc("switch", def)
		on := map[int]bool{}
		for _, x := range strings.Split(*sfcpPorts, ",") {
			if x = strings.TrimSpace(x); x == "" {
				continue
			}
			var id int
			if _, err := fmt.Sscanf(x, "%d", &id); err != nil || id < 0 || id >= h {
				return nil, fmt.Errorf("%w: --sfcp-ports %q: want host port ids 0..%d", ErrUsage, x, h-1)
			}
			on[id] = true
		}
		for i := 0; i < h; i++ {
			p := g.hostPort(i)
			p.sfcp = d.has("sfc-p") && (len(on) == 0 || on[i])
			d.ports = append(d.ports, p)
		}
		up := g.uplinkPort(h)
		if *upSpeed != "" {
			if _, err := device.ParseRate(*upSpeed); err != nil {
				return nil, fmt.Errorf("%w: --uplink-speed: %v", ErrUsage, err)
			}
			up.speed = *upSpeed
		}
		d.ports = append(d.ports, up)
		d.desc = g.desc
		if d.desc == "" {
			d.desc = fmt.Sprintf("sender-side ToR, %d hosts, remote %s signals %s, schemes %v", h, *kind, *sigs, d.schemes)
		}
		recv := Remote(0, g.ipv6)
		fl := make([]*flow, h)
		for i := range fl {
			fl[i] = flowTo(g, i, recv, HostMAC(i), SwitchMAC(i), i)
		}
		var out []Frame
		// The trigger quoted by remote signals about host i's flow.
		triggers := make([][]byte, h)
		for i := range triggers {
			tf := *fl[i]
			triggers[i], err = tf.next()
			if err != nil {
				return nil, err
			}
		}
		for t := int64(0); t < duration.v; t += interval.v {
			for i := 0; i < h; i++ {
				b, err := fl[i].next()
				if err != nil {
					return nil, err
				}
				// Hosts are offset by a frame time so they do not collide.
				at := t + int64(i)*device.TxTime(len(b), g.speed.v)
				out = append(out, Frame{Port: i, T: at, Data: b, Step: fmt.Sprintf("host %d data", i)})
			}
		}
		for k, s := range specs {
			if s.flow >= h {
				return nil, fmt.Errorf("%w: signal %d names host %d of %d", ErrUsage, k, s.flow, h)
			}
			b, err := signalFrame(*kind, triggers[s.flow], remoteSignal(s.pauseUS, *cacheable), UplinkMAC(h), SwitchMAC(h))
			if err != nil {
				return nil, err
			}
			out = append(out, Frame{Port: h, T: s.t, Data: b, Step: fmt.Sprintf("remote %s pause %dus about host %d's flow", *kind, s.pauseUS, s.flow)})
		}
		return d.finish(out)
	}
}
