// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"encoding/binary"
	"math/rand/v2"

	"github.com/opensfc/sfc/device"
)

// ECMP spreads the traffic a switch routes up the tree over its uplinks by
// a hash of the flow (IP addresses, protocol, ports and RoCEv2 DestQP),
// salted per switch so that successive tiers do not polarise. Every packet
// of a flow takes the same path.
type ECMP struct {
	device.NopScheme
	// Group is the set of port ids; the forwarding table's default route
	// points at Group[0].
	Group []int
	Salt  uint32
	// ByDst hashes the destination address only, so every flow to a host
	// takes one path (Floodgate keeps one window per destination and
	// egress port; with per-flow ECMP its credits would come back on
	// another port than the window they refill).
	ByDst bool
}

// Hash is the ECMP hash of a frame's flow (FNV-1a over the 5-tuple and
// QP, then the salt).
func Hash(m *device.Meta, salt uint32) uint32 {
	h := uint32(2166136261) ^ salt
	mix := func(b byte) { h = (h ^ uint32(b)) * 16777619 }
	if m.Src.Is4() {
		for _, b := range m.Src.As4() {
			mix(b)
		}
		for _, b := range m.Dst.As4() {
			mix(b)
		}
	} else {
		for _, b := range m.Src.As16() {
			mix(b)
		}
		for _, b := range m.Dst.As16() {
			mix(b)
		}
	}
	mix(m.Proto)
	mix(byte(m.SrcPort >> 8))
	mix(byte(m.SrcPort))
	mix(byte(m.DstPort >> 8))
	mix(byte(m.DstPort))
	mix(byte(m.QP >> 16))
	mix(byte(m.QP >> 8))
	mix(byte(m.QP))
	h ^= h >> 16
	h *= 0x7feb352d
	h ^= h >> 15
	return h
}

// OnIngress rewrites the egress port of frames routed to the group.
func (e *ECMP) OnIngress(d *device.Device, p *device.Packet) device.Verdict {
	if len(e.Group) > 1 && p.OutPort == e.Group[0] {
		h := Hash(&p.Meta, e.Salt)
		if e.ByDst {
			m := device.Meta{Src: p.Meta.Dst, Dst: p.Meta.Dst}
			h = Hash(&m, e.Salt)
		}
		p.OutPort = e.Group[h%uint32(len(e.Group))]
	}
	return device.Pass
}

// ECN configures RED marking at dequeue, as the HPCC simulator's switch
// does (switch-node.cc, ShouldSendCN): a frame that leaves an egress queue
// whose depth (without it) exceeds Kmax is marked CE; above Kmin it is
// marked with probability Pmax × (depth − Kmin)/(Kmax − Kmin). Only
// ECN-capable (ECT) frames are marked. DCTCP's step is Kmin = Kmax = K.
// Thresholds are given for a 100 Gb/s port and scale with the port speed,
// as HPCC's KMIN_MAP/KMAX_MAP do.
type ECN struct {
	// Kmin and Kmax in octets at 100 Gb/s. HPCC's mix/config.txt: 400 KB
	// and 1600 KB at 100 Gb/s (100/400 KB at 25 Gb/s).
	Kmin int64   `yaml:"kmin" json:"kmin"`
	Kmax int64   `yaml:"kmax" json:"kmax"`
	Pmax float64 `yaml:"pmax" json:"pmax"` // HPCC: 0.2
}

// HPCCECN is HPCC's default marking (mix/config.txt KMIN_MAP, KMAX_MAP,
// PMAX_MAP at 100 Gb/s).
var HPCCECN = ECN{Kmin: 400 * device.KB, Kmax: 1600 * device.KB, Pmax: 0.2}

// DCTCPECN is the DCTCP step of the HPCC simulator's run.py preset
// "dctcp": K = 30 KB per 10 Gb/s (300 KB at 100 Gb/s).
var DCTCPECN = ECN{Kmin: 300 * device.KB, Kmax: 300 * device.KB, Pmax: 1}

// Egress is a switch's dequeue-time work for the fabric: ECN marking and
// HPCC's in-band telemetry (a hop record pushed into frames that carry an
// INT block).
type Egress struct {
	device.NopScheme
	ECN    *ECN
	INT    bool
	rng    *rand.Rand
	kmin   []int64
	kmax   []int64
	Marked int64
}

// NewEgress returns the egress scheme; seed makes its marking draws
// deterministic.
func NewEgress(ecn *ECN, intOn bool, seed uint64) *Egress {
	return &Egress{ECN: ecn, INT: intOn, rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
}

// Attach resolves the per-port thresholds.
func (e *Egress) Attach(d *device.Device) error {
	if e.ECN == nil {
		return nil
	}
	for _, pt := range d.Ports() {
		e.kmin = append(e.kmin, device.MulDiv(e.ECN.Kmin, pt.Speed, 100*device.Gbps))
		e.kmax = append(e.kmax, device.MulDiv(e.ECN.Kmax, pt.Speed, 100*device.Gbps))
	}
	return nil
}

// OnDequeue marks and stamps the frame starting transmission.
func (e *Egress) OnDequeue(d *device.Device, p *device.Packet) {
	if p.Generated || !p.Meta.IP() {
		return
	}
	pt := d.Port(p.OutPort)
	n := int64(len(p.Data))
	if e.ECN != nil && p.Meta.ECN != 0 && p.Meta.ECN != 3 && p.Meta.IPVersion == 4 {
		depth := pt.Queues[p.Queue].Bytes - n
		i := pt.Index()
		mark := depth > e.kmax[i]
		if !mark && depth > e.kmin[i] {
			mark = e.rng.Float64() < e.ECN.Pmax*float64(depth-e.kmin[i])/float64(e.kmax[i]-e.kmin[i])
		}
		if mark {
			setCE(p.Data[p.Meta.L3:])
			p.Meta.ECN = 3
			e.Marked++
		}
	}
	if e.INT && p.Meta.DstPort == device.RoCEv2Port && p.Meta.Payload > 0 {
		var q int64
		for i := range pt.Queues {
			q += pt.Queues[i].Bytes
		}
		pushHop(p.Data, p.Meta.Payload, hop{time: d.Now(), bytes: pt.TxBytes, qlen: q - n, speed: pt.Speed})
	}
}

// setCE sets ECN = CE in the IPv4 header h and fixes its checksum
// incrementally (RFC 1624).
func setCE(h []byte) {
	old := binary.BigEndian.Uint16(h[0:])
	h[1] |= 3
	nw := binary.BigEndian.Uint16(h[0:])
	sum := uint32(^binary.BigEndian.Uint16(h[10:])) + uint32(^old) + uint32(nw)
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	binary.BigEndian.PutUint16(h[10:], ^uint16(sum))
}
