// SPDX-License-Identifier: Apache-2.0

package fidelity

import (
	"fmt"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/floodgate"
)

// The Floodgate claims run floodgate.NewIncast, a two-tier incast: 2
// source ToRs with 4 senders each (100 Gb/s hosts), 400 Gb/s ToR uplinks
// to one core, the core to the receiver's ToR, 600 ns links (the authors'
// ns-3 configuration: 100G hosts, 400G ToR-core, 600 ns), 500 frames of
// 1,078 octets per sender, Floodgate with the defaults of behaviour.md §7
// (m = 1, τ = 10 µs, next-hop RTT 1.2 µs) on every switch and dst-pause on
// the senders. The summary of the paper in reproduction-targets.md §5 has
// no numbers, so every claim is an ordering or a bound.

func init() { Register("floodgate", floodgateClaims) }

const fgSource = "Floodgate paper"

// fgRun is one incast run with and without Floodgate.
type fgRun struct {
	off, on *floodgate.Incast
}

func runFloodgate(core int64) (fgRun, error) {
	var r fgRun
	for _, on := range []bool{false, true} {
		x, err := floodgate.NewIncast(floodgate.IncastConfig{Floodgate: on, Frames: 500, CoreSpeed: core})
		if err != nil {
			return r, err
		}
		x.Run()
		if got, want := x.Delivered(), int64(8*500); got != want {
			return r, fmt.Errorf("incast (core %d Gb/s, Floodgate %v): %d of %d frames delivered", core/device.Gbps, on, got, want)
		}
		if on {
			r.on = x
		} else {
			r.off = x
		}
	}
	return r, nil
}

// queuePeak is the peak of a port's data queue (DSCP 0: class 0).
func queuePeak(d *device.Device, port int) int64 { return d.Record().Queue(port, 0).Peak }

func floodgateClaims() ([]Claim, error) {
	var cs []Claim
	kb := func(v int64) string { return fmt.Sprintf("%.1f KB", float64(v)/1000) }

	// §5.2.1 / Fig. 11(b) on the authors' leaf-spine speeds: ToR-Down and
	// core buffers fall with Floodgate while ToR-Up's rises.
	r, err := runFloodgate(400 * device.Gbps)
	if err != nil {
		return nil, err
	}
	ns, nc, nd := r.off.Peaks()
	fs, fc, fd := r.on.Peaks()
	cs = append(cs, Order("FG-S521-MOVE", fgSource+", §5.2.1 / Fig. 11(b)",
		"With Floodgate the maximum buffer of the receiver's ToR (ToR-Down) and of the core falls and the source ToRs' (ToR-Up) rises: the incast waits near its sources (8 × 100G senders, 400G ToR-core links)",
		"ToR-Down(FG) < ToR-Down(none), core(FG) < core(none), ToR-Up(FG) > ToR-Up(none)",
		fd < nd && fc < nc && fs > ns,
		fmt.Sprintf("peak buffer without / with Floodgate: ToR-Down %s / %s, core %s / %s, ToR-Up %s / %s",
			kb(nd), kb(fd), kb(nc), kb(fc), kb(ns), kb(fs))))

	// The claim: the receiver ToR's queue bounded by the window of
	// its upstream, the excess moved to the source ToR. With the 400G link
	// into the receiver's ToR the window is the core's.
	w := r.on.CoreFG.InitialWindow(r.on.Core, 2)
	dq := queuePeak(r.on.DstToR, 1)
	bound := Order("FG-WINDOW-DST", fgSource+", §3 (per-destination window W = BDP_nextHop + C_out × τ)",
		"The receiver ToR's queue toward the receiver stays within the window its upstream (the core) keeps for the receiver; the excess waits at the source ToRs",
		"peak queue at the receiver ToR ≤ W = BDP_nextHop + C_out × τ of the core",
		dq <= w,
		fmt.Sprintf("W = %s (400 Gb/s: 60 KB + 500 KB); receiver ToR queue peak %s with Floodgate, %s without; source ToR peak %s with, %s without",
			kb(w), kb(dq), kb(queuePeak(r.off.DstToR, 1)), kb(fs), kb(ns)))
	if !bound.OK() {
		bound.Known = fmt.Sprintf("behaviour.md §7 has the downstream count a frame's credit when it joins its egress queue, so the receiver ToR credits the core for every frame as it arrives, "+
			"before it waits in the queue toward the 100 Gb/s receiver; the core's window W = %s then refills every τ at up to the link rate and bounds the core's own queue and the link, not the queue at the receiver ToR "+
			"(peak %s, against %s without Floodgate). The authors' ns-3 code counts credits at dequeue (NASA-NJU/Floodgate-NS3, src/point-to-point/model/switch-node.cc, "+
			"SwitchNotifyDequeue calls AddCreditCounter), under which this bound holds: this model with credits counted when a frame's last bit leaves (its rule before issue 18) "+
			"gives a receiver ToR peak of 515.3 KB in this run, within W. "+
			"Where the congested link is the one the window-keeping switch sends on, the bound holds (FG-WINDOW-HOP).",
			kb(w), kb(dq), kb(queuePeak(r.off.DstToR, 1)))
	}
	cs = append(cs, bound)

	// The same claim where the window keeper feeds the bottleneck: the
	// core's 100 Gb/s link to the receiver's ToR.
	h, err := runFloodgate(100 * device.Gbps)
	if err != nil {
		return nil, err
	}
	hw := h.on.CoreFG.InitialWindow(h.on.Core, 2)
	hq, hq0 := queuePeak(h.on.Core, 2), queuePeak(h.off.Core, 2)
	hs, _, _ := h.on.Peaks()
	hs0, _, _ := h.off.Peaks()
	cs = append(cs, Order("FG-WINDOW-HOP", fgSource+", §3 (per-destination window W = BDP_nextHop + C_out × τ)",
		"The queue into the congested link stays within the window the switch that sends on it keeps for the receiver, and the excess moves to the source ToRs (100G core-to-ToR-Down link, the congested one)",
		"peak queue into the congested link ≤ W = BDP_nextHop + C_out × τ; source ToR peak with Floodgate ≥ 10 × without",
		hq <= hw && hs >= 10*hs0,
		fmt.Sprintf("W = %s (100 Gb/s: 15 KB + 125 KB); queue peak %s with Floodgate (%.2f W), %s without; source ToR peak %s with, %s without; %d dst-pauses",
			kb(hw), kb(hq), float64(hq)/float64(hw), kb(hq0), kb(hs), kb(hs0), h.on.SourceFG[0].DstPauses+h.on.SourceFG[1].DstPauses)))
	return cs, nil
}
