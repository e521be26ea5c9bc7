// SPDX-License-Identifier: Apache-2.0

package bts

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/pfc"
)

// holResult is what the head-of-line scenario measures.
type holResult struct {
	innocentFCT    int64 // first frame sent to last frame received, ns
	innocentPaused bool  // the innocent sender's NIC was paused
	drops          int64
	pfcFrames      int64
}

// runHOL builds the classic PFC head-of-line scenario. Sender ToR S1 has
// hosts A0..A2 (congestion senders, to R1) and B (the innocent flow, to
// R2) on 100 Gb/s ports and a 400 Gb/s uplink to S2, which has R1 and R2
// on 100 Gb/s ports; every link has 1 µs delay. A0..A2 make a 3-to-1
// incast on S2's port to R1; B's path to R2 is never congested (the uplink
// carries 3 × 100 + 100 = 400 Gb/s).
//
// With PFC, S2's ingress counter for the uplink fills with A traffic, S2
// pauses the uplink's priority 0, S1's queues toward S2 then fill and S1
// pauses all its senders, B included: B is blocked behind traffic that is
// not its own. With SFC + SFC-P (NICs without SFC), S2 sends BTS to the A
// hosts and S1 turns them into PFC for the A hosts only; B never stops.
func runHOL(t *testing.T, sfc bool) holResult {
	t.Helper()
	sim := device.NewSim()
	r1, r2 := netip.MustParseAddr("10.2.0.1"), netip.MustParseAddr("10.2.0.2")
	mk := func(cfg device.Config) *device.Device {
		cfg.Sim = sim
		d, err := device.NewSwitch(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	const gb = device.Gbps
	var s1p []device.PortConfig
	var hosts []netip.Addr
	for i := 0; i < 4; i++ {
		a := netip.AddrFrom4([4]byte{10, 1, 0, byte(i + 1)})
		hosts = append(hosts, a)
		s1p = append(s1p, device.PortConfig{ID: i, Speed: 100 * gb, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(a, 32)}})
	}
	s1p = append(s1p, device.PortConfig{ID: 4, Speed: 400 * gb, Prefixes: []netip.Prefix{netip.MustParsePrefix("10.2.0.0/16")}})
	s1 := mk(device.Config{Name: "s1", Ports: s1p})
	s2 := mk(device.Config{Name: "s2", Ports: []device.PortConfig{
		{ID: 0, Speed: 400 * gb, Prefixes: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}},
		{ID: 1, Speed: 100 * gb, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(r1, 32)}},
		{ID: 2, Speed: 100 * gb, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(r2, 32)}},
	}})
	var p1, p2 *pfc.Switch
	if sfc {
		if err := s1.Attach(NewSwitch(Params{Cache: true}), &SFCP{}, &pfc.Receiver{}); err != nil {
			t.Fatal(err)
		}
		if err := s2.Attach(NewSwitch(Params{Cache: true}), &pfc.Receiver{}); err != nil {
			t.Fatal(err)
		}
	} else {
		p1, p2 = pfc.NewSwitch(pfc.Params{}), pfc.NewSwitch(pfc.Params{})
		if err := s1.Attach(p1, &pfc.Receiver{}); err != nil {
			t.Fatal(err)
		}
		if err := s2.Attach(p2, &pfc.Receiver{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := device.Connect(s1, 4, s2, 0, device.Microsecond); err != nil {
		t.Fatal(err)
	}
	nic := func(name string, a netip.Addr) *device.Device {
		n, err := device.NewNIC(device.Config{Name: name, Sim: sim, Trace: device.Trace{Pauses: true},
			Ports: []device.PortConfig{{ID: 0, Speed: 100 * gb, Prefixes: []netip.Prefix{netip.PrefixFrom(a, 32)}}}})
		if err != nil {
			t.Fatal(err)
		}
		// NICs without SFC: they obey PFC only.
		if err := n.Attach(&pfc.Receiver{}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var senders []*device.Device
	for i, a := range hosts {
		n := nic(fmt.Sprintf("h%d", i), a)
		if err := device.Connect(n, 0, s1, i, device.Microsecond); err != nil {
			t.Fatal(err)
		}
		dst, count, start := r1, int64(3000), int64(0)
		if i == 3 { // B, the innocent flow: 300 frames from 20 µs on
			dst, count, start = r2, 300, 20*device.Microsecond
		}
		f, _ := device.BuildUDP(nil, device.UDPSpec{Src: a, Dst: dst, SrcPort: uint16(1000 + i), DstPort: 5000, Len: 1078})
		if _, err := n.AddFlow(device.FlowSpec{Template: f, Count: count, Start: start}); err != nil {
			t.Fatal(err)
		}
		senders = append(senders, n)
	}
	rx1, rx2 := nic("r1", r1), nic("r2", r2)
	if err := device.Connect(s2, 1, rx1, 0, device.Microsecond); err != nil {
		t.Fatal(err)
	}
	if err := device.Connect(s2, 2, rx2, 0, device.Microsecond); err != nil {
		t.Fatal(err)
	}
	sim.Run()
	b := senders[3].Flows()[0]
	rb := rx2.Flows()[0]
	if rb.RxFrames != 300 {
		t.Fatalf("R2 received %d of 300 frames", rb.RxFrames)
	}
	res := holResult{innocentFCT: rb.LastRx - b.FirstTx, innocentPaused: len(senders[3].Record().Pauses) > 0}
	res.drops = s1.Record().Dropped("") + s2.Record().Dropped("")
	res.pfcFrames = s1.Record().SignalsSent(device.KindPFC) + s2.Record().SignalsSent(device.KindPFC)
	return res
}

func TestHeadOfLineBlocking(t *testing.T) {
	// B alone would need 299 frame times + 3 hops: 299 × 88.16 + 3 × 1000
	// + 3 frame times (store and forward is not modelled: ~0) ≈ 29.4 µs.
	ideal := int64(26360) + 3*device.Microsecond + 100
	withPFC := runHOL(t, false)
	withSFC := runHOL(t, true)
	t.Logf("ideal %d ns; PFC: innocent FCT %d ns, paused %v, %d PFC frames; SFC+SFC-P: innocent FCT %d ns, paused %v, %d PFC frames",
		ideal, withPFC.innocentFCT, withPFC.innocentPaused, withPFC.pfcFrames, withSFC.innocentFCT, withSFC.innocentPaused, withSFC.pfcFrames)
	if !withPFC.innocentPaused || withPFC.innocentFCT < 2*ideal {
		t.Errorf("PFC: the innocent flow was not blocked (FCT %d, paused %v)", withPFC.innocentFCT, withPFC.innocentPaused)
	}
	if withSFC.innocentPaused || withSFC.innocentFCT > ideal*11/10 {
		t.Errorf("SFC: the innocent flow was slowed (FCT %d vs ideal %d, paused %v)", withSFC.innocentFCT, ideal, withSFC.innocentPaused)
	}
	if withPFC.drops != 0 || withSFC.drops != 0 {
		t.Errorf("drops: PFC %d, SFC %d", withPFC.drops, withSFC.drops)
	}
	if withSFC.pfcFrames == 0 {
		t.Error("SFC-P sent no PFC to the congestion senders")
	}
}
