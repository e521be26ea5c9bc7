// SPDX-License-Identifier: Apache-2.0

package device

import (
	"net/netip"
	"testing"
)

// voq holds every frame of DSCP 10 until its timer releases them all.
type voq struct {
	NopScheme
	held []*Packet
}

func (v *voq) OnIngress(d *Device, p *Packet) Verdict {
	if p.Meta.DSCP != 10 {
		return Pass
	}
	if len(v.held) == 0 {
		d.After(1000, v, 0, 0)
	}
	v.held = append(v.held, p)
	return Take
}

func (v *voq) OnTimer(d *Device, _ int, _ int64) {
	for _, p := range v.held {
		d.Release(p)
	}
	v.held = nil
}

// lifo serves queue 1 before queue 0 (a Picker).
type lifo struct{ NopScheme }

func (lifo) Pick(d *Device, pt *Port) (int, int64) {
	for _, q := range []int{1, 0} {
		if pt.Queues[q].Len() > 0 {
			return q, 0
		}
	}
	return -1, 0
}

func TestHoldRelease(t *testing.T) {
	d := threePort(t, Config{})
	if err := d.Attach(&voq{}); err != nil {
		t.Fatal(err)
	}
	var times []int64
	d.OnOutput(func(o Out) { times = append(times, o.Time) })
	_ = d.Input(0, 0, frame(t, ipA, ipB, 10, 100))
	_ = d.Input(0, 0, frame(t, ipA, ipB, 0, 100))
	_ = d.Input(0, 10, frame(t, ipA, ipB, 10, 100))
	d.Flush()
	if len(times) != 3 || times[0] != 0 || times[1] != 1000 {
		t.Errorf("times %v, want [0 1000 ...]", times)
	}
}

func TestPicker(t *testing.T) {
	d := threePort(t, Config{})
	if err := d.Attach(lifo{}); err != nil {
		t.Fatal(err)
	}
	var dscps []uint8
	d.OnOutput(func(o Out) {
		var m Meta
		cp := Codepoints{}.WithDefaults()
		Parse(o.Frame, &m, &cp)
		dscps = append(dscps, m.DSCP)
	})
	// The first frame starts at once; then queue 1 (DSCP 8) goes before
	// the older frames of queue 0.
	for _, ds := range []uint8{0, 0, 0, 8, 8} {
		_ = d.Input(0, 0, frame(t, ipA, ipB, ds, 100))
	}
	d.Flush()
	want := []uint8{0, 8, 8, 0, 0}
	for i := range want {
		if dscps[i] != want[i] {
			t.Fatalf("order %v, want %v", dscps, want)
		}
	}
}

func TestHostOffer(t *testing.T) {
	n, err := NewNIC(Config{Name: "h", Ports: []PortConfig{{ID: 0, Speed: 100 * Gbps}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []Out
	n.OnOutput(func(o Out) { got = append(got, Out{Port: o.Port, Time: o.Time}) })
	f1 := frame(t, ipA, ipB, 0, 1078)
	f2, _ := BuildUDP(nil, UDPSpec{Src: ipA, Dst: ipC, SrcPort: 3, DstPort: 4, Len: 1078})
	// Two flows offered at once go round-robin: f1, f2, f1, f2.
	for i := 0; i < 2; i++ {
		_ = n.Input(HostPort, 0, f1)
		_ = n.Input(HostPort, 0, f2)
	}
	_ = n.Input(HostPort, 0, []byte{1, 2, 3}) // not IP: dropped
	// A frame arriving on the wire goes to the host at once.
	_ = n.Input(WirePort, 50, frame(t, ipB, ipA, 0, 200))
	n.Flush()
	want := []Out{{0, 0, nil, 0, false}, {1, 50, nil, 0, false}, {0, 89, nil, 0, false}, {0, 177, nil, 0, false}, {0, 265, nil, 0, false}}
	if len(got) != len(want) {
		t.Fatalf("outputs %v", got)
	}
	for i := range want {
		if got[i].Port != want[i].Port || got[i].Time != want[i].Time {
			t.Fatalf("outputs %v, want %v", got, want)
		}
	}
	fl := n.Flows()
	if len(fl) != 3 || fl[0].TxFrames != 2 || fl[1].TxFrames != 2 || fl[2].RxFrames != 1 {
		t.Errorf("flows %+v", n.Record().Flows)
	}
	if n.Record().Dropped("host frame not IP") != 1 {
		t.Error("bad host frame not counted")
	}
	if err := n.Input(5, n.Now(), f1); err == nil {
		t.Error("NIC port 5 accepted")
	}
}

// TestSteadyStateAllocs: forwarding allocates nothing per frame once the
// pools are warm, so memory follows queued frames, not frames processed.
func TestSteadyStateAllocs(t *testing.T) {
	d := threePort(t, Config{})
	f := frame(t, ipA, ipB, 0, 1078)
	var now int64
	step := func() {
		_ = d.Input(0, now, f)
		now += 100
	}
	for i := 0; i < 1000; i++ {
		step()
	}
	if a := testing.AllocsPerRun(10000, step); a != 0 {
		t.Errorf("%.2f allocations per frame", a)
	}
	_ = netip.Addr{}
}
