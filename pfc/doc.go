// SPDX-License-Identifier: Apache-2.0

// Package pfc implements IEEE 802.1Qbb priority flow control and 802.3x
// PAUSE as device schemes (behaviour.md §4), plus the quanta arithmetic
// every scheme that talks PFC needs.
//
// Receiver is the pause receiver for a switch egress or a NIC: an enabled
// priority p of a received PFC frame sets paused_until[p] = now + time[p] ×
// 512 / link_bps on the receiving port, time 0 resumes now, and PAUSE does
// the same for all eight priorities. The device core enforces it: a frame
// on the wire finishes, nothing new of a paused class starts.
//
// Switch is the lossless side: per (ingress port, priority) it counts the
// octets that arrived there and are still buffered (enqueued until their
// last bit has left the egress). Above XOFF it sends a PFC frame with
// Quanta (default 0xFFFF) out of that ingress port, refreshes it every
// Refresh (default half the pause duration at the port speed) while the
// count stays above XON, and sends time 0 once when the count falls to XON
// (default XOFF − 2 × MTU). Frames that arrive after XOFF are admitted into
// a per-(port, priority) headroom outside the shared buffer (default 3 ×
// BDP); beyond it they are dropped as "pfc headroom". XOFF is static
// (default 1 × BDP of the ingress port, BDP = 10 µs × speed; behaviour.md
// gives no default) or dynamic, AlphaPFC × free shared buffer.
//
// Lossless means lossless: a frame of a lossless priority is marked
// device.Packet.Lossless, so the device's egress dynamic threshold (which
// applies to lossy classes only) never drops it; when the shared buffer
// cannot take it, it goes into the headroom and XOFF is sent at once.
// Exhausted headroom is the only way a lossless frame is lost, and a run
// where it happens is a configuration fault (headroom too small): Fault
// returns it, and the conformance harness reports the vector unusable
// with that fault rather than dropping frames silently.
//
// Quanta conversions round so that a pause is never shorter than asked:
// QuantaToNs rounds up to whole ns, NsToQuanta rounds up to whole quanta
// (the SFC-P rule) and clamps to 65535. Frames are built by hand (60
// octets, to 01:80:C2:00:00:01) and decoded with the layers package.
package pfc
