// SPDX-License-Identifier: Apache-2.0

package floodgate

import (
	"fmt"
	"net/netip"

	"github.com/opensfc/sfc/device"
)

// IncastConfig describes a two-tier incast: SourceToRs ToRs with Hosts
// senders each (HostSpeed links), every ToR on one core switch by a
// FabricSpeed link, the core on the destination ToR by a CoreSpeed link,
// and one receiver on the destination ToR at HostSpeed. Every link has
// Delay propagation; every sender sends Frames frames of FrameLen octets
// to the receiver from time 0, so the only point where more arrives than
// leaves is the destination ToR's receiver port. With Floodgate set every
// switch runs Floodgate with Params and every sender obeys dst-pause;
// without it the switches only forward (unlimited buffers).
type IncastConfig struct {
	SourceToRs  int    // default 2
	Hosts       int    // per source ToR, default 4
	HostSpeed   int64  // default 100 Gb/s
	FabricSpeed int64  // source ToR uplinks, default 400 Gb/s
	CoreSpeed   int64  // core to destination ToR, default SourceToRs × Hosts × HostSpeed
	Delay       int64  // default 600 ns
	Frames      int64  // per sender, default 300
	FrameLen    int    // default 1078
	Floodgate   bool   // run Floodgate on the switches and NICs
	Params      Params // Floodgate parameters of every switch
	// Output, when set, sees every frame the switches send.
	Output func(dev string, o device.Out)
}

// Incast is a built incast scenario.
type Incast struct {
	Sim       *device.Sim      // the shared clock
	SourceToR []*device.Device // the source ToRs
	Core      *device.Device   // the core switch
	DstToR    *device.Device   // the destination ToR
	Senders   []*device.Device // the sender NICs, ToR by ToR
	Receiver  *device.Device   // the receiver NIC
	// SourceFG, CoreFG and DstFG are the Floodgate schemes of the
	// switches, nil without Floodgate.
	SourceFG []*Switch
	CoreFG   *Switch      // the core's
	DstFG    *Switch      // the destination ToR's
	Config   IncastConfig // the configuration, defaults filled in
	Recv     netip.Addr   // the receiver's address
}

// NewIncast builds the scenario; run it with Run.
func NewIncast(c IncastConfig) (*Incast, error) {
	if c.SourceToRs == 0 {
		c.SourceToRs = 2
	}
	if c.Hosts == 0 {
		c.Hosts = 4
	}
	if c.HostSpeed == 0 {
		c.HostSpeed = 100 * device.Gbps
	}
	if c.FabricSpeed == 0 {
		c.FabricSpeed = 400 * device.Gbps
	}
	if c.CoreSpeed == 0 {
		c.CoreSpeed = int64(max(c.SourceToRs, 1)*max(c.Hosts, 1)) * c.HostSpeed
	}
	if c.Delay == 0 {
		c.Delay = 600 * device.Nanosecond
	}
	if c.Frames == 0 {
		c.Frames = 300
	}
	if c.FrameLen == 0 {
		c.FrameLen = 1078
	}
	for _, e := range []error{
		device.CheckRange("incast", "source_tors", int64(c.SourceToRs), 1, 250, " ToRs"),
		device.CheckRange("incast", "hosts", int64(c.Hosts), 1, 250, " hosts per ToR"),
		device.CheckRange("incast", "frames", c.Frames, 1, 1<<30, " frames"),
		device.CheckRange("incast", "frame_len", int64(c.FrameLen), 64, 9000, " octets"),
	} {
		if e != nil {
			return nil, e
		}
	}
	sim := device.NewSim()
	x := &Incast{Sim: sim, Config: c, Recv: netip.MustParseAddr("10.2.0.1")}
	attach := func(d *device.Device, name string) (*Switch, error) {
		if c.Output != nil {
			d.OnOutput(func(o device.Out) { c.Output(name, o) })
		}
		if !c.Floodgate {
			return nil, nil
		}
		s := NewSwitch(c.Params)
		return s, d.Attach(s)
	}
	var err error
	// Core: port t to source ToR t, port SourceToRs to the destination ToR.
	var cp []device.PortConfig
	for t := 0; t < c.SourceToRs; t++ {
		cp = append(cp, device.PortConfig{ID: t, Speed: c.FabricSpeed, Prefixes: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 1, byte(t), 0}), 24)}})
	}
	cp = append(cp, device.PortConfig{ID: c.SourceToRs, Speed: c.CoreSpeed, Prefixes: []netip.Prefix{netip.MustParsePrefix("10.2.0.0/16")}})
	if x.Core, err = device.NewSwitch(device.Config{Name: "core", Sim: sim, Ports: cp}); err != nil {
		return nil, err
	}
	if x.CoreFG, err = attach(x.Core, "core"); err != nil {
		return nil, err
	}
	if x.DstToR, err = device.NewSwitch(device.Config{Name: "dst-tor", Sim: sim, Ports: []device.PortConfig{
		{ID: 0, Speed: c.CoreSpeed, Prefixes: []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0")}},
		{ID: 1, Speed: c.HostSpeed, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(x.Recv, 32)}},
	}}); err != nil {
		return nil, err
	}
	if x.DstFG, err = attach(x.DstToR, "dst-tor"); err != nil {
		return nil, err
	}
	if err := device.Connect(x.Core, c.SourceToRs, x.DstToR, 0, c.Delay); err != nil {
		return nil, err
	}
	if x.Receiver, err = device.NewNIC(device.Config{Name: "receiver", Sim: sim, Ports: []device.PortConfig{
		{ID: device.WirePort, Speed: c.HostSpeed, Prefixes: []netip.Prefix{netip.PrefixFrom(x.Recv, 32)}}}}); err != nil {
		return nil, err
	}
	if err := device.Connect(x.DstToR, 1, x.Receiver, device.WirePort, c.Delay); err != nil {
		return nil, err
	}
	for t := 0; t < c.SourceToRs; t++ {
		var tp []device.PortConfig
		addrs := make([]netip.Addr, c.Hosts)
		for h := range addrs {
			addrs[h] = netip.AddrFrom4([4]byte{10, 1, byte(t), byte(h + 1)})
			tp = append(tp, device.PortConfig{ID: h, Speed: c.HostSpeed, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(addrs[h], 32)}})
		}
		tp = append(tp, device.PortConfig{ID: c.Hosts, Speed: c.FabricSpeed, Prefixes: []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0")}})
		name := fmt.Sprintf("src-tor%d", t)
		tor, err := device.NewSwitch(device.Config{Name: name, Sim: sim, Ports: tp})
		if err != nil {
			return nil, err
		}
		fg, err := attach(tor, name)
		if err != nil {
			return nil, err
		}
		x.SourceToR = append(x.SourceToR, tor)
		x.SourceFG = append(x.SourceFG, fg)
		if err := device.Connect(tor, c.Hosts, x.Core, t, c.Delay); err != nil {
			return nil, err
		}
		for h, a := range addrs {
			n, err := device.NewNIC(device.Config{Name: fmt.Sprintf("h%d.%d", t, h), Sim: sim, Ports: []device.PortConfig{
				{ID: device.WirePort, Speed: c.HostSpeed, Prefixes: []netip.Prefix{netip.PrefixFrom(a, 32)}}}})
			if err != nil {
				return nil, err
			}
			if c.Floodgate {
				if err := n.Attach(NewNIC()); err != nil {
					return nil, err
				}
			}
			if err := device.Connect(n, device.WirePort, tor, h, c.Delay); err != nil {
				return nil, err
			}
			tmpl, err := device.BuildUDP(nil, device.UDPSpec{Src: a, Dst: x.Recv, SrcPort: uint16(10000 + len(x.Senders)), DstPort: 4791, Len: c.FrameLen})
			if err != nil {
				return nil, err
			}
			if _, err := n.AddFlow(device.FlowSpec{Template: tmpl, Count: c.Frames}); err != nil {
				return nil, err
			}
			x.Senders = append(x.Senders, n)
		}
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

// Peaks returns the peak shared-buffer occupancy in octets (VOQs included)
// of the largest source ToR, the core and the destination ToR.
func (x *Incast) Peaks() (source, core, dst int64) {
	for _, t := range x.SourceToR {
		source = max(source, t.Record().BufferPeak)
	}
	return source, x.Core.Record().BufferPeak, x.DstToR.Record().BufferPeak
}
