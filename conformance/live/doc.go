// SPDX-License-Identifier: Apache-2.0

// Package live runs conformance vectors against a device on real ports,
// and runs the reference device itself on real ports as a software switch
// or NIC (package liveio does the sending and capturing).
//
// # Live conformance (Run, sfcdump conform live)
//
// For each vector, Run sends the frames of input.pcapng on the host
// interfaces mapped to the case's ports, at the vector's times stretched
// Dilate times, while it captures every mapped interface into one pcapng
// (one interface block per port: if_name as the vector names the port,
// if_description the host interface, if_speed the port's speed). The
// frames as actually sent, with their achieved times, make a second
// pcapng. Both are mapped back to the vector's time scale (time since the
// first input frame divided by Dilate) and judged by device mode
// (conformance.CheckDevice), so the tolerances of the case hold in the
// vector's time: in wall-clock time they are Dilate times wider.
//
// Verdicts are honest: when the schedule slipped (a frame sent later than
// the time tolerance after its planned instant, in vector time), the
// kernel dropped frames in capture (PACKET_STATISTICS), the capture could
// not be kept in order, or a port the reference sends on carried nothing,
// the verdict is INCONCLUSIVE (exit status 3) with the reasons, whatever
// device mode found. The achieved schedule (worst, mean and 99th
// percentile slip) is part of every report.
//
// # The emulated reference device (Emulate, sfcdump emulate)
//
// Emulate builds the reference device of a case exactly as
// conformance.BuildModel does (package device plus the scheme packages)
// and drives it from the wall clock: model time is
//
//	t_model = (t_wall − t_first) / Dilate
//
// where t_first is the kernel receive time of the first frame it reads.
// Each frame read from a port goes to Device.Input at the model time of its
// kernel receive timestamp (never before the device's clock: frames read
// late are taken at the current model time); between frames the loop
// sleeps until the wall-clock instant of the device's next event
// (Sim.NextEvent) and advances the device to the current model time; every
// frame the device sends goes out on its port's interface as soon as the
// device emits it, which is when the clock reaches its Out.Time. With
// Dilate N, the device runs N times slower than real time: a frame that
// takes 86 ns at 100 Gb/s occupies the emulated port for 86·N ns of wall
// time, so a software sender and receiver can keep up with vectors written
// at line rate. A tester must stretch its schedule by the same N
// (conform live --dilate N).
//
// Fault injection (Fault, hidden flag --fault of sfcdump emulate) changes
// what the emulator sends, to show that live conformance catches a faulty
// device.
package live
