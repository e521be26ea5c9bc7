// SPDX-License-Identifier: Apache-2.0

package stats

import (
	"errors"
	"math/bits"
	"net/netip"
	"time"

	"github.com/gopacket/gopacket"
	glayers "github.com/gopacket/gopacket/layers"

	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/layers"
)

// Kind is a kind of pause signal.
type Kind uint8

// The kinds of pause signal.
const (
	KindBTS      Kind = iota // SFC back-to-sender
	KindCIM                  // 802.1Qcz CIM with the SFC pause TLV
	KindDstPause             // Floodgate dst-pause entry
	KindPFC                  // 802.1Qbb PFC, one enabled priority
	KindPause                // 802.3x PAUSE
	nKinds
)

var kindNames = [nKinds]string{"bts", "cim", "fgpause", "pfc", "pause"}

// String returns the protocol name of the kind (bts, cim, fgpause, pfc, pause).
func (k Kind) String() string {
	if k < nKinds {
		return kindNames[k]
	}
	return "kind?"
}

// Observer is told what a Collector sees, in capture order. Rows are pause
// rows (a flow, or an interface and priority) numbered from 0 in order of
// appearance; series are queue-depth series (a congestion point).
type Observer interface {
	// Row announces row id with its label; pfc says it is an (interface,
	// priority) row rather than a flow.
	Row(id int, label string, pfc bool)
	// Interval is a pause of row from from to to (closed by a later
	// signal, a resume, its expiry or the end of the capture).
	Interval(row int, from, to time.Time)
	// Signal is one pause signal for row at t requesting d (0: resume;
	// negative: until resumed).
	Signal(row int, t time.Time, kind Kind, d time.Duration)
	// Series announces queue-depth series id with its label.
	Series(id int, label string)
	// Depth is a queue depth in octets carried by a BTS or postcard.
	Depth(series int, t time.Time, octets uint64)
}

// pauser is the pause state of one row.
type pauser struct {
	row          int
	active       bool
	untilResumed bool
	from, until  int64 // ns since the epoch
	pausedNS     int64
	requestedNS  int64
	signals      int
	resumes      int
	byKind       [nKinds]int
	firstSignal  int64
	lastSignal   int64
}

type flowKey = layers.Flow

type pfcKey struct {
	iface string
	prio  int8   // -1: 802.3x PAUSE, all priorities
	bps   uint64 // the link speed: two interfaces of one name (two sections) at two speeds are two rows
}

type pfcStat struct {
	pauser
	frames int
	quanta uint64
	bps    uint64
}

type reporterKey struct {
	isSwitch bool
	id       uint32
	mac      [6]byte
}

type reporterStat struct {
	bts, cim, postcards int
	origins             [4]int // queue, cache, estimate, other
	series              int    // queue-depth series id, -1 none yet
}

type cnpKey struct {
	src, dst netip.Addr
	qp       uint32
}

type problem struct {
	count  int
	frames []int
}

// maxExamples is how many frame numbers a problem keeps.
const maxExamples = 5

// histBuckets is the number of pause-time histogram buckets: resume, then
// powers of two of microseconds, the last open-ended.
const histBuckets = 18

// Collector accumulates statistics over frames given in capture order.
// It is not safe for concurrent use.
type Collector struct {
	// Observer, when set, is told intervals, signals and depths.
	Observer Observer

	frames, malformed, warned int
	untimed                   int // frames without a timestamp
	octets                    uint64
	first, last               int64
	started                   bool
	protos                    []int // frames per dissect.Protos entry
	flows                     map[flowKey]*pauser
	pfc                       map[pfcKey]*pfcStat
	hist                      [nKinds][histBuckets]int
	reporters                 map[reporterKey]*reporterStat
	cnps                      map[cnpKey]int
	icrcChecked               int
	icrcBad                   problem
	problems                  map[string]*problem
	warnings                  map[string]int
	rows, series              int
	// untracked counts what came after a table was full (MaxRows).
	untracked Untracked
	// overflow takes the counts of reporters past MaxRows (not reported).
	overflow reporterStat
}

// MaxRows bounds each table a Collector keeps (flows, PFC rows, reporters,
// CNP senders, malformed reasons, warnings): what a capture holds beyond
// it is counted in Report.Untracked, so that memory does not grow with
// the capture (1M CNPs of distinct queue pairs took 440 MB). A variable
// for the tests.
var MaxRows = 1 << 16

// New returns an empty Collector.
func New() *Collector {
	return &Collector{
		protos:    make([]int, len(dissect.Protos)),
		flows:     map[flowKey]*pauser{},
		pfc:       map[pfcKey]*pfcStat{},
		reporters: map[reporterKey]*reporterStat{},
		cnps:      map[cnpKey]int{},
		problems:  map[string]*problem{},
		warnings:  map[string]int{},
	}
}

// Add accounts for one decoded frame; iface names its interface (used as
// the key of PFC rows, so captures read one after the other add up by
// interface name). f.LinkBPS turns PFC and PAUSE quanta into time.
//
// A frame without a timestamp (f.Time zero: a pcapng simple packet block)
// is counted with its protocols, malformations, warnings, ICRC, CNPs and
// reporters, but is left out of the capture's span and gives no pause
// signal, which could not be placed in time.
func (c *Collector) Add(f *dissect.Frame, iface string) {
	timed := !f.Time.IsZero()
	t := f.Time.UnixNano()
	if !timed {
		c.untimed++
	} else if !c.started {
		c.first, c.last, c.started = t, t, true
	} else if t > c.last {
		c.last = t
	}
	c.frames++
	c.octets += uint64(f.Len)
	for in := dissect.PresenceOf(f); in != 0; in &= in - 1 {
		c.protos[bits.TrailingZeros64(uint64(in))]++
	}
	p := f.P
	if f.Err != nil {
		c.malformed++
		// As read shows it: a runt says "frame too short", not truncated.
		shown := dissect.ShownError(f)
		key := "frame: " + shown.Error()
		var de *layers.DecodeError
		if errors.As(shown, &de) {
			// For a value that is wrong, the field says which: a BTS
			// whose quoted packet has an unknown IP version is
			// "bts.quote: unknown version", not the BTS's own version.
			// Cuts and lengths stay grouped by layer (a cut lands on any
			// field).
			key = de.Layer + ": " + de.Err.Error()
			if de.Field != "" && (errors.Is(de.Err, layers.ErrVersion) || errors.Is(de.Err, layers.ErrBadValue)) {
				key = de.Layer + "." + de.Field + ": " + de.Err.Error()
			}
		}
		c.problem(key, f.Number)
	}
	if ws := dissect.FrameWarnings(f); len(ws) > 0 {
		c.warned++
		for _, w := range ws {
			if _, ok := c.warnings[w]; !ok && len(c.warnings) >= MaxRows {
				c.untracked.Warnings++
				continue
			}
			c.warnings[w]++
		}
	}
	if f.Err != nil && p.Failed != 0 {
		// Fields of the layer that failed are incomplete: count the frame
		// and its protocols, but take no signal from it.
		return
	}
	var has uint16
	for _, lt := range p.Decoded {
		has |= layerBit(lt)
	}
	switch {
	case has&hasBTS != 0:
		m := &p.BTS
		if timed {
			c.flowSignal(m.Flow, t, KindBTS, int64(m.PauseUS)*1000, false)
		}
		r := c.reporter(reporterKey{id: m.Reporter})
		r.bts++
		r.origins[min(int(m.Origin), 3)]++
		if m.Origin == layers.OriginQueue && timed {
			c.depth(r, reporterKey{id: m.Reporter}, t, uint64(m.QueueDepth))
		}
	case has&hasCIM != 0:
		m := &p.CIM
		if fl, ok := m.Flow(); m.HasSFC && ok && timed {
			c.flowSignal(fl, t, KindCIM, int64(m.SFC.PauseUS)*1000, false)
		}
		if m.HasSFC {
			r := c.reporter(reporterKey{id: m.SFC.Reporter})
			r.cim++
			r.origins[min(int(m.SFC.Origin), 3)]++
		}
	case has&hasPostcard != 0:
		m := &p.Postcard
		var k reporterKey
		k.isSwitch = true
		copy(k.mac[:], m.SwitchID)
		k.id = uint32(m.Port)
		r := c.reporter(k)
		r.postcards++
		if timed {
			c.depth(r, k, t, uint64(m.Q1Bytes))
		}
	case has&hasFGPause != 0 && timed:
		for _, e := range p.FGPause.Entries {
			d := int64(e.PauseUS) * 1000
			c.flowSignal(flowKey{Dst: e.Dst}, t, KindDstPause, d, e.PauseUS == layers.PauseUntilResumed)
		}
	case has&hasPFC != 0 && timed:
		m := &p.PFC
		for prio := 0; prio < 8; prio++ {
			if m.Enabled(prio) {
				c.pfcSignal(pfcKey{iface, int8(prio), f.LinkBPS}, t, uint64(m.Times[prio]), f.LinkBPS, KindPFC)
			}
		}
	case has&hasPause != 0 && timed:
		c.pfcSignal(pfcKey{iface, -1, f.LinkBPS}, t, uint64(p.Pause.Quanta), f.LinkBPS, KindPause)
	case has&hasBTH != 0:
		m := &p.BTH
		// The ICRC ends the packet: in a frame the capture cut (caplen <
		// len) it was not captured, and read shows no verdict on it.
		if m.ICRCChecked && f.CapLen >= f.Len {
			c.icrcChecked++
			if !m.ICRCOK {
				c.icrcBad.count++
				if len(c.icrcBad.frames) < maxExamples {
					c.icrcBad.frames = append(c.icrcBad.frames, f.Number)
				}
			}
		}
		if m.IsCNP() {
			var k cnpKey
			if has&hasIPv4 != 0 {
				k.src, k.dst = addr(p.IPv4.SrcIP), addr(p.IPv4.DstIP)
			} else if has&hasIPv6 != 0 {
				k.src, k.dst = addr(p.IPv6.SrcIP), addr(p.IPv6.DstIP)
			}
			k.qp = m.DestQP
			if _, ok := c.cnps[k]; !ok && len(c.cnps) >= MaxRows {
				c.untracked.CNPs++
			} else {
				c.cnps[k]++
			}
		}
	}
}

// The layers Add looks for, as bits of a mask made in one pass over the
// decoded layers (a Parser.Has per case walked them up to nine times).
const (
	hasBTS = 1 << iota
	hasCIM
	hasPostcard
	hasFGPause
	hasPFC
	hasPause
	hasBTH
	hasIPv4
	hasIPv6
)

// layerBit returns the mask bit of layer type t. Layer types are
// variables, so a switch on them compares one by one: a table instead.
func layerBit(t gopacket.LayerType) uint16 {
	if uint(t) < uint(len(layerBits)) {
		return layerBits[t]
	}
	return 0
}

var layerBits = func() (tab [2048]uint16) {
	for lt, bit := range map[gopacket.LayerType]uint16{
		layers.LayerTypeBTS: hasBTS, layers.LayerTypeCIM: hasCIM, layers.LayerTypePostcard: hasPostcard,
		layers.LayerTypeFGPause: hasFGPause, layers.LayerTypePFC: hasPFC, layers.LayerTypePause: hasPause,
		layers.LayerTypeBTH: hasBTH, glayers.LayerTypeIPv4: hasIPv4, glayers.LayerTypeIPv6: hasIPv6,
	} {
		tab[lt] = bit
	}
	return tab
}()

func addr(b []byte) netip.Addr {
	a, _ := netip.AddrFromSlice(b)
	return a.Unmap()
}

func (c *Collector) problem(key string, frame int) {
	pr := c.problems[key]
	if pr == nil && len(c.problems) >= MaxRows {
		c.untracked.Reasons++
		return
	}
	if pr == nil {
		pr = &problem{}
		c.problems[key] = pr
	}
	pr.count++
	if len(pr.frames) < maxExamples {
		pr.frames = append(pr.frames, frame)
	}
}

func (c *Collector) reporter(k reporterKey) *reporterStat {
	r := c.reporters[k]
	if r == nil && len(c.reporters) >= MaxRows {
		c.untracked.Reporters++
		c.overflow.series = -2 // no queue-depth series either
		return &c.overflow
	}
	if r == nil {
		r = &reporterStat{series: -1}
		c.reporters[k] = r
	}
	return r
}

func (c *Collector) depth(r *reporterStat, k reporterKey, t int64, v uint64) {
	if c.Observer == nil || r.series == -2 {
		return
	}
	if r.series < 0 {
		r.series = c.series
		c.series++
		c.Observer.Series(r.series, reporterLabel(k))
	}
	c.Observer.Depth(r.series, time.Unix(0, t), v)
}

// bucket returns the histogram bucket of a pause of ns nanoseconds.
func bucket(ns int64) int {
	if ns <= 0 {
		return 0
	}
	us := uint64(ns / 1000)
	if us < 2 {
		return 1
	}
	return min(bits.Len64(us), histBuckets-1)
}

func (c *Collector) flowSignal(k flowKey, t int64, kind Kind, d int64, forever bool) {
	b := bucket(d)
	if forever {
		b = histBuckets - 1 // until resumed: no upper bound
	}
	c.hist[kind][b]++ // also a signal no row takes (MaxRows)
	pz := c.flows[k]
	if pz == nil && len(c.flows) >= MaxRows {
		c.untracked.Flows++
		return
	}
	if pz == nil {
		pz = &pauser{row: -1}
		c.flows[k] = pz
	}
	if pz.row < 0 && c.Observer != nil {
		pz.row = c.rows
		c.rows++
		c.Observer.Row(pz.row, FlowLabel(k), false)
	}
	c.signal(pz, t, kind, d, forever)
}

func (c *Collector) pfcSignal(k pfcKey, t int64, quanta, bps uint64, kind Kind) {
	ns := dissect.QuantaNS(quanta, bps)
	c.hist[kind][bucket(int64(ns))]++ // also a signal no row takes (MaxRows)
	st := c.pfc[k]
	if st == nil && len(c.pfc) >= MaxRows {
		c.untracked.PFC++
		return
	}
	if st == nil {
		st = &pfcStat{pauser: pauser{row: -1}}
		c.pfc[k] = st
	}
	if st.row < 0 && c.Observer != nil {
		st.row = c.rows
		c.rows++
		c.Observer.Row(st.row, pfcLabel(k), true)
	}
	st.frames++
	st.quanta += quanta
	st.bps = bps
	c.signal(&st.pauser, t, kind, int64(ns), false)
}

// signal applies one pause signal of d ns at t to pz (behaviour.md: the new
// end overwrites the old; 0 resumes now).
func (c *Collector) signal(pz *pauser, t int64, kind Kind, d int64, forever bool) {
	c.close(pz, t)
	if pz.signals+pz.resumes == 0 {
		pz.firstSignal = t
	}
	pz.lastSignal = t
	pz.byKind[kind]++
	if c.Observer != nil && pz.row >= 0 {
		dd := time.Duration(d)
		if forever {
			dd = -1
		}
		c.Observer.Signal(pz.row, time.Unix(0, t), kind, dd)
	}
	if d == 0 {
		pz.resumes++
		return
	}
	pz.signals++
	if !forever {
		pz.requestedNS += d
	}
	pz.active, pz.untilResumed, pz.from, pz.until = true, forever, t, t+d
}

// close ends pz's current pause at t at the latest.
func (c *Collector) close(pz *pauser, t int64) {
	if !pz.active {
		return
	}
	end := pz.until
	if pz.untilResumed || end > t {
		end = t
	}
	c.account(pz, end)
}

func (c *Collector) account(pz *pauser, end int64) {
	if end < pz.from {
		end = pz.from
	}
	pz.pausedNS += end - pz.from
	pz.active = false
	if c.Observer != nil && pz.row >= 0 {
		c.Observer.Interval(pz.row, time.Unix(0, pz.from), time.Unix(0, end))
	}
}

// Finish ends the pauses still running after the last frame (up to their
// requested end; "until resumed" up to the last frame) and returns the
// report. Call it once, after the last Add.
func (c *Collector) Finish() *Report {
	for _, pz := range c.flows {
		c.finish(pz)
	}
	for _, st := range c.pfc {
		c.finish(&st.pauser)
	}
	return c.report()
}

func (c *Collector) finish(pz *pauser) {
	if !pz.active {
		return
	}
	end := pz.until
	if pz.untilResumed {
		end = c.last
	}
	c.account(pz, end)
}
