// SPDX-License-Identifier: Apache-2.0

package floodgate

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/opensfc/sfc/device"
)

// Defaults of behaviour.md §7, and of this model where §7 gives none.
const (
	// DefaultM is m, the next-hop BDP multiplier of the window: 1, the
	// Floodgate paper's W = BDP_nextHop + C_out × τ for aggregated credits
	// (behaviour.md §7; the authors' ns-3 configurations use 1.5).
	DefaultM = 1
	// DefaultNextHopRTT is the round trip over which BDP_nexthop is
	// counted: twice the 600 ns link propagation of the Floodgate example
	// (100 Gb/s: BDP = 15,000 octets; window 15,000 + 125,000 = 140,000
	// octets with m = 1 and τ = 10 µs).
	DefaultNextHopRTT = 1200 * device.Nanosecond
	// DefaultTau is the credit period τ.
	DefaultTau = 10 * device.Microsecond
	// DefaultMaxFrame is the largest credit frame, in captured octets;
	// more pending entries go in more frames.
	DefaultMaxFrame = 1500
)

// Sentinel errors.
var (
	// ErrNotFloodgate: the frame is not a Floodgate credit or dst-pause
	// frame (EtherType 0x88B5, magic 0x4643, subtype 2 or 3).
	ErrNotFloodgate = errors.New("not a Floodgate frame")
)

// Params configures a Floodgate switch (behaviour.md §7). Zero values take
// the defaults.
type Params struct {
	// M is m: default 1, 0 < m ≤ 64.
	M float64
	// NextHopRTT is the RTT of BDP_nexthop = port speed × NextHopRTT:
	// default 1.2 µs, 1 ns..1 s. BDP, when set, gives BDP_nexthop in
	// octets for every port instead.
	NextHopRTT int64
	BDP        int64 // octets; 0: speed × NextHopRTT per port
	// Tau is the credit period τ: default 10 µs, 100 ns..1 s.
	Tau int64
	// DstPause is the VOQ threshold of dst-pause in octets: default 1.5 ×
	// the largest link BDP of the device (port speed × NextHopRTT, or BDP),
	// 1..2^40. NoDstPause turns dst-pause off.
	DstPause   int64
	NoDstPause bool // no dst-pause at all
	// DelayCredit is the delay-credit threshold in octets: default 1.5 ×
	// the largest link BDP, 1..2^40. NoDelayCredit turns it off.
	DelayCredit   int64
	NoDelayCredit bool // never hold credits back
	// WindowPorts are the egress ports whose downstream neighbour runs
	// Floodgate (windows and VOQs apply there); nil means every port that
	// is not server-facing.
	WindowPorts []int
	// CreditPorts are the ingress ports whose upstream neighbour runs
	// Floodgate (credits are counted and sent there); nil means every port
	// that is not server-facing.
	CreditPorts []int
	// MaxFrame is the largest credit frame in captured octets: default
	// 1500, 64..9216.
	MaxFrame int
}

// resolve fills the defaults that do not depend on the device and
// validates p; errors name the parameter and its allowed range.
func (p *Params) resolve() error {
	if p.M == 0 {
		p.M = DefaultM
	}
	if !(p.M > 0 && p.M <= 64) {
		return &device.ParamError{Scope: "floodgate", Name: "m", Value: fmt.Sprint(p.M), Allowed: "0 < m <= 64"}
	}
	if p.NextHopRTT == 0 {
		p.NextHopRTT = DefaultNextHopRTT
	}
	if p.Tau == 0 {
		p.Tau = DefaultTau
	}
	if p.MaxFrame == 0 {
		p.MaxFrame = DefaultMaxFrame
	}
	for _, e := range []error{
		device.CheckRange("floodgate", "next_hop_rtt", p.NextHopRTT, 1, device.Second, " ns"),
		device.CheckRange("floodgate", "bdp", p.BDP, 0, 1<<40, " octets"),
		device.CheckRange("floodgate", "tau", p.Tau, 100, device.Second, " ns"),
		device.CheckRange("floodgate", "dst_pause", p.DstPause, 0, 1<<40, " octets"),
		device.CheckRange("floodgate", "delay_credit", p.DelayCredit, 0, 1<<40, " octets"),
		device.CheckRange("floodgate", "max_frame", int64(p.MaxFrame), 64, 9216, " octets"),
	} {
		if e != nil {
			return e
		}
	}
	return nil
}

// BDP returns speed × rtt in octets (bit/s, ns), rounded down.
func BDP(speed, rtt int64) int64 { return device.MulDiv(speed, rtt, 8*device.Second) }

// Window returns the initial window of behaviour.md §7 in octets:
// m × BDP_nexthop + C_out × τ, with C_out the egress port speed in bit/s
// and τ in ns; m × BDP is rounded to the nearest octet. 100 Gb/s, m = 1,
// BDP 15,000 (1.2 µs) and τ = 10 µs: 15,000 + 125,000 = 140,000 (m = 1.5:
// 147,500).
func Window(m float64, bdp, speed, tau int64) int64 {
	return int64(math.Round(m*float64(bdp))) + device.MulDiv(speed, tau, 8*device.Second)
}

func portList(d *device.Device, name string, ids []int, def func(*device.Port) bool) ([]bool, error) {
	on := make([]bool, len(d.Ports()))
	if ids == nil {
		for i, pt := range d.Ports() {
			on[i] = def(pt)
		}
		return on, nil
	}
	for _, id := range ids {
		pt := d.Port(id)
		if pt == nil {
			return nil, &device.ParamError{Scope: "floodgate", Name: name, Value: strconv.Itoa(id), Allowed: "port ids of the device"}
		}
		on[pt.Index()] = true
	}
	return on, nil
}
