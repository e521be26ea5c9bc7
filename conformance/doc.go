// SPDX-License-Identifier: Apache-2.0

// Package conformance turns packet captures into verdicts: it replays the
// frames that entered a device through the project's reference models
// (package device and the scheme packages bts, pfc, cim, bfc, floodgate,
// postcard) and compares what the model sends with what a capture says
// was sent. The specification is conformance.md; README.md in this
// directory is the vendor's guide (capturing, writing case.yaml, reading a
// report).
//
// # From a capture to a verdict
//
// A vector is a directory with three files (conformance.md "A vector"):
//
//	case.yaml        the device under test: role, schemes, ports,
//	                 parameters, tolerances, a one-line description
//	input.pcapng     every frame that entered it: interface i = port i,
//	                 timestamp = arrival of the first bit
//	expected.pcapng  every frame it sent: interface = egress port,
//	                 timestamp = first bit leaving
//
// The path a comparison takes, in order:
//
//  1. LoadCase parses case.yaml strictly (ParseCase): unknown, duplicate or
//     missing keys, values without units or with wrong ones ("100G",
//     "250KB", "5us"), values out of range, and parameters of a scheme that
//     is off are CaseErrors naming the key and its line.
//  2. BuildModel makes the reference device: device.NewSwitch or
//     device.NewNIC from the ports, then the schemes attached in a fixed
//     order (SFC or its CIM-signalling form, SFC-P, PFC switch and
//     receiver, BFC, Floodgate, PB-FS). A parameter a model rejects comes
//     back as a CaseError at its key too.
//  3. The captures are opened as streams (one frame in memory at a time;
//     by default each is read ahead on its own goroutine in a few
//     batches). Model time 0 is the case's epoch, or else the first input
//     frame's timestamp. Each frame is placed on a port: capture interface
//     i carries port i, unless the ports name their interfaces; a NIC's
//     host side is interface 1 or an interface named "host"; every port
//     must be an interface of its own. Frames of different interfaces are
//     merged by time (a capture that needs it is read again merging). A
//     frame that cannot be placed, a timestamp going backwards on its
//     interface, a classic pcap where several ports exist (a NIC's input
//     counts its host side, its output not), a cut input or
//     an unreadable file: an UnusableError, exit status 2 (a device
//     capture cut mid-frame ends there: INCONCLUSIVE).
//  4. Replay: every input frame goes to Device.Input at its time and port;
//     after the last one the model runs until idle (Device.Flush) and on
//     to the case's end. Device.OnOutput hands each frame the model sends
//     to the comparison, in time order.
//  5. Compare, in one of two modes:
//     - Exact mode (RunVector, RunExact), for the project's own vectors:
//     per port, the model's frames and the expected capture's must be the
//     same frames in the same order with the same bytes (the case's
//     volatile fields aside) and times within the case's time tolerance
//     (default 0). Expected frames are read only as far as the model's
//     clock plus the tolerance, so what is held is bounded. Checks:
//     frames, bytes, time.
//     - Device mode (CheckDevice, CheckFiles), for a vendor's capture:
//     the rules of conformance.md "Device mode, normative", each with a
//     stable id in the registry Rules (rules.go: id, normative rule,
//     clause, tolerance, check, mutation kinds). Device frames before
//     time 0 are set-up chatter (a signal earlier than the early
//     tolerance is unjustified); background (ARP, ND, LLDP, STP, ICMP,
//     other TCP/UDP and EtherTypes, the ignore filter) is counted, never
//     a deviation; every octet of every signal is compared with the
//     reference's (devfields.go: IPv4 identification, checksums and the
//     ICRC exempt, masked fields and rule 4's time-varying values
//     aside); pause times and depths must be values the reference gives
//     within the time window (no slack by default, never across
//     pause/resume); every decision to signal is met (the first of each
//     flow always; later ones possibly by the device's own suppression
//     phase, consistent for all flows, and named in the report); a late
//     match is one deviation "late by X"; data frames of the scenario's
//     flows are matched per port and flow for loss, duplicates, order,
//     integrity, extra ports, timing and the ICRC. Everything held is
//     bounded by the window (tolerances.window, 100 µs).
//  6. Report: a verdict per rule (PASS, FAIL, INCONCLUSIVE), the
//     deviations of each (rule id, frame number in the capture checked,
//     port, model time, field, expected and actual values, at most
//     Options.MaxShown kept, all counted) and an overall verdict, with
//     the harness version, the vector's and the capture's digests
//     (BLAKE3, or SHA-256 with Options.Digest), the tolerances in force
//     and the device (Options.DUT). WriteText is for
//     a person (deviations first, then one line per rule), WriteJSON and
//     WriteJSONL for a machine, WriteJUnit for CI; ExitCode gives 0 pass,
//     1 fail, 2 unusable, 3 inconclusive, and Worst the verdict of
//     several vectors.
//
// Generate and GenerateVector make expected.pcapng from the model (the
// latter showing the exact-mode diff against the old file first);
// Decisions replays a case and reports every decision of its SFC switch,
// to explain a vector. The scenario sub-package writes the inputs of
// vectors, and scenario.Corpus lists the vectors under pcaps/ with the
// scenario line that made each. The loadbench command measures speed and
// memory on 1M- and 5M-frame captures.
//
// # Choices where the specification is silent
//
//   - Frames of a port that is busy when they arrive leave when it is
//     free; the reference forwards on the first bit's arrival (the device
//     core), so a device's store-and-forward latency must fit the time
//     tolerance.
//   - Device mode compares data frames with the case's volatile fields
//     masked (eth.src, eth.dst, ip.ttl and ip.checksum for a routing
//     device) and always masks the RoCEv2 ICRC, which has its own rule.
//   - A NIC's host side is checked only when the device capture has a
//     host interface.
//   - Suppression phases are inferred from the arrival times, in the input
//     capture, of the packets signals quote, taken in the order of those
//     arrivals (signals may leave in another order within the time
//     tolerances); tolerances.jitter widens them
//     (default 0). tolerances.missed_periods lets a Bloom filter's false
//     positives skip a congested flow for that many reset periods
//     (default 0).
package conformance
