// SPDX-License-Identifier: Apache-2.0

// Package fabric is a datacenter fabric simulator built on the reference
// device core (package device) and the scheme packages (bts, pfc, bfc,
// floodgate, postcard). It does not copy any scheme: a fabric is a set of
// device.Switch and device.NIC devices sharing one device.Sim, joined by
// device.Connect, with the schemes attached exactly as the conformance
// harness attaches them. What a fabric needs beyond a single switch lives
// here, as device schemes of its own.
//
// # Layout
//
// The package is one Go package whose files follow the layers of a run:
//
//   - Topology (topo.go): Dumbbell, LeafSpine (2-tier Clos with
//     over-subscription) and FatTree (3-tier, k pods) build a Net of
//     switches and hosts. Hosts are numbered 0..N-1 and addressed
//     10.a.b.c so that every ToR (and every pod) owns one prefix. Links
//     carry a speed and a propagation delay per tier.
//   - Switch features (switch.go, setup.go): ECMP picks an uplink by a hash
//     of the 5-tuple (and RoCEv2 DestQP), or of the destination alone for
//     Floodgate; ECN marks at dequeue by RED (Kmin, Kmax, Pmax) or a DCTCP
//     step (Kmin = Kmax = K); HPCC's in-band telemetry is written by the
//     same egress hook. The shared buffer with a dynamic threshold is the
//     device core's (Config.Buffer, DynamicThreshold, Alpha). Setup
//     attaches the flow control: PFC (package pfc), SFC and SFC-P (package
//     bts), Floodgate (package floodgate), BFC (package bfc, with PFC as
//     its backstop; collisions and per-queue occupancy measured by
//     bfcrun.go), and PB-FS (package postcard, pbfs.go) beside any of
//     them: postcard switches everywhere, the PB-FS sender on each NIC
//     from a flow's start to its first ACK, the CC starting from its rate.
//   - Transports (transport.go, cc.go, roce.go): a RoCEv2 reliable connection per
//     flow, one Transport scheme per NIC. It posts one packet at a time
//     (device.Offer), paces by rate and window through the device's
//     FlowGate hook, acknowledges on the receive hook (device.Receiver),
//     and recovers loss by go-back-N or IRN's selective retransmission.
//     Congestion control is pluggable: none (line rate), DCQCN (with and
//     without a window), HPCC, TIMELY, DCTCP; OnRamp is a flow-control
//     layer on top, as the SFC paper's baseline. Defaults come from the
//     papers and from the HPCC ns-3 simulator (run.py), each documented at
//     its field.
//   - Workloads (workload.go, cdf/): flow-size CDF files (WebSearch and
//     FB_Hadoop shipped, any HPCC-format CDF file accepted), Poisson
//     arrivals at a load, N:1 incast with degree, size and synchronization
//     window, all-to-all, and flow files in and out (HPCC's format).
//   - Metrics (metrics.go, tables.go): FCT and slowdown (FCT over the same
//     flow alone at line rate) per size bin with P50/P95/P99, peak and
//     sampled buffer per switch and by hop (ToR-Down, ToR-Up, Core),
//     receiver throughput, PFC pauses, drops, goodput, BTS and Floodgate
//     credit overhead, SFC table occupancy, PFC-paused share of port-time,
//     BFC collisions and per-physical-queue occupancy; written as JSON and CSV, and
//     summarised on the terminal.
//   - Runner (run.go): a Scenario (YAML) names a topology, a transport, a
//     flow control and a workload; Run builds the Net, runs it
//     deterministically from its seed, and returns the Result.
//   - Figures (figs.go): the paper figures of reproduction-targets.md, each
//     at a CI scale and at full scale, with PASS/FAIL per acceptance
//     criterion. The sfcsim command (cmd/sfcsim) runs scenarios, sweeps
//     and figures.
//
// # Determinism and memory
//
// Every random choice (arrivals, sizes, destinations, ECN marks, hash
// salts) comes from a PCG generator seeded by the scenario's seed, so a run
// is a pure function of its scenario.
//
// Simulated time alone does not grow memory (samples.go): the samples taken
// every SampleEvery are counted per distinct value for the percentiles
// (exact up to 8,192 distinct values per switch and 131,072 pooled, then
// rounded down to 9 significant bits, within 0.4 %) and the buffer series
// is delta-encoded and moved to an unlinked temporary file past 1 MiB, so
// idle gaps, long drains and fine sampling cost disk, not heap (bench/sim
// TestMemoryFlatInRunLength). A NIC holds at most one posted packet per
// flow and drops a finished flow's transport state
// (TestMemoryFollowsFlowsInFlight). The arrivals are streamed (Arrivals):
// a first pass runs the generator through its draws keeping where each
// host's begin, and each flow is made when the run reaches its start, the
// same flows in the same order as generating them all at once
// (TestArrivalsAreTheFlowsAtOnce). The finished flows' results (for the
// size bins, the figures and NAME.fct.csv) are encoded in the order they
// finish, about 30 octets each, and move to an unlinked temporary file past
// 1 MiB, like the buffer series; the size bins are computed from them in
// passes that hold a few counters per bin (flowlog.go): exact, as sorting
// every flow gave (TestSummarizeFlowsAsSorted), up to 131,072 distinct
// background sizes, past which the bins' edges are taken on sizes rounded
// to 9 significant bits. What is left in the heap follows the flows in
// flight and the distinct sampled values (bounded), not the run's length
// (TestResultsFollowFlowsInFlight, TestMemoryFlatInRunLength).
package fabric
