// SPDX-License-Identifier: Apache-2.0

package bts

import (
	"net/netip"

	"github.com/gopacket/gopacket"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/pfc"
)

// Params configures an SFC switch (behaviour.md §1). Zero values take the
// defaults.
type Params struct {
	// QTh is the queue trigger and QTg the target, in octets; defaults
	// 2 × BDP and 1 × BDP of the egress port, BDP = BaseRTT × port speed.
	QTh, QTg int64
	// BaseRTT is the base RTT the BDP is counted over; default 10 µs.
	BaseRTT int64
	// Reset is the suppression reset period; default BaseRTT / 2 (5 µs).
	Reset int64
	// Cache turns the near-source pause cache on.
	Cache bool
	// Estimator turns the incast estimator on; EstimatorWindow is its τ
	// (default BaseRTT).
	Estimator       bool
	EstimatorWindow int64
	// RemoteSpeed is `remote_speed`, the receiver port's speed R_remote in
	// bit/s that the incast estimator drains the remote queue at (its
	// depth and pause): default the speed of this switch's server-facing
	// ports (the lowest when they differ; the egress port's speed when the
	// switch has none). It is not the speed of the port the packet leaves
	// by: a 400G uplink toward 100G hosts still has a 100G bottleneck.
	RemoteSpeed int64
	// EstimatorRate is the former name of RemoteSpeed, used when
	// RemoteSpeed is 0.
	//
	// Deprecated: set RemoteSpeed.
	EstimatorRate int64
	// Latency is `bts_latency`, the BTS pipeline latency in ns (default 0):
	// a signal decided at ingress at time t is built, and leaves, at t_e =
	// t + Latency, from the queue depth at t_e.
	Latency int64
	// DSCP of generated BTS, default 48 (DSCPZero selects 0); Port is the
	// BTS UDP port, default 1021.
	DSCP     uint8
	DSCPZero bool
	Port     uint16
	// Reporter is the reporter id written into every signal.
	Reporter uint32
}

// Built describes a signal the switch built (Switch.OnBuilt): the data
// packet that triggered it, the depths the rule used and the signal.
type Built struct {
	Arrival int64 // ingress time of the triggering packet, ns
	At      int64 // t_e = Arrival + bts_latency, when the signal was built and left
	Flow    device.FlowKey
	InPort  int
	OutPort int   // the port of the queue q the packet joined
	Queue   int   // q's index at OutPort
	QD      int64 // depth of q just before the packet was enqueued
	QDE     int64 // qd_e: depth of q at t_e, the packet included
	CacheNs int64 // cache time left at ingress
	EstNs   int64 // the incast estimator's pause at ingress
	Signal  Signal
	ToPFC   bool // SFC-P turned the signal into a PFC frame for a local host
}

// Emitter builds the frame that carries a signal about trigger out of
// egress port out, in place of a BTS (cim.Emitter sends a CIM instead).
type Emitter func(d *device.Device, out *device.Port, trigger *device.Packet, s Signal) ([]byte, error)

type cacheKey struct {
	dst  netip.Addr
	dscp uint8
}

type dre struct {
	x    int64
	last int64 // period index of the last decay
}

// Switch is the SFC switch of behaviour.md §1 as a device.Scheme. On each
// data packet it takes the decision at ingress, from the depth qd the
// packet finds: the queue trigger, the pause cache and the optional incast
// estimator, with repeats per 5-tuple suppressed within a reset period. It
// builds the signal at t_e = now + bts_latency from qd_e, the depth of the
// packet's queue at t_e (the packet included), and sends it toward the
// packet's source ahead of data; the data packet itself is forwarded
// untouched. On a BTS with C set passing through it fills the cache.
type Switch struct {
	device.NopScheme
	P Params
	// Emit builds the signal frame; nil builds a BTS.
	Emit Emitter
	// Decoders read signals passing through (for the cache); nil means
	// DecodeBTS only.
	Decoders []Decoder
	// OnBuilt, when set, is called for every signal the switch builds, at
	// t_e, before it is sent (the conformance harness reads the
	// reference's decisions through it).
	OnBuilt func(Built)

	qth, qtg []int64 // per port index
	remote   int64   // R_remote, 0: the egress port's speed
	cache    map[cacheKey]int64
	pruneAt  int
	filter   map[device.FlowKey]struct{}
	period   int64
	est      map[netip.Addr]*dre
	buf      []byte
	ser      gopacket.SerializeBuffer
	pend     []*pending // signals waiting for t_e, in t_e order
	phead    int
	pfree    []*pending

	// Counters.
	Fired      int64    // decisions to signal, sent or suppressed
	Sent       [3]int64 // by origin: queue, cache, estimate
	Suppressed int64
	CacheHits  int64
	Converted  int64 // signals for local hosts that SFC-P turned into PFC
	Errors     int64 // signals that could not be built or routed
}

// pending is a signal decided at ingress and built at t_e.
type pending struct {
	b   Built
	trg device.Packet // the trigger: a copy of its frame and headers
	buf []byte
}

// timerBuild is the id of the timer that builds a pending signal.
const timerBuild = 0x5fc

// NewSwitch returns an SFC switch scheme with parameters p.
func NewSwitch(p Params) *Switch { return &Switch{P: p} }

// Attach validates the parameters (errors name the parameter and its
// range) and resolves the per-port defaults.
func (s *Switch) Attach(d *device.Device) error {
	p := &s.P
	if p.BaseRTT == 0 {
		p.BaseRTT = 10 * device.Microsecond
	}
	if err := device.CheckRange("sfc", "base_rtt", p.BaseRTT, 100, device.Second, " ns"); err != nil {
		return err
	}
	if p.Reset == 0 {
		p.Reset = p.BaseRTT / 2
	}
	if p.EstimatorWindow == 0 {
		p.EstimatorWindow = p.BaseRTT
	}
	if p.Port == 0 {
		p.Port = device.DefaultBTSPort
	}
	if p.DSCP == 0 && !p.DSCPZero {
		p.DSCP = DefaultDSCP
	}
	for _, e := range []error{
		device.CheckRange("sfc", "reset", p.Reset, 1, device.Second, " ns"),
		device.CheckRange("sfc", "q_th", p.QTh, 0, 0xFFFFFFFF, " octets"),
		device.CheckRange("sfc", "q_tg", p.QTg, 0, 0xFFFFFFFF, " octets"),
		device.CheckRange("sfc", "estimator_window", p.EstimatorWindow, 8, device.Second, " ns"),
		device.CheckRange("sfc", "remote_speed", p.RemoteSpeed, 0, 25_600_000_000_000, " bit/s"),
		device.CheckRange("sfc", "estimator_rate", p.EstimatorRate, 0, 25_600_000_000_000, " bit/s"),
		device.CheckRange("sfc", "bts_latency", p.Latency, 0, device.Second, " ns"),
		device.CheckRange("sfc", "dscp", int64(p.DSCP), 0, 63, ""),
	} {
		if e != nil {
			return e
		}
	}
	n := len(d.Ports())
	s.qth, s.qtg = make([]int64, n), make([]int64, n)
	for i, pt := range d.Ports() {
		bdp := p.BaseRTT * pt.Speed / 8 / device.Second
		s.qth[i], s.qtg[i] = p.QTh, p.QTg
		if s.qth[i] == 0 {
			s.qth[i] = 2 * bdp
		}
		if s.qtg[i] == 0 {
			s.qtg[i] = bdp
		}
		if s.qtg[i] > s.qth[i] {
			return device.CheckRange("sfc", "q_tg", s.qtg[i], 0, s.qth[i], " octets (at most q_th)")
		}
	}
	s.remote = p.RemoteSpeed
	if s.remote == 0 {
		s.remote = p.EstimatorRate
	}
	if s.remote == 0 {
		for _, pt := range d.Ports() {
			if pt.ServerFacing && (s.remote == 0 || pt.Speed < s.remote) {
				s.remote = pt.Speed
			}
		}
	}
	s.cache = map[cacheKey]int64{}
	s.filter = map[device.FlowKey]struct{}{}
	s.est = map[netip.Addr]*dre{}
	s.period = -1
	if s.Decoders == nil {
		s.Decoders = []Decoder{DecodeBTS}
	}
	return nil
}

// Thresholds returns Q_th and Q_tg in force for the port with id port.
func (s *Switch) Thresholds(d *device.Device, port int) (qth, qtg int64) {
	pt := d.Port(port)
	if pt == nil || s.qth == nil {
		return 0, 0
	}
	return s.qth[pt.Index()], s.qtg[pt.Index()]
}

// CacheTime returns how long the cache would pause a packet to (dst, dscp)
// now, in ns (0 when no entry is live).
func (s *Switch) CacheTime(now int64, dst netip.Addr, dscp uint8) int64 {
	if e, ok := s.cache[cacheKey{dst, dscp}]; ok && e > now {
		return e - now
	}
	return 0
}

// estimate updates the DRE of dst with n octets and returns its pause in ns.
// The DRE is decayed by 1/8 every τ/8, so it tracks the octets of the last
// τ; the estimated remote depth is that minus τ × R.
func (s *Switch) estimate(now int64, dst netip.Addr, n int, bps int64) int64 {
	tdre := max(s.P.EstimatorWindow/8, 1)
	e := s.est[dst]
	per := now / tdre
	if e == nil {
		e = &dre{last: per}
		s.est[dst] = e
	}
	for k := per - e.last; k > 0 && e.x > 0; k-- {
		e.x -= (e.x + 7) / 8
	}
	e.last = per
	e.x += int64(n)
	drain := s.P.EstimatorWindow * bps / 8 / device.Second
	if e.x <= drain {
		return 0
	}
	return device.BytesTime(e.x-drain, bps)
}

// RemoteSpeed returns R_remote, the receiver port speed the incast
// estimator assumes, once attached (0 means the egress port's speed).
func (s *Switch) RemoteSpeed() int64 { return s.remote }

// OnIngress applies Algorithm 1 to a data packet: the decision is taken
// here, from the depth qd the packet finds; the signal is built at t_e =
// now + bts_latency (at once when the latency is 0).
func (s *Switch) OnIngress(d *device.Device, p *device.Packet) device.Verdict {
	if p.Meta.Kind != device.KindData {
		return device.Pass
	}
	now := d.Now()
	pt := d.Port(p.OutPort)
	i := pt.Index()
	qd := pt.Queues[p.Queue].Bytes
	var cacheNs, estNs int64
	if s.P.Cache {
		k := cacheKey{p.Meta.Dst, p.Meta.DSCP}
		if e, ok := s.cache[k]; ok {
			if e > now {
				cacheNs = e - now
			} else {
				delete(s.cache, k)
			}
		}
	}
	if s.P.Estimator {
		r := s.remote
		if r == 0 {
			r = pt.Speed
		}
		estNs = s.estimate(now, p.Meta.Dst, len(p.Data), r)
	}
	queueFired := qd > s.qth[i]
	if !queueFired && cacheNs == 0 && estNs == 0 {
		return device.Pass
	}
	s.Fired++
	if per := now / s.P.Reset; per != s.period {
		s.period = per
		clear(s.filter)
	}
	ft := p.Meta.Flow().FiveTuple()
	if _, ok := s.filter[ft]; ok {
		s.Suppressed++
		return device.Pass
	}
	s.filter[ft] = struct{}{}
	sig := Signal{Reporter: s.P.Reporter, CPPort: layers.CPPortUnknown, CPQueue: p.Class, Cacheable: pt.ServerFacing}
	switch {
	case queueFired:
		sig.Origin = layers.OriginQueue
		sig.CPPort = uint16(pt.ID)
	case estNs > cacheNs:
		sig.Origin = layers.OriginEstimate
	default:
		sig.Origin = layers.OriginCache
		s.CacheHits++
	}
	b := Built{Arrival: now, At: now + s.P.Latency, Flow: p.Meta.Flow(), InPort: p.InPort, OutPort: pt.ID, Queue: p.Queue,
		QD: qd, CacheNs: cacheNs, EstNs: estNs, Signal: sig}
	if s.P.Latency == 0 {
		// t_e = now: the depth at t_e is qd with this packet enqueued.
		s.build(d, p, &b, qd+int64(len(p.Data)))
		return device.Pass
	}
	e := s.newPending()
	e.b = b
	e.buf = append(e.buf[:0], p.Data...)
	e.trg = device.Packet{Data: e.buf, Meta: p.Meta, InPort: p.InPort, Arrival: now, OutPort: p.OutPort, Class: p.Class, Queue: p.Queue}
	s.pend = append(s.pend, e)
	d.After(s.P.Latency, s, timerBuild, 0)
	return device.Pass
}

func (s *Switch) newPending() *pending {
	if n := len(s.pfree); n > 0 {
		e := s.pfree[n-1]
		s.pfree = s.pfree[:n-1]
		return e
	}
	return &pending{}
}

// OnTimer builds the oldest pending signal: its t_e has come (the latency
// is the same for all, so they come due in order).
func (s *Switch) OnTimer(d *device.Device, id int, _ int64) {
	if id != timerBuild || s.phead >= len(s.pend) {
		return
	}
	e := s.pend[s.phead]
	s.pend[s.phead] = nil
	s.phead++
	switch {
	case s.phead == len(s.pend):
		s.pend, s.phead = s.pend[:0], 0
	case s.phead > 64 && 2*s.phead > len(s.pend):
		// Under steady load the list never empties: drop the done head
		// so that memory follows the signals in flight, not the run.
		n := copy(s.pend, s.pend[s.phead:])
		clear(s.pend[n:])
		s.pend, s.phead = s.pend[:n], 0
	}
	pt := d.Port(e.b.OutPort)
	s.build(d, &e.trg, &e.b, pt.Queues[e.b.Queue].Bytes)
	e.trg = device.Packet{}
	s.pfree = append(s.pfree, e)
}

// build completes a signal at t_e from qd_e (behaviour.md §1 step 4) and
// sends it: pause = ceil(max(cache_time − bts_latency, max(0, qd_e − Q_tg)
// / R) / 1 µs), clamped to 65535; queue depth field = qd_e whatever the
// origin. A signal for a host behind an SFC-P port of this switch becomes
// a PFC frame (behaviour.md §3), as a signal that arrives does.
func (s *Switch) build(d *device.Device, trg *device.Packet, b *Built, qde int64) {
	pt := d.Port(b.OutPort)
	b.QDE = qde
	b.Signal.PauseUS = PauseUS(max(b.CacheNs, b.EstNs)-s.P.Latency, qde, s.qtg[pt.Index()], pt.Speed)
	b.Signal.QueueDepth = uint32(min(max(qde, 0), 0xFFFFFFFF))
	out := d.Port(d.Route(trg.Meta.Src))
	conv := sfcpFor(d, out)
	b.ToPFC = conv != nil
	if s.OnBuilt != nil {
		s.OnBuilt(*b)
	}
	switch {
	case out == nil:
		s.Errors++
	case conv != nil:
		conv.convert(d, out, trg.Meta.DSCP, b.Signal.PauseNs())
		s.Converted++
	default:
		s.emit(d, out, trg, b.Signal)
	}
}

// ToSFCP reports whether a signal for a packet from src would be turned
// into PFC by an SFC-P scheme of d (src is behind one of its SFC-P ports).
func (s *Switch) ToSFCP(d *device.Device, src netip.Addr) bool {
	return sfcpFor(d, d.Port(d.Route(src))) != nil
}

// sfcpFor returns the SFC-P scheme of d that is on for port out, or nil.
func sfcpFor(d *device.Device, out *device.Port) *SFCP {
	if out == nil {
		return nil
	}
	for _, x := range d.Schemes() {
		if c, ok := x.(*SFCP); ok && c.on != nil && c.on[out.Index()] {
			return c
		}
	}
	return nil
}

func (s *Switch) emit(d *device.Device, out *device.Port, p *device.Packet, sig Signal) {
	var f []byte
	var err error
	if s.Emit != nil {
		f, err = s.Emit(d, out, p, sig)
	} else {
		dst := out.PeerMAC
		if dst == (device.MAC{}) {
			copy(dst[:], p.Data[6:12])
		}
		if s.ser == nil {
			s.ser = gopacket.NewSerializeBuffer()
		}
		f, err = build(s.buf[:0], s.ser, p.Data, &p.Meta, sig, BuildOptions{SrcMAC: out.MAC, DstMAC: dst, DSCP: s.P.DSCP, DSCPZero: s.P.DSCPZero, Port: s.P.Port})
		s.buf = f[:0]
	}
	if err != nil || d.Send(out.ID, f) != nil {
		s.Errors++
		return
	}
	s.Sent[sig.Origin]++
}

// OnControl fills the cache from a signal with C set that passes through:
// cache[(signal IP source, quoted DSCP)] = max(entry, now + pause). The
// signal is then forwarded.
func (s *Switch) OnControl(d *device.Device, p *device.Packet) device.Verdict {
	if !s.P.Cache {
		return device.Pass
	}
	sig, ok := decode(s.Decoders, d, p)
	if !ok || !sig.Cacheable {
		return device.Pass
	}
	now := d.Now()
	k := cacheKey{sig.Src, sig.Flow.DSCP}
	if e := now + sig.PauseNs(); e > s.cache[k] {
		s.cache[k] = e
	}
	if len(s.cache) > 2*s.pruneAt+1024 {
		for k, e := range s.cache {
			if e <= now {
				delete(s.cache, k)
			}
		}
		s.pruneAt = len(s.cache)
	}
	return device.Pass
}

// NIC is the SFC NIC of behaviour.md §2: on a signal for flow F it sets
// pause_end[F] = now + pause (a later signal overwrites, pause 0 resumes)
// and consumes the signal. Flows are matched by the quoted 5-tuple plus
// the RoCEv2 DestQP.
type NIC struct {
	device.NopScheme
	// Decoders read the signals; nil means DecodeBTS only.
	Decoders []Decoder
	// Applied counts the signals acted on.
	Applied int64
}

// NewNIC returns an SFC NIC scheme.
func NewNIC() *NIC { return &NIC{} }

// Attach checks the device is a NIC.
func (n *NIC) Attach(d *device.Device) error {
	if d.Role() != device.RoleNIC {
		return &device.ParamError{Scope: "sfc", Name: "nic", Value: d.Role().String(), Allowed: "a NIC device"}
	}
	if n.Decoders == nil {
		n.Decoders = []Decoder{DecodeBTS}
	}
	return nil
}

// OnControl applies a signal to its flow.
func (n *NIC) OnControl(d *device.Device, p *device.Packet) device.Verdict {
	sig, ok := decode(n.Decoders, d, p)
	if !ok {
		return device.Pass
	}
	n.Applied++
	_ = d.PauseFlow(sig.FlowKey(), d.Now()+sig.PauseNs(), p.Meta.Kind.String())
	d.Free(p)
	return device.Take
}

// SFCP is SFC-P (behaviour.md §3) at a sender-side ToR: a signal whose IP
// destination is a host behind a server-facing port with SFC-P on is
// consumed and replaced by a PFC frame to that host for priority p = the
// class of the quoted DSCP, time[p] = ceil(pause × link speed / 512) quanta
// (clamped to 65535; pause 0 gives time 0, resume). Attach it after the
// Switch scheme so the cache still sees the signal.
type SFCP struct {
	device.NopScheme
	// Ports lists the server-facing ports with SFC-P on; empty means all.
	Ports []int
	// Decoders read the signals; nil means DecodeBTS only.
	Decoders []Decoder
	// Converted counts the signals that arrived and were turned into PFC
	// frames (Switch.Converted counts those the switch generated).
	Converted int64
	on        []bool
}

// Attach validates the port list.
func (c *SFCP) Attach(d *device.Device) error {
	c.on = make([]bool, len(d.Ports()))
	if len(c.Ports) == 0 {
		for i, pt := range d.Ports() {
			c.on[i] = pt.ServerFacing
		}
	}
	for _, id := range c.Ports {
		pt := d.Port(id)
		if pt == nil || !pt.ServerFacing {
			return &device.ParamError{Scope: "sfc-p", Name: "ports", Value: itoa(id), Allowed: "server-facing port ids of the device"}
		}
		c.on[pt.Index()] = true
	}
	if c.Decoders == nil {
		c.Decoders = []Decoder{DecodeBTS}
	}
	return nil
}

// OnControl converts a signal for a local host into PFC.
func (c *SFCP) OnControl(d *device.Device, p *device.Packet) device.Verdict {
	if p.Meta.Kind != device.KindBTS && p.Meta.Kind != device.KindCIM {
		return device.Pass
	}
	pt := d.Port(d.Route(p.Meta.Dst))
	if pt == nil || !c.on[pt.Index()] {
		return device.Pass
	}
	sig, ok := decode(c.Decoders, d, p)
	if !ok {
		return device.Pass
	}
	c.convert(d, pt, sig.Flow.DSCP, sig.PauseNs())
	c.Converted++
	d.Free(p)
	return device.Take
}

// convert sends the host behind port pt a PFC frame for the class of dscp
// with time = pauseNs in quanta at pt's speed.
func (c *SFCP) convert(d *device.Device, pt *device.Port, dscp uint8, pauseNs int64) {
	prio := d.ClassOf(dscp)
	var times [8]uint16
	times[prio] = pfc.NsToQuanta(pauseNs, pt.Speed)
	var buf [60]byte
	_ = d.Send(pt.ID, pfc.AppendFrame(buf[:0], pt.MAC, 1<<prio, times))
}

func itoa(i int) string {
	if i < 0 {
		return "-" + itoa(-i)
	}
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
