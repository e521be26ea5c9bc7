// SPDX-License-Identifier: Apache-2.0

package floodgate

import (
	"math"
	"net/netip"

	"github.com/gopacket/gopacket"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

// NIC is the host side of dst-pause (behaviour.md §7): a dst-pause frame
// from the ToR stops the NIC from starting packets to each listed
// destination, until a resume (pause 0) for it, for ever with 0xFFFF, or
// for the given µs otherwise. As a device.FlowGate it holds back every
// flow to a paused destination. It consumes dst-pause frames; malformed
// ones are dropped as "floodgate malformed".
type NIC struct {
	device.NopScheme

	paused map[netip.Addr]int64
	rx     layers.FGPause

	// Applied counts dst-pause entries applied.
	Applied int64
}

// NewNIC returns a Floodgate NIC scheme.
func NewNIC() *NIC { return &NIC{} }

// Attach checks that the device is a NIC.
func (n *NIC) Attach(d *device.Device) error {
	if d.Role() != device.RoleNIC {
		return &device.ParamError{Scope: "floodgate", Name: "nic", Value: d.Role().String(), Allowed: "a NIC device"}
	}
	n.paused = map[netip.Addr]int64{}
	return nil
}

// OnControl applies a dst-pause frame.
func (n *NIC) OnControl(d *device.Device, p *device.Packet) device.Verdict {
	if subtype(p.Data, &p.Meta) != layers.SubtypeFGPause {
		return device.Pass
	}
	if err := n.rx.DecodeFromBytes(p.Data[p.Meta.L3:], gopacket.NilDecodeFeedback); err != nil {
		p.DropReason = "floodgate malformed"
		return device.Drop
	}
	now := d.Now()
	if len(n.paused) > 64 {
		for a, u := range n.paused {
			if u <= now {
				delete(n.paused, a)
			}
		}
	}
	for _, e := range n.rx.Entries {
		n.Applied++
		switch e.PauseUS {
		case 0:
			delete(n.paused, e.Dst)
		case layers.PauseUntilResumed:
			n.paused[e.Dst] = math.MaxInt64
		default:
			n.paused[e.Dst] = now + int64(e.PauseUS)*device.Microsecond
		}
	}
	d.Free(p)
	d.Kick(device.WirePort)
	return device.Take
}

// FlowBlockedUntil holds back a flow whose destination is paused.
func (n *NIC) FlowBlockedUntil(d *device.Device, f *device.Flow) int64 {
	u, ok := n.paused[f.Key.Dst]
	if !ok {
		return 0
	}
	if u <= d.Now() {
		delete(n.paused, f.Key.Dst)
		return 0
	}
	return u
}

// Paused returns until when packets to dst are held (math.MaxInt64: until
// resumed; 0: not paused).
func (n *NIC) Paused(dst netip.Addr) int64 { return n.paused[dst] }
