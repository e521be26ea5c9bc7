// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"flag"
	"fmt"

	"github.com/opensfc/sfc/pfc"
)

func init() {
	register(&Scenario{Name: "storm", Summary: "a host sends PFC (or 802.3x PAUSE) frames to its switch port, a pause storm, while senders send to it and to a bystander", setup: stormSetup})
}

func stormSetup(fs *flag.FlagSet, g *common) func() (*Vector, error) {
	senders := fs.Int("senders", 2, "senders (ports 0..S-1); the pausing host is port S, the bystander port S+1")
	frames := fs.Int("frames", 40, "frames per sender, alternately to the pausing host and the bystander")
	load := fs.Float64("load", 1, "fraction of line rate each sender sends at")
	pauses := fs.String("pauses", "65535@1us,65535@100us,0@150us", "pause frames from the pausing host: QUANTA@TIME,...")
	pause := fs.Bool("pause", false, "send 802.3x PAUSE frames instead of PFC")
	prio := fs.Int("prio", -1, "PFC priority paused (default the data class, DSCP >> 3)")
	bystander := fs.Bool("bystander", true, "senders also send to a bystander host on port S+1")
	return func() (*Vector, error) {
		s := *senders
		if s < 1 || s > 64 {
			return nil, fmt.Errorf("%w: --senders %d: want 1..64", ErrUsage, s)
		}
		if !(*load > 0 && *load <= 1) { // NaN too
			return nil, fmt.Errorf("%w: --load %g: want (0, 1]", ErrUsage, *load)
		}
		ps, err := parseQuanta(*pauses)
		if err != nil {
			return nil, err
		}
		p := *prio
		if p < 0 {
			p = g.class(g.dscp)
		}
		if p > 7 {
			return nil, fmt.Errorf("%w: --prio %d: want 0..7", ErrUsage, p)
		}
		d := g.doc("switch", "pfc")
		for i := 0; i < s+2; i++ {
			d.ports = append(d.ports, g.hostPort(i))
		}
		d.desc = g.desc
		if d.desc == "" {
			what := "PFC"
			if *pause {
				what = "PAUSE"
			}
			d.desc = fmt.Sprintf("%s storm from port %d (%s) while %d senders send to it, schemes %v", what, s, *pauses, s, d.schemes)
		}
		victim, by := Host(s, g.ipv6), Host(s+1, g.ipv6)
		var out []Frame
		size := int(g.size.v)
		if err := budget(float64(s)*float64(*frames), "--senders × --frames"); err != nil {
			return nil, err
		}
		bps := int64(float64(g.speed.v) * *load)
		for i := 0; i < s; i++ {
			fv := flowTo(g, i, victim, HostMAC(i), SwitchMAC(i), 2*i)
			fb := flowTo(g, i, by, HostMAC(i), SwitchMAC(i), 2*i+1)
			for k := 0; k < *frames; k++ {
				f, what := fv, "to the pausing host"
				if k%2 == 1 && *bystander {
					f, what = fb, "to the bystander"
				}
				b, err := f.next()
				if err != nil {
					return nil, err
				}
				out = append(out, Frame{Port: i, T: lineTime(int64(i)*50, int64(k), size, bps), Data: b, Step: fmt.Sprintf("sender %d %s", i, what)})
			}
		}
		for _, q := range ps {
			var b []byte
			if *pause {
				b = pfc.AppendPause(nil, HostMAC(s), q.quanta)
			} else {
				var times [8]uint16
				times[p] = q.quanta
				b = pfc.AppendFrame(nil, HostMAC(s), 1<<p, times)
			}
			out = append(out, Frame{Port: s, T: q.t, Data: b, Step: fmt.Sprintf("pausing host sends %d quanta", q.quanta)})
		}
		return d.finish(out)
	}
}
