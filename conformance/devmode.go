// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"slices"
	"strings"
	"unsafe"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/filter"
	"github.com/opensfc/sfc/internal/prefetch"
	"github.com/opensfc/sfc/layers"
)

// CheckFiles loads the case at casePath and checks the device capture
// against the reference in device mode (CheckDevice). The error is
// non-nil only when something is unusable; the report then says why.
func CheckFiles(casePath, input, dev string, opt Options) (*Report, error) {
	rep := newReport(ModeDevice, opt.MaxShown, nil)
	c, err := LoadCase(casePath)
	if err == nil {
		rep, err = CheckDevice(c, input, dev, opt)
	} else if IsNotExist(err) {
		err = &UnusableError{File: casePath, Reason: "missing or unreadable: " + errText(err), Err: err}
	}
	rep.Vector = casePath
	rep.DUT = opt.DUT
	if rep.VectorDigest == "" {
		rep.VectorDigest = opt.Digest.Files(casePath, input)
	}
	if rep.CaptureDigest == "" {
		rep.CaptureDigest = opt.Digest.Files(dev)
	}
	if rep.Input == "" {
		rep.Input = input
	}
	if rep.Compared == "" {
		rep.Compared = dev
	}
	if err != nil {
		rep.unusable(err)
	}
	return rep, err
}

// CheckDevice replays input through the reference model of c and checks
// the device's output capture against it in device mode (conformance.md
// "Device mode, normative"): every rule of Rules that applies to the case
// gets a verdict. Both captures are streamed; what is held is bounded by
// the tolerances and the window.
func CheckDevice(c *Case, input, dev string, opt Options) (*Report, error) {
	return retryMerged(func(merge bool) (*Report, error) { return checkDevice(c, input, dev, opt, merge) })
}

func checkDevice(c *Case, input, dev string, opt Options, merge bool) (*Report, error) {
	m, err := BuildModel(c)
	if err != nil {
		rep := newReport(ModeDevice, opt.MaxShown, nil)
		return rep, err
	}
	rep := newReport(ModeDevice, opt.MaxShown, nil)
	for _, r := range rulesFor(c, m) {
		cr := &CheckResult{Name: r.ID, Description: r.Check, Clause: r.Clause, Tolerance: r.Tolerance, Verdict: Pass, Deviations: []Deviation{}, inconclusive: r.Inconclusive}
		rep.Checks = append(rep.Checks, cr)
		rep.byName[r.ID] = cr
	}
	rep.Description, rep.Case, rep.Input, rep.Compared = c.Description, c.File, input, dev
	rep.DUT = opt.DUT
	var ep epochRef
	in, err := openStream(c, input, &ep, merge, opt.Digest.or())
	if err != nil {
		return rep, err
	}
	defer in.close()
	ds, err := openOutput(c, dev, &ep, merge, opt.Digest.or())
	if err != nil {
		return rep, err
	}
	defer ds.close()
	ds.beforeT0 = true // rule 1: device frames before time 0 are no error
	ds.cutOK = true    // rule 9: a cut device capture ends early
	if opt.prefetch() {
		in.prefetch()
		ds.prefetch()
	}
	k, err := newDevChecker(c, m, rep, ds, opt, in.resolution())
	if err != nil {
		return rep, err
	}
	k.in = in
	k.modelCP = m.Dev.Codepoints() == k.cp
	m.Dev.OnOutput(k.refOut)
	if m.obs != nil {
		m.obs.fire = k.refFire
		m.obs.near = k.maxDepthTol
	}
	err = replay(m, in, &rep.Frames.Input, k.beforeInput, k.afterInput)
	if err == nil {
		k.advance(math.MaxInt64)
		err = k.err
	}
	if err != nil {
		return rep, err
	}
	k.finish()
	rep.finish()
	rep.VectorDigest = vectorDigest(c.File, in)
	return rep, nil
}

// devChecker holds what device mode needs between frames: the reference's
// recent outputs and decisions, the recent input (to find the packets that
// signals quote), and per-flow state. Everything is dropped once it is
// older than the window behind the device capture's clock.
type devChecker struct {
	inMeta device.Meta // the input frame beforeInput parsed, for afterInput
	// modelCP: the model parses with k.cp, so it can take inMeta.
	modelCP bool
	// The device frame devFrame is judging: its number and whether the
	// capture flags it inbound (evidence: see dev).
	curNo      int
	curInbound bool
	// tester: Options.TesterCapture (no inbound hint).
	tester bool
	c      *Case
	m      *Model
	rep    *Report
	ds     *stream
	in     *stream
	cp     device.Codepoints
	vol    volatile
	rt     []byte // scratch of routedAs
	fc     *fieldCmp

	tol, early, ptol, dtol, win, jitter, missed int64
	// tol0 and early0 are the time tolerances as set; tol and early are
	// widened by the slack of captures stamped in coarse units
	// (lateSlack: the input's unit less 1 ns, earlySlack: the device
	// capture's), which only pairing and the undecidable band use.
	tol0, early0, lateSlack, earlySlack int64
	// seenFrame and seen are the device frame the last deviations were
	// about and their rule and field (dev reports each pair once).
	seenFrame   int
	seen        []string
	depthTol    map[int]int64
	maxDepthTol int64
	lag         int64

	refNo   int
	hasHost bool
	seed    maphash.Seed
	df      *differ
	ma, mb  []byte
	mh      maphash.Hash
	// onlyICRC: the ICRC is the only volatile field (hash around it)
	onlyICRC bool
	// matchChecks are the results a matched data frame counts as checked
	// (DATA-LOSS, -ORDER, -TIMING, -ALTERED, -DUP, -EXTRA), icrcCheck
	// DATA-ICRC's: looked up once, not by name per frame. nil when not in
	// the report.
	matchChecks [6]*CheckResult
	icrcCheck   *CheckResult
	offCheck    *CheckResult // SIGNAL-OFF, counted for every frame offKind looks at
	pool        [][]byte
	err         error

	// background (conformance.md rules 1 and 2)
	ign      *filter.Filter
	ignFrame dissect.Frame
	inFlows  map[dataKey]struct{} // the scenario's flows (port 0)
	incache  flowCache[bool]      // recent keys of inFlows
	// inSignals are the flows (port 0) of the input's signal frames: a
	// NIC that hands one to its host where the reference consumes it
	// (a BTS) or alters it (a CIM) is judged as a data frame would be.
	inSignals map[dataKey]struct{}
	bg        *BackgroundCounts

	// capture coverage (rule 9)
	devLast int64 // model time of the latest device frame read
	// the ports that carried a device frame so far: ports 0 to 63 in
	// devLow (looked at for every device frame), others in devPorts
	devLow   [64]bool
	devPorts map[int]bool
	lastSig  int64 // the reference's last signal
	hasSig   bool
	lostEnd  int64 // deviations not reported: after the capture's end
	lostAt   int64 // the earliest reference frame of them (model time)
	// undecided are the deviations a capture's dropped frames could
	// explain (explainedByDrops), by port name: reported at the end,
	// FAIL, or INCONCLUSIVE on the ports whose interfaces the device
	// capture says dropped frames (rule 9).
	undecided map[string]*heldDevs
	// held are missing-frame deviations of ports that carried no frame
	// yet: reported at the end if the port carried any (rule 9), else
	// counted as not judged. At most a report's worth per rule is kept.
	held map[int]*heldDevs

	// device capture: dpend is the next frame to judge, read and not
	// judged; dbooked says it was booked (advance), dparsed that dmeta,
	// dkey and dhash hold its parse, key and hash (judgeEarly). ahead are
	// the frames judged ahead of their turn and not yet passed by
	// advance, derr the error a read ahead of its turn met.
	dpend   *record
	dbooked bool
	dparsed bool
	dmeta   device.Meta
	dkey    dataKey
	dhash   uint64
	ahead   ring[earlyFrame]
	derr    error
	deof    bool
	dlim    int64 // every device frame at or before dlim was processed

	// data: the reference's data frames in the order it sent them,
	// numbered from 0, in a ring. A flow's queue names its frames by
	// number.
	items  ring[dataItem]
	aheadT int64 // the latest time of a matched frame that left the ring (expire)
	dq     map[dataKey]*dataQ
	qcache flowCache[*dataQ] // recent entries of dq (cleared when one is deleted)

	trig *trigIndex
	sfc  *sfcState
	sch  *schemeState
	pfc  *pfcState
	gen  *genState
	gcAt int64
}

// dataKey names a flow on a port: for an IP frame its addresses, protocol,
// ports and RoCEv2 QP, for another its EtherType. It is plain memory with
// no padding and no pointer (not a device.FlowKey, whose netip.Addr holds
// one), so that a map hashes it in one pass: it is looked up for every
// reference and device frame.
type dataKey struct {
	src, dst     [16]byte
	qp           uint32
	port         int32
	sport, dport uint16
	et           uint16
	proto        uint8
	flags        uint8 // keyIP, keySrc6, keyDst6, keyQP
}

const (
	keyIP uint8 = 1 << iota
	keySrc6
	keyDst6
	keyQP
)

type dataItem struct {
	t    int64
	no   int    // reference output number
	q    *dataQ // its flow's queue (alive while the frame is pending)
	hash uint64
	data []byte
	// icrc is the reference frame's ICRC octets (little-endian) when
	// icrcSt is icrcHas, read while the frame is in cache: a matched
	// device frame's ICRC is compared with it without reading data.
	icrc   uint32
	icrcSt uint8
	state  uint8
	kind   device.Kind // the frame's kind as the reference parsed it
	// (64 octets on a 64-bit machine, one cache line: TestDataItemSize)
}

// dataItem.icrcSt
const (
	icrcUnknown uint8 = iota // the ICRC is not the only volatile field
	icrcNone                 // the frame has no ICRC
	icrcHas
)

const (
	itemPending uint8 = iota
	itemOvertaken
	itemMatched
)

type dataQ struct {
	items []uint64 // the numbers of the flow's frames (devChecker.items)
	head  int
	port  int // the device port of the flow (dataKey.port)
	// seen holds the hashes of the last len(seen) frames matched, to name
	// a second copy of any of them a duplicate (DATA-DUP), not an
	// alteration of the flow's next pending frame; next is where the
	// next one goes, lastT the device time of the last match (the queue
	// is kept a window after it, for its duplicates).
	seen  [16]uint64
	nseen uint8
	next  uint8
	lastT int64
}

// matched records the hash h of a frame matched at device time t.
func (q *dataQ) matched(h uint64, t int64) {
	q.seen[q.next] = h
	q.next = (q.next + 1) % uint8(len(q.seen))
	q.nseen = min(q.nseen+1, uint8(len(q.seen)))
	q.lastT = t
}

// dupOf reports whether h is the hash of a recently matched frame.
func (q *dataQ) dupOf(h uint64) bool {
	for _, x := range q.seen[:q.nseen] {
		if x == h {
			return true
		}
	}
	return false
}

func (q *dataQ) live() []uint64 { return q.items[q.head:] }

// trim drops the matched frames at the head of q. Frames leave the
// ring in number order (expire), and each flow's frames are in number
// order in its queue, so a frame leaves its queue no later than the
// ring: a queue names only frames in the ring.
func (q *dataQ) trim(k *devChecker) {
	for q.head < len(q.items) && k.item(q.items[q.head]).state == itemMatched {
		q.head++
	}
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	} else if q.head > 64 && q.head*2 > len(q.items) {
		n := copy(q.items, q.items[q.head:])
		q.items, q.head = q.items[:n], 0
	}
}

// item returns the reference's data frame number n (in the ring).
func (k *devChecker) item(n uint64) *dataItem { return k.items.at(n) }

// reorderReach is how far ahead of its reference time a data frame of a
// flow may leave and still be recognised (as reordered and early).
const reorderReach = 10 * device.Microsecond

// Defaults of device mode's tolerances (conformance.md rule 6).
const (
	DefaultTimeTol  = 1 * device.Microsecond
	DefaultEarlyTol = 500 * device.Nanosecond
	DefaultWindow   = 100 * device.Microsecond
)

func newDevChecker(c *Case, m *Model, rep *Report, ds *stream, opt Options, inRes int64) (*devChecker, error) {
	k := &devChecker{c: c, m: m, rep: rep, ds: ds, cp: c.Device.Codepoints.WithDefaults(), seed: maphash.MakeSeed(),
		dq: map[dataKey]*dataQ{}, depthTol: map[int]int64{}, dlim: math.MinInt64, inFlows: map[dataKey]struct{}{},
		bg: &BackgroundCounts{ByKind: map[string]int64{}}, devPorts: map[int]bool{}, held: map[int]*heldDevs{}, devLast: math.MinInt64, aheadT: math.MinInt64}
	rep.Background = k.bg
	k.tester = opt.TesterCapture
	for i, id := range []string{ruleDataLoss, ruleDataOrder, ruleDataTiming, ruleDataAltered, ruleDataDup, ruleDataExtra} {
		k.matchChecks[i] = rep.byName[id]
	}
	k.icrcCheck = rep.byName[ruleDataICRC]
	k.offCheck = rep.byName[ruleSignalOff]
	names := append([]string(nil), c.Volatile...)
	names = append(names, "bth.icrc") // the ICRC has its own rule
	k.vol = newVolatile(names)
	k.onlyICRC = len(c.Volatile) == 0
	k.mh.SetSeed(k.seed)
	// The case's mask and ignore were checked with their lines by
	// ParseCase; an error here is in the options, not in c.File.
	if err := CheckMask(opt.Mask); err != nil {
		return nil, &UnusableError{File: "Options.Mask", Reason: err.Error(), Err: err}
	}
	if opt.Ignore != "" {
		if _, err := filter.Compile(opt.Ignore); err != nil {
			return nil, &UnusableError{File: "Options.Ignore", Reason: "not a display filter: " + err.Error(), Err: err}
		}
	}
	masks, err := newMaskSet(append(append([]string(nil), c.Mask...), opt.Mask...))
	if err != nil {
		return nil, &UnusableError{File: c.File, Reason: "mask: " + err.Error()}
	}
	k.fc = &fieldCmp{masks: masks, cp: k.cp}
	ignore := c.Ignore
	if opt.Ignore != "" {
		if ignore != "" {
			ignore = "(" + ignore + ") || (" + opt.Ignore + ")"
		} else {
			ignore = opt.Ignore
		}
	}
	if ignore != "" {
		f, err := filter.Compile(ignore)
		if err != nil {
			return nil, &UnusableError{File: c.File, Reason: "ignore: " + err.Error(), Err: err}
		}
		k.ign = f
		k.ignFrame.P = layers.NewParser()
	}
	k.tol = DefaultTimeTol
	if c.Tol.TimeSet {
		k.tol = c.Tol.Time
	}
	k.early = DefaultEarlyTol
	if c.Tol.EarlySet {
		k.early = c.Tol.Early
	}
	if c.Tol.PauseSet {
		k.ptol = c.Tol.Pause
	}
	// A capture stamped in units coarser than a nanosecond (tcpdump's
	// microseconds) says only that a frame passed in [t, t + unit): the
	// device's frames may be up to a unit later than stamped, the input's
	// (so the reference's) too. Frames are paired as if each were at the
	// most favourable instant it could have been; a timing that breaks
	// the tolerance at every such instant FAILs, one that breaks it only
	// at some is not judged (INCONCLUSIVE), see timingOf.
	k.tol0, k.early0 = k.tol, k.early
	k.lateSlack, k.earlySlack = inRes-1, ds.resolution()-1
	k.tol += k.lateSlack
	k.early += k.earlySlack
	k.win = DefaultWindow
	if c.Tol.WindowSet {
		k.win = c.Tol.Window
	}
	k.win = max(k.win, 2*(k.tol+k.early))
	if c.Tol.JitterSet {
		k.jitter = c.Tol.Jitter
	}
	k.missed = c.Tol.MissedPeriods
	for _, p := range c.Ports {
		var dt int64
		if c.Tol.DepthSet {
			dt = c.Tol.QueueDepth
		}
		k.depthTol[p.ID] = dt
		k.maxDepthTol = max(k.maxDepthTol, dt)
	}
	k.dtol = k.maxDepthTol
	// Device frames are checked once the reference has run reorderReach
	// past them: a frame that far ahead of its turn is found as
	// reordered, not as altered.
	k.lag = k.tol + k.early + 2 + min(k.win, reorderReach)
	// A NIC's host side is checked only when the device capture has it.
	// From the interfaces scanned at open (ds.names, ds.sections): the
	// stream's reader may already run in its prefetch goroutine.
	if c.Role == device.RoleNIC {
		inSection := map[int]int{} // interfaces seen so far per section
		for i, name := range ds.names {
			id := inSection[ds.sections[i]] // the interface's id within its section
			inSection[ds.sections[i]]++
			if c.portOf(id, name, true) == device.HostPort || c.portOf(i, name, true) == device.HostPort {
				k.hasHost = true
			}
		}
	}
	tf := &TolerancesInForce{TimeNs: k.tol0, EarlyNs: k.early0, PauseNs: k.ptol, QueueDepth: k.maxDepthTol, WindowNs: k.win,
		JitterNs: k.jitter, MissedPeriods: k.missed, Mask: masks.list(), Ignore: ignore}
	rep.Tolerances = tf
	if m.SFC != nil || c.Has(SchemePBFS) {
		k.trig = &trigIndex{k: k, cut: math.MinInt64}
	}
	if m.SFC != nil {
		k.sfc = newSFCState(k)
	}
	k.sch = newSchemeState(k)
	k.pfc = &pfcState{q: map[pfcKey]*pfcQ{}}
	k.gen = &genState{q: map[genKey][]*genItem{}}
	return k, nil
}

// sfcFam is the rule prefix of the case's SFC signals.
func (k *devChecker) sfcFam() string {
	if k.c.Has(SchemeCIM) {
		return "SFC-CIM"
	}
	return "SFC-BTS"
}

// timing reports a matched signal outside the time tolerances (rule 6):
// one deviation "late by X" or "early by X" under rule id.
func (k *devChecker) timing(id string, r *record, refNo int, refT int64, field string) {
	k.timingOf(id, r, refNo, refT, field, false)
}

// timingOf is timing; definite marks a pairing no dropped frame can have
// shifted (by the packet a signal quotes), so that a capture's drops do
// not excuse it (explainedByDrops).
func (k *devChecker) timingOf(id string, r *record, refNo int, refT int64, field string, definite bool) {
	dt := r.t - refT
	if dt <= k.tol0 && -dt <= k.early0 {
		return // the common case: no deviation to build
	}
	d := Deviation{Check: id, Frame: r.no, Ref: refNo, Port: k.c.PortName(r.port), Time: r.t, Field: field + " time", Actual: fmtTime(r.t), definite: definite}
	switch {
	case dt > k.tol0:
		d.Expected, d.Detail = fmt.Sprintf("%s (late by at most %s)", fmtTime(refT), fmtTime(k.tol0)), "late by "+fmtTime(dt)
		if k.lateSlack > 0 {
			d.Detail += fmt.Sprintf(" as stamped; the input's timestamps are %s apart", fmtTime(k.lateSlack+1))
		}
		if dt <= k.tol {
			k.unresolved(d)
			return
		}
	case -dt > k.early0:
		d.Expected, d.Detail = fmt.Sprintf("%s (early by at most %s)", fmtTime(refT), fmtTime(k.early0)), "early by "+fmtTime(-dt)
		if k.earlySlack > 0 {
			d.Detail += fmt.Sprintf(" as stamped; the device capture's timestamps are %s apart", fmtTime(k.earlySlack+1))
		}
		if -dt <= k.early {
			k.unresolved(d)
			return
		}
	default:
		return
	}
	k.dev(d)
}

// unresolved reports a timing that breaks the tolerance as stamped but
// perhaps not in fact, the captures' timestamp units being coarser than
// the margin: not judged, INCONCLUSIVE (the capture cannot show it).
func (k *devChecker) unresolved(d Deviation) {
	if k.masked(&d) {
		return
	}
	d.Detail += ": not judged, the frame may have been within the tolerance; capture with nanosecond timestamps (pcapng if_tsresol 9) to judge it"
	k.rep.addNotJudged(d)
}

// inTol reports whether a device frame at t is within the time
// tolerances of a reference frame at refT.
func (k *devChecker) inTol(t, refT int64) bool { return t-refT <= k.tol && refT-t <= k.early }

// reach reports whether a device signal at t that names its cause (the
// packet a BTS or CIM quotes) may be matched, perhaps late or early, to a
// reference decision at refT.
func (k *devChecker) reach(t, refT int64) bool { return t-refT <= k.win && refT-t <= k.tol+k.early }

// reachLate reports whether a device frame at t that names no cause (PFC,
// PAUSE, BFC, Floodgate, postcards, other frames) may be matched to a
// reference frame at refT: late by up to the window, early only within
// the tolerance. Identified by time alone, a frame earlier than that
// cannot be told from a spurious one: it is unjustified, and the
// reference's frame missing.
func (k *devChecker) reachLate(t, refT int64) bool { return t-refT <= k.win && refT-t <= k.early }

// heldDevs are the missing-frame deviations of a port that carried no
// device frame yet.
type heldDevs struct {
	devs  []Deviation
	count map[string]int64
	total int64
}

// missing reports a reference frame the device never sent, unless the
// capture cannot show it (rule 9: it ends first, or the port carried
// nothing), which makes the vector INCONCLUSIVE instead.
func (k *devChecker) missing(d Deviation, port int) {
	if d.Time+k.tol > k.devLast {
		if k.lostEnd == 0 || d.Time < k.lostAt {
			k.lostAt = d.Time
		}
		k.lostEnd++
		k.rep.notJudged(d.Check, 1)
		return
	}
	if !k.devCarried(port) {
		h := k.held[port]
		if h == nil {
			h = &heldDevs{}
			k.held[port] = h
		}
		h.hold(d, k.rep.maxShown)
		return
	}
	k.dev(d)
}

// devCarried reports whether port carried a frame of the device capture
// so far.
func (k *devChecker) devCarried(port int) bool {
	if uint(port) < uint(len(k.devLow)) {
		return k.devLow[port]
	}
	return k.devPorts[port]
}

// undecidedOf returns the undecided deviations of the port named port.
func (k *devChecker) undecidedOf(port string) *heldDevs {
	if k.undecided == nil {
		k.undecided = map[string]*heldDevs{}
	}
	h := k.undecided[port]
	if h == nil {
		h = &heldDevs{}
		k.undecided[port] = h
	}
	return h
}

// hold keeps d, or only counts it once maxShown of its rule are kept.
func (h *heldDevs) hold(d Deviation, maxShown int) {
	if h.count == nil {
		h.count = map[string]int64{}
	}
	h.total++
	if h.count[d.Check] < int64(maxShown) {
		h.devs = append(h.devs, d)
	}
	h.count[d.Check]++
}

// noteSignal records the time of a reference signal (for CAP-END).
func (k *devChecker) noteSignal(port int, t int64) {
	if !k.hasSig || t > k.lastSig {
		k.lastSig, k.hasSig = t, true
	}
}

// fieldDevs reports the differences fieldCmp found under rule id.
func (k *devChecker) fieldDevs(id string, r *record, refNo int, diffs []FieldDiff) {
	for _, fd := range diffs {
		k.dev(Deviation{Check: id, Frame: r.no, Ref: refNo, Port: k.c.PortName(r.port), Time: r.t, Field: fd.Field, Expected: fd.Expected, Actual: fd.Actual,
			Detail: "differs from the reference's frame"})
	}
}

// checksums reports invalid checksums of a device signal under rule id.
// A UDP checksum of 0 over IPv4 is "none" by RFC 768, which a data
// frame may carry (RoCEv2 usually does) but a signal may not: the
// reference computes one for every IP signal, and rule 3 asks for a valid
// checksum, not for none; a vendor whose device sends none masks
// udp.checksum.
func (k *devChecker) checksums(id string, r *record, m *device.Meta) {
	for _, f := range checksumsValid(r.data, m) {
		k.dev(Deviation{Check: id, Frame: r.no, Port: k.c.PortName(r.port), Time: r.t, Field: f, Expected: "a valid checksum", Actual: "invalid"})
	}
	if m.IPVersion == 4 && m.Proto == 17 && m.L4 > 0 && m.L4+8 <= len(r.data) && r.data[m.L4+6] == 0 && r.data[m.L4+7] == 0 {
		k.dev(Deviation{Check: id, Frame: r.no, Port: k.c.PortName(r.port), Time: r.t, Field: "udp.checksum",
			Expected: "a valid checksum (the reference computes one)", Actual: "0 (none, RFC 768)"})
	}
}

func (k *devChecker) buf(b []byte) []byte {
	var x []byte
	if n := len(k.pool); n > 0 {
		x = k.pool[n-1][:0]
		k.pool = k.pool[:n-1]
	}
	return append(x, b...)
}

func (k *devChecker) free(b []byte) {
	if cap(b) > 0 && cap(b) <= 16<<10 {
		k.pool = append(k.pool, b)
	}
}

// hash hashes a data frame (parsed as m) with the volatile fields masked.
// With only the ICRC volatile (the usual case) it hashes around the ICRC
// instead of copying the frame to clear it.
func (k *devChecker) hash(frame []byte, m *device.Meta) uint64 {
	if !k.vol.any {
		return maphash.Bytes(k.seed, frame)
	}
	if k.onlyICRC {
		off := icrcOff(frame, m, &k.cp)
		if off < 0 {
			return maphash.Bytes(k.seed, frame)
		}
		if off+4 == len(frame) {
			// The ICRC ends the frame (no padding after the IP packet):
			// the same value as the two writes below, which Bytes
			// computes without copying into the Hash's buffer.
			return maphash.Bytes(k.seed, frame[:off])
		}
		k.mh.Reset()
		k.mh.Write(frame[:off])
		k.mh.Write(frame[off+4:])
		return k.mh.Sum64()
	}
	k.ma = k.vol.mask(k.ma, frame, &k.cp)
	return maphash.Bytes(k.seed, k.ma)
}

// icrcOff is the offset of a RoCEv2 frame's ICRC, -1 when it has none.
func icrcOff(frame []byte, m *device.Meta, cp *device.Codepoints) int {
	if !m.IP() || m.Proto != 17 || m.L4 == 0 || m.DstPort != cp.RoCEPort {
		return -1
	}
	end := min(m.L3+m.IPLen, len(frame))
	if end-4 < m.Payload+12 {
		return -1
	}
	return end - 4
}

// flowQ returns the queue of flow key, nil when there is none.
func (k *devChecker) flowQ(key *dataKey) *dataQ {
	if q, ok := k.qcache.get(key); ok {
		return q
	}
	q := k.dq[*key]
	if q != nil {
		k.qcache.put(key, q)
	}
	return q
}

// flowCache keeps the values of the last keys looked up in a map keyed
// by dataKey, one per slot of a small direct-mapped table: a flow's
// frames come in runs, and a hit costs a few multiplications and one
// comparison where the map hashes all 48 octets. Only what the map holds
// is put in; a deletion from the map clears the cache.
type flowCache[V any] struct {
	keys [64]dataKey
	vals [64]V
	ok   [64]bool
}

// slot picks key's slot in a flowCache from its eight-octet words.
func (key *dataKey) slot() int {
	w := (*[6]uint64)(unsafe.Pointer(key))
	h := w[0] ^ w[1]*0x9e3779b97f4a7c15 ^ w[2]*0xc2b2ae3d27d4eb4f ^ w[3]*0x165667b19e3779f9 ^ w[4]*0xd6e8feb86659fd93 ^ w[5]*0xff51afd7ed558ccd
	h ^= h >> 29
	h *= 0x94d049bb133111eb
	return int(h >> 58)
}

func (c *flowCache[V]) get(key *dataKey) (V, bool) {
	i := key.slot()
	if c.ok[i] && c.keys[i] == *key {
		return c.vals[i], true
	}
	var zero V
	return zero, false
}

func (c *flowCache[V]) put(key *dataKey, v V) {
	i := key.slot()
	c.keys[i], c.vals[i], c.ok[i] = *key, v, true
}

// dataKey is plain memory, six words (slot reads them so).
var _ = [1]struct{}{}[unsafe.Sizeof(dataKey{})-48]

func keyOf(m *device.Meta, port int) dataKey {
	if !m.IP() {
		return dataKey{port: int32(port), et: m.EtherType}
	}
	k := dataKey{src: m.Src.As16(), dst: m.Dst.As16(), port: int32(port), proto: m.Proto, sport: m.SrcPort, dport: m.DstPort, flags: keyIP}
	if m.Src.Is6() {
		k.flags |= keySrc6
	}
	if m.Dst.Is6() {
		k.flags |= keyDst6
	}
	if m.HasQP {
		k.qp = m.QP
		k.flags |= keyQP
	}
	return k
}

// masked reports whether d is about a field of a signal frame that the
// vector or the command line masks (rule 3); masks never reach rule 8's
// checks of forwarded frames.
func (k *devChecker) masked(d *Deviation) bool {
	return k.fc != nil && k.fc.masks[d.Field] && !d.unmaskable && !isDataRule(d.Check)
}

// dev records a deviation, unless it is about a field of a signal frame
// the vector or the command line masks (rule 3). Masks are for signal
// frames only: a forwarded data frame's fields are rule 8's, which allows
// no more than its routing rewrites (a mask on ip.dscp for the device's
// BTS must not let it remark the tenant's data).
func (k *devChecker) dev(d Deviation) {
	if k.masked(&d) {
		return
	}
	// One fault, one deviation: a field of a frame that two checks of one
	// rule find wrong (a signal's DSCP is not the configured one, and not
	// the reference's) is reported once, by the first.
	if d.Frame > 0 {
		key := d.Check + "\x00" + d.Field
		if d.Frame != k.seenFrame {
			k.seenFrame, k.seen = d.Frame, k.seen[:0]
		} else if slices.Contains(k.seen, key) {
			return
		}
		k.seen = append(k.seen, key)
	}
	if d.Frame > 0 && d.Frame == k.curNo && k.curInbound && !k.tester {
		// The pcapng says the capturing interface received this frame: on
		// a capture host that is what the device sent, but a capture taken
		// on the device's own port in both directions holds its input too.
		d.Detail = strings.TrimPrefix(d.Detail+"; ", "; ") + "the capture flags this frame inbound (epb_flags): if it was taken on the device's own port in both directions, keep only what the device sends (tcpdump -Q out)"
	}
	if explainedByDrops(&d) && k.rep.byName[d.Check] != nil {
		k.undecidedOf(d.Port).hold(d, k.rep.maxShown)
		return
	}
	k.rep.add(d)
}

// refOut takes a frame the reference model sent.
func (k *devChecker) refOut(o device.Out) {
	k.refNo++
	k.rep.Frames.Model++
	if k.c.Role == device.RoleNIC && o.Port == device.HostPort && !k.hasHost {
		return
	}
	if o.Generated {
		k.noteSignal(o.Port, o.Time)
		switch o.Kind {
		case device.KindBTS, device.KindCIM:
			if k.sfc != nil {
				k.sfc.refSignal(o, k.refNo)
				return
			}
		case device.KindPFC, device.KindPause:
			k.pfc.ref(k, o, k.refNo)
			return
		}
		if k.sch.ref(o, k.refNo) {
			return
		}
		k.gen.ref(k, o, k.refNo)
		return
	}
	var m device.Meta
	device.Parse(o.Frame, &m, &k.cp)
	n := k.items.push(256)
	it := k.item(n)
	key := keyOf(&m, o.Port)
	q := k.flowQ(&key)
	if q == nil {
		q = &dataQ{port: o.Port}
		k.dq[key] = q
		k.qcache.put(&key, q)
	}
	*it = dataItem{t: o.Time, no: k.refNo, q: q, hash: k.hash(o.Frame, &m), kind: m.Kind}
	if k.onlyICRC {
		it.icrcSt = icrcNone
		if end, has := icrcEnd(o.Frame, &m, &k.cp); has {
			it.icrcSt, it.icrc = icrcHas, binary.LittleEndian.Uint32(o.Frame[end-4:end])
		}
	}
	if !k.takeNow(o, q, it) {
		it.data = k.buf(o.Frame)
		q.items = append(q.items, n)
	}
	// What the next frame will be written to was last used thousands of
	// frames ago: ask for it now, so that its cache misses overlap the
	// model's work instead of stalling the next refOut.
	if len(k.items.buf) > 0 {
		prefetch.Pointer(unsafe.Pointer(k.item(n+1)), unsafe.Sizeof(dataItem{}))
	}
	if p := len(k.pool); p > 0 {
		prefetch.Bytes(k.pool[p-1][:cap(k.pool[p-1])], len(o.Frame))
	}
}

// refFire takes a decision of the reference SFC switch.
func (k *devChecker) refFire(f Firing) { k.sfc.refFire(f) }

// afterInput runs after each input frame reached the model at r.t: the
// reference is complete up to r.t, so device frames up to r.t − lag can
// be checked.
func (k *devChecker) afterInput(r *record) {
	m := &k.inMeta // parsed by beforeInput
	if m.Kind == device.KindData {
		key := keyOf(m, 0)
		if _, ok := k.incache.get(&key); !ok {
			k.inFlows[key] = struct{}{}
			k.incache.put(&key, true)
		}
	} else if k.c.Role == device.RoleNIC && r.port != device.HostPort && m.Kind.Signal() {
		if k.inSignals == nil {
			k.inSignals = map[dataKey]struct{}{}
		}
		k.inSignals[keyOf(m, 0)] = struct{}{}
	}
	k.sch.input(r)
	k.advance(r.t - k.lag)
}

// beforeInput runs before each input frame reaches the model: the packet
// is indexed as a possible quote before the reference can signal it (a
// signal built the instant its packet arrives found only an older copy of
// the packet, a retransmission, and took its latency from that).
//
// It returns the frame parsed, for the model to take, when the model
// parses with the checker's codepoints (it always does: BuildModel gives
// the device the case's).
func (k *devChecker) beforeInput(r *record) *device.Meta {
	k.inMeta = device.Meta{}
	device.Parse(r.data, &k.inMeta, &k.cp)
	if k.trig != nil {
		k.trig.index(r, &k.inMeta)
	}
	if k.modelCP {
		return &k.inMeta
	}
	return nil
}

// advance checks every device frame at or before lim, then finalizes the
// reference items no later device frame can match; then it judges ahead
// of their turn the next device frames that are surely the reference's
// next frames of their flows (judgeEarly).
//
// A frame read is booked (devLast, the ports that carried a frame:
// book) when this loop would have read it had no frame been judged
// early: every frame at or before lim and the first one after it, in
// order. What a frame judged early changes is then the same as had it
// been judged in its turn.
func (k *devChecker) advance(lim int64) {
	for k.err == nil {
		if k.ahead.head < k.ahead.tail {
			// Judged early; dpend, if any, comes after it.
			e := k.ahead.at(k.ahead.head)
			if !e.booked {
				k.book(e.t, e.port)
				e.booked = true
			}
			if e.t > lim {
				break
			}
			k.ahead.head++
			continue
		}
		if k.dpend == nil {
			if k.deof {
				break
			}
			r, err := k.readDev()
			if err == io.EOF {
				k.deof = true
				break
			}
			if err != nil {
				k.err = err
				return
			}
			k.dpend, k.dbooked, k.dparsed = r, false, false
		}
		if !k.dbooked {
			k.book(k.dpend.t, k.dpend.port)
			k.dbooked = true
		}
		if k.dpend.t > lim {
			break
		}
		r := k.dpend
		var parsed *device.Meta
		if k.dparsed {
			parsed = &k.dmeta // judgeEarly parsed it and left it for its turn
		}
		k.dpend = nil
		k.rep.Frames.Expected++
		k.devFrame(r, parsed)
	}
	if lim > k.dlim {
		k.dlim = lim
	}
	k.expire(false)
	k.judgeEarly()
}

// readDev reads the next device frame: the error a read ahead of its
// turn met (judgeEarly) is returned in its turn.
func (k *devChecker) readDev() (*record, error) {
	if err := k.derr; err != nil {
		return nil, err
	}
	return k.ds.next()
}

// book records that the device capture carried a frame at t on port.
func (k *devChecker) book(t int64, port int) {
	k.devLast = max(k.devLast, t)
	if !k.devCarried(port) {
		k.release(port)
		if uint(port) < uint(len(k.devLow)) {
			k.devLow[port] = true
		} else {
			k.devPorts[port] = true
		}
	}
}

// judgeAhead turns judgeEarly on; the tests turn it off to compare
// reports.
var judgeAhead = true

// earlyFrame is a device frame judged ahead of its turn.
type earlyFrame struct {
	t      int64
	port   int
	booked bool
}

// judgeEarly judges the next device frames while each is a data frame
// equal to the first pending frame of its flow queue, instead of
// waiting for the reference to run lag past it: the items, queues and
// copies it leaves are then still in cache. Whatever the reference sends
// later goes after that frame in the queue, and no earlier device frame
// is left to judge, so judged in its turn the device frame would be
// paired with the same frame, in the same way (take), provided that
// frame is not finalized first: it is not, when it is no more than the
// window older than the device frame (expire finalizes a frame a window
// after it, and the device frame is judged in its turn at lim ≥ its
// time). Anything else waits for its turn.
func (k *devChecker) judgeEarly() {
	if !k.aheadOK() {
		return
	}
	for k.err == nil {
		r := k.dpend
		if r == nil {
			if k.deof || k.derr != nil {
				return
			}
			var err error
			r, err = k.ds.next()
			if err != nil {
				k.derr = err // returned in its turn
				return
			}
			k.dpend, k.dbooked, k.dparsed = r, false, false
		}
		if !k.aheadFrame(r) {
			return
		}
		if k.takeSame(r) {
			continue
		}
		if !k.dparsed {
			k.dmeta = device.Meta{}
			device.Parse(r.data, &k.dmeta, &k.cp)
			k.dparsed = true
			k.dkey = keyOf(&k.dmeta, r.port)
			if k.dmeta.Kind == device.KindData {
				k.dhash = k.hash(r.data, &k.dmeta)
			}
		}
		m := &k.dmeta
		if m.Kind != device.KindData {
			return
		}
		q := k.flowQ(&k.dkey)
		if q == nil || q.head == len(q.items) {
			return
		}
		it := k.item(q.items[q.head])
		if it.state == itemMatched || it.hash != k.dhash || len(it.data) != len(r.data) || it.t+k.win < r.t {
			return
		}
		// matchData would find it at the head of its queue.
		k.takeAhead(r, m, q, it, k.dhash)
	}
}

// aheadOK reports whether device frames may be judged ahead of their
// turn at all: not with an ignore filter (background is decided in
// devFrame), nor for a NIC.
func (k *devChecker) aheadOK() bool {
	return judgeAhead && k.ign == nil && k.c.Role != device.RoleNIC
}

// aheadFrame reports whether device frame r may be judged ahead of its
// turn: whole (not snapped), and not before the earliest time a frame
// is judged.
func (k *devChecker) aheadFrame(r *record) bool { return r.snapped == 0 && r.t >= -k.early }

// takeAhead judges dpend, r, ahead of its turn as the reference's frame
// it of flow queue q (r parsed as m, or m nil: see take), as devFrame
// would (a data frame is no signal: offKind counts it), and notes that
// it was judged.
func (k *devChecker) takeAhead(r *record, m *device.Meta, q *dataQ, it *dataItem, h uint64) {
	k.curNo, k.curInbound = r.no, r.dir == 1
	if k.offCheck != nil {
		k.offCheck.Checked++
	}
	k.rep.Frames.Expected++
	k.take(r, m, q, nil, it, h)
	*k.ahead.at(k.ahead.push(256)) = earlyFrame{t: r.t, port: r.port, booked: k.dbooked}
	k.dpend = nil
}

// takeNow judges the next device frame, read and waiting (dpend), the
// reference's frame it that is being sent (o) when takeSame would take it
// once it is queued: the device frame is on its port with its very
// octets, a data frame whose only volatile field is the ICRC, and it is
// the first pending frame of its flow queue q (q has none yet). The frame
// then enters the ring matched, with no copy of its octets, and q not at
// all (it would leave q at once).
func (k *devChecker) takeNow(o device.Out, q *dataQ, it *dataItem) bool {
	r := k.dpend
	if r == nil || !k.aheadOK() || r.port != o.Port || !k.aheadFrame(r) ||
		it.kind != device.KindData || it.icrcSt == icrcUnknown || q.head != len(q.items) || it.t+k.win < r.t || string(r.data) != string(o.Frame) {
		return false
	}
	k.takeAhead(r, nil, q, it, it.hash)
	return true
}

// sameScan is how many of the reference's frames from the ring's head
// takeSame looks at.
const sameScan = 32

// takeSame is judgeEarly's first try, which neither parses nor hashes
// the device frame: the reference's first frame not yet matched on its
// port, found near the ring's head, is the first of its flow queue too
// (a queue holds one port's frames in number order); when that frame is
// a data frame with the device frame's very octets, matchData would take
// it (equal octets, equal hash), and the device frame parses as it did.
func (k *devChecker) takeSame(r *record) bool {
	end := min(k.items.tail, k.items.head+sameScan)
	for n := k.items.head; n < end; n++ {
		it := k.item(n)
		if it.state == itemMatched || it.q.port != r.port {
			continue
		}
		if it.kind != device.KindData || it.icrcSt == icrcUnknown || it.t+k.win < r.t || string(it.data) != string(r.data) {
			return false
		}
		k.takeAhead(r, nil, it.q, it, it.hash)
		return true
	}
	return false
}

// backgroundKind names the kind of a frame that is no signal of a scheme
// under test and no frame of a scenario flow (conformance.md rule 2).
func backgroundKind(m *device.Meta, frame []byte) string {
	switch {
	case m.EtherType == 0x0806:
		return "arp"
	case m.EtherType == 0x88cc:
		return "lldp"
	case len(frame) >= 6 && frame[0] == 0x01 && frame[1] == 0x80 && frame[2] == 0xc2 && frame[3] == 0 && frame[4] == 0 && (frame[5] == 0 || frame[5] == 0x0e) && m.EtherType < 0x600:
		return "stp"
	case m.IP() && m.Proto == 58 && m.L4 > 0 && m.L4 < len(frame) && frame[m.L4] >= 133 && frame[m.L4] <= 137:
		return "nd"
	case m.IP() && (m.Proto == 1 || m.Proto == 58):
		return "icmp"
	case m.IP() && m.Proto == 6:
		return "tcp"
	case m.IP() && m.Proto == 17:
		return "udp"
	case m.IP():
		return fmt.Sprintf("ip-proto-%d", m.Proto)
	case m.EtherType < 0x600:
		return "llc"
	}
	return fmt.Sprintf("ethertype-0x%04x", m.EtherType)
}

// background counts a device frame no rule checks.
func (k *devChecker) background(r *record, kind string) {
	k.bg.Total++
	k.bg.ByKind[kind]++
	if len(k.bg.Shown) < k.rep.maxShown {
		k.bg.Shown = append(k.bg.Shown, BackgroundFrame{Frame: r.no, Port: k.c.PortName(r.port), Time: r.t, Kind: kind})
	}
}

// underTest reports whether a device frame is a signal of a scheme under
// test.
func (k *devChecker) underTest(m *device.Meta, frame []byte) bool {
	switch m.Kind {
	case device.KindBTS, device.KindCIM:
		return k.sfc != nil || k.gen.has(m.Kind)
	case device.KindPFC:
		return k.c.Has(SchemePFC) || k.c.Has(SchemeSFCP) || k.gen.has(m.Kind)
	case device.KindPause:
		return k.c.Has(SchemePFC) || k.c.Has(SchemeSFCP) || k.gen.has(m.Kind)
	case device.KindPostcard:
		return k.c.Has(SchemePBFS) || k.gen.has(m.Kind)
	case device.KindExperimental:
		switch subtype(frame, m) {
		case layers.SubtypeBFC:
			return k.c.Has(SchemeBFC)
		case layers.SubtypeFGCredit, layers.SubtypeFGPause:
			return k.c.Has(SchemeFloodgate)
		}
		return k.gen.has(m.Kind)
	}
	return false
}

// devFrame judges device frame r in its turn; parsed is its parse when
// judgeEarly made one (nil: devFrame parses it).
func (k *devChecker) devFrame(r *record, parsed *device.Meta) {
	k.curNo, k.curInbound = r.no, r.dir == 1
	var m device.Meta
	if parsed != nil {
		m = *parsed
	} else {
		device.Parse(r.data, &m, &k.cp)
	}
	if k.ign != nil {
		k.ignFrame.Err = k.ignFrame.P.Decode(r.data)
		k.ignFrame.Number, k.ignFrame.Len, k.ignFrame.CapLen = r.no, max(r.snapped, len(r.data)), len(r.data)
		if k.ign.Match(&k.ignFrame) {
			k.background(r, "ignore")
			return
		}
	}
	if k.c.Role == device.RoleNIC && r.port == device.HostPort && !k.hasHost {
		return
	}
	signal := k.underTest(&m, r.data)
	off := ""
	if !signal && (k.c.Role != device.RoleNIC || r.port != device.HostPort) {
		// (What a NIC hands its host is what it received, judged as
		// delivered frames below, not as signals it sends.)
		off = k.offKind(r, &m)
	}
	if r.snapped > 0 {
		// Cut by the capture's snap length: background can be counted
		// from its first octets (rule 2: never a deviation), anything a
		// rule judges cannot be (rule 9: the capture is unusable).
		if signal || off != "" || !k.surelyBackground(r, &m) {
			k.err = &UnusableError{File: k.ds.file, Frame: r.no,
				Reason: fmt.Sprintf("cut to %d of its %d octets by the capture's snap length, and a rule judges it (%s): capture whole frames", len(r.data), r.snapped, describe(r.data, &k.cp))}
			return
		}
		k.background(r, backgroundKind(&m, r.data))
		return
	}
	// Before time 0 (rule 1): within the early tolerance a frame is a
	// clock offset, checked as usual; earlier, set-up chatter is ignored
	// and a signal is unjustified.
	if r.t < -k.early && !signal && off == "" {
		k.background(r, "before-t0")
		return
	}
	if r.t < -k.early {
		rule := k.justifiedRule(&m, r.data)
		if off != "" {
			rule = ruleSignalOff
		}
		k.dev(Deviation{Check: rule, Frame: r.no, Port: k.c.PortName(r.port), Time: r.t, Field: m.Kind.String(),
			Expected: fmt.Sprintf("no signal before time 0 (the first input frame) by more than %s", fmtTime(k.early)), Actual: describe(r.data, &k.cp),
			Detail: "a signal before the test began is unjustified"})
		return
	}
	if k.matchData(r, &m, signal || off != "") {
		return
	}
	if off != "" {
		k.dev(Deviation{Check: ruleSignalOff, Frame: r.no, Port: k.c.PortName(r.port), Time: r.t, Field: m.Kind.String(),
			Expected: "no " + off + " (the reference sends none: its scheme is off, or a device of this role sends none)", Actual: describe(r.data, &k.cp),
			Detail: "a signal the reference never sends is unjustified; an ignore: filter names frames a vendor accepts"})
		return
	}
	if signal {
		switch m.Kind {
		case device.KindBTS, device.KindCIM:
			if k.sfc != nil {
				k.sfc.devSignal(r, &m)
				return
			}
		case device.KindPFC, device.KindPause:
			if !k.gen.has(m.Kind) {
				k.pfc.dev(k, r, &m)
				return
			}
		}
		if k.sch.dev(r, &m) {
			return
		}
		k.gen.dev(k, r, &m)
		return
	}
	if m.Kind == device.KindData || m.Kind == device.KindOther {
		if _, ok := k.inFlows[keyOf(&m, 0)]; ok {
			k.unmatchedData(r, &m)
			return
		}
	}
	if k.c.Role == device.RoleNIC && r.port == device.HostPort {
		// A signal of the wire that the NIC hands its host, equal to
		// none the reference delivers: altered, or one the reference
		// consumes (DATA-EXTRA), not background.
		if _, ok := k.inSignals[keyOf(&m, 0)]; ok {
			k.unmatchedData(r, &m)
			return
		}
	}
	k.background(r, backgroundKind(&m, r.data))
}

// surelyBackground reports whether a device frame cut by the snap length
// is background whatever its missing octets held: a frame of no signal
// EtherType and no IP (LLDP, ARP, STP, others), or an IP packet whose
// upper-layer protocol is known and is no UDP (ICMP, MLD, ND, TCP: every
// signal and RoCEv2 data frame is UDP), or UDP whose ports are there and
// name no signal or RoCEv2 port and whose flow did not enter the device.
// Anything less certain (the ports cut, an IPv6 RoCEv2 frame cut before
// its QP, which names no flow) is not.
func (k *devChecker) surelyBackground(r *record, m *device.Meta) bool {
	switch {
	case m.Kind == device.KindMalformed:
		return false
	case !m.IP():
		switch m.EtherType {
		case device.EtherTypeMACControl, device.EtherTypeCIM, device.EtherTypeExp,
			device.EtherTypeIPv4, device.EtherTypeIPv6, device.EtherTypeVLAN, device.EtherTypeQinQ, device.EtherTypeQinQ9100:
			return false // a signal's EtherType, or IP or a tag cut short
		}
		return true
	case m.Proto != 17:
		// The upper-layer protocol is known (device.Parse walked the
		// extension headers to it, even when the capture cut the header
		// that follows); an extension header's number means the walk
		// stopped short, and the protocol is unknown.
		return !layers.IsIPv6Ext(m.Proto)
	case m.L4 == 0 || m.L4+4 > len(r.data):
		return false // the ports are not there to say
	}
	for _, p := range [...]uint16{m.SrcPort, m.DstPort} {
		if p == k.cp.RoCEPort || p == k.cp.BTSPort || p == k.cp.CIMPort || p == k.cp.PostcardPort {
			return false
		}
	}
	_, flow := k.inFlows[keyOf(m, 0)]
	return !flow
}

// offKind names a device frame that is a signal of a scheme the case
// leaves off ("" for any other frame, which it counts as checked by
// SIGNAL-OFF): a PFC or 802.3x PAUSE from a switch without PFC or SFC-P,
// a BTS or CIM where no SFC runs, a BFC, Floodgate or CC-postcard frame
// without its scheme. Rule 2 checks "signal frames of the schemes under
// test" and makes the rest background, but an SFC-only switch that sends
// PAUSE 0xFFFF stops every class of its neighbour: a lenient reading
// would PASS it, so such a frame is unjustified (rule 7) unless the
// vector's or the command line's ignore: filter names it, or the
// reference forwards it as data (a remote BTS through a PFC-only switch).
func (k *devChecker) offKind(r *record, m *device.Meta) string {
	if k.offCheck != nil {
		k.offCheck.Checked++ // (a pointer: this runs for every device frame)
	}
	switch m.Kind {
	case device.KindBTS, device.KindCIM, device.KindPFC, device.KindPause, device.KindPostcard:
		return m.Kind.String()
	case device.KindExperimental:
		switch subtype(r.data, m) {
		case layers.SubtypeBFC:
			return "BFC pause"
		case layers.SubtypeFGCredit:
			return "Floodgate credit"
		case layers.SubtypeFGPause:
			return "Floodgate dst-pause"
		}
	}
	return ""
}

// justifiedRule is the JUSTIFIED rule of a device signal's family.
func (k *devChecker) justifiedRule(m *device.Meta, frame []byte) string {
	switch m.Kind {
	case device.KindBTS, device.KindCIM:
		if k.sfc != nil {
			return k.sfcFam() + "-JUSTIFIED"
		}
	case device.KindPFC:
		return "PFC-JUSTIFIED"
	case device.KindPause:
		return "PAUSE-JUSTIFIED"
	case device.KindPostcard:
		return "PBFS-JUSTIFIED"
	case device.KindExperimental:
		switch subtype(frame, m) {
		case layers.SubtypeBFC:
			return "BFC-JUSTIFIED"
		case layers.SubtypeFGCredit, layers.SubtypeFGPause:
			return "FG-JUSTIFIED"
		}
	}
	return "GEN-JUSTIFIED"
}

// matchData matches a device frame with the reference's data frames of
// its port and flow. When onlyExact is set (a signal kind, maybe a
// forwarded one) it only looks for an equal frame. It reports whether it
// judged the frame: matched, or a duplicate of one of the last frames
// matched on its port and flow (DATA-DUP).
func (k *devChecker) matchData(r *record, m *device.Meta, onlyExact bool) bool {
	key := keyOf(m, r.port)
	q := k.flowQ(&key)
	if q == nil {
		return false
	}
	h := k.hash(r.data, m)
	live := q.live()
	for i, n := range live {
		if i >= 4096 {
			break
		}
		it := k.item(n)
		// Equal keyed 64-bit hashes (a fresh seed per run) and lengths
		// stand for equal frames: comparing the octets too would read the
		// reference's copy back from memory for every frame.
		if it.state == itemMatched || it.hash != h || len(it.data) != len(r.data) {
			continue
		}
		k.take(r, m, q, live[:i], it, h)
		return true
	}
	if q.dupOf(h) {
		// Equal to one of the last frames of its port and key that the
		// device was matched for, whatever its kind (a data frame, a CIM
		// a NIC delivers to its host, a signal a switch forwards): the
		// frame is the reference's, so a second copy is a duplicate
		// (rule 8), never background, and not an alteration of the
		// flow's next frame.
		k.rep.checked(ruleDataDup, 1)
		k.dev(Deviation{Check: ruleDataDup, Frame: r.no, Port: k.c.PortName(r.port), Time: r.t, Field: "frame",
			Expected: "(none)", Actual: describe(r.data, &k.cp), Detail: "duplicate of a frame of its flow already delivered"})
		return true
	}
	return false
}

// take judges device frame r (parsed as m, hashed h) the reference's
// frame it of flow queue q, after the pending frames before (which it
// overtook). m is nil when r holds the very octets of it and the ICRC is
// the only volatile field (it.icrcSt is not icrcUnknown): what
// checkICRCMatched would find is known then.
func (k *devChecker) take(r *record, m *device.Meta, q *dataQ, before []uint64, it *dataItem, h uint64) {
	for _, c := range k.matchChecks {
		if c != nil {
			c.Checked++
		}
	}
	if it.state == itemOvertaken {
		k.dev(Deviation{Check: ruleDataOrder, Frame: r.no, Ref: it.no, Port: k.c.PortName(r.port), Time: r.t, Field: "frame.order",
			Expected: "before later frames of its flow", Actual: "after them", Detail: describe(r.data, &k.cp)})
	}
	for _, n := range before {
		if x := k.item(n); x.state == itemPending {
			x.state = itemOvertaken
		}
	}
	k.timing(ruleDataTiming, r, it.no, it.t, "frame")
	if m != nil {
		k.checkICRCMatched(r, m, it)
	} else if it.icrcSt == icrcHas && k.icrcCheck != nil {
		k.icrcCheck.Checked++ // (the octets are the reference's: see checkICRCMatched)
	}
	it.state = itemMatched
	q.matched(h, r.t)
	k.free(it.data)
	it.data = nil
	q.trim(k)
}

// unmatchedData reports a data frame that equals nothing the reference
// sent on its port: a duplicate, an altered frame (compared with the
// oldest pending frame of its flow) or an added one.
func (k *devChecker) unmatchedData(r *record, m *device.Meta) {
	port := k.c.PortName(r.port)
	k.rep.checked(ruleDataAltered, 1)
	key := keyOf(m, r.port)
	q := k.flowQ(&key) // a duplicate of its last matched frame: matchData
	var head *dataItem
	if q != nil {
		for _, n := range q.live() {
			if it := k.item(n); it.state != itemMatched {
				head = it
				break
			}
		}
	}
	if head != nil && head.t <= r.t+k.win {
		// A router's rewrites (rule 8): the frame stands for the first
		// pending frame of its flow it is a routed copy of.
		live := q.live()
		for i, n := range live {
			if i >= 4096 {
				break
			}
			it := k.item(n)
			if it.state == itemMatched || !k.routedAs(it.data, r.data, r.port) {
				continue
			}
			k.rep.checked(ruleDataLoss, 1)
			k.rep.checked(ruleDataOrder, 1)
			k.rep.checked(ruleDataTiming, 1)
			k.rep.checked(ruleDataDup, 1)
			k.rep.checked(ruleDataExtra, 1)
			if it.state == itemOvertaken {
				k.dev(Deviation{Check: ruleDataOrder, Frame: r.no, Ref: it.no, Port: port, Time: r.t, Field: "frame.order",
					Expected: "before later frames of its flow", Actual: "after them", Detail: describe(r.data, &k.cp)})
			}
			for _, n := range live[:i] {
				if x := k.item(n); x.state == itemPending {
					x.state = itemOvertaken
				}
			}
			k.timing(ruleDataTiming, r, it.no, it.t, "frame")
			k.checkICRC(r, m, it.data)
			it.state = itemMatched
			q.matched(k.hash(r.data, m), r.t)
			k.free(it.data)
			it.data = nil
			q.trim(k)
			return
		}
	}
	if head == nil || head.t > r.t+k.win {
		k.rep.checked(ruleDataExtra, 1)
		k.dev(Deviation{Check: ruleDataExtra, Frame: r.no, Port: port, Time: r.t, Field: "frame",
			Expected: "(none)", Actual: describe(r.data, &k.cp), Detail: "a frame of a scenario flow the reference does not send on this port"})
		k.checkICRC(r, m, nil)
		return
	}
	// A RoCEv2 packet with another PSN than the flow's next one is another
	// packet (one the reference drops, say), not that one altered: an
	// extra frame, and the flow's next frame stays pending (matched by a
	// later device frame, or missing). Taken as an alteration it shifted
	// the pairing of every later frame of the flow (15 DATA-ALTERED for
	// one extra frame).
	var hm device.Meta
	device.Parse(head.data, &hm, &k.cp)
	if a, okA := rocePSN(head.data, &hm); okA {
		if b, okB := rocePSN(r.data, m); okB && a != b {
			k.rep.checked(ruleDataExtra, 1)
			k.dev(Deviation{Check: ruleDataExtra, Frame: r.no, Port: port, Time: r.t, Field: "bth.psn",
				Expected: fmt.Sprintf("%d (the flow's next frame on this port)", a), Actual: fmt.Sprint(b),
				Detail: "a packet of a scenario flow the reference does not send on this port"})
			k.checkICRC(r, m, nil)
			return
		}
	}
	if k.df == nil {
		k.df = newDiffer(k.c.Device.Codepoints)
	}
	diffs := k.df.diff(head.data, r.data, 8, k.vol)
	// A checksum the device left stale (TTL − 1 without its update) equals
	// the reference's octets, so only the TTL was named; a checksum valid
	// in the reference's frame and not in the device's is named too.
	for _, f := range checksumsValid(r.data, m) {
		if !slices.ContainsFunc(diffs, func(d FieldDiff) bool { return d.Field == f }) && !slices.Contains(checksumsValid(head.data, &hm), f) {
			diffs = append(diffs, FieldDiff{f, "a valid checksum", "invalid (not updated for the fields above)"})
		}
	}
	for _, fd := range diffs {
		k.dev(Deviation{Check: ruleDataAltered, Frame: r.no, Ref: head.no, Port: port, Time: r.t, Field: fd.Field,
			Expected: fd.Expected, Actual: fd.Actual, Detail: "altered"})
	}
	k.checkICRC(r, m, head.data)
	head.state = itemMatched
	k.free(head.data)
	head.data = nil
	q.trim(k)
}

// checkICRCMatched is checkICRC for a device frame matched to the
// reference frame it: equal to it but for the volatile fields. When the
// ICRC is the only volatile field, the frames differ at most in the ICRC
// octets, so the device frame has an ICRC exactly when the reference's
// has; and when those octets are the reference's too, the frames are the
// same octets: the device's ICRC verifies exactly when the reference's
// does, and checkICRC reports a reference's wrong ICRC in neither case.
// The check is then counted without computing the ICRC.
func (k *devChecker) checkICRCMatched(r *record, m *device.Meta, it *dataItem) {
	switch it.icrcSt {
	case icrcNone:
		return
	case icrcHas:
		if end, has := icrcEnd(r.data, m, &k.cp); has && binary.LittleEndian.Uint32(r.data[end-4:end]) == it.icrc {
			if k.icrcCheck != nil {
				k.icrcCheck.Checked++
			}
			return
		}
	}
	k.checkICRC(r, m, it.data)
}

// checkICRC verifies the RoCEv2 ICRC of a device frame (parsed as m),
// unless the reference frame it stands for carries a wrong one too.
func (k *devChecker) checkICRC(r *record, m *device.Meta, ref []byte) {
	ok, has, want := icrcOKMeta(r.data, m, &k.cp)
	if !has {
		return
	}
	k.rep.checked(ruleDataICRC, 1)
	if ok {
		return
	}
	if ref != nil {
		if rok, rhas, _ := icrcOK(ref, &k.cp); rhas && !rok {
			return
		}
	}
	end := min(m.L3+m.IPLen, len(r.data))
	got := binary.LittleEndian.Uint32(r.data[end-4 : end])
	k.dev(Deviation{Check: ruleDataICRC, Frame: r.no, Port: k.c.PortName(r.port), Time: r.t, Field: "bth.icrc",
		Expected: fmt.Sprintf("0x%08x", want), Actual: fmt.Sprintf("0x%08x", got), Detail: "ICRC does not verify"})
}

// icrcOK computes the ICRC of a RoCEv2 frame: ok, whether the frame has
// one, and the right value.
func icrcOK(frame []byte, cp *device.Codepoints) (ok, has bool, want uint32) {
	var m device.Meta
	device.Parse(frame, &m, cp)
	return icrcOKMeta(frame, &m, cp)
}

// icrcEnd is the end of the IP packet of a RoCEv2 frame parsed as m (its
// ICRC the 4 octets before it), and whether the frame has an ICRC.
func icrcEnd(frame []byte, m *device.Meta, cp *device.Codepoints) (end int, has bool) {
	if m.Kind != device.KindData || m.Proto != 17 || m.DstPort != cp.RoCEPort || m.Payload == 0 {
		return 0, false
	}
	end = m.L3 + m.IPLen
	if end > len(frame) || end-4 < m.Payload+12 {
		return 0, false
	}
	return end, true
}

// icrcOKMeta is icrcOK for a frame already parsed as m.
func icrcOKMeta(frame []byte, m *device.Meta, cp *device.Codepoints) (ok, has bool, want uint32) {
	end, has := icrcEnd(frame, m, cp)
	if !has {
		return false, false, 0
	}
	crc, err := layers.ComputeICRC(frame[m.L3:end])
	if err != nil {
		return false, false, 0
	}
	return binary.LittleEndian.Uint32(frame[end-4:end]) == crc, true, crc
}

// expire finalizes what no device frame can match any more: data frames
// the device never sent, signals it never matched. At the end (all) every
// pending item is finalized.
func (k *devChecker) expire(all bool) {
	lim := k.dlim
	for k.items.head < k.items.tail {
		it := k.item(k.items.head)
		if it.state == itemMatched {
			// A matched frame leaves the ring at once (no queue names it:
			// a queue's first frame is pending), so that the ring holds
			// the frames not yet matched, a few microseconds' worth, and
			// not the whole window: its slots are reused while in cache.
			// A pending frame behind it still waits until the window has
			// passed every frame before it (aheadT), as it did when the
			// matched ones left with the window.
			k.aheadT = max(k.aheadT, it.t)
			k.items.head++
			continue
		}
		if !all && max(it.t, k.aheadT)+k.win >= lim {
			break
		}
		k.items.head++ // (its slot is taken again by the next refOut, not before)
		k.rep.checked(ruleDataLoss, 1)
		d := Deviation{Check: ruleDataLoss, Ref: it.no, Port: k.c.PortName(it.q.port), Time: it.t, Field: "frame",
			Expected: describe(it.data, &k.cp), Actual: "(none)", Detail: fmt.Sprintf("reference frame %d never sent by the device", it.no)}
		if it.state == itemOvertaken {
			// A later frame of its flow was captured: the loss is in the
			// capture, however near its end (rule 8 before rule 9).
			d.Detail += "; later frames of its flow were sent"
			k.dev(d)
		} else {
			k.missing(d, it.q.port)
		}
		it.state = itemMatched
		k.free(it.data)
		it.data = nil
		it.q.trim(k)
	}
	if k.sfc != nil {
		k.sfc.expire(all)
	}
	if k.trig != nil {
		k.trig.expire(all)
	}
	k.sch.expire(all)
	k.pfc.expire(k, all)
	k.gen.expire(k, all)
	// Forget idle flows now and then so memory follows the window, not the
	// number of flows ever seen.
	if all || lim-k.gcAt > 4*k.win {
		k.gcAt = lim
		for key, q := range k.dq {
			if len(q.live()) == 0 && (all || q.lastT < lim-k.win) {
				delete(k.dq, key)
				k.qcache = flowCache[*dataQ]{}
			}
		}
		if k.sfc != nil {
			k.sfc.gc(lim)
		}
	}
}

// Rule ids of the data rules.
const (
	ruleDataLoss    = "DATA-LOSS"
	ruleDataDup     = "DATA-DUP"
	ruleDataOrder   = "DATA-ORDER"
	ruleSignalOff   = RuleSignalOff
	ruleDataAltered = "DATA-ALTERED"
	ruleDataExtra   = "DATA-EXTRA"
	ruleDataTiming  = "DATA-TIMING"
	ruleDataICRC    = "DATA-ICRC"
)

func (k *devChecker) finish() {
	k.dlim = math.MaxInt64
	k.expire(true)
	k.rep.checked("CAP-END", 1)
	switch {
	case k.lostEnd > 0 && k.devLast == math.MinInt64:
		k.dev(Deviation{Check: "CAP-END", Port: "-", Field: "capture",
			Expected: fmt.Sprintf("frames up to %s at least (the reference's first at %s plus the time tolerance)", fmtTime(k.lostAt+k.tol), fmtTime(k.lostAt)),
			Actual:   "no frame at all", Detail: fmt.Sprintf("the device capture holds no frame: %d reference frame(s) not judged", k.lostEnd)})
	case k.lostEnd > 0:
		k.dev(Deviation{Check: "CAP-END", Port: "-", Time: k.devLast, Field: "capture end",
			Expected: fmt.Sprintf("at or after %s (the reference's frame at %s plus the time tolerance)", fmtTime(k.lostAt+k.tol), fmtTime(k.lostAt)),
			Actual:   fmtTime(k.devLast), Detail: fmt.Sprintf("the capture ends before the reference's frame at %s: %d reference frame(s) after its end not judged", fmtTime(k.lostAt), k.lostEnd)})
	}
	k.rep.checked("CAP-DROPS", 1)
	// The ports whose interfaces the device capture says dropped frames
	// (all of them when a dropping interface is no port of the case).
	dropped, all := map[string]bool{}, false
	if st := k.ds; st.drops != nil {
		for i, n := range st.drops.ByIface {
			switch p := st.port(i); {
			case n == 0:
			case i >= st.r.NInterfaces():
				all = true // a record for an interface never declared: which port?
			case p == noPort:
				// An interface that is no port of the case: its drops
				// explain nothing on the case's ports.
			default:
				dropped[k.c.PortName(p)] = true
			}
		}
	}
	var notJudged heldDevs
	for _, port := range sortedKeys(k.undecided) {
		h := k.undecided[port]
		if !all && !dropped[port] {
			k.report(h) // a port that dropped nothing: what it lacks is missing
			continue
		}
		// What the device capture lacks on a port it dropped frames of
		// may be what it dropped: not judged, INCONCLUSIVE (rule 9).
		for _, d := range h.devs {
			d.Detail += "; not judged: the capture dropped frames on this port"
			k.rep.addNotJudged(d)
		}
		for id, n := range h.count {
			if extra := n - int64(countOf(h.devs, id)); extra > 0 {
				k.rep.addNotJudgedCount(id, extra)
			}
			if notJudged.count == nil {
				notJudged.count = map[string]int64{}
			}
			notJudged.count[id] += n
		}
		notJudged.total += h.total
	}
	for _, st := range []*stream{k.in, k.ds} {
		if st != nil && st.drops != nil && st.drops.Dropped > 0 {
			detail := st.file + ": the pcapng's interface statistics or packet blocks count frames the capture dropped"
			if st == k.ds && notJudged.total > 0 {
				detail += fmt.Sprintf("; %d deviation(s) on the ports it dropped frames of not judged (%s)", notJudged.total, notJudged.summary())
			}
			k.dev(Deviation{Check: "CAP-DROPS", Port: "-", Field: "capture", Expected: "no frame dropped by the capture",
				Actual: fmt.Sprintf("%d dropped", st.drops.Dropped), Detail: detail})
		}
	}
	if k.ds.cut {
		k.dev(Deviation{Check: "CAP-END", Port: "-", Time: k.devLast, Field: "capture file",
			Expected: "whole to its end", Actual: fmt.Sprintf("cut in the middle of the record after frame %d", k.ds.cutAt),
			Detail: "the capture was interrupted: what the device sent after it is unknown"})
	}
	var ports []int
	for p := range k.held {
		ports = append(ports, p)
	}
	for _, p := range sortInts(ports) {
		for id, n := range k.held[p].count {
			k.rep.notJudged(id, n)
		}
		k.rep.checked("CAP-PORTS", 1)
		k.dev(Deviation{Check: "CAP-PORTS", Port: k.c.PortName(p), Field: "port " + k.c.PortName(p),
			Expected: "the frames the reference sends on it", Actual: "no frame at all in the device capture",
			Detail: fmt.Sprintf("%d reference frame(s) not judged: was the port captured?", k.held[p].total)})
	}
	k.rep.CaptureDigest = k.ds.Digest()
}

// release reports the deviations held for a port once it carries a
// frame: the port was captured, so what it lacks is missing (unless the
// capture says it dropped frames: k.dev holds them till the end).
func (k *devChecker) release(port int) {
	h := k.held[port]
	if h == nil {
		return
	}
	delete(k.held, port)
	for _, d := range h.devs {
		k.dev(d)
	}
	for id, n := range h.count {
		shown := min(n, int64(k.rep.maxShown))
		if n <= shown {
			continue
		}
		if explainedByDrops(&Deviation{Check: id}) {
			u := k.undecidedOf(k.c.PortName(port))
			if u.count == nil {
				u.count = map[string]int64{}
			}
			u.count[id] += n - shown
			u.total += n - shown
		} else if c := k.rep.byName[id]; c != nil {
			c.Count += n - shown
		}
	}
}

// report reports the deviations h holds, with the counts of those it
// did not keep.
func (k *devChecker) report(h *heldDevs) {
	shown := map[string]int64{}
	for _, d := range h.devs {
		if shown[d.Check] < int64(k.rep.maxShown) {
			k.rep.add(d) // masks were applied when it was held
			shown[d.Check]++
		}
	}
	for id, n := range h.count {
		if c := k.rep.byName[id]; c != nil && n > shown[id] {
			c.Count += n - shown[id]
			if c.Verdict == Pass {
				c.Verdict = Fail
				if c.inconclusive {
					c.Verdict = Inconclusive
				}
			}
		}
	}
	*h = heldDevs{}
}

// countOf counts the deviations of rule id in devs.
func countOf(devs []Deviation, id string) int {
	n := 0
	for _, d := range devs {
		if d.Check == id {
			n++
		}
	}
	return n
}

// summary names the rules of the held deviations with their counts, in
// rule order.
func (h *heldDevs) summary() string {
	var ids []string
	for id := range h.count {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", id, h.count[id])
	}
	return b.String()
}

// sameBytes compares two frames with the checker's volatile fields masked.
func (k *devChecker) sameBytes(a, b []byte) bool {
	if !k.vol.any {
		return bytes.Equal(a, b)
	}
	return equalMasked(k.vol, &k.ma, &k.mb, a, b, &k.cp)
}

// rocePSN returns the BTH PSN of a RoCEv2 frame parsed as m.
func rocePSN(frame []byte, m *device.Meta) (uint32, bool) {
	if !m.HasQP || m.Payload <= 0 || m.Payload+12 > len(frame) {
		return 0, false
	}
	return binary.BigEndian.Uint32(frame[m.Payload+8:]) & 0xffffff, true
}
