package conformance

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"

	"github.com/opensfc/sfc/bfc"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/floodgate"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/postcard"
)

// hopMAC is the destination of BFC and Floodgate frames.
var hopMAC = device.MAC{0x01, 0x80, 0xC2, 0x00, 0x00, 0x0E}

// schemeState checks the frames of BFC, Floodgate and PB-FS.
type schemeState struct {
	k *devChecker

	// BFC pause frames.
	bfcOn    bool
	bfcK     int
	bfcL     int
	bfcRef   map[int][]*bfcItem
	bfcRing  []*bfcItem
	bfcHead  int
	bfcSeq   map[int]uint32
	bfcUnion []byte
	bfcInter []byte
	bfcZero  map[int]bool // the reference's last frame on the port cleared every bit
	rx       layers.BFC

	// Floodgate credits and dst-pause.
	fgOn   bool
	inCum  map[fgKey]int64
	refCum map[fgKey]*cumHist
	devCum map[fgKey]int64
	fgKeys []fgKey
	cr     layers.FGCredit
	fp     layers.FGPause

	// PB-FS postcards.
	pcOn   bool
	pcRef  map[device.FlowKey][]*pcItem
	pcRing []*pcItem
	pcHead int
	window int64 // DC_RTT of the case
}

type bfcItem struct {
	t       int64
	no      int
	port    int
	filter  []byte
	matched bool
}

type fgKey struct {
	port int
	dst  netip.Addr
}

// cumHist is a reference's cumulative credits for a key over time.
type cumHist struct {
	ts  []int64
	cum []int64
}

func (h *cumHist) at(t int64) int64 {
	v := int64(0)
	for i, x := range h.ts {
		if x > t {
			break
		}
		v = h.cum[i]
	}
	return v
}

func (h *cumHist) last() int64 {
	if len(h.cum) == 0 {
		return 0
	}
	return h.cum[len(h.cum)-1]
}

// prune keeps one entry at or before t and everything after.
func (h *cumHist) prune(t int64) {
	i := 0
	for i+1 < len(h.ts) && h.ts[i+1] <= t {
		i++
	}
	if i > 0 {
		h.ts = append(h.ts[:0], h.ts[i:]...)
		h.cum = append(h.cum[:0], h.cum[i:]...)
	}
}

type pcItem struct {
	t       int64
	no      int
	port    int
	flow    device.FlowKey
	l       layers.Postcard
	matched bool
}

func newSchemeState(k *devChecker) *schemeState {
	s := &schemeState{k: k, bfcOn: k.c.Has(SchemeBFC), fgOn: k.c.Has(SchemeFloodgate), pcOn: k.c.Has(SchemePBFS),
		bfcRef: map[int][]*bfcItem{}, bfcSeq: map[int]uint32{}, bfcZero: map[int]bool{}, inCum: map[fgKey]int64{}, refCum: map[fgKey]*cumHist{},
		devCum: map[fgKey]int64{}, pcRef: map[device.FlowKey][]*pcItem{}}
	p := bfcParams(k.c)
	s.bfcK, s.bfcL = p.Hashes, p.FilterLen
	if s.bfcK == 0 {
		s.bfcK = bfc.DefaultHashes
	}
	if s.bfcL == 0 {
		s.bfcL = bfc.DefaultFilterLen
	}
	s.window = k.c.intParam("dc_rtt")
	if s.window == 0 {
		s.window = postcard.DefaultDCRTT
	}
	return s
}

func subtype(frame []byte, m *device.Meta) uint8 {
	if m.Kind != device.KindExperimental || m.L3+4 > len(frame) || frame[m.L3] != 0x46 || frame[m.L3+1] != 0x43 {
		return 0
	}
	return frame[m.L3+2]
}

// input counts the data octets each port received per destination, the
// bound of the credits a Floodgate switch may return on that port.
func (s *schemeState) input(r *record) {
	if !s.fgOn || s.k.c.Role != device.RoleSwitch {
		return
	}
	var m device.Meta
	device.Parse(r.data, &m, &s.k.cp)
	if m.Kind != device.KindData {
		return
	}
	key := fgKey{r.port, m.Dst}
	if _, ok := s.inCum[key]; !ok {
		s.fgKeys = append(s.fgKeys, key)
	}
	s.inCum[key] += int64(len(r.data))
}

// ref takes a generated frame of the reference; false when it is not one
// of these schemes'.
func (s *schemeState) ref(o device.Out, no int) bool {
	var m device.Meta
	device.Parse(o.Frame, &m, &s.k.cp)
	switch {
	case s.bfcOn && subtype(o.Frame, &m) == layers.SubtypeBFC:
		if err := bfc.Decode(o.Frame, &s.rx); err != nil {
			return false
		}
		it := &bfcItem{t: o.Time, no: no, port: o.Port, filter: append([]byte(nil), s.rx.Filter...)}
		s.bfcZero[o.Port] = allZero(it.filter)
		s.bfcRef[o.Port] = append(s.bfcRef[o.Port], it)
		s.bfcRing = append(s.bfcRing, it)
		return true
	case s.fgOn && subtype(o.Frame, &m) == layers.SubtypeFGCredit:
		if err := floodgate.DecodeCredit(o.Frame, &s.cr); err != nil {
			return false
		}
		for _, e := range s.cr.Entries {
			key := fgKey{o.Port, e.Dst}
			h := s.refCum[key]
			if h == nil {
				h = &cumHist{}
				s.refCum[key] = h
			}
			h.ts = append(h.ts, o.Time)
			h.cum = append(h.cum, h.last()+int64(e.Credits))
		}
		return true
	case s.fgOn && subtype(o.Frame, &m) == layers.SubtypeFGPause:
		if err := floodgate.DecodeDstPause(o.Frame, &s.fp); err != nil {
			return false
		}
		for _, e := range s.fp.Entries {
			s.k.pfc.add(device.KindExperimental, o.Port, 9, e.Dst, e.PauseUS, o.Time, no)
		}
		return true
	case s.pcOn && m.Kind == device.KindPostcard:
		l, err := postcard.Decode(o.Frame, s.k.cp.PostcardPort)
		if err != nil {
			return false
		}
		l.Quote, l.SwitchID = nil, append(net.HardwareAddr(nil), l.SwitchID...)
		it := &pcItem{t: o.Time, no: no, port: o.Port, flow: flowKeyOf(l.Flow).FiveTuple(), l: l}
		s.pcRef[it.flow] = append(s.pcRef[it.flow], it)
		s.pcRing = append(s.pcRing, it)
		return true
	}
	return false
}

func flowKeyOf(f layers.Flow) device.FlowKey {
	return device.FlowKey{Src: f.Src, Dst: f.Dst, Proto: f.Proto, SrcPort: f.SrcPort, DstPort: f.DstPort, QP: f.QP, HasQP: f.HasQP}
}

// dev checks a frame of the device; false when it is not one of these
// schemes'.
func (s *schemeState) dev(r *record, m *device.Meta) bool {
	switch {
	case s.bfcOn && subtype(r.data, m) == layers.SubtypeBFC:
		s.devBFC(r, m)
	case s.fgOn && subtype(r.data, m) == layers.SubtypeFGCredit:
		s.devCredit(r)
	case s.fgOn && subtype(r.data, m) == layers.SubtypeFGPause:
		s.devDstPause(r)
	case s.pcOn && m.Kind == device.KindPostcard:
		s.devPostcard(r, m)
	default:
		return false
	}
	return true
}

func (s *schemeState) bad(r *record, check, field, want, got, detail string) {
	s.k.dev(Deviation{Check: check, Frame: r.no, Port: s.k.c.PortName(r.port), Time: r.t, Field: field, Expected: want, Actual: got, Detail: detail})
}

func (s *schemeState) hopRules(r *record) {
	if !bytes.Equal(r.data[0:6], hopMAC[:]) {
		s.bad(r, CheckFieldRules, "eth.dst", hopMAC.String(), net.HardwareAddr(r.data[0:6]).String(), "the nearest-bridge group address")
	}
	if pt := s.k.c.Port(r.port); pt != nil && pt.MAC != (device.MAC{}) && !bytes.Equal(r.data[6:12], pt.MAC[:]) {
		s.bad(r, CheckFieldRules, "eth.src", pt.MAC.String(), net.HardwareAddr(r.data[6:12]).String(), "the egress port's MAC")
	}
}

// devBFC checks a BFC pause frame: its sequence counts up by one on the
// link; its filter pauses no flow that no reference frame within the time
// tolerance pauses, and every flow all of them pause.
func (s *schemeState) devBFC(r *record, m *device.Meta) {
	k := s.k
	k.rep.checked(CheckFieldRules, 1)
	if err := bfc.Decode(r.data, &s.rx); err != nil {
		s.bad(r, CheckFieldRules, "bfc", "a well-formed BFC pause frame", err.Error(), "")
		return
	}
	s.hopRules(r)
	if int(s.rx.Hashes) != s.bfcK || int(s.rx.FilterLen) != s.bfcL {
		s.bad(r, CheckFieldRules, "bfc.hashes/filter_len", fmt.Sprintf("k %d, L %d", s.bfcK, s.bfcL), fmt.Sprintf("k %d, L %d", s.rx.Hashes, s.rx.FilterLen), "as configured (k, filter_len)")
		return
	}
	k.rep.checked(CheckBFCSequence, 1)
	if last, ok := s.bfcSeq[r.port]; ok {
		if d := int32(s.rx.Seq - last); d != 1 {
			what := "stale or repeated: a receiver ignores it"
			if d > 1 {
				what = fmt.Sprintf("%d numbers skipped", d-1)
			}
			s.bad(r, CheckBFCSequence, "bfc.seq", fmt.Sprint(last+1), fmt.Sprint(s.rx.Seq), what)
		}
	}
	if last, ok := s.bfcSeq[r.port]; !ok || int32(s.rx.Seq-last) > 0 {
		s.bfcSeq[r.port] = s.rx.Seq
	}
	k.rep.checked(CheckJustified, 1)
	n := len(s.rx.Filter)
	s.bfcUnion = append(s.bfcUnion[:0], make([]byte, n)...)
	s.bfcInter = append(s.bfcInter[:0], bytes.Repeat([]byte{0xff}, n)...)
	any := false
	for _, it := range s.bfcRef[r.port] {
		if abs64(it.t-r.t) > k.tol || len(it.filter) != n {
			continue
		}
		any, it.matched = true, true
		for i := range it.filter {
			s.bfcUnion[i] |= it.filter[i]
			s.bfcInter[i] &= it.filter[i]
		}
	}
	if !any {
		// An all-zero frame while the reference's filter on this port is
		// clear is harmless: the reference stops sending once idle, the
		// literal "every τ" does not.
		if allZero(s.rx.Filter) && (s.bfcZero[r.port] || len(s.bfcRef[r.port]) == 0 && !s.bfcSent(r.port)) {
			return
		}
		s.bad(r, CheckJustified, "bfc", "no BFC frame (none in the reference on this port within the time tolerance)", describe(r.data, &k.cp), "")
		return
	}
	var extra, missing int
	for i, b := range s.rx.Filter {
		extra += popcount(b &^ s.bfcUnion[i])
		missing += popcount(s.bfcInter[i] &^ b)
	}
	if extra > 0 {
		s.bad(r, CheckJustified, "bfc.filter", "bits the reference sets within the time tolerance", fmt.Sprintf("%d other bit(s) set", extra), "pauses flows the reference does not")
	}
	if missing > 0 {
		s.bad(r, CheckComplete, "bfc.filter", "every bit the reference sets throughout the time tolerance", fmt.Sprintf("%d of them clear", missing), "does not pause flows the reference pauses")
	}
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// bfcSent reports whether the reference has sent a BFC frame on port yet.
func (s *schemeState) bfcSent(port int) bool {
	_, ok := s.bfcZero[port]
	return ok
}

func popcount(b byte) int {
	n := 0
	for ; b != 0; b &= b - 1 {
		n++
	}
	return n
}

// devCredit checks a Floodgate credit frame: per destination the credits
// returned on the port so far never exceed the data octets the port
// received for it, and stay within the depth tolerance of the reference's
// credits over the time tolerance.
func (s *schemeState) devCredit(r *record) {
	k := s.k
	k.rep.checked(CheckFieldRules, 1)
	if err := floodgate.DecodeCredit(r.data, &s.cr); err != nil {
		s.bad(r, CheckFieldRules, "fgcredit", "a well-formed credit frame", err.Error(), "")
		return
	}
	s.hopRules(r)
	tol := k.depthTol[r.port]
	for _, e := range s.cr.Entries {
		k.rep.checked(CheckCredit, 1)
		key := fgKey{r.port, e.Dst}
		s.devCum[key] += int64(e.Credits)
		got := s.devCum[key]
		if in := s.inCum[key]; got > in {
			s.bad(r, CheckCredit, "fgcredit "+e.Dst.String(), fmt.Sprintf("at most %d octets (received on this port for it)", in),
				fmt.Sprintf("%d octets credited so far", got), "credits exceed the data received")
			continue
		}
		h := s.refCum[key]
		lo, hi := int64(0), int64(0)
		if h != nil {
			lo, hi = h.at(r.t-k.tol), h.at(r.t+k.tol)
		}
		if got < lo-tol || got > hi+tol {
			s.bad(r, CheckCredit, "fgcredit "+e.Dst.String(), fmt.Sprintf("%d..%d octets credited so far (reference ± %d)", lo, hi, tol),
				fmt.Sprintf("%d", got), "")
		}
	}
}

func (s *schemeState) devDstPause(r *record) {
	k := s.k
	k.rep.checked(CheckFieldRules, 1)
	if err := floodgate.DecodeDstPause(r.data, &s.fp); err != nil {
		s.bad(r, CheckFieldRules, "fgpause", "a well-formed dst-pause frame", err.Error(), "")
		return
	}
	s.hopRules(r)
	for _, e := range s.fp.Entries {
		k.pfc.match(k, r, 9, e.Dst, e.PauseUS)
	}
}

// devPostcard checks a CC-postcard: addressed to the quoted packet's
// source, the assessment's rate and window as configured, the quote a
// packet the device received, and a reference postcard for the flow
// within the time tolerance whose octet counts it matches within the depth
// tolerance.
func (s *schemeState) devPostcard(r *record, m *device.Meta) {
	k := s.k
	k.rep.checked(CheckFieldRules, 1)
	k.rep.checked(CheckJustified, 1)
	l, err := postcard.Decode(r.data, k.cp.PostcardPort)
	if err != nil {
		s.bad(r, CheckFieldRules, "postcard", "a well-formed CC-postcard", err.Error(), "")
		return
	}
	if m.Dst != l.Flow.Src {
		s.bad(r, CheckFieldRules, "ip.dst", l.Flow.Src.String(), m.Dst.String(), "a postcard goes to the marked packet's sender")
	}
	if pt := k.c.Port(int(l.Port)); pt != nil && int64(l.RateMbps) != pt.Speed/1_000_000 {
		s.bad(r, CheckFieldRules, "postcard.rate_mbps", fmt.Sprint(pt.Speed/1_000_000), fmt.Sprint(l.RateMbps), fmt.Sprintf("the speed of port %d", l.Port))
	}
	if int64(l.WindowNS) != s.window {
		s.bad(r, CheckFieldRules, "postcard.window_ns", fmt.Sprint(s.window), fmt.Sprint(l.WindowNS), "dc_rtt")
	}
	if k.trig != nil {
		if _, ok := k.trig.lookup(l.Quote); !ok {
			s.bad(r, CheckFieldRules, "quote", fmt.Sprintf("the start of a packet received in the last %s", fmtTime(k.win)), fmt.Sprintf("%d octets matching none", len(l.Quote)), "quote content")
		}
	}
	key := flowKeyOf(l.Flow).FiveTuple()
	var best *pcItem
	for _, it := range s.pcRef[key] {
		if abs64(it.t-r.t) <= k.tol && (best == nil || abs64(it.t-r.t) < abs64(best.t-r.t)) {
			best = it
		}
	}
	if best == nil {
		s.bad(r, CheckJustified, "postcard flow "+key.String(), "no postcard (none in the reference for this flow within the time tolerance)", describe(r.data, &k.cp), "")
		return
	}
	best.matched = true
	k.rep.checked(CheckQueueDepth, 1)
	tol := k.depthTol[int(l.Port)]
	if tol == 0 {
		tol = k.maxDepthTol
	}
	for _, f := range []struct {
		name      string
		want, got uint32
	}{{"postcard.ip_bytes", best.l.IPBytes, l.IPBytes}, {"postcard.q1_bytes", best.l.Q1Bytes, l.Q1Bytes},
		{"postcard.recent_bytes", best.l.RecentBytes, l.RecentBytes}, {"postcard.recent_marked_bytes", best.l.RecentMarkedBytes, l.RecentMarkedBytes}} {
		if abs64(int64(f.want)-int64(f.got)) > tol {
			s.k.dev(Deviation{Check: CheckQueueDepth, Frame: r.no, Ref: best.no, Port: k.c.PortName(r.port), Time: r.t, Field: f.name,
				Expected: fmt.Sprint(f.want), Actual: fmt.Sprint(f.got), Detail: fmt.Sprintf("tolerance %d octets", tol)})
		}
	}
}

// expire reports reference BFC frames and postcards no device frame met,
// and at the end credits the device never returned.
func (s *schemeState) expire(all bool) {
	k := s.k
	for s.bfcHead < len(s.bfcRing) {
		it := s.bfcRing[s.bfcHead]
		if !all && it.t+k.tol >= k.dlim {
			break
		}
		s.bfcHead++
		k.rep.checked(CheckComplete, 1)
		if !it.matched {
			k.dev(Deviation{Check: CheckComplete, Ref: it.no, Port: k.c.PortName(it.port), Time: it.t, Field: "bfc",
				Expected: "a BFC pause frame", Actual: "(none)", Detail: "the reference sends one every tau on this port; the device did not within the time tolerance"})
		}
		q := s.bfcRef[it.port]
		for len(q) > 0 && q[0].t+k.tol < k.dlim {
			q = q[1:]
		}
		s.bfcRef[it.port] = q
	}
	if s.bfcHead > 1024 && s.bfcHead*2 > len(s.bfcRing) {
		n := copy(s.bfcRing, s.bfcRing[s.bfcHead:])
		s.bfcRing, s.bfcHead = s.bfcRing[:n], 0
	}
	for s.pcHead < len(s.pcRing) {
		it := s.pcRing[s.pcHead]
		if !all && it.t+k.tol >= k.dlim {
			break
		}
		s.pcHead++
		k.rep.checked(CheckComplete, 1)
		if !it.matched {
			k.dev(Deviation{Check: CheckComplete, Ref: it.no, Port: k.c.PortName(it.port), Time: it.t, Field: "postcard flow " + it.flow.String(),
				Expected: "a CC-postcard", Actual: "(none)", Detail: "the reference answers this marked packet; the device did not within the time tolerance"})
		}
		q := s.pcRef[it.flow]
		for len(q) > 0 && q[0].t+k.tol < k.dlim {
			q = q[1:]
		}
		if len(q) == 0 {
			delete(s.pcRef, it.flow)
		} else {
			s.pcRef[it.flow] = q
		}
	}
	if s.pcHead > 1024 && s.pcHead*2 > len(s.pcRing) {
		n := copy(s.pcRing, s.pcRing[s.pcHead:])
		s.pcRing, s.pcHead = s.pcRing[:n], 0
	}
	for _, h := range s.refCum {
		h.prune(k.dlim - k.tol)
	}
	if !all {
		return
	}
	for _, key := range s.fgKeys {
		h := s.refCum[key]
		if h == nil {
			continue
		}
		k.rep.checked(CheckComplete, 1)
		want, got := h.last(), s.devCum[key]
		if got < want-k.depthTol[key.port] {
			k.dev(Deviation{Check: CheckComplete, Port: k.c.PortName(key.port), Time: h.ts[len(h.ts)-1], Field: "fgcredit " + key.dst.String(),
				Expected: fmt.Sprintf("%d octets credited in all", want), Actual: fmt.Sprint(got), Detail: "the device returned fewer credits than the reference"})
		}
	}
}
