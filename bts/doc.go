// SPDX-License-Identifier: Apache-2.0

// Package bts implements SFC, back-to-sender flow control (behaviour.md
// §1–§3), as schemes of the device core, and the BTS builder.
//
// Switch applies Algorithm 1 of the SFC paper to every data packet. The
// decision is taken at ingress: with qd the depth of its egress queue q
// just before it is enqueued, cache_time the remaining time of the pause
// cache entry of its (destination IP, DSCP) and, optionally, the incast
// estimator's pause for its destination, a signal is due when qd > Q_th or
// a cache (or estimator) pause is live, unless the packet's 5-tuple
// already got one in the current reset period. The signal is built, and
// leaves, at t_e = now + bts_latency (Params.Latency, default 0), from
// qd_e, the depth of q at t_e with the triggering packet included: pause =
// ceil(max(cache_time − bts_latency, max(0, qd_e − Q_tg) / R) / 1 µs),
// clamped to 65535, R the speed of q's port; the queue depth field is
// qd_e whatever the origin; the origin says which rule fired; C is set
// when q's port is server-facing. The data packet is forwarded untouched.
// A BTS with C that passes through fills the cache: cache[(BTS source,
// quoted DSCP)] = max(entry, now + pause).
//
// Defaults: Q_th = 2 × BDP and Q_tg = 1 × BDP of the egress port (BDP =
// base RTT 10 µs × port speed: 250 KB and 125 KB at 100 Gb/s), reset period
// 5 µs, BTS DSCP 48, UDP port 1021. Parameters are validated on Attach with
// *device.ParamError naming the parameter and its range.
//
// The suppression filter is an exact set cleared at every period
// boundary, periods aligned to time 0 (the reference; a device may use a
// Bloom filter). The incast estimator keeps a DRE per destination decayed
// by 1/8 every τ/8, so it holds about the octets of the last τ; the
// estimated remote depth is that minus τ × R_remote, its pause the depth
// over R_remote, combined with the cache by max; origin "estimate" when it
// exceeds the cache's pause and the queue rule did not fire. R_remote is
// Params.RemoteSpeed (`remote_speed`), the receiver port's speed: by
// default that of this switch's server-facing ports, not the egress
// port's, so a 400G uplink toward 100G hosts still sees the incast.
//
// NIC is the SFC NIC (§2): a signal sets pause_end of the quoted flow
// (5-tuple plus RoCEv2 DestQP) to now + pause, overwriting any earlier one.
// SFCP is SFC-P (§3): at the sender's ToR it turns a signal for a local
// host into a PFC frame for the quoted DSCP's class, both a signal that
// arrives and one the Switch on the same device generates itself (a cache
// hit). Switch, NIC and SFCP
// read signals through Decoders, so the cim package makes them treat an
// SFC-extended CIM exactly as its BTS, and an Emitter, so the same switch
// sends CIMs instead of BTS.
//
// Build makes a BTS from the frame that triggered it (wire.md §5); Decode
// reads one back. NewIncast builds the SFC paper's dumbbell incast
// micro-benchmark used by the tests and benchmarks.
package bts
