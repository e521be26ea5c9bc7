// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/opensfc/sfc/atomicfile"
	"github.com/opensfc/sfc/dissect"
	"io"
	"math"
	"strconv"
	"text/tabwriter"
)

// HopBuffers is the largest sampled buffer by hop kind.
type HopBuffers struct {
	ToRDown int64 `json:"tor_down"`
	ToRUp   int64 `json:"tor_up"`
	Core    int64 `json:"core"`
}

// Bin is the slowdown statistics of the flows in one size bin.
type Bin struct {
	Lo   int64   `json:"lo"` // sizes in the bin, inclusive
	Hi   int64   `json:"hi"`
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
}

// SwitchStat is one switch's buffer over the run.
type SwitchStat struct {
	Name string `json:"name"`
	Tier int    `json:"tier"`
	// Peak is the most octets its shared buffer held at once.
	Peak int64 `json:"peak"`
	// P99 of the buffer sampled every SampleEvery.
	P99   int64 `json:"p99"`
	Drops int64 `json:"drops"`
}

// Result is what a run measured.
type Result struct {
	Name        string  `json:"name"`
	Seed        uint64  `json:"seed"`
	Flows       int     `json:"flows"`
	Completed   int     `json:"completed"`
	SimTime     int64   `json:"sim_time_ns"`
	Events      int64   `json:"events"`
	WallSeconds float64 `json:"wall_seconds"`
	// EventsPerSecond is events over wall time (speed, not a result).
	EventsPerSecond float64 `json:"events_per_second"`
	// Bins: slowdown per size bin of the non-incast flows (equal-count
	// bins by size), Incast the incast flows' slowdown.
	Bins   []Bin `json:"bins"`
	Incast *Bin  `json:"incast,omitempty"`
	// Overall slowdown of the non-incast flows.
	All Bin `json:"all"`
	// MaxBuffer is the largest per-switch peak; ToRBuffer the largest
	// among ToRs.
	MaxBuffer int64        `json:"max_buffer"`
	Switches  []SwitchStat `json:"switches"`
	// BufferSamples: per-switch buffer sampled every SampleEvery (all
	// switches pooled), as percentiles P50, P90, P99, P100.
	BufferPct [4]int64 `json:"buffer_pct"`
	Drops     int64    `json:"drops"`
	// Hops: the largest buffer seen (sampled) by hop: a ToR's
	// server-facing queues (ToR-Down), the rest of a ToR's buffer
	// (ToR-Up: uplink queues and any VOQs), and a spine's or higher
	// switch's buffer (Core).
	Hops HopBuffers `json:"hops"`
	// Floodgate overhead: credit and dst-pause octets on the wire, their
	// share of the switch-to-switch capacity, and the share a per-packet
	// credit of 64 octets would take.
	// SFC: peak table occupancy on the ToRs (SFC-10).
	SFC                  *SFCTables `json:"sfc,omitempty"`
	CreditOctets         int64      `json:"credit_octets,omitempty"`
	CreditShare          float64    `json:"credit_share,omitempty"`
	PerPacketCreditShare float64    `json:"per_packet_credit_share,omitempty"`
	// PausedShare is the share of port-time (switch and NIC ports,
	// sampled every SampleEvery) with a class paused by PFC (the BFC
	// paper's Fig. 6 "% of time paused").
	PausedShare float64 `json:"paused_share"`
	// PBFS: postcard counts when PB-FS is on.
	PBFS *PBFSStats `json:"pbfs,omitempty"`
	// BFC: per-queue occupancy and collisions under flow_control: bfc.
	BFC *BFCStats `json:"bfc,omitempty"`
	// PauseFrames counts PFC XOFF frames sent; BTS the SFC signals.
	PauseFrames int64 `json:"pause_frames"`
	BTS         int64 `json:"bts"`
	// Goodput is payload delivered over the time the last flow finished,
	// in bit/s summed over hosts.
	Goodput float64 `json:"goodput_bps"`
	// RxThroughput: P10, P50, P90 of the hosts' data receive rate (bit/s:
	// octets of RoCE data frames, Transport.DataRx) over the 100 µs windows
	// in which they received any data (the SFC paper's Fig. 7c). ACKs,
	// CNPs and pause signals do not count: a window with only those would
	// be a sample of a few hundred Mb/s and set the low percentiles.
	RxThroughput [3]float64 `json:"rx_throughput_bps"`
	// Retx packets sent more than once, Timeouts, NAKs and CNPs sent,
	// ECN-marked frames, and the data and control (ACK, NAK, CNP)
	// packets the NICs sent.
	Retx                          int64   `json:"retx"`
	Timeouts                      int64   `json:"timeouts"`
	NAKs                          int64   `json:"naks"`
	CNPs                          int64   `json:"cnps"`
	ECNMarked                     int64   `json:"ecn_marked"`
	DataPackets                   int64   `json:"data_packets"`
	ControlPackets                int64   `json:"control_packets"`
	flows                         flowLog // the finished flows, in the order they finished
	unfinished                    []Flow  // flows that did not complete within the drain
	nsw                           int
	sampleEvery                   int64
	bufQ                          []quantiles // per switch, in Switches order
	bufAll                        quantiles   // all switches pooled, counted as sampled
	bufLog                        *seriesLog  // every switch's buffer over time
	payload, firstStart, lastDone int64
}

// SampleEvery returns the run's buffer sampling period in ns.
func (r *Result) SampleEvery() int64 { return r.sampleEvery }

// BufferSeries returns switch i's (in Net.Switches order) shared buffer
// sampled every SampleEvery from time 0. It reads the whole series (a
// slice as long as the run over SampleEvery); EachBuffer streams it. The
// error is the samples' temporary file failing to read back.
func (r *Result) BufferSeries(i int) ([]int64, error) {
	if i < 0 || i >= r.nsw {
		return nil, fmt.Errorf("buffer series: no switch %d (the run has %d)", i, r.nsw)
	}
	v := make([]int64, 0, r.BufferRows())
	err := r.EachBuffer(func(_ int64, row []int64) error {
		v = append(v, row[i])
		return nil
	})
	return v, err
}

// Close releases what the Result holds outside the heap: the temporary
// files its buffer samples and its finished flows moved to in a long run
// (unlinked, so the space returns when they are closed, or when the
// Result is collected without Close). After Close the buffer series and
// the flows (FlowResults, EachFlow, the completed rows of WriteFCT) are
// empty; every other field, the bins and counts included, stays.
func (r *Result) Close() error {
	err := r.flows.close()
	r.flows.n = 0
	if r.bufLog != nil {
		err = errors.Join(err, r.bufLog.close())
		r.bufLog = nil
	}
	return err
}

// BufferRows returns the number of buffer samples per switch: one every
// SampleEvery from time 0.
func (r *Result) BufferRows() int64 {
	if r.bufLog == nil {
		return 0
	}
	return r.bufLog.rows
}

// EachBuffer calls fn with every buffer sample in time order: t in ns
// (a multiple of SampleEvery) and row the octets in each switch's shared
// buffer, in Switches order. row is reused between calls; fn's error
// stops the walk and is returned. The samples are read from memory or,
// for a long run, from a temporary file, so the walk takes memory of one
// row however long the run was.
func (r *Result) EachBuffer(fn func(t int64, row []int64) error) error {
	return r.bufLog.each(func(k int64, row []int64) error { return fn(k*r.sampleEvery, row) })
}

// FlowResults returns the completed flows in the order they completed,
// all at once (about 100 octets a flow); EachFlow streams them.
func (r *Result) FlowResults() ([]FlowResult, error) {
	fs := make([]FlowResult, 0, r.flows.n)
	err := r.EachFlow(func(f FlowResult) error {
		fs = append(fs, f)
		return nil
	})
	return fs, err
}

// EachFlow calls fn with every completed flow in the order they completed,
// read from memory or, for a long run, from a temporary file, so the walk
// takes the memory of one flow however many there were. fn's error stops
// the walk and is returned.
func (r *Result) EachFlow(fn func(f FlowResult) error) error {
	return r.flows.each(func(f *FlowResult) error { return fn(*f) })
}

// percentile returns the sample of rank ⌈p·n⌉ − 1 of sorted.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// summarize fills the bins (nbins equal-count bins by size; flows of one
// size stay in one bin; flowlog.go), the buffer percentiles and the
// goodput.
func (r *Result) summarize(nbins int) error {
	if err := r.summarizeFlows(nbins); err != nil {
		return err
	}
	all := &r.bufAll
	if n := all.n; n > 0 {
		r.BufferPct = [4]int64{all.rank((n - 1) / 2), all.rank((n - 1) * 9 / 10), all.rank((n - 1) * 99 / 100), all.rank(n - 1)}
	}
	if r.lastDone > r.firstStart {
		r.Goodput = float64(r.payload) * 8e9 / float64(r.lastDone-r.firstStart)
	}
	return nil
}

// WriteJSON writes r to path through a temporary file renamed when
// complete.
func (r *Result) WriteJSON(path string) error {
	return writeAtomic(path, func(w io.Writer) error {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(r)
	})
}

// WriteBuffer writes every switch's shared buffer over time to path as
// CSV: a column time_ns (a sample every SampleEvery from time 0) and one
// column of octets per switch, named as in Switches.
func (r *Result) WriteBuffer(path string) error {
	return writeAtomic(path, func(w io.Writer) error {
		c := csv.NewWriter(w)
		head := []string{"time_ns"}
		for _, s := range r.Switches {
			head = append(head, s.Name)
		}
		_ = c.Write(head)
		out := make([]string, 1+r.nsw)
		err := r.EachBuffer(func(t int64, row []int64) error {
			out[0] = strconv.FormatInt(t, 10)
			for i, v := range row {
				out[1+i] = strconv.FormatInt(v, 10)
			}
			return c.Write(out)
		})
		if err != nil {
			return err
		}
		c.Flush()
		return c.Error()
	})
}

// WriteCSV writes the per-bin slowdowns to path.
func (r *Result) WriteCSV(path string) error {
	return writeAtomic(path, func(w io.Writer) error {
		c := csv.NewWriter(w)
		_ = c.Write([]string{"bin", "size_lo", "size_hi", "flows", "mean", "p50", "p95", "p99"})
		row := func(name string, b Bin) {
			f := func(v float64) string {
				if b.N == 0 {
					return "" // no flow: no statistic (the all row of an incast-only run)
				}
				return strconv.FormatFloat(v, 'f', 4, 64)
			}
			_ = c.Write([]string{name, strconv.FormatInt(b.Lo, 10), strconv.FormatInt(b.Hi, 10), strconv.Itoa(b.N), f(b.Mean), f(b.P50), f(b.P95), f(b.P99)})
		}
		for i, b := range r.Bins {
			row(strconv.Itoa(i), b)
		}
		row("all", r.All)
		if r.Incast != nil {
			row("incast", *r.Incast)
		}
		c.Flush()
		return c.Error()
	})
}

// WriteFCT writes every flow as CSV (id, src, dst, size, start_ns, fct_ns,
// ideal_ns, slowdown, retx, tag, completed): the completed ones, then
// those that did not complete within the drain, with completed false and
// no FCT, ideal, slowdown or retx.
func (r *Result) WriteFCT(path string) error {
	return writeAtomic(path, func(w io.Writer) error {
		c := csv.NewWriter(w)
		_ = c.Write([]string{"id", "src", "dst", "size", "start_ns", "fct_ns", "ideal_ns", "slowdown", "retx", "tag", "completed"})
		err := r.flows.each(func(f *FlowResult) error {
			return c.Write([]string{strconv.FormatInt(f.ID, 10), strconv.Itoa(f.Src), strconv.Itoa(f.Dst), strconv.FormatInt(f.Size, 10),
				strconv.FormatInt(f.Start, 10), strconv.FormatInt(f.FCT, 10), strconv.FormatInt(f.Ideal, 10),
				strconv.FormatFloat(f.Slowdown, 'f', 4, 64), strconv.FormatInt(f.Retx, 10), f.Tag, "true"})
		})
		if err != nil {
			return err
		}
		// Flows that did not complete: no FCT, slowdown or retransmission
		// count to give.
		for _, f := range r.unfinished {
			_ = c.Write([]string{strconv.FormatInt(f.ID, 10), strconv.Itoa(f.Src), strconv.Itoa(f.Dst), strconv.FormatInt(f.Size, 10),
				strconv.FormatInt(f.Start, 10), "", "", "", "", f.Tag, "false"})
		}
		c.Flush()
		return c.Error()
	})
}

func writeAtomic(path string, fill func(io.Writer) error) error {
	f, err := atomicfile.Create(path, atomicfile.DefaultPerm)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := fill(f); err != nil {
		return err
	}
	return f.Commit()
}

// Summary writes a terminal table of r; the name, from the scenario, is
// escaped (dissect.Escape).
func (r *Result) Summary(w io.Writer) {
	fmt.Fprintf(w, "%s (seed %d): %d/%d flows in %.3f ms simulated; %d events in %.2f s (%.2f M events/s)\n",
		dissect.Escape(r.Name), r.Seed, r.Completed, r.Flows, float64(r.SimTime)/1e6, r.Events, r.WallSeconds, r.EventsPerSecond/1e6)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "bin\tsizes (B)\tflows\tmean\tp50\tp95\tp99\t")
	for i, b := range r.Bins {
		fmt.Fprintf(tw, "%d\t%d-%d\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t\n", i, b.Lo, b.Hi, b.N, b.Mean, b.P50, b.P95, b.P99)
	}
	if r.All.N == 0 {
		// No background flow: no statistic, rather than zeros that
		// read as measured.
		fmt.Fprintln(tw, "all\t\t0\t-\t-\t-\t-\t")
	} else {
		fmt.Fprintf(tw, "all\t\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t\n", r.All.N, r.All.Mean, r.All.P50, r.All.P95, r.All.P99)
	}
	if b := r.Incast; b != nil {
		fmt.Fprintf(tw, "incast\t%d-%d\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t\n", b.Lo, b.Hi, b.N, b.Mean, b.P50, b.P95, b.P99)
	}
	tw.Flush()
	fmt.Fprintf(w, "max switch buffer %.3f MB; sampled buffer p50/p99 %.3f/%.3f MB; drops %d; PFC pauses %d; BTS %d; retx %d; timeouts %d; CNPs %d; ECN marks %d; goodput %.1f Gb/s\n",
		float64(r.MaxBuffer)/1e6, float64(r.BufferPct[0])/1e6, float64(r.BufferPct[2])/1e6, r.Drops, r.PauseFrames, r.BTS,
		r.Retx, r.Timeouts, r.CNPs, r.ECNMarked, r.Goodput/1e9)
}

// BFCStats is what a BFC run measured beyond the common metrics.
type BFCStats struct {
	// QueueP99 is the P99 of the non-empty physical queues' octets, all
	// switch ports, sampled every SampleEvery (Fig. 10).
	QueueP99 int64 `json:"queue_p99"`
	// Flows is the number of flows (VFIDs) the switches scheduled;
	// Collided those that joined a physical queue holding another flow's
	// packets at least once; CollisionShare = Collided / Flows (Fig. 7).
	Flows          int     `json:"flows"`
	Collided       int     `json:"collided"`
	CollisionShare float64 `json:"collision_share"`
	// Pauses: flows paused by the BFC pause rule; Frames: BFC pause frames
	// sent.
	Pauses int64 `json:"pauses"`
	Frames int64 `json:"frames"`
	// FirstPackets: frames the switches sent through BFC's high-priority
	// (never paused) queue, summed over switches.
	FirstPackets int64 `json:"first_packets"`
}

// PBFSStats is what a PB-FS run measured (the PB-FS paper's Fig. 6).
type PBFSStats struct {
	// Postcards sent by all switches; FromDstToR those a ToR sent about a
	// packet to one of its own hosts (its downstream, server-facing
	// ports).
	Postcards  int64 `json:"postcards"`
	FromDstToR int64 `json:"from_dst_tor"`
	// EligibleFlows: flows of at least line rate × DC_RTT / 2 octets (the
	// ones PB-FS marks); PerEligibleFlow = Postcards / EligibleFlows.
	EligibleFlows   int     `json:"eligible_flows"`
	PerEligibleFlow float64 `json:"per_eligible_flow"`
	DstToRShare     float64 `json:"dst_tor_share"`
}
