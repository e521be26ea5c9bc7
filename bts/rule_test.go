// SPDX-License-Identifier: Apache-2.0

package bts

import (
	"net/netip"
	"testing"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/pfc"
)

// TestDecisionAtIngress: the decision uses qd, the depth the packet finds,
// not qd_e: a packet that finds exactly Q_th signals nothing although the
// queue is over Q_th once it is in; the next one signals.
func TestDecisionAtIngress(t *testing.T) {
	sw := NewSwitch(Params{QTh: 10_000, QTg: 5_000})
	d := tor(t, 100*device.Gbps, sw)
	var c capture
	d.OnOutput(c.add)
	for i := 0; i < 10; i++ {
		_ = d.Input(2, 0, dataFrame(t, remote, hostB, uint16(100+i), 0, 1000))
	}
	_ = d.Input(0, 0, dataFrame(t, hostA, hostB, 1, 0, 1000)) // finds 10,000 = Q_th
	if sw.Fired != 0 {
		t.Fatalf("a packet finding qd = Q_th fired (qd_e %d > Q_th)", d.Depth(1, 0))
	}
	_ = d.Input(0, 0, dataFrame(t, hostA, hostB, 2, 0, 1000)) // finds 11,000
	d.Flush()
	sigs := c.signals(t)
	// qd_e = 12,000: ceil(7,000 × 8 / 10^5) µs = ceil(0.56) = 1.
	if len(sigs) != 1 || sigs[0].Flow.SrcPort != 2 || sigs[0].QueueDepth != 12_000 || sigs[0].PauseUS != 1 {
		t.Fatalf("signals %+v", sigs)
	}
}

// TestBTSLatency: with bts_latency = 2 µs a BTS decided at t leaves at t +
// 2 µs, its pause and depth from the queue as it is then, and a cache
// pause shortened by the latency. The old model sent at t from the depth
// at t (pause 8 µs, depth 100000) and the full cache time (7 µs).
func TestBTSLatency(t *testing.T) {
	sw := NewSwitch(Params{QTh: 10_000, QTg: 5_000, Latency: 2000})
	d := tor(t, 100*device.Gbps, sw)
	var c capture
	d.OnOutput(c.add)
	fill := dataFrame(t, remote, hostB, 1, 0, 1000)
	for i := 0; i < 100; i++ {
		_ = d.Input(2, 0, fill)
	}
	_ = d.Input(0, 0, dataFrame(t, hostA, hostB, 2, 0, 1000))
	d.Flush()
	var got []device.Out
	for _, o := range c.outs {
		if o.Generated && o.Port == 0 {
			got = append(got, o)
		}
	}
	if len(got) != 1 {
		t.Fatalf("%d BTS to host A", len(got))
	}
	s, err := Decode(got[0].Frame, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Port 1 sends a 1000-octet frame every 81.92 ns from 0: 24 have left
	// by 2 µs (the 24th at 1966.08 ns), so 101 − 24 frames are queued:
	// qd_e = 77,000 and pause = ceil(72,000 × 8 / 10^5) = ceil(5.76) = 6.
	if got[0].Time != 2000 || s.QueueDepth != 77_000 || s.PauseUS != 6 {
		t.Errorf("BTS at %d ns, depth %d, pause %d us; want 2000, 77000, 6", got[0].Time, s.QueueDepth, s.PauseUS)
	}

	// Cache: an entry with 7 µs left at ingress gives 7 − 2 = 5 µs.
	sw = NewSwitch(Params{Cache: true, Latency: 2000})
	d = tor(t, 100*device.Gbps, sw)
	c = capture{}
	d.OnOutput(c.add)
	f, _ := Build(nil, dataFrame(t, hostA, remote, 5, 26, 1078), Signal{PauseUS: 10, Cacheable: true}, BuildOptions{})
	_ = d.Input(2, 1000, f) // entry until 11,000
	_ = d.Input(1, 4000, dataFrame(t, hostB, remote, 9, 26, 1078))
	d.Flush()
	var cs []device.Out
	for _, o := range c.outs {
		if o.Generated {
			cs = append(cs, o)
		}
	}
	if len(cs) != 1 || cs[0].Time != 6000 {
		t.Fatalf("cache BTS %+v, want one at 6000 ns", cs)
	}
	if s, _ := Decode(cs[0].Frame, 0); s.PauseUS != 5 || s.Origin != layers.OriginCache {
		t.Errorf("cache BTS pause %d origin %v, want 5 cache", s.PauseUS, s.Origin)
	}
}

// TestBTSLatencyOrder: signals decided at different times with a latency
// leave in order, each at its own t_e, and OnBuilt sees qd and qd_e.
func TestBTSLatencyOrder(t *testing.T) {
	sw := NewSwitch(Params{QTh: 1000, QTg: 1000, Latency: 500})
	var built []Built
	sw.OnBuilt = func(b Built) { built = append(built, b) }
	d := tor(t, 100*device.Gbps, sw)
	for i := 0; i < 5; i++ {
		_ = d.Input(2, int64(i)*10, dataFrame(t, remote, hostB, uint16(i), 0, 1000))
	}
	d.Flush()
	// Packets 2, 3 and 4 find more than 1000 octets (packet 0 leaves at
	// 81.92 ns): three signals, each a new 5-tuple.
	if len(built) != 3 {
		t.Fatalf("built %+v", built)
	}
	for i, b := range built {
		if b.At != b.Arrival+500 || b.QD <= 1000 || b.Signal.QueueDepth != uint32(b.QDE) {
			t.Errorf("built %d: %+v", i, b)
		}
		if i > 0 && b.At < built[i-1].At {
			t.Errorf("built out of order: %+v", built)
		}
	}
}

// estTor is a ToR with four 100 Gb/s hosts and a 400 Gb/s uplink.
func estTor(t *testing.T, p Params) (*device.Device, *Switch) {
	t.Helper()
	var ports []device.PortConfig
	for i := 0; i < 4; i++ {
		ports = append(ports, device.PortConfig{ID: i, Speed: 100 * device.Gbps, ServerFacing: true,
			Prefixes: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, byte(i), 1}), 32)}})
	}
	ports = append(ports, device.PortConfig{ID: 4, Speed: 400 * device.Gbps, Prefixes: []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0")}})
	d, err := device.NewSwitch(device.Config{Name: "tor", Ports: ports})
	if err != nil {
		t.Fatal(err)
	}
	sw := NewSwitch(p)
	if err := d.Attach(sw); err != nil {
		t.Fatal(err)
	}
	return d, sw
}

// TestEstimatorRemoteSpeed: four 100G hosts send to one remote receiver
// at line rate through a 400G uplink. No local queue builds, but the
// remote receiver's 100G port gets 400 Gb/s: the estimator, draining at
// remote_speed (default the 100G of the server-facing ports), must fire.
// The old estimator drained at the egress port's 400G and never fired.
func TestEstimatorRemoteSpeed(t *testing.T) {
	run := func(p Params) *Switch {
		d, sw := estTor(t, p)
		for i := int64(0); i < 100; i++ {
			for h := 0; h < 4; h++ {
				src := netip.AddrFrom4([4]byte{10, 0, byte(h), 1})
				_ = d.Input(h, i*82, dataFrame(t, src, remote, uint16(h), 0, 1000))
			}
		}
		d.Flush()
		if q := d.Port(4).Queues[0].Peak; q > 4000 {
			t.Errorf("uplink queue peaked at %d: the test wants no local congestion", q)
		}
		return sw
	}
	sw := run(Params{Estimator: true, EstimatorWindow: 8000})
	if sw.RemoteSpeed() != 100*device.Gbps {
		t.Errorf("default remote_speed %d, want the server ports' 100G", sw.RemoteSpeed())
	}
	if sw.Sent[layers.OriginEstimate] == 0 {
		t.Errorf("no estimate-origin signal with remote_speed 100G: sent %v", sw.Sent)
	}
	// Draining the estimate at 400G (the old rule) sees no incast.
	if sw := run(Params{Estimator: true, EstimatorWindow: 8000, RemoteSpeed: 400 * device.Gbps}); sw.Fired != 0 {
		t.Errorf("remote_speed 400G fired %d times", sw.Fired)
	}
}

// TestSFCPCacheHit: a ToR with the cache and SFC-P turns the BTS it
// generates itself on a cache hit for a local host into a PFC frame to
// that host (behaviour.md §3). The old SFC-P converted only BTS that
// arrived, so host B (an SFC-less NIC) got a BTS it ignores.
func TestSFCPCacheHit(t *testing.T) {
	sw := NewSwitch(Params{Cache: true})
	sp := &SFCP{}
	d := tor(t, 100*device.Gbps, sw, sp)
	var c capture
	d.OnOutput(c.add)
	f, _ := Build(nil, dataFrame(t, hostA, remote, 5, 26, 1078), Signal{PauseUS: 20, Cacheable: true}, BuildOptions{})
	_ = d.Input(2, 1000, f) // cache (remote, 26) until 21 µs; PFC to A
	_ = d.Input(1, 2000, dataFrame(t, hostB, remote, 9, 26, 1078))
	d.Flush()
	var toB []device.Out
	for _, o := range c.outs {
		if o.Port == 1 {
			toB = append(toB, o)
		}
	}
	if len(toB) != 1 || toB[0].Kind != device.KindPFC || toB[0].Time != 2000 {
		t.Fatalf("to host B: %+v, want one PFC frame at 2000 ns", toB)
	}
	en, times, err := pfc.Decode(toB[0].Frame)
	// 19 µs × 10^11 / 512 / 10^9 = 3710.9 → 3711 quanta on priority 3 (DSCP 26).
	if err != nil || en != 1<<3 || times[3] != 3711 {
		t.Errorf("PFC enable %08b times %v err %v, want bit 3 = 3711", en, times, err)
	}
	if sw.Converted != 1 || sw.CacheHits != 1 || sw.Sent != [3]int64{} || sp.Converted != 1 {
		t.Errorf("converted %d hits %d sent %v sfcp %d", sw.Converted, sw.CacheHits, sw.Sent, sp.Converted)
	}
	// Without SFC-P on host B's port the cache hit is a BTS.
	sw = NewSwitch(Params{Cache: true})
	d = tor(t, 100*device.Gbps, sw, &SFCP{Ports: []int{0}})
	_ = d.Input(2, 1000, f)
	_ = d.Input(1, 2000, dataFrame(t, hostB, remote, 9, 26, 1078))
	d.Flush()
	if sw.Sent[layers.OriginCache] != 1 || sw.Converted != 0 {
		t.Errorf("SFC-P off for port 1: sent %v converted %d", sw.Sent, sw.Converted)
	}
}

// TestCFlagFollowsQueuePort: C is set when q's port is server-facing,
// whatever the origin (behaviour.md §1 step 4). A cache hit for a packet
// whose queue is on a server-facing port gets C; the old model set C on
// queue-origin signals only.
func TestCFlagFollowsQueuePort(t *testing.T) {
	sw := NewSwitch(Params{Cache: true})
	d := tor(t, 100*device.Gbps, sw)
	var c capture
	d.OnOutput(c.add)
	// A BTS from host B with C fills the cache for (host B, 26).
	f, _ := Build(nil, dataFrame(t, remote, hostB, 5, 26, 1078), Signal{PauseUS: 10, Cacheable: true}, BuildOptions{})
	_ = d.Input(1, 0, f)
	_ = d.Input(2, 1000, dataFrame(t, remote, hostB, 6, 26, 1078))
	d.Flush()
	sigs := c.signals(t)
	if len(sigs) != 1 || sigs[0].Origin != layers.OriginCache || !sigs[0].Cacheable || sigs[0].PauseUS != 9 || sigs[0].QueueDepth != 1078 {
		t.Fatalf("signals %+v, want one cache-origin BTS with C, 9 us, depth 1078", sigs)
	}
}

// TestBTSLatencyMemory: under a long steady incast with a latency, the
// signals waiting for t_e never all drain at once; the pending list must
// stay bounded by the signals in flight, not grow with the run.
func TestBTSLatencyMemory(t *testing.T) {
	sw := NewSwitch(Params{QTh: 1000, QTg: 1000, Reset: 100, Latency: 1000})
	d := tor(t, 100*device.Gbps, sw)
	for i := int64(0); i < 20000; i++ {
		// Two senders at line rate into one port: the queue only grows, and
		// every packet of a new reset period signals.
		_ = d.Input(0, i*82, dataFrame(t, hostA, hostB, 1, 0, 1000))
		_ = d.Input(2, i*82, dataFrame(t, remote, hostB, 2, 0, 1000))
		if n := len(sw.pend) - sw.phead; n > 64 {
			t.Fatalf("%d signals pending at %d ns, want those of one 1 us latency", n, d.Now())
		}
		if cap(sw.pend) > 256 {
			t.Fatalf("pending list capacity %d after %d packets", cap(sw.pend), 2*i)
		}
	}
	d.Flush()
	if sw.Sent[layers.OriginQueue] < 10000 {
		t.Errorf("sent %v", sw.Sent)
	}
}
