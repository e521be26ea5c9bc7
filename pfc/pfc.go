// SPDX-License-Identifier: Apache-2.0

package pfc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/gopacket/gopacket"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

// MaxQuanta is the largest pause time a PAUSE or PFC frame carries.
const MaxQuanta = 0xFFFF

// BitsPerQuantum is the length of one pause quantum in bit times.
const BitsPerQuantum = 512

// MACControlDst is the destination of PAUSE and PFC frames.
var MACControlDst = device.MAC{0x01, 0x80, 0xC2, 0x00, 0x00, 0x01}

// ErrNotPause is returned by Decode for a frame that is neither a PAUSE
// nor a PFC frame.
var ErrNotPause = errors.New("not a PAUSE or PFC frame")

// QuantaToNs returns how long q quanta last on a link of bps bit/s, in ns
// rounded up: q × 512 / bps (0xFFFF quanta at 100 Gb/s: 335,539.2 ns, so
// 335,540). Nothing paused for q quanta may start before now plus this.
func QuantaToNs(q uint16, bps int64) int64 {
	if bps <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(q)*BitsPerQuantum, uint64(device.Second))
	v, r := bits.Div64(hi, lo, uint64(bps))
	if r != 0 {
		v++
	}
	return int64(v)
}

// NsToQuanta returns the quanta covering ns on a link of bps bit/s:
// ceil(ns × bps / 512 / 10^9), clamped to 0..65535 (SFC-P, behaviour.md §3).
func NsToQuanta(ns int64, bps int64) uint16 {
	if ns <= 0 || bps <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(ns), uint64(bps))
	d := uint64(BitsPerQuantum) * uint64(device.Second)
	if hi >= d {
		return MaxQuanta
	}
	v, r := bits.Div64(hi, lo, d)
	if r != 0 {
		v++
	}
	if v > MaxQuanta {
		return MaxQuanta
	}
	return uint16(v)
}

// AppendFrame appends a 60-octet PFC frame from src to 01:80:C2:00:00:01
// with the class-enable vector enable and times (quanta, priority 0 first).
func AppendFrame(dst []byte, src device.MAC, enable uint8, times [8]uint16) []byte {
	b := appendHeader(dst, src, device.OpcodePFC)
	o := len(dst) + 16
	b[o] = 0
	b[o+1] = enable
	for i, t := range times {
		binary.BigEndian.PutUint16(b[o+2+2*i:], t)
	}
	return b
}

// AppendPause appends a 60-octet 802.3x PAUSE frame from src.
func AppendPause(dst []byte, src device.MAC, quanta uint16) []byte {
	b := appendHeader(dst, src, device.OpcodePause)
	binary.BigEndian.PutUint16(b[len(dst)+16:], quanta)
	return b
}

func appendHeader(dst []byte, src device.MAC, opcode uint16) []byte {
	start := len(dst)
	dst = append(dst, make([]byte, 60)...)
	b := dst[start:]
	copy(b[0:6], MACControlDst[:])
	copy(b[6:12], src[:])
	binary.BigEndian.PutUint16(b[12:], device.EtherTypeMACControl)
	binary.BigEndian.PutUint16(b[14:], opcode)
	return dst
}

// Decode returns the priorities a PAUSE or PFC frame enables and their
// times in quanta; a PAUSE enables all eight with its one time. It decodes
// the MAC control body with the layers package.
func Decode(frame []byte) (enable uint8, times [8]uint16, err error) {
	var m device.Meta
	cp := device.Codepoints{}
	device.Parse(frame, &m, &cp)
	switch m.Kind {
	case device.KindPFC:
		var l layers.PFC
		if err := l.DecodeFromBytes(frame[m.L3:], gopacket.NilDecodeFeedback); err != nil {
			return 0, times, err
		}
		return uint8(l.EnableVector), l.Times, nil
	case device.KindPause:
		var l layers.Pause
		if err := l.DecodeFromBytes(frame[m.L3:], gopacket.NilDecodeFeedback); err != nil {
			return 0, times, err
		}
		for i := range times {
			times[i] = l.Quanta
		}
		return 0xff, times, nil
	}
	return 0, times, ErrNotPause
}

// Receiver is the PFC and PAUSE receiver of behaviour.md §4 for a switch
// egress or a NIC: a frame received on a port with priority p enabled sets
// paused_until[p] = now + time[p] × 512 / link_bps on that port (time 0
// clears it now); a PAUSE does it for all eight priorities. A frame in
// transmission finishes; nothing new of a paused priority starts. The
// receiver consumes the frame. Malformed ones are dropped ("pfc malformed").
type Receiver struct {
	device.NopScheme
	// Received counts PFC and PAUSE frames applied.
	Received int64
}

// OnControl applies PAUSE and PFC frames.
func (r *Receiver) OnControl(d *device.Device, p *device.Packet) device.Verdict {
	if p.Meta.Kind != device.KindPFC && p.Meta.Kind != device.KindPause {
		return device.Pass
	}
	en, times, err := Decode(p.Data)
	if err != nil {
		p.DropReason = "pfc malformed"
		return device.Drop
	}
	r.Received++
	pt := d.Port(p.InPort)
	now := d.Now()
	for c := 0; c < 8; c++ {
		if en&(1<<c) == 0 {
			continue
		}
		d.PauseClass(pt.ID, c, now+QuantaToNs(times[c], pt.Speed), p.Meta.Kind.String())
	}
	d.Free(p)
	return device.Take
}

// Params configures a PFC switch (behaviour.md §4). Zero values take the
// defaults.
type Params struct {
	// XOFF is the static threshold in octets per (ingress port, priority);
	// default 1 × BDP of the ingress port (BaseRTT × speed). Ignored when
	// Dynamic is set.
	XOFF int64
	// Dynamic makes XOFF = AlphaPFC × free shared buffer; the device needs
	// a buffer size.
	Dynamic  bool
	AlphaPFC float64 // default 1/8
	// XON is the resume threshold; default XOFF − 2 × MTU (at least 0).
	// With Dynamic, XON is that far below the XOFF in force.
	XON int64
	MTU int64 // default 1500 octets
	// Quanta is the pause time of an XOFF frame; default 0xFFFF.
	Quanta uint16
	// Refresh is the XOFF refresh period; default half the pause duration
	// at the ingress port's speed.
	Refresh int64
	// Headroom is how many octets a (port, priority) may still accept after
	// its XOFF; default 3 × BDP of the port.
	Headroom int64
	// BaseRTT is the RTT the BDP is counted over; default 10 µs.
	BaseRTT int64
	// Priorities is the set of lossless priorities (bit p = priority p);
	// default every priority except the device's control class.
	Priorities uint8
}

type state struct {
	count, hr int64
	xoff      bool
	gen       int64
}

// Switch is the PFC switch of behaviour.md §4: per (ingress port,
// priority) it counts the octets that arrived there and are still
// buffered, sends XOFF above the threshold, refreshes it while the count
// stays above XON, sends XON once at or below XON, and accepts at most
// Headroom octets after an XOFF (beyond that frames are dropped as "pfc
// headroom"). Attach a Receiver too so the switch obeys the pauses it gets.
type Switch struct {
	device.NopScheme
	P  Params
	st [][8]state
	// per-port resolved parameters
	xoff, xon, headroom, refresh []int64
	// Sent counts XOFF (including refreshes) and XON frames.
	XOFFSent, XONSent int64
	flt               *ConfigFault
}

// NewSwitch returns a PFC switch scheme with parameters p.
func NewSwitch(p Params) *Switch { return &Switch{P: p} }

// Attach validates the parameters and resolves the defaults per port.
func (s *Switch) Attach(d *device.Device) error {
	if d.Role() != device.RoleSwitch {
		return &device.ParamError{Scope: "pfc", Name: "switch", Value: d.Role().String(), Allowed: "a switch device"}
	}
	p := &s.P
	if p.BaseRTT == 0 {
		p.BaseRTT = 10 * device.Microsecond
	}
	if p.MTU == 0 {
		p.MTU = 1500
	}
	if p.Quanta == 0 {
		p.Quanta = MaxQuanta
	}
	if p.AlphaPFC == 0 {
		p.AlphaPFC = 0.125
	}
	if p.Priorities == 0 {
		p.Priorities = 0xff &^ (1 << d.ControlClass())
	}
	for _, e := range []error{
		device.CheckRange("pfc", "base_rtt", p.BaseRTT, 100, device.Second, " ns"),
		device.CheckRange("pfc", "mtu", p.MTU, 64, 65535, " octets"),
		device.CheckRange("pfc", "xoff", p.XOFF, 0, 1<<40, " octets"),
		device.CheckRange("pfc", "xon", p.XON, 0, 1<<40, " octets"),
		device.CheckRange("pfc", "headroom", p.Headroom, 0, 1<<40, " octets"),
		device.CheckRange("pfc", "refresh", p.Refresh, 0, device.Second, " ns"),
	} {
		if e != nil {
			return e
		}
	}
	if p.Dynamic {
		if d.BufferSize() == 0 {
			return &device.ParamError{Scope: "pfc", Name: "dynamic", Value: "true", Allowed: "only with a shared buffer size"}
		}
		if p.AlphaPFC < 1.0/1024 || p.AlphaPFC > 64 || math.IsNaN(p.AlphaPFC) {
			return &device.ParamError{Scope: "pfc", Name: "alpha_pfc", Value: fmt.Sprint(p.AlphaPFC), Allowed: "1/1024..64"}
		}
	}
	n := len(d.Ports())
	s.st = make([][8]state, n)
	s.xoff, s.xon, s.headroom, s.refresh = make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	for i, pt := range d.Ports() {
		bdp := p.BaseRTT * pt.Speed / 8 / device.Second
		s.xoff[i] = p.XOFF
		if s.xoff[i] == 0 {
			s.xoff[i] = bdp
		}
		s.xon[i] = p.XON
		if p.XON == 0 {
			s.xon[i] = max(0, s.xoff[i]-2*p.MTU)
		}
		if !p.Dynamic && s.xon[i] > s.xoff[i] {
			return &device.ParamError{Scope: "pfc", Name: "xon", Value: fmt.Sprint(s.xon[i]), Allowed: fmt.Sprintf("0..xoff (%d) octets", s.xoff[i])}
		}
		s.headroom[i] = p.Headroom
		if s.headroom[i] == 0 {
			s.headroom[i] = 3 * bdp
		}
		s.refresh[i] = p.Refresh
		if s.refresh[i] == 0 {
			s.refresh[i] = max(1, QuantaToNs(p.Quanta, pt.Speed)/2)
		}
	}
	return nil
}

func (s *Switch) lossless(d *device.Device, p *device.Packet) bool {
	return p.InPort >= 0 && !p.Generated && s.P.Priorities&(1<<(p.Class&7)) != 0 && d.Port(p.InPort) != nil
}

// thresholds returns XOFF and XON in force for port index i.
func (s *Switch) thresholds(d *device.Device, i int) (int64, int64) {
	if !s.P.Dynamic {
		return s.xoff[i], s.xon[i]
	}
	x := int64(s.P.AlphaPFC * float64(d.BufferSize()-d.BufferUsed()))
	gap := s.xoff[i] - s.xon[i]
	if s.P.XON != 0 {
		gap = 2 * s.P.MTU
	}
	return x, max(0, x-gap)
}

// OnIngress marks a frame of a lossless priority (device.Packet.Lossless:
// the egress dynamic threshold does not apply to it) and admits it into
// the headroom of its (ingress port, priority) when it arrives after XOFF
// or when the shared buffer cannot take it; when that headroom is full it
// drops the frame ("pfc headroom") and records the configuration fault
// (Fault).
func (s *Switch) OnIngress(d *device.Device, p *device.Packet) device.Verdict {
	if !s.lossless(d, p) {
		return device.Pass
	}
	p.Lossless = true
	i := d.Port(p.InPort).Index()
	c := int(p.Class & 7)
	st := &s.st[i][c]
	n := int64(len(p.Data))
	full := d.BufferSize() > 0 && d.BufferUsed()+n > d.BufferSize()
	if st.xoff || full {
		if st.hr+n > s.headroom[i] {
			s.fault(d, p.InPort, c, s.headroom[i], n)
			p.DropReason = "pfc headroom"
			return device.Drop
		}
		p.Headroom, p.Reserved = true, true
	}
	return device.Pass
}

func (s *Switch) fault(d *device.Device, port, prio int, headroom, n int64) {
	if s.flt == nil {
		s.flt = &ConfigFault{Port: port, Priority: prio, Time: d.Now(), Headroom: headroom}
	}
	s.flt.Frames++
	s.flt.Octets += n
}

// Fault returns the configuration fault of the run so far: nil while no
// lossless frame was dropped. Behaviour.md §4: a lossless frame is only
// ever dropped when its headroom is exhausted, and a run where that
// happens is misconfigured (headroom too small), never a silent loss.
func (s *Switch) Fault() *ConfigFault { return s.flt }

// ConfigFault is the configuration fault of behaviour.md §4: lossless
// frames were dropped because the headroom of an (ingress port,
// priority) was exhausted. Port, Priority, Time and Headroom describe the
// first drop; Frames and Octets count them all.
type ConfigFault struct {
	Port, Priority int
	Time           int64 // ns
	Headroom       int64 // octets
	Frames, Octets int64
}

// Error names the fault, where it first happened and the remedy.
func (f *ConfigFault) Error() string {
	return fmt.Sprintf("configuration fault: %d lossless frame(s) (%d octets) dropped, the first at %d ns on ingress port %d priority %d, whose headroom of %d octets was exhausted: "+
		"lossless frames may only be lost when the headroom is too small for the link (behaviour.md §4); raise headroom",
		f.Frames, f.Octets, f.Time, f.Port, f.Priority, f.Headroom)
}

// OnEnqueue counts the frame and sends XOFF when the count exceeds XOFF.
func (s *Switch) OnEnqueue(d *device.Device, p *device.Packet) device.Verdict {
	if !s.lossless(d, p) {
		return device.Pass
	}
	i := d.Port(p.InPort).Index()
	c := int(p.Class & 7)
	st := &s.st[i][c]
	n := int64(len(p.Data))
	st.count += n
	if p.Headroom {
		st.hr += n
	}
	xoff, _ := s.thresholds(d, i)
	// A frame in headroom before XOFF found the shared buffer full: the
	// sender must stop now, whatever the count.
	if !st.xoff && (st.count > xoff || p.Headroom) {
		st.xoff = true
		st.gen++
		s.send(d, i, c, s.P.Quanta)
		// A background timer: refreshes go on while anything else keeps
		// the device busy (frames draining toward XON), but frames another
		// scheme holds for ever (a BFC pause, a Floodgate VOQ) must not
		// keep Device.Flush running for ever.
		d.AfterBackground(s.refresh[i], s, i*8+c, st.gen)
	}
	return device.Pass
}

// OnDepart uncounts the frame and sends XON at or below XON.
func (s *Switch) OnDepart(d *device.Device, p *device.Packet) {
	if !s.lossless(d, p) {
		return
	}
	i := d.Port(p.InPort).Index()
	c := int(p.Class & 7)
	st := &s.st[i][c]
	n := int64(len(p.Data))
	st.count -= n
	if p.Headroom {
		st.hr -= n
	}
	_, xon := s.thresholds(d, i)
	if st.xoff && st.count <= xon {
		st.xoff = false
		st.gen++
		s.send(d, i, c, 0)
	}
}

// OnTimer refreshes an XOFF that is still in force.
func (s *Switch) OnTimer(d *device.Device, id int, gen int64) {
	i, c := id/8, id%8
	st := &s.st[i][c]
	if !st.xoff || st.gen != gen {
		return
	}
	s.send(d, i, c, s.P.Quanta)
	d.AfterBackground(s.refresh[i], s, id, gen)
}

func (s *Switch) send(d *device.Device, i, c int, quanta uint16) {
	pt := d.Ports()[i]
	var times [8]uint16
	times[c] = quanta
	var buf [60]byte
	f := AppendFrame(buf[:0], pt.MAC, 1<<c, times)
	if quanta == 0 {
		s.XONSent++
	} else {
		s.XOFFSent++
	}
	_ = d.Send(pt.ID, f)
}

// Count returns the octets counted for (ingress port, priority) now.
func (s *Switch) Count(d *device.Device, port, prio int) int64 {
	pt := d.Port(port)
	if pt == nil || prio < 0 || prio > 7 {
		return 0
	}
	return s.st[pt.Index()][prio].count
}

// XOFF reports whether (ingress port, priority) is in the XOFF state.
func (s *Switch) XOFF(d *device.Device, port, prio int) bool {
	pt := d.Port(port)
	if pt == nil || prio < 0 || prio > 7 {
		return false
	}
	return s.st[pt.Index()][prio].xoff
}
