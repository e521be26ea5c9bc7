// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"time"

	"github.com/opensfc/sfc/bfc"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/floodgate"
	"github.com/opensfc/sfc/pfc"
	"github.com/opensfc/sfc/postcard"
	"gopkg.in/yaml.v3"
)

// Scenario is one run: a topology, the switches' buffer and schemes, the
// hosts' transport and the workload. Times are ns, sizes octets, speeds
// bit/s. It is the YAML file `sfcsim run` reads.
type Scenario struct {
	Name      string           `yaml:"name" json:"name"`
	Seed      uint64           `yaml:"seed" json:"seed"`
	Topology  Topo             `yaml:"topology" json:"topology"`
	Switch    SwitchConfig     `yaml:"switch" json:"switch"`
	FC        FC               `yaml:"flow_control" json:"flow_control"`
	SFC       SFCConfig        `yaml:"sfc" json:"sfc"`
	PFC       pfc.Params       `yaml:"pfc" json:"pfc"`
	ECN       *ECN             `yaml:"ecn" json:"ecn,omitempty"`
	Floodgate floodgate.Params `yaml:"floodgate" json:"floodgate"`
	// BFC parameters under flow_control: bfc (package bfc; zero: its
	// defaults). The switches' ports get the egress queues BFC needs.
	BFC bfc.Params `yaml:"bfc" json:"bfc"`
	// PBFS turns PB-FS on (any flow control).
	PBFS PBFSConfig `yaml:"pbfs" json:"pbfs"`
	// ECMPByDst routes every flow to a host on one path (hash of the
	// destination only), as Floodgate runs always do; a baseline compared
	// with Floodgate sets it too.
	ECMPByDst bool            `yaml:"ecmp_by_dst" json:"ecmp_by_dst,omitempty"`
	Transport TransportConfig `yaml:"transport" json:"transport"`
	Workload  Workload        `yaml:"workload" json:"workload"`
	// SampleEvery is the buffer sampling period (default 10 µs, the SFC
	// paper's Fig. 7b).
	SampleEvery int64 `yaml:"sample_every" json:"sample_every"`
	// Drain bounds the run: it stops this long after the last arrival even
	// if flows are unfinished (default 100 ms).
	Drain int64 `yaml:"drain" json:"drain"`
	// Bins is the number of size bins (default 10, the SFC paper's).
	Bins int `yaml:"bins" json:"bins"`
}

// ReadScenario parses a YAML scenario; unknown keys are errors.
func ReadScenario(r io.Reader) (*Scenario, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxScenarioSize+1))
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	if len(data) > MaxScenarioSize {
		return nil, fmt.Errorf("scenario larger than %d octets", MaxScenarioSize)
	}
	// A fraction where the field is a whole number (tors: 2.5) would be
	// cut to 2 by the decoder without a word.
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err == nil {
		if err := checkWhole(&root, reflect.TypeOf(Scenario{}), ""); err != nil {
			return nil, err
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Scenario
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("the scenario is empty (no YAML document; see fabric/testdata/small.yaml)")
		}
		return nil, fmt.Errorf("scenario: %w", err)
	}
	// One scenario per file: a second document would be ignored.
	var extra yaml.Node
	if dec.Decode(&extra) == nil {
		return nil, &ScenarioError{Line: extra.Line, Key: "---", Msg: "a second YAML document: one scenario per file"}
	}
	return &s, nil
}

// MaxScenarioSize bounds a scenario file (16 MiB).
const MaxScenarioSize = 16 << 20

// LoadScenario reads a YAML scenario file and validates it (Validate, and
// no NaN, infinite or negative number anywhere): a value out of range is
// a *ScenarioError naming the file, the line and the key. A relative
// workload.flows_file is taken from the file's directory (ResolvePaths),
// as paths in a configuration file usually are.
func LoadScenario(path string) (*Scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxScenarioSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > MaxScenarioSize {
		return nil, fmt.Errorf("%s: scenario larger than %d octets", path, MaxScenarioSize)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: scenario: %w", path, err)
	}
	var s *Scenario
	err = checkNodes(&root, "")
	if err == nil {
		s, err = ReadScenario(bytes.NewReader(data))
		if _, isSE := err.(*ScenarioError); err != nil && !isSE {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if err == nil {
			s.ResolvePaths(filepath.Dir(path))
			err = s.Validate()
		}
	}
	if se, ok := err.(*ScenarioError); ok {
		se.File = path
		if se.Line == 0 {
			se.Line = lineOf(&root, se.Key)
		}
		return nil, se
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// ResolvePaths makes a relative workload.flows_file and workload.cdf file
// relative to dir, the directory of the scenario file they came from, and
// absolute, so that the scenario runs the same from any working directory
// (sfcsim sweep writes its jobs' scenarios into another directory).
func (s *Scenario) ResolvePaths(dir string) {
	s.Workload.ResolveCDF(dir)
	ff := s.Workload.FlowsFile
	if ff == "" || filepath.IsAbs(ff) {
		return
	}
	ff = filepath.Join(dir, ff)
	if abs, err := filepath.Abs(ff); err == nil {
		ff = abs
	}
	s.Workload.FlowsFile = ff
}

// Progress is called about once per wall-clock second of a run with the
// run's name and seed, the simulated time, the events run so far and the
// flows completed. Runs in parallel (sfcsim fig -j) call it from their
// goroutines at once: it must be safe for that, and keep what it needs
// per run.
type Progress func(run string, simNs, events int64, done, total int)

// maxInFlight is MaxInFlight, a variable for the tests.
var maxInFlight = MaxInFlight

// Run builds the scenario's fabric and runs it to completion (every flow
// done, or Drain after the last arrival). The result depends only on the
// scenario (its seed included); wall time and events/s are reported
// beside it.
func Run(sc Scenario, progress Progress) (_ *Result, err error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	if sc.SampleEvery == 0 {
		sc.SampleEvery = 10 * device.Microsecond
	}
	if sc.Drain == 0 {
		sc.Drain = 100 * device.Millisecond
	}
	if sc.Bins == 0 {
		sc.Bins = 10
	}
	if sc.FC == "" {
		sc.FC = FCNone
	}
	switch sc.FC {
	case FCNone, FCPFC, FCSFC, FCSFCP, FCFloodgate, FCBFC:
	default:
		return nil, &device.ParamError{Scope: "scenario", Name: "flow_control", Value: string(sc.FC), Allowed: "none, pfc, sfc, sfcp, floodgate, bfc"}
	}
	bfcQ := sc.BFC.Queues
	if bfcQ == 0 {
		bfcQ = bfc.DefaultQueues
	}
	if sc.FC == FCBFC {
		sc.Switch.Queues = max(sc.Switch.Queues, bfc.QueuesFor(bfcQ))
	}
	n, err := Build(sc.Topology, sc.Switch)
	if err != nil {
		return nil, err
	}
	if sc.ECN == nil {
		switch sc.Transport.CC {
		case CCDCQCN:
			e := HPCCECN
			sc.ECN = &e
		case CCDCTCP:
			e := DCTCPECN
			sc.ECN = &e
		}
	}
	if sc.PBFS.On && sc.PBFS.DCRTT == 0 {
		sc.PBFS.DCRTT = n.MaxBaseRTT()
	}
	if sc.SFC.BaseRTT == 0 {
		sc.SFC.BaseRTT = n.MaxBaseRTT()
	}
	st := &Setup{FC: sc.FC, ECN: sc.ECN, INT: sc.Transport.CC == CCHPCC, SFC: sc.SFC, PFC: sc.PFC, Floodgate: sc.Floodgate, BFC: sc.BFC, PBFS: sc.PBFS, Seed: sc.Seed, ECMPByDst: sc.ECMPByDst}
	if err := st.Apply(n); err != nil {
		return nil, err
	}
	var tables *sfcTables
	if sc.FC == FCSFC || sc.FC == FCSFCP {
		tables = newSFCTables(sc.SFC.BaseRTT/2, sc.SFC.Cache)
		for _, s := range n.ToRs {
			tables.watch(s.Dev)
		}
	}
	var fgOctets int64
	pbs := &PBFSStats{}
	if sc.PBFS.On {
		for ti, s := range n.ToRs {
			s.Dev.AlsoOnOutput(func(o device.Out) {
				if !o.Generated || o.Kind != device.KindPostcard {
					return
				}
				pbs.Postcards++
				if l, err := postcard.Decode(o.Frame, 0); err == nil {
					if h := n.HostByAddr(l.Flow.Dst); h != nil && h.ToR == ti {
						pbs.FromDstToR++
					}
				}
			})
		}
	}
	if sc.FC == FCFloodgate {
		for _, s := range n.Switches {
			s.Dev.AlsoOnOutput(func(o device.Out) {
				if o.Generated && o.Kind == device.KindExperimental {
					fgOctets += device.WireBits(len(o.Frame)) / 8
				}
			})
		}
	}
	res := &Result{Name: sc.Name, Seed: sc.Seed, firstStart: -1}
	defer func() {
		if err != nil {
			res.Close() // its temporary files, at once
		}
	}()
	// The flows started and not yet done, by source host and ID (unique
	// in flight: a host's transport refuses a second flow on a queue pair
	// in use, and the ID names the queue pair), with their place in the
	// arrivals: what is left at the end is the per-flow file's unfinished
	// rows, in that order.
	type flowKey struct {
		src int
		id  int64
	}
	type started struct {
		f   Flow
		seq int
	}
	inFlight := map[flowKey]started{}
	if _, err := n.AttachTransports(sc.Transport, func(r FlowResult) {
		delete(inFlight, flowKey{r.Src, r.ID})
		res.flows.add(&r)
		res.payload += r.Size
		res.lastDone = max(res.lastDone, r.End)
	}); err != nil {
		return nil, err
	}
	if sc.Workload.Remote {
		sc.Workload.Rack = len(n.Hosts) / len(n.ToRs)
	}
	if err := sc.checkFlowCount(len(n.Hosts), n.Topo.Host.Speed); err != nil {
		return nil, err
	}
	arrivals, err := sc.Workload.Arrivals(len(n.Hosts), n.Topo.Host.Speed, sc.Seed)
	if err != nil {
		return nil, err
	}
	defer arrivals.Close()
	res.Flows = arrivals.Len()
	if res.Flows > 0 {
		res.firstStart = arrivals.First()
		if err := checkSamples(arrivals.Last()+sc.Drain, sc.SampleEvery, len(n.Switches)); err != nil {
			return nil, err
		}
	}
	wall := time.Now()
	lastReport := wall
	nextSample := int64(0)
	// Receiver throughput: bytes each host received per 100 µs window in
	// which it received anything (the SFC paper's Fig. 7c CDF).
	const rxWindow = 100 * device.Microsecond
	lastRx := make([]int64, len(n.Hosts))
	// Samples in memory that does not grow with the run (samples.go):
	// received octets per window, BFC queue octets, and each switch's
	// buffer (percentiles, and the series over time).
	rxOctets, bfcQueue := quantiles{limit: maxExactPooled}, quantiles{limit: maxExactPooled}
	var pausedSamples, portSamples int64
	res.bufQ = make([]quantiles, len(n.Switches))
	res.bufAll = quantiles{limit: maxExactPooled}
	res.bufLog = newSeriesLog(len(n.Switches))
	row := make([]int64, len(n.Switches))
	nextRx := int64(rxWindow)
	advance := func(t int64) {
		for nextSample <= t {
			n.Sim.RunUntil(nextSample)
			for si, s := range n.Switches {
				used := s.Dev.BufferUsed()
				row[si] = used
				res.bufQ[si].add(used)
				res.bufAll.add(used)
				if s.Tier == 0 {
					var down int64
					for _, pt := range s.Dev.Ports() {
						if pt.ServerFacing {
							for qi := range pt.Queues {
								down += pt.Queues[qi].Bytes
							}
						}
					}
					res.Hops.ToRDown = max(res.Hops.ToRDown, down)
					res.Hops.ToRUp = max(res.Hops.ToRUp, used-down)
				} else {
					res.Hops.Core = max(res.Hops.Core, used)
				}
			}
			res.bufLog.add(row)
			if sc.FC != FCNone {
				pp, np := pausedPorts(n, n.Sim.Now())
				pausedSamples += int64(pp)
				portSamples += int64(np)
			}
			if sc.FC == FCBFC {
				bfcQueueSample(n, bfcQ, &bfcQueue)
			}
			nextSample += sc.SampleEvery
			if n.Sim.Now() >= nextRx {
				for i, h := range n.Hosts {
					rx := h.Transport.DataRx
					if d := rx - lastRx[i]; d > 0 {
						rxOctets.add(d)
					}
					lastRx[i] = rx
				}
				nextRx += rxWindow
			}
			if progress != nil && nextSample%(100*sc.SampleEvery) == 0 {
				if now := time.Now(); now.Sub(lastReport) >= time.Second {
					lastReport = now
					progress(fmt.Sprintf("%s seed %d", sc.Name, sc.Seed), n.Sim.Now(), n.Sim.Events, res.flows.n, res.Flows)
				}
			}
		}
		n.Sim.RunUntil(t)
	}
	// PB-FS's eligible flows: at least line rate × DC_RTT / 2 octets.
	long := int64(n.Topo.Host.Speed) / 8 * sc.PBFS.DCRTT / 2 / 1e9
	eligible := 0
	for seq := 0; ; seq++ {
		f, ok := arrivals.Next()
		if !ok {
			break
		}
		if f.Size >= long {
			eligible++
		}
		advance(f.Start)
		if err := n.Hosts[f.Src].Transport.Start(f); err != nil {
			return nil, err
		}
		inFlight[flowKey{f.Src, f.ID}] = started{f, seq}
		if len(inFlight) > maxInFlight {
			return nil, fmt.Errorf("%s: more than %d flows in flight at %.6f s (fabric.MaxInFlight, about 6 KB each): fewer flows at once, or a lower load", sc.Name, maxInFlight, float64(f.Start)/1e9)
		}
	}
	if err := arrivals.Err(); err != nil {
		return nil, err
	}
	var end int64
	if res.Flows > 0 {
		end = arrivals.Last() + sc.Drain
	}
	for res.flows.n < res.Flows && n.Sim.Now() < end {
		advance(min(n.Sim.Now()+sc.SampleEvery, end))
	}
	res.WallSeconds = time.Since(wall).Seconds()
	res.SimTime = n.Sim.Now()
	res.Events = n.Sim.Events
	if res.WallSeconds > 0 {
		res.EventsPerSecond = float64(res.Events) / res.WallSeconds
	}
	res.Completed = res.flows.n
	if res.Completed < res.Flows {
		// The flows that did not finish, for the per-flow file: the
		// ones a researcher most needs to see, in the order they began.
		left := slices.Collect(maps.Values(inFlight))
		slices.SortFunc(left, func(a, b started) int { return cmp.Compare(a.seq, b.seq) })
		for _, s := range left {
			res.unfinished = append(res.unfinished, s.f)
		}
	}
	for _, s := range n.Switches {
		rec := s.Dev.Record()
		ss := SwitchStat{Name: s.Name, Tier: int(s.Tier), Peak: rec.BufferPeak, Drops: rec.Dropped("")}
		res.Switches = append(res.Switches, ss)
		res.MaxBuffer = max(res.MaxBuffer, ss.Peak)
		res.Drops += ss.Drops
		res.BTS += rec.SignalsSent(device.KindBTS)
		for _, sc := range s.Dev.Schemes() {
			if e, ok := sc.(*Egress); ok {
				res.ECNMarked += e.Marked
			}
		}
	}
	for _, p := range st.PFCSw {
		res.PauseFrames += p.XOFFSent
	}
	if tables != nil {
		var sent, supp int64
		for _, b := range st.SFCSw {
			for _, x := range b.Sent {
				sent += x
			}
			supp += b.Suppressed
		}
		res.SFC = &SFCTables{FilterPeak: tables.filterPeak, CachePeak: tables.cachePeak}
		if sent+supp > 0 {
			res.SFC.Suppression = float64(supp) / float64(sent+supp)
		}
	}
	if sc.FC == FCFloodgate {
		// Capacity of the switch-to-switch links (both directions) over
		// the run, and the data frames that crossed them (one per-packet
		// credit each in the "ideal" design).
		var capBits float64
		var frames int64
		for _, s := range n.Switches {
			for _, pt := range s.Dev.Ports() {
				if !pt.ServerFacing {
					capBits += float64(pt.Speed) * float64(res.SimTime) / 1e9
					frames += pt.RxFrames
				}
			}
		}
		for _, f := range st.FGSw {
			frames -= f.CreditFrames
		}
		res.CreditOctets = fgOctets
		if capBits > 0 {
			res.CreditShare = float64(fgOctets) * 8 / capBits
			res.PerPacketCreditShare = float64(frames) * float64(device.WireBits(64)) / capBits
		}
	}
	for _, h := range n.Hosts {
		t := h.Transport
		res.Retx += t.Retx
		res.Timeouts += t.Timeouts
		res.NAKs += t.NAKs
		res.CNPs += t.CNPs
		res.DataPackets += t.DataSent
		res.ControlPackets += t.ACKs
		rec := h.NIC.Record()
		res.Drops += rec.Dropped("")
	}
	// Per-switch sampled P99.
	ns := len(n.Switches)
	for i := range res.Switches {
		res.Switches[i].P99 = res.bufQ[i].percentile(0.99)
	}
	if sc.PBFS.On {
		var total int64
		for _, s := range st.PBFSSw {
			total += s.Postcards
		}
		pbs.Postcards = total
		pbs.EligibleFlows = eligible
		if pbs.EligibleFlows > 0 {
			pbs.PerEligibleFlow = float64(total) / float64(pbs.EligibleFlows)
		}
		if total > 0 {
			pbs.DstToRShare = float64(pbs.FromDstToR) / float64(total)
		}
		res.PBFS = pbs
	}
	if portSamples > 0 {
		res.PausedShare = float64(pausedSamples) / float64(portSamples)
	}
	if sc.FC == FCBFC {
		res.BFC = &BFCStats{QueueP99: bfcQueue.percentile(0.99), Flows: len(st.BFCSeen), Collided: len(st.BFCCollided)}
		if len(st.BFCSeen) > 0 {
			res.BFC.CollisionShare = float64(len(st.BFCCollided)) / float64(len(st.BFCSeen))
		}
		for _, b := range st.BFCSw {
			res.BFC.Pauses += b.Pauses
			res.BFC.Frames += b.FramesSent
			res.BFC.FirstPackets += b.FirstPackets
		}
	}
	rate := func(p float64) float64 { return float64(rxOctets.percentile(p)) * 8e9 / float64(rxWindow) }
	res.RxThroughput = [3]float64{rate(0.1), rate(0.5), rate(0.9)}
	res.nsw = ns
	res.sampleEvery = sc.SampleEvery
	if err := res.summarize(sc.Bins); err != nil {
		return nil, err // (the deferred Close releases its files)
	}
	return res, nil
}
