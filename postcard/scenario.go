// SPDX-License-Identifier: Apache-2.0

package postcard

import (
	"fmt"
	"net/netip"

	"github.com/opensfc/sfc/device"
)

// IncastConfig describes a fast-start incast on a dumbbell: N senders
// behind a left ToR, one receiver behind a right ToR, host links at Speed
// with Delay propagation and a core link fast enough (N × Speed by
// default) that the only congestion point is the receiver's port. Every
// sender starts a flow of Frames frames of FrameLen octets at line rate at
// time Stagger × i. With PBFS set both ToRs run the PB-FS switch and the
// senders the PB-FS sender; without it the senders simply fast-start.
type IncastConfig struct {
	N         int          // senders, default 8
	Speed     int64        // default 100 Gb/s
	CoreSpeed int64        // default N × Speed
	Delay     int64        // default 1 µs
	Frames    int64        // per sender, default 200 (215,600 octets: above 100 Gb/s × 12.5 µs)
	FrameLen  int          // default 1078
	Stagger   int64        // ns between sender starts, default 0
	PBFS      bool         // run PB-FS on the ToRs and senders
	Switch    SwitchParams // PB-FS parameters of both ToRs
	Sender    SenderParams // PB-FS parameters of every sender
	// Output, when set, sees every frame the two ToRs send.
	Output func(dev string, o device.Out)
}

// Incast is a built fast-start incast.
type Incast struct {
	Sim          *device.Sim      // the shared clock
	Left, Right  *device.Device   // the senders' and the receiver's ToRs
	LeftPB       *Switch          // the left ToR's PB-FS scheme, nil without PB-FS
	RightPB      *Switch          // the right ToR's, nil without PB-FS
	Senders      []*device.Device // the sender NICs
	SenderPB     []*Sender        // their PB-FS schemes, nil without PB-FS
	Receiver     *device.Device   // the receiver NIC
	ReceiverPort int              // the congested port of Right
	Config       IncastConfig     // the configuration, defaults filled in
}

// NewIncast builds the scenario; run it with Run.
func NewIncast(c IncastConfig) (*Incast, error) {
	if c.N == 0 {
		c.N = 8
	}
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
		c.Frames = 200
	}
	if c.FrameLen == 0 {
		c.FrameLen = 1078
	}
	for _, e := range []error{
		device.CheckRange("incast", "n", int64(c.N), 1, 4000, " senders"),
		device.CheckRange("incast", "frames", c.Frames, 1, 1<<30, " frames"),
		device.CheckRange("incast", "frame_len", int64(c.FrameLen), 64, 9000, " octets"),
		device.CheckRange("incast", "stagger", c.Stagger, 0, device.Second, " ns"),
	} {
		if e != nil {
			return nil, e
		}
	}
	sim := device.NewSim()
	recv := netip.MustParseAddr("10.2.0.1")
	x := &Incast{Sim: sim, Config: c, ReceiverPort: 1}
	lp := []device.PortConfig{}
	addrs := make([]netip.Addr, c.N)
	for i := range addrs {
		addrs[i] = netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)})
		lp = append(lp, device.PortConfig{ID: i, Speed: c.Speed, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(addrs[i], 32)}})
	}
	lp = append(lp, device.PortConfig{ID: c.N, Speed: c.CoreSpeed, Prefixes: []netip.Prefix{netip.MustParsePrefix("10.2.0.0/16")}})
	var err error
	if x.Left, err = device.NewSwitch(device.Config{Name: "left", Sim: sim, Ports: lp}); err != nil {
		return nil, err
	}
	if x.Right, err = device.NewSwitch(device.Config{Name: "right", Sim: sim, Ports: []device.PortConfig{
		{ID: 0, Speed: c.CoreSpeed, Prefixes: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}},
		{ID: 1, Speed: c.Speed, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(recv, 32)}},
	}}); err != nil {
		return nil, err
	}
	if c.PBFS {
		x.LeftPB, x.RightPB = NewSwitch(c.Switch), NewSwitch(c.Switch)
		if err := x.Left.Attach(x.LeftPB); err != nil {
			return nil, err
		}
		if err := x.Right.Attach(x.RightPB); err != nil {
			return nil, err
		}
	}
	if c.Output != nil {
		x.Left.OnOutput(func(o device.Out) { c.Output("left", o) })
		x.Right.OnOutput(func(o device.Out) { c.Output("right", o) })
	}
	if err := device.Connect(x.Left, c.N, x.Right, 0, c.Delay); err != nil {
		return nil, err
	}
	if x.Receiver, err = device.NewNIC(device.Config{Name: "receiver", Sim: sim, Ports: []device.PortConfig{
		{ID: device.WirePort, Speed: c.Speed, Prefixes: []netip.Prefix{netip.PrefixFrom(recv, 32)}}}}); err != nil {
		return nil, err
	}
	if err := device.Connect(x.Right, 1, x.Receiver, device.WirePort, c.Delay); err != nil {
		return nil, err
	}
	for i, a := range addrs {
		n, err := device.NewNIC(device.Config{Name: fmt.Sprintf("sender%d", i), Sim: sim, Ports: []device.PortConfig{
			{ID: device.WirePort, Speed: c.Speed, Prefixes: []netip.Prefix{netip.PrefixFrom(a, 32)}}}})
		if err != nil {
			return nil, err
		}
		if err := device.Connect(n, device.WirePort, x.Left, i, c.Delay); err != nil {
			return nil, err
		}
		tmpl, err := device.BuildUDP(nil, device.UDPSpec{Src: a, Dst: recv, SrcPort: uint16(10000 + i), DstPort: 4791, Len: c.FrameLen})
		if err != nil {
			return nil, err
		}
		spec := device.FlowSpec{Template: tmpl, Count: c.Frames, Start: int64(i) * c.Stagger}
		if c.PBFS {
			s := NewSender(c.Sender)
			if err := n.Attach(s); err != nil {
				return nil, err
			}
			if _, err := s.AddFlow(n, spec); err != nil {
				return nil, err
			}
			x.SenderPB = append(x.SenderPB, s)
		} else if _, err := n.AddFlow(spec); err != nil {
			return nil, err
		}
		x.Senders = append(x.Senders, n)
	}
	return x, nil
}

// Run runs the scenario until every frame is delivered.
func (x *Incast) Run() { x.Sim.Run() }

// Delivered returns the data frames the receiver got.
func (x *Incast) Delivered() int64 {
	var n int64
	for _, f := range x.Receiver.Flows() {
		n += f.RxFrames
	}
	return n
}

// Peak returns the peak depth of the congested port's data queue.
func (x *Incast) Peak() int64 { return x.Right.Record().Queue(x.ReceiverPort, 0).Peak }
