// SPDX-License-Identifier: Apache-2.0

package bfc

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

// Defaults of behaviour.md §6.
const (
	DefaultQueues    = 32
	DefaultHopRTT    = 2 * device.Microsecond
	DefaultFilterLen = layers.BFCDefaultFilterLen // L = 128 octets
	DefaultHashes    = layers.BFCDefaultHashes    // k = 4
)

// Egress queue layout of a BFC switch port. Queues 0..7 stay the traffic
// class queues of the device core (the control class among them carries
// generated signals, BFC pause frames included); BFC adds the
// high-priority first-packet queue and N_q physical queues after them.
const (
	// HighPriorityQueue is the queue index of the first-packet queue.
	HighPriorityQueue = 8
	// FirstPhysicalQueue is the queue index of physical queue 0.
	FirstPhysicalQueue = 9
)

// MaxQueues is the largest N_q: the device core allows 4096 egress queues
// per port and BFC needs 9 of them for the class and first-packet queues.
const MaxQueues = 4096 - FirstPhysicalQueue

// QueuesFor returns the egress queues a port needs (device.PortConfig.Queues)
// for BFC with nq physical queues: 9 + nq (41 for the default 32).
func QueuesFor(nq int) int {
	if nq <= 0 {
		nq = DefaultQueues
	}
	return FirstPhysicalQueue + nq
}

// Sentinel errors.
var (
	// ErrNotBFC: the frame is not a BFC pause frame (EtherType 0x88B5,
	// magic 0x4643, subtype 1).
	ErrNotBFC = errors.New("not a BFC pause frame")
)

// Params configures BFC (behaviour.md §6) on a switch. Zero values take the
// defaults.
type Params struct {
	// Queues is N_q, the physical queues per egress port: default 32,
	// 1..4087, and every port must have been built with at least
	// QueuesFor(Queues) egress queues.
	Queues int
	// HopRTT is HRTT in ns: default 2 µs, 10 ns..1 s.
	HopRTT int64
	// Tau is the pause-frame period τ in ns: default HopRTT / 2, 1 ns..HopRTT.
	Tau int64
	// FilterLen is L, the filter octets of a pause frame: default 128, a
	// multiple of Hashes, at most 1024.
	FilterLen int
	// Hashes is k, the filter stages: default 4, 1..8.
	Hashes int
	// AlwaysSend keeps sending pause frames every τ while the switch is
	// idle. By default a switch with nothing queued, paused or listed for
	// resume stops after one all-zero frame per port and starts again,
	// on the τ grid, with the next frame to schedule.
	AlwaysSend bool
	// StaticQueues assigns every flow to physical queue VFID mod N_q, empty
	// or not: the BFC paper's "BFC-VFID" baseline (static hashing), which
	// collides more often than dynamic assignment. Off by default.
	StaticQueues bool
	// FilterGatesFirst sends a packet through the high-priority queue only
	// when its flow also does not match the pause filter received on the
	// egress port (the downstream has not paused it); otherwise it joins a
	// physical queue, where the filter holds it. behaviour.md §6 says "not
	// paused" without saying by whom; the default reads it as "not paused
	// at its ingress by this switch". Off by default.
	FilterGatesFirst bool
}

// resolve fills the defaults and validates p; errors name the parameter
// and its allowed range (errors.Is(err, device.ErrParam)).
func (p *Params) resolve() error {
	if p.Queues == 0 {
		p.Queues = DefaultQueues
	}
	if p.HopRTT == 0 {
		p.HopRTT = DefaultHopRTT
	}
	if err := device.CheckRange("bfc", "hrtt", p.HopRTT, 10, device.Second, " ns"); err != nil {
		return err
	}
	if p.Tau == 0 {
		p.Tau = p.HopRTT / 2
	}
	if p.FilterLen == 0 {
		p.FilterLen = DefaultFilterLen
	}
	if p.Hashes == 0 {
		p.Hashes = DefaultHashes
	}
	for _, e := range []error{
		device.CheckRange("bfc", "n_q", int64(p.Queues), 1, MaxQueues, " queues"),
		device.CheckRange("bfc", "tau", p.Tau, 1, p.HopRTT, " ns (at most hrtt)"),
		device.CheckRange("bfc", "k", int64(p.Hashes), 1, layers.BFCMaxHashes, " hashes"),
		device.CheckRange("bfc", "l", int64(p.FilterLen), int64(p.Hashes), layers.BFCMaxFilterLen, " octets"),
	} {
		if e != nil {
			return e
		}
	}
	if p.FilterLen%p.Hashes != 0 {
		return &device.ParamError{Scope: "bfc", Name: "l", Value: strconv.Itoa(p.FilterLen) + " octets",
			Allowed: fmt.Sprintf("a multiple of k = %d, at most %d octets", p.Hashes, layers.BFCMaxFilterLen)}
	}
	return nil
}

// Threshold returns the pause threshold of behaviour.md §6 in octets:
// Th = (HRTT + τ) × μ / N_active, with μ the egress link speed in bit/s
// (so μ / 8 octets per second) and N_active at least 1. The product is
// rounded down to whole octets. At 100 Gb/s with the defaults (HRTT 2 µs,
// τ 1 µs): 37,500 octets for N_active = 1, 18,750 for 2, 9,375 for 4.
func Threshold(hopRTT, tau, speed int64, nActive int) int64 {
	if nActive < 1 {
		nActive = 1
	}
	if speed <= 0 || hopRTT+tau <= 0 {
		return 0
	}
	// (hrtt + τ) ns × speed bit/s / 8 / 10^9 octets, without overflow for
	// times up to 2 s and speeds up to 3.2 Tb/s.
	v := device.MulDiv(hopRTT+tau, speed, 8*device.Second)
	return v / int64(nActive)
}
