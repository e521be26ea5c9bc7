// SPDX-License-Identifier: Apache-2.0

// Package device is the reference switch and NIC core that every
// flow-control scheme of this project plugs into (behaviour.md §0). It
// runs on real frames in the wire formats of wire.md, on a virtual
// nanosecond clock, deterministically: the same inputs give byte-identical
// outputs, whether the frames come from a capture, a generator or a fuzzer.
//
// # Driving a device
//
// The conformance harness, sfcdump and the scenario tests all drive a
// device the same way:
//
//	d, err := device.NewSwitch(device.Config{
//		Name: "tor1",
//		Ports: []device.PortConfig{
//			{ID: 0, Speed: 100 * device.Gbps, ServerFacing: true,
//				Prefixes: []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32")}},
//			{ID: 1, Speed: 100 * device.Gbps,
//				Prefixes: []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0")}},
//		},
//	})
//	err = d.Attach(bts.NewSwitch(bts.Params{Cache: true}))  // schemes
//	d.OnOutput(func(o device.Out) { ... })  // every frame sent
//	err = d.Input(port, t, frame)  // frames in time order, t = first bit, ns
//	d.AdvanceTo(t)                 // let time pass without input
//	d.Flush()                      // run until nothing is left to do
//	rec := d.Record()              // what the device observed
//
// Input copies the frame; events due at or before t run first, so the
// queue depth a frame sees at t already excludes frames whose last bit left
// by t. Out.Time is the time the first bit of a sent frame leaves, Out.Port
// its egress port; outputs come in time order, and frames decided at the
// same time in the order the device decided them (deterministic). Out.Frame
// is only valid during the callback. Input returns an error only for API
// misuse (ErrPort, ErrTimeOrder); malformed or unroutable frames are
// dropped and counted in the Record, as a device would.
//
// A NIC (NewNIC) has its wire side on port WirePort (0) and its host side on
// HostPort (1): Input on the host port offers a frame for transmission,
// AddFlow offers a whole flow as a generator without holding its frames in
// memory, and frames for the host come out on the host port.
//
// Devices that share a Sim (Config.Sim) form a network: Connect joins two
// ports with a propagation delay, and every device's AdvanceTo or Flush
// advances them all.
//
// # The model
//
//   - Time is virtual, in ns. Each port keeps its transmit clock in
//     femtoseconds, so back-to-back frames at 10..800 Gb/s do not accumulate
//     rounding (1,078 octets at 100 Gb/s take 88.16 ns); a frame occupies
//     the link for (max(n, 60) + 4 + 20) × 8 bits. Reported times are ns,
//     rounded up.
//   - A frame is processed when it arrives (its first bit's timestamp): the
//     model has no store-and-forward or pipeline latency.
//   - A switch routes IP packets by longest prefix match over its ports'
//     prefixes and forwards them unchanged. The egress queue is (port,
//     traffic class), class = DSCP → class map (default DSCP >> 3). Each
//     port has 8 queues by default (PortConfig.Queues for more, for
//     schemes with per-flow queues).
//   - Each port sends the control class (default 6) first, then serves the
//     other queues round-robin, one frame at a time, skipping a queue
//     whose head frame's class is paused (PFC); a Picker scheme may
//     replace this choice. Generated signals (Send) go to the control
//     class; MAC control frames ignore pauses.
//   - Queue depth = octets enqueued and not yet fully transmitted; the
//     frame on the wire counts until its last bit has left. The shared
//     buffer (Config.Buffer, 0 = unlimited) counts the same octets, and the
//     optional dynamic threshold limits a queue to Alpha × free buffer.
//     Generated signals are admitted outside these limits.
//   - A NIC sends what its host offered in offer order per flow,
//     round-robin across flows, at line rate, unless a flow is paused
//     (PauseFlow, SFC), its class is paused (PauseClass, PFC) or a FlowGate
//     scheme holds it (BFC, Floodgate).
//
// # Schemes
//
// A Scheme sees every frame at fixed hook points: OnControl (a signal
// frame arrived), OnIngress (a frame to forward arrived, route and class
// known), OnEnqueue (admitted, about to join its queue), OnDequeue
// (transmission starts), OnDepart (its last bit left; buffer freed) and
// OnTimer (Device.After). Hooks return Pass, Drop, or Take: a scheme that
// takes a frame holds it (a VOQ) and later calls Release, or frees it when
// it consumed it (a BTS acted on). A scheme may also implement Picker to
// choose the queue each port sends next, or FlowGate to hold back NIC
// flows. Schemes keep per-port state in slices indexed by Port.Index.
//
// # Observability
//
// Device.Record returns counters that are always kept (per port, per
// queue: peak depth and when, frames and octets, drops by port and reason,
// generated signals by kind, NIC flows) plus, when Config.Trace asks for
// them, the depth of every queue over time and the pause intervals. Trace
// is off by default so that memory stays proportional to queued frames and
// active flows, not to frames processed; Trace.OnDepth streams depth
// changes instead of storing them. A Record marshals to stable JSON.
//
// # Memory and speed
//
// Frames live in pooled packet buffers owned by the Sim; the event queue is
// a binary heap of value events. A switch in steady state allocates
// nothing per frame (see BenchmarkSwitchIncast in package bts).
package device
