// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/opensfc/sfc/bfc"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/floodgate"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/postcard"
)

var _ = binary.BigEndian

// hopMAC is the destination of BFC and Floodgate frames.
var hopMAC = device.MAC{0x01, 0x80, 0xC2, 0x00, 0x00, 0x0E}

// schemeState checks the frames of BFC, Floodgate and PB-FS.
type schemeState struct {
	k *devChecker

	// BFC pause frames.
	bfcOn   bool
	bfcK    int
	bfcL    int
	bfcRef  map[int][]*bfcItem
	bfcRing []*bfcItem
	bfcHead int
	bfcSeq  map[int]uint32
	bfcZero map[int]bool // the reference's last frame on the port cleared every bit
	bfcLate map[int]*lateness
	rx      layers.BFC

	// Floodgate credits and dst-pause.
	fgOn   bool
	inCum  map[fgKey]int64
	devCum map[fgKey]int64
	fgKeys []fgKey
	crRef  map[int][]*bfcItem
	crRing []*bfcItem
	crHead int
	crLate map[int]*lateness
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
	data    []byte
	matched bool
}

type fgKey struct {
	port int
	dst  netip.Addr
}

type pcItem struct {
	t       int64
	no      int
	port    int
	flow    device.FlowKey
	l       layers.Postcard
	qk      uint64 // hash of the quote
	data    []byte
	matched bool
}

func newSchemeState(k *devChecker) *schemeState {
	s := &schemeState{k: k, bfcOn: k.c.Has(SchemeBFC), fgOn: k.c.Has(SchemeFloodgate), pcOn: k.c.Has(SchemePBFS),
		bfcRef: map[int][]*bfcItem{}, bfcSeq: map[int]uint32{}, bfcZero: map[int]bool{}, inCum: map[fgKey]int64{},
		devCum: map[fgKey]int64{}, crRef: map[int][]*bfcItem{}, pcRef: map[device.FlowKey][]*pcItem{}}
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
		it := &bfcItem{t: o.Time, no: no, port: o.Port, filter: append([]byte(nil), s.rx.Filter...), data: append([]byte(nil), o.Frame...)}
		s.bfcZero[o.Port] = allZero(it.filter)
		s.bfcRef[o.Port] = append(s.bfcRef[o.Port], it)
		s.bfcRing = append(s.bfcRing, it)
		return true
	case s.fgOn && subtype(o.Frame, &m) == layers.SubtypeFGCredit:
		if err := floodgate.DecodeCredit(o.Frame, &s.cr); err != nil {
			return false
		}
		it := &bfcItem{t: o.Time, no: no, port: o.Port, data: append([]byte(nil), o.Frame...)}
		s.crRef[o.Port] = append(s.crRef[o.Port], it)
		s.crRing = append(s.crRing, it)
		return true
	case s.fgOn && subtype(o.Frame, &m) == layers.SubtypeFGPause:
		if err := floodgate.DecodeDstPause(o.Frame, &s.fp); err != nil {
			return false
		}
		for _, e := range s.fp.Entries {
			s.k.pfc.add(device.KindExperimental, o.Port, 9, e.Dst, e.PauseUS, o.Time, no, append([]byte(nil), o.Frame...))
		}
		return true
	case s.pcOn && m.Kind == device.KindPostcard:
		l, err := postcard.Decode(o.Frame, s.k.cp.PostcardPort)
		if err != nil {
			return false
		}
		var qk uint64
		if s.k.trig != nil {
			qk, _ = s.k.trig.quoteKey(l.Quote)
		}
		l.Quote, l.SwitchID = nil, append(net.HardwareAddr(nil), l.SwitchID...)
		it := &pcItem{qk: qk, t: o.Time, no: no, port: o.Port, flow: flowKeyOf(l.Flow).FiveTuple(), l: l, data: append([]byte(nil), o.Frame...)}
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

func (s *schemeState) hopRules(r *record, id string) {
	if !bytes.Equal(r.data[0:6], hopMAC[:]) {
		s.bad(r, id, "eth.dst", hopMAC.String(), net.HardwareAddr(r.data[0:6]).String(), "the nearest-bridge group address")
	}
	if pt := s.k.c.Port(r.port); pt != nil && pt.MAC != (device.MAC{}) && !bytes.Equal(r.data[6:12], pt.MAC[:]) {
		s.bad(r, id, "eth.src", pt.MAC.String(), net.HardwareAddr(r.data[6:12]).String(), "the egress port's MAC")
	}
}

// lateness is how late the last device frame of a port's train was
// against the reference frame it stood for.
type lateness struct {
	d  int64
	ok bool
}

// closer reports whether lateness a is to be preferred to b: one not
// early before one early; then nearer the port's last lateness; for the
// port's first frame, the later one (the oldest reference frame): a
// device late by up to the tolerance must pass, and a train late by
// exactly τ cannot be told from one whose first frame is missing, which
// then fails naming a later frame.
func (lt *lateness) closer(a, b int64) bool {
	// Never an early one over one that is not: with τ near the
	// tolerances, a frame a little late has the next reference frame
	// just ahead of it too, and taking that one would leave its own
	// reference to a later frame, late beyond the tolerance.
	if (a >= 0) != (b >= 0) {
		return a >= 0
	}
	if lt.ok {
		return abs64(a-lt.d) < abs64(b-lt.d)
	}
	return a > b
}

// pick chooses the reference frame a device frame on its port stands
// for: an unmatched one within the time tolerances with the same octets
// (exempt ones aside), else the nearest unmatched one in reach. Among
// several of the same octets (a train of equal frames every τ) it takes
// the one whose lateness is nearest the port's last (lt): a device that
// skipped one frame is then missing that frame, not late by τ on every
// later one with the last "missing" at the capture's end; one uniformly
// late keeps its lateness. The port's first frame takes the oldest
// (lateness.closer).
func (s *schemeState) pick(items []*bfcItem, r *record, lt *lateness, same func(it *bfcItem) bool) *bfcItem {
	k := s.k
	var best, match *bfcItem
	for _, it := range items {
		if it.matched || !k.reachLate(r.t, it.t) {
			continue
		}
		if k.inTol(r.t, it.t) && same(it) {
			if match == nil || lt.closer(r.t-it.t, r.t-match.t) {
				match = it
			}
			continue
		}
		if best == nil || abs64(it.t-r.t) < abs64(best.t-r.t) {
			best = it
		}
	}
	if match != nil {
		best = match
	}
	if best != nil {
		*lt = lateness{r.t - best.t, true}
	}
	return best
}

// late returns the lateness of port in m, made on first use.
func (s *schemeState) late(m *map[int]*lateness, port int) *lateness {
	if *m == nil {
		*m = map[int]*lateness{}
	}
	lt := (*m)[port]
	if lt == nil {
		lt = &lateness{}
		(*m)[port] = lt
	}
	return lt
}

// devBFC checks a BFC pause frame: its sequence counts up by one on the
// link; it stands for one reference frame on that port, whose filter it
// carries exactly and whose other fields it equals.
func (s *schemeState) devBFC(r *record, m *device.Meta) {
	k := s.k
	k.rep.checked("BFC-FIELDS", 1)
	if err := bfc.Decode(r.data, &s.rx); err != nil {
		s.bad(r, "BFC-FIELDS", "bfc", "a well-formed BFC pause frame", err.Error(), "")
		return
	}
	s.hopRules(r, "BFC-FIELDS")
	k.rep.checked("BFC-SEQ", 1)
	if last, ok := s.bfcSeq[r.port]; ok {
		if d := int32(s.rx.Seq - last); d != 1 {
			if d > 1 { // skipped numbers: frames a capture may have dropped
				s.bad(r, "BFC-SEQ", "bfc.seq", fmt.Sprint(last+1), fmt.Sprint(s.rx.Seq), fmt.Sprintf("%d numbers skipped", d-1))
			} else {
				k.dev(Deviation{Check: "BFC-SEQ", Frame: r.no, Port: k.c.PortName(r.port), Time: r.t, Field: "bfc.seq",
					Expected: fmt.Sprint(last + 1), Actual: fmt.Sprint(s.rx.Seq), Detail: "stale or repeated: a receiver ignores it", definite: true})
			}
		}
	}
	if last, ok := s.bfcSeq[r.port]; !ok || int32(s.rx.Seq-last) > 0 {
		s.bfcSeq[r.port] = s.rx.Seq
	}
	k.rep.checked("BFC-JUSTIFIED", 1)
	filter := append([]byte(nil), s.rx.Filter...)
	it := s.pick(s.bfcRef[r.port], r, s.late(&s.bfcLate, r.port), func(it *bfcItem) bool { return bytes.Equal(it.filter, filter) })
	if it == nil {
		// An all-zero frame while the reference's filter on this port is
		// clear is harmless: the reference stops sending once idle, the
		// literal "every τ" does not.
		if allZero(filter) && (s.bfcZero[r.port] || len(s.bfcRef[r.port]) == 0 && !s.bfcSent(r.port)) {
			return
		}
		s.bad(r, "BFC-JUSTIFIED", "bfc", "no BFC frame (none in the reference on this port within reach)", describe(r.data, &k.cp), "")
		return
	}
	it.matched = true
	k.rep.checked("BFC-TIMING", 1)
	k.timing("BFC-TIMING", r, it.no, it.t, "bfc")
	k.rep.checked("BFC-FILTER", 1)
	if !bytes.Equal(it.filter, filter) {
		var extra, missing int
		for i := range filter {
			if i < len(it.filter) {
				extra += popcount(filter[i] &^ it.filter[i])
				missing += popcount(it.filter[i] &^ filter[i])
			}
		}
		s.k.dev(Deviation{Check: "BFC-FILTER", Frame: r.no, Ref: it.no, Port: k.c.PortName(r.port), Time: r.t, Field: "bfc.filter",
			Expected: fmt.Sprintf("the reference's filter (%d bits set)", popcountAll(it.filter)),
			Actual:   fmt.Sprintf("%d bits set: %d other bit(s), %d of the reference's clear", popcountAll(filter), extra, missing),
			Detail:   "pauses flows the reference does not, or misses ones it pauses"})
	}
	k.fieldDevs("BFC-FIELDS", r, it.no, k.fc.diff(it.data, r.data, func(frame []byte, fm *device.Meta, e *exemptions) {
		e.add(fm.L3+8, 4) // sequence: BFC-SEQ
		if fm.L3+8 <= len(frame) {
			e.add(fm.L3+12, int(binary.BigEndian.Uint16(frame[fm.L3+6:])))
		}
	}))
}

func popcountAll(b []byte) int {
	n := 0
	for _, x := range b {
		n += popcount(x)
	}
	return n
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
// received for it; the frame stands for one reference credit frame on the
// port and carries its entries exactly (counts are exact, rule 4).
func (s *schemeState) devCredit(r *record) {
	k := s.k
	k.rep.checked("FG-FIELDS", 1)
	if err := floodgate.DecodeCredit(r.data, &s.cr); err != nil {
		s.bad(r, "FG-FIELDS", "fgcredit", "a well-formed credit frame", err.Error(), "")
		return
	}
	s.hopRules(r, "FG-FIELDS")
	for _, e := range s.cr.Entries {
		k.rep.checked("FG-CREDIT-BOUND", 1)
		key := fgKey{r.port, e.Dst}
		s.devCum[key] += int64(e.Credits)
		got := s.devCum[key]
		if in := s.inCum[key]; got > in {
			s.bad(r, "FG-CREDIT-BOUND", "fgcredit "+e.Dst.String(), fmt.Sprintf("at most %d octets (received on this port for it)", in),
				fmt.Sprintf("%d octets credited so far", got), "credits exceed the data received")
		}
	}
	k.rep.checked("FG-JUSTIFIED", 1)
	it := s.pick(s.crRef[r.port], r, s.late(&s.crLate, r.port), func(it *bfcItem) bool { return k.sameBytes(it.data, r.data) })
	if it == nil {
		s.bad(r, "FG-JUSTIFIED", "fgcredit", "no credit frame (none in the reference on this port within reach)", describe(r.data, &k.cp), "")
		return
	}
	it.matched = true
	k.rep.checked("FG-TIMING", 1)
	k.timing("FG-TIMING", r, it.no, it.t, "fgcredit")
	k.rep.checked("FG-CREDIT", 1)
	var want layers.FGCredit
	if err := floodgate.DecodeCredit(it.data, &want); err == nil {
		if d := creditDiff(&want, &s.cr); d != "" {
			s.k.dev(Deviation{Check: "FG-CREDIT", Frame: r.no, Ref: it.no, Port: k.c.PortName(r.port), Time: r.t, Field: "fgcredit.entries",
				Expected: creditString(&want), Actual: creditString(&s.cr), Detail: d})
		}
	}
	k.fieldDevs("FG-FIELDS", r, it.no, k.fc.diff(it.data, r.data, func(frame []byte, fm *device.Meta, e *exemptions) {
		fgEntries(frame, fm, e, false)
	}))
}

// fgEntries exempts from FG-FIELDS the values of a Floodgate frame that
// their own rules compare: the count, and per entry the credits and
// destination of a credit frame (FG-CREDIT) or the pause time
// (FG-PAUSE-TIME) and destination (FG-PAUSE, FG-RESUME) of a dst-pause
// entry. Nothing else: a dst-pause entry's reserved octets and the
// padding after the entries are compared (conformance.md rule 3: from the
// Ethernet header to the last octet).
func fgEntries(frame []byte, fm *device.Meta, e *exemptions, pause bool) {
	l3 := fm.L3
	if l3+8 > len(frame) {
		return
	}
	e.add(l3+6, 2)
	a := 4
	if frame[l3+4] == 6 {
		a = 16
	}
	n := int(binary.BigEndian.Uint16(frame[l3+6:]))
	for i, o := 0, l3+8; i < n && o+4+a <= len(frame); i, o = i+1, o+4+a {
		if pause {
			e.add(o, 2)
			e.add(o+4, a)
		} else {
			e.add(o, 4+a)
		}
	}
}

func creditString(c *layers.FGCredit) string {
	var parts []string
	for _, e := range c.Entries {
		parts = append(parts, fmt.Sprintf("%s %d", e.Dst, e.Credits))
	}
	if len(parts) == 0 {
		return "(no entries)"
	}
	return strings.Join(parts, ", ")
}

func creditDiff(want, got *layers.FGCredit) string {
	if len(want.Entries) != len(got.Entries) {
		return fmt.Sprintf("%d entries, the reference %d", len(got.Entries), len(want.Entries))
	}
	for i := range want.Entries {
		w, g := want.Entries[i], got.Entries[i]
		if w.Dst != g.Dst {
			return fmt.Sprintf("entry %d is for %s, the reference's for %s", i, g.Dst, w.Dst)
		}
		if w.Credits != g.Credits {
			return fmt.Sprintf("%d octets credited for %s, the reference %d (counts are exact)", g.Credits, g.Dst, w.Credits)
		}
	}
	return ""
}

func (s *schemeState) devDstPause(r *record) {
	k := s.k
	k.rep.checked("FG-FIELDS", 1)
	if err := floodgate.DecodeDstPause(r.data, &s.fp); err != nil {
		s.bad(r, "FG-FIELDS", "fgpause", "a well-formed dst-pause frame", err.Error(), "")
		return
	}
	s.hopRules(r, "FG-FIELDS")
	var first *pfcItem
	for _, e := range s.fp.Entries {
		if it := k.pfc.match(k, r, 9, e.Dst, e.PauseUS); first == nil {
			first = it
		}
	}
	if first != nil {
		k.fieldDevs("FG-FIELDS", r, first.no, k.fc.diff(first.data, r.data, func(frame []byte, fm *device.Meta, e *exemptions) {
			fgEntries(frame, fm, e, true)
		}))
	}
}

// devPostcard checks a CC-postcard: addressed to the quoted packet's
// source, the assessment's rate and window as configured, the quote a
// packet the device received, and a reference postcard for the flow
// within the time tolerance whose octet counts it matches within the depth
// tolerance.
func (s *schemeState) devPostcard(r *record, m *device.Meta) {
	k := s.k
	k.rep.checked("PBFS-FIELDS", 1)
	k.rep.checked("PBFS-JUSTIFIED", 1)
	k.checksums("PBFS-FIELDS", r, m)
	l, err := postcard.Decode(r.data, k.cp.PostcardPort)
	if err != nil {
		s.bad(r, "PBFS-FIELDS", "postcard", "a well-formed CC-postcard", err.Error(), "")
		return
	}
	if m.Dst != l.Flow.Src {
		s.bad(r, "PBFS-FIELDS", "ip.dst", l.Flow.Src.String(), m.Dst.String(), "a postcard goes to the marked packet's sender")
	}
	if pt := k.c.Port(int(l.Port)); pt != nil && int64(l.RateMbps) != pt.Speed/1_000_000 {
		s.bad(r, "PBFS-FIELDS", "postcard.rate_mbps", fmt.Sprint(pt.Speed/1_000_000), fmt.Sprint(l.RateMbps), fmt.Sprintf("the speed of port %d", l.Port))
	}
	if int64(l.WindowNS) != s.window {
		s.bad(r, "PBFS-FIELDS", "postcard.window_ns", fmt.Sprint(s.window), fmt.Sprint(l.WindowNS), "dc_rtt")
	}
	if k.trig != nil {
		if _, ok := k.trig.lookup(l.Quote); !ok {
			s.bad(r, "PBFS-FIELDS", "quote", fmt.Sprintf("the start of a packet received in the last %s", fmtTime(k.win)), fmt.Sprintf("%d octets matching none", len(l.Quote)), "quote content")
		}
	}
	key := flowKeyOf(l.Flow).FiveTuple()
	if out := k.m.Dev.Route(l.Flow.Src); out >= 0 && out != r.port {
		s.bad(r, "PBFS-JUSTIFIED", "egress port", k.c.PortName(out), k.c.PortName(r.port), "a postcard on the wrong port: it leaves toward the marked packet's sender")
	}
	var best *pcItem
	// The reference postcard for the same marked packet (it names it by
	// its quote), within the tolerances or not: a late one is one "late
	// by" deviation (rule 6), not another postcard's altered fields and
	// its own unjustified. Else one within the tolerances, else the
	// nearest in reach.
	qk, qok := uint64(0), false
	if k.trig != nil {
		qk, qok = k.trig.quoteKey(l.Quote)
	}
	score := func(it *pcItem) int {
		n := 0
		if k.inTol(r.t, it.t) {
			n++
		}
		if qok && it.qk == qk {
			n += 2
		}
		return n
	}
	for _, it := range s.pcRef[key] {
		if it.matched || !k.reachLate(r.t, it.t) {
			continue
		}
		if best == nil || score(it) > score(best) || score(it) == score(best) && abs64(it.t-r.t) < abs64(best.t-r.t) {
			best = it
		}
	}
	if best == nil {
		s.bad(r, "PBFS-JUSTIFIED", "postcard flow "+key.String(), "no postcard (none in the reference for this flow within reach)", describe(r.data, &k.cp), "")
		return
	}
	best.matched = true
	k.rep.checked("PBFS-TIMING", 1)
	k.timingOf("PBFS-TIMING", r, best.no, best.t, "postcard", qok && best.qk == qk)
	k.fieldDevs("PBFS-FIELDS", r, best.no, k.fc.diff(best.data, r.data, func(frame []byte, fm *device.Meta, e *exemptions) {
		e.add(fm.Payload+20, 16) // assessed octets: PBFS-COUNTS
	}))
	k.rep.checked("PBFS-COUNTS", 1)
	// Paired by its quote, the postcard's counts are the device's own
	// arithmetic on what it received: no frame the capture lost explains
	// them.
	quoted := qok && best.qk == qk
	tol := k.depthTol[int(l.Port)]
	for _, f := range []struct {
		name      string
		want, got uint32
	}{{"postcard.ip_bytes", best.l.IPBytes, l.IPBytes}, {"postcard.q1_bytes", best.l.Q1Bytes, l.Q1Bytes},
		{"postcard.recent_bytes", best.l.RecentBytes, l.RecentBytes}, {"postcard.recent_marked_bytes", best.l.RecentMarkedBytes, l.RecentMarkedBytes}} {
		if abs64(int64(f.want)-int64(f.got)) > tol {
			s.k.dev(Deviation{Check: "PBFS-COUNTS", Frame: r.no, Ref: best.no, Port: k.c.PortName(r.port), Time: r.t, Field: f.name,
				Expected: fmt.Sprint(f.want), Actual: fmt.Sprint(f.got), Detail: fmt.Sprintf("tolerance %d octets", tol), definite: quoted})
		}
	}
}

// expire reports reference BFC frames, credit frames and postcards no
// device frame met.
func (s *schemeState) expire(all bool) {
	k := s.k
	for s.bfcHead < len(s.bfcRing) {
		it := s.bfcRing[s.bfcHead]
		if !all && it.t+k.win >= k.dlim {
			break
		}
		s.bfcHead++
		k.rep.checked("BFC-COMPLETE", 1)
		if !it.matched {
			k.missing(Deviation{Check: "BFC-COMPLETE", Ref: it.no, Port: k.c.PortName(it.port), Time: it.t, Field: "bfc",
				Expected: "a BFC pause frame", Actual: "(none)", Detail: "missing: the reference sends one every tau on this port; the device did not"}, it.port)
		}
		q := s.bfcRef[it.port]
		if len(q) > 0 && q[0] == it {
			q = q[1:]
		}
		s.bfcRef[it.port] = q
	}
	if s.bfcHead > 1024 && s.bfcHead*2 > len(s.bfcRing) {
		n := copy(s.bfcRing, s.bfcRing[s.bfcHead:])
		s.bfcRing, s.bfcHead = s.bfcRing[:n], 0
	}
	for s.crHead < len(s.crRing) {
		it := s.crRing[s.crHead]
		if !all && it.t+k.win >= k.dlim {
			break
		}
		s.crHead++
		k.rep.checked("FG-CREDIT", 1)
		if !it.matched {
			k.missing(Deviation{Check: "FG-CREDIT", Ref: it.no, Port: k.c.PortName(it.port), Time: it.t, Field: "fgcredit",
				Expected: describe(it.data, &k.cp), Actual: "(none)", Detail: "missing: the reference returns these credits; the device did not"}, it.port)
		}
		q := s.crRef[it.port]
		for len(q) > 0 && q[0] == it {
			q = q[1:]
		}
		s.crRef[it.port] = q
	}
	if s.crHead > 1024 && s.crHead*2 > len(s.crRing) {
		n := copy(s.crRing, s.crRing[s.crHead:])
		s.crRing, s.crHead = s.crRing[:n], 0
	}
	for s.pcHead < len(s.pcRing) {
		it := s.pcRing[s.pcHead]
		if !all && it.t+k.win >= k.dlim {
			break
		}
		s.pcHead++
		k.rep.checked("PBFS-COMPLETE", 1)
		if !it.matched {
			k.missing(Deviation{Check: "PBFS-COMPLETE", Ref: it.no, Port: k.c.PortName(it.port), Time: it.t, Field: "postcard flow " + it.flow.String(),
				Expected: "a CC-postcard", Actual: "(none)", Detail: "missing: the reference answers this marked packet; the device did not"}, it.port)
		}
		q := s.pcRef[it.flow]
		for len(q) > 0 && q[0] == it {
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
}
