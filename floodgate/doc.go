// SPDX-License-Identifier: Apache-2.0

// Package floodgate is the reference model of Floodgate (behaviour.md §7)
// on the device core: per-destination windows and VOQs at each switch,
// credits from the downstream switch, delay-credit, and dst-pause from the
// source ToR to its hosts, with the credit and dst-pause frames of wire.md
// §7.2 and §7.3.
//
// # Parts
//
// Switch is a device.Scheme that plays both roles of §7 on every switch;
// NIC is a device.Scheme and device.FlowGate for a host; Incast builds the
// two-tier incast of the scenario tests.
//
// Upstream role (§7 "Switch (upstream role)"), for data frames whose
// egress is a window port (a port whose neighbour runs Floodgate: by
// default every port that is not server-facing):
//
//   - W_d starts at m × BDP_nexthop + C_out × τ (Window), with BDP_nexthop =
//     port speed × NextHopRTT (or Params.BDP) and C_out the egress port
//     speed.
//   - A frame for d passes when d's VOQ is empty and W_d covers it (W_d −=
//     its captured length); otherwise it joins d's VOQ (FIFO). The check
//     runs in OnEnqueue, after shared-buffer admission, so a frame in a VOQ
//     stays counted in the device's buffer and Record().BufferPeak shows
//     VOQs too.
//   - A credit frame received on d's window port adds each entry's credits
//     to W_d and releases d's VOQ in order while W_d covers its head
//     (Device.Release).
//
// Downstream role (§7 "Switch (downstream role)"): the octets of every data
// frame are added to (ingress port, d) when the frame joins its egress
// queue (the paper's moment: at once, or when it leaves a VOQ here; not
// when its last bit leaves) and the ingress is a credit port (by default every
// port that is not server-facing). Every τ, at multiples of τ from time 0,
// each credit port gets one credit frame with every pending (d, count), in
// the order the destinations first appeared since the last frame; counts
// for a d whose own VOQ here exceeds the delay-credit threshold (default
// 1.5 × the largest link BDP) are held back and sent in the first frame
// after it falls to the threshold or below.
//
// dst-pause (§7 "dst-pause"): when d's VOQ exceeds the dst-pause threshold,
// the switch sends a dst-pause for d with pause 0xFFFF to every host port
// (server-facing) that sent a data frame toward d in the last τ; when the
// VOQ falls below half the threshold it sends pause 0 to each of them. A
// NIC (NIC) stops starting frames to a paused destination until resumed (or
// for the pause time, when a frame gives one other than 0 and 0xFFFF).
//
// # Choices where behaviour.md is silent, and its example
//
//   - m defaults to 1, the paper's W = BDP_nextHop + C_out × τ for
//     aggregated credits; credits are octets, not packets, so frames of
//     mixed sizes are exact.
//   - BDP_nexthop: the example (100 Gb/s, 600 ns links, m = 1.5, τ = 10 µs
//     gives 147,500 octets) holds with the next-hop round trip, 2 × 600 ns:
//     12.5 octets/ns × 1,200 ns = 15,000; 1.5 × 15,000 + 12.5 × 10,000 =
//     22,500 + 125,000 = 147,500 (140,000 with the default m = 1).
//     NextHopRTT defaults to that 1.2 µs.
//     The device core does not expose link delays, hence the parameter.
//   - Thresholds: behaviour.md gives no default for the dst-pause
//     threshold; this model uses 1.5 × the largest link BDP, the
//     delay-credit default. "Max-link BDP" is read as the largest port
//     speed × NextHopRTT of the device.
//   - A credit frame holds one address family; when IPv4 and IPv6 counts
//     are pending, or more entries than fit MaxFrame (1,500 octets: 184
//     IPv4 or 73 IPv6 entries), a port gets more than one frame per τ.
//     No frame is sent when nothing is pending.
//   - Credits never raise W_d above its initial value, and credits on a
//     port that is not d's window port are ignored; both count as
//     StrayCredits. A flow's frames dropped by the device before OnEnqueue
//     (buffer full) are never credited: Floodgate assumes a lossless
//     fabric, as the paper does.
//   - A host that starts sending toward a paused d is paused on its first
//     frame. A host that sent nothing toward d in the last τ is not.
//   - The τ timer runs only while credits are pending or a host port
//     that sent toward a destination has to be forgotten after τ, and keeps
//     Device.Flush running only while credits that are not held back are
//     pending; an idle switch schedules nothing, so a long silence or an
//     input timestamp far ahead costs no events.
//
// # Memory and determinism
//
// State is one entry per destination that has a window below its initial
// value, a VOQ, a dst-pause in force or a host that sent toward it in the
// last τ (entries are recycled), the frames in VOQs, and per credit port
// the pending counts. Outputs never depend on map order; everything runs
// in virtual time.
package floodgate
