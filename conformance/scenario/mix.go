// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"flag"
	"fmt"
	"math"
	"slices"

	"github.com/opensfc/sfc/device"
)

func init() {
	register(&Scenario{Name: "mix", Summary: "a flow mix: elephants and mice between hosts of one switch, Poisson arrivals (seeded)", setup: mixSetup})
}

func mixSetup(fs *flag.FlagSet, g *common) func() (*Vector, error) {
	hosts := fs.Int("hosts", 6, "hosts, one per port")
	receivers := fs.Int("receivers", 1, "the last R hosts receive; the others send")
	elephants := fs.Int("elephants", 2, "number of large flows")
	mice := fs.Int("mice", 20, "number of small flows")
	eSize := bytesFlag(fs, "elephant", "128KB", "octets of a large flow")
	mSize := bytesFlag(fs, "mouse", "4KB", "octets of a small flow")
	duration := durFlag(fs, "duration", "50us", "flows start within this window (Poisson arrivals)")
	return func() (*Vector, error) {
		h, r := *hosts, *receivers
		if h < 2 || h > 250 || r < 1 || r >= h {
			return nil, fmt.Errorf("%w: --hosts %d --receivers %d: want 2..250 hosts and 1..hosts-1 receivers", ErrUsage, h, r)
		}
		if *elephants < 0 || *mice < 0 || *elephants+*mice == 0 || *elephants+*mice > 10000 {
			return nil, fmt.Errorf("%w: want 1..10000 flows", ErrUsage)
		}
		if duration.v <= 0 {
			return nil, fmt.Errorf("%w: --duration must be positive", ErrUsage)
		}
		d := g.doc("switch", "sfc")
		for i := 0; i < h; i++ {
			d.ports = append(d.ports, g.hostPort(i))
		}
		d.desc = g.desc
		if d.desc == "" {
			d.desc = fmt.Sprintf("flow mix: %d elephants of %s and %d mice of %s from %d senders to %d receivers within %s, schemes %v",
				*elephants, eSize.s, *mice, mSize.s, h-r, r, duration.s, d.schemes)
		}
		rng := g.rng()
		n := *elephants + *mice
		type fl struct {
			f      *flow
			sender int
			start  int64
			frames int64
			kind   string
		}
		size := int(g.size.v)
		if err := budget(float64(*elephants)*framesOf(eSize.v, int64(size))+float64(*mice)*framesOf(mSize.v, int64(size)), "--elephants × --elephant and --mice × --mouse, / --size"); err != nil {
			return nil, err
		}
		var all []*fl
		rate := float64(n) / float64(duration.v)
		t := 0.0
		for k := 0; k < n; k++ {
			s := rng.IntN(h - r)
			dst := h - r + rng.IntN(r)
			octets, kind := mSize.v, "mouse"
			if k < *elephants {
				octets, kind = eSize.v, "elephant"
			}
			x := &fl{sender: s, start: int64(t), frames: ceilDiv(octets, int64(size)), kind: kind,
				f: flowTo(g, s, Host(dst, g.ipv6), HostMAC(s), SwitchMAC(s), k)}
			x.f.size = size
			all = append(all, x)
			t += -math.Log(1-rng.Float64()) / rate
			if int64(t) >= duration.v {
				t = float64(duration.v - 1)
			}
		}
		// Each sender serialises its flows' frames on its link, round-robin
		// among the flows that have started.
		var out []Frame
		for s := 0; s < h-r; s++ {
			var mine []*fl
			for _, x := range all {
				if x.sender == s {
					mine = append(mine, x)
				}
			}
			slices.SortStableFunc(mine, func(a, b *fl) int { return int(a.start - b.start) })
			sent := make([]int64, len(mine))
			var now int64
			rr := 0
			for {
				// Pick the next started flow with frames left, round-robin.
				pick := -1
				earliest := int64(math.MaxInt64)
				for j := 0; j < len(mine); j++ {
					x := (rr + j) % len(mine)
					if sent[x] >= mine[x].frames {
						continue
					}
					if mine[x].start <= now {
						pick = x
						break
					}
					earliest = min(earliest, mine[x].start)
				}
				if pick < 0 {
					if earliest == math.MaxInt64 {
						break
					}
					now = earliest
					continue
				}
				rr = pick + 1
				b, err := mine[pick].f.next()
				if err != nil {
					return nil, err
				}
				out = append(out, Frame{Port: s, T: now, Data: b, Step: fmt.Sprintf("sender %d %s flow frame %d", s, mine[pick].kind, sent[pick])})
				sent[pick]++
				now += device.TxTime(len(b), g.speed.v)
			}
		}
		return d.finish(out)
	}
}
