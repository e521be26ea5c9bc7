// SPDX-License-Identifier: Apache-2.0

package stats

import (
	"cmp"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/opensfc/sfc/dissect"
)

// Report is the result of a Collector, ready for text or JSON. Times are
// in microseconds. Start and End are the first and last frame times of
// the frames that have one (zero, and null in JSON, when none has).
type Report struct {
	Frames int    `json:"frames"`
	Octets uint64 `json:"octets"`
	// Untimed counts the frames without a timestamp (pcapng simple
	// packet blocks): in Frames, not in the span, no pause signal.
	Untimed    int           `json:"untimed_frames"`
	Start      *time.Time    `json:"start"`
	End        *time.Time    `json:"end"`
	DurationUS float64       `json:"duration_us"`
	Protocols  []ProtoCount  `json:"protocols"`
	Flows      []FlowStat    `json:"flows"`
	PFC        []PFCStat     `json:"pfc"`
	Histogram  []HistBucket  `json:"pause_histogram"`
	Reporters  []Reporter    `json:"reporters"`
	CNPs       []CNPStat     `json:"cnps"`
	ICRC       ICRCStat      `json:"icrc"`
	Malformed  MalformedStat `json:"malformed"`
	Warnings   []Count       `json:"warnings"`
	// Untracked is what the tables could not take once full (MaxRows);
	// absent when nothing was left out.
	Untracked *Untracked `json:"untracked,omitempty"`
}

// Untracked counts, per table, the signals or frames of rows that came
// after the table held MaxRows rows: they are in the totals (frames,
// malformed, the histogram) but in no row.
type Untracked struct {
	Flows     int `json:"flow_signals"`
	PFC       int `json:"pfc_signals"`
	Reporters int `json:"reporter_signals"`
	CNPs      int `json:"cnps"`
	Reasons   int `json:"malformed_frames"`
	Warnings  int `json:"warnings"`
}

// ProtoCount is the number of frames holding a protocol.
type ProtoCount struct {
	Proto  string `json:"proto"`
	Frames int    `json:"frames"`
}

// Pauses is the pause account of one row.
type Pauses struct {
	Signals     int     `json:"signals"` // pause signals (time > 0)
	Resumes     int     `json:"resumes"` // time 0
	RequestedUS float64 `json:"requested_us"`
	PausedUS    float64 `json:"paused_us"` // the union of pause intervals
	First       string  `json:"first"`     // time of the first signal, RFC 3339
	Last        string  `json:"last"`
}

// FlowStat is the pause account of one flow. Flow holds wire.md's flow
// fields (src, dst, proto, sport, dport, dscp, qp); a Floodgate dst-pause
// row has dst only.
type FlowStat struct {
	Label string         `json:"label"`
	Flow  map[string]any `json:"flow"`
	BTS   int            `json:"bts"`
	CIM   int            `json:"cim"`
	FG    int            `json:"fgpause"`
	Pauses
}

// PFCStat is the PFC (or 802.3x PAUSE, priority "all") account of one
// interface and priority.
type PFCStat struct {
	Interface string `json:"interface"`
	Priority  string `json:"priority"` // 0..7, or "all" for 802.3x PAUSE
	Frames    int    `json:"frames"`
	Quanta    uint64 `json:"quanta"`
	// QuantaUS is Quanta at LinkSpeed (512 bit times per quantum).
	QuantaUS  float64 `json:"quanta_us"`
	LinkSpeed string  `json:"link_speed"`
	Pauses
}

// HistBucket counts requested pause times in [LowUS, HighUS) per signal
// kind (PFC at the link speed); the first bucket is resumes (0), the last
// has no upper bound (HighUS 0).
type HistBucket struct {
	Label  string         `json:"label"`
	LowUS  uint64         `json:"low_us"`
	HighUS uint64         `json:"high_us"`
	Counts map[string]int `json:"counts"`
}

// Reporter counts the signals of one switch: a BTS or CIM reporter id, or
// a postcard switch id and port.
type Reporter struct {
	Reporter  string `json:"reporter"`
	BTS       int    `json:"bts"`
	CIM       int    `json:"cim"`
	Postcards int    `json:"postcards"`
	Queue     int    `json:"origin_queue"`
	Cache     int    `json:"origin_cache"`
	Estimate  int    `json:"origin_estimate"`
	Other     int    `json:"origin_other"`
}

// CNPStat counts the CNPs sent to one queue pair.
type CNPStat struct {
	Src    string `json:"src"`
	Dst    string `json:"dst"`
	DestQP uint32 `json:"destqp"`
	CNPs   int    `json:"cnps"`
}

// ICRCStat counts RoCEv2 ICRC checks and failures.
type ICRCStat struct {
	Checked int   `json:"checked"`
	Failed  int   `json:"failed"`
	Frames  []int `json:"frames"` // the first failing frames (at most 5 of Failed)
}

// MalformedStat counts malformed frames by reason.
type MalformedStat struct {
	Frames  int       `json:"frames"`
	Reasons []Problem `json:"reasons"`
}

// Problem is one kind of malformation with its first frames.
type Problem struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
	// Frames are the first frames of the Count (at most 5), in JSON too.
	Frames []int `json:"frames"`
}

// Count is a named count.
type Count struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

func us(ns int64) float64 { return float64(ns) / 1000 }

// quantaUS is q quanta at bps in µs, from whole nanoseconds
// (dissect.QuantaNS) as read shows them and paused_us counts them: the
// same figure in every output, with no float residue in JSON.
func quantaUS(q, bps uint64) float64 {
	return us(int64(dissect.QuantaNS(q, bps)))
}

func stamp(ns int64) string {
	return time.Unix(0, ns).UTC().Format(time.RFC3339Nano)
}

func pauses(pz *pauser) Pauses {
	p := Pauses{Signals: pz.signals, Resumes: pz.resumes, RequestedUS: us(pz.requestedNS), PausedUS: us(pz.pausedNS)}
	if pz.signals+pz.resumes > 0 {
		p.First, p.Last = stamp(pz.firstSignal), stamp(pz.lastSignal)
	}
	return p
}

// FlowLabel renders a flow as the stats and timeline rows name it.
func FlowLabel(k flowKey) string {
	if !k.Src.IsValid() {
		return "* > " + k.Dst.String() + " (dst-pause)"
	}
	s := fmt.Sprintf("%s > %s", addrPort(k.Src, k.SrcPort), addrPort(k.Dst, k.DstPort))
	if k.HasQP {
		s += fmt.Sprintf(" qp 0x%06x", k.QP)
	} else if k.Proto != 17 {
		s += fmt.Sprintf(" proto %d", k.Proto)
	}
	return s
}

func addrPort(a interface{ String() string }, port uint16) string {
	s := a.String()
	if strings.Contains(s, ":") {
		s = "[" + s + "]"
	}
	return s + ":" + strconv.Itoa(int(port))
}

func pfcLabel(k pfcKey) string {
	if k.prio < 0 {
		return k.iface + " PAUSE (all)"
	}
	return fmt.Sprintf("%s prio %d", k.iface, k.prio)
}

func reporterLabel(k reporterKey) string {
	if k.isSwitch {
		return fmt.Sprintf("switch %s port %d", net.HardwareAddr(k.mac[:]), k.id)
	}
	return fmt.Sprintf("reporter %d", k.id)
}

func flowFields(k flowKey) map[string]any {
	if !k.Src.IsValid() {
		return map[string]any{"dst": k.Dst.String()}
	}
	m := map[string]any{"src": k.Src.String(), "dst": k.Dst.String(), "proto": k.Proto,
		"sport": k.SrcPort, "dport": k.DstPort, "dscp": k.DSCP}
	if k.HasQP {
		m["qp"] = k.QP
	}
	return m
}

func (c *Collector) report() *Report {
	// Empty lists are [] in JSON, not null: a program reads every key as
	// a list.
	r := &Report{Frames: c.frames, Octets: c.octets, Untimed: c.untimed, Protocols: []ProtoCount{}, Flows: []FlowStat{},
		PFC: []PFCStat{}, Histogram: []HistBucket{}, Reporters: []Reporter{}, CNPs: []CNPStat{}, Warnings: []Count{}}
	if c.started {
		start, end := time.Unix(0, c.first).UTC(), time.Unix(0, c.last).UTC()
		r.Start, r.End = &start, &end
		r.DurationUS = us(c.last - c.first)
	}
	for i, p := range dissect.Protos {
		if c.protos[i] > 0 {
			r.Protocols = append(r.Protocols, ProtoCount{p.Name, c.protos[i]})
		}
	}
	labels := map[string]int{}
	for k := range c.flows {
		labels[FlowLabel(k)]++
	}
	for k, pz := range c.flows {
		label := FlowLabel(k)
		if labels[label] > 1 {
			// Flows that differ only in what the label leaves out (the
			// DSCP) would print as one flow twice.
			label += fmt.Sprintf(" dscp %d", k.DSCP)
		}
		r.Flows = append(r.Flows, FlowStat{Label: label, Flow: flowFields(k),
			BTS: pz.byKind[KindBTS], CIM: pz.byKind[KindCIM], FG: pz.byKind[KindDstPause], Pauses: pauses(pz)})
	}
	slices.SortFunc(r.Flows, func(a, b FlowStat) int {
		return cmp.Or(cmp.Compare(b.PausedUS, a.PausedUS), cmp.Compare(b.Signals, a.Signals), strings.Compare(a.Label, b.Label))
	})
	for k, st := range c.pfc {
		prio := "all"
		if k.prio >= 0 {
			prio = strconv.Itoa(int(k.prio))
		}
		r.PFC = append(r.PFC, PFCStat{Interface: k.iface, Priority: prio, Frames: st.frames, Quanta: st.quanta,
			QuantaUS: quantaUS(st.quanta, st.bps), LinkSpeed: string(dissect.AppendSpeed(nil, st.bps)), Pauses: pauses(&st.pauser)})
	}
	slices.SortFunc(r.PFC, func(a, b PFCStat) int {
		return cmp.Or(strings.Compare(a.Interface, b.Interface), strings.Compare(a.Priority, b.Priority), strings.Compare(a.LinkSpeed, b.LinkSpeed))
	})
	for b := 0; b < histBuckets; b++ {
		counts := map[string]int{}
		for k := Kind(0); k < nKinds; k++ {
			if n := c.hist[k][b]; n > 0 {
				counts[k.String()] = n
			}
		}
		if len(counts) == 0 {
			continue
		}
		lo, hi := bucketRange(b)
		r.Histogram = append(r.Histogram, HistBucket{Label: bucketLabel(b), LowUS: lo, HighUS: hi, Counts: counts})
	}
	for k, st := range c.reporters {
		r.Reporters = append(r.Reporters, Reporter{Reporter: reporterLabel(k), BTS: st.bts, CIM: st.cim, Postcards: st.postcards,
			Queue: st.origins[0], Cache: st.origins[1], Estimate: st.origins[2], Other: st.origins[3]})
	}
	slices.SortFunc(r.Reporters, func(a, b Reporter) int {
		return cmp.Or(cmp.Compare(b.BTS+b.CIM+b.Postcards, a.BTS+a.CIM+a.Postcards), strings.Compare(a.Reporter, b.Reporter))
	})
	for k, n := range c.cnps {
		r.CNPs = append(r.CNPs, CNPStat{Src: k.src.String(), Dst: k.dst.String(), DestQP: k.qp, CNPs: n})
	}
	slices.SortFunc(r.CNPs, func(a, b CNPStat) int {
		return cmp.Or(cmp.Compare(b.CNPs, a.CNPs), strings.Compare(a.Dst, b.Dst), cmp.Compare(a.DestQP, b.DestQP), strings.Compare(a.Src, b.Src))
	})
	r.ICRC = ICRCStat{Checked: c.icrcChecked, Failed: c.icrcBad.count, Frames: c.icrcBad.frames}
	r.Malformed.Frames = c.malformed
	for reason, p := range c.problems {
		r.Malformed.Reasons = append(r.Malformed.Reasons, Problem{Reason: reason, Count: p.count, Frames: p.frames})
	}
	slices.SortFunc(r.Malformed.Reasons, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Reason, b.Reason))
	})
	for w, n := range c.warnings {
		r.Warnings = append(r.Warnings, Count{w, n})
	}
	slices.SortFunc(r.Warnings, func(a, b Count) int { return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Name, b.Name)) })
	if c.untracked != (Untracked{}) {
		u := c.untracked
		r.Untracked = &u
	}
	return r
}

func bucketRange(b int) (lo, hi uint64) {
	switch {
	case b == 0:
		return 0, 0
	case b == 1:
		return 0, 2
	case b == histBuckets-1:
		return 1 << (b - 1), 0
	}
	return 1 << (b - 1), 1 << b
}

func bucketLabel(b int) string {
	lo, hi := bucketRange(b)
	switch {
	case b == 0:
		return "0 (resume)"
	case b == 1:
		return "<2"
	case hi == 0:
		return fmt.Sprintf(">=%d", lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi-1)
}

func fmtUS(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// WriteText writes the report as text tables; top limits the rows of the
// per-flow, reporter and CNP tables (0: all). Strings that may come from a
// capture (interface names, reasons) are escaped for the terminal
// (dissect.AppendEscaped).
func (r *Report) WriteText(w io.Writer, top int) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	p := func(format string, a ...any) { fmt.Fprintf(tw, format, a...) }
	limit := func(n int) int {
		if top > 0 && n > top {
			return top
		}
		return n
	}
	more := func(shown, n int) {
		if shown < n {
			p("  ... %d more (--top 0 shows all)\n", n-shown)
		}
	}
	p("Frames: %d  octets: %d  span: %s us", r.Frames, r.Octets, fmtUS(r.DurationUS))
	if r.Start != nil {
		p("  (%s .. %s)", r.Start.Format(time.RFC3339Nano), r.End.Format(time.RFC3339Nano))
	}
	if r.Untimed > 0 {
		p("  %d without a timestamp", r.Untimed)
	}
	p("\n\nProtocols\n  proto\tframes\n")
	for _, pc := range r.Protocols {
		p("  %s\t%d\n", pc.Proto, pc.Frames)
	}
	p("\nPauses per flow (BTS, CIM, Floodgate dst-pause)\n")
	if len(r.Flows) == 0 {
		p("  none\n")
	} else {
		p("  flow\tsignals\tresumes\tbts\tcim\tfgpause\trequested_us\tpaused_us\n")
		n := limit(len(r.Flows))
		for _, f := range r.Flows[:n] {
			p("  %s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n", dissect.Escape(f.Label), f.Signals, f.Resumes, f.BTS, f.CIM, f.FG, fmtUS(f.RequestedUS), fmtUS(f.PausedUS))
		}
		more(n, len(r.Flows))
	}
	p("\nPFC and PAUSE per interface and priority\n")
	if len(r.PFC) == 0 {
		p("  none\n")
	} else {
		p("  interface\tprio\tframes\tpauses\tresumes\tquanta\tquanta_us\tlink\tpaused_us\n")
		for _, s := range r.PFC {
			p("  %s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\n", dissect.Escape(s.Interface), s.Priority, s.Frames, s.Signals, s.Resumes, s.Quanta, fmtUS(s.QuantaUS), s.LinkSpeed, fmtUS(s.PausedUS))
		}
	}
	p("\nRequested pause time histogram (us; PFC at link speed)\n")
	if len(r.Histogram) == 0 {
		p("  none\n")
	} else {
		p("  us")
		for k := Kind(0); k < nKinds; k++ {
			p("\t%s", k)
		}
		p("\n")
		for _, b := range r.Histogram {
			p("  %s", b.Label)
			for k := Kind(0); k < nKinds; k++ {
				p("\t%d", b.Counts[k.String()])
			}
			p("\n")
		}
	}
	p("\nSignals per reporter\n")
	if len(r.Reporters) == 0 {
		p("  none\n")
	} else {
		p("  reporter\tbts\tcim\tpostcards\tqueue\tcache\testimate\tother\n")
		n := limit(len(r.Reporters))
		for _, s := range r.Reporters[:n] {
			p("  %s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", dissect.Escape(s.Reporter), s.BTS, s.CIM, s.Postcards, s.Queue, s.Cache, s.Estimate, s.Other)
		}
		more(n, len(r.Reporters))
	}
	p("\nCNPs per queue pair\n")
	if len(r.CNPs) == 0 {
		p("  none\n")
	} else {
		p("  from\tto\tdestqp\tcnps\n")
		n := limit(len(r.CNPs))
		for _, s := range r.CNPs[:n] {
			p("  %s\t%s\t0x%06x\t%d\n", s.Src, s.Dst, s.DestQP, s.CNPs)
		}
		more(n, len(r.CNPs))
	}
	p("\nICRC: %d checked, %d failed", r.ICRC.Checked, r.ICRC.Failed)
	if len(r.ICRC.Frames) > 0 {
		p(" (frames %s)", joinInts(r.ICRC.Frames, r.ICRC.Failed))
	}
	p("\nMalformed frames: %d\n", r.Malformed.Frames)
	for _, m := range r.Malformed.Reasons {
		p("  %d\t%s\t(frames %s)\n", m.Count, dissect.Escape(m.Reason), joinInts(m.Frames, m.Count))
	}
	if len(r.Warnings) > 0 {
		p("Warnings:\n")
		for _, c := range r.Warnings {
			p("  %d\t%s\n", c.Count, dissect.Escape(c.Name))
		}
	}
	if u := r.Untracked; u != nil {
		p("\nNot in the tables above (each table keeps at most %d rows; the totals count them): "+
			"%d flow signals, %d PFC/PAUSE signals, %d reporter signals, %d CNPs, %d malformed frames, %d warnings\n",
			MaxRows, u.Flows, u.PFC, u.Reporters, u.CNPs, u.Reasons, u.Warnings)
	}
	return tw.Flush()
}

// joinInts lists the frame numbers v, the first of count: ", …" ends a
// list that does not hold them all.
func joinInts(v []int, count int) string {
	s := make([]string, len(v), len(v)+1)
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	if count > len(v) {
		s = append(s, "…")
	}
	return strings.Join(s, ", ")
}
