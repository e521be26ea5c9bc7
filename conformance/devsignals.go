// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"math"
	"net"
	"net/netip"
	"slices"
	"sort"
	"strconv"

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
	data   []byte
}

// fireRec is a decision of the reference and whether a device signal
// was matched to it.
type fireRec struct {
	Firing
	used bool
}

// portVal is a time-varying value the reference gives at an instant: the
// pause time and queue depth for a congestion port (rule 4).
type portVal struct {
	t     int64
	pause uint16
	depth int64
	port  int
}

type sfcFlow struct {
	fires   []fireRec
	sent    []refSig
	tmpl    []byte // the reference's last signal for the flow
	tmplT   int64
	firstOK bool     // the flow's first firm decision was seen
	dev     []devSig // the device's signals, for completeness
	// trigs are the trigger arrivals of the device's recent signals in
	// trigger order (not departure order: rule 6 lets a signal leave
	// late or early, so two may leave swapped), for the suppression phase
	trigs   []int64
	missing bool
	last    int64
}

// devSig is a device signal as completeness sees it: the arrival of the
// packet it quotes (exact), or its own time when the quote names none.
type devSig struct {
	t     int64
	exact bool
}

type pendFire struct {
	t     int64
	trig  int64 // arrival of the packet the decision is about
	port  int
	flow  device.FlowKey
	first bool
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
	vals  []portVal // time-ordered values of rule 4, over the window
	vhead int
	lat   int64 // the reference's signal latency (sent − decision)
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
	k *devChecker
	// pkts holds the input's packets of the window in time order;
	// lookups (one per signal) scan it from the latest. A packet older
	// than the window at the last expire (e.t + win < cut) counts as gone
	// but leaves the ring only when index needs its slot: its line is
	// read then, as it is written, not once more by expire a window
	// after it was written.
	pkts ring[trigItem]
	cut  int64
	qbuf []byte
}

// gone reports whether packet x left the window at the last expire.
func (s *trigIndex) gone(x *trigItem) bool { return x.e.t+s.k.win < s.cut }

func (s *trigIndex) at(n uint64) *trigItem { return s.pkts.at(n) }

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
// m is the packet parsed.
func (s *trigIndex) index(r *record, m *device.Meta) {
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
	if s.pkts.tail-s.pkts.head == uint64(len(s.pkts.buf)) {
		// Full: the packets gone leave first (the oldest is in the slot
		// written next), and the ring grows only when none is.
		for s.pkts.head < s.pkts.tail && s.gone(s.at(s.pkts.head)) {
			s.pkts.head++
		}
	}
	*s.at(s.pkts.push(1024)) = trigItem{h, e}
}

func (s *trigIndex) lookup(quote []byte) (trigEntry, bool) {
	return s.lookupBefore(quote, math.MaxInt64)
}

// lookupBefore is lookup among the packets that arrived at or before t:
// a signal's cause cannot come after it, and a later copy of the quoted
// packet (a retransmission) must not stand for it.
func (s *trigIndex) lookupBefore(quote []byte, t int64) (trigEntry, bool) {
	h, ok := s.quoteKey(quote)
	if !ok {
		return trigEntry{}, false
	}
	for n := s.pkts.tail; n > s.pkts.head; n-- {
		x := s.at(n - 1)
		if s.gone(x) {
			break // (and every packet before it: they are in time order)
		}
		if x.h == h && x.e.t <= t {
			return x.e, true
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
	var m0 device.Meta
	device.Parse(o.Frame, &m0, &s.k.cp)
	fl := s.flow(sig.FlowKey().FiveTuple())
	data := append([]byte(nil), o.Frame...)
	fl.sent = append(fl.sent, refSig{t: o.Time, no: no, pause: sig.PauseUS, depth: sig.QueueDepth, origin: sig.Origin, hasTLV: hasTLV, data: data})
	fl.tmpl, fl.tmplT = data, o.Time
	fl.last = o.Time
	if s.k.trig != nil {
		if trig, ok := s.k.trig.lookup(sig.Quote); ok && o.Time >= trig.t {
			s.lat = o.Time - trig.t
		}
	}
	port := int(sig.CPPort)
	if sig.CPPort == layers.CPPortUnknown || m0.Kind == device.KindCIM {
		port = s.k.m.Dev.Route(sig.Flow.Dst) // the quoted packet's egress
	}
	s.vals = append(s.vals, portVal{t: o.Time, pause: sig.PauseUS, depth: int64(sig.QueueDepth), port: port})
}

// fireDepth is the queue depth a signal for decision f carries: the one
// place device mode reads it from a Firing.
func fireDepth(f *Firing) int64 { return f.DepthE }

// at is when the reference's signal for decision f leaves: t_e (the
// decision plus bts_latency), or later when the reference was seen to
// take longer (a frame in transmission on the port toward the sender).
func (s *sfcState) at(f *Firing) int64 {
	t := f.Time + s.lat
	if f.Built > t {
		t = f.Built
	}
	return t
}

// quoteCause checks that the packet a device signal quotes could have
// caused it (rule 3: the quote is a field; behaviour.md §1 step 3: a
// signal is built only for a packet that finds the queue over Q_th, hits
// the pause cache or fires the estimator). The switch may signal another
// packet of the flow than the reference's, one its own suppression phase
// let through, but only one the reference's rule fires for (or finds
// within tolerances.queue_depth of Q_th): a quote of a packet that found
// the queue below that, which no phase can explain, is an SFC-*-FIELDS
// deviation, even where the signal's time is within tolerance.
func (s *sfcState) quoteCause(r *record, m *device.Meta, fl *sfcFlow, trig trigEntry) {
	for i := range fl.fires {
		if fl.fires[i].Time == trig.t {
			return
		}
	}
	field := "bts.quote"
	if m.Kind == device.KindCIM {
		field = "cim.msdu"
	}
	s.k.dev(Deviation{Check: s.k.sfcFam() + "-FIELDS", Frame: r.no, Port: s.k.c.PortName(r.port), Time: r.t, Field: field,
		Expected: "a packet the reference's rule fires for (queue over Q_th, a pause-cache hit or the estimator)",
		Actual:   fmt.Sprintf("input frame %d, which arrived at %s and found the queue below Q_th", trig.no, fmtTime(trig.t)),
		Detail:   "no suppression phase explains a signal for a packet the rule does not fire for", definite: true})
}

// refFire takes a decision (or a near miss) of the reference switch.
func (s *sfcState) refFire(f Firing) {
	if f.ToPFC {
		return // SFC-P sends PFC instead: checked with the PFC frames
	}
	key := f.Flow.FiveTuple()
	fl := s.flow(key)
	fl.fires = append(fl.fires, fireRec{Firing: f})
	fl.last = f.Time
	s.vals = append(s.vals, portVal{t: s.at(&f), pause: f.PauseUS, depth: fireDepth(&f), port: f.OutPort})
	if f.Fired {
		// No depth slack (rule 5): every decision to signal counts.
		out := s.k.m.Dev.Route(f.Flow.Src)
		s.pend = append(s.pend, pendFire{t: s.at(&f), trig: f.Time, port: out, flow: key, first: !fl.firstOK})
		fl.firstOK = true
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
	fam := k.sfcFam()
	port := k.c.PortName(r.port)
	what := "bts"
	if m.Kind == device.KindCIM {
		what = "cim"
	}
	k.rep.checked(fam+"-JUSTIFIED", 1)
	k.rep.checked(fam+"-FIELDS", 1)
	sig, hasTLV, err := decodeSFC(r.data, &k.cp)
	if err != nil {
		k.dev(Deviation{Check: fam + "-FIELDS", Frame: r.no, Port: port, Time: r.t, Field: what, Expected: "a well-formed signal naming a flow", Actual: err.Error()})
		return
	}
	key := sig.FlowKey().FiveTuple()
	fl := s.flow(key)
	s.prune(fl, r.t-k.win)
	// The quoted packet: the latest copy that arrived before the signal,
	// so that a later copy of it (a retransmission) does not stand for its
	// cause; else one within the early tolerance after it (a clock
	// offset); else a later one, which the timing rule finds it early for.
	trig, found := k.trig.lookupBefore(sig.Quote, r.t)
	if !found {
		trig, found = k.trig.lookupBefore(sig.Quote, r.t+k.early)
	}
	if !found {
		trig, found = k.trig.lookup(sig.Quote)
	}
	wrongPort := s.fieldRules(r, m, &sig, hasTLV, trig, found)
	k.checksums(fam+"-FIELDS", r, m)
	if wrongPort {
		// Unjustified (fieldRules said so); the reference's signal on the
		// right port stays unmatched and is reported missing.
		return
	}
	if found && trig.t >= r.t-k.win {
		s.quoteCause(r, m, fl, trig)
	}

	// Justified (rule 7): the reference decision this signal stands for:
	// the one for the very packet it quotes, else the nearest in reach.
	var best *fireRec
	if found {
		for i := range fl.fires {
			if f := &fl.fires[i]; f.Time == trig.t && f.Fired {
				best = f
			}
		}
	}
	if best == nil {
		bestD, inTol := int64(-1), false
		for i := range fl.fires {
			f := &fl.fires[i]
			rt := s.at(&f.Firing)
			if !f.Fired || !k.reach(r.t, rt) {
				continue
			}
			it := k.inTol(r.t, rt)
			d := abs64(rt - r.t)
			if best == nil || it && !inTol || it == inTol && (d < bestD || d == bestD && best.used && !f.used) {
				best, bestD, inTol = f, d, it
			}
		}
	}
	if best == nil {
		k.dev(Deviation{Check: fam + "-JUSTIFIED", Frame: r.no, Port: port, Time: r.t, Field: what + " flow " + key.String(),
			Expected: "no signal (the reference neither sends nor suppresses one for this flow within reach)", Actual: describe(r.data, &k.cp)})
		return
	}
	if best.used {
		k.dev(Deviation{Check: fam + "-JUSTIFIED", Frame: r.no, Port: port, Time: r.t, Field: what + " flow " + key.String(),
			Expected: fmt.Sprintf("one signal for the reference's decision at %s", fmtTime(best.Time)), Actual: "a second one (duplicate)", Detail: describe(r.data, &k.cp)})
		return
	}
	best.used = true
	refT := s.at(&best.Firing)
	k.rep.checked(fam+"-TIMING", 1)
	k.timingOf(fam+"-TIMING", r, 0, refT, what, found) // paired by its quote: no drop shifts it

	// Suppression: one clearing between two signals of a flow, one phase
	// for all flows.
	a, widen := r.t, k.tol
	if found {
		a, widen = trig.t, k.jitter
	}
	// The signals are taken in the order of their triggers, whatever the
	// order they left in: the new one needs a clearing after the latest
	// earlier trigger of the flow and another before the next later one
	// (which together imply the clearing those two needed).
	k.rep.checked(fam+"-SUPPRESS", 1)
	s.pruneTrigs(fl, r.t)
	i := sort.Search(len(fl.trigs), func(i int) bool { return fl.trigs[i] > a })
	reported := false
	if i > 0 {
		reported = s.suppress(r, key, fl.trigs[i-1], a, widen)
	}
	if i < len(fl.trigs) {
		reported = s.suppress(r, key, a, fl.trigs[i], widen) || reported
	}
	fl.trigs = slices.Insert(fl.trigs, i, a)
	if !reported {
		s.suppressOwn(r, key, fl.trigs, i, widen)
	}
	if found {
		fl.dev = append(fl.dev, devSig{trig.t, true})
	} else {
		fl.dev = append(fl.dev, devSig{min(r.t, refT), false})
	}
	fl.missing = false
	fl.last = r.t

	// Time-varying values (rule 4): one the reference gives at some
	// instant of the window, never across the pause/resume boundary.
	lo, hi := min(r.t, refT)-k.tol, max(r.t, refT)+k.early
	cp := best.OutPort
	if hasTLV {
		k.rep.checked(fam+"-PAUSE", 1)
		// A masked pause time (rule 3) is exempt from the value, not from
		// the boundary: a resume where the reference pauses, or a pause
		// where it resumes, is never within tolerance (rule 4).
		masked := k.fc != nil && k.fc.masks[what+".pause_us"]
		// The boundary is the decision this signal stands for: a resume
		// where it pauses, or a pause where it resumes, fails whatever
		// else the reference gave within the window (an estimate that
		// resumed a moment before is no licence to resume now).
		crossing := (sig.PauseUS == 0) != (best.PauseUS == 0)
		var seen valueList
		ok := false
		s.values(cp, lo, hi, fl, func(p uint16, _ int64) {
			if !crossing && (p == 0) == (sig.PauseUS == 0) && (masked || abs64(int64(p)-int64(sig.PauseUS))*device.Microsecond <= k.ptol) {
				ok = true
			}
			seen.add(int64(p))
		})
		if !ok {
			det := fmt.Sprintf("tolerance %s", fmtTime(k.ptol))
			switch {
			case crossing && sig.PauseUS == 0:
				det = fmt.Sprintf("a resume where the reference pauses (%d us at %s)", best.PauseUS, fmtTime(refT))
			case crossing:
				det = fmt.Sprintf("a pause where the reference resumes (at %s)", fmtTime(refT))
			case sig.PauseUS == 0:
				det = "a resume where the reference pauses"
			case masked:
				det = "a pause where the reference resumes"
			}
			k.dev(Deviation{Check: fam + "-PAUSE", Frame: r.no, Port: port, Time: r.t, Field: what + ".pause_us",
				Expected: "one of " + seen.String(), Actual: fmt.Sprint(sig.PauseUS), Detail: det, unmaskable: masked || crossing, definite: found})
		}
	}
	if m.Kind == device.KindBTS {
		// The depth field of every BTS (behaviour.md §1 step 4: qd_e, also
		// for origin cache; wire.md §5 says 0 unless origin queue: what
		// the reference sends decides).
		k.rep.checked("SFC-BTS-DEPTH", 1)
		var seen valueList
		ok := false
		s.values(cp, lo, hi, fl, func(_ uint16, d int64) {
			if (d == 0) == (sig.QueueDepth == 0) && abs64(d-int64(sig.QueueDepth)) <= k.depthTol[cp] {
				ok = true
			}
			seen.add(d)
		})
		if !ok {
			k.dev(Deviation{Check: "SFC-BTS-DEPTH", Frame: r.no, Port: port, Time: r.t, Field: "bts.queue_depth",
				Expected: "one of " + seen.String(), Actual: fmt.Sprint(sig.QueueDepth), Detail: fmt.Sprintf("tolerance %d octets", k.depthTol[cp]), definite: found})
		}
	}

	// Every field (rule 3), against the reference's signal for the flow
	// nearest in time; the quote (checked above against the input) and
	// the time-varying values aside.
	tmpl, tno := fl.tmpl, 0
	td := abs64(fl.tmplT - r.t)
	for i := range fl.sent {
		if d := abs64(fl.sent[i].t - r.t); tmpl == nil || d < td {
			tmpl, td, tno = fl.sent[i].data, d, fl.sent[i].no
		}
	}
	if tmpl != nil {
		// The quote is compared too when both quote the same packet.
		same := false
		if ts, _, err := decodeSFC(tmpl, &k.cp); err == nil {
			h1, ok1 := k.trig.quoteKey(ts.Quote)
			h2, ok2 := k.trig.quoteKey(sig.Quote)
			same = ok1 && ok2 && h1 == h2
		}
		k.fieldDevs(fam+"-FIELDS", r, tno, k.fc.diff(tmpl, r.data, func(frame []byte, m *device.Meta, e *exemptions) {
			sfcVarying(frame, m, e, !same)
		}))
	}
}

// suppress requires a filter clearing between two signals of a flow
// triggered at a1 ≤ a2 (widened by w) when they are less than a reset
// period apart, for one phase of all flows; a deviation for signal r
// when no phase is left.
func (s *sfcState) suppress(r *record, key device.FlowKey, a1, a2, w int64) bool {
	if a2-a1+2*w >= s.reset {
		return false
	}
	k := s.k
	fam := k.sfcFam()
	lo, hi := a1+1-w, a2+w
	if !s.phase.require(lo, hi) {
		k.dev(Deviation{Check: fam + "-SUPPRESS", Frame: r.no, Port: k.c.PortName(r.port), Time: r.t, Field: "flow " + key.String(),
			Expected: fmt.Sprintf("at most one signal per %s reset period", fmtTime(s.reset)),
			Actual:   fmt.Sprintf("signals triggered at %s and %s", fmtTime(a1), fmtTime(a2)),
			Detail:   "no filter-clearing phase is consistent with this and the device's earlier signals"})
		s.phase.restart(lo, hi)
		return true
	}
	return false
}

// suppressOwn checks the flow's own triggers around index i: three
// signals whose triggers span less than a reset period need two
// clearings within it, which no phase gives. It catches each flow that
// does so, where suppress, once the shared phase restarted at another
// flow's breach, can take a later flow's breach for consistent.
func (s *sfcState) suppressOwn(r *record, key device.FlowKey, trigs []int64, i int, w int64) {
	for j := max(0, i-2); j <= i && j+2 < len(trigs); j++ {
		if trigs[j+2]-trigs[j]+2*w < s.reset {
			k := s.k
			k.dev(Deviation{Check: k.sfcFam() + "-SUPPRESS", Frame: r.no, Port: k.c.PortName(r.port), Time: r.t, Field: "flow " + key.String(),
				Expected: fmt.Sprintf("at most one signal per %s reset period", fmtTime(s.reset)),
				Actual:   fmt.Sprintf("signals triggered at %s, %s and %s", fmtTime(trigs[j]), fmtTime(trigs[j+1]), fmtTime(trigs[j+2])),
				Detail:   "three signals within less than a reset period: no filter-clearing phase separates them"})
			return
		}
	}
}

// pruneTrigs forgets the triggers of a flow's device signals that no
// signal leaving at t or later can be within a reset period of: a signal
// is matched at most the window after its decision.
func (s *sfcState) pruneTrigs(fl *sfcFlow, t int64) {
	k := s.k
	from := t - k.win - s.reset - 2*max(k.tol, k.jitter) - k.tol - k.early
	i := 0
	for i < len(fl.trigs) && fl.trigs[i] < from {
		i++
	}
	if i > 0 {
		fl.trigs = append(fl.trigs[:0], fl.trigs[i:]...)
	}
}

// sfcVarying exempts the time-varying values of a BTS or CIM from the
// field comparison (they have their own checks), and the quote when the
// two signals quote different packets (checked against the input then).
func sfcVarying(frame []byte, m *device.Meta, e *exemptions, quote bool) {
	switch m.Kind {
	case device.KindBTS:
		p := m.Payload
		e.add(p+2, 2)  // pause time
		e.add(p+12, 4) // queue depth
		if quote {
			e.add(p+16, min(m.L3+m.IPLen, len(frame))-p-16)
		}
	case device.KindCIM:
		pdu := cimPDU(frame, m)
		if pdu < 0 || pdu+17 > len(frame) {
			return
		}
		if quote {
			n := int(binary.BigEndian.Uint16(frame[pdu+15:]))
			e.add(pdu+17, n) // another packet's MSDU: checked against the offending frame
		}
		if tlv := cimPauseTLV(frame, pdu); tlv >= 0 {
			e.add(tlv+2, 2)
		}
	}
}

// valueList collects the distinct values a deviation names as expected:
// the first six in the order seen, and whether there were more. They are
// formatted only for a deviation (the list is built for every signal).
type valueList struct {
	v    [6]int64
	n    int
	more bool
}

func (l *valueList) add(x int64) {
	if slices.Contains(l.v[:l.n], x) {
		return
	}
	if l.n == len(l.v) {
		l.more = true
		return
	}
	l.v[l.n] = x
	l.n++
}

// String lists the values, with ", …" when there were more.
func (l *valueList) String() string {
	var b []byte
	for i, x := range l.v[:l.n] {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, x, 10)
	}
	if l.more {
		b = append(b, ", …"...)
	}
	return string(b)
}

// values calls fn with every pause time and depth the reference gives
// congestion port cp in [lo, hi], and those of the flow's own decisions
// and signals then.
func (s *sfcState) values(cp int, lo, hi int64, fl *sfcFlow, fn func(pause uint16, depth int64)) {
	for i := s.vhead; i < len(s.vals); i++ {
		v := &s.vals[i]
		if v.t >= lo && v.t <= hi && (v.port == cp || v.port < 0) {
			fn(v.pause, v.depth)
		}
	}
	for i := range fl.fires {
		if f := &fl.fires[i]; s.at(&f.Firing) >= lo && s.at(&f.Firing) <= hi {
			fn(f.PauseUS, fireDepth(&f.Firing))
		}
	}
	for i := range fl.sent {
		if x := &fl.sent[i]; x.t >= lo && x.t <= hi {
			fn(x.pause, int64(x.depth))
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
// It reports whether the signal left on another port than the sender's
// (then it stands for no reference signal: rule 5 matches signals of the
// same port).
func (s *sfcState) fieldRules(r *record, m *device.Meta, sig *bts.Signal, hasTLV bool, trig trigEntry, found bool) (wrongPort bool) {
	k := s.k
	port := k.c.PortName(r.port)
	fam := k.sfcFam()
	bad := func(field, want, got, detail string) {
		k.dev(Deviation{Check: fam + "-FIELDS", Frame: r.no, Port: port, Time: r.t, Field: field, Expected: want, Actual: got, Detail: detail})
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
	}
	if out := k.m.Dev.Route(sig.Flow.Src); out >= 0 && out != r.port {
		k.dev(Deviation{Check: fam + "-JUSTIFIED", Frame: r.no, Port: port, Time: r.t, Field: "egress port", Expected: k.c.PortName(out), Actual: port,
			Detail: "a signal on the wrong port: it leaves toward the quoted packet's source"})
		wrongPort = true
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
			return wrongPort
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
	return wrongPort
}

// expire checks the completeness of reference decisions the device's
// capture has passed, and forgets old input packets.
func (s *sfcState) expire(all bool) {
	k := s.k
	lim := k.dlim
	fam := k.sfcFam()
	for s.phead < len(s.pend) {
		p := s.pend[s.phead]
		if !all && p.t+k.win > lim {
			break
		}
		s.phead++
		rule := fam + "-COMPLETE"
		if p.first {
			rule = fam + "-FIRST"
		}
		k.rep.checked(rule, 1)
		fl := s.flow(p.flow)
		// A device signal for this packet or an earlier one of the flow
		// within its reset period (another phase may have suppressed
		// this one); one for a later packet is no answer to this decision.
		from := p.trig - (1+k.missed)*s.reset - k.tol
		kept, met := fl.dev[:0], false
		var prev *devSig
		for i := range fl.dev {
			d := fl.dev[i]
			if d.t < from {
				continue
			}
			kept = append(kept, d)
			w := k.jitter
			if !d.exact {
				w = k.tol
			}
			switch {
			case d.exact && abs64(d.t-p.trig) <= k.jitter || !d.exact && d.t >= p.trig-k.early && d.t <= p.t+k.tol:
				met = true // a signal for this very packet
			case d.t+w < p.trig && (prev == nil || d.t > prev.t):
				prev = &kept[len(kept)-1]
			}
		}
		fl.dev = kept
		if !met && prev != nil {
			// Suppressed by the device's filter: the flow was signalled
			// since the last clearing, so no clearing may fall between
			// that signal and this packet, for one phase of all flows
			// (with missed periods allowed, any gap of that many periods).
			w := k.jitter
			if !prev.exact {
				w = k.tol
			}
			switch {
			case p.trig-prev.t < s.reset+2*w && s.phase.forbid(prev.t+1+w, p.trig-w):
				met = true
				k.rep.accepted(rule, "signalled less than a reset period before: a suppression filter in any phase (the reference's or another) holds the flow")
			case k.missed > 0 && p.trig-prev.t < (1+k.missed)*s.reset+2*w:
				met = true
				k.rep.accepted(rule, "tolerances.missed_periods: a Bloom filter false positive may skip the flow")
			}
		}
		if met {
			continue
		}
		if fl.missing && !p.first {
			continue
		}
		fl.missing = true
		k.missing(Deviation{Check: rule, Port: k.c.PortName(p.port), Time: p.t, Field: "flow " + p.flow.String(),
			Expected: fmt.Sprintf("a signal for the packet that arrived at %s, or for one of the flow since %s", fmtTime(p.trig), fmtTime(from)), Actual: "(none)",
			Detail: "the reference signals this flow; the device did not, for this packet or within its reset period before"}, p.port)
	}
	for s.vhead < len(s.vals) && (all || s.vals[s.vhead].t+2*k.win < lim) {
		s.vhead++
	}
	if s.vhead > 4096 && s.vhead*2 > len(s.vals) {
		n := copy(s.vals, s.vals[s.vhead:])
		s.vals, s.vhead = s.vals[:n], 0
	}
	if s.phead > 1024 && s.phead*2 > len(s.pend) {
		n := copy(s.pend, s.pend[s.phead:])
		s.pend, s.phead = s.pend[:n], 0
	}
}

// expire forgets the input packets older than the window (see pkts).
func (s *trigIndex) expire(all bool) {
	if all {
		s.pkts.head = s.pkts.tail
		return
	}
	s.cut = max(s.cut, s.k.dlim)
}

// gc forgets flows idle for longer than anything could look back.
func (s *sfcState) gc(lim int64) {
	k := s.k
	horizon := lim - k.win - (2+k.missed)*s.reset - 2*k.tol
	for key, fl := range s.flows {
		s.prune(fl, lim-2*k.win)
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
	data    []byte // the reference's frame
}

type pfcQ struct{ items []*pfcItem }

// pfcState matches pause frames (PFC and PAUSE per port and priority,
// dst-pause per port and destination) one to one, late or early matches
// being timing deviations.
type pfcState struct {
	q    map[pfcKey]*pfcQ
	ring []*pfcItem
	head int
}

func (p *pfcState) add(kind device.Kind, port, prio int, dst netip.Addr, v uint16, t int64, no int, data []byte) {
	it := &pfcItem{t: t, no: no, quanta: v, key: pfcKey{port, prio, dst, v == 0}, data: data}
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
	data := append([]byte(nil), o.Frame...)
	if o.Kind == device.KindPause {
		p.add(o.Kind, o.Port, 8, netip.Addr{}, times[0], o.Time, no, data)
		return
	}
	for c := 0; c < 8; c++ {
		if en&(1<<c) != 0 {
			p.add(o.Kind, o.Port, c, netip.Addr{}, times[c], o.Time, no, data)
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

// pfcFam is the rule prefix of a pause item: PFC, PAUSE or FG.
func pfcFam(prio int) string {
	switch prio {
	case 8:
		return "PAUSE"
	case 9:
		return "FG"
	}
	return "PFC"
}

// pfcRule is the completeness rule of an item: XOFF or XON (PFC, PAUSE),
// PAUSE or RESUME (dst-pause).
func pfcRule(key pfcKey) string {
	switch {
	case key.prio == 9 && key.xon:
		return "FG-RESUME"
	case key.prio == 9:
		return "FG-PAUSE"
	case key.xon:
		return pfcFam(key.prio) + "-XON"
	}
	return pfcFam(key.prio) + "-XOFF"
}

func (p *pfcState) dev(k *devChecker, r *record, m *device.Meta) {
	port := k.c.PortName(r.port)
	fam := "PFC"
	if m.Kind == device.KindPause {
		fam = "PAUSE"
	}
	k.rep.checked(fam+"-FIELDS", 1)
	en, times, err := pfc.Decode(r.data)
	if err != nil {
		k.dev(Deviation{Check: fam + "-FIELDS", Frame: r.no, Port: port, Time: r.t, Field: m.Kind.String(), Expected: "a well-formed frame", Actual: err.Error()})
		return
	}
	if !bytes.Equal(r.data[0:6], pfc.MACControlDst[:]) {
		k.dev(Deviation{Check: fam + "-FIELDS", Frame: r.no, Port: port, Time: r.t, Field: "eth.dst", Expected: pfc.MACControlDst.String(), Actual: net.HardwareAddr(r.data[0:6]).String()})
	}
	if pt := k.c.Port(r.port); pt != nil && pt.MAC != (device.MAC{}) && !bytes.Equal(r.data[6:12], pt.MAC[:]) {
		k.dev(Deviation{Check: fam + "-FIELDS", Frame: r.no, Port: port, Time: r.t, Field: "eth.src", Expected: pt.MAC.String(), Actual: net.HardwareAddr(r.data[6:12]).String(), Detail: "the egress port's MAC"})
	}
	var first *pfcItem
	if m.Kind == device.KindPause {
		first = p.match(k, r, 8, netip.Addr{}, times[0])
	} else {
		for c := 0; c < 8; c++ {
			if en&(1<<c) != 0 {
				if it := p.match(k, r, c, netip.Addr{}, times[c]); first == nil {
					first = it
				}
			}
		}
	}
	if first != nil {
		// Every other octet (rule 3): the times of enabled classes have
		// their own rule.
		k.fieldDevs(fam+"-FIELDS", r, first.no, k.fc.diff(first.data, r.data, func(frame []byte, fm *device.Meta, e *exemptions) {
			if fm.Kind == device.KindPause {
				e.add(fm.L3+2, 2)
				return
			}
			if fm.L3+4 > len(frame) {
				return
			}
			en := binary.BigEndian.Uint16(frame[fm.L3+2:])
			for c := 0; c < 8; c++ {
				if en&(1<<c) != 0 {
					e.add(fm.L3+4+2*c, 2)
				}
			}
		}))
	}
}

// match pairs one pause item of the device with the reference's: the
// earliest unmatched one of the same kind within the time tolerances,
// else the nearest within reach (then a timing deviation); it compares
// the pause times and returns the item matched.
func (p *pfcState) match(k *devChecker, r *record, prio int, dst netip.Addr, v uint16) *pfcItem {
	port := k.c.PortName(r.port)
	fam := pfcFam(prio)
	k.rep.checked(fam+"-JUSTIFIED", 1)
	key := pfcKey{r.port, prio, dst, v == 0}
	x := p.q[key]
	var best *pfcItem
	if x != nil {
		for _, it := range x.items {
			if !it.matched && k.inTol(r.t, it.t) {
				best = it
				break
			}
		}
		if best == nil {
			for _, it := range x.items {
				if !it.matched && k.reachLate(r.t, it.t) && (best == nil || abs64(it.t-r.t) < abs64(best.t-r.t)) {
					best = it
				}
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
		k.dev(Deviation{Check: fam + "-JUSTIFIED", Frame: r.no, Port: port, Time: r.t, Field: prioName(key),
			Expected: "no " + what + " (none in the reference within reach)", Actual: fmt.Sprintf("%s, %d %s", what, v, unit)})
		return nil
	}
	best.matched = true
	k.rep.checked(fam+"-TIMING", 1)
	k.timing(fam+"-TIMING", r, best.no, best.t, prioName(key))
	vrule := fam + "-QUANTA"
	if prio == 9 {
		vrule = "FG-PAUSE-TIME"
	}
	k.rep.checked(vrule, 1)
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
		if v != best.quanta && ns == 0 {
			ns = 1
		}
	}
	tol := k.ptol
	if pt := k.c.Port(r.port); prio != 9 && !(k.c.Has(SchemeSFCP) && pt != nil && pt.SFCP) {
		// A PFC or PAUSE switch's quanta are configured (behaviour.md §4:
		// time[p] = pause quanta), a field of rule 3, exact; only SFC-P's,
		// derived from a BTS pause and sent on its ports, are rule 4's
		// time-varying values that tolerances.pause widens. (On an SFC-P
		// port of a case with PFC too, a configured XOFF is widened
		// with them: the frame does not say which scheme sent it.)
		tol = 0
	}
	if ns > tol {
		det := fmt.Sprintf("tolerance %s", fmtTime(tol))
		if tol != k.ptol {
			det = "configured quanta are exact (tolerances.pause widens SFC-P's derived ones only)"
		}
		k.dev(Deviation{Check: vrule, Frame: r.no, Ref: best.no, Port: port, Time: r.t, Field: prioName(key) + " " + unit,
			Expected: fmt.Sprint(best.quanta), Actual: fmt.Sprint(v), Detail: det})
	}
	for len(x.items) > 0 && x.items[0].matched {
		x.items = x.items[1:]
	}
	return best
}

func (p *pfcState) expire(k *devChecker, all bool) {
	for p.head < len(p.ring) {
		it := p.ring[p.head]
		if !all && it.t+k.win >= k.dlim {
			break
		}
		p.head++
		rule := pfcRule(it.key)
		k.rep.checked(rule, 1)
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
		k.missing(Deviation{Check: rule, Ref: it.no, Port: k.c.PortName(it.key.port), Time: it.t, Field: prioName(it.key),
			Expected: fmt.Sprintf("%s, %d %s", what, it.quanta, unit), Actual: "(none)", Detail: "missing: the reference sends this pause frame; the device did not"}, it.key.port)
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
	q     map[genKey][]*genItem
	ring  []*genItem
	head  int
	kinds uint32 // kinds the reference generated
}

// has reports whether the reference generates frames of kind that no
// scheme-specific check handles.
func (g *genState) has(kind device.Kind) bool { return g.kinds&(1<<kind) != 0 }

func (g *genState) ref(k *devChecker, o device.Out, no int) {
	it := &genItem{t: o.Time, no: no, key: genKey{o.Port, o.Kind}, data: append([]byte(nil), o.Frame...)}
	if g.q == nil {
		g.q = map[genKey][]*genItem{}
	}
	g.kinds |= 1 << o.Kind
	g.q[it.key] = append(g.q[it.key], it)
	g.ring = append(g.ring, it)
}

func (g *genState) dev(k *devChecker, r *record, m *device.Meta) {
	port := k.c.PortName(r.port)
	k.rep.checked("GEN-JUSTIFIED", 1)
	key := genKey{r.port, m.Kind}
	var near *genItem
	for _, it := range g.q[key] {
		if it.matched || !k.reachLate(r.t, it.t) {
			continue
		}
		if k.inTol(r.t, it.t) && k.sameBytes(it.data, r.data) {
			near = it
			break
		}
		if near == nil || abs64(it.t-r.t) < abs64(near.t-r.t) {
			near = it
		}
	}
	if near == nil {
		k.dev(Deviation{Check: "GEN-JUSTIFIED", Frame: r.no, Port: port, Time: r.t, Field: m.Kind.String(),
			Expected: "no such frame (none in the reference within reach)", Actual: describe(r.data, &k.cp)})
		return
	}
	near.matched = true
	k.rep.checked("GEN-TIMING", 1)
	k.timing("GEN-TIMING", r, near.no, near.t, m.Kind.String())
	k.rep.checked("GEN-FIELDS", 1)
	k.fieldDevs("GEN-FIELDS", r, near.no, k.fc.diff(near.data, r.data, nil))
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
		if !all && it.t+k.win >= k.dlim {
			break
		}
		g.head++
		k.rep.checked("GEN-COMPLETE", 1)
		if it.matched {
			continue
		}
		it.matched = true
		k.missing(Deviation{Check: "GEN-COMPLETE", Ref: it.no, Port: k.c.PortName(it.key.port), Time: it.t, Field: it.key.kind.String(),
			Expected: describe(it.data, &k.cp), Actual: "(none)", Detail: "missing: the reference sends this frame; the device did not"}, it.key.port)
		g.trim(it.key)
	}
	if g.head > 1024 && g.head*2 > len(g.ring) {
		n := copy(g.ring, g.ring[g.head:])
		g.ring, g.head = g.ring[:n], 0
	}
}
