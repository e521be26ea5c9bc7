// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"testing"
)

// TestNICRoundRobinFair: four equal flows from one host (one of them
// starting 1 µs before the others, beside two short flows into its
// receiver) share the NIC round-robin (behaviour.md §1: "round-robin across
// flows"): they finish together, with no retransmission timeout. The NIC
// once appended a flow that came back (the transport posts one packet at a
// time) at the end of its list behind a pointer that never wrapped, so
// the first flow waited for the others to finish: 1,108 µs against
// 823 µs, with 7 timeouts for packets that had never left the NIC.
func TestNICRoundRobinFair(t *testing.T) {
	sc := Scenario{Name: "rr", Seed: 1,
		Topology:  Topo{Kind: LeafSpine, ToRs: 2, Spines: 2, HostsPerToR: 4},
		Transport: TransportConfig{CC: CCHPCC, Recovery: IRN},
		Workload: Workload{Flows: []Flow{
			{ID: 0, Src: 0, Dst: 1, Size: 3_000_000, Start: 1000},
			{ID: 1, Src: 2, Dst: 1, Size: 300_000, Start: 1000},
			{ID: 2, Src: 3, Dst: 1, Size: 300_000, Start: 1000},
			{ID: 3, Src: 0, Dst: 4, Size: 3_000_000, Start: 2000},
			{ID: 4, Src: 0, Dst: 5, Size: 3_000_000, Start: 2000},
			{ID: 5, Src: 0, Dst: 6, Size: 3_000_000, Start: 2000},
		}},
	}
	r, err := Run(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	end := map[int64]int64{}
	err = r.EachFlow(func(f FlowResult) error { end[f.ID] = f.End; return nil })
	if err != nil || len(end) != 6 {
		t.Fatalf("%d flows done: %v", len(end), err)
	}
	lo, hi := end[0], end[0]
	for _, id := range []int64{3, 4, 5} {
		lo, hi = min(lo, end[id]), max(hi, end[id])
	}
	if float64(hi-lo) > 0.01*float64(hi) || r.Timeouts != 0 {
		t.Errorf("host 0's flows end between %d and %d ns (%v), %d timeouts; want together, none", lo, hi, end, r.Timeouts)
	}
}
