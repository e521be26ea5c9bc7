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
// finish, and their results go to the flow log (about 30 octets a flow in
// memory, in a temporary file past 1 MiB: fabric's
// TestResultsFollowFlowsInFlight).
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

// TestMemoryFlatInRunLength: the samples a run takes every SampleEvery
// (each switch's buffer, for percentiles, buffer.csv and the plots) do
// not grow the heap with simulated time. Two flows, the second starting
// 100 ms or 400 ms after the first, sampled every µs on the 16 switches:
// kept as before (8 octets a sample) the longer run would hold 38 MB
// more; it holds the same, the series having gone to a temporary file.
func TestMemoryFlatInRunLength(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 0.5 s of a mostly idle 128-host fabric")
	}
	heap := func(gap int64) (uint64, int64) {
		sc := target128(0)
		sc.SampleEvery = device.Microsecond
		sc.Workload = fabric.Workload{Flows: []fabric.Flow{
			{ID: 1, Src: 0, Dst: 127, Size: 100_000},
			{ID: 2, Src: 5, Dst: 64, Size: 100_000, Start: gap},
		}}
		r, err := fabric.Run(sc, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Completed != 2 {
			t.Fatalf("%d of 2 flows done", r.Completed)
		}
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		rows := r.BufferRows()
		runtime.KeepAlive(r)
		return m.HeapAlloc, rows
	}
	h1, r1 := heap(100 * device.Millisecond)
	h2, r2 := heap(400 * device.Millisecond)
	grow := float64(h2) - float64(h1)
	t.Logf("heap %d B at %d samples per switch, %d B at %d: %+.0f B", h1, r1, h2, r2, grow)
	if r2 < 4*r1-1000 {
		t.Fatalf("the longer run took %d samples per switch, the shorter %d", r2, r1)
	}
	if grow > 2<<20 {
		t.Errorf("the heap grew %.1f MB for 3× the simulated time (%d more samples)", grow/1e6, 16*(r2-r1))
	}
}
