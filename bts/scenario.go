// SPDX-License-Identifier: Apache-2.0

package bts

import (
	"fmt"
	"net/netip"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/pfc"
)

// Mode selects the flow control of an incast scenario.
type Mode uint8

// The modes of the SFC paper's micro-benchmark.
const (
	// NoFC: no flow control at all (unlimited buffer, no signals).
	NoFC Mode = iota
	// IngressBTS: SFC switches and SFC NICs, no pause cache.
	IngressBTS
	// IngressBTSCache: as IngressBTS with the pause cache on.
	IngressBTSCache
	// IngressBTSSFCP: SFC switches, SFC-P at the senders' ToR and NICs
	// without SFC that obey PFC (the SFC-P testbed); the pause cache is
	// on when Params.Cache is.
	IngressBTSSFCP
)

// String names the mode as the SFC paper does.
func (m Mode) String() string {
	switch m {
	case NoFC:
		return "no flow control"
	case IngressBTS:
		return "ingress BTS"
	case IngressBTSCache:
		return "ingress BTS + cache"
	case IngressBTSSFCP:
		return "ingress BTS + SFC-P"
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// IncastConfig describes the dumbbell incast of the SFC paper's
// micro-benchmark: N senders behind a left ToR, one receiver behind a
// right ToR, every host link Speed with Delay propagation, and a core link
// fast enough (N × Speed by default) that the only congestion point is the
// receiver's server-facing port. Each sender sends Frames frames of
// FrameLen octets from its start time; sender i starts at i × Window / N
// (Window 0: all at once, a perfectly synchronized incast).
type IncastConfig struct {
	N         int
	Speed     int64 // default 100 Gb/s
	CoreSpeed int64 // default N × Speed
	Delay     int64 // default 1 µs
	Window    int64 // ns
	Frames    int64 // per sender, default 500
	FrameLen  int   // default 1078
	Mode      Mode
	Params    Params       // SFC parameters of both ToRs (Cache is set by Mode)
	Trace     device.Trace // trace of the right ToR
	// Output, when set, sees every frame the two ToRs send.
	Output func(dev string, o device.Out)
}

// Incast is a built incast scenario.
type Incast struct {
	Sim          *device.Sim
	Left, Right  *device.Device
	Senders      []*device.Device
	Receiver     *device.Device
	LeftSFC      *Switch
	RightSFC     *Switch
	ReceiverPort int // the congested port of Right
	Config       IncastConfig
	ReceiverAddr netip.Addr
	SenderAddrs  []netip.Addr
}

// NewIncast builds the scenario; Run it with Sim.Run or step it.
func NewIncast(c IncastConfig) (*Incast, error) {
	if c.Speed == 0 {
		c.Speed = 100 * device.Gbps
	}
	if c.CoreSpeed == 0 {
		c.CoreSpeed = int64(max(c.N, 1)) * c.Speed
	}
	if c.Delay == 0 {
		c.Delay = device.Microsecond
	}
	if c.Frames == 0 {
		c.Frames = 500
	}
	if c.FrameLen == 0 {
		c.FrameLen = 1078
	}
	if err := device.CheckRange("incast", "n", int64(c.N), 1, 4000, " senders"); err != nil {
		return nil, err
	}
	if err := device.CheckRange("incast", "frame_len", int64(c.FrameLen), 64, 9000, " octets"); err != nil {
		return nil, err
	}
	sim := device.NewSim()
	x := &Incast{Sim: sim, Config: c, ReceiverAddr: netip.MustParseAddr("10.2.0.1"), ReceiverPort: 1}
	lp := []device.PortConfig{}
	for i := 0; i < c.N; i++ {
		a := netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)})
		x.SenderAddrs = append(x.SenderAddrs, a)
		lp = append(lp, device.PortConfig{ID: i, Speed: c.Speed, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(a, 32)}})
	}
	lp = append(lp, device.PortConfig{ID: c.N, Speed: c.CoreSpeed, Prefixes: []netip.Prefix{netip.MustParsePrefix("10.2.0.0/16")}})
	var err error
	if x.Left, err = device.NewSwitch(device.Config{Name: "left", Sim: sim, Ports: lp}); err != nil {
		return nil, err
	}
	if x.Right, err = device.NewSwitch(device.Config{Name: "right", Sim: sim, Trace: c.Trace, Ports: []device.PortConfig{
		{ID: 0, Speed: c.CoreSpeed, Prefixes: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}},
		{ID: 1, Speed: c.Speed, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(x.ReceiverAddr, 32)}},
	}}); err != nil {
		return nil, err
	}
	if err := device.Connect(x.Left, c.N, x.Right, 0, c.Delay); err != nil {
		return nil, err
	}
	if x.Receiver, err = device.NewNIC(device.Config{Name: "receiver", Sim: sim, Ports: []device.PortConfig{
		{ID: 0, Speed: c.Speed, Prefixes: []netip.Prefix{netip.PrefixFrom(x.ReceiverAddr, 32)}}}}); err != nil {
		return nil, err
	}
	if err := device.Connect(x.Right, 1, x.Receiver, device.WirePort, c.Delay); err != nil {
		return nil, err
	}
	if c.Mode != NoFC {
		p := c.Params
		if c.Mode != IngressBTSSFCP {
			p.Cache = c.Mode == IngressBTSCache
		}
		x.LeftSFC, x.RightSFC = NewSwitch(p), NewSwitch(p)
		left := []device.Scheme{x.LeftSFC}
		if c.Mode == IngressBTSSFCP {
			left = append(left, &SFCP{})
		}
		if err := x.Left.Attach(left...); err != nil {
			return nil, err
		}
		if err := x.Right.Attach(x.RightSFC); err != nil {
			return nil, err
		}
	}
	if c.Output != nil {
		x.Left.OnOutput(func(o device.Out) { c.Output("left", o) })
		x.Right.OnOutput(func(o device.Out) { c.Output("right", o) })
	}
	for i, a := range x.SenderAddrs {
		n, err := device.NewNIC(device.Config{Name: fmt.Sprintf("sender%d", i), Sim: sim, Ports: []device.PortConfig{
			{ID: 0, Speed: c.Speed, Prefixes: []netip.Prefix{netip.PrefixFrom(a, 32)}}}})
		if err != nil {
			return nil, err
		}
		switch c.Mode {
		case NoFC:
		case IngressBTSSFCP:
			if err := n.Attach(&pfc.Receiver{}); err != nil {
				return nil, err
			}
		default:
			if err := n.Attach(NewNIC()); err != nil {
				return nil, err
			}
		}
		if err := device.Connect(n, device.WirePort, x.Left, i, c.Delay); err != nil {
			return nil, err
		}
		tmpl, err := device.BuildUDP(nil, device.UDPSpec{SrcMAC: n.Ports()[0].MAC, DstMAC: n.Ports()[0].PeerMAC,
			Src: a, Dst: x.ReceiverAddr, SrcPort: uint16(10000 + i), DstPort: 5000, Len: c.FrameLen})
		if err != nil {
			return nil, err
		}
		start := int64(0)
		if c.N > 0 {
			start = int64(i) * c.Window / int64(c.N)
		}
		if _, err := n.AddFlow(device.FlowSpec{Template: tmpl, Count: c.Frames, Start: start}); err != nil {
			return nil, err
		}
		x.Senders = append(x.Senders, n)
	}
	return x, nil
}

// Run runs the scenario until every frame is delivered.
func (x *Incast) Run() { x.Sim.Run() }

// Peak returns the peak depth of the congested queue (receiver port,
// class 0) and when it was reached.
func (x *Incast) Peak() (int64, int64) {
	q := &x.Right.Port(x.ReceiverPort).Queues[0]
	return q.Peak, q.PeakAt
}
