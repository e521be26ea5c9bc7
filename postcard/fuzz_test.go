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
