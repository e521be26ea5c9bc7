package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"net"
	"net/netip"

	"github.com/opensfc/sfc/bts"
	"github.com/opensfc/sfc/cim"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/pfc"
)

// IsNotExist reports whether err says a file does not exist.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// ---- SFC signals (BTS and CIM) ----

type refSig struct {
	t      int64
	no     int
	pause  uint16
	depth  uint32
	origin layers.Origin
	hasTLV bool
}

type sfcFlow struct {
	fires   []Firing
	sent    []refSig
	dev     []int64 // device signal times, for completeness
	trig    int64   // trigger arrival of the device's last signal
	hasTrig bool
	missing bool
	last    int64
}

type pendFire struct {
	t    int64
	port int
	flow device.FlowKey
}

type trigEntry struct {
	t        int64
	no       int
	iplen    int
	src, dst device.MAC
	vid      uint16
}

// sfcState checks the SFC signals (BTS, CIMs) of a device against the
// reference SFC switch's decisions.
type sfcState struct {
	k     *devChecker
	flows map[device.FlowKey]*sfcFlow
	pend  []pendFire
	phead int
	phase *phaseSet
	reset int64
	dscp  uint8
	cim   bool
	tlv   bool
	l2    bool
}

// trigIndex remembers the input packets of the last window by their first
// 64 octets, so that a signal's quote can be traced to the packet it
// quotes (quote content, trigger time).
type trigIndex struct {
	k     *devChecker
	ring  []trigItem // time-ordered; lookups (one per signal) scan it
	thead int
	qbuf  []byte
}

type trigItem struct {
	h uint64
	e trigEntry
}

func newSFCState(k *devChecker) *sfcState {
	s := &sfcState{k: k, flows: map[device.FlowKey]*sfcFlow{}, reset: k.m.SFC.P.Reset,
		dscp: k.m.SFC.P.DSCP, cim: k.c.Has(SchemeCIM), tlv: true}
	if v, ok := k.c.Params["cim_tlv"]; ok {
		s.tlv = v.Bool
	}
	if v, ok := k.c.Params["cim_l2"]; ok {
		s.l2 = v.Bool
	}
	s.phase = newPhaseSet(s.reset)
	return s
}

func (s *sfcState) flow(f device.FlowKey) *sfcFlow {
	x := s.flows[f]
	if x == nil {
		x = &sfcFlow{}
		s.flows[f] = x
	}
	return x
}

// quoteKey hashes the first min(len, 64) octets of an IP packet with the
// fields a switch may change on the way (TTL, ECN, IPv4 checksum) zeroed.
func (s *trigIndex) quoteKey(ip []byte) (uint64, bool) {
	n := min(len(ip), 64)
	if n < 20 {
		return 0, false
	}
	b := append(s.qbuf[:0], ip[:n]...)
	switch b[0] >> 4 {
	case 4:
		b[1] &^= 3
		b[8] = 0
		b[10], b[11] = 0, 0
	case 6:
		if n < 40 {
			return 0, false
		}
		b[1] &^= 0x30
		b[7] = 0
	default:
		return 0, false
	}
	s.qbuf = b
	return maphash.Bytes(s.k.seed, b), true
}

// index remembers an input packet so that signals quoting it can be
// traced to it (quote content, trigger time for the suppression phase).
func (s *trigIndex) index(r *record) {
	var m device.Meta
	device.Parse(r.data, &m, &s.k.cp)
	if m.Kind != device.KindData {
		return
	}
	ip := m.IPPacket(r.data)
	h, ok := s.quoteKey(ip)
	if !ok {
		return
	}
	var e trigEntry
	e.t, e.no, e.iplen, e.vid = r.t, r.no, len(ip), m.VID
	copy(e.dst[:], r.data[0:6])
	copy(e.src[:], r.data[6:12])
	s.ring = append(s.ring, trigItem{h, e})
}

func (s *trigIndex) lookup(quote []byte) (trigEntry, bool) {
	h, ok := s.quoteKey(quote)
	if !ok {
		return trigEntry{}, false
	}
	for i := len(s.ring) - 1; i >= s.thead; i-- {
		if s.ring[i].h == h {
			return s.ring[i].e, true
		}
	}
	return trigEntry{}, false
}

// refSignal takes a BTS or CIM the reference switch sent.
func (s *sfcState) refSignal(o device.Out, no int) {
	sig, hasTLV, err := decodeSFC(o.Frame, &s.k.cp)
	if err != nil {
		return
	}
	fl := s.flow(sig.FlowKey().FiveTuple())
	fl.sent = append(fl.sent, refSig{t: o.Time, no: no, pause: sig.PauseUS, depth: sig.QueueDepth, origin: sig.Origin, hasTLV: hasTLV})
	fl.last = o.Time
}

// refFire takes a decision (or a near miss) of the reference switch.
func (s *sfcState) refFire(f Firing) {
	if f.ToPFC {
		return // SFC-P sends PFC instead: checked with the PFC frames
	}
	key := f.Flow.FiveTuple()
	fl := s.flow(key)
	fl.fires = append(fl.fires, f)
	fl.last = f.Time
	firm := f.Fired && (f.Depth > f.QTh+s.k.depthTol[f.OutPort] || f.CacheNs > s.k.ptol)
	if firm {
		out := s.k.m.Dev.Route(f.Flow.Src)
		s.pend = append(s.pend, pendFire{t: f.Built, port: out, flow: key})
	}
}

// decodeSFC reads the SFC signal of a BTS or CIM frame; a CIM without the
// SFC TLV gives its flow and hasTLV false.
func decodeSFC(frame []byte, cp *device.Codepoints) (bts.Signal, bool, error) {
	var m device.Meta
	device.Parse(frame, &m, cp)
	switch m.Kind {
	case device.KindBTS:
		s, err := bts.Decode(frame, cp.BTSPort)
		return s, true, err
	case device.KindCIM:
		c, cm, err := cim.Decode(frame, cp.CIMPort)
		if err != nil {
			return bts.Signal{}, false, err
		}
		fl, ok := c.Flow()
		if !ok {
			return bts.Signal{}, false, cim.ErrNoFlow
		}
		if !c.HasSFC {
			s := bts.Signal{Flow: fl, Quote: c.MSDU, Src: cm.Src, Dst: cm.Dst}
			return s, false, nil
		}
		s, err := cim.ToSignal(frame, cp.CIMPort)
		return s, true, err
	}
	return bts.Signal{}, false, bts.ErrNotBTS
}

func (s *sfcState) prune(fl *sfcFlow, before int64) {
	i := 0
	for i < len(fl.fires) && fl.fires[i].Time < before {
		i++
	}
	if i > 0 {
		fl.fires = append(fl.fires[:0], fl.fires[i:]...)
	}
	i = 0
	for i < len(fl.sent) && fl.sent[i].t < before {
		i++
	}
	if i > 0 {
		fl.sent = append(fl.sent[:0], fl.sent[i:]...)
	}
}

// devSignal checks one BTS or CIM the device sent.
func (s *sfcState) devSignal(r *record, m *device.Meta) {
	k := s.k
	port := k.c.PortName(r.port)
	what := "bts"
	if m.Kind == device.KindCIM {
		what = "cim"
	}
	k.rep.checked(CheckJustified, 1)
	k.rep.checked(CheckFieldRules, 1)
	sig, hasTLV, err := decodeSFC(r.data, &k.cp)
	if err != nil {
		k.dev(Deviation{Check: CheckFieldRules, Frame: r.no, Port: port, Time: r.t, Field: what, Expected: "a well-formed signal naming a flow", Actual: err.Error()})
		return
	}
	key := sig.FlowKey().FiveTuple()
	fl := s.flow(key)
	s.prune(fl, r.t-k.tol)
	trig, found := k.trig.lookup(sig.Quote)
	s.fieldRules(r, m, &sig, hasTLV, trig, found)

	// Suppression: one clearing between two signals of a flow, one phase
	// for all flows.
	a, widen := r.t, k.tol
	if found {
		a, widen = trig.t, k.jitter
	}
	k.rep.checked(CheckSuppression, 1)
	if fl.hasTrig && a-fl.trig+2*widen < s.reset {
		lo, hi := fl.trig+1-widen, a+widen
		if !s.phase.require(lo, hi) {
			k.dev(Deviation{Check: CheckSuppression, Frame: r.no, Port: port, Time: r.t, Field: "flow " + key.String(),
				Expected: fmt.Sprintf("at most one signal per %s reset period", fmtTime(s.reset)),
				Actual:   fmt.Sprintf("signals triggered at %s and %s", fmtTime(fl.trig), fmtTime(a)),
				Detail:   "no filter-clearing phase is consistent with this and the device's earlier signals"})
			s.phase.restart(lo, hi)
		}
	}
	fl.trig, fl.hasTrig = a, true
	fl.dev = append(fl.dev, r.t)
	fl.missing = false
	fl.last = r.t

	// Justified: the reference fired (or nearly) for this flow then.
	var best *Firing
	bestD := int64(-1)
	for i := range fl.fires {
		f := &fl.fires[i]
		d := abs64(f.Built - r.t)
		if d <= k.tol && (bestD < 0 || d < bestD) {
			best, bestD = f, d
		}
	}
	var bestSent *refSig
	sd := int64(-1)
	for i := range fl.sent {
		x := &fl.sent[i]
		d := abs64(x.t - r.t)
		if d <= k.tol && (sd < 0 || d < sd) {
			bestSent, sd = x, d
		}
	}
	if best == nil && bestSent == nil {
		k.dev(Deviation{Check: CheckJustified, Frame: r.no, Port: port, Time: r.t, Field: what + " flow " + key.String(),
			Expected: "no signal (the reference neither sends nor suppresses one for this flow within the time tolerance)", Actual: describe(r.data, &k.cp)})
		return
	}
	// The reference's decision for the very packet the signal quotes, when
	// it has one, is what the signal is compared with; else every decision
	// within the time tolerance is a candidate. (The incast estimator's
	// pause is known only for the signals the reference sent.)
	var exact *Firing
	if found && !k.m.SFC.P.Estimator {
		for i := range fl.fires {
			if f := &fl.fires[i]; f.Time == trig.t {
				exact = f
			}
		}
	}
	cands := func(fn func(f *Firing)) {
		if exact != nil {
			fn(exact)
			return
		}
		for i := range fl.fires {
			if f := &fl.fires[i]; abs64(f.Built-r.t) <= k.tol {
				fn(f)
			}
		}
	}
	// Pause time: the closest of the candidates.
	if hasTLV {
		k.rep.checked(CheckPauseTime, 1)
		want, diff := -1, int64(math64)
		if bestSent != nil && exact == nil {
			want, diff = int(bestSent.pause), abs64(int64(bestSent.pause)-int64(sig.PauseUS))*device.Microsecond
		}
		cands(func(f *Firing) {
			if d := abs64(int64(f.PauseUS)-int64(sig.PauseUS)) * device.Microsecond; d < diff {
				want, diff = int(f.PauseUS), d
			}
		})
		if want >= 0 && diff > k.ptol {
			k.dev(Deviation{Check: CheckPauseTime, Frame: r.no, Port: port, Time: r.t, Field: what + ".pause_us",
				Expected: fmt.Sprintf("%d", want), Actual: fmt.Sprintf("%d", sig.PauseUS), Detail: fmt.Sprintf("tolerance %s", fmtTime(k.ptol))})
		}
	}
	// Queue depth of a BTS: qd_e, whatever the origin (behaviour.md §1).
	if m.Kind == device.KindBTS {
		k.rep.checked(CheckQueueDepth, 1)
		want, diff, tol := int64(-1), int64(math64), k.maxDepthTol
		if bestSent != nil && exact == nil {
			want, diff = int64(bestSent.depth), abs64(int64(bestSent.depth)-int64(sig.QueueDepth))
		}
		cands(func(f *Firing) {
			if d := abs64(f.DepthE - int64(sig.QueueDepth)); d < diff {
				want, diff, tol = f.DepthE, d, k.depthTol[f.OutPort]
			}
		})
		if want >= 0 && diff > tol {
			k.dev(Deviation{Check: CheckQueueDepth, Frame: r.no, Port: port, Time: r.t, Field: "bts.queue_depth",
				Expected: fmt.Sprint(want), Actual: fmt.Sprint(sig.QueueDepth), Detail: fmt.Sprintf("tolerance %d octets", tol)})
		}
	}
}

const math64 = 1<<63 - 1

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// fieldRules checks what a signal must say whatever the device's timing:
// swapped addresses, its port and DSCP, version and flags, the quote is
// the start of a packet the device received, it leaves toward the sender.
func (s *sfcState) fieldRules(r *record, m *device.Meta, sig *bts.Signal, hasTLV bool, trig trigEntry, found bool) {
	k := s.k
	port := k.c.PortName(r.port)
	bad := func(field, want, got, detail string) {
		k.dev(Deviation{Check: CheckFieldRules, Frame: r.no, Port: port, Time: r.t, Field: field, Expected: want, Actual: got, Detail: detail})
	}
	l3 := m.IP()
	if l3 {
		if m.Src != sig.Flow.Dst {
			bad("ip.src", sig.Flow.Dst.String(), m.Src.String(), "a signal comes from the congested receiver: the quoted packet's destination")
		}
		if m.Dst != sig.Flow.Src {
			bad("ip.dst", sig.Flow.Src.String(), m.Dst.String(), "a signal goes to the sender: the quoted packet's source")
		}
		want := s.dscp
		if m.DSCP != want {
			bad("ip.dscp", fmt.Sprint(want), fmt.Sprint(m.DSCP), "the configured signal DSCP")
		}
		if out := k.m.Dev.Route(m.Dst); out >= 0 && out != r.port {
			bad("egress port", k.c.PortName(out), port, "a signal leaves toward its IP destination")
		}
	}
	if pt := k.c.Port(r.port); pt != nil && pt.PeerMAC != (device.MAC{}) && !bytes.Equal(r.data[0:6], pt.PeerMAC[:]) {
		bad("eth.dst", pt.PeerMAC.String(), net.HardwareAddr(r.data[0:6]).String(), "the neighbour's MAC of the egress port")
	}
	if found {
		if n := min(trig.iplen, 64); m.Kind == device.KindBTS && len(sig.Quote) != n {
			bad("bts.quote_len", fmt.Sprint(n), fmt.Sprint(len(sig.Quote)), "a BTS quotes min(IP length, 64) octets")
		}
	} else {
		bad("quote", fmt.Sprintf("the start of a packet received in the last %s", fmtTime(k.win)), fmt.Sprintf("%d octets matching none", len(sig.Quote)), "quote content")
	}
	switch m.Kind {
	case device.KindBTS:
		b := r.data[m.Payload:]
		if b[0]>>4 != layers.BTSVersion {
			bad("bts.version", "1", fmt.Sprint(b[0]>>4), "")
		}
		if b[0]&0x0e != 0 {
			bad("bts.flags", "0x0 or 0x1 (C)", fmt.Sprintf("0x%x", b[0]&0x0f), "reserved flag bits set")
		}
		if !sig.Origin.Known() {
			bad("bts.origin", "queue, cache or estimate", sig.Origin.String(), "")
		}
		if sig.Origin == layers.OriginQueue && sig.CPPort != layers.CPPortUnknown {
			if cp := k.c.Port(int(sig.CPPort)); cp != nil && cp.ServerFacing != sig.Cacheable {
				bad("bts.cacheable", fmt.Sprint(cp.ServerFacing), fmt.Sprint(sig.Cacheable), fmt.Sprintf("C is set exactly when congestion port %d is server-facing", sig.CPPort))
			}
		}
	case device.KindCIM:
		c, _, err := cim.Decode(r.data, k.cp.CIMPort)
		if err != nil {
			return
		}
		if s.cim && hasTLV != s.tlv {
			bad("cim.ext", fmt.Sprint(s.tlv), fmt.Sprint(hasTLV), "the SFC pause TLV as configured (cim_tlv)")
		}
		if !c.Add {
			bad("cim.add", "true", "false", "")
		}
		if c.Version != 0 {
			bad("cim.version", "0", fmt.Sprint(c.Version), "")
		}
		if s.cim && s.l2 == l3 {
			bad("cim form", map[bool]string{true: "L2", false: "L3"}[s.l2], map[bool]string{true: "L3", false: "L2"}[l3], "cim_l2")
		}
		if found {
			if !bytes.Equal(c.DA, trig.dst[:]) {
				bad("cim.da", trig.dst.String(), net.HardwareAddr(c.DA).String(), "the offending frame's destination MAC")
			}
			if !bytes.Equal(c.SA, trig.src[:]) {
				bad("cim.sa", trig.src.String(), net.HardwareAddr(c.SA).String(), "the offending frame's source MAC")
			}
			if want := max(min(trig.iplen, 512), 48); len(c.MSDU) != want {
				bad("cim.msdu_len", fmt.Sprint(want), fmt.Sprint(len(c.MSDU)), "min(IP length, 512) padded to 48")
			}
		}
		if hasTLV && !sig.Origin.Known() {
			bad("cim.origin", "queue, cache or estimate", sig.Origin.String(), "")
		}
	}
}

// expire checks the completeness of reference decisions the device's
// capture has passed, and forgets old input packets.
func (s *sfcState) expire(all bool) {
	k := s.k
	lim := k.dlim
	for s.phead < len(s.pend) {
		p := s.pend[s.phead]
		if !all && p.t+k.tol > lim {
			break
		}
		s.phead++
		k.rep.checked(CheckComplete, 1)
		fl := s.flow(p.flow)
		from := p.t - (1+k.missed)*s.reset - k.tol
		i := 0
		for i < len(fl.dev)-1 && fl.dev[i] < from {
			i++
		}
		if i > 0 {
			fl.dev = append(fl.dev[:0], fl.dev[i:]...)
		}
		if len(fl.dev) > 0 && fl.dev[0] >= from && fl.dev[0] <= p.t+k.tol {
			continue
		}
		if fl.missing {
			continue
		}
		fl.missing = true
		k.dev(Deviation{Check: CheckComplete, Port: k.c.PortName(p.port), Time: p.t, Field: "flow " + p.flow.String(),
			Expected: fmt.Sprintf("a signal between %s and %s", fmtTime(from), fmtTime(p.t+k.tol)), Actual: "(none)",
			Detail: "the reference signals this congested flow; the device did not within the tolerance and its reset period"})
	}
	if s.phead > 1024 && s.phead*2 > len(s.pend) {
		n := copy(s.pend, s.pend[s.phead:])
		s.pend, s.phead = s.pend[:n], 0
	}
}

// expire forgets the input packets older than the window.
func (s *trigIndex) expire(all bool) {
	k := s.k
	lim := k.dlim
	for s.thead < len(s.ring) && (all || s.ring[s.thead].e.t+k.win < lim) {
		s.thead++
	}
	if s.thead > 4096 && s.thead*2 > len(s.ring) {
		n := copy(s.ring, s.ring[s.thead:])
		s.ring, s.thead = s.ring[:n], 0
	}
}

// gc forgets flows idle for longer than anything could look back.
func (s *sfcState) gc(lim int64) {
	k := s.k
	horizon := lim - k.win - (2+k.missed)*s.reset - 2*k.tol
	for key, fl := range s.flows {
		s.prune(fl, lim-k.tol)
		if fl.last < horizon && len(fl.fires) == 0 && len(fl.sent) == 0 {
			delete(s.flows, key)
		}
	}
}

// ---- PFC, PAUSE and Floodgate dst-pause ----

type pfcKey struct {
	port, prio int // prio 8: a PAUSE (all priorities); 9: a Floodgate dst-pause for dst
	dst        netip.Addr
	xon        bool
}

type pfcItem struct {
	t       int64
	no      int
	quanta  uint16 // quanta (PFC, PAUSE) or µs (dst-pause)
	key     pfcKey
	matched bool
}

type pfcQ struct{ items []*pfcItem }

// pfcState matches pause frames (PFC and PAUSE per port and priority,
// dst-pause per port and destination) one to one within the time
// tolerance.
type pfcState struct {
	q    map[pfcKey]*pfcQ
	ring []*pfcItem
	head int
}

func (p *pfcState) add(kind device.Kind, port, prio int, dst netip.Addr, v uint16, t int64, no int) {
	it := &pfcItem{t: t, no: no, quanta: v, key: pfcKey{port, prio, dst, v == 0}}
	x := p.q[it.key]
	if x == nil {
		x = &pfcQ{}
		p.q[it.key] = x
	}
	x.items = append(x.items, it)
	p.ring = append(p.ring, it)
}

func (p *pfcState) ref(k *devChecker, o device.Out, no int) {
	en, times, err := pfc.Decode(o.Frame)
	if err != nil {
		return
	}
	if o.Kind == device.KindPause {
		p.add(o.Kind, o.Port, 8, netip.Addr{}, times[0], o.Time, no)
		return
	}
	for c := 0; c < 8; c++ {
		if en&(1<<c) != 0 {
			p.add(o.Kind, o.Port, c, netip.Addr{}, times[c], o.Time, no)
		}
	}
}

func prioName(key pfcKey) string {
	switch key.prio {
	case 8:
		return "pause"
	case 9:
		return "fgpause " + key.dst.String()
	}
	return fmt.Sprintf("pfc.c%d", key.prio)
}

func (p *pfcState) dev(k *devChecker, r *record, m *device.Meta) {
	port := k.c.PortName(r.port)
	k.rep.checked(CheckFieldRules, 1)
	en, times, err := pfc.Decode(r.data)
	if err != nil {
		k.dev(Deviation{Check: CheckFieldRules, Frame: r.no, Port: port, Time: r.t, Field: m.Kind.String(), Expected: "a well-formed frame", Actual: err.Error()})
		return
	}
	if !bytes.Equal(r.data[0:6], pfc.MACControlDst[:]) {
		k.dev(Deviation{Check: CheckFieldRules, Frame: r.no, Port: port, Time: r.t, Field: "eth.dst", Expected: pfc.MACControlDst.String(), Actual: net.HardwareAddr(r.data[0:6]).String()})
	}
	if pt := k.c.Port(r.port); pt != nil && pt.MAC != (device.MAC{}) && !bytes.Equal(r.data[6:12], pt.MAC[:]) {
		k.dev(Deviation{Check: CheckFieldRules, Frame: r.no, Port: port, Time: r.t, Field: "eth.src", Expected: pt.MAC.String(), Actual: net.HardwareAddr(r.data[6:12]).String(), Detail: "the egress port's MAC"})
	}
	if m.Kind == device.KindPFC && len(r.data) > m.L3+2 && r.data[m.L3+2] != 0 {
		k.dev(Deviation{Check: CheckFieldRules, Frame: r.no, Port: port, Time: r.t, Field: "pfc.enable_vector", Expected: "high octet 0", Actual: fmt.Sprintf("0x%02x", r.data[m.L3+2])})
	}
	if m.Kind == device.KindPause {
		p.match(k, r, 8, netip.Addr{}, times[0])
		return
	}
	for c := 0; c < 8; c++ {
		if en&(1<<c) != 0 {
			p.match(k, r, c, netip.Addr{}, times[c])
		}
	}
}

// match pairs one pause item of the device with the reference's earliest
// unmatched one of the same kind within the time tolerance and compares
// the pause times.
func (p *pfcState) match(k *devChecker, r *record, prio int, dst netip.Addr, v uint16) {
	port := k.c.PortName(r.port)
	k.rep.checked(CheckJustified, 1)
	key := pfcKey{r.port, prio, dst, v == 0}
	x := p.q[key]
	var best *pfcItem
	if x != nil {
		for _, it := range x.items {
			if !it.matched && abs64(it.t-r.t) <= k.tol {
				best = it
				break
			}
		}
	}
	what, unit := "XOFF", "quanta"
	if prio == 9 {
		what, unit = "pause", "us"
	}
	if v == 0 {
		what = "XON"
		if prio == 9 {
			what = "resume"
		}
	}
	if best == nil {
		k.dev(Deviation{Check: CheckJustified, Frame: r.no, Port: port, Time: r.t, Field: prioName(key),
			Expected: "no " + what + " (none in the reference within the time tolerance)", Actual: fmt.Sprintf("%s, %d %s", what, v, unit)})
		return
	}
	best.matched = true
	k.rep.checked(CheckPauseTime, 1)
	var ns int64
	switch {
	case prio == 9 && (v == 0xFFFF || best.quanta == 0xFFFF) && v != best.quanta:
		ns = math64 // "until resumed" is no time
	case prio == 9:
		ns = abs64(int64(v)-int64(best.quanta)) * device.Microsecond
	default:
		speed := int64(100 * device.Gbps)
		if pt := k.c.Port(r.port); pt != nil {
			speed = pt.Speed
		}
		ns = pfc.QuantaToNs(uint16(min(abs64(int64(v)-int64(best.quanta)), 0xFFFF)), speed)
	}
	if ns > k.ptol {
		k.dev(Deviation{Check: CheckPauseTime, Frame: r.no, Ref: best.no, Port: port, Time: r.t, Field: prioName(key) + " " + unit,
			Expected: fmt.Sprint(best.quanta), Actual: fmt.Sprint(v), Detail: fmt.Sprintf("tolerance %s", fmtTime(k.ptol))})
	}
	for len(x.items) > 0 && x.items[0].matched {
		x.items = x.items[1:]
	}
}

func (p *pfcState) expire(k *devChecker, all bool) {
	for p.head < len(p.ring) {
		it := p.ring[p.head]
		if !all && it.t+k.tol >= k.dlim {
			break
		}
		p.head++
		k.rep.checked(CheckComplete, 1)
		if it.matched {
			continue
		}
		it.matched = true
		what, unit := "XOFF", "quanta"
		if it.key.prio == 9 {
			what, unit = "pause", "us"
		}
		if it.key.xon {
			what = map[bool]string{true: "resume", false: "XON"}[it.key.prio == 9]
		}
		k.dev(Deviation{Check: CheckComplete, Ref: it.no, Port: k.c.PortName(it.key.port), Time: it.t, Field: prioName(it.key),
			Expected: fmt.Sprintf("%s, %d %s", what, it.quanta, unit), Actual: "(none)", Detail: "the reference sends this pause frame; the device did not within the time tolerance"})
		if x := p.q[it.key]; x != nil {
			for len(x.items) > 0 && x.items[0].matched {
				x.items = x.items[1:]
			}
		}
	}
	if p.head > 1024 && p.head*2 > len(p.ring) {
		n := copy(p.ring, p.ring[p.head:])
		p.ring, p.head = p.ring[:n], 0
	}
}

// ---- other generated frames (compared as frames, by time) ----

type genKey struct {
	port int
	kind device.Kind
}

type genItem struct {
	t       int64
	no      int
	key     genKey
	data    []byte
	matched bool
}

type genState struct {
	q    map[genKey][]*genItem
	ring []*genItem
	head int
}

func (g *genState) ref(k *devChecker, o device.Out, no int) {
	it := &genItem{t: o.Time, no: no, key: genKey{o.Port, o.Kind}, data: append([]byte(nil), o.Frame...)}
	if g.q == nil {
		g.q = map[genKey][]*genItem{}
	}
	g.q[it.key] = append(g.q[it.key], it)
	g.ring = append(g.ring, it)
}

func (g *genState) dev(k *devChecker, r *record, m *device.Meta) {
	port := k.c.PortName(r.port)
	k.rep.checked(CheckJustified, 1)
	key := genKey{r.port, m.Kind}
	var near *genItem
	for _, it := range g.q[key] {
		if it.matched || abs64(it.t-r.t) > k.tol {
			continue
		}
		if k.sameBytes(it.data, r.data) {
			it.matched = true
			g.trim(key)
			return
		}
		if near == nil {
			near = it
		}
	}
	if near == nil {
		k.dev(Deviation{Check: CheckJustified, Frame: r.no, Port: port, Time: r.t, Field: m.Kind.String(),
			Expected: "no such frame (none in the reference within the time tolerance)", Actual: describe(r.data, &k.cp)})
		return
	}
	near.matched = true
	if k.df == nil {
		k.df = newDiffer(k.c.Device.Codepoints)
	}
	for _, fd := range k.df.diff(near.data, r.data, 8, k.vol) {
		k.dev(Deviation{Check: CheckFieldRules, Frame: r.no, Ref: near.no, Port: port, Time: r.t, Field: fd.Field, Expected: fd.Expected, Actual: fd.Actual})
	}
	g.trim(key)
}

func (g *genState) trim(key genKey) {
	x := g.q[key]
	for len(x) > 0 && x[0].matched {
		x = x[1:]
	}
	if len(x) == 0 {
		delete(g.q, key)
		return
	}
	g.q[key] = x
}

func (g *genState) expire(k *devChecker, all bool) {
	for g.head < len(g.ring) {
		it := g.ring[g.head]
		if !all && it.t+k.tol >= k.dlim {
			break
		}
		g.head++
		k.rep.checked(CheckComplete, 1)
		if it.matched {
			continue
		}
		it.matched = true
		k.dev(Deviation{Check: CheckComplete, Ref: it.no, Port: k.c.PortName(it.key.port), Time: it.t, Field: it.key.kind.String(),
			Expected: describe(it.data, &k.cp), Actual: "(none)", Detail: "the reference sends this frame; the device did not within the time tolerance"})
		g.trim(it.key)
	}
	if g.head > 1024 && g.head*2 > len(g.ring) {
		n := copy(g.ring, g.ring[g.head:])
		g.ring, g.head = g.ring[:n], 0
	}
}
