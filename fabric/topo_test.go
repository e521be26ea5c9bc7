// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"errors"
	"testing"
	"time"

	"github.com/opensfc/sfc/device"
)

// TestTopologies: the families have the sizes their definitions give, a
// flow between any two hosts completes at its ideal FCT (so every route
// exists and the path delays the ideal assumes are the real ones), and bad
// parameters are errors that name the parameter.
func TestTopologies(t *testing.T) {
	for _, c := range []struct {
		topo            Topo
		hosts, switches int
		pairs           [][2]int
		hops            []int
	}{
		{Topo{Kind: Dumbbell, Left: 3, Right: 2}, 5, 2, [][2]int{{0, 1}, {0, 4}}, []int{2, 3}},
		{Topo{Kind: LeafSpine, ToRs: 3, Spines: 2, HostsPerToR: 4}, 12, 5, [][2]int{{0, 3}, {0, 11}}, []int{2, 4}},
		{Topo{Kind: FatTree, K: 4}, 16, 20, [][2]int{{0, 1}, {0, 2}, {0, 15}}, []int{2, 4, 6}},
	} {
		n, err := Build(c.topo, SwitchConfig{})
		if err != nil {
			t.Fatal(err)
		}
		if len(n.Hosts) != c.hosts || len(n.Switches) != c.switches {
			t.Errorf("%s: %d hosts, %d switches", c.topo.Kind, len(n.Hosts), len(n.Switches))
		}
		if err := (&Setup{}).Apply(n); err != nil {
			t.Fatal(err)
		}
		var res []FlowResult
		if _, err := n.AttachTransports(TransportConfig{}, func(r FlowResult) { res = append(res, r) }); err != nil {
			t.Fatal(err)
		}
		for i, p := range c.pairs {
			if _, hops := n.PathDelay(p[0], p[1]); hops != c.hops[i] {
				t.Errorf("%s %v: %d links", c.topo.Kind, p, hops)
			}
			if err := n.Hosts[p[0]].Transport.Start(Flow{ID: int64(i), Src: p[0], Dst: p[1], Size: 50_000, Start: n.Sim.Now()}); err != nil {
				t.Fatal(err)
			}
			n.Sim.Run()
		}
		if len(res) != len(c.pairs) {
			t.Fatalf("%s: %d of %d flows done", c.topo.Kind, len(res), len(c.pairs))
		}
		for _, r := range res {
			if r.FCT < r.Ideal-6 || r.FCT > r.Ideal+6 {
				t.Errorf("%s %d→%d: FCT %d, ideal %d", c.topo.Kind, r.Src, r.Dst, r.FCT, r.Ideal)
			}
		}
	}
	for _, bad := range []Topo{
		{Kind: "ring"}, {Kind: FatTree, K: 5}, {Kind: FatTree, K: 2}, {Kind: LeafSpine, ToRs: 0, Spines: 1, HostsPerToR: 1},
		{Kind: Dumbbell, Left: 1, Right: 1, Host: Link{Speed: 1}},
	} {
		if _, err := Build(bad, SwitchConfig{}); !errors.Is(err, device.ErrParam) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

// TestECMPSpreads: flows between two racks spread over every spine, and
// every packet of one flow takes one path.
func TestECMPSpreads(t *testing.T) {
	n, err := Build(Topo{Kind: LeafSpine, ToRs: 2, Spines: 4, HostsPerToR: 8}, SwitchConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if err := (&Setup{Seed: 3}).Apply(n); err != nil {
		t.Fatal(err)
	}
	done := 0
	if _, err := n.AttachTransports(TransportConfig{}, func(FlowResult) { done++ }); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 64; i++ {
		_ = n.Hosts[i%8].Transport.Start(Flow{ID: int64(i), Src: i % 8, Dst: 8 + i%8, Size: 10_000})
	}
	n.Sim.Run()
	if done != 64 {
		t.Fatalf("%d flows done", done)
	}
	for u, id := range n.ToRs[0].Up {
		if tx := n.ToRs[0].Dev.Port(id).TxFrames; tx == 0 {
			t.Errorf("uplink %d carried nothing", u)
		}
	}
}

// TestTopoSize: size counts the hosts and switches Build makes, and a
// fabric of more than MaxHosts hosts is refused before it is built.
func TestTopoSize(t *testing.T) {
	for _, tp := range []Topo{
		{Kind: Dumbbell, Left: 3, Right: 5},
		{Kind: LeafSpine, ToRs: 4, Spines: 3, HostsPerToR: 6},
		{Kind: FatTree, K: 4},
		{Kind: FatTree, K: 6, HostsPerToR: 2},
	} {
		n, err := Build(tp, SwitchConfig{})
		if err != nil {
			t.Fatal(err)
		}
		tp.defaults()
		if h, s := tp.size(); h != len(n.Hosts) || s != len(n.Switches) {
			t.Errorf("%+v: size %d hosts, %d switches; Build made %d, %d", tp, h, s, len(n.Hosts), len(n.Switches))
		}
	}
	start := time.Now()
	_, err := Build(Topo{Kind: FatTree, K: 64, HostsPerToR: 255}, SwitchConfig{})
	var pe *device.ParamError
	if !errors.As(err, &pe) || pe.Name != "hosts" || time.Since(start) > time.Second {
		t.Errorf("a fat tree of 522,240 hosts: %v after %v", err, time.Since(start))
	}
}
