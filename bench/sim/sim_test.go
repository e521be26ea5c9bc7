// SPDX-License-Identifier: Apache-2.0

// Package sim benchmarks the fabric simulator (issue 21 item 6): events
// per second on one core on a 128-host 100 Gb/s leaf-spine at 50 % load,
// and memory that follows the flows in flight.
package sim

import (
	"runtime"
	"testing"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/fabric"
)

// target128 is the speed scenario: 8 ToRs × 16 hosts, 8 spines,
// every link 100 Gb/s with 1 µs delay (BFC's T1 shape), FB_Hadoop at 50 %
// load, DCQCN with ECN, IRN, 12 MB dynamic-threshold buffers.
func target128(dur int64) fabric.Scenario {
	return fabric.Scenario{Name: "leafspine128", Seed: 1,
		Topology:  fabric.Topo{Kind: fabric.LeafSpine, ToRs: 8, Spines: 8, HostsPerToR: 16},
		Switch:    fabric.SwitchConfig{Buffer: 12 * device.MB, DynamicThreshold: true},
		Transport: fabric.TransportConfig{CC: fabric.CCDCQCN, Recovery: fabric.IRN},
		Workload:  fabric.Workload{CDF: "hadoop", Load: 0.5, Duration: dur},
	}
}

// BenchmarkLeafSpine128 runs 1 ms of arrivals (and their drain) per op and
// reports events/s over wall time (the target is ≥ 3M on one core),
// events per CPU-second of the process (the same on a quiet machine;
// higher than events/s when other work shares the cores) and simulated ms
// per wall second.
func BenchmarkLeafSpine128(b *testing.B) {
	runtime.GOMAXPROCS(1)
	var events int64
	var simNs int64
	var wall float64
	cpu0 := cpuSeconds()
	for i := 0; i < b.N; i++ {
		r, err := fabric.Run(target128(device.Millisecond), nil)
		if err != nil {
			b.Fatal(err)
		}
		if r.Completed != r.Flows {
			b.Fatalf("%d of %d flows done", r.Completed, r.Flows)
		}
		events += r.Events
		simNs += r.SimTime
		wall += r.WallSeconds
	}
	b.ReportMetric(float64(events)/wall, "events/s")
	if cpu := cpuSeconds() - cpu0; cpu > 0 {
		b.ReportMetric(float64(events)/cpu, "events/cpu-s")
	}
	b.ReportMetric(float64(simNs)/1e6/wall, "sim-ms/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}

// TestMemoryFollowsFlowsInFlight: the heap after a run of 2 ms is not
// much larger than after 1 ms — NIC and transport state is dropped as flows
// finish (the flow results themselves are kept for the percentiles).
func TestMemoryFollowsFlowsInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 3 ms of a 128-host fabric")
	}
	heap := func(dur int64) (uint64, int) {
		r, err := fabric.Run(target128(dur), nil)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		runtime.KeepAlive(r)
		return m.HeapAlloc, r.Flows
	}
	h1, f1 := heap(device.Millisecond / 5)
	h2, f2 := heap(2 * device.Millisecond / 5)
	perFlow := (float64(h2) - float64(h1)) / float64(f2-f1)
	t.Logf("heap %d B at %d flows, %d B at %d flows: %.0f B per extra flow", h1, f1, h2, f2, perFlow)
	if perFlow > 1024 {
		t.Errorf("%.0f B of heap per completed flow: state is not released", perFlow)
	}
}
