// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"fmt"
	"net/netip"

	"github.com/opensfc/sfc/device"
)

// Link is the speed (bit/s) and propagation delay (ns) of one tier of
// links.
type Link struct {
	Speed int64 `yaml:"speed,omitempty" json:"speed"` // 0 (left out): the default
	Delay int64 `yaml:"delay,omitempty" json:"delay"` // 0 (left out): the default
}

// TopoKind names a topology family.
type TopoKind string

// The topology families.
const (
	// Dumbbell: two ToRs joined by one link, Left hosts on the first and
	// Right hosts on the second.
	Dumbbell TopoKind = "dumbbell"
	// LeafSpine: a 2-tier Clos, every ToR joined to every spine.
	LeafSpine TopoKind = "leafspine"
	// FatTree: the 3-tier k-ary fat-tree (k pods of k/2 edge and k/2
	// aggregation switches, (k/2)² cores, k³/4 hosts).
	FatTree TopoKind = "fattree"
)

// Topo describes a topology. Zero fields take the defaults of the family:
// 100 Gb/s host links and 1 µs delays everywhere.
type Topo struct {
	Kind TopoKind `yaml:"kind" json:"kind"`
	// Dumbbell: hosts on the left and on the right ToR.
	Left  int `yaml:"left" json:"left,omitempty"`
	Right int `yaml:"right" json:"right,omitempty"`
	// LeafSpine: ToRs, spines, hosts per ToR. Over-subscription is
	// HostsPerToR × Host.Speed : Spines × Up.Speed.
	ToRs        int `yaml:"tors" json:"tors,omitempty"`
	Spines      int `yaml:"spines" json:"spines,omitempty"`
	HostsPerToR int `yaml:"hosts_per_tor" json:"hosts_per_tor,omitempty"`
	// FatTree: k (even, 4..64); HostsPerToR may lower or raise the k/2
	// hosts of each edge switch (over-subscription at the edge).
	K int `yaml:"k" json:"k,omitempty"`
	// Host is the host–ToR link, Up the ToR–spine (ToR–aggregation) link,
	// Core the aggregation–core link of a fat-tree (default Up).
	Host Link `yaml:"host" json:"host"`
	Up   Link `yaml:"up" json:"up"`
	Core Link `yaml:"core" json:"core"`
}

func (t *Topo) defaults() {
	def := func(l *Link, s Link) {
		if l.Speed == 0 {
			l.Speed = s.Speed
		}
		if l.Delay == 0 {
			l.Delay = s.Delay
		}
	}
	def(&t.Host, Link{100 * device.Gbps, device.Microsecond})
	def(&t.Up, t.Host)
	def(&t.Core, t.Up)
	if t.Kind == FatTree && t.HostsPerToR == 0 {
		t.HostsPerToR = t.K / 2
	}
}

// MaxHosts bounds the hosts of a fabric (each is a NIC with its
// transport): 65,536, a hundred times the largest setup of the papers.
const MaxHosts = 1 << 16

// size returns the fabric's hosts and switches as Build makes them.
func (t *Topo) size() (hosts, switches int) {
	switch t.Kind {
	case Dumbbell:
		return t.Left + t.Right, 2
	case LeafSpine:
		return t.ToRs * t.HostsPerToR, t.ToRs + t.Spines
	case FatTree:
		return t.K * t.K / 2 * t.HostsPerToR, 5 * t.K * t.K / 4
	}
	return 0, 0
}

func (t *Topo) check() error {
	rng := func(name string, v, lo, hi int) error {
		return device.CheckRange("topology", name, int64(v), int64(lo), int64(hi), "")
	}
	var err error
	switch t.Kind {
	case Dumbbell:
		if err = rng("left", t.Left, 1, 255); err == nil {
			err = rng("right", t.Right, 1, 255)
		}
	case LeafSpine:
		if err = rng("tors", t.ToRs, 1, 255); err == nil {
			if err = rng("spines", t.Spines, 1, 255); err == nil {
				err = rng("hosts_per_tor", t.HostsPerToR, 1, 255)
			}
		}
	case FatTree:
		if t.K%2 != 0 {
			return &device.ParamError{Scope: "topology", Name: "k", Value: fmt.Sprint(t.K), Allowed: "an even number 4..64"}
		}
		if err = rng("k", t.K, 4, 64); err == nil {
			err = rng("hosts_per_tor", t.HostsPerToR, 1, 255)
		}
	default:
		return &device.ParamError{Scope: "topology", Name: "kind", Value: string(t.Kind), Allowed: "dumbbell, leafspine, fattree"}
	}
	if err != nil {
		return err
	}
	// A fabric's size bounds its memory before anything runs: a fat tree
	// of k 64 with 255 hosts per edge switch is half a million hosts and
	// took 3 GB to build before any other check could refuse it.
	if h, _ := t.size(); h > MaxHosts {
		return &device.ParamError{Scope: "topology", Name: "hosts", Value: fmt.Sprint(h), Allowed: fmt.Sprintf("at most %d hosts in all (hosts_per_tor × edge switches)", MaxHosts)}
	}
	for _, l := range []struct {
		n string
		l Link
	}{{"host", t.Host}, {"up", t.Up}, {"core", t.Core}} {
		if err := device.CheckRange("topology", l.n+".speed", l.l.Speed, device.Gbps, 25_600*device.Gbps, " bit/s"); err != nil {
			return err
		}
		if err := device.CheckRange("topology", l.n+".delay", l.l.Delay, 0, device.Millisecond*100, " ns"); err != nil {
			return err
		}
	}
	return nil
}

// Host is one server: its NIC, its address and its place in the tree.
type Host struct {
	ID   int
	Addr netip.Addr
	NIC  *device.Device
	ToR  int // index of its edge switch in Net.ToRs
	Pod  int // fat-tree pod (0 otherwise)
	// Transport is the RoCEv2 transport attached to the NIC (nil until
	// Net.AttachTransports).
	Transport *Transport
	pb        *pbGate // PB-FS sender, when on
}

// Tier of a switch: 0 ToR/edge, 1 spine/aggregation, 2 core.
type Tier int

// Switch is one switch of the fabric.
type Switch struct {
	Name string
	Tier Tier
	Pod  int
	Dev  *device.Device
	// Up lists the port ids that lead up the tree (the ECMP group).
	Up []int
}

// SwitchConfig is the buffer every switch gets.
type SwitchConfig struct {
	// Buffer is the shared buffer per switch in octets (0: unlimited).
	Buffer int64 `yaml:"buffer" json:"buffer"`
	// DynamicThreshold limits a queue to Alpha × free buffer.
	DynamicThreshold bool    `yaml:"dynamic_threshold" json:"dynamic_threshold"`
	Alpha            float64 `yaml:"alpha" json:"alpha,omitempty"`
	// Queues per port (default 8).
	Queues int `yaml:"queues" json:"queues,omitempty"`
}

// Net is a built fabric: devices on one Sim.
type Net struct {
	Sim      *device.Sim
	Topo     Topo
	Hosts    []*Host
	Switches []*Switch
	ToRs     []*Switch
	byAddr   map[netip.Addr]int
}

// HostByAddr returns the host with address a, or nil.
func (n *Net) HostByAddr(a netip.Addr) *Host {
	if i, ok := n.byAddr[a]; ok {
		return n.Hosts[i]
	}
	return nil
}

// PathDelay returns the sum of the propagation delays from host a to host
// b and the number of links crossed.
func (n *Net) PathDelay(a, b int) (int64, int) {
	ha, hb := n.Hosts[a], n.Hosts[b]
	t := &n.Topo
	switch {
	case a == b:
		return 0, 0
	case ha.ToR == hb.ToR:
		return 2 * t.Host.Delay, 2
	case t.Kind == Dumbbell:
		return 2*t.Host.Delay + t.Up.Delay, 3
	case t.Kind == LeafSpine || ha.Pod == hb.Pod:
		return 2*t.Host.Delay + 2*t.Up.Delay, 4
	default:
		return 2*t.Host.Delay + 2*t.Up.Delay + 2*t.Core.Delay, 6
	}
}

// MaxBaseRTT is the longest host-to-host round trip propagation delay.
func (n *Net) MaxBaseRTT() int64 {
	t := &n.Topo
	switch t.Kind {
	case Dumbbell:
		return 2 * (2*t.Host.Delay + t.Up.Delay)
	case LeafSpine:
		return 2 * (2*t.Host.Delay + 2*t.Up.Delay)
	}
	return 2 * (2*t.Host.Delay + 2*t.Up.Delay + 2*t.Core.Delay)
}

// Build makes the devices of topology t on a new Sim, every switch with the
// buffer of sc, and connects them. Schemes are attached afterwards.
func Build(t Topo, sc SwitchConfig) (*Net, error) {
	t.defaults()
	if err := t.check(); err != nil {
		return nil, err
	}
	n := &Net{Sim: device.NewSim(), Topo: t, byAddr: map[netip.Addr]int{}}
	switch t.Kind {
	case Dumbbell:
		return n, n.buildTwoTier([]int{t.Left, t.Right}, 0, sc)
	case LeafSpine:
		sizes := make([]int, t.ToRs)
		for i := range sizes {
			sizes[i] = t.HostsPerToR
		}
		return n, n.buildTwoTier(sizes, t.Spines, sc)
	}
	return n, n.buildFatTree(sc)
}

func pfx(s string) netip.Prefix { return netip.MustParsePrefix(s) }

func (n *Net) newSwitch(name string, tier Tier, pod int, ports []device.PortConfig, sc SwitchConfig) (*Switch, error) {
	for i := range ports {
		ports[i].Queues = sc.Queues
	}
	d, err := device.NewSwitch(device.Config{Name: name, Sim: n.Sim, Ports: ports, Buffer: sc.Buffer,
		DynamicThreshold: sc.DynamicThreshold, Alpha: sc.Alpha})
	if err != nil {
		return nil, err
	}
	s := &Switch{Name: name, Tier: tier, Pod: pod, Dev: d}
	n.Switches = append(n.Switches, s)
	return s, nil
}

// addHosts makes the hosts of ToR tor at 10.pod.tor.j (tor within the
// pod) and returns their port configs (ids 0..m-1, /32 each).
func (n *Net) addHosts(m, torIdx, pod, torInPod int) []device.PortConfig {
	var ports []device.PortConfig
	for j := 0; j < m; j++ {
		a := netip.AddrFrom4([4]byte{10, byte(pod), byte(torInPod), byte(j + 1)})
		h := &Host{ID: len(n.Hosts), Addr: a, ToR: torIdx, Pod: pod}
		n.byAddr[a] = h.ID
		n.Hosts = append(n.Hosts, h)
		ports = append(ports, device.PortConfig{ID: j, Speed: n.Topo.Host.Speed, ServerFacing: true,
			Prefixes: []netip.Prefix{netip.PrefixFrom(a, 32)}})
	}
	return ports
}

func (n *Net) connectHosts(tor *Switch, first, m int) error {
	for j := 0; j < m; j++ {
		h := n.Hosts[first+j]
		nic, err := device.NewNIC(device.Config{Name: fmt.Sprintf("h%d", h.ID), Sim: n.Sim,
			Ports: []device.PortConfig{{ID: 0, Speed: n.Topo.Host.Speed, Prefixes: []netip.Prefix{netip.PrefixFrom(h.Addr, 32)}}}})
		if err != nil {
			return err
		}
		h.NIC = nic
		if err := device.Connect(nic, device.WirePort, tor.Dev, j, n.Topo.Host.Delay); err != nil {
			return err
		}
	}
	return nil
}

// buildTwoTier builds ToRs with the given host counts (pod 0, ToR t owns
// 10.0.t.0/24) and spines; with 0 spines it is a dumbbell of two ToRs.
func (n *Net) buildTwoTier(sizes []int, spines int, sc SwitchConfig) error {
	t := &n.Topo
	nup := spines
	if spines == 0 {
		nup = 1
	}
	for ti, m := range sizes {
		first := len(n.Hosts)
		ports := n.addHosts(m, ti, 0, ti)
		for u := 0; u < nup; u++ {
			pc := device.PortConfig{ID: m + u, Speed: t.Up.Speed}
			if u == 0 {
				pc.Prefixes = []netip.Prefix{pfx("0.0.0.0/0")}
			}
			ports = append(ports, pc)
		}
		tor, err := n.newSwitch(fmt.Sprintf("tor%d", ti), 0, 0, ports, sc)
		if err != nil {
			return err
		}
		for u := 0; u < nup; u++ {
			tor.Up = append(tor.Up, m+u)
		}
		n.ToRs = append(n.ToRs, tor)
		if err := n.connectHosts(tor, first, m); err != nil {
			return err
		}
	}
	if spines == 0 {
		a, b := n.ToRs[0], n.ToRs[1]
		return device.Connect(a.Dev, sizes[0], b.Dev, sizes[1], t.Up.Delay)
	}
	for s := 0; s < spines; s++ {
		var ports []device.PortConfig
		for ti := range sizes {
			ports = append(ports, device.PortConfig{ID: ti, Speed: t.Up.Speed,
				Prefixes: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, byte(ti), 0}), 24)}})
		}
		sp, err := n.newSwitch(fmt.Sprintf("spine%d", s), 1, 0, ports, sc)
		if err != nil {
			return err
		}
		for ti, tor := range n.ToRs {
			if err := device.Connect(tor.Dev, sizes[ti]+s, sp.Dev, ti, t.Up.Delay); err != nil {
				return err
			}
		}
	}
	return nil
}

// buildFatTree builds the k-ary fat-tree: pod p's edge e owns 10.p.e.0/24,
// the pod 10.p.0.0/16; aggregation a of every pod connects to cores
// a·k/2 .. a·k/2 + k/2 − 1.
func (n *Net) buildFatTree(sc SwitchConfig) error {
	t := &n.Topo
	k, h := t.K, t.K/2
	aggs := make([][]*Switch, k)
	for p := 0; p < k; p++ {
		var edges []*Switch
		for e := 0; e < h; e++ {
			first := len(n.Hosts)
			ports := n.addHosts(t.HostsPerToR, len(n.ToRs), p, e)
			for u := 0; u < h; u++ {
				pc := device.PortConfig{ID: t.HostsPerToR + u, Speed: t.Up.Speed}
				if u == 0 {
					pc.Prefixes = []netip.Prefix{pfx("0.0.0.0/0")}
				}
				ports = append(ports, pc)
			}
			edge, err := n.newSwitch(fmt.Sprintf("edge%d.%d", p, e), 0, p, ports, sc)
			if err != nil {
				return err
			}
			for u := 0; u < h; u++ {
				edge.Up = append(edge.Up, t.HostsPerToR+u)
			}
			n.ToRs = append(n.ToRs, edge)
			edges = append(edges, edge)
			if err := n.connectHosts(edge, first, t.HostsPerToR); err != nil {
				return err
			}
		}
		for a := 0; a < h; a++ {
			var ports []device.PortConfig
			for e := 0; e < h; e++ {
				ports = append(ports, device.PortConfig{ID: e, Speed: t.Up.Speed,
					Prefixes: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(p), byte(e), 0}), 24)}})
			}
			for u := 0; u < h; u++ {
				pc := device.PortConfig{ID: h + u, Speed: t.Core.Speed}
				if u == 0 {
					pc.Prefixes = []netip.Prefix{pfx("0.0.0.0/0")}
				}
				ports = append(ports, pc)
			}
			agg, err := n.newSwitch(fmt.Sprintf("agg%d.%d", p, a), 1, p, ports, sc)
			if err != nil {
				return err
			}
			for u := 0; u < h; u++ {
				agg.Up = append(agg.Up, h+u)
			}
			for e, edge := range edges {
				if err := device.Connect(edge.Dev, t.HostsPerToR+a, agg.Dev, e, t.Up.Delay); err != nil {
					return err
				}
			}
			aggs[p] = append(aggs[p], agg)
		}
	}
	for c := 0; c < h*h; c++ {
		var ports []device.PortConfig
		for p := 0; p < k; p++ {
			ports = append(ports, device.PortConfig{ID: p, Speed: t.Core.Speed,
				Prefixes: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(p), 0, 0}), 16)}})
		}
		core, err := n.newSwitch(fmt.Sprintf("core%d", c), 2, 0, ports, sc)
		if err != nil {
			return err
		}
		a, u := c/h, c%h
		for p := 0; p < k; p++ {
			if err := device.Connect(aggs[p][a].Dev, h+u, core.Dev, p, t.Core.Delay); err != nil {
				return err
			}
		}
	}
	return nil
}
