// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"fmt"
	"slices"
	"strings"

	"github.com/opensfc/sfc/device"
)

func init() {
	register(&Figure{Name: "hpcc-readme", Title: "Sanity row: the HPCC ns-3 simulator's README example (two 200 MB flows into one host, 100G star, HPCC η = 0.95)", Run: runHPCCReadme})
}

// hpccReadmeFlows is what the HPCC simulator runs of its shipped
// simulation/mix/flow.txt (alibaba-edu/High-Precision-Congestion-Control):
// the file's count says 2, so hosts 2 and 3 each send 200 MB to host 1 at
// t = 2 s (priority group 3, port 100); the lines after the count are not
// read (ReadFlows does the same).
const hpccReadmeFlows = "2\n2 1 3 100 200000000 2\n3 1 3 100 200000000 2\n"

// HPCC's design targets for this setup (Li et al., SIGCOMM 2019, §3 and
// the simulator's mix/config.txt): the bottleneck runs at U_TARGET = η of
// its capacity, flows sharing it converge to equal rates, and the queue
// stays near zero once the first RTT's line-rate start has drained.
const (
	hpccEta = 0.95
	// hpccUtilTol: utilisation within ±5 % of η.
	hpccUtilTol = 0.05
	// hpccFairTol: the two FCTs within 2 % of each other.
	hpccFairTol = 1.02
	// hpccQueueBDP: the sampled standing queue's P90, as a share of one
	// bandwidth-delay product (line rate × HPCC's base RTT T).
	hpccQueueBDP = 0.1
	// hpccPeakW: the peak, in initial windows: N flows starting together
	// at line rate (W_init = B × T) queue up to (N−1) × W_init before the
	// first INT feedback; 25 % over that is allowed for the feedback's
	// own delay.
	hpccPeakW = 1.25
)

// runHPCCReadme runs the HPCC simulator's README example: `python run.py
// --cc hp --trace flow --bw 100 --topo topology` with the shipped
// mix/config.txt (CC_MODE 3, U_TARGET 0.95, PACKET_PAYLOAD_SIZE 1000,
// BUFFER_SIZE 32 MB, go-back-N) on a star of 100 Gb/s, 1 µs links. Our
// hosts are numbered from 0, so the star has hosts 0-3 and host 0 stays
// idle (HPCC's node 0 is its switch). The project publishes no output for
// that run, so the checks are HPCC's design targets, not numbers copied
// from a run: see docs/reproduction.md "HPCC sanity row". CI scale sends
// 20 MB per flow instead of 200 MB.
func runHPCCReadme(full bool, seeds []uint64, p Progress) (*FigResult, error) {
	fr := &FigResult{Name: "hpcc-readme", Title: Figures["hpcc-readme"].Title, Scale: scaleName(full),
		XLabel: "µs after the flows start", YLabel: "ToR buffer (KB)"}
	flows, err := ReadFlows(strings.NewReader(hpccReadmeFlows), 4)
	if err != nil {
		return nil, err
	}
	if !full {
		for i := range flows {
			flows[i].Size /= 10
		}
	}
	host := Link{100 * device.Gbps, device.Microsecond}
	// Two host links each way between any two hosts of the star. HPCC's T
	// is the fabric's largest base RTT, through the spine, the value the
	// transport would take by default (Net.MaxBaseRTT); it is set here so
	// that the initial window W_init = B × T below is the transport's.
	rtt := 4 * host.Delay
	baseT := 2 * (2*host.Delay + 2*host.Delay)
	wInit := float64(host.Speed) / 8 * float64(baseT) / 1e9
	sc := Scenario{Name: "hpcc-readme", Topology: Topo{Kind: LeafSpine, ToRs: 1, Spines: 1, HostsPerToR: 4, Host: host, Up: host},
		Switch: SwitchConfig{Buffer: 32 * device.MB, DynamicThreshold: true}, FC: FCPFC,
		Transport: TransportConfig{CC: CCHPCC, Recovery: GBN, MTU: 1000, BaseRTT: baseT, HPCC: HPCC{Eta: hpccEta}},
		Workload:  Workload{Flows: flows}}
	var util, fair, q90, peak []float64
	var pauses, drops int64
	for _, seed := range seeds {
		sc.Seed = seed
		r, err := Run(sc, p)
		if err != nil {
			return nil, err
		}
		done, err := r.FlowResults()
		if err != nil {
			return nil, err
		}
		if len(done) != len(flows) {
			return nil, fmt.Errorf("hpcc-readme: %d of %d flows completed", len(done), len(flows))
		}
		start, end := done[0].Start, done[0].End
		var busy int64 // serialisation time of every packet at line rate
		lo, hi := done[0].FCT, done[0].FCT
		for _, f := range done {
			start, end = min(start, f.Start), max(end, f.End)
			lo, hi = min(lo, f.FCT), max(hi, f.FCT)
			busy += f.Ideal - rtt
		}
		util = append(util, float64(busy)/float64(end-start-rtt))
		fair = append(fair, float64(hi)/float64(lo))
		// The ToR (switch 0) sampled from the flows' start to the end.
		tor, err := r.BufferSeries(0)
		if err != nil {
			return nil, err
		}
		from, to := int(start/r.sampleEvery), min(len(tor), int(end/r.sampleEvery)+1)
		if from >= to {
			return nil, fmt.Errorf("hpcc-readme: no buffer sample between %d and %d ns", start, end)
		}
		live := slices.Clone(tor[from:to])
		slices.Sort(live)
		q90 = append(q90, float64(live[len(live)*9/10]))
		peak = append(peak, float64(r.Switches[0].Peak))
		pauses += r.PauseFrames
		drops += r.Drops
		if len(fr.Series) == 0 {
			// At most 400 points, each the largest sample of its block, so
			// that the start's peak stays visible at full scale.
			var s Series
			w := tor[from:to]
			step := max(1, (len(w)+399)/400)
			for i := 0; i < len(w); i += step {
				s.X, s.Y = append(s.X, float64(int64(i)*r.sampleEvery)/1000), append(s.Y, float64(slices.Max(w[i:min(i+step, len(w))]))/1e3)
			}
			s.Label = fmt.Sprintf("ToR buffer, seed %d (largest sample per %d µs)", seed, int64(step)*r.sampleEvery/1000)
			fr.Series = append(fr.Series, s)
			for _, f := range done {
				fr.Notes = append(fr.Notes, fmt.Sprintf("flow %d: host %d → %d, %d octets, FCT %.3f ms (alone at line rate %.3f ms)", f.ID, f.Src, f.Dst, f.Size, float64(f.FCT)/1e6, float64(f.Ideal)/1e6))
			}
		}
	}
	u, fa, q, pk, w := mean(util), mean(fair), mean(q90), mean(peak), wInit
	fr.Checks = append(fr.Checks,
		Check{ID: "HPCC-a", Criterion: fmt.Sprintf("bottleneck utilisation within ±%.0f %% of η = %.2f (U_TARGET)", hpccUtilTol*100, hpccEta),
			Measured: fmt.Sprintf("%.3f of line rate (%.3f × η)", u, u/hpccEta), Pass: u/hpccEta >= 1-hpccUtilTol && u/hpccEta <= 1+hpccUtilTol},
		Check{ID: "HPCC-b", Criterion: fmt.Sprintf("fair share: the two flows' FCTs within %.0f %%", (hpccFairTol-1)*100),
			Measured: fmt.Sprintf("longest / shortest FCT %.4f", fa), Pass: fa <= hpccFairTol},
		Check{ID: "HPCC-c", Criterion: fmt.Sprintf("near-zero standing queue: ToR buffer P90 over the flows' life ≤ %.1f BDP, no PFC pause, no drop", hpccQueueBDP),
			Measured: fmt.Sprintf("P90 %.1f KB (BDP %.1f KB), %d pauses, %d drops", q/1e3, w/1e3, pauses, drops), Pass: q <= hpccQueueBDP*w && pauses == 0 && drops == 0},
		Check{ID: "HPCC-d", Criterion: fmt.Sprintf("the line-rate start's queue ≤ %.2f × (N−1) × W_init", hpccPeakW),
			Measured: fmt.Sprintf("peak %.1f KB, (N−1) × W_init = %.1f KB (%.2f×)", pk/1e3, w*float64(len(flows)-1)/1e3, pk/(w*float64(len(flows)-1))), Pass: pk <= hpccPeakW*w*float64(len(flows)-1)})
	return fr, nil
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(max(len(v), 1))
}
