// SPDX-License-Identifier: Apache-2.0

package bfc

import (
	"testing"

	"github.com/opensfc/sfc/device"
)

// FuzzSwitch drives a BFC switch (and a BFC NIC) with a program of
// arbitrary frames and time steps: each step picks a template frame
// (data of two flows, a BFC pause frame of version 2 and one of version 1,
// a runt), patches one octet, and
// feeds it on a port after a gap of up to 2^30 ns. Nothing may panic and
// Flush must return.
func FuzzSwitch(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 1, 3, 20, 7, 2, 1, 30, 9})
	f.Add([]byte{2, 200, 16, 0, 2, 0, 18, 1, 0, 255, 255, 255})
	f.Add([]byte{3, 10, 0, 0, 0, 0, 0, 0, 0, 1, 3, 20, 3, 250, 17, 3})
	f.Fuzz(func(t *testing.T, prog []byte) {
		d, s, _ := tor(t, Params{Queues: 2})
		n, err := device.NewNIC(device.Config{Name: "h", Ports: []device.PortConfig{{ID: 0, Speed: 10 * device.Gbps}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Attach(NewNIC()); err != nil {
			t.Fatal(err)
		}
		filter := make([]byte, 128)
		for i := range filter {
			filter[i] = byte(i * 37)
		}
		pause, _ := AppendFrame(nil, device.MAC{}, 4, 1, filter)
		pauseV1 := append([]byte(nil), pause...)
		pauseV1[14+3] = 1
		tmpl := [][]byte{frame(t, hostA, recv, 1, 1000), frame(t, hostB, recv, 2, 100), pause, pauseV1, {1, 2, 3}}
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
			_ = d.Input(int(op>>2)%3, now, fr)
			_ = n.Input(0, now, fr)
		}
		d.Flush()
		n.Flush()
		if s.Pauses < s.Resumes {
			t.Fatalf("pauses %d < resumes %d", s.Pauses, s.Resumes)
		}
	})
}
