// SPDX-License-Identifier: Apache-2.0

package device

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"net/netip"
	"slices"
	"strconv"
)

// Sentinel errors of the device API.
var (
	// ErrPort: a port id the device does not have.
	ErrPort = errors.New("no such port")
	// ErrTimeOrder: an input timestamp before the device's clock.
	ErrTimeOrder = errors.New("input timestamp before current time")
	// ErrSim: devices to connect do not share one Sim.
	ErrSim = errors.New("devices do not share a Sim")
	// ErrRole: the call does not apply to this kind of device.
	ErrRole = errors.New("not supported by this device role")
)

// Role says whether a Device is a switch or a NIC.
type Role uint8

// The device roles.
const (
	RoleSwitch Role = iota
	RoleNIC
)

// String returns "switch" or "nic".
func (r Role) String() string {
	if r == RoleNIC {
		return "nic"
	}
	return "switch"
}

// NIC port ids: a NIC's wire side is port 0 and its host side port 1.
const (
	WirePort = 0
	HostPort = 1
)

// MAC is a MAC-48 address.
type MAC [6]byte

// String renders the address as six colon-separated hex octets.
func (m MAC) String() string {
	return fmt.Sprintf("%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5])
}

// PortConfig describes one port.
type PortConfig struct {
	ID           int            // 0..65534, unique within the device
	Speed        int64          // bit/s, 1 Mb/s .. 25.6 Tb/s
	ServerFacing bool           // the port leads to a host (SFC C flag, SFC-P)
	MAC          MAC            // this port's MAC; zero: derived from the device name and port id
	PeerMAC      MAC            // the neighbour's MAC, destination of frames the device generates
	Prefixes     []netip.Prefix // forwarding table entries (switch) or own addresses (NIC)
	Queues       int            // egress queues, default 8 (one per traffic class), at least 8
}

// Trace selects what a device records beyond its summary counters.
// Recording grows with the events traced, so it is off by default.
type Trace struct {
	Depth  bool // every change of queue depth, as (time, depth) samples
	Pauses bool // pause intervals (per port and class, per NIC flow)
	// OnDepth, when set, is called on every change of a queue's depth.
	OnDepth func(port, queue int, t, depth int64)
}

// Config builds a Device.
type Config struct {
	Name  string
	Ports []PortConfig
	// DSCPClass maps DSCP to traffic class; nil means DSCP >> 3.
	DSCPClass []uint8
	// ControlClass is the strict-priority class of generated signals;
	// default 6 (ControlClassDefault). Use a negative value for class 0.
	ControlClass int
	// Buffer is the shared buffer in octets; 0 means unlimited.
	Buffer int64
	// DynamicThreshold limits a queue to Alpha × free buffer.
	DynamicThreshold bool
	Alpha            float64 // default 1
	Codepoints       Codepoints
	Trace            Trace
	// Sim is the clock to share with other devices; nil makes a new one.
	Sim *Sim
}

// ControlClassDefault is the control class of behaviour.md §0.
const ControlClassDefault = 6

// Out is a frame a device sends: its egress port, the time its first bit
// leaves, and its bytes. Frame is only valid during the callback: copy it
// to keep it.
type Out struct {
	Port      int
	Time      int64
	Frame     []byte
	Kind      Kind
	Generated bool // made by the device (a signal), not forwarded
}

// Packet is a frame inside a device, with what the device and its schemes
// know about it.
type Packet struct {
	Data    []byte
	Meta    Meta
	InPort  int   // arrival port, -1 for generated frames
	Arrival int64 // ns
	OutPort int   // egress port id
	Class   uint8 // traffic class (PFC priority)
	Queue   int   // egress queue index at OutPort
	// Generated marks frames the device made; NoPause frames (MAC control)
	// ignore PFC pauses; Reserved frames are admitted outside the shared
	// buffer checks (control class, PFC headroom).
	Generated, NoPause, Reserved bool
	// Headroom marks a frame a PFC scheme admitted into headroom.
	Headroom bool
	// Lossless marks a frame of a PFC-enabled priority (set by a PFC
	// scheme in OnIngress): the egress dynamic threshold never drops it
	// (behaviour.md §4, "lossless means lossless"); only a PFC headroom
	// that is exhausted may.
	Lossless   bool
	Enqueued   int64 // ns
	NotBefore  int64 // ns, earliest start of transmission
	TxStart    int64 // ns, set when transmission starts
	DropReason string
	// Scheme-private slots.
	Tag  int64
	Flow *Flow // NIC: the flow the frame belongs to

	buf     []byte
	freed   bool
	counted bool
}

// Len returns the captured length of the frame.
func (p *Packet) Len() int { return len(p.Data) }

// Queue is one egress queue: a FIFO of frames and its depth.
type Queue struct {
	ring       []*Packet
	head, n    int
	Bytes      int64 // depth: octets enqueued and not yet fully transmitted
	Peak       int64
	PeakAt     int64
	EnqFrames  int64
	EnqBytes   int64
	DropFrames int64
	samples    []Sample
}

// Len returns the number of frames waiting (not counting one in
// transmission).
func (q *Queue) Len() int { return q.n }

// At returns the i-th waiting frame, 0 being the head.
func (q *Queue) At(i int) *Packet { return q.ring[(q.head+i)%len(q.ring)] }

// Head returns the head frame or nil.
func (q *Queue) Head() *Packet {
	if q.n == 0 {
		return nil
	}
	return q.ring[q.head]
}

func (q *Queue) push(p *Packet) {
	if q.n == len(q.ring) {
		nr := make([]*Packet, max(8, 2*len(q.ring)))
		for i := 0; i < q.n; i++ {
			nr[i] = q.ring[(q.head+i)%len(q.ring)]
		}
		q.ring, q.head = nr, 0
	}
	q.ring[(q.head+q.n)%len(q.ring)] = p
	q.n++
}

func (q *Queue) pop() *Packet {
	p := q.ring[q.head]
	q.ring[q.head] = nil
	q.head = (q.head + 1) % len(q.ring)
	q.n--
	return p
}

// Port is a device port and its egress state.
type Port struct {
	ID           int
	Speed        int64
	ServerFacing bool
	MAC          MAC
	PeerMAC      MAC
	Prefixes     []netip.Prefix
	Queues       []Queue

	idx         int
	endNs       int64 // end of the last transmission: endNs ns + endFrac fs
	endFrac     int64 // 0 ≤ endFrac < fsPerNs
	txing       *Packet
	pausedUntil [8]int64
	wakeAt      int64
	rr          int
	peer        *Device
	peerPort    int
	delay       int64

	RxFrames, RxBytes, TxFrames, TxBytes int64
}

// Index returns the port's position in the device's configuration, for
// schemes that keep per-port state in slices.
func (pt *Port) Index() int { return pt.idx }

// Delay returns the propagation delay in ns of the link Connect gave the
// port (0 when it is not connected), so a scheme can derive hop RTTs and
// BDPs from the topology.
func (pt *Port) Delay() int64 { return pt.delay }

// Busy reports whether a frame is being transmitted.
func (pt *Port) Busy() bool { return pt.txing != nil }

// PausedUntil returns the time until which class is paused on this port's
// egress (0 when never paused).
func (pt *Port) PausedUntil(class int) int64 { return pt.pausedUntil[class&7] }

type fibLevel struct {
	bits int
	m    map[netip.Prefix]int32
}

type dropKey struct {
	port   int
	reason string
}

type pauseKey struct {
	port  int
	class int
	flow  FlowKey
}

// Device is a reference switch or NIC. Build one with NewSwitch or NewNIC,
// attach schemes, set the output callback, then feed it frames in time
// order with Input and collect what it sends.
type Device struct {
	name    string
	role    Role
	sim     *Sim
	ports   []*Port
	byID    []int32
	fib     []fibLevel
	rcAddr  netip.Addr // one-entry route cache (IPv6)
	rcIdx   int
	rcOK    bool
	rc4     *[rcSize]rcEntry // direct-mapped IPv4 route cache, made on first use
	class   [64]uint8
	ctrl    uint8
	codes   Codepoints
	schemes []Scheme
	picker  Picker
	gates   []FlowGate
	recvs   []Receiver
	bufSize int64
	used    int64
	peak    int64
	dt      bool
	alpha   float64
	trace   Trace
	out     func(Out)

	drops     map[dropKey][2]int64
	dropOrder []dropKey
	signals   map[Kind]int64
	pauses    []PauseRecord
	pauseIdx  map[pauseKey]int
	nic       *nicState
}

// NewSwitch builds a switch from cfg.
func NewSwitch(cfg Config) (*Device, error) { return newDevice(cfg, RoleSwitch) }

func newDevice(cfg Config, role Role) (*Device, error) {
	d := &Device{name: cfg.Name, role: role, sim: cfg.Sim, trace: cfg.Trace, codes: cfg.Codepoints.WithDefaults(),
		drops: map[dropKey][2]int64{}, signals: map[Kind]int64{}, pauseIdx: map[pauseKey]int{}}
	if d.sim == nil {
		d.sim = NewSim()
	}
	if len(cfg.Ports) == 0 {
		return nil, &ParamError{Scope: "device", Name: "ports", Value: "none", Allowed: "at least one port"}
	}
	switch {
	case cfg.ControlClass == 0:
		d.ctrl = ControlClassDefault
	case cfg.ControlClass < 0:
		d.ctrl = 0
	case cfg.ControlClass > 7:
		return nil, CheckRange("device", "control_class", int64(cfg.ControlClass), 0, 7, "")
	default:
		d.ctrl = uint8(cfg.ControlClass)
	}
	if cfg.DSCPClass == nil {
		for i := range d.class {
			d.class[i] = uint8(i >> 3)
		}
	} else {
		if len(cfg.DSCPClass) != 64 {
			return nil, &ParamError{Scope: "device", Name: "dscp_class", Value: strconv.Itoa(len(cfg.DSCPClass)) + " entries", Allowed: "64 entries"}
		}
		for i, c := range cfg.DSCPClass {
			if c > 7 {
				return nil, CheckRange("device", fmt.Sprintf("dscp_class[%d]", i), int64(c), 0, 7, "")
			}
			d.class[i] = c
		}
	}
	if err := CheckRange("device", "buffer", cfg.Buffer, 0, 1<<48, " octets"); err != nil {
		return nil, err
	}
	d.bufSize, d.dt, d.alpha = cfg.Buffer, cfg.DynamicThreshold, cfg.Alpha
	if d.alpha == 0 {
		d.alpha = 1
	}
	if d.dt && (d.alpha < 1.0/64 || d.alpha > 64 || math.IsNaN(d.alpha)) {
		return nil, &ParamError{Scope: "device", Name: "alpha", Value: fmt.Sprint(d.alpha), Allowed: "1/64..64"}
	}
	if d.dt && d.bufSize == 0 {
		return nil, &ParamError{Scope: "device", Name: "buffer", Value: "0 (unlimited)", Allowed: "1.. octets when the dynamic threshold is on"}
	}
	h := fnv.New32a()
	h.Write([]byte(cfg.Name))
	hs := h.Sum32()
	levels := map[int]map[netip.Prefix]int32{}
	for i, pc := range cfg.Ports {
		if err := CheckRange("device", fmt.Sprintf("ports[%d].id", i), int64(pc.ID), 0, 65534, ""); err != nil {
			return nil, err
		}
		if err := CheckRange("device", fmt.Sprintf("port %d speed", pc.ID), pc.Speed, 1_000_000, 25_600_000_000_000, " bit/s"); err != nil {
			return nil, err
		}
		nq := pc.Queues
		if nq == 0 {
			nq = 8
		}
		if err := CheckRange("device", fmt.Sprintf("port %d queues", pc.ID), int64(nq), 8, 4096, ""); err != nil {
			return nil, err
		}
		if pc.ID < len(d.byID) && d.byID[pc.ID] >= 0 {
			return nil, &ParamError{Scope: "device", Name: "ports.id", Value: strconv.Itoa(pc.ID), Allowed: "unique ids"}
		}
		for len(d.byID) <= pc.ID {
			d.byID = append(d.byID, -1)
		}
		d.byID[pc.ID] = int32(i)
		pt := &Port{ID: pc.ID, Speed: pc.Speed, ServerFacing: pc.ServerFacing, MAC: pc.MAC, PeerMAC: pc.PeerMAC,
			Prefixes: slices.Clone(pc.Prefixes), Queues: make([]Queue, nq), idx: i}
		if pt.MAC == (MAC{}) {
			pt.MAC = MAC{0x02, byte(hs >> 16), byte(hs >> 8), byte(hs), byte(pc.ID >> 8), byte(pc.ID)}
		}
		d.ports = append(d.ports, pt)
		for _, pf := range pc.Prefixes {
			if !pf.IsValid() {
				return nil, &ParamError{Scope: "device", Name: fmt.Sprintf("port %d prefixes", pc.ID), Value: pf.String(), Allowed: "valid IP prefixes"}
			}
			pf = pf.Masked()
			l := pf.Bits()
			if pf.Addr().Is6() {
				l += 1000 // keep IPv6 levels apart from IPv4 ones
			}
			if levels[l] == nil {
				levels[l] = map[netip.Prefix]int32{}
			}
			if _, dup := levels[l][pf]; !dup {
				levels[l][pf] = int32(i)
			}
		}
	}
	for l, m := range levels {
		d.fib = append(d.fib, fibLevel{bits: l, m: m})
	}
	slices.SortFunc(d.fib, func(a, b fibLevel) int { return b.bits - a.bits })
	return d, nil
}

// Name returns the device's name.
func (d *Device) Name() string { return d.name }

// Role returns RoleSwitch or RoleNIC.
func (d *Device) Role() Role { return d.role }

// Sim returns the device's clock.
func (d *Device) Sim() *Sim { return d.sim }

// Now returns the current virtual time in ns.
func (d *Device) Now() int64 { return d.sim.now }

// ControlClass returns the strict-priority class of generated signals.
func (d *Device) ControlClass() uint8 { return d.ctrl }

// Codepoints returns the UDP ports the device recognises signals by.
func (d *Device) Codepoints() Codepoints { return d.codes }

// ClassOf returns the traffic class of a DSCP.
func (d *Device) ClassOf(dscp uint8) uint8 { return d.class[dscp&63] }

// Ports returns the device's ports in configuration order.
func (d *Device) Ports() []*Port { return d.ports }

// Port returns the port with id, or nil.
func (d *Device) Port(id int) *Port {
	if id < 0 || id >= len(d.byID) || d.byID[id] < 0 {
		return nil
	}
	return d.ports[d.byID[id]]
}

// BufferSize returns the shared buffer size in octets (0: unlimited).
func (d *Device) BufferSize() int64 { return d.bufSize }

// BufferUsed returns the octets held in the shared buffer now.
func (d *Device) BufferUsed() int64 { return d.used }

// BufferPeak returns the most octets the shared buffer held at once.
func (d *Device) BufferPeak() int64 { return d.peak }

// Depth returns the depth in octets of egress queue q of port, or 0.
func (d *Device) Depth(port, q int) int64 {
	pt := d.Port(port)
	if pt == nil || q < 0 || q >= len(pt.Queues) {
		return 0
	}
	return pt.Queues[q].Bytes
}

// OnOutput sets the callback that receives every frame the device sends,
// in time order (frames sent at the same time in the order the device
// decided them). The callback must not call back into the device.
func (d *Device) OnOutput(f func(Out)) { d.out = f }

// AlsoOnOutput adds f to what every frame the device sends is given to,
// after the callbacks set before (OnOutput replaces them all).
func (d *Device) AlsoOnOutput(f func(Out)) {
	if prev := d.out; prev != nil {
		d.out = func(o Out) { prev(o); f(o) }
		return
	}
	d.out = f
}

// Attach plugs schemes into the device; hooks run in attach order.
func (d *Device) Attach(schemes ...Scheme) error {
	for _, s := range schemes {
		if err := s.Attach(d); err != nil {
			return err
		}
		d.schemes = append(d.schemes, s)
		if pk, ok := s.(Picker); ok && d.picker == nil {
			d.picker = pk
		}
		if g, ok := s.(FlowGate); ok {
			d.gates = append(d.gates, g)
		}
		if r, ok := s.(Receiver); ok {
			d.recvs = append(d.recvs, r)
		}
	}
	return nil
}

// Schemes returns the attached schemes.
func (d *Device) Schemes() []Scheme { return d.schemes }

// Route returns the port id the forwarding table gives for addr (longest
// prefix match), or -1.
func (d *Device) Route(addr netip.Addr) int {
	if i := d.route(addr); i >= 0 {
		return d.ports[i].ID
	}
	return -1
}

func (d *Device) route(addr netip.Addr) int {
	if addr.Is4() {
		// A switch in a fabric sees every host as a destination, frame
		// after frame: a longest-prefix match is a map probe per prefix
		// length, the cache one load. The table never changes after
		// newDevice.
		a4 := addr.As4()
		a := uint32(a4[0])<<24 | uint32(a4[1])<<16 | uint32(a4[2])<<8 | uint32(a4[3])
		if d.rc4 == nil {
			d.rc4 = new([rcSize]rcEntry)
		}
		e := &d.rc4[a*0x9E3779B1>>(32-rcBits)]
		if e.port != 0 && e.addr == a {
			return int(e.port) - 1
		}
		r := d.lookup(addr)
		*e = rcEntry{addr: a, port: int32(r) + 1}
		return r
	}
	if d.rcOK && addr == d.rcAddr {
		return d.rcIdx
	}
	r := d.lookup(addr)
	d.rcAddr, d.rcIdx, d.rcOK = addr, r, true
	return r
}

const (
	rcBits = 9
	rcSize = 1 << rcBits
)

// rcEntry is one slot of the IPv4 route cache: an address and its port
// index plus 1 (0: empty; a miss, -1, is stored as 0 and looked up again).
type rcEntry struct {
	addr uint32
	port int32
}

func (d *Device) lookup(addr netip.Addr) int {
	for i := range d.fib {
		l := &d.fib[i]
		bits := l.bits
		if bits >= 1000 {
			if !addr.Is6() {
				continue
			}
			bits -= 1000
		} else if !addr.Is4() {
			continue
		}
		pf, err := addr.Prefix(bits)
		if err != nil {
			continue
		}
		if pi, ok := l.m[pf]; ok {
			return int(pi)
		}
	}
	return -1
}

// Input feeds one frame that arrived on port at time t (ns, first bit).
// Inputs must come in time order across all ports of every device sharing
// the Sim; events due at or before t run first. The device copies frame.
// On a NIC, port HostPort offers the frame for transmission. Malformed
// frames are not an error: they are dropped and counted.
func (d *Device) Input(port int, t int64, frame []byte) error {
	if t < d.sim.now {
		return fmt.Errorf("%w: %d < %d", ErrTimeOrder, t, d.sim.now)
	}
	if d.role == RoleNIC && port == HostPort {
		d.sim.RunUntil(t)
		return d.offer(frame, t)
	}
	pt := d.Port(port)
	if pt == nil {
		return fmt.Errorf("%w: %d", ErrPort, port)
	}
	d.sim.RunUntil(t)
	d.receive(pt, d.sim.alloc(frame))
	return nil
}

// InputParsed is Input for a frame the caller has parsed already: m
// must be what Parse(frame, m, &cp) gives with cp = d.Codepoints(). The
// device takes m instead of parsing the frame again; on a NIC's host
// side (which parses as it offers) it is Input.
func (d *Device) InputParsed(port int, t int64, frame []byte, m *Meta) error {
	if d.role == RoleNIC && port == HostPort {
		return d.Input(port, t, frame)
	}
	if t < d.sim.now {
		return fmt.Errorf("%w: %d < %d", ErrTimeOrder, t, d.sim.now)
	}
	pt := d.Port(port)
	if pt == nil {
		return fmt.Errorf("%w: %d", ErrPort, port)
	}
	d.sim.RunUntil(t)
	p := d.sim.alloc(frame)
	p.Meta = *m
	d.received(pt, p)
	return nil
}

// AdvanceTo runs every event due at or before t and sets the clock to t.
func (d *Device) AdvanceTo(t int64) { d.sim.RunUntil(t) }

// Flush runs until nothing is queued, in flight or scheduled except
// background timers; the clock stops at the last event.
func (d *Device) Flush() { d.sim.Run() }

// Free returns a frame a scheme took to the device's buffer pool. It must
// not be in a queue.
func (d *Device) Free(p *Packet) {
	d.uncount(p)
	d.sim.release(p)
}

func (d *Device) drop(p *Packet, port int, reason string) {
	if reason == "" {
		reason = "scheme"
	}
	k := dropKey{port, reason}
	c, ok := d.drops[k]
	if !ok {
		d.dropOrder = append(d.dropOrder, k)
	}
	c[0]++
	c[1] += int64(len(p.Data))
	d.drops[k] = c
	if pt := d.Port(p.OutPort); pt != nil && p.Queue >= 0 && p.Queue < len(pt.Queues) && p.Meta.Kind != KindMalformed && p.InPort >= 0 {
		pt.Queues[p.Queue].DropFrames++
	}
	d.Free(p)
}

// DropFrame discards a frame a scheme took, counting it under reason.
func (d *Device) DropFrame(p *Packet, reason string) { d.drop(p, p.InPort, reason) }

func (d *Device) receive(pt *Port, p *Packet) {
	Parse(p.Data, &p.Meta, &d.codes)
	d.received(pt, p)
}

// received is receive for a frame parsed into p.Meta.
func (d *Device) received(pt *Port, p *Packet) {
	now := d.sim.now
	p.InPort, p.Arrival, p.OutPort, p.Queue = pt.ID, now, -1, -1
	pt.RxFrames++
	pt.RxBytes += int64(len(p.Data))
	if p.Meta.Kind == KindMalformed {
		d.drop(p, pt.ID, "malformed")
		return
	}
	if p.Meta.Kind.Signal() {
		for _, s := range d.schemes {
			switch s.OnControl(d, p) {
			case Take:
				return
			case Drop:
				d.drop(p, pt.ID, p.DropReason)
				return
			}
		}
	}
	if d.role == RoleNIC {
		d.nicReceive(pt, p)
		return
	}
	if !p.Meta.IP() {
		d.drop(p, pt.ID, "not routable")
		return
	}
	oi := d.route(p.Meta.Dst)
	if oi < 0 {
		d.drop(p, pt.ID, "no route")
		return
	}
	p.OutPort = d.ports[oi].ID
	p.Class = d.class[p.Meta.DSCP]
	p.Queue = int(p.Class)
	for _, s := range d.schemes {
		switch s.OnIngress(d, p) {
		case Take:
			return
		case Drop:
			d.drop(p, pt.ID, p.DropReason)
			return
		}
	}
	d.Release(p)
}

// Release puts a frame a scheme took (or that passed OnIngress) on the
// path to its egress queue: shared-buffer admission (skipped when
// p.Reserved), then the OnEnqueue hooks, then queue (OutPort, Queue).
// When a scheme drops the frame in OnEnqueue, the schemes whose OnEnqueue
// already ran see OnDepart for it, so their accounting stays balanced.
func (d *Device) Release(p *Packet) {
	pt := d.Port(p.OutPort)
	if pt == nil || p.Queue < 0 || p.Queue >= len(pt.Queues) {
		d.drop(p, p.InPort, "bad queue")
		return
	}
	if !d.admit(pt, p) {
		return
	}
	for i, s := range d.schemes {
		switch s.OnEnqueue(d, p) {
		case Take:
			return
		case Drop:
			for _, r := range d.schemes[:i] {
				r.OnDepart(d, p)
			}
			d.drop(p, p.InPort, p.DropReason)
			return
		}
	}
	d.push(pt, p)
}

// Enqueue admits a frame into egress queue (OutPort, Queue) without
// running hooks: shared-buffer checks apply unless p.Reserved.
func (d *Device) Enqueue(p *Packet) {
	pt := d.Port(p.OutPort)
	if pt == nil || p.Queue < 0 || p.Queue >= len(pt.Queues) {
		d.drop(p, p.InPort, "bad queue")
		return
	}
	if d.admit(pt, p) {
		d.push(pt, p)
	}
}

// admit applies the shared buffer and the dynamic threshold (to lossy
// frames only: p.Lossless frames are exempt), and counts the frame in the
// buffer.
func (d *Device) admit(pt *Port, p *Packet) bool {
	n := int64(len(p.Data))
	if !p.Reserved && !p.counted {
		q := &pt.Queues[p.Queue]
		if d.bufSize > 0 && d.used+n > d.bufSize {
			d.drop(p, p.InPort, "buffer full")
			return false
		}
		if d.dt && !p.Lossless && float64(q.Bytes+n) > d.alpha*float64(d.bufSize-d.used) {
			d.drop(p, p.InPort, "dynamic threshold")
			return false
		}
	}
	if !p.counted {
		p.counted = true
		d.used += n
		if d.used > d.peak {
			d.peak = d.used
		}
	}
	return true
}

func (d *Device) push(pt *Port, p *Packet) {
	q := &pt.Queues[p.Queue]
	n := int64(len(p.Data))
	now := d.sim.now
	p.Enqueued = now
	if p.NotBefore < now {
		p.NotBefore = now
	}
	q.push(p)
	q.EnqFrames++
	q.EnqBytes += n
	d.setDepth(pt, p.Queue, q.Bytes+n)
	d.kick(pt, false)
}

func (d *Device) uncount(p *Packet) {
	if p.counted {
		p.counted = false
		d.used -= int64(len(p.Data))
	}
}

func (d *Device) setDepth(pt *Port, qi int, v int64) {
	q := &pt.Queues[qi]
	q.Bytes = v
	now := d.sim.now
	if v > q.Peak {
		q.Peak, q.PeakAt = v, now
	}
	if d.trace.Depth {
		if n := len(q.samples); n > 0 && q.samples[n-1].T == now {
			q.samples[n-1].Bytes = v
		} else {
			q.samples = append(q.samples, Sample{T: now, Bytes: v})
		}
	}
	if d.trace.OnDepth != nil {
		d.trace.OnDepth(pt.ID, qi, now, v)
	}
}

// Kick asks a port to start a transmission if it is idle and something
// may be sent (after a scheme changed what its Picker would choose).
func (d *Device) Kick(port int) {
	if pt := d.Port(port); pt != nil {
		d.kick(pt, false)
	}
}

func (d *Device) kick(pt *Port, cont bool) {
	if pt.txing != nil {
		return
	}
	var p *Packet
	var wake int64
	if d.role == RoleNIC {
		p, wake = d.nicPick(pt)
	} else {
		p, wake = d.pick(pt)
	}
	if p == nil {
		now := d.sim.now
		if wake > now && (pt.wakeAt <= now || wake < pt.wakeAt) {
			pt.wakeAt = wake
			d.sim.push(event{t: wake, dev: d, kind: evWake, port: int32(pt.idx)})
		}
		return
	}
	d.startTx(pt, p, cont)
}

func (d *Device) eligible(pt *Port, p *Packet, now int64) (bool, int64) {
	if p.NoPause {
		return true, 0
	}
	if u := pt.pausedUntil[p.Class&7]; u > now {
		return false, u
	}
	return true, 0
}

func (d *Device) pick(pt *Port) (*Packet, int64) {
	now := d.sim.now
	if d.picker != nil {
		qi, wake := d.picker.Pick(d, pt)
		if qi < 0 || qi >= len(pt.Queues) || pt.Queues[qi].n == 0 {
			return nil, wake
		}
		return pt.Queues[qi].pop(), 0
	}
	var wake int64 = math.MaxInt64
	if q := &pt.Queues[d.ctrl]; q.n > 0 {
		ok, u := d.eligible(pt, q.Head(), now)
		if ok {
			return q.pop(), 0
		}
		wake = min(wake, u)
	}
	nq := len(pt.Queues)
	qi := pt.rr
	if qi >= nq {
		qi = 0 // (pt.rr < nq always: a guard)
	}
	for i := 0; i < nq; i, qi = i+1, qi+1 {
		if qi == nq {
			qi = 0 // round robin without a division per queue
		}
		if qi == int(d.ctrl) {
			continue
		}
		q := &pt.Queues[qi]
		if q.n == 0 {
			continue
		}
		ok, u := d.eligible(pt, q.Head(), now)
		if !ok {
			wake = min(wake, u)
			continue
		}
		pt.rr = qi + 1
		if pt.rr == nq {
			pt.rr = 0
		}
		return q.pop(), 0
	}
	if wake == math.MaxInt64 {
		wake = 0
	}
	return nil, wake
}

func (d *Device) startTx(pt *Port, p *Packet, cont bool) {
	// Port clocks keep whole nanoseconds and a femtosecond remainder apart,
	// so they never overflow: a single femtosecond count wraps int64 after
	// 2.56 h of virtual time, and capture timestamps are ns since 1970.
	now := d.sim.now
	startNs, startFrac := now, int64(0)
	if cont {
		startNs, startFrac = pt.endNs, pt.endFrac
		if p.NotBefore > startNs {
			startNs, startFrac = p.NotBefore, 0
		}
		if startNs > now || startNs == now && startFrac > 0 { // cannot happen: keep the clock monotonic
			startNs, startFrac = now, 0
		}
	}
	frac := startFrac + txFs(len(p.Data), pt.Speed)
	pt.endNs, pt.endFrac = startNs+frac/fsPerNs, frac%fsPerNs
	p.TxStart = startNs
	if startFrac > 0 {
		p.TxStart++
	}
	pt.txing = p
	pt.TxFrames++
	pt.TxBytes += int64(len(p.Data))
	for _, s := range d.schemes {
		s.OnDequeue(d, p)
	}
	if p.Generated {
		d.signals[p.Meta.Kind]++
	}
	if d.out != nil {
		d.out(Out{Port: pt.ID, Time: p.TxStart, Frame: p.Data, Kind: p.Meta.Kind, Generated: p.Generated})
	}
	done := pt.endNs
	if pt.endFrac > 0 {
		done++
	}
	if pt.peer != nil {
		at := p.TxStart + pt.delay
		var c *Packet
		if at > done {
			// The last bit leaves before the first arrives: the sender is
			// done with the octets before the peer sees them, so they move
			// to the peer instead of being copied.
			c = d.sim.take(p)
		} else {
			c = d.sim.alloc(p.Data)
		}
		d.sim.push(event{t: at, dev: pt.peer, kind: evDeliver, port: int32(pt.peerPort), pkt: c})
	}
	d.sim.push(event{t: done, dev: d, kind: evTxDone, port: int32(pt.idx), pkt: p})
}

func (d *Device) fire(e *event) {
	switch e.kind {
	case evTxDone:
		pt := d.ports[e.port]
		p := e.pkt
		pt.txing = nil
		if p.Queue >= 0 && p.Queue < len(pt.Queues) && p.Flow == nil {
			d.setDepth(pt, p.Queue, pt.Queues[p.Queue].Bytes-int64(len(p.Data)))
		}
		d.uncount(p)
		for _, s := range d.schemes {
			s.OnDepart(d, p)
		}
		if p.Flow != nil {
			d.nicDone(p)
		}
		d.sim.release(p)
		d.kick(pt, true)
	case evDeliver:
		d.receive(d.ports[e.port], e.pkt)
	case evWake:
		pt := d.ports[e.port]
		if pt.wakeAt == e.t {
			pt.wakeAt = 0
			d.kick(pt, false)
		}
	case evTimer:
		e.sch.OnTimer(d, int(e.id), e.arg)
	case evFlowStart:
		d.nicFlowStart(e.arg)
	}
}

// After schedules s.OnTimer(d, id, arg) delay ns from now. The timer keeps
// Flush running; use AfterBackground for periodic timers that should not.
func (d *Device) After(delay int64, s Scheme, id int, arg int64) {
	d.sim.push(event{t: d.sim.now + max(delay, 0), dev: d, kind: evTimer, sch: s, id: int32(id), arg: arg})
}

// AfterBackground is After for a timer that does not keep Flush running.
func (d *Device) AfterBackground(delay int64, s Scheme, id int, arg int64) {
	d.sim.push(event{t: d.sim.now + max(delay, 0), dev: d, kind: evTimer, sch: s, id: int32(id), arg: arg, bg: true})
}

// Send queues a frame the device generated (a signal) on port's egress, in
// the control class ahead of data. The frame is copied. MAC control frames
// (PAUSE, PFC) are never held by a pause.
func (d *Device) Send(port int, frame []byte) error {
	pt := d.Port(port)
	if pt == nil {
		return fmt.Errorf("%w: %d", ErrPort, port)
	}
	p := d.sim.alloc(frame)
	Parse(p.Data, &p.Meta, &d.codes)
	p.InPort, p.Arrival, p.OutPort = -1, d.sim.now, pt.ID
	p.Generated, p.Reserved = true, true
	p.Class = d.ctrl
	p.Queue = int(d.ctrl)
	p.NoPause = p.Meta.EtherType == EtherTypeMACControl
	d.Enqueue(p)
	return nil
}

// SendRouted is Send to the port the forwarding table gives for the
// frame's IP destination; it returns that port, or an ErrPort error when
// there is no route.
func (d *Device) SendRouted(frame []byte) (int, error) {
	var m Meta
	Parse(frame, &m, &d.codes)
	if !m.IP() {
		return -1, fmt.Errorf("%w: frame is not IP", ErrPort)
	}
	port := d.Route(m.Dst)
	if d.role == RoleNIC {
		port = WirePort
	}
	if port < 0 {
		return -1, fmt.Errorf("%w: no route to %s", ErrPort, m.Dst)
	}
	return port, d.Send(port, frame)
}

// PauseClass pauses class on port's egress until the given time (a time
// at or before now resumes it at once), as a PFC or PAUSE receiver does.
// A frame in transmission finishes.
func (d *Device) PauseClass(port, class int, until int64, cause string) {
	pt := d.Port(port)
	if pt == nil || class < 0 || class > 7 {
		return
	}
	now := d.sim.now
	if until < now {
		until = now
	}
	pt.pausedUntil[class] = until
	d.notePause(pauseKey{port: port, class: class}, until, cause)
	d.kick(pt, false)
}

func (d *Device) notePause(k pauseKey, until int64, cause string) {
	if !d.trace.Pauses {
		return
	}
	now := d.sim.now
	i, ok := d.pauseIdx[k]
	if ok && d.pauses[i].End >= now {
		d.pauses[i].End = max(until, now)
		if d.pauses[i].End == d.pauses[i].Start {
			d.pauses = slices.Delete(d.pauses, i, i+1)
			delete(d.pauseIdx, k)
			for kk, j := range d.pauseIdx {
				if j > i {
					d.pauseIdx[kk] = j - 1
				}
			}
		}
		return
	}
	if until <= now {
		return
	}
	r := PauseRecord{Port: k.port, Class: k.class, Start: now, End: until, Cause: cause}
	if k.class < 0 {
		r.Flow = k.flow.String()
	}
	d.pauseIdx[k] = len(d.pauses)
	d.pauses = append(d.pauses, r)
}

// Connect joins port pa of a and port pb of b with a full-duplex link of
// the given propagation delay (ns): what one sends arrives at the other
// delay ns after its first bit left. Both devices must share a Sim. The
// output callbacks still see every frame sent.
func Connect(a *Device, pa int, b *Device, pb int, delay int64) error {
	if a.sim != b.sim {
		return ErrSim
	}
	x, y := a.Port(pa), b.Port(pb)
	if x == nil {
		return fmt.Errorf("%w: %s port %d", ErrPort, a.name, pa)
	}
	if y == nil {
		return fmt.Errorf("%w: %s port %d", ErrPort, b.name, pb)
	}
	if err := CheckRange("device", "link delay", delay, 0, Second, " ns"); err != nil {
		return err
	}
	x.peer, x.peerPort, x.delay = b, y.idx, delay
	y.peer, y.peerPort, y.delay = a, x.idx, delay
	if x.PeerMAC == (MAC{}) {
		x.PeerMAC = y.MAC
	}
	if y.PeerMAC == (MAC{}) {
		y.PeerMAC = x.MAC
	}
	return nil
}
