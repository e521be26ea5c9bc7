// SPDX-License-Identifier: Apache-2.0

package bfc

import (
	"fmt"
	"math"

	"github.com/gopacket/gopacket"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

// flowKey names a flow at one egress port: flows are VFIDs (wire.md §7.1),
// so two 5-tuples with one VFID are one flow, as in a hardware flow table.
type flowKey struct {
	egress int32
	vfid   uint32
}

// flow is the state of one flow at one egress port. It exists while the
// flow has packets queued there, is paused, or waits on a resume list.
type flow struct {
	key    flowKey
	idx    [layers.BFCMaxHashes]uint32 // bit index in each stage of our filter (version 2)
	q      int32                       // physical queue, -1 when none
	in     int32                       // ingress port index where paused
	nPhys  int32                       // packets in the physical queue (transmitting included)
	nHP    int32                       // packets in the first-packet queue
	orphan int32                       // index in its queue's orphan list, -1 when not there
	paused bool
	onList bool
}

// memo caches whether a physical queue's head flow matches the filter a
// port received, so that N_active and the scheduler do not rehash.
type memo struct {
	ver     uint64
	vfid    uint32
	blocked bool
}

type portState struct {
	speed int64
	mac   device.MAC
	// Egress (upstream role): the filter received from the neighbour on
	// this port and the scheduler state of the physical queues.
	rfilter []byte
	rk      int
	rv      uint8 // version of the received frame: how its stages are indexed
	rseq    uint32
	rhave   bool
	rver    uint64
	rbits   bool // the received filter has a bit set
	memo    []memo
	orphans [][]*flow // per physical queue: paused flows with nothing left in it
	rr      int
	// Ingress (downstream role): the counting filter toward the neighbour
	// on this port, the filter bits it gives, the resume list, the
	// sequence of the next pause frame.
	counts []uint32
	bits   []byte
	paused int // flows paused here
	resume []*flow
	rhead  int
	seq    uint32
}

// Switch is the BFC switch of behaviour.md §6 as a device.Scheme and
// device.Picker. Per egress port it assigns flows to physical queues (a
// flow keeps its queue while it has packets there; a new one takes the
// lowest-numbered empty queue, else shares queue VFID mod N_q), sends the
// first packet of an idle flow through the high-priority queue, pauses a
// flow at its ingress port when its queue exceeds Th = (HRTT + τ) × μ /
// N_active on arrival, and lists it for resume on dequeue once its queue is
// at or below Th. Every τ each port resumes at most one listed flow and
// sends its counting filter as a BFC pause frame with the next sequence
// number. As the upstream of its neighbours it applies the pause frames it
// receives (stale sequences ignored) and never starts a physical queue
// whose head flow matches the filter of that port.
//
// The device's ports must have QueuesFor(N_q) egress queues.
type Switch struct {
	device.NopScheme
	// P holds the parameters; Attach fills in the defaults.
	P Params

	ports    []portState
	flows    map[flowKey]*flow
	free     []*flow
	stage    uint32 // bits per stage of our filter: 8 L / k
	tick     device.Ticker
	b        builder
	rx       layers.BFC
	nPausedT int // flows paused, all ports

	// Counters.
	Pauses        int64 // flows paused (pause rule fired)
	Resumes       int64 // flows resumed (taken off a resume list)
	Shared        int64 // arrivals that had to share a non-empty physical queue
	FirstPackets  int64 // packets sent through the high-priority queue
	FramesSent    int64 // BFC pause frames sent
	FramesApplied int64 // BFC pause frames received and applied
	StaleFrames   int64 // received frames ignored for an old sequence number
	V1Frames      int64 // applied frames of version 1 (read with their own, degenerate, stage hashes)
	Errors        int64 // frames that could not be built or sent
}

// NewSwitch returns a BFC switch scheme with parameters p.
func NewSwitch(p Params) *Switch { return &Switch{P: p} }

// Attach validates the parameters against the device, sizes the per-port
// state and starts the τ timer (aligned to multiples of τ from time 0).
func (s *Switch) Attach(d *device.Device) error {
	if d.Role() != device.RoleSwitch {
		return &device.ParamError{Scope: "bfc", Name: "switch", Value: d.Role().String(), Allowed: "a switch device"}
	}
	if err := s.P.resolve(); err != nil {
		return err
	}
	need := QueuesFor(s.P.Queues)
	s.ports = make([]portState, len(d.Ports()))
	for i, pt := range d.Ports() {
		if len(pt.Queues) < need {
			return &device.ParamError{Scope: "bfc", Name: "n_q", Value: fmt.Sprint(s.P.Queues),
				Allowed: fmt.Sprintf("1..%d on port %d, which has %d egress queues (BFC needs 9 + n_q)", len(pt.Queues)-FirstPhysicalQueue, pt.ID, len(pt.Queues))}
		}
		ps := &s.ports[i]
		ps.speed, ps.mac = pt.Speed, pt.MAC
		ps.memo = make([]memo, s.P.Queues)
		ps.orphans = make([][]*flow, s.P.Queues)
		ps.counts = make([]uint32, 8*s.P.FilterLen)
		ps.bits = make([]byte, s.P.FilterLen)
	}
	s.flows = map[flowKey]*flow{}
	s.stage = uint32(8 * s.P.FilterLen / s.P.Hashes)
	s.tick.Start(d, s, s.P.Tau)
	return nil
}

// Threshold returns Th for the egress port with id port now, with the
// current N_active of that port.
func (s *Switch) Threshold(d *device.Device, port int) int64 {
	pt := d.Port(port)
	if pt == nil || s.ports == nil {
		return 0
	}
	return Threshold(s.P.HopRTT, s.P.Tau, pt.Speed, s.nActive(pt, &s.ports[pt.Index()]))
}

// Active returns N_active of the egress port with id port: its non-empty
// physical queues whose head flow is not paused by the port's neighbour.
func (s *Switch) Active(d *device.Device, port int) int {
	pt := d.Port(port)
	if pt == nil || s.ports == nil {
		return 0
	}
	return s.nActive(pt, &s.ports[pt.Index()])
}

// PausedAt returns how many flows are paused at ingress port id port.
func (s *Switch) PausedAt(d *device.Device, port int) int {
	pt := d.Port(port)
	if pt == nil || s.ports == nil {
		return 0
	}
	return s.ports[pt.Index()].paused
}

// ResumeBacklog returns how many flows wait on the resume list of ingress
// port id port.
func (s *Switch) ResumeBacklog(d *device.Device, port int) int {
	pt := d.Port(port)
	if pt == nil || s.ports == nil {
		return 0
	}
	ps := &s.ports[pt.Index()]
	return len(ps.resume) - ps.rhead
}

// Flows returns how many flow entries the switch holds (flows with packets
// queued, paused, or waiting for resume): its memory is proportional to it.
func (s *Switch) Flows() int { return len(s.flows) }

// Filter returns a copy of the filter the switch would send now on port id
// port (L octets, k stages).
func (s *Switch) Filter(d *device.Device, port int) []byte {
	pt := d.Port(port)
	if pt == nil || s.ports == nil {
		return nil
	}
	return append([]byte(nil), s.ports[pt.Index()].bits...)
}

// IsPaused reports whether the flow is paused at an ingress port for egress
// port id egress, and where.
func (s *Switch) IsPaused(d *device.Device, egress int, k device.FlowKey) (paused bool, ingress int) {
	pt := d.Port(egress)
	if pt == nil || s.flows == nil {
		return false, -1
	}
	f := s.flows[flowKey{int32(pt.Index()), VFID(k)}]
	if f == nil || !f.paused {
		return false, -1
	}
	return true, d.Ports()[f.in].ID
}

// lookup returns the flow entry of vfid at egress port e, creating it
// (its stage indexes hashed from m's 5-tuple) when m is not nil.
func (s *Switch) lookup(e int, vfid uint32, m *device.Meta) *flow {
	k := flowKey{int32(e), vfid}
	f := s.flows[k]
	if f != nil || m == nil {
		return f
	}
	if n := len(s.free); n > 0 {
		f = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		f = &flow{}
	}
	*f = flow{key: k, q: -1, in: -1, orphan: -1}
	h := metaHashes(m)
	for st := 0; st < s.P.Hashes; st++ {
		f.idx[st] = layers.StageIndex(layers.BFCVersion, &h, st, s.P.FilterLen, s.P.Hashes)
	}
	s.flows[k] = f
	return f
}

func (s *Switch) release(f *flow) {
	if f.nPhys > 0 || f.nHP > 0 || f.paused || f.onList {
		return
	}
	delete(s.flows, f.key)
	s.free = append(s.free, f)
}

// blocked reports whether the received filter of ps pauses the flow of
// packet p (VFID in p.Tag), at the head of physical queue qi or about to
// be, through the queue's memo. On a miss it hashes p's 5-tuple, and reads
// the filter as the frame's version defines it.
func (s *Switch) blocked(ps *portState, qi int, p *device.Packet) bool {
	if !ps.rbits {
		return false
	}
	m := &ps.memo[qi]
	if vfid := uint32(p.Tag); m.ver != ps.rver || m.vfid != vfid {
		m.ver, m.vfid = ps.rver, vfid
		h := metaHashes(&p.Meta)
		m.blocked = layers.FilterMatches(ps.rv, ps.rfilter, ps.rk, &h)
	}
	return m.blocked
}

// matches reports whether p's flow matches the filter received on the
// port of ps (FilterGatesFirst).
func (s *Switch) matches(ps *portState, p *device.Packet) bool {
	if !ps.rbits {
		return false
	}
	h := metaHashes(&p.Meta)
	return layers.FilterMatches(ps.rv, ps.rfilter, ps.rk, &h)
}

// nActive counts the unpaused non-empty physical queues of pt, at least 1.
func (s *Switch) nActive(pt *device.Port, ps *portState) int {
	return max(s.countActive(pt, ps), 1)
}

// countActive counts the unpaused non-empty physical queues of pt.
func (s *Switch) countActive(pt *device.Port, ps *portState) int {
	n := 0
	for i := 0; i < s.P.Queues; i++ {
		q := &pt.Queues[FirstPhysicalQueue+i]
		if q.Bytes == 0 {
			continue
		}
		if h := q.Head(); h != nil && s.blocked(ps, i, h) {
			continue
		}
		n++
	}
	return n
}

func managed(p *device.Packet) bool { return !p.Generated && p.InPort >= 0 }

// OnEnqueue assigns a forwarded frame to the first-packet queue or a
// physical queue and applies the pause rule.
func (s *Switch) OnEnqueue(d *device.Device, p *device.Packet) device.Verdict {
	if !managed(p) || !p.Meta.IP() {
		return device.Pass
	}
	pt, in := d.Port(p.OutPort), d.Port(p.InPort)
	if pt == nil || in == nil {
		return device.Pass
	}
	s.tick.Ensure(d, s)
	e := pt.Index()
	ps := &s.ports[e]
	vfid := metaVFID(&p.Meta)
	p.Tag = int64(vfid)
	f := s.lookup(e, vfid, &p.Meta)
	if f.nPhys == 0 && f.nHP == 0 && !f.paused && !(s.P.FilterGatesFirst && s.matches(ps, p)) {
		f.nHP++
		p.Queue = HighPriorityQueue
		s.FirstPackets++
		return device.Pass
	}
	if f.nPhys == 0 {
		s.unorphan(f)
		f.q = -1
		for i := 0; i < s.P.Queues && !s.P.StaticQueues; i++ {
			if pt.Queues[FirstPhysicalQueue+i].Bytes == 0 {
				f.q = int32(i)
				break
			}
		}
		if f.q < 0 {
			f.q = int32(vfid % uint32(s.P.Queues))
			if !s.P.StaticQueues || pt.Queues[FirstPhysicalQueue+int(f.q)].Bytes > 0 {
				s.Shared++
			}
		}
	}
	f.nPhys++
	qi := int(f.q)
	q := &pt.Queues[FirstPhysicalQueue+qi]
	p.Queue = FirstPhysicalQueue + qi
	act := s.countActive(pt, ps)
	if q.Bytes == 0 && !s.blocked(ps, qi, p) {
		act++ // this queue turns non-empty with f at its head
	}
	depth := q.Bytes + int64(len(p.Data))
	if !f.paused && depth > Threshold(s.P.HopRTT, s.P.Tau, ps.speed, act) {
		s.pause(f, in.Index())
	}
	return device.Pass
}

func (s *Switch) pause(f *flow, in int) {
	ps := &s.ports[in]
	f.paused, f.in = true, int32(in)
	for st := 0; st < s.P.Hashes; st++ {
		g := uint32(st)*s.stage + f.idx[st]
		if ps.counts[g] == 0 {
			ps.bits[g/8] |= 0x80 >> (g % 8)
		}
		ps.counts[g]++
	}
	ps.paused++
	s.nPausedT++
	s.Pauses++
}

func (s *Switch) resume(f *flow) {
	ps := &s.ports[f.in]
	for st := 0; st < s.P.Hashes; st++ {
		g := uint32(st)*s.stage + f.idx[st]
		ps.counts[g]--
		if ps.counts[g] == 0 {
			ps.bits[g/8] &^= 0x80 >> (g % 8)
		}
	}
	ps.paused--
	s.nPausedT--
	f.paused, f.onList, f.in = false, false, -1
	s.Resumes++
	s.release(f)
}

// OnDequeue applies the resume rule when a frame of a physical queue
// starts transmission: if the queue then holds at most Th (the octets
// behind the frame: the frame has left the queue), the frame's flow, when
// paused, goes on its ingress port's resume list, and so do the paused
// flows that have nothing left in this queue (behaviour.md is silent on
// them; without this they would never resume, and resuming them whatever
// the queue holds would keep a shared queue full).
func (s *Switch) OnDequeue(d *device.Device, p *device.Packet) {
	if !managed(p) || p.Queue < FirstPhysicalQueue || p.Queue >= FirstPhysicalQueue+s.P.Queues {
		return
	}
	pt := d.Port(p.OutPort)
	if pt == nil {
		return
	}
	e := pt.Index()
	ps := &s.ports[e]
	qi := p.Queue - FirstPhysicalQueue
	f := s.flows[flowKey{int32(e), uint32(p.Tag)}]
	if (f == nil || !f.paused || f.onList) && len(ps.orphans[qi]) == 0 {
		return
	}
	th := Threshold(s.P.HopRTT, s.P.Tau, pt.Speed, s.nActive(pt, ps))
	if pt.Queues[p.Queue].Bytes-int64(len(p.Data)) > th {
		return
	}
	if f != nil && f.paused && !f.onList {
		s.enlist(d, f)
	}
	for len(ps.orphans[qi]) > 0 {
		o := ps.orphans[qi][0]
		s.unorphan(o)
		o.q = -1
		s.enlist(d, o)
	}
}

func (s *Switch) enlist(d *device.Device, f *flow) {
	ps := &s.ports[f.in]
	if ps.rhead > 0 && ps.rhead == len(ps.resume) {
		ps.resume, ps.rhead = ps.resume[:0], 0
	}
	ps.resume = append(ps.resume, f)
	f.onList = true
	s.tick.Foreground(d, s)
}

// unorphan takes f off its queue's orphan list.
func (s *Switch) unorphan(f *flow) {
	if f.orphan < 0 {
		return
	}
	l := s.ports[f.key.egress].orphans[f.q]
	last := len(l) - 1
	l[f.orphan] = l[last]
	l[f.orphan].orphan = f.orphan
	l[last] = nil
	s.ports[f.key.egress].orphans[f.q] = l[:last]
	f.orphan = -1
}

// OnDepart releases the queue share of a frame that left (or that a later
// scheme dropped before it was queued).
func (s *Switch) OnDepart(d *device.Device, p *device.Packet) {
	if !managed(p) || p.Queue < HighPriorityQueue || p.Queue >= FirstPhysicalQueue+s.P.Queues {
		return
	}
	pt := d.Port(p.OutPort)
	if pt == nil {
		return
	}
	f := s.flows[flowKey{int32(pt.Index()), uint32(p.Tag)}]
	if f == nil {
		return
	}
	if p.Queue == HighPriorityQueue {
		if f.nHP > 0 {
			f.nHP--
		}
	} else if f.nPhys > 0 {
		f.nPhys--
		if f.nPhys == 0 {
			if f.paused && !f.onList {
				l := &s.ports[f.key.egress].orphans[f.q]
				f.orphan = int32(len(*l))
				*l = append(*l, f)
			} else {
				f.q = -1
			}
		}
	}
	s.release(f)
}

// OnTimer runs one τ tick: per port, resume at most one listed flow, then
// send the port's pause frame.
func (s *Switch) OnTimer(d *device.Device, id int, arg int64) {
	if !s.tick.Due(id, arg) {
		return
	}
	more := false
	for i := range s.ports {
		ps := &s.ports[i]
		if ps.rhead < len(ps.resume) {
			f := ps.resume[ps.rhead]
			ps.resume[ps.rhead] = nil
			ps.rhead++
			s.resume(f)
			if ps.rhead == len(ps.resume) {
				ps.resume, ps.rhead = ps.resume[:0], 0
			}
		}
		more = more || ps.rhead < len(ps.resume)
		s.sendFrame(d, i)
	}
	// Idle (nothing queued, paused or listed: every port just sent an
	// all-zero filter): stop until the next frame to schedule.
	if more || s.P.AlwaysSend || len(s.flows) > 0 || s.nPausedT > 0 {
		s.tick.Next(d, s, more)
	}
}

func (s *Switch) sendFrame(d *device.Device, i int) {
	ps := &s.ports[i]
	f, err := s.b.build(ps.mac, s.P.Hashes, ps.seq, ps.bits)
	if err != nil || d.Send(d.Ports()[i].ID, f) != nil {
		s.Errors++
		return
	}
	ps.seq++
	s.FramesSent++
}

// OnControl applies a BFC pause frame received on a port: it replaces the
// port's filter unless its sequence number is older than the last applied
// (serial-number arithmetic), and consumes the frame. Malformed ones are
// dropped as "bfc malformed". Other frames pass.
func (s *Switch) OnControl(d *device.Device, p *device.Packet) device.Verdict {
	if !isBFC(p.Data, &p.Meta) {
		return device.Pass
	}
	pt := d.Port(p.InPort)
	if pt == nil {
		return device.Pass
	}
	ps := &s.ports[pt.Index()]
	v, ok := applyFrame(&s.rx, p, &ps.rfilter, &ps.rk, &ps.rv, &ps.rseq, &ps.rhave, &ps.rbits)
	switch v {
	case frameBad:
		p.DropReason = "bfc malformed"
		return device.Drop
	case frameStale:
		s.StaleFrames++
	case frameApplied:
		s.FramesApplied++
		if ps.rv == layers.BFCVersion1 {
			s.V1Frames++
		}
		if ok {
			ps.rver++
		}
	}
	d.Free(p)
	if ok {
		d.Kick(pt.ID)
	}
	return device.Take
}

type frameVerdict uint8

const (
	frameApplied frameVerdict = iota
	frameStale
	frameBad
)

// applyFrame decodes the BFC frame in p and, unless it is stale, copies its
// filter, k and version into *filter, *k and *ver. ok reports whether the
// filter changed. A version 1 frame is applied as version 1: its bits were
// set with CRC-32C(VFID ‖ s), so that is how they are read.
func applyFrame(l *layers.BFC, p *device.Packet, filter *[]byte, k *int, ver *uint8, seq *uint32, have, any *bool) (frameVerdict, bool) {
	if err := l.DecodeFromBytes(p.Data[p.Meta.L3:], gopacket.NilDecodeFeedback); err != nil {
		return frameBad, false
	}
	if *have && int32(l.Seq-*seq) < 0 {
		return frameStale, false
	}
	changed := !*have || *k != int(l.Hashes) || *ver != l.Version || string(*filter) != string(l.Filter)
	*filter = append((*filter)[:0], l.Filter...)
	*k, *ver, *seq, *have = int(l.Hashes), l.Version, l.Seq, true
	*any = false
	for _, c := range l.Filter {
		if c != 0 {
			*any = true
			break
		}
	}
	return frameApplied, changed
}

// Pick serves, in order: the control class (generated signals), the
// high-priority first-packet queue, any other class queue, then the
// physical queues round-robin, skipping a queue whose head flow matches
// the filter the port's neighbour sent, a frame whose class is paused by
// PFC (as the core does), and a queue whose head flow still has a first
// packet in the high-priority queue behind a PFC-paused frame (behaviour.md
// is silent on BFC under PFC; this keeps each flow in order).
func (s *Switch) Pick(d *device.Device, pt *device.Port) (int, int64) {
	now := d.Now()
	wake := int64(math.MaxInt64)
	try := func(qi int) bool {
		q := &pt.Queues[qi]
		h := q.Head()
		if h == nil {
			return false
		}
		if !h.NoPause {
			if u := pt.PausedUntil(int(h.Class)); u > now {
				wake = min(wake, u)
				return false
			}
		}
		return true
	}
	ctrl := int(d.ControlClass())
	if try(ctrl) {
		return ctrl, 0
	}
	if try(HighPriorityQueue) {
		return HighPriorityQueue, 0
	}
	for qi := 0; qi < HighPriorityQueue; qi++ {
		if qi != ctrl && try(qi) {
			return qi, 0
		}
	}
	e := pt.Index()
	ps := &s.ports[e]
	// The high-priority queue holds something only when PFC holds its head
	// (try serves it otherwise): then a flow's later packets must wait for
	// its first one, or the flow would leave out of order.
	hpHeld := pt.Queues[HighPriorityQueue].Head() != nil
	n := s.P.Queues
	for j := 0; j < n; j++ {
		i := (ps.rr + j) % n
		h := pt.Queues[FirstPhysicalQueue+i].Head()
		if h == nil || s.blocked(ps, i, h) {
			continue
		}
		if hpHeld && managed(h) {
			if f := s.flows[flowKey{int32(e), uint32(h.Tag)}]; f != nil && f.nHP > 0 {
				continue
			}
		}
		if try(FirstPhysicalQueue + i) {
			ps.rr = (i + 1) % n
			return FirstPhysicalQueue + i, 0
		}
	}
	if wake == math.MaxInt64 {
		wake = 0
	}
	return -1, wake
}
