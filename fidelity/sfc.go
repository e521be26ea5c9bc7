// SPDX-License-Identifier: Apache-2.0

package fidelity

import (
	"fmt"
	"math"
	"net/netip"
	"sort"

	"github.com/opensfc/sfc/bts"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

// The SFC claims run the SFC paper's dumbbell (bts.NewIncast): N senders
// behind a left ToR, the receiver behind a right ToR, 100 Gb/s host links,
// a core of N × 100 Gb/s so that the receiver's port is the only
// bottleneck, every link d = 1 µs (1.5 µs for the SFC-P testbed), 1,078
// octet frames, unlimited buffers, no congestion control, closed loop
// (device.Sim, NICs and switches joined by device.Connect).

func init() { Register("sfc", sfcClaims) }

const (
	sfcSource   = "SFC paper"
	sfcFrame    = 1078
	sfcBTSFrame = 122 // a BTS quoting 64 octets: 14 + 20 + 8 + 16 + 64
)

func sfcClaims() ([]Claim, error) {
	var cs []Claim
	for _, n := range []int{16, 64, 128} {
		c, err := sfcC2(n)
		if err != nil {
			return cs, err
		}
		cs = append(cs, c)
	}
	for _, n := range []int{16, 64, 128} {
		c, err := sfcC3(n)
		if err != nil {
			return cs, err
		}
		cs = append(cs, c)
	}
	c, err := sfcFig1()
	if err != nil {
		return cs, err
	}
	cs = append(cs, c)
	c, err = sfcpTestbed()
	if err != nil {
		return cs, err
	}
	return append(cs, c), nil
}

// octetsPerNs is R in octets per ns.
func octetsPerNs(bps int64) float64 { return float64(bps) / 8 / 1e9 }

// wireNs is the time a frame of n captured octets occupies a link of bps.
func wireNs(n int, bps int64) float64 { return float64(device.WireBits(n)) * 1e9 / float64(bps) }

// sfcC2 runs a perfectly synchronized N-to-1 incast with ingress BTS and
// measures the buffer the first congestion episode takes above the depth
// at which the first BTS fired.
func sfcC2(n int) (Claim, error) {
	const d = device.Microsecond
	r := 100 * device.Gbps
	var first *bts.Built
	var peak, peakAt int64
	var resumed bool
	x, err := bts.NewIncast(bts.IncastConfig{N: n, Mode: bts.IngressBTS, Frames: 100, Delay: d,
		Trace: device.Trace{OnDepth: func(port, q int, t, depth int64) {
			if port == 1 && !resumed && depth > peak {
				peak, peakAt = depth, t
			}
		}}})
	if err != nil {
		return Claim{}, err
	}
	x.RightSFC.OnBuilt = func(b bts.Built) {
		if first == nil {
			bb := b
			first = &bb
		}
	}
	// The episode ends when a sender resumes (starts a frame long after
	// its previous one).
	for _, s := range x.Senders {
		last := int64(-1)
		s.OnOutput(func(o device.Out) {
			if o.Port == device.WirePort {
				if last >= 0 && o.Time-last > 2*int64(wireNs(sfcFrame, r)) {
					resumed = true
				}
				last = o.Time
			}
		})
	}
	x.Run()
	if first == nil {
		return Claim{}, fmt.Errorf("C.2 N=%d: no BTS", n)
	}
	sd, sb := wireNs(sfcFrame, r), wireNs(sfcBTSFrame, r)
	tf := 4*float64(d) + sd + sb
	paper := float64(n) * octetsPerNs(r) * tf
	measured := float64(peak - first.QD)
	c := Value(fmt.Sprintf("SFC-C2-N%d", n), sfcSource+", appendix C.2",
		fmt.Sprintf("%d-to-1 synchronized incast, ingress BTS: the buffer the incast takes beyond the trigger before the senders stop is N·R·T_F", n),
		fmt.Sprintf("B = N·R·T_F; T_F = 4d + s_d + s_b = %.3f µs from the first packet over Q_th to the last packet the senders sent before stopping reaching the queue: the BTS crosses 2 links (2d) plus its serialization s_b, the senders' packets that find the queue over Q_th arrive within one frame time s_d, the data already sent crosses 2 links (2d); d = 1 µs, R = 100 Gb/s. Measured: peak depth of the first episode minus the depth the first BTS fired at (T_F measured %.3f µs)",
			tf/1e3, float64(peakAt-first.Arrival)/1e3),
		paper/1e3, measured/1e3, "KB")
	return c, nil
}

// sfcC3 runs an N-to-1 incast whose senders start over 50 µs, with the
// pause cache and a ToR BTS latency T_S, and measures, for each sender
// whose first signal is a cache hit at its own ToR, the feedback delay
// from that packet's arrival at the ToR to the arrival there of the last
// packet the sender sent before stopping.
func sfcC3(n int) (Claim, error) {
	const d = device.Microsecond
	const ts = 500 // bts_latency, ns
	r := 100 * device.Gbps
	fwd := make([][]int64, n) // per sender: arrival times at the left ToR
	x, err := bts.NewIncast(bts.IncastConfig{N: n, Mode: bts.IngressBTSCache, Frames: 200, Delay: d, Window: 50 * device.Microsecond,
		Params: bts.Params{Latency: ts},
		Output: func(dev string, o device.Out) {
			if dev != "left" || o.Generated || o.Kind != device.KindData || o.Port != n {
				return
			}
			var m device.Meta
			cp := device.Codepoints{}.WithDefaults()
			device.Parse(o.Frame, &m, &cp)
			if i := senderIndex(m.Src); i >= 0 && i < n {
				fwd[i] = append(fwd[i], o.Time)
			}
		}})
	if err != nil {
		return Claim{}, err
	}
	var hits []bts.Built
	seen := make([]bool, n)
	// A sender's first signal: a cache hit at the left ToR reaches it
	// T_S + d after the packet's arrival there; a BTS from the right ToR
	// 2d after the packet's arrival at the right ToR, itself d after the
	// left. Keep senders whose first signal to arrive is a cache hit.
	rightFirst := make([]int64, n)
	for i := range rightFirst {
		rightFirst[i] = math.MaxInt64
	}
	x.LeftSFC.OnBuilt = func(b bts.Built) {
		i := senderIndex(b.Flow.Src)
		if i < 0 || i >= n || seen[i] || b.Signal.Origin != layers.OriginCache || b.Signal.PauseUS == 0 {
			if i >= 0 && i < n {
				seen[i] = true
			}
			return
		}
		seen[i] = true
		hits = append(hits, b)
	}
	x.RightSFC.OnBuilt = func(b bts.Built) {
		if i := senderIndex(b.Flow.Src); i >= 0 && i < n && b.At+2*d < rightFirst[i] {
			rightFirst[i] = b.At + 2*d // when it reaches the sender
		}
	}
	x.Run()
	var sum float64
	var k int
	for _, b := range hits {
		i := senderIndex(b.Flow.Src)
		if rightFirst[i] <= b.At+d {
			continue // a BTS from the congested ToR got there first
		}
		ts := fwd[i]
		j := sort.Search(len(ts), func(j int) bool { return ts[j] >= b.Arrival })
		if j >= len(ts) {
			continue
		}
		for j+1 < len(ts) && ts[j+1]-ts[j] < int64(1.5*wireNs(sfcFrame, r)) {
			j++
		}
		sum += float64(ts[j] - b.Arrival)
		k++
	}
	if k == 0 {
		return Claim{}, fmt.Errorf("C.3 N=%d: no sender was first signalled by a cache hit", n)
	}
	paper := float64(2*d + ts)
	return Value(fmt.Sprintf("SFC-C3-N%d", n), sfcSource+", appendix C.3",
		fmt.Sprintf("%d-to-1 incast, senders starting over 50 µs, pause cache on: a sender whose packet hits the cache at its own ToR stops after 2·T_ToR + T_S (mean over the %d senders first signalled by a cache hit)", n, k),
		"feedback delay = 2·T_ToR + T_S: T_ToR = 1 µs, the one-way sender–ToR link delay (the packet to the ToR, the BTS back); T_S = 500 ns, the ToR's BTS latency (bts_latency). Measured at the ToR: from the arrival of the packet that hit the cache to the arrival of the last packet the sender sent before stopping",
		paper/1e3, sum/float64(k)/1e3, "µs"), nil
}

// senderIndex is the index NewIncast gives the sender with address a
// (10.1.i>>8.i), or -1.
func senderIndex(a netip.Addr) int {
	if !a.Is4() {
		return -1
	}
	b := a.As4()
	if b[0] != 10 || b[1] != 1 {
		return -1
	}
	return int(b[2])<<8 | int(b[3])
}

// sfcFig1 runs the Fig. 1 micro-benchmark in its three modes.
func sfcFig1() (Claim, error) {
	var peaks [3]int64
	for _, m := range []bts.Mode{bts.NoFC, bts.IngressBTS, bts.IngressBTSCache} {
		x, err := bts.NewIncast(bts.IncastConfig{N: 63, Window: 50 * device.Microsecond, Mode: m, Frames: 1000})
		if err != nil {
			return Claim{}, err
		}
		x.Run()
		peaks[m], _ = x.Peak()
	}
	holds := peaks[bts.NoFC] > peaks[bts.IngressBTS] && peaks[bts.IngressBTS] > peaks[bts.IngressBTSCache]
	return Order("SFC-FIG1", sfcSource+", Fig. 1",
		"63-to-1 incast on the 2-switch dumbbell (100 Gb/s, 1 µs links, senders starting within 50 µs, unlimited buffer, no CC, 1000 frames per sender): peak queue at the receiver's port",
		"no FC > ingress BTS > ingress BTS + cache", holds,
		fmt.Sprintf("peaks %.0f KB > %.0f KB > %.0f KB", float64(peaks[bts.NoFC])/1e3, float64(peaks[bts.IngressBTS])/1e3, float64(peaks[bts.IngressBTSCache])/1e3)), nil
}

// sfcpTestbed runs the SFC-P testbed rule: 40 senders whose NICs obey
// PFC only, SFC-P at their ToR, the SFC-P loop (congested ToR → senders'
// ToR → sender → senders' ToR → congested ToR) 6 µs, and measures the
// time-averaged depth of the receiver's queue over the middle half of
// the run.
func sfcpTestbed() (Claim, error) {
	const n = 40
	const d = 1500 // ns per link: 4 links make the 6 µs loop
	r := 100 * device.Gbps
	var samples []struct{ t, d int64 }
	x, err := bts.NewIncast(bts.IncastConfig{N: n, Mode: bts.IngressBTSSFCP, Frames: 1000, Delay: d,
		Trace: device.Trace{OnDepth: func(port, q int, t, depth int64) {
			if port == 1 && q == 0 {
				samples = append(samples, struct{ t, d int64 }{t, depth})
			}
		}}})
	if err != nil {
		return Claim{}, err
	}
	x.Run()
	if len(samples) == 0 {
		return Claim{}, fmt.Errorf("SFC-P: no queue")
	}
	// Time-weighted mean of the depth over [end/4, 3·end/4]: each sample
	// holds until the next.
	end := samples[len(samples)-1].t
	from, to := end/4, end*3/4
	var area float64
	for i := 0; i+1 < len(samples); i++ {
		lo, hi := max(samples[i].t, from), min(samples[i+1].t, to)
		if hi > lo {
			area += float64(samples[i].d) * float64(hi-lo)
		}
	}
	mean := area / float64(to-from)
	loop := 4 * float64(d)
	paper := loop * n * octetsPerNs(r)
	return Value("SFCP-TESTBED", "SFC paper, Fig. 5 (SFC-P testbed)",
		"40-to-1 incast, NICs without SFC (PFC only), SFC-P at the senders' ToR: the receiver's queue holds at loop delay × senders × 100 Gb/s",
		"Q = T_loop·N·R = 6 µs × 40 × 100 Gb/s = 3 MB; T_loop = 4 links of 1.5 µs (congested ToR → senders' ToR → sender and back); measured: time-averaged depth over the middle half of the run",
		paper/1e3, mean/1e3, "KB"), nil
}
