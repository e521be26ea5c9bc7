// SPDX-License-Identifier: Apache-2.0

package device

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// Flow is a NIC's state for one flow: what the host offered and has not
// yet been sent, the pause the NIC keeps for it, and counters. Frames a
// NIC receives are counted in the Flow of their own key.
type Flow struct {
	Key   FlowKey
	DSCP  uint8
	Class uint8
	// PauseEnd is the time until which the flow may not start a frame
	// (SFC pause_end[F]).
	PauseEnd int64

	fifo   Queue
	gen    *generator
	active bool
	order  int

	TxFrames, TxBytes, FirstTx, LastTx int64
	RxFrames, RxBytes, FirstRx, LastRx int64
}

// Backlog reports whether the flow has something to send now.
func (f *Flow) Backlog() bool { return f.fifo.n > 0 || f.gen != nil && f.gen.ready && f.gen.left != 0 }

type generator struct {
	tmpl  []byte
	left  int64 // frames left, -1 unlimited
	seq   uint16
	start int64
	ready bool
}

// FlowSpec describes traffic a NIC's host offers as a generator, without
// holding the frames in memory: Count copies of Template (an Ethernet
// frame whose headers name the flow), offered at Start. The NIC writes a
// sequence number into the IPv4 identification field (and fixes the header
// checksum) of each copy.
type FlowSpec struct {
	Template []byte
	Count    int64 // frames; -1 for a flow that never ends
	Start    int64 // ns
}

type nicState struct {
	flows  map[FlowKey]*Flow
	recent [flowCacheSize]*Flow // direct-mapped by flowSlot: the map costs a 64-octet hash per frame
	list   []*Flow
	active []*Flow
	rr     int
	specs  []*Flow
	holes  int // forgotten flows still in list
}

// NewNIC builds a NIC. cfg.Ports must hold exactly one port, the wire side,
// with id WirePort (0); its Prefixes are the host's own addresses. The host
// side is port HostPort (1): Input on it offers a frame for transmission,
// and frames the NIC delivers to its host come out on it.
func NewNIC(cfg Config) (*Device, error) {
	if len(cfg.Ports) != 1 {
		return nil, &ParamError{Scope: "nic", Name: "ports", Value: fmt.Sprint(len(cfg.Ports)), Allowed: "exactly 1 (the wire port)"}
	}
	if cfg.Ports[0].ID != WirePort {
		return nil, CheckRange("nic", "ports[0].id", int64(cfg.Ports[0].ID), WirePort, WirePort, "")
	}
	d, err := newDevice(cfg, RoleNIC)
	if err != nil {
		return nil, err
	}
	d.nic = &nicState{flows: map[FlowKey]*Flow{}}
	return d, nil
}

// Flow returns the NIC's state for key, creating it when create is set;
// nil for a switch or an unknown flow.
func (d *Device) Flow(key FlowKey, create bool) *Flow {
	if d.nic == nil {
		return nil
	}
	c := &d.nic.recent[flowSlot(&key)]
	if f := *c; f != nil && f.Key == key {
		return f
	}
	f := d.nic.flows[key]
	if f == nil && create {
		f = &Flow{Key: key, order: len(d.nic.list), FirstTx: -1, FirstRx: -1, LastTx: -1, LastRx: -1}
		d.nic.flows[key] = f
		d.nic.list = append(d.nic.list, f)
	}
	if f != nil {
		*c = f
	}
	return f
}

const (
	flowCacheBits = 6
	flowCacheSize = 1 << flowCacheBits
)

// flowSlot is k's slot in nicState.recent: a multiplicative hash of the
// low words of its addresses, its ports and QP.
func flowSlot(k *FlowKey) int {
	s, d := k.Src.As16(), k.Dst.As16()
	x := uint32(s[12])<<24 | uint32(s[13])<<16 | uint32(s[14])<<8 | uint32(s[15])
	y := uint32(d[12])<<24 | uint32(d[13])<<16 | uint32(d[14])<<8 | uint32(d[15])
	h := (x*0x9E3779B1 ^ y) * 0x85EBCA6B
	h ^= (uint32(k.SrcPort)<<16 | uint32(k.DstPort)) ^ k.QP
	return int(h * 0x9E3779B1 >> (32 - flowCacheBits))
}

// Flows returns a NIC's flows in the order they were first seen (flows
// forgotten with ForgetFlow are left out).
func (d *Device) Flows() []*Flow {
	if d.nic == nil {
		return nil
	}
	d.nic.compact()
	return d.nic.list
}

// ForgetFlow drops a NIC's state for a flow that has nothing left to send
// and no generator, as a transport does when a flow completes, so that a
// long run's memory follows the flows in flight rather than every flow
// ever seen. A frame of the flow that arrives later starts a new Flow. It
// reports whether the flow was forgotten.
func (d *Device) ForgetFlow(key FlowKey) bool {
	if d.nic == nil {
		return false
	}
	f := d.nic.flows[key]
	if f == nil || f.active || f.fifo.n > 0 || f.gen != nil {
		return false
	}
	delete(d.nic.flows, key)
	ns := d.nic
	if c := &ns.recent[flowSlot(&key)]; *c == f {
		*c = nil
	}
	ns.list[f.order] = nil
	ns.holes++
	if ns.holes > 64 && 2*ns.holes > len(ns.list) {
		ns.compact()
	}
	return true
}

func (ns *nicState) compact() {
	if ns.holes == 0 {
		return
	}
	l := ns.list[:0]
	for _, f := range ns.list {
		if f != nil {
			f.order = len(l)
			l = append(l, f)
		}
	}
	clear(ns.list[len(l):])
	ns.list, ns.holes = l, 0
}

// PauseFlow sets pause_end of a NIC flow (SFC §2): the flow starts nothing
// before until; a time at or before now resumes it. A later call
// overwrites an earlier one, shortening the pause if it says so.
func (d *Device) PauseFlow(key FlowKey, until int64, cause string) error {
	if d.nic == nil {
		return ErrRole
	}
	f := d.Flow(key, true)
	now := d.sim.now
	if until < now {
		until = now
	}
	f.PauseEnd = until
	d.notePause(pauseKey{port: WirePort, class: -1, flow: key}, until, cause)
	d.kick(d.ports[0], false)
	return nil
}

// AddFlow makes a NIC's host offer the frames of spec.
func (d *Device) AddFlow(spec FlowSpec) (*Flow, error) {
	if d.nic == nil {
		return nil, ErrRole
	}
	var m Meta
	Parse(spec.Template, &m, &d.codes)
	if !m.IP() {
		return nil, &ParamError{Scope: "nic", Name: "flow template", Value: m.Kind.String() + " frame", Allowed: "an Ethernet frame carrying IPv4 or IPv6"}
	}
	if spec.Count < -1 || spec.Count == 0 {
		return nil, CheckRange("nic", "flow count", spec.Count, 1, math.MaxInt64, " frames (or -1)")
	}
	if spec.Start < d.sim.now {
		return nil, fmt.Errorf("%w: flow start %d < %d", ErrTimeOrder, spec.Start, d.sim.now)
	}
	f := d.Flow(m.Flow(), true)
	if f.gen != nil {
		return nil, &ParamError{Scope: "nic", Name: "flow template", Value: m.Flow().String(), Allowed: "one generator per flow"}
	}
	f.DSCP, f.Class = m.DSCP, d.class[m.DSCP]
	f.gen = &generator{tmpl: append([]byte(nil), spec.Template...), left: spec.Count, start: spec.Start}
	d.nic.specs = append(d.nic.specs, f)
	d.sim.push(event{t: spec.Start, dev: d, kind: evFlowStart, arg: int64(len(d.nic.specs) - 1)})
	return f, nil
}

func (d *Device) nicFlowStart(i int64) {
	f := d.nic.specs[i]
	f.gen.ready = true
	d.activate(f)
	d.kick(d.ports[0], false)
}

// activate puts a flow that has something to send into the round: last in
// it, just before the flow served next (at rr), so that a flow that
// empties and comes back (a transport posts one packet at a time) waits
// one round like the others, never behind a pointer that keeps chasing
// the end of the list.
func (d *Device) activate(f *Flow) {
	if !f.active && f.Backlog() {
		f.active = true
		ns := d.nic
		ns.active = slices.Insert(ns.active, ns.rr, f)
		if len(ns.active) > 1 {
			ns.rr++
		}
	}
}

// Offer makes a NIC's host offer frame for transmission now, like Input
// on HostPort but without moving the clock, so that a scheme may call it
// from a hook (a transport posting its next packet when the previous one
// starts, or when an ACK opens its window). The frame is copied. It
// returns the flow the frame joined, or nil when the frame is not IP (it
// is then dropped and counted as Input would).
func (d *Device) Offer(frame []byte) (*Flow, error) {
	if d.nic == nil {
		return nil, ErrRole
	}
	return d.offerFlow(frame, d.sim.now), nil
}

func (d *Device) offer(frame []byte, t int64) error {
	d.offerFlow(frame, t)
	return nil
}

func (d *Device) offerFlow(frame []byte, t int64) *Flow {
	p := d.sim.alloc(frame)
	Parse(p.Data, &p.Meta, &d.codes)
	p.InPort, p.Arrival = HostPort, t
	if !p.Meta.IP() {
		d.drop(p, HostPort, "host frame not IP")
		return nil
	}
	f := d.Flow(p.Meta.Flow(), true)
	f.DSCP, f.Class = p.Meta.DSCP, d.class[p.Meta.DSCP]
	p.Flow, p.Class, p.OutPort, p.Enqueued, p.NotBefore = f, f.Class, WirePort, t, t
	f.fifo.push(p)
	f.fifo.Bytes += int64(len(p.Data))
	d.activate(f)
	d.kick(d.ports[0], false)
	return f
}

// blockedUntil is the time until which f may not start a frame.
func (d *Device) blockedUntil(pt *Port, f *Flow) int64 {
	u := max(f.PauseEnd, pt.pausedUntil[f.Class&7])
	for _, g := range d.gates {
		u = max(u, g.FlowBlockedUntil(d, f))
	}
	return u
}

func (d *Device) nicPick(pt *Port) (*Packet, int64) {
	now := d.sim.now
	var wake int64 = math.MaxInt64
	if q := &pt.Queues[d.ctrl]; q.n > 0 {
		if ok, u := d.eligible(pt, q.Head(), now); ok {
			return q.pop(), 0
		} else {
			wake = u
		}
	}
	for qi := range pt.Queues {
		if q := &pt.Queues[qi]; q.n > 0 && qi != int(d.ctrl) {
			if ok, u := d.eligible(pt, q.Head(), now); ok {
				return q.pop(), 0
			} else {
				wake = min(wake, u)
			}
		}
	}
	ns := d.nic
	n := len(ns.active)
	for i := 0; i < n; i++ {
		k := (ns.rr + i) % n
		f := ns.active[k]
		u := d.blockedUntil(pt, f)
		if u > now {
			wake = min(wake, u)
			continue
		}
		var p *Packet
		if f.fifo.n > 0 {
			p = f.fifo.pop()
			f.fifo.Bytes -= int64(len(p.Data))
		} else {
			g := f.gen
			p = d.sim.alloc(g.tmpl)
			Parse(p.Data, &p.Meta, &d.codes)
			if p.Meta.IPVersion == 4 {
				setIPv4ID(p.Data[p.Meta.L3:], g.seq)
			}
			g.seq++
			if g.left > 0 {
				g.left--
			}
			p.InPort, p.Arrival, p.Enqueued, p.NotBefore = HostPort, g.start, g.start, g.start
			p.Flow, p.Class, p.OutPort = f, f.Class, WirePort
		}
		p.NotBefore = max(p.NotBefore, u)
		if !f.Backlog() {
			f.active = false
			copy(ns.active[k:], ns.active[k+1:])
			ns.active[n-1] = nil
			ns.active = ns.active[:n-1]
			if len(ns.active) > 0 {
				ns.rr = k % len(ns.active)
			} else {
				ns.rr = 0
			}
		} else {
			ns.rr = (k + 1) % n
		}
		return p, 0
	}
	if wake == math.MaxInt64 {
		wake = 0
	}
	return nil, wake
}

// setIPv4ID writes id into the identification of the IPv4 header h and
// updates the header checksum incrementally (RFC 1624).
func setIPv4ID(h []byte, id uint16) {
	old := binary.BigEndian.Uint16(h[4:])
	binary.BigEndian.PutUint16(h[4:], id)
	sum := uint32(^binary.BigEndian.Uint16(h[10:])) + uint32(^old) + uint32(id)
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	binary.BigEndian.PutUint16(h[10:], ^uint16(sum))
}

func (d *Device) nicDone(p *Packet) {
	f := p.Flow
	n := int64(len(p.Data))
	f.TxFrames++
	f.TxBytes += n
	if f.FirstTx < 0 {
		f.FirstTx = p.TxStart
	}
	f.LastTx = p.TxStart
}

func (d *Device) nicReceive(pt *Port, p *Packet) {
	if !p.Meta.IP() {
		d.drop(p, pt.ID, "not for the host")
		return
	}
	now := d.sim.now
	f := d.Flow(p.Meta.Flow(), true)
	f.RxFrames++
	f.RxBytes += int64(len(p.Data))
	if f.FirstRx < 0 {
		f.FirstRx = now
	}
	f.LastRx = now
	for _, r := range d.recvs {
		switch r.OnReceive(d, p) {
		case Take:
			return
		case Drop:
			d.drop(p, pt.ID, p.DropReason)
			return
		}
	}
	if d.out != nil {
		d.out(Out{Port: HostPort, Time: now, Frame: p.Data, Kind: p.Meta.Kind})
	}
	d.sim.release(p)
}
