// SPDX-License-Identifier: Apache-2.0

// Package bfc is the reference model of BFC, Backpressure Flow Control
// (behaviour.md §6), on the device core: per-hop, per-flow pause with
// Bloom-filter pause frames (wire.md §7.1).
//
// # Parts
//
// Switch is a device.Scheme (and device.Picker) for a switch; it plays both
// roles of §6 on every port. NIC is a device.Scheme and device.FlowGate for
// a host, which is only ever upstream. FanIn builds the small fan-in
// topology the scenario tests use.
//
// Downstream role, per egress port (§6 "Switch, per egress port"):
//
//   - Arrival (OnEnqueue, after buffer admission). A flow is its VFID
//     (layers.VFID over the 5-tuple). A flow with nothing queued at the port
//     and not paused sends this packet through the high-priority queue,
//     which is never paused. Otherwise it keeps its physical queue while it
//     has packets there, else takes the lowest-numbered empty physical
//     queue, else shares queue VFID mod N_q.
//   - Pause rule, on arrival: N_active = the port's non-empty physical
//     queues whose head flow the port's own neighbour does not pause (at
//     least 1); Th = (HRTT + τ) × μ / N_active (Threshold). When the
//     packet's physical queue, this packet included, holds more than Th
//     octets and the flow is not yet paused, the flow is paused at its
//     ingress port: count[ingress][s][h_s(f)] += 1 for each of the k
//     stages, stage s at CRC_s(5-tuple) mod (8 L / k), the hashes of
//     wire.md §7.1 version 2 (layers.BFCFlowHashes, layers.StageIndex).
//   - Resume rule, on dequeue (OnDequeue: the frame starts transmission and
//     has left its queue): when the queue then holds at most Th, the
//     frame's flow, if paused, goes on its ingress port's resume list.
//   - Every τ (ticks at multiples of τ from time 0), per port: at most one
//     flow leaves the port's resume list and its counts are decremented
//     (so at most two resumes per HRTT), then the port sends a BFC pause
//     frame whose bit is set where a count is positive, with a sequence
//     number one more than the last on that link. Frames go in the control
//     class, ahead of data, to 01:80:C2:00:00:0E.
//
// Upstream role (§6 "Upstream"): a BFC frame received on a port replaces
// that port's filter, unless its sequence number is older than the last
// applied (serial-number arithmetic); before each transmission toward the
// port, a physical queue whose head packet's flow matches the filter
// (layers.FilterMatches, with the stage hashes of the frame's version) is
// skipped, with everything behind it. The Picker
// serves the control class, then the first-packet queue, then the other
// class queues, then the physical queues round-robin. A NIC holds back each
// flow whose VFID matches.
//
// # Choices where behaviour.md is silent
//
//   - Queue layout: egress queues 0..7 stay the device's class queues (the
//     control class carries the pause frames); queue 8 is the first-packet
//     queue and 9..8+N_q the physical queues, so ports need QueuesFor(N_q)
//     egress queues (41 by default). Every forwarded frame of a BFC switch
//     is scheduled by BFC, whatever its class.
//   - A flow entry is keyed by (egress port, VFID), as in a hardware flow
//     table, and its stage indexes are hashed once, from the 5-tuple of the
//     packet that creates it: two 5-tuples with one VFID (a 2^-32 chance)
//     share one entry and the first one's bits.
//   - A received BFC pause frame of version 1 is applied as version 1: its
//     bits were set at CRC-32C(VFID ‖ s) mod (8 L / k), so that is where the
//     switch and the NIC look for a flow's bits (V1Frames counts them).
//     Read with the version 2 hashes, the bits would pause flows the sender
//     did not pause and let through the ones it did.
//   - "Share one (lowest VFID mod N_q)" is read as: the lowest-numbered
//     empty queue when there is one, else queue VFID mod N_q.
//   - The queue depth on arrival includes the arriving packet; on dequeue it
//     excludes the departing one (it has left the queue). Otherwise a flow
//     could never resume when Th is smaller than one frame (N_active = 32
//     at 100 Gb/s gives Th = 1,171 octets).
//   - A paused flow whose last packet leaves a shared queue that still holds
//     more than Th has no later dequeue to resume it. It stays attached to
//     that queue and is listed for resume at the first dequeue after which
//     the queue holds at most Th (at the latest when it empties). Resuming
//     it at once instead keeps a shared queue full: with 64 flows in one
//     physical queue the queue then grew past 1.4 MB.
//   - A frame whose flow is already paused does not pause it again, and a
//     flow on the resume list is still paused until it leaves the list.
//   - Pause frames go out on every port every τ, all-zero ones included,
//     while the switch is active: something queued in its BFC queues, a
//     flow paused or listed for resume. Once idle it stops after one
//     all-zero frame per port (upstream filters are then clear) and starts
//     again, on the τ grid and with the next sequence numbers, with the
//     next frame it schedules; Params.AlwaysSend keeps the literal "every
//     τ" for ever. An idle spell, or an input timestamp far ahead, then
//     costs no events (a literal ticker costs about 0.15 µs of CPU per µs
//     of virtual time on three ports).
//   - Under PFC (a switch whose egress class is paused by the neighbour):
//     the first-packet queue is never paused by BFC but is by PFC, since a
//     PFC receiver must not send a paused class. A first packet may then
//     wait behind another flow's paused frame, so a physical queue whose
//     head flow still has a packet in the first-packet queue is skipped
//     until that packet has left: each flow stays in order (FuzzSwitch
//     found the reordering; TestPFCKeepsFlowOrder). Without a PFC pause
//     the first-packet queue is always served first, so nothing changes.
//   - The τ timer keeps Device.Flush running only while a resume list is
//     not empty, so arbitrary input (a neighbour that pauses everything for
//     ever) cannot keep Flush from returning.
//
// # Memory and determinism
//
// State is a flow entry per (egress port, VFID) that has packets queued, is
// paused or waits for resume (recycled through a free list), fixed-size
// per-port filters and counters, and the resume lists. Nothing iterates a
// map; everything happens in virtual time; a run is repeatable to the byte.
package bfc
