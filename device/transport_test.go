// SPDX-License-Identifier: Apache-2.0

package device

import (
	"errors"
	"testing"
)

// pinger posts one frame at a time from OnDequeue (as a transport does),
// and its peer acknowledges each data frame from OnReceive with Send.
type pinger struct {
	NopScheme
	data, ack []byte
	left      int
	acks      int
	delivered int
}

func (s *pinger) OnDequeue(d *Device, p *Packet) {
	if p.Flow == nil || p.Generated {
		return
	}
	if s.left > 0 {
		s.left--
		if _, err := d.Offer(s.data); err != nil {
			panic(err)
		}
	}
}

func (s *pinger) OnReceive(d *Device, p *Packet) Verdict {
	if p.Meta.DSCP == 46 { // an ACK: consume it
		s.acks++
		d.Free(p)
		return Take
	}
	s.delivered++
	_ = d.Send(WirePort, s.ack)
	return Pass
}

func TestOfferAndReceiveHooks(t *testing.T) {
	sim := NewSim()
	a, _ := NewNIC(Config{Name: "a", Sim: sim, Ports: []PortConfig{{ID: 0, Speed: 100 * Gbps}}})
	b, _ := NewNIC(Config{Name: "b", Sim: sim, Ports: []PortConfig{{ID: 0, Speed: 100 * Gbps}}})
	if err := Connect(a, WirePort, b, WirePort, 1000); err != nil {
		t.Fatal(err)
	}
	ack, _ := BuildUDP(nil, UDPSpec{Src: ipB, Dst: ipA, DSCP: 46, SrcPort: 1, DstPort: 2, Len: 64})
	sa := &pinger{data: frame(t, ipA, ipB, 0, 1078), left: 9}
	sb := &pinger{ack: ack}
	if err := a.Attach(sa); err != nil {
		t.Fatal(err)
	}
	if err := b.Attach(sb); err != nil {
		t.Fatal(err)
	}
	var host []int64
	b.OnOutput(func(o Out) {
		if o.Port == HostPort {
			host = append(host, o.Time)
		}
	})
	if _, err := a.Offer(sa.data); err != nil {
		t.Fatal(err)
	}
	sim.Run()
	// Ten frames back to back at line rate (88.16 ns each), each delivered
	// to b's host 1 µs after it left, and each acknowledged.
	if sb.delivered != 10 || sa.acks != 10 || len(host) != 10 {
		t.Fatalf("delivered %d, acks %d, host %d", sb.delivered, sa.acks, len(host))
	}
	if host[0] != 1000 || host[9] != 1000+794 {
		t.Errorf("delivery times %v", host)
	}
	if a.Flows()[0].TxFrames != 10 {
		t.Errorf("a sent %d frames", a.Flows()[0].TxFrames)
	}
	if _, err := threePort(t, Config{}).Offer(sa.data); !errors.Is(err, ErrRole) {
		t.Errorf("switch Offer: %v", err)
	}
	if f, err := a.Offer([]byte{1, 2, 3}); f != nil || err != nil {
		t.Errorf("non-IP offer: %v %v", f, err)
	}
}

func TestForgetFlow(t *testing.T) {
	n, _ := NewNIC(Config{Name: "h", Ports: []PortConfig{{ID: 0, Speed: 100 * Gbps}}})
	var keys []FlowKey
	for i := 0; i < 200; i++ {
		b, _ := BuildUDP(nil, UDPSpec{Src: ipA, Dst: ipB, SrcPort: uint16(i + 1), DstPort: 4791, Len: 100})
		f, err := n.Offer(b)
		if err != nil || f == nil {
			t.Fatal(err)
		}
		keys = append(keys, f.Key)
	}
	if n.ForgetFlow(keys[199]) {
		t.Error("forgot a flow with a frame still to send")
	}
	n.Flush()
	for i, k := range keys {
		if i%3 != 0 && !n.ForgetFlow(k) {
			t.Fatalf("flow %d not forgotten", i)
		}
	}
	if n.ForgetFlow(keys[1]) {
		t.Error("forgot a flow twice")
	}
	fl := n.Flows()
	if len(fl) != 67 || fl[1].Key != keys[3] {
		t.Fatalf("%d flows left, second %v", len(fl), fl[1].Key)
	}
	for i, k := range keys {
		if f := n.Flow(k, false); (f == nil) != (i%3 != 0) {
			t.Fatalf("flow %d after forgetting: %v", i, f)
		}
	}
	// Forgetting after a compaction keeps the order of the rest.
	if !n.ForgetFlow(keys[3]) || n.Flows()[1].Key != keys[6] {
		t.Error("order after compaction")
	}
}
