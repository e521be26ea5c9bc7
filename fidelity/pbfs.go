// SPDX-License-Identifier: Apache-2.0

package fidelity

import (
	"fmt"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/postcard"
)

// The PB-FS claims run postcard.NewIncast, a fast-start incast on a
// dumbbell at the PB-FS paper's speeds (reproduction-targets.md §4): 16
// senders (a ToR's 16 hosts) at 25 Gb/s, the ToR's 4 × 100 Gb/s of uplink
// as one 400 Gb/s core link, 2 µs links, one 25 Gb/s receiver, 200 frames
// of 1,078 octets per sender (215,600 octets: above the fast-start
// threshold T × τ = 25 Gb/s × 12.5 µs = 39,063 octets), PB-FS with the
// paper's parameters (N = 8, DC_RTT 25 µs, Δ = 6, μ = 0.95, I_min 20 % of
// the BDP) and no congestion control after the first RTT (the model has
// no transport), so the comparison is fast start with and without
// postcards.

func init() { Register("pbfs", pbfsClaims) }

const pbfsSource = "PB-FS paper"

func pbfsIncast(on bool) (*postcard.Incast, error) {
	x, err := postcard.NewIncast(postcard.IncastConfig{N: 16, Speed: 25 * device.Gbps, Delay: 2 * device.Microsecond, PBFS: on})
	if err != nil {
		return nil, err
	}
	x.Run()
	if got, want := x.Delivered(), int64(16*200); got != want {
		return nil, fmt.Errorf("fast-start incast (PB-FS %v): %d of %d frames delivered", on, got, want)
	}
	return x, nil
}

func pbfsClaims() ([]Claim, error) {
	var cs []Claim
	fs, err := pbfsIncast(false)
	if err != nil {
		return nil, err
	}
	pb, err := pbfsIncast(true)
	if err != nil {
		return nil, err
	}

	// §V-A: Δ = 6 makes T_Δ ≈ 2,035 ns with 25 Gb/s hosts. The ToR's
	// switch-facing port runs at 400 Gb/s; T_Δ follows the senders' rate.
	td := pb.LeftPB.SenderWindow(pb.Left, pb.Config.N)
	cs = append(cs, Value("PBFS-TDELTA", pbfsSource+", §V-A (parameters)",
		"The recent-traffic window T_Δ is the time a 25 Gb/s sender takes to send Δ = 6 full-size packets (measured on the ToR's 400 Gb/s uplink port; its own speed would give 129 ns)",
		"T_Δ = Δ × MTU / R_s = 6 × 1,078 octets × 8 / 25 Gb/s", 2035, float64(td), "ns"))

	// §V-B: the maximum queue falls with PB-FS (63 %, 87 %, 30 % with
	// DCQCN, TIMELY, HPCC); fast start alone is the baseline of Fig. 7.
	p0, p1 := fs.Peak(), pb.Peak()
	var post int64
	for _, s := range pb.SenderPB {
		post += s.Postcards
	}
	cs = append(cs, Order("PBFS-PEAK", pbfsSource+", §V-B and Fig. 7 (fast start baseline)",
		"With PB-FS the maximum queue at the incast's bottleneck is lower than with fast start without postcards (16 × 25 Gb/s senders into one 25 Gb/s receiver)",
		"peak queue: PB-FS < fast start",
		p1 < p0,
		fmt.Sprintf("peak queue at the receiver's port: fast start %.1f KB, PB-FS %.1f KB (%.0f %% lower; the paper: 30-87 %% with a CC behind it); %d postcards acted on, %d sent by the receiver's ToR",
			float64(p0)/1000, float64(p1)/1000, 100*(1-float64(p1)/float64(p0)), post, pb.RightPB.Postcards)))
	return cs, nil
}
