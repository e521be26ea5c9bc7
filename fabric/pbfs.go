// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/postcard"
)

// PBFSConfig turns PB-FS (behaviour.md §8, package postcard) on: a
// postcard.Switch on every switch and a PB-FS sender on every NIC, whose
// rate a flow's congestion control adopts at the flow's first ACK.
type PBFSConfig struct {
	On bool `yaml:"on" json:"on"`
	// DCRTT is DC_RTT in ns (default the fabric's maximum base RTT).
	DCRTT int64 `yaml:"dc_rtt" json:"dc_rtt,omitempty"`
}

// pbGate drives a postcard.Sender from the transport. The Sender alone
// takes a flow's first ACK to come after a fixed time and forgets a flow
// whose NIC queue is empty; the fabric's transport posts one frame at a
// time and knows when the first ACK comes. So the gate hands the Sender a
// flow's frames and pacing only from the flow's start to its first ACK
// (the PB-FS phase), tells it the size at the start, and at the first ACK
// reads the rate PB-FS adopted (the CC starts from it) and ends the phase
// (Sender.Ack). Postcards and departures always reach the Sender, so it
// drops the state of an acknowledged flow as it would alone. The Sender
// runs with NoAck: the transport's ACK is the only one.
type pbGate struct {
	device.NopScheme
	S     *postcard.Sender
	phase map[device.FlowKey]bool
}

func newPBGate(dcrtt int64) *pbGate {
	return &pbGate{S: postcard.NewSender(postcard.SenderParams{DCRTT: dcrtt, NoAck: true}), phase: map[device.FlowKey]bool{}}
}

func (g *pbGate) Attach(d *device.Device) error { return g.S.Attach(d) }

func (g *pbGate) OnControl(d *device.Device, p *device.Packet) device.Verdict {
	return g.S.OnControl(d, p)
}

func (g *pbGate) OnDequeue(d *device.Device, p *device.Packet) {
	if p.Flow != nil && g.phase[p.Flow.Key] {
		g.S.OnDequeue(d, p)
	}
}

func (g *pbGate) OnDepart(d *device.Device, p *device.Packet) { g.S.OnDepart(d, p) }

func (g *pbGate) OnTimer(d *device.Device, id int, arg int64) { g.S.OnTimer(d, id, arg) }

// FlowBlockedUntil paces a flow at its PB-FS rate during its PB-FS phase.
func (g *pbGate) FlowBlockedUntil(d *device.Device, f *device.Flow) int64 {
	if !g.phase[f.Key] {
		return 0
	}
	return g.S.FlowBlockedUntil(d, f)
}

// start begins a flow's PB-FS phase.
func (g *pbGate) start(k device.FlowKey, size int64) {
	g.S.SetSize(k, size)
	g.phase[k] = true
}

// ack ends the flow's phase at its first ACK and returns the rate PB-FS
// gave it in bit/s (0: not limited).
func (g *pbGate) ack(k device.FlowKey) int64 {
	if !g.phase[k] {
		return 0
	}
	delete(g.phase, k)
	r := g.S.Rate(k)
	g.S.Ack(k)
	return r
}

// forget drops a finished flow.
func (g *pbGate) forget(k device.FlowKey) { delete(g.phase, k) }

// seedRate makes the flow's congestion control start from rate (bit/s)
// when PB-FS lowered it below the line rate: the current and target rate
// of DCQCN, HPCC's reference rate, TIMELY's rate, DCTCP's rate.
func (t *Transport) seedRate(s *sender, rate int64) {
	r := float64(rate)
	if rate <= 0 || r >= s.rate {
		return
	}
	s.rate = r
	s.dc.target = r
	s.hp.cur = r
	s.tm.cur = r
}
