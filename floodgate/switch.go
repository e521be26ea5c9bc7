// SPDX-License-Identifier: Apache-2.0

package floodgate

import (
	"math"
	"net/netip"

	"github.com/gopacket/gopacket"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

// sender is a host port that sent toward a destination, for dst-pause.
type sender struct {
	port   int32 // port index
	last   int64 // last arrival from it toward the destination
	paused bool  // a dst-pause for the destination is in force there
}

// dest is the state of one destination host d at this switch: its window
// and VOQ (upstream role) and its dst-pause state. It exists while any of
// them differs from the initial state.
type dest struct {
	addr    netip.Addr
	egress  int32 // window port index, -1 while d has only been seen from hosts
	w, w0   int64 // window and its initial value, octets
	voq     []*device.Packet
	head, n int
	bytes   int64
	paused  bool // dst-pause in force
	senders []sender
	pos     int // index in Switch.list
}

type pending struct {
	dst netip.Addr
	n   int64
}

// credits are the octets forwarded per destination for one ingress port,
// in the order destinations first appeared since the last credit frame.
type credits struct {
	list []pending
	idx  map[netip.Addr]int
}

// Switch is the Floodgate switch of behaviour.md §7 as a device.Scheme. In
// its upstream role it keeps, per destination host reached through a
// window port, the window W_d (starting at m × BDP_nexthop + C_out × τ) and
// a FIFO VOQ: a data packet passes when its VOQ is empty and W_d covers it,
// else it waits; credit frames from the downstream switch refill W_d and
// release the VOQ in order. In its downstream role it counts the octets of
// data per (credit port, destination) as each frame joins its egress queue
// (after any wait in a VOQ here) and every τ sends each
// credit port one credit frame with every pending count, holding back the
// counts of a destination whose own VOQ here exceeds the delay-credit
// threshold. As a source ToR it sends dst-pause for d (pause 0xFFFF) to the
// host ports that sent toward d in the last τ when d's VOQ exceeds the
// dst-pause threshold, and a resume (pause 0) once it falls below half of
// it. Packets waiting in a VOQ stay counted in the shared buffer.
type Switch struct {
	device.NopScheme
	// P holds the parameters; Attach fills in the defaults.
	P Params

	window, credit, host []bool
	w0                   []int64
	dstPause, delay      int64
	dests                map[netip.Addr]*dest
	list                 []*dest
	free                 []*dest
	pend                 []credits
	npend                int
	releasing            *device.Packet
	dev                  *device.Device
	tick                 device.Ticker
	b                    builder
	rx                   layers.FGCredit
	ents                 []layers.CreditEntry

	// Counters.
	Queued         int64 // data packets that waited in a VOQ
	PeakVOQ        int64 // largest VOQ of any destination, octets
	CreditFrames   int64 // credit frames sent
	CreditsSent    int64 // octets of credit sent
	CreditsApplied int64 // octets of credit received and added to windows
	StrayCredits   int64 // octets of credit for no window here (or beyond W0)
	HeldTicks      int64 // (tick, port, destination) counts held back by delay-credit
	DstPauses      int64 // dst-pause frames sent (0xFFFF)
	DstResumes     int64 // dst-pause resume frames sent (0)
	Errors         int64 // frames that could not be built or sent
}

// NewSwitch returns a Floodgate switch scheme with parameters p.
func NewSwitch(p Params) *Switch { return &Switch{P: p} }

// Attach validates the parameters, resolves the per-port windows and
// thresholds and starts the τ timer (aligned to multiples of τ from 0).
func (s *Switch) Attach(d *device.Device) error {
	if d.Role() != device.RoleSwitch {
		return &device.ParamError{Scope: "floodgate", Name: "switch", Value: d.Role().String(), Allowed: "a switch device"}
	}
	if err := s.P.resolve(); err != nil {
		return err
	}
	var err error
	notHost := func(pt *device.Port) bool { return !pt.ServerFacing }
	if s.window, err = portList(d, "window_ports", s.P.WindowPorts, notHost); err != nil {
		return err
	}
	if s.credit, err = portList(d, "credit_ports", s.P.CreditPorts, notHost); err != nil {
		return err
	}
	n := len(d.Ports())
	s.host = make([]bool, n)
	s.w0 = make([]int64, n)
	s.pend = make([]credits, n)
	var maxBDP int64
	for i, pt := range d.Ports() {
		s.host[i] = pt.ServerFacing
		bdp := s.P.BDP
		if bdp == 0 {
			bdp = BDP(pt.Speed, s.P.NextHopRTT)
		}
		maxBDP = max(maxBDP, bdp)
		s.w0[i] = Window(s.P.M, bdp, pt.Speed, s.P.Tau)
		s.pend[i].idx = map[netip.Addr]int{}
	}
	def := int64(math.Round(1.5 * float64(maxBDP)))
	s.dstPause, s.delay = s.P.DstPause, s.P.DelayCredit
	if s.dstPause == 0 {
		s.dstPause = max(def, 1)
	}
	if s.delay == 0 {
		s.delay = max(def, 1)
	}
	s.dests = map[netip.Addr]*dest{}
	s.dev = d
	s.tick.Start(d, s, s.P.Tau)
	return nil
}

// InitialWindow returns W_d at its start for destinations behind the port
// with id port (0 for an unknown port).
func (s *Switch) InitialWindow(d *device.Device, port int) int64 {
	pt := d.Port(port)
	if pt == nil || s.w0 == nil {
		return 0
	}
	return s.w0[pt.Index()]
}

// Thresholds returns the dst-pause and delay-credit thresholds in force.
func (s *Switch) Thresholds() (dstPause, delayCredit int64) { return s.dstPause, s.delay }

// Window returns W_d and the octets waiting in d's VOQ now; ok is false
// when the switch keeps no window for d (it is at its initial value).
func (s *Switch) Window(dst netip.Addr) (w, voq int64, ok bool) {
	ds := s.dests[dst]
	if ds == nil || ds.egress < 0 {
		return 0, 0, false
	}
	return ds.w, ds.bytes, true
}

// Pending returns the credit octets counted for (ingress port id port, d)
// and not yet sent.
func (s *Switch) Pending(d *device.Device, port int, dst netip.Addr) int64 {
	pt := d.Port(port)
	if pt == nil || s.pend == nil {
		return 0
	}
	c := &s.pend[pt.Index()]
	if i, ok := c.idx[dst]; ok {
		return c.list[i].n
	}
	return 0
}

// DstPaused reports whether a dst-pause for d is in force from this switch.
func (s *Switch) DstPaused(dst netip.Addr) bool {
	ds := s.dests[dst]
	return ds != nil && ds.paused
}

// Destinations returns how many destination entries the switch holds: its
// memory is proportional to it plus the packets in its VOQs.
func (s *Switch) Destinations() int { return len(s.dests) }

func managed(p *device.Packet) bool {
	return !p.Generated && p.InPort >= 0 && p.Meta.Kind == device.KindData
}

func (s *Switch) get(a netip.Addr) *dest {
	if ds := s.dests[a]; ds != nil {
		return ds
	}
	var ds *dest
	if n := len(s.free); n > 0 {
		ds = s.free[n-1]
		s.free = s.free[:n-1]
		*ds = dest{voq: ds.voq[:0], senders: ds.senders[:0]}
	} else {
		ds = &dest{}
	}
	ds.addr, ds.egress, ds.pos = a, -1, len(s.list)
	s.dests[a] = ds
	s.list = append(s.list, ds)
	s.tick.Ensure(s.dev, s)
	return ds
}

// idle reports whether ds holds nothing that differs from a fresh entry
// (senders older than τ do not count).
func (s *Switch) idle(ds *dest, now int64) bool {
	if ds.n > 0 || ds.paused || ds.egress >= 0 && ds.w != ds.w0 {
		return false
	}
	for _, sd := range ds.senders {
		if sd.paused || sd.last >= now-s.P.Tau {
			return false
		}
	}
	return true
}

func (s *Switch) drop(ds *dest) {
	delete(s.dests, ds.addr)
	last := len(s.list) - 1
	s.list[ds.pos] = s.list[last]
	s.list[ds.pos].pos = ds.pos
	s.list[last] = nil
	s.list = s.list[:last]
	clear(ds.voq)
	s.free = append(s.free, ds)
}

// OnEnqueue applies the window of the packet's destination when its egress
// is a window port, and notes host ports sending toward it (dst-pause).
func (s *Switch) OnEnqueue(d *device.Device, p *device.Packet) device.Verdict {
	if !managed(p) {
		return device.Pass
	}
	in, out := d.Port(p.InPort), d.Port(p.OutPort)
	if in == nil || out == nil {
		return device.Pass
	}
	if p == s.releasing {
		s.count(d, in, p) // out of the VOQ into the egress queue
		return device.Pass
	}
	now := d.Now()
	var ds *dest
	if s.host[in.Index()] && !s.P.NoDstPause {
		ds = s.get(p.Meta.Dst)
		s.noteSender(d, ds, in.Index(), now)
	}
	e := out.Index()
	if !s.window[e] {
		s.count(d, in, p)
		return device.Pass
	}
	if ds == nil {
		ds = s.get(p.Meta.Dst)
	}
	// When the route of d moved while its window was in use, the old
	// window is kept, as a switch with one FIB entry per d would.
	if ds.egress != int32(e) && !(ds.egress >= 0 && (ds.n > 0 || ds.w != ds.w0)) {
		ds.egress, ds.w0, ds.w = int32(e), s.w0[e], s.w0[e]
	}
	n := int64(len(p.Data))
	if ds.n == 0 && ds.w >= n {
		ds.w -= n
		s.count(d, in, p)
		return device.Pass
	}
	if ds.n == len(ds.voq) {
		nv := make([]*device.Packet, max(8, 2*len(ds.voq)))
		for i := 0; i < ds.n; i++ {
			nv[i] = ds.voq[(ds.head+i)%len(ds.voq)]
		}
		ds.voq, ds.head = nv, 0
	}
	ds.voq[(ds.head+ds.n)%len(ds.voq)] = p
	ds.n++
	ds.bytes += n
	s.Queued++
	s.PeakVOQ = max(s.PeakVOQ, ds.bytes)
	if !s.P.NoDstPause && !ds.paused && ds.bytes > s.dstPause {
		s.pauseSenders(d, ds, now)
	}
	return device.Take
}

func (s *Switch) noteSender(d *device.Device, ds *dest, port int, now int64) {
	for i := range ds.senders {
		sd := &ds.senders[i]
		if int(sd.port) == port {
			sd.last = now
			if ds.paused && !sd.paused {
				s.sendPause(d, sd, ds.addr, layers.PauseUntilResumed)
			}
			return
		}
	}
	ds.senders = append(ds.senders, sender{port: int32(port), last: now})
	s.tick.Ensure(d, s)
	if ds.paused {
		s.sendPause(d, &ds.senders[len(ds.senders)-1], ds.addr, layers.PauseUntilResumed)
	}
}

func (s *Switch) pauseSenders(d *device.Device, ds *dest, now int64) {
	ds.paused = true
	for i := range ds.senders {
		if sd := &ds.senders[i]; sd.last >= now-s.P.Tau && !sd.paused {
			s.sendPause(d, sd, ds.addr, layers.PauseUntilResumed)
		}
	}
}

func (s *Switch) resumeSenders(d *device.Device, ds *dest) {
	ds.paused = false
	s.tick.Ensure(d, s) // to forget the senders after τ
	for i := range ds.senders {
		if sd := &ds.senders[i]; sd.paused {
			s.sendPause(d, sd, ds.addr, 0)
		}
	}
}

func (s *Switch) sendPause(d *device.Device, sd *sender, dst netip.Addr, us uint16) {
	pt := d.Ports()[sd.port]
	f, err := s.b.pauseFrame(pt.MAC, dst, us)
	if err != nil || d.Send(pt.ID, f) != nil {
		s.Errors++
		return
	}
	sd.paused = us != 0
	if us != 0 {
		s.DstPauses++
	} else {
		s.DstResumes++
	}
}

// drain releases d's VOQ in order while the window covers its head.
func (s *Switch) drain(d *device.Device, ds *dest) {
	for ds.n > 0 {
		p := ds.voq[ds.head]
		n := int64(len(p.Data))
		if ds.w < n {
			break
		}
		ds.voq[ds.head] = nil
		ds.head = (ds.head + 1) % len(ds.voq)
		ds.n--
		ds.w -= n
		ds.bytes -= n
		s.releasing = p
		d.Release(p)
		s.releasing = nil
	}
	if ds.paused && ds.bytes < s.dstPause/2 {
		s.resumeSenders(d, ds)
	}
	if s.npend > 0 && !s.P.NoDelayCredit && ds.bytes <= s.delay {
		s.tick.Foreground(d, s)
	}
}

// OnControl applies a credit frame received on a window port: each entry
// adds its credits to W_d (up to its initial value) and releases d's VOQ
// while the window allows. Other frames pass; malformed credit frames are
// dropped as "floodgate malformed".
func (s *Switch) OnControl(d *device.Device, p *device.Packet) device.Verdict {
	if subtype(p.Data, &p.Meta) != layers.SubtypeFGCredit {
		return device.Pass
	}
	pt := d.Port(p.InPort)
	if pt == nil {
		return device.Pass
	}
	if err := s.rx.DecodeFromBytes(p.Data[p.Meta.L3:], gopacket.NilDecodeFeedback); err != nil {
		p.DropReason = "floodgate malformed"
		return device.Drop
	}
	in := int32(pt.Index())
	for _, e := range s.rx.Entries {
		ds := s.dests[e.Dst]
		c := int64(e.Credits)
		if ds == nil || ds.egress != in {
			s.StrayCredits += c
			continue
		}
		if ds.w+c > ds.w0 {
			s.StrayCredits += ds.w + c - ds.w0
			c = ds.w0 - ds.w
		}
		ds.w += c
		s.CreditsApplied += c
		s.drain(d, ds)
		if s.idle(ds, d.Now()) {
			s.drop(ds)
		}
	}
	d.Free(p)
	return device.Take
}

// count adds the octets of a data frame that joins its egress queue now
// to the credit of (its ingress port, its destination), when the ingress
// is a credit port: behaviour.md §7 counts at the enqueue to the egress
// queue (a frame that waits in a VOQ here is counted when it leaves the
// VOQ), not when the frame leaves the switch.
func (s *Switch) count(d *device.Device, in *device.Port, p *device.Packet) {
	if !s.credit[in.Index()] {
		return
	}
	c := &s.pend[in.Index()]
	if i, ok := c.idx[p.Meta.Dst]; ok {
		c.list[i].n += int64(len(p.Data))
	} else {
		c.idx[p.Meta.Dst] = len(c.list)
		c.list = append(c.list, pending{p.Meta.Dst, int64(len(p.Data))})
		s.npend++
	}
	s.tick.Foreground(d, s)
}

func (s *Switch) held(a netip.Addr) bool {
	if s.P.NoDelayCredit {
		return false
	}
	ds := s.dests[a]
	return ds != nil && ds.bytes > s.delay
}

// OnTimer runs one τ tick: each credit port gets its credit frame, and
// stale dst-pause senders and idle destinations are forgotten.
func (s *Switch) OnTimer(d *device.Device, id int, arg int64) {
	if !s.tick.Due(id, arg) {
		return
	}
	for i := range s.pend {
		if len(s.pend[i].list) > 0 {
			s.sendCredits(d, i)
		}
	}
	now := d.Now()
	need := s.npend > 0
	for k := 0; k < len(s.list); {
		ds := s.list[k]
		j := 0
		for _, sd := range ds.senders {
			if sd.paused || sd.last >= now-s.P.Tau {
				ds.senders[j] = sd
				j++
				need = need || !sd.paused // to forget it after τ
			}
		}
		ds.senders = ds.senders[:j]
		if s.idle(ds, now) {
			s.drop(ds) // moves the last entry to k
			continue
		}
		k++
	}
	// Only pending credits and host ports to forget need ticks; windows,
	// VOQs and dst-pauses change with credits. Stop until then.
	if need {
		s.tick.Next(d, s, false)
	}
}

// sendCredits sends port i's pending counts that are not held back, in
// one frame per address family (more when they do not fit MaxFrame).
func (s *Switch) sendCredits(d *device.Device, i int) {
	c := &s.pend[i]
	pt := d.Ports()[i]
	for _, fam := range [2]uint8{4, 6} {
		a := 4
		if fam == 6 {
			a = 16
		}
		per := max((s.P.MaxFrame-14-8)/(4+a), 1)
		s.ents = s.ents[:0]
		for k := range c.list {
			e := &c.list[k]
			if e.n == 0 || family(e.dst) != fam {
				continue
			}
			if s.held(e.dst) {
				s.HeldTicks++
				continue
			}
			for e.n > 0 {
				v := min(e.n, math.MaxUint32)
				s.ents = append(s.ents, layers.CreditEntry{Credits: uint32(v), Dst: e.dst})
				e.n -= v
				if len(s.ents) == per {
					s.flushCredits(d, pt, fam)
				}
			}
		}
		if len(s.ents) > 0 {
			s.flushCredits(d, pt, fam)
		}
	}
	j := 0
	for _, e := range c.list {
		if e.n > 0 {
			c.idx[e.dst] = j
			c.list[j] = e
			j++
		} else {
			delete(c.idx, e.dst)
			s.npend--
		}
	}
	clear(c.list[j:])
	c.list = c.list[:j]
}

func (s *Switch) flushCredits(d *device.Device, pt *device.Port, fam uint8) {
	f, err := s.b.creditFrame(pt.MAC, fam, s.ents)
	if err != nil || d.Send(pt.ID, f) != nil {
		s.Errors++
	} else {
		s.CreditFrames++
		for _, e := range s.ents {
			s.CreditsSent += int64(e.Credits)
		}
	}
	s.ents = s.ents[:0]
}
