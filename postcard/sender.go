// SPDX-License-Identifier: Apache-2.0

package postcard

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/gopacket/gopacket"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

// lentry is one switch's L: its last c = num / den.
type lentry struct {
	id       [6]byte
	num, den int64
}

// sflow is a sender's PB-FS state for one flow.
type sflow struct {
	key       device.FlowKey
	size      int64 // octets, -1 unknown
	n         int64 // frames sent
	long      bool  // at least MaxRate × τ octets (or unknown): marked
	postcard  bool  // a postcard arrived: marking stops
	acked     bool  // the first rate-updating ACK arrived: postcards ignored
	rate      int64 // bit/s, 0 = MaxRate (not limited)
	nextFs    int64 // earliest start of the next frame, fs
	setter    [6]byte
	hasSetter bool
	l         []lentry
	slot      int
	gen       int64
}

// Sender is the PB-FS sender of behaviour.md §8 as a device.Scheme and
// device.FlowGate for a NIC. Flows start at line rate (fast start). A flow
// of at least MaxRate × τ octets (or of unknown size) has its packets Δ,
// 2Δ, 3Δ, … marked until its first postcard or first ACK. On a postcard
// before the flow's first rate-updating ACK it computes c (React), sets
// L[switch] = c and, when c > 1, adopts the rate MaxRate / c if the
// postcard comes from the switch that set the current rate or c exceeds
// that switch's L; the flow is then paced at that rate. After the first
// ACK, postcards are ignored and the rate stays.
//
// The device core has no transport: the first rate-updating ACK of a flow
// is taken to arrive AckAfter after its first frame left (Ack forces it).
// Flow sizes come from AddFlow or SetSize; other flows are of unknown size.
type Sender struct {
	device.NopScheme
	// P holds the parameters; Attach fills in the defaults.
	P SenderParams

	muPPM int64
	long  int64 // MaxRate × τ, octets
	flows map[device.FlowKey]*sflow
	slots []*sflow
	free  []int
	sizes map[device.FlowKey]int64
	rx    layers.Postcard
	spare []*sflow

	// Counters.
	Marked      int64 // packets marked
	Postcards   int64 // postcards acted on
	Ignored     int64 // postcards ignored (after the ACK, or for no flow)
	RateChanges int64 // rates adopted
}

// NewSender returns a PB-FS sender scheme with parameters p.
func NewSender(p SenderParams) *Sender { return &Sender{P: p} }

// Attach validates the parameters (the defaults of MaxRate and I_min come
// from the NIC's wire port).
func (s *Sender) Attach(d *device.Device) error {
	if d.Role() != device.RoleNIC {
		return &device.ParamError{Scope: "pbfs", Name: "sender", Value: d.Role().String(), Allowed: "a NIC device"}
	}
	if err := s.P.resolve(d); err != nil {
		return err
	}
	s.muPPM = int64(math.Round(s.P.Mu * 1e6))
	s.long = device.MulDiv(s.P.MaxRate, s.P.Tau, 8*device.Second)
	s.flows = map[device.FlowKey]*sflow{}
	if s.sizes == nil {
		s.sizes = map[device.FlowKey]int64{}
	}
	return nil
}

// AddFlow is device.Device.AddFlow that also records the flow's size
// (Count × the template length) for the marking rule.
func (s *Sender) AddFlow(d *device.Device, spec device.FlowSpec) (*device.Flow, error) {
	f, err := d.AddFlow(spec)
	if err != nil {
		return nil, err
	}
	size := int64(-1)
	if spec.Count > 0 {
		size = spec.Count * int64(len(spec.Template))
	}
	s.SetSize(f.Key, size)
	return f, nil
}

// SetSize declares the size of a flow in octets (-1: unknown), before its
// first frame leaves.
func (s *Sender) SetSize(k device.FlowKey, octets int64) {
	if s.sizes == nil {
		s.sizes = map[device.FlowKey]int64{}
	}
	s.sizes[k] = octets
}

// Rate returns the rate PB-FS set for a flow in bit/s, 0 when it sends at
// line rate.
func (s *Sender) Rate(k device.FlowKey) int64 {
	if st := s.flows[k]; st != nil {
		return st.rate
	}
	return 0
}

// L returns the L the flow keeps for a switch, as c = num / den (0, 0 when
// none).
func (s *Sender) L(k device.FlowKey, id device.MAC) (num, den int64) {
	if st := s.flows[k]; st != nil {
		for _, e := range st.l {
			if e.id == id {
				return e.num, e.den
			}
		}
	}
	return 0, 0
}

// Flows returns how many flows the sender keeps state for.
func (s *Sender) Flows() int { return len(s.flows) }

// Ack makes the first rate-updating ACK of a flow arrive now.
func (s *Sender) Ack(k device.FlowKey) {
	if st := s.flows[k]; st != nil {
		st.acked = true
	}
}

func (s *Sender) state(d *device.Device, f *device.Flow) *sflow {
	if st := s.flows[f.Key]; st != nil {
		return st
	}
	var st *sflow
	if n := len(s.spare); n > 0 {
		st = s.spare[n-1]
		s.spare = s.spare[:n-1]
		l := st.l[:0]
		*st = sflow{l: l}
	} else {
		st = &sflow{}
	}
	st.key = f.Key
	st.size = -1
	if v, ok := s.sizes[f.Key]; ok {
		st.size = v
		delete(s.sizes, f.Key)
	}
	st.long = st.size < 0 || st.size >= s.long
	if n := len(s.free); n > 0 {
		st.slot = s.free[n-1]
		s.free = s.free[:n-1]
		s.slots[st.slot] = st
	} else {
		st.slot = len(s.slots)
		s.slots = append(s.slots, st)
	}
	st.gen++
	s.flows[f.Key] = st
	if !s.P.NoAck {
		d.After(s.P.AckAfter, s, st.slot, st.gen)
	}
	return st
}

func (s *Sender) forget(st *sflow) {
	delete(s.flows, st.key)
	s.slots[st.slot] = nil
	s.free = append(s.free, st.slot)
	st.gen++
	s.spare = append(s.spare, st)
}

// OnTimer delivers a flow's first rate-updating ACK.
func (s *Sender) OnTimer(d *device.Device, id int, gen int64) {
	if id < 0 || id >= len(s.slots) {
		return
	}
	st := s.slots[id]
	if st == nil || st.gen != gen {
		return
	}
	st.acked = true
	if f := d.Flow(st.key, false); f == nil || !f.Backlog() {
		s.forget(st)
	}
}

// OnDequeue marks every Δ-th frame of a long flow until its first postcard
// or ACK (clearing the mark on the others), and paces a flow whose rate
// PB-FS lowered.
func (s *Sender) OnDequeue(d *device.Device, p *device.Packet) {
	if p.Flow == nil {
		return
	}
	st := s.state(d, p.Flow)
	st.n++
	mark := st.long && !st.postcard && !st.acked && st.n%int64(s.P.Delta) == 0
	if setMark(p.Data, &p.Meta, s.P.MarkMask, mark) && mark {
		s.Marked++
	}
	if st.rate > 0 {
		// A frame that started in the nanosecond its pacing allowed keeps
		// the femtosecond schedule, so the rate has no rounding drift.
		start := p.TxStart * 1_000_000
		if st.nextFs > 0 && p.TxStart == (st.nextFs+999_999)/1_000_000 {
			start = st.nextFs
		}
		st.nextFs = start + paceFs(len(p.Data), st.rate)
	}
}

// OnDepart forgets a flow that has nothing left to send once its ACK came.
func (s *Sender) OnDepart(d *device.Device, p *device.Packet) {
	if p.Flow == nil {
		return
	}
	if st := s.flows[p.Flow.Key]; st != nil && st.acked && !p.Flow.Backlog() {
		s.forget(st)
	}
}

// paceFs returns the gap in fs between frame starts at rate bit/s.
func paceFs(n int, rate int64) int64 {
	hi, lo := bits.Mul64(uint64(device.WireBits(n)), 1_000_000_000_000_000)
	if hi >= uint64(rate) {
		return math.MaxInt64 / 2
	}
	q, r := bits.Div64(hi, lo, uint64(rate))
	if r != 0 {
		q++
	}
	return int64(min(q, math.MaxInt64/2))
}

// FlowBlockedUntil paces a flow at its PB-FS rate.
func (s *Sender) FlowBlockedUntil(d *device.Device, f *device.Flow) int64 {
	st := s.flows[f.Key]
	if st == nil || st.rate == 0 {
		return 0
	}
	u := (st.nextFs + 999_999) / 1_000_000
	if u > d.Now() {
		return u
	}
	return 0
}

// setMark sets or clears the mark bits in the IPv4 TOS (fixing the header
// checksum) or IPv6 traffic class; it reports whether the frame is IP.
func setMark(b []byte, m *device.Meta, mask uint8, on bool) bool {
	o := m.L3
	switch m.IPVersion {
	case 4:
		if o+20 > len(b) {
			return false
		}
		old := binary.BigEndian.Uint16(b[o:])
		if on {
			b[o+1] |= mask
		} else {
			b[o+1] &^= mask
		}
		nw := binary.BigEndian.Uint16(b[o:])
		if nw != old {
			// RFC 1624: HC' = ~(~HC + ~m + m').
			sum := uint32(^binary.BigEndian.Uint16(b[o+10:])) + uint32(^old) + uint32(nw)
			for sum>>16 != 0 {
				sum = sum&0xffff + sum>>16
			}
			binary.BigEndian.PutUint16(b[o+10:], ^uint16(sum))
		}
		return true
	case 6:
		if o+2 > len(b) {
			return false
		}
		tc := b[o]<<4 | b[o+1]>>4
		if on {
			tc |= mask
		} else {
			tc &^= mask
		}
		b[o] = b[o]&0xf0 | tc>>4
		b[o+1] = b[o+1]&0x0f | tc<<4
		return true
	}
	return false
}

// OnControl acts on a CC-postcard for one of the NIC's flows and consumes
// it; malformed ones are dropped as "postcard malformed".
func (s *Sender) OnControl(d *device.Device, p *device.Packet) device.Verdict {
	if p.Meta.Kind != device.KindPostcard || p.Meta.Payload == 0 {
		return device.Pass
	}
	end := len(p.Data)
	if e := p.Meta.L3 + p.Meta.IPLen; e >= p.Meta.Payload && e < end {
		end = e
	}
	if err := s.rx.DecodeFromBytes(p.Data[p.Meta.Payload:end], gopacket.NilDecodeFeedback); err != nil || len(s.rx.SwitchID) != 6 {
		p.DropReason = "postcard malformed"
		return device.Drop
	}
	q := s.rx.Flow
	k := device.FlowKey{Src: q.Src, Dst: q.Dst, Proto: q.Proto, SrcPort: q.SrcPort, DstPort: q.DstPort, QP: q.QP, HasQP: q.HasQP}
	st := s.flows[k]
	if st == nil || st.acked {
		s.Ignored++
		d.Free(p)
		return device.Take
	}
	s.Postcards++
	st.postcard = true
	r := React(Assessment{RateMbps: int64(s.rx.RateMbps), WindowNS: int64(s.rx.WindowNS), IP: int64(s.rx.IPBytes),
		Q1: int64(s.rx.Q1Bytes), Recent: int64(s.rx.RecentBytes), RecentMarked: int64(s.rx.RecentMarkedBytes)},
		s.P.Delta, s.muPPM, s.P.IMin, s.P.MaxRate)
	id := [6]byte(s.rx.SwitchID)
	// The setter's L before this postcard updates L[switch].
	var setNum, setDen int64
	if st.hasSetter {
		for _, e := range st.l {
			if e.id == st.setter {
				setNum, setDen = e.num, e.den
			}
		}
	}
	found := false
	for i := range st.l {
		if st.l[i].id == id {
			st.l[i].num, st.l[i].den = r.CNum, r.CDen
			found = true
		}
	}
	if !found {
		st.l = append(st.l, lentry{id: id, num: r.CNum, den: r.CDen})
	}
	if r.Rate > 0 {
		adopt := !st.hasSetter || st.setter == id || setDen == 0 || greater(r.CNum, r.CDen, setNum, setDen)
		if adopt {
			st.rate, st.setter, st.hasSetter = r.Rate, id, true
			s.RateChanges++
			d.Kick(device.WirePort)
		}
	}
	d.Free(p)
	return device.Take
}
