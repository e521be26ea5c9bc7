// SPDX-License-Identifier: Apache-2.0

// Package stats summarises a capture of congestion and pause signalling:
// who paused whom, for how long, and why. It is what `sfcdump stats`
// prints and what `sfcdump timeline` draws.
//
// A Collector takes decoded frames (dissect.Frame) in capture order and
// keeps, in memory that grows with the number of flows, interfaces and
// reporters but not with the number of frames:
//
//   - frames per protocol (the dissect name space: eth, ip, bth, pfc, ...);
//   - per flow (the flow a BTS or CIM quotes, or the destination of a
//     Floodgate dst-pause entry): pause signals, resumes, the pause time
//     requested and the time actually paused;
//   - per (interface, priority): PFC frames with the priority enabled, the
//     quanta requested, that time at the interface's link speed, and the
//     time actually paused; 802.3x PAUSE counts as priority "all";
//   - a histogram of requested pause times, per kind of signal;
//   - signals per reporter (BTS and CIM reporter id, postcard switch id);
//   - CNPs per queue pair (IP source, IP destination, destination QP);
//   - ICRC failures and malformed frames, with the first frame numbers.
//
// Paused time follows behaviour.md: a signal at time t for d sets the
// pause end to t+d, overwriting the previous end (it may shorten it); d = 0
// resumes at t. For PFC d is the quanta at the link speed (512 bit times
// each). A Floodgate dst-pause of 0xFFFF lasts until resumed. A pause still
// running after the last frame counts up to its requested end (for
// "until resumed", up to the last frame's time).
//
// An Observer, when set, is told every pause interval, signal and queue
// depth as the Collector sees them; package timeline draws from it.
package stats
