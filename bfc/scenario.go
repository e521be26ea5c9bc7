// SPDX-License-Identifier: Apache-2.0

package bfc

import (
	"fmt"
	"net/netip"

	"github.com/opensfc/sfc/device"
)

// FanInConfig describes the fan-in of the BFC paper's queue-length
// micro-benchmark on a small topology: Hosts sender NICs on one switch,
// Flows concurrent flows spread round-robin over them (flow i on host
// i mod Hosts, with its own UDP source port), all toward one receiver NIC
// on the switch's last port. Every link runs at Speed with Delay
// propagation; each flow sends Frames frames of FrameLen octets from time
// Stagger × i. With BFC set the switch runs BFC with Params and the NICs
// obey its pause frames; without it the switch only forwards (no pause,
// unlimited buffer).
type FanInConfig struct {
	Hosts    int    // default 2
	Flows    int    // default 8
	Frames   int64  // per flow, default 40
	FrameLen int    // default 1078
	Speed    int64  // default 100 Gb/s
	Delay    int64  // default 1 µs, so that a hop RTT is about HRTT = 2 µs
	Stagger  int64  // ns between flow starts, default 0
	BFC      bool   // run BFC on the switch and the NICs
	Params   Params // BFC parameters of the switch
	// Trace is the switch's trace configuration.
	Trace device.Trace
	// Output, when set, sees every frame the switch sends.
	Output func(o device.Out)
}

// FanIn is a built fan-in scenario.
type FanIn struct {
	Sim      *device.Sim      // the shared clock
	Switch   *device.Device   // the switch
	BFC      *Switch          // its BFC scheme, nil without BFC
	Hosts    []*device.Device // the sender NICs
	NICs     []*NIC           // their BFC schemes, nil without BFC
	Receiver *device.Device   // the receiver NIC
	// Port is the congested switch port, toward the receiver.
	Port   int
	Config FanInConfig // the configuration, defaults filled in
	// Stats measures the congested port while the scenario runs.
	Stats FanInStats

	depth    []int64
	sum, cnt int64
	last     int64
	area     int64
	areaN    int64
	ctrl     int
}

// FanInStats is what the congested port saw. A data queue is a physical
// queue under BFC and the one class queue that every flow shares without
// it; the first-packet queue is counted apart.
type FanInStats struct {
	// MaxQueue is the peak depth of any one data queue, in octets.
	MaxQueue int64
	// MeanQueue is the time-weighted mean depth of the non-empty data
	// queues, in octets.
	MeanQueue int64
	// FirstPacketPeak is the peak depth of the high-priority queue.
	FirstPacketPeak int64
	// PortPeak is the peak of all data queues together.
	PortPeak int64
}

func (x *FanIn) onDepth(port, q int, t, v int64) {
	if port != x.Port || q == x.ctrl || q >= len(x.depth) {
		return
	}
	if q == HighPriorityQueue {
		x.Stats.FirstPacketPeak = max(x.Stats.FirstPacketPeak, v)
		return
	}
	x.area += x.sum * (t - x.last)
	x.areaN += x.cnt * (t - x.last)
	x.last = t
	old := x.depth[q]
	switch {
	case old == 0 && v > 0:
		x.cnt++
	case old > 0 && v == 0:
		x.cnt--
	}
	x.sum += v - old
	x.depth[q] = v
	x.Stats.MaxQueue = max(x.Stats.MaxQueue, v)
	x.Stats.PortPeak = max(x.Stats.PortPeak, x.sum)
	if x.areaN > 0 {
		x.Stats.MeanQueue = x.area / x.areaN
	}
}

// NewFanIn builds the scenario; run it with Run.
func NewFanIn(c FanInConfig) (*FanIn, error) {
	if c.Hosts == 0 {
		c.Hosts = 2
	}
	if c.Flows == 0 {
		c.Flows = 8
	}
	if c.Frames == 0 {
		c.Frames = 40
	}
	if c.FrameLen == 0 {
		c.FrameLen = 1078
	}
	if c.Speed == 0 {
		c.Speed = 100 * device.Gbps
	}
	if c.Delay == 0 {
		c.Delay = device.Microsecond
	}
	for _, e := range []error{
		device.CheckRange("fanin", "hosts", int64(c.Hosts), 1, 1000, " hosts"),
		device.CheckRange("fanin", "flows", int64(c.Flows), 1, 60000, " flows"),
		device.CheckRange("fanin", "frames", c.Frames, 1, 1<<30, " frames"),
		device.CheckRange("fanin", "frame_len", int64(c.FrameLen), 64, 9000, " octets"),
		device.CheckRange("fanin", "stagger", c.Stagger, 0, device.Second, " ns"),
	} {
		if e != nil {
			return nil, e
		}
	}
	nq := c.Params.Queues
	if nq == 0 {
		nq = DefaultQueues
	}
	sim := device.NewSim()
	x := &FanIn{Sim: sim, Config: c, Port: c.Hosts}
	recv := netip.MustParseAddr("10.2.0.1")
	ports := make([]device.PortConfig, 0, c.Hosts+1)
	addrs := make([]netip.Addr, c.Hosts)
	for i := range addrs {
		addrs[i] = netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)})
		ports = append(ports, device.PortConfig{ID: i, Speed: c.Speed, ServerFacing: true, Queues: QueuesFor(nq),
			Prefixes: []netip.Prefix{netip.PrefixFrom(addrs[i], 32)}})
	}
	ports = append(ports, device.PortConfig{ID: c.Hosts, Speed: c.Speed, ServerFacing: true, Queues: QueuesFor(nq),
		Prefixes: []netip.Prefix{netip.PrefixFrom(recv, 32)}})
	tr := c.Trace
	user := tr.OnDepth
	tr.OnDepth = func(port, q int, t, v int64) {
		x.onDepth(port, q, t, v)
		if user != nil {
			user(port, q, t, v)
		}
	}
	x.depth = make([]int64, QueuesFor(nq))
	sw, e := device.NewSwitch(device.Config{Name: "tor", Sim: sim, Ports: ports, Trace: tr})
	if e != nil {
		return nil, e
	}
	x.ctrl = int(sw.ControlClass())
	x.Switch = sw
	if c.BFC {
		x.BFC = NewSwitch(c.Params)
		if e := sw.Attach(x.BFC); e != nil {
			return nil, e
		}
	}
	if c.Output != nil {
		sw.OnOutput(c.Output)
	}
	if x.Receiver, e = device.NewNIC(device.Config{Name: "receiver", Sim: sim, Ports: []device.PortConfig{
		{ID: device.WirePort, Speed: c.Speed, Prefixes: []netip.Prefix{netip.PrefixFrom(recv, 32)}}}}); e != nil {
		return nil, e
	}
	if e := device.Connect(sw, c.Hosts, x.Receiver, device.WirePort, c.Delay); e != nil {
		return nil, e
	}
	for i, a := range addrs {
		h, e := device.NewNIC(device.Config{Name: fmt.Sprintf("host%d", i), Sim: sim, Ports: []device.PortConfig{
			{ID: device.WirePort, Speed: c.Speed, Prefixes: []netip.Prefix{netip.PrefixFrom(a, 32)}}}})
		if e != nil {
			return nil, e
		}
		if c.BFC {
			n := NewNIC()
			if e := h.Attach(n); e != nil {
				return nil, e
			}
			x.NICs = append(x.NICs, n)
		}
		if e := device.Connect(h, device.WirePort, sw, i, c.Delay); e != nil {
			return nil, e
		}
		x.Hosts = append(x.Hosts, h)
	}
	for f := 0; f < c.Flows; f++ {
		h := f % c.Hosts
		tmpl, e := device.BuildUDP(nil, device.UDPSpec{Src: addrs[h], Dst: recv, SrcPort: uint16(10000 + f), DstPort: 4791, Len: c.FrameLen})
		if e != nil {
			return nil, e
		}
		if _, e := x.Hosts[h].AddFlow(device.FlowSpec{Template: tmpl, Count: c.Frames, Start: int64(f) * c.Stagger}); e != nil {
			return nil, e
		}
	}
	return x, nil
}

// Run runs the scenario until every frame is delivered.
func (x *FanIn) Run() { x.Sim.Run() }

// Delivered returns the frames the receiver got.
func (x *FanIn) Delivered() int64 {
	var n int64
	for _, f := range x.Receiver.Flows() {
		n += f.RxFrames
	}
	return n
}
