// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"testing"

	"github.com/opensfc/sfc/device"
)

func dumbbell(t *testing.T, left, right int, tc TransportConfig, st Setup, sc SwitchConfig) (*Net, *[]FlowResult) {
	t.Helper()
	n, err := Build(Topo{Kind: Dumbbell, Left: left, Right: right}, sc)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(n); err != nil {
		t.Fatal(err)
	}
	var res []FlowResult
	if _, err := n.AttachTransports(tc, func(r FlowResult) { res = append(res, r) }); err != nil {
		t.Fatal(err)
	}
	return n, &res
}

func TestSingleFlowIdeal(t *testing.T) {
	for _, cc := range []CC{CCNone, CCDCQCN, CCHPCC, CCDCTCP, CCTIMELY} {
		for _, rec := range []Recovery{GBN, IRN} {
			n, res := dumbbell(t, 1, 1, TransportConfig{CC: cc, Recovery: rec}, Setup{ECN: &HPCCECN, INT: cc == CCHPCC}, SwitchConfig{})
			for i, size := range []int64{1, 1000, 1001, 100_000, 1_000_000} {
				if err := n.Hosts[0].Transport.Start(Flow{ID: int64(i), Src: 0, Dst: 1, Size: size, Start: n.Sim.Now()}); err != nil {
					t.Fatal(err)
				}
				n.Sim.Run()
			}
			if len(*res) != 5 {
				t.Fatalf("%s/%s: %d flows done", cc, rec, len(*res))
			}
			for _, r := range *res {
				// The model's hops round each frame's start up to a whole ns;
				// HPCC paces a lone flow at η = 95 % of line rate once its
				// first RTT's telemetry is in.
				ok := r.FCT >= r.Ideal-3 && r.FCT <= r.Ideal+3
				if cc == CCHPCC {
					ok = r.FCT >= r.Ideal-3 && float64(r.FCT) <= 1.06*float64(r.Ideal)
				}
				if !ok || r.Retx != 0 {
					t.Errorf("%s/%s: size %d: FCT %d, ideal %d, retx %d", cc, rec, r.Size, r.FCT, r.Ideal, r.Retx)
				}
			}
			if got := n.Hosts[0].Transport.InFlight(); got != 0 {
				t.Errorf("%d flows left in flight", got)
			}
			if len(n.Hosts[0].NIC.Flows())+len(n.Hosts[1].NIC.Flows()) != 0 {
				t.Errorf("NIC flow state left: %d + %d", len(n.Hosts[0].NIC.Flows()), len(n.Hosts[1].NIC.Flows()))
			}
		}
	}
	_ = device.Gbps
}

// TestIncastCC: a 16:1 incast over a dumbbell. Without congestion control
// or flow control the receiver's queue grows to nearly everything the
// senders sent in the first RTT and more; DCQCN and DCTCP (ECN) and HPCC
// (INT) hold it far lower, TIMELY (RTT) somewhat lower; every flow
// completes without loss (unlimited buffer).
func TestIncastCC(t *testing.T) {
	peak := map[CC]int64{}
	for _, cc := range []CC{CCNone, CCDCQCN, CCHPCC, CCDCTCP, CCTIMELY} {
		ecn := &ECN{Kmin: 5 * device.KB, Kmax: 200 * device.KB, Pmax: 0.01}
		if cc == CCDCTCP {
			ecn = &DCTCPECN
		}
		n, res := dumbbell(t, 16, 1, TransportConfig{CC: cc}, Setup{ECN: ecn, INT: cc == CCHPCC}, SwitchConfig{})
		for i := 0; i < 16; i++ {
			if err := n.Hosts[i].Transport.Start(Flow{ID: int64(i), Src: i, Dst: 16, Size: 2_000_000}); err != nil {
				t.Fatal(err)
			}
		}
		n.Sim.Run()
		if len(*res) != 16 {
			t.Fatalf("%s: %d flows done", cc, len(*res))
		}
		peak[cc] = max(n.ToRs[0].Dev.BufferPeak(), n.ToRs[1].Dev.BufferPeak())
		var last int64
		for _, r := range *res {
			last = max(last, r.FCT)
		}
		// 32 MB through one 100 Gb/s port takes at least 2.6 ms.
		if last < 2_600_000 || last > 5_000_000 {
			t.Errorf("%s: last flow done after %d ns", cc, last)
		}
	}
	t.Logf("peak buffer: %v", peak)
	if peak[CCDCQCN] > peak[CCNone]/2 || peak[CCHPCC] > peak[CCNone]/4 || peak[CCDCTCP] > peak[CCNone]/2 ||
		peak[CCTIMELY] > peak[CCNone]*3/4 { // T_high = 500 µs is 6 MB of queue at 100 Gb/s
		t.Errorf("peak buffer %v: CC does not hold the queue", peak)
	}
}

// TestSFCPLocalHosts: under SFC-P the receiver's own ToR pauses its local
// senders by PFC too (behaviour.md §3, a BTS the ToR generates itself), so
// a 2 + 2 incast into a host of the same rack is paused on both sides and
// its local senders receive no BTS (their NICs know only PFC).
func TestSFCPLocalHosts(t *testing.T) {
	n, err := Build(Topo{Kind: LeafSpine, ToRs: 2, Spines: 1, HostsPerToR: 3}, SwitchConfig{})
	if err != nil {
		t.Fatal(err)
	}
	st := &Setup{FC: FCSFCP, SFC: SFCConfig{Cache: true}}
	if err := st.Apply(n); err != nil {
		t.Fatal(err)
	}
	done := 0
	if _, err := n.AttachTransports(TransportConfig{}, func(FlowResult) { done++ }); err != nil {
		t.Fatal(err)
	}
	var pfcToLocal, btsToLocal int
	n.ToRs[0].Dev.OnOutput(func(o device.Out) {
		if o.Port == 1 || o.Port == 2 {
			switch o.Kind {
			case device.KindPFC:
				pfcToLocal++
			case device.KindBTS:
				btsToLocal++
			}
		}
	})
	for i, src := range []int{1, 2, 3, 4} {
		if err := n.Hosts[src].Transport.Start(Flow{ID: int64(i), Src: src, Dst: 0, Size: 2_000_000}); err != nil {
			t.Fatal(err)
		}
	}
	n.Sim.Run()
	if done != 4 || pfcToLocal == 0 || btsToLocal != 0 {
		t.Errorf("done %d, PFC to local senders %d, BTS to local senders %d", done, pfcToLocal, btsToLocal)
	}
}

// TestOnRamp: OnRamp pauses senders whose packets see a one-way delay
// above the threshold, so a 16:1 incast without CC keeps a far smaller
// queue, and every flow still completes.
func TestOnRamp(t *testing.T) {
	peak := map[bool]int64{}
	for _, on := range []bool{false, true} {
		n, res := dumbbell(t, 16, 1, TransportConfig{OnRamp: on}, Setup{}, SwitchConfig{})
		for i := 0; i < 16; i++ {
			_ = n.Hosts[i].Transport.Start(Flow{ID: int64(i), Src: i, Dst: 16, Size: 1_000_000})
		}
		n.Sim.Run()
		if len(*res) != 16 {
			t.Fatalf("onramp %v: %d flows done", on, len(*res))
		}
		peak[on] = n.ToRs[0].Dev.BufferPeak()
		var pauses int64
		for _, h := range n.Hosts {
			pauses += h.Transport.OnRampPauses
		}
		if on == (pauses == 0) {
			t.Errorf("onramp %v: %d pauses", on, pauses)
		}
	}
	if peak[true] > peak[false]/2 {
		t.Errorf("peak with OnRamp %d, without %d", peak[true], peak[false])
	}
}

// TestFloodgateECMPByDst: under Floodgate every flow to a host takes one
// path (per-destination windows), and a 2-rack incast completes with
// credits flowing and nothing retransmitted; with per-flow ECMP the
// credits would refill a window on another port and flows would stall.
func TestFloodgateECMPByDst(t *testing.T) {
	recv := 0
	r, err := Run(Scenario{Name: "fg", Seed: 1, Topology: Topo{Kind: LeafSpine, ToRs: 2, Spines: 2, HostsPerToR: 8},
		Switch: SwitchConfig{Buffer: 8 * device.MB}, FC: FCFloodgate, Transport: TransportConfig{CC: CCDCQCN},
		Workload: Workload{Degree: 8, Size: 500_000, Remote: true, Incasts: 2, IncastEvery: 20_000, Receiver: &recv, Duration: 1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Completed != r.Flows || r.Retx != 0 || r.CreditOctets == 0 {
		t.Errorf("%d/%d flows, %d retransmissions, %d credit octets", r.Completed, r.Flows, r.Retx, r.CreditOctets)
	}
}

// lossOnce drops the first copy of each data PSN in drop, and records
// every data PSN it lets through.
type lossOnce struct {
	device.NopScheme
	drop map[int64]bool
	seen map[int64]bool
}

func (l *lossOnce) OnIngress(d *device.Device, p *device.Packet) device.Verdict {
	m := &p.Meta
	if m.DstPort != device.RoCEv2Port || len(p.Data) < m.Payload+bthLen || p.Data[m.Payload] > opSendOnly {
		return device.Pass
	}
	psn := getPSN(p.Data[m.Payload:])
	if l.drop[psn] {
		delete(l.drop, psn)
		p.DropReason = "test loss"
		return device.Drop
	}
	l.seen[psn] = true
	return device.Pass
}

// TestFirstPacketsLost: a flow whose first packets are lost still
// delivers every packet, under both recoveries. The receiver's queue pair
// exists before the first packet arrives (as an RC connection does), so a
// later PSN arriving first is out of order, not a "late duplicate" of a
// flow already done: acknowledging it as one let the sender skip the lost
// packets (GBN) or, with a later copy of PSN 0 making a second receiver,
// livelocked IRN (sfc-fig7's unfinished flows at full scale).
func TestFirstPacketsLost(t *testing.T) {
	for _, rec := range []Recovery{GBN, IRN} {
		for _, lost := range [][]int64{{0}, {0, 1, 2}, {0, 5, 6, 40}} {
			n, res := dumbbell(t, 1, 1, TransportConfig{Recovery: rec}, Setup{}, SwitchConfig{})
			l := &lossOnce{drop: map[int64]bool{}, seen: map[int64]bool{}}
			for _, psn := range lost {
				l.drop[psn] = true
			}
			if err := n.ToRs[0].Dev.Attach(l); err != nil {
				t.Fatal(err)
			}
			const npkt = 100
			if err := n.Hosts[0].Transport.Start(Flow{ID: 7, Src: 0, Dst: 1, Size: npkt * 1000}); err != nil {
				t.Fatal(err)
			}
			n.Sim.Run()
			if len(*res) != 1 {
				t.Fatalf("%s, lost %v: flow not done", rec, lost)
			}
			if len(l.drop) != 0 {
				t.Fatalf("%s, lost %v: PSNs %v never sent", rec, lost, l.drop)
			}
			for psn := int64(0); psn < npkt; psn++ {
				if !l.seen[psn] {
					t.Errorf("%s, lost %v: the flow completed but PSN %d never got through", rec, lost, psn)
				}
			}
			if (*res)[0].Retx < int64(len(lost)) {
				t.Errorf("%s, lost %v: %d retransmissions", rec, lost, (*res)[0].Retx)
			}
			if r := len(n.Hosts[1].Transport.rcv); r != 0 {
				t.Errorf("%s, lost %v: %d receivers left after the flow", rec, lost, r)
			}
		}
	}
}
