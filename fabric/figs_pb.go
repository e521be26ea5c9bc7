// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"fmt"
	"sort"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/pfc"
)

func init() {
	register(&Figure{Name: "pb-fig5", Title: "PB-FS Fig. 5 and §V-B (PB-1, PB-2): short-flow P95 FCT and maximum buffer with and without PB-FS, lossless, DCQCN/TIMELY/HPCC", Run: runPBFig5})
	register(&Figure{Name: "pb-fig6", Title: "PB-FS Fig. 6 (PB-3): postcards per eligible flow and where they come from, HPCC", Run: runPBFig6})
}

// pbShort is the size bound of the PB-FS paper's short flows (~80 % of
// flows): 50 kB, where FB_Hadoop's CDF reaches 82 %.
const pbShort = 50_000

// pbScenario is the PB-FS §V-A setup: a 3-tier fat-tree with 25 Gb/s host
// and 100 Gb/s switch links, 2 µs per link, 8 MB buffers, PFC at 11 % of
// the free buffer, go-back-N, FB_Hadoop at 70 % load plus incasts (100
// senders × 100 kB; CI 12), with and without PB-FS (N 8, Δ 6, DC_RTT the
// fabric's maximum base RTT, 24 µs). Full: k = 8 with 10 hosts per edge
// switch (320 hosts; the paper's is HPCC's fat.txt, 20 ToRs × 16), 5 ms;
// CI: k = 4 (16 hosts), 1 ms.
func pbScenario(full bool, seed uint64, cc CC, on bool) Scenario {
	t := Topo{Kind: FatTree, K: 4, Host: Link{25 * device.Gbps, 2 * device.Microsecond}, Up: Link{100 * device.Gbps, 2 * device.Microsecond}}
	degree, dur := 12, int64(device.Millisecond)
	if full {
		t.K, t.HostsPerToR = 8, 10
		degree, dur = 100, 5*device.Millisecond
	}
	return Scenario{Name: fmt.Sprintf("pb-%s-%v", cc, on), Seed: seed, Topology: t,
		Switch:    SwitchConfig{Buffer: 8 * device.MB, DynamicThreshold: true},
		FC:        FCPFC,
		PFC:       pfc.Params{Dynamic: true, AlphaPFC: 0.11, BaseRTT: 25 * device.Microsecond, MTU: 1078},
		PBFS:      PBFSConfig{On: on},
		Transport: TransportConfig{CC: cc, Recovery: GBN},
		Workload:  Workload{CDF: "hadoop", Load: 0.7, Degree: degree, Size: 100_000, IncastLoad: 0.05, Duration: dur}}
}

// pbAgg is one (CC, PB-FS on/off) pair's results averaged over seeds.
type pbAgg struct {
	shortP95, tinyP95, maxBuf float64
	perFlow, dstShare         float64
}

func pbRun(full bool, seeds []uint64, cc CC, on bool, p Progress) (*pbAgg, error) {
	a := &pbAgg{}
	n := float64(len(seeds))
	for _, seed := range seeds {
		r, err := cachedRun(pbScenario(full, seed, cc, on), p)
		if err != nil {
			return nil, err
		}
		var short, tiny []float64
		err = r.EachFlow(func(f FlowResult) error {
			if f.Tag == "incast" {
				return nil
			}
			if f.Size <= pbShort {
				short = append(short, float64(f.FCT))
			}
			if f.Size < 1000 {
				tiny = append(tiny, float64(f.FCT))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Float64s(short)
		sort.Float64s(tiny)
		a.shortP95 += percentile(short, 0.95) / n
		a.tinyP95 += percentile(tiny, 0.95) / n
		a.maxBuf += float64(r.MaxBuffer) / n
		if r.PBFS != nil {
			a.perFlow += r.PBFS.PerEligibleFlow / n
			a.dstShare += r.PBFS.DstToRShare / n
		}
	}
	return a, nil
}

var pbCCs = []CC{CCDCQCN, CCTIMELY, CCHPCC}

// runPBFig5: short-flow P95 FCT (µs) and the largest switch buffer, per CC,
// with and without PB-FS.
func runPBFig5(full bool, seeds []uint64, p Progress) (*FigResult, error) {
	fr := &FigResult{Name: "pb-fig5", Title: Figures["pb-fig5"].Title, Scale: scaleName(full), XLabel: "CC (0 DCQCN, 1 TIMELY, 2 HPCC)", YLabel: "P95 FCT of flows ≤ 50 kB (µs)"}
	res := map[CC]map[bool]*pbAgg{}
	for _, on := range []bool{false, true} {
		s := Series{Label: map[bool]string{false: "without PB-FS", true: "PB-FS"}[on]}
		for i, cc := range pbCCs {
			a, err := pbRun(full, seeds, cc, on, p)
			if err != nil {
				return nil, err
			}
			if res[cc] == nil {
				res[cc] = map[bool]*pbAgg{}
			}
			res[cc][on] = a
			s.X, s.Y = append(s.X, float64(i)), append(s.Y, a.shortP95/1e3)
		}
		fr.Series = append(fr.Series, s)
	}
	ratio := func(cc CC) float64 { return res[cc][true].shortP95 / max(res[cc][false].shortP95, 1) }
	tiny := res[CCHPCC][true].tinyP95 / max(res[CCHPCC][false].tinyP95, 1)
	fr.Checks = append(fr.Checks, Check{ID: "PB-1a", Criterion: "short-flow P95 FCT with PB-FS ≤ 0.25 × without, DCQCN and TIMELY",
		Measured: fmt.Sprintf("DCQCN %.1f → %.1f µs (%.2f×), TIMELY %.1f → %.1f µs (%.2f×)",
			res[CCDCQCN][false].shortP95/1e3, res[CCDCQCN][true].shortP95/1e3, ratio(CCDCQCN),
			res[CCTIMELY][false].shortP95/1e3, res[CCTIMELY][true].shortP95/1e3, ratio(CCTIMELY)),
		Pass: ratio(CCDCQCN) <= 0.25 && ratio(CCTIMELY) <= 0.25})
	fr.Checks = append(fr.Checks, Check{ID: "PB-1b", Criterion: "HPCC, flows < 1000 B: P95 with PB-FS ≤ 1.0 × without",
		Measured: fmt.Sprintf("%.1f → %.1f µs (%.2f×)", res[CCHPCC][false].tinyP95/1e3, res[CCHPCC][true].tinyP95/1e3, tiny), Pass: tiny <= 1.0})
	red := func(cc CC) float64 { return 1 - res[cc][true].maxBuf/max(res[cc][false].maxBuf, 1) }
	fr.Checks = append(fr.Checks, Check{ID: "PB-2", Criterion: "maximum buffer reduction ≥ 40 % (DCQCN), ≥ 60 % (TIMELY), ≥ 15 % (HPCC); order TIMELY > DCQCN > HPCC",
		Measured: fmt.Sprintf("DCQCN %s → %s (%.0f %%), TIMELY %s → %s (%.0f %%), HPCC %s → %s (%.0f %%)",
			mb(res[CCDCQCN][false].maxBuf), mb(res[CCDCQCN][true].maxBuf), 100*red(CCDCQCN),
			mb(res[CCTIMELY][false].maxBuf), mb(res[CCTIMELY][true].maxBuf), 100*red(CCTIMELY),
			mb(res[CCHPCC][false].maxBuf), mb(res[CCHPCC][true].maxBuf), 100*red(CCHPCC)),
		Pass: red(CCDCQCN) >= 0.40 && red(CCTIMELY) >= 0.60 && red(CCHPCC) >= 0.15 && red(CCTIMELY) > red(CCDCQCN) && red(CCDCQCN) > red(CCHPCC)})
	fr.Notes = append(fr.Notes, "Short flows: non-incast flows ≤ 50 kB (82 % of FB_Hadoop). Maximum buffer: the largest shared-buffer peak of any switch (the paper's maximum queue length).",
		"The CC starts from the rate PB-FS adopted when the flow's first ACK arrives; before it, PB-FS paces the flow.")
	return fr, nil
}

// runPBFig6: postcards per PB-FS-eligible flow and the share sent by the
// destination's ToR, HPCC with PB-FS (the runs of pb-fig5).
func runPBFig6(full bool, seeds []uint64, p Progress) (*FigResult, error) {
	fr := &FigResult{Name: "pb-fig6", Title: Figures["pb-fig6"].Title, Scale: scaleName(full), XLabel: "CC (0 DCQCN, 1 TIMELY, 2 HPCC)", YLabel: "postcards per eligible flow"}
	s := Series{Label: "postcards per eligible flow"}
	d := Series{Label: "share from the destination ToR"}
	var hp *pbAgg
	for i, cc := range pbCCs {
		a, err := pbRun(full, seeds, cc, true, p)
		if err != nil {
			return nil, err
		}
		if cc == CCHPCC {
			hp = a
		}
		s.X, s.Y = append(s.X, float64(i)), append(s.Y, a.perFlow)
		d.X, d.Y = append(d.X, float64(i)), append(d.Y, a.dstShare)
	}
	fr.Series = append(fr.Series, s, d)
	fr.Checks = append(fr.Checks, Check{ID: "PB-3a", Criterion: "average postcards per eligible flow ≤ 5 (HPCC)",
		Measured: fmt.Sprintf("HPCC %.2f (DCQCN %.2f, TIMELY %.2f)", hp.perFlow, s.Y[0], s.Y[1]), Pass: hp.perFlow <= 5})
	fr.Checks = append(fr.Checks, Check{ID: "PB-3b", Criterion: "> 50 % of postcards from the destination ToR's downstream ports (HPCC)",
		Measured: fmt.Sprintf("%.1f %%", 100*hp.dstShare), Pass: hp.dstShare > 0.5})
	fr.Notes = append(fr.Notes, "Eligible: flows of at least host line rate × DC_RTT / 2 octets (37.5 kB at 25 Gb/s and 24 µs), incast flows included.")
	return fr, nil
}
