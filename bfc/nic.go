// SPDX-License-Identifier: Apache-2.0

package bfc

import (
	"math"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

// NIC is the upstream side of behaviour.md §6 on a host: it keeps the
// filter of the last BFC pause frame its switch sent (frames with an older
// sequence number are ignored) and, as a device.FlowGate, holds back every
// flow whose VFID matches it: a paused flow starts nothing until a later
// frame clears its bit. It consumes BFC frames; malformed ones are dropped
// as "bfc malformed".
type NIC struct {
	device.NopScheme

	filter []byte
	k      int
	ver    uint8
	seq    uint32
	have   bool
	any    bool
	rx     layers.BFC

	// FramesApplied counts the pause frames applied, StaleFrames those
	// ignored for an old sequence number, V1Frames the applied frames of
	// version 1 (read with their own, degenerate, stage hashes).
	FramesApplied int64
	StaleFrames   int64 // ignored: older than the last applied
	V1Frames      int64
}

// NewNIC returns a BFC NIC scheme.
func NewNIC() *NIC { return &NIC{} }

// Attach checks that the device is a NIC.
func (n *NIC) Attach(d *device.Device) error {
	if d.Role() != device.RoleNIC {
		return &device.ParamError{Scope: "bfc", Name: "nic", Value: d.Role().String(), Allowed: "a NIC device"}
	}
	return nil
}

// OnControl applies a BFC pause frame.
func (n *NIC) OnControl(d *device.Device, p *device.Packet) device.Verdict {
	if !isBFC(p.Data, &p.Meta) {
		return device.Pass
	}
	v, changed := applyFrame(&n.rx, p, &n.filter, &n.k, &n.ver, &n.seq, &n.have, &n.any)
	switch v {
	case frameBad:
		p.DropReason = "bfc malformed"
		return device.Drop
	case frameStale:
		n.StaleFrames++
	case frameApplied:
		n.FramesApplied++
		if n.ver == layers.BFCVersion1 {
			n.V1Frames++
		}
	}
	d.Free(p)
	if changed {
		d.Kick(device.WirePort)
	}
	return device.Take
}

// FlowBlockedUntil holds back a flow the current filter pauses, until a
// later frame resumes it.
func (n *NIC) FlowBlockedUntil(d *device.Device, f *device.Flow) int64 {
	if n.Paused(f.Key) {
		return math.MaxInt64
	}
	return 0
}

// Paused reports whether the current filter pauses the flow, its stages
// indexed as the frame's version defines them (layers.StageIndex).
func (n *NIC) Paused(k device.FlowKey) bool {
	if !n.any {
		return false
	}
	h := Hashes(k)
	return layers.FilterMatches(n.ver, n.filter, n.k, &h)
}
