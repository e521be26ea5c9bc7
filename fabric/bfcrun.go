// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"github.com/opensfc/sfc/bfc"
	"github.com/opensfc/sfc/device"
)

// FCBFC: BFC (behaviour.md §6, package bfc) on every switch and its NIC
// side on every host, with 802.1Qbb PFC kept on as the lossless backstop,
// as in the BFC paper's setup (PFC at 11 % of free buffer).
const FCBFC FC = "bfc"

// collisions watches one BFC switch's physical queues and records the
// flows (VFIDs) that joined a physical queue holding another flow's
// packets: the BFC paper's "collision" (Fig. 7, 12). Control frames
// (ACK, NAK, CNP) are not counted as flows. It runs after the
// bfc.Switch on the device, which has set Packet.Queue and Packet.Tag (the
// VFID) by then.
type collisions struct {
	device.NopScheme
	nq int
	// per egress port index, per physical queue: packets queued by VFID.
	q    [][]map[uint32]int32
	seen map[uint32]bool // every VFID seen in a physical queue or the first-packet queue
	hit  map[uint32]bool // VFIDs that collided
}

func newCollisions(nq int, seen, hit map[uint32]bool) *collisions {
	return &collisions{nq: nq, seen: seen, hit: hit}
}

func (c *collisions) Attach(d *device.Device) error {
	c.q = make([][]map[uint32]int32, len(d.Ports()))
	for i := range c.q {
		c.q[i] = make([]map[uint32]int32, c.nq)
		for j := range c.q[i] {
			c.q[i][j] = map[uint32]int32{}
		}
	}
	return nil
}

func (c *collisions) slot(d *device.Device, p *device.Packet) map[uint32]int32 {
	qi := p.Queue - bfc.FirstPhysicalQueue
	if qi < 0 || qi >= c.nq {
		return nil
	}
	pt := d.Port(p.OutPort)
	if pt == nil {
		return nil
	}
	return c.q[pt.Index()][qi]
}

func (c *collisions) OnEnqueue(d *device.Device, p *device.Packet) device.Verdict {
	if p.Meta.DSCP == dscpCtl { // ACK, NAK, CNP: not a flow of the workload
		return device.Pass
	}
	if p.Queue == bfc.HighPriorityQueue {
		c.seen[uint32(p.Tag)] = true
	}
	m := c.slot(d, p)
	if m == nil {
		return device.Pass
	}
	v := uint32(p.Tag)
	c.seen[v] = true
	if len(m) > 1 || len(m) == 1 && m[v] == 0 {
		c.hit[v] = true
	}
	m[v]++
	return device.Pass
}

func (c *collisions) OnDepart(d *device.Device, p *device.Packet) {
	if p.Meta.DSCP == dscpCtl {
		return
	}
	m := c.slot(d, p)
	if m == nil {
		return
	}
	v := uint32(p.Tag)
	if m[v]--; m[v] <= 0 {
		delete(m, v)
	}
}

// bfcQueueSample counts the octets of every non-empty BFC physical queue
// of the switches in q (the per-physical-queue occupancy of the BFC
// paper's Fig. 10).
func bfcQueueSample(n *Net, nq int, q *quantiles) {
	for _, s := range n.Switches {
		for _, pt := range s.Dev.Ports() {
			for qi := bfc.FirstPhysicalQueue; qi < bfc.FirstPhysicalQueue+nq && qi < len(pt.Queues); qi++ {
				if b := pt.Queues[qi].Bytes; b > 0 {
					q.add(b)
				}
			}
		}
	}
}

// pausedPorts counts the ports (switch and NIC) with a data class paused
// by PFC at time now, and the ports looked at.
func pausedPorts(n *Net, now int64) (paused, ports int) {
	look := func(d *device.Device) {
		for _, pt := range d.Ports() {
			ports++
			for c := 0; c < 8; c++ {
				if pt.PausedUntil(c) > now {
					paused++
					break
				}
			}
		}
	}
	for _, s := range n.Switches {
		look(s.Dev)
	}
	for _, h := range n.Hosts {
		look(h.NIC)
	}
	return
}
