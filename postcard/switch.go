// SPDX-License-Identifier: Apache-2.0

package postcard

import (
	"math"

	"github.com/opensfc/sfc/device"
)

// arrival is one data frame received for a port, for the T_Δ window.
type arrival struct {
	t      int64
	n      int64
	marked bool
}

// history is one output port's view: octets received in the last N
// complete slots and the depth at each one's start (ring, oldest at pos),
// the current slot's octets and starting depth, and the arrivals of the
// last T_Δ.
type history struct {
	speed  int64
	tDelta int64
	in     []int64
	q      []int64
	pos    int
	cur    int64
	curQ   int64
	ring   []arrival
	head   int
	n      int
	recent int64
	marked int64
	idle   bool // steady: no octets in the history, every Q^i the current depth
}

// Switch is the PB-FS switch of behaviour.md §8 as a device.Scheme. Per
// output port it keeps, over slots of DC_RTT / (2N) aligned to time 0,
// the octets of data received for the port in each of the last N complete
// slots (I^1 oldest .. I^N newest) and the port's queue depth at each
// slot's start (Q^1 the oldest), plus the octets and marked octets
// received in the last T_Δ = Δ × MTU / R_s (R_s the senders' line rate,
// SwitchParams.SenderRate). On a marked data packet it
// predicts I_p = Σ I^i + N × I^N and, when I_p > T × DC_RTT − Q^1, sends a
// CC-postcard with its assessment and a quote of the packet to the
// packet's source, in the control class. The packet itself is forwarded
// unchanged.
type Switch struct {
	device.NopScheme
	// P holds the parameters; Attach fills in the defaults.
	P SwitchParams

	ports []history
	slot  int64 // index of the current slot
	timer bool  // a slot timer is scheduled
	ctrl  int
	sid   [6]byte
	buf   []byte
	b     builder
	scrIn []int64

	// Counters.
	Marked    int64 // marked data packets assessed
	Postcards int64 // CC-postcards sent
	Errors    int64 // postcards that could not be built or routed
}

// NewSwitch returns a PB-FS switch scheme with parameters p.
func NewSwitch(p SwitchParams) *Switch { return &Switch{P: p} }

// Attach validates the parameters and sizes the per-port history.
func (s *Switch) Attach(d *device.Device) error {
	if d.Role() != device.RoleSwitch {
		return &device.ParamError{Scope: "pbfs", Name: "switch", Value: d.Role().String(), Allowed: "a switch device"}
	}
	if err := s.P.resolve(d); err != nil {
		return err
	}
	s.ports = make([]history, len(d.Ports()))
	rs := s.P.SenderRate
	if rs == 0 {
		for _, pt := range d.Ports() {
			if pt.ServerFacing && (rs == 0 || pt.Speed < rs) {
				rs = pt.Speed
			}
		}
	}
	for i, pt := range d.Ports() {
		h := &s.ports[i]
		h.speed = pt.Speed
		r := rs
		if r == 0 {
			r = pt.Speed
		}
		h.tDelta = TDelta(s.P.Delta, s.P.MTU, r)
		h.in = make([]int64, s.P.Slots)
		h.q = make([]int64, s.P.Slots)
		h.idle = true
	}
	s.ctrl = int(d.ControlClass())
	s.sid = s.P.SwitchID
	s.scrIn = make([]int64, s.P.Slots)
	s.slot = s.slotOf(d.Now())
	return nil
}

// TDelta returns T_Δ = Δ × MTU × 8 / R_s in ns (at least 1): the time a
// sender at R_s bit/s takes to send Δ full-size frames of mtu octets.
// Δ = 6, MTU 1,078 octets, R_s = 100 Gb/s: 517 ns (517.44); at 25 Gb/s,
// the PB-FS paper's hosts, 2,069 ns.
func TDelta(delta int, mtu, rs int64) int64 {
	if rs <= 0 {
		return 1
	}
	return max(device.MulDiv(int64(delta)*mtu*8, device.Second, rs), 1)
}

// SenderWindow returns T_Δ in force for the port with id port (0 for an
// unknown port).
func (s *Switch) SenderWindow(d *device.Device, port int) int64 {
	pt := d.Port(port)
	if pt == nil || s.ports == nil {
		return 0
	}
	return s.ports[pt.Index()].tDelta
}

// SlotStart returns the time slot k starts: ceil(k × DC_RTT / (2N))
// (slot 1 starts at 1,563 ns with the defaults).
func (s *Switch) SlotStart(k int64) int64 {
	v := device.MulDiv(k, s.P.DCRTT, 2*int64(s.P.Slots))
	if v < math.MaxInt64 && device.MulDiv(v, 2*int64(s.P.Slots), 1) != device.MulDiv(k, s.P.DCRTT, 1) {
		v++
	}
	return v
}

func (s *Switch) slotOf(t int64) int64 { return device.MulDiv(t, 2*int64(s.P.Slots), s.P.DCRTT) }

// depth is the port's queue depth: every egress queue but the control
// class (generated signals).
func (s *Switch) depth(pt *device.Port) int64 {
	var v int64
	for i := range pt.Queues {
		if i != s.ctrl {
			v += pt.Queues[i].Bytes
		}
	}
	return v
}

// roll completes the slots that ended at or before now. The slot timer
// runs while any port's history is changing, so a roll over more than one
// slot only happens after a steady spell: no arrival and a constant depth,
// which is what the skipped slots record.
func (s *Switch) roll(d *device.Device, now int64) {
	k := s.slotOf(now)
	if k <= s.slot {
		return
	}
	steps := k - s.slot
	for i := range s.ports {
		h := &s.ports[i]
		d0 := s.depth(d.Ports()[i])
		n := steps
		if n > int64(len(h.in)) {
			n = int64(len(h.in))
			h.cur, h.curQ = 0, d0
		}
		for j := int64(0); j < n; j++ {
			h.in[h.pos], h.q[h.pos] = h.cur, h.curQ
			h.pos = (h.pos + 1) % len(h.in)
			h.cur, h.curQ = 0, d0
		}
		h.idle = allZero(h.in) && allEqual(h.q, d0)
	}
	s.slot = k
}

func allEqual(v []int64, x int64) bool {
	for _, y := range v {
		if y != x {
			return false
		}
	}
	return true
}

func allZero(v []int64) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

func (s *Switch) armTimer(d *device.Device) {
	if s.timer {
		return
	}
	s.timer = true
	d.AfterBackground(s.SlotStart(s.slot+1)-d.Now(), s, 1, s.slot+1)
}

// OnTimer samples the queue depths at a slot boundary. The timer stops
// once every port is steady (no octets in its history, every Q^i equal to
// its depth) and restarts with the next frame that joins or leaves a data
// queue, so a port frozen by a pause or a long silence costs nothing.
func (s *Switch) OnTimer(d *device.Device, id int, arg int64) {
	s.timer = false
	s.roll(d, d.Now())
	for i := range s.ports {
		if !s.ports[i].idle {
			s.armTimer(d)
			return
		}
	}
}

// Assessment returns what the switch would put in a postcard about the
// port with id port now (I_p, Q^1, recent and marked octets).
func (s *Switch) Assessment(d *device.Device, port int) Assessment {
	pt := d.Port(port)
	if pt == nil || s.ports == nil {
		return Assessment{}
	}
	s.roll(d, d.Now())
	h := &s.ports[pt.Index()]
	h.prune(d.Now())
	return s.assess(h)
}

func (s *Switch) assess(h *history) Assessment {
	n := len(h.in)
	for i := 0; i < n; i++ {
		s.scrIn[i] = h.in[(h.pos+i)%n]
	}
	return Assessment{RateMbps: h.speed / 1_000_000, WindowNS: s.P.DCRTT, IP: PredictIP(s.scrIn), Q1: h.q[h.pos],
		Recent: h.recent, RecentMarked: h.marked}
}

func (h *history) prune(now int64) {
	for h.n > 0 {
		a := &h.ring[h.head]
		if a.t > now-h.tDelta {
			break
		}
		h.recent -= a.n
		if a.marked {
			h.marked -= a.n
		}
		h.head = (h.head + 1) % len(h.ring)
		h.n--
	}
}

func (h *history) add(a arrival) {
	if h.n == len(h.ring) {
		nr := make([]arrival, max(16, 2*len(h.ring)))
		for i := 0; i < h.n; i++ {
			nr[i] = h.ring[(h.head+i)%len(h.ring)]
		}
		h.ring, h.head = nr, 0
	}
	h.ring[(h.head+h.n)%len(h.ring)] = a
	h.n++
	h.recent += a.n
	if a.marked {
		h.marked += a.n
	}
}

// Marked reports whether a data frame carries the PBT mark.
func marked(frame []byte, m *device.Meta, mask uint8) bool {
	if m.L3+2 > len(frame) {
		return false
	}
	switch m.IPVersion {
	case 4:
		return frame[m.L3+1]&mask != 0
	case 6:
		tc := frame[m.L3]<<4 | frame[m.L3+1]>>4
		return tc&mask != 0
	}
	return false
}

// OnEnqueue restarts the slot timer before a queue grows.
func (s *Switch) OnEnqueue(d *device.Device, p *device.Packet) device.Verdict {
	if p.Queue != s.ctrl {
		s.roll(d, d.Now())
		s.wake(d, p.OutPort)
	}
	return device.Pass
}

// OnDequeue restarts the slot timer before a queue shrinks (the depth
// falls when the frame's last bit leaves).
func (s *Switch) OnDequeue(d *device.Device, p *device.Packet) {
	if p.Queue != s.ctrl {
		s.roll(d, d.Now())
		s.wake(d, p.OutPort)
	}
}

func (s *Switch) wake(d *device.Device, port int) {
	if pt := d.Port(port); pt != nil {
		s.ports[pt.Index()].idle = false
	}
	s.armTimer(d)
}

// OnIngress records a data frame for its output port and, when it is
// marked, applies the congestion test.
func (s *Switch) OnIngress(d *device.Device, p *device.Packet) device.Verdict {
	if p.Meta.Kind != device.KindData || p.InPort < 0 {
		return device.Pass
	}
	pt := d.Port(p.OutPort)
	if pt == nil {
		return device.Pass
	}
	now := d.Now()
	s.roll(d, now)
	h := &s.ports[pt.Index()]
	n := int64(len(p.Data))
	mk := marked(p.Data, &p.Meta, s.P.MarkMask)
	h.cur += n
	h.idle = false
	h.prune(now)
	h.add(arrival{t: now, n: n, marked: mk})
	s.armTimer(d)
	if !mk {
		return device.Pass
	}
	s.Marked++
	a := s.assess(h)
	if Congested(a.IP, a.Q1, h.speed, s.P.DCRTT) {
		s.send(d, pt, p, a)
	}
	return device.Pass
}

// send builds the CC-postcard about port pt for the marked packet p and
// sends it toward p's source.
func (s *Switch) send(d *device.Device, pt *device.Port, p *device.Packet, a Assessment) {
	out := d.Port(d.Route(p.Meta.Src))
	if out == nil {
		s.Errors++
		return
	}
	src := s.P.Addr4
	if p.Meta.IPVersion == 6 {
		src = s.P.Addr6
	}
	dstMAC := out.PeerMAC
	if dstMAC == (device.MAC{}) && len(p.Data) >= 12 {
		copy(dstMAC[:], p.Data[6:12])
	}
	f, err := s.b.build(s.buf[:0], p.Data, &p.Meta, a, BuildOptions{SrcMAC: out.MAC, DstMAC: dstMAC, Src: src, SwitchID: s.P.SwitchID,
		Port: uint16(pt.ID), DSCP: s.P.DSCP, DSCPZero: s.P.DSCP == 0, UDPPort: s.P.Port})
	if f != nil {
		s.buf = f[:0]
	}
	if err != nil || d.Send(out.ID, f) != nil {
		s.Errors++
		return
	}
	s.Postcards++
}
