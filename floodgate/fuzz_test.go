// SPDX-License-Identifier: Apache-2.0

package floodgate

import (
	"testing"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

// FuzzSwitch drives a Floodgate switch and NIC with a program of arbitrary
// frames and time steps: each step picks a template (data from a host or a
// switch, a credit frame, a dst-pause frame, a runt), patches one octet,
// and feeds it on a port after a gap of up to 2^30 ns. Nothing may panic
// and Flush must return.
func FuzzSwitch(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 9, 3, 20, 7, 2, 1, 30, 9})
	f.Add([]byte{3, 200, 16, 0, 2, 0, 21, 1, 4, 255, 255, 255})
	f.Fuzz(func(t *testing.T, prog []byte) {
		r := newRig(t, Params{DstPause: 2000, DelayCredit: 3000, Tau: 1000})
		n, err := device.NewNIC(device.Config{Name: "h", Ports: []device.PortConfig{{ID: 0, Speed: 10 * device.Gbps}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Attach(NewNIC()); err != nil {
			t.Fatal(err)
		}
		c, _ := AppendCredit(nil, device.MAC{}, []layers.CreditEntry{{Credits: 3000, Dst: d1}, {Credits: 70, Dst: h0}})
		p, _ := AppendDstPause(nil, device.MAC{}, d1, 0xffff)
		tmpl := [][]byte{data(t, h0, d1, 1000), data(t, d1, h1, 200), c, p, {1, 2}}
		if _, err := n.AddFlow(device.FlowSpec{Template: tmpl[0], Count: 50}); err != nil {
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
			_ = r.d.Input(int(op>>2)%5, now, fr)
			_ = n.Input(0, now, fr)
		}
		r.d.Flush()
		n.Flush()
	})
}
