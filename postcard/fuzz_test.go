// SPDX-License-Identifier: Apache-2.0

package postcard

import (
	"testing"

	"github.com/opensfc/sfc/device"
)

// FuzzSwitch drives a PB-FS switch and sender with a program of arbitrary
// frames and time steps: each step picks a template (unmarked and marked
// data, a postcard, a runt), patches one octet, and feeds it on a port
// after a gap of up to 2^30 ns. Nothing may panic and Flush must return.
func FuzzSwitch(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 1, 3, 20, 7, 2, 1, 70, 9})
	f.Add([]byte{2, 200, 16, 0, 3, 0, 50, 1, 1, 255, 255, 255})
	f.Fuzz(func(t *testing.T, prog []byte) {
		r := newRig(t)
		n, s, _ := nic(t, SenderParams{})
		tmpl := [][]byte{data(t, sender, recv, 1, false, 1000), data(t, sender, recv, 1, true, 300),
			postcard(t, swA, pc(500_000, 50_000, 60_000, 2_000), 1), {1, 2, 3}}
		if _, err := s.AddFlow(n, tmplSpec(tmpl[0])); err != nil {
			t.Fatal(err)
		}
		var now int64
		for len(prog) >= 4 {
			op, dt, off, val := prog[0], prog[1], prog[2], prog[3]
			prog = prog[4:]
			fr := append([]byte(nil), tmpl[int(op)%len(tmpl)]...)
			if len(fr) > 0 {
				fr[int(off)%len(fr)] ^= val
			}
			now += int64(dt) << (op >> 3 & 31)
			_ = r.d.Input(int(op>>2)%2, now, fr)
			_ = n.Input(0, now, fr)
		}
		r.d.Flush()
		n.Flush()
	})
}

func tmplSpec(b []byte) device.FlowSpec { return device.FlowSpec{Template: b, Count: 300} }

// FuzzRules feeds arbitrary numbers to the rule functions: nothing may
// panic, and a proposed rate is never above the line rate nor below
// MinRate.
func FuzzRules(f *testing.F) {
	f.Add(int64(500_000), int64(50_000), int64(60_000), int64(2_000), int64(100_000), int64(25_000), 6, int64(950_000), int64(62_500), int64(100e9))
	f.Add(int64(-1), int64(1<<62), int64(-5), int64(1<<62), int64(-1), int64(1<<62), -3, int64(0), int64(-7), int64(1))
	f.Fuzz(func(t *testing.T, ip, q1, recent, marked, rate, window int64, delta int, mu, imin, maxRate int64) {
		_ = PredictIP([]int64{ip, q1, recent, marked})
		_ = Congested(ip, q1, rate, window)
		r := React(Assessment{RateMbps: rate, WindowNS: window, IP: ip, Q1: q1, Recent: recent, RecentMarked: marked}, delta, mu, imin, maxRate)
		if r.Rate != 0 && maxRate >= MinRate && (r.Rate > maxRate || r.Rate < MinRate) {
			t.Fatalf("rate %d for line rate %d", r.Rate, maxRate)
		}
	})
}
