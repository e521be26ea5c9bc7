// SPDX-License-Identifier: Apache-2.0

// Package postcard is the reference model of PB-FS (behaviour.md §8) on
// the device core: switches that assess their output ports over slots of
// DC_RTT / (2N) and answer marked packets with CC-postcards (wire.md §6),
// and senders that fast-start, mark every Δ-th packet of long flows and cut
// their rate from the postcards before their first rate-updating ACK.
//
// # Parts
//
// Switch is a device.Scheme for a switch; Sender a device.Scheme and
// device.FlowGate for a NIC; PredictIP, Congested and React are the rules
// as functions; Build and Decode make and read postcards; Incast builds
// the fast-start incast of the scenario tests.
//
// Switch, per output port (§8 "Switch, per output port"):
//
//   - Slot k spans [ceil(k × DC_RTT / 2N), ceil((k+1) × DC_RTT / 2N)) ns,
//     aligned to time 0 (1,562.5 ns by default). The switch keeps the octets
//     of data received for the port (counted in OnIngress, on arrival) in
//     each of the last N complete slots, I^1 oldest to I^N newest, and the
//     port's queue depth (every egress queue but the control class) at
//     each of those slots' starts, Q^1 the oldest. The current slot is not
//     part of the history.
//   - It also keeps the octets and the marked octets received for the port
//     in the window (t − T_Δ, t], T_Δ = Δ × MTU × 8 / R_s: the time a
//     sender takes to send Δ full-size frames, with R_s the senders' line
//     rate (SenderRate, `sender_rate`: default the speed of the switch's
//     server-facing ports, the lowest when they differ) and MTU the
//     full-size frame (default 1,078 octets, a 1,024-octet RoCEv2
//     payload): 517 ns at 100 Gb/s, the current packet included.
//   - On a marked data packet (IPv4 TOS or IPv6 traffic-class bits
//     MarkMask, 0x04 by default) at t0: I_p = Σ I^i + N × I^N; when I_p >
//     T × DC_RTT − Q^1 it sends a CC-postcard to the packet's source: IP
//     source = the switch (Addr4/Addr6), DSCP 48, UDP source port = the
//     packet's, destination port 1022, fields T (Mb/s), DC_RTT, I_p, Q^1,
//     recent and marked octets, and a 64-octet quote. Postcards go in the
//     control class; the marked packet is forwarded unchanged.
//
// Sender (§8 "Sender"):
//
//   - Flows start at line rate. A flow of at least MaxRate × τ octets (τ =
//     DC_RTT / 2: 156,250 octets at 100 Gb/s) has its packets Δ, 2Δ, 3Δ, …
//     marked until its first postcard or first ACK; the mark is cleared on
//     the others, and the IPv4 header checksum is fixed.
//   - On a postcard before the first rate-updating ACK: I_PBT = Δ ×
//     recentMarked / recent × I_p (at most I_p), I_nonPBT = I_p − I_PBT, I =
//     max(T × DC_RTT − Q^1 − I_nonPBT, I_min), c = I_PBT / (μ × I), L[switch]
//     = c; when c > 1 the rate MaxRate / c is adopted if the postcard comes
//     from the switch that set the current rate, or if c exceeds that
//     switch's L (or no switch set it yet). The flow is then paced at that
//     rate (a device.FlowGate, femtosecond schedule). After the first ACK
//     postcards are ignored.
//
// # Choices where behaviour.md is silent
//
//   - The device core has no transport and no ACKs: a flow's first
//     rate-updating ACK is taken to arrive AckAfter (default DC_RTT) after
//     its first frame left; Sender.Ack forces it. After it the flow keeps
//     the rate PB-FS gave it (the end-to-end congestion control that would
//     take over is not modelled), so completion times after a heavy cut are
//     not the paper's.
//   - Flow sizes: a NIC does not know them; Sender.AddFlow records Count ×
//     template length, SetSize declares one, and a flow of unknown size is
//     treated as long (marked).
//   - I_min = 20 % of MaxRate × DC_RTT (62,500 octets at 100 Gb/s, 25 µs).
//     μ is used to a millionth; every quantity is an integer (128-bit
//     intermediates), so rates are the same on every platform. An adopted
//     rate is at least 1 Mb/s.
//   - "Received for the port" counts data packets on arrival (before
//     buffer admission), signals excluded. A switch without server-facing
//     ports takes each output port's speed for R_s.
//   - The slot timer is a background timer that runs only while some
//     port's history is changing; once every port is steady (no octets in
//     its last N slots, its depth unchanged) it stops and restarts with the
//     next frame that joins or leaves a data queue. The slots it skipped
//     are filled in as steady ones, so a long silence, a port frozen by a
//     pause, or an input timestamp far ahead costs no events.
//   - A postcard whose quote names no flow of the NIC, or that arrives after
//     the flow's ACK, is consumed and counted as ignored; a malformed one
//     is dropped as "postcard malformed".
//
// # Memory and determinism
//
// A switch keeps 2N integers per port and the arrivals of the last T_Δ; a
// sender keeps one entry per flow with frames to send or waiting for its
// ACK (with its L map), forgotten once the flow is done. Outputs never
// depend on map order; everything runs in virtual time.
package postcard
