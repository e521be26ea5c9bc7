package conformance

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"io"
	"math"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

// The checks of device mode (conformance.md "Comparing").
const (
	// CheckJustified: every signal the device sent is one the reference
	// sends, or suppresses, for that flow (or port and priority) at that
	// time, within the time tolerance.
	CheckJustified = "justified"
	// CheckComplete: every flow (or port and priority) the reference
	// signals is signalled by the device within the tolerance.
	CheckComplete = "complete"
	// CheckSuppression: the device signals a flow at most once per reset
	// period, all flows sharing one period phase (any phase).
	CheckSuppression = "suppression"
	// CheckPauseTime: pause times are within the pause tolerance.
	CheckPauseTime = "pause-time"
	// CheckQueueDepth: reported queue depths are within the depth
	// tolerance.
	CheckQueueDepth = "queue-depth"
	// CheckFieldRules: swapped addresses, ports, flags, quote content,
	// MACs, ICRC where present.
	CheckFieldRules = "field-rules"
	// CheckDataLoss: no data frame the reference sends is missing.
	CheckDataLoss = "data-loss"
	// CheckDataOrder: no flow's data is reordered.
	CheckDataOrder = "data-order"
	// CheckDataIntegrity: no data frame is altered or added.
	CheckDataIntegrity = "data-integrity"
	// CheckTiming: data frames leave within the time tolerance of the
	// reference.
	CheckTiming = "timing"
	// CheckBFCSequence: the BFC pause frames a device sends on a link
	// count up by one.
	CheckBFCSequence = "bfc-sequence"
	// CheckCredit: Floodgate credits never exceed the octets received for
	// the destination on that port, and follow the reference's within the
	// depth tolerance.
	CheckCredit = "credit"
)

func deviceChecks(c *Case, m *Model) []checkDef {
	out := []checkDef{
		{CheckJustified, "every signal the device sent is one the reference sends or suppresses then (± time tolerance)"},
		{CheckComplete, "every flow, port and priority the reference signals is signalled by the device (± time tolerance)"},
	}
	if m.SFC != nil {
		out = append(out, checkDef{CheckSuppression, "a flow is signalled at most once per reset period, one period phase for all flows"})
	}
	out = append(out, checkDef{CheckPauseTime, "pause times within the pause tolerance of the reference"})
	if m.SFC != nil || c.Has(SchemePBFS) {
		out = append(out, checkDef{CheckQueueDepth, "queue depths and assessed octets within the depth tolerance of the reference"})
	}
	if c.Has(SchemeBFC) {
		out = append(out, checkDef{CheckBFCSequence, "BFC pause frames on a link count up by one (no stale or repeated sequence)"})
	}
	if c.Has(SchemeFloodgate) && c.Role == device.RoleSwitch {
		out = append(out, checkDef{CheckCredit, "Floodgate credits: never more than the octets received, within the depth tolerance of the reference"})
	}
	out = append(out,
		checkDef{CheckFieldRules, "swapped addresses, ports, flags, quote content, MACs, ICRC where present"},
		checkDef{CheckDataLoss, "no data frame the reference sends is missing"},
		checkDef{CheckDataOrder, "no flow's data is reordered"},
		checkDef{CheckDataIntegrity, "no data frame is altered, duplicated or added"},
		checkDef{CheckTiming, "data frames leave within the time tolerance of the reference"},
	)
	return out
}

// CheckFiles loads the case at casePath and checks the device capture
// against the reference in device mode (CheckDevice). The error is
// non-nil only when something is unusable; the report then says why.
func CheckFiles(casePath, input, dev string, opt Options) (*Report, error) {
	rep := newReport(ModeDevice, opt.MaxShown, nil)
	c, err := LoadCase(casePath)
	if err == nil {
		rep, err = CheckDevice(c, input, dev, opt)
	} else if IsNotExist(err) {
		err = &UnusableError{File: casePath, Reason: "missing or unreadable: " + errText(err), Err: err}
	}
	rep.Vector = casePath
	if err != nil {
		rep.Verdict, rep.Error = Unusable, err.Error()
	}
	return rep, err
}

// CheckDevice replays input through the reference model of c and checks
// the device's output capture against it in device mode: tolerances on
// pause times, timestamps and queue depths, and the property checks of
// conformance.md where the reference leaves the device a choice. Both
// captures are streamed; what is held is bounded by the tolerances and
// the window.
func CheckDevice(c *Case, input, dev string, opt Options) (*Report, error) {
	m, err := BuildModel(c)
	if err != nil {
		rep := newReport(ModeDevice, opt.MaxShown, nil)
		return rep, err
	}
	rep := newReport(ModeDevice, opt.MaxShown, deviceChecks(c, m))
	rep.Description, rep.Case, rep.Input, rep.Compared = c.Description, c.File, input, dev
	var ep epochRef
	in, err := openStream(c, input, &ep)
	if err != nil {
		return rep, err
	}
	defer in.close()
	ds, err := openStream(c, dev, &ep)
	if err != nil {
		return rep, err
	}
	defer ds.close()
	if opt.prefetch() {
		in.prefetch()
		ds.prefetch()
	}
	k := newDevChecker(c, m, rep, ds)
	m.Dev.OnOutput(k.refOut)
	if m.obs != nil {
		m.obs.fire = k.refFire
		m.obs.near = k.maxDepthTol
	}
	err = replay(m, in, &rep.Frames.Input, k.afterInput)
	if err == nil {
		k.advance(math.MaxInt64)
		err = k.err
	}
	if err != nil {
		return rep, err
	}
	k.finish()
	rep.finish()
	return rep, nil
}

// devChecker holds what device mode needs between frames: the reference's
// recent outputs and decisions, the recent input (to find the packets that
// signals quote), and per-flow state. Everything is dropped once it is
// older than the window behind the device capture's clock.
type devChecker struct {
	c   *Case
	m   *Model
	rep *Report
	ds  *stream
	cp  device.Codepoints
	vol volatile

	tol, ptol, win, jitter, reset, missed int64
	depthTol                              map[int]int64
	maxDepthTol                           int64
	lag                                   int64

	refNo   int
	hasHost bool
	seed    maphash.Seed
	df      *differ
	ma, mb  []byte
	pool    [][]byte
	err     error

	// device capture
	dpend *record
	deof  bool
	dlim  int64 // every device frame at or before dlim was processed

	// data
	slab  []dataItem // items are allocated 256 at a time
	dq    map[dataKey]*dataQ
	ring  []*dataItem
	rhead int

	trig *trigIndex
	sfc  *sfcState
	sch  *schemeState
	pfc  *pfcState
	gen  *genState
	gcAt int64
}

type dataKey struct {
	port int
	et   uint16
	flow device.FlowKey
}

type dataItem struct {
	t     int64
	no    int // reference output number
	key   dataKey
	hash  uint64
	data  []byte
	state uint8
}

const (
	itemPending uint8 = iota
	itemOvertaken
	itemMatched
)

type dataQ struct {
	items []*dataItem
	head  int
	last  uint64 // hash of the last matched frame, to name duplicates
}

func (q *dataQ) live() []*dataItem { return q.items[q.head:] }

func (q *dataQ) trim() {
	for q.head < len(q.items) && q.items[q.head].state == itemMatched {
		q.items[q.head] = nil
		q.head++
	}
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	} else if q.head > 64 && q.head*2 > len(q.items) {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
}

func newDevChecker(c *Case, m *Model, rep *Report, ds *stream) *devChecker {
	k := &devChecker{c: c, m: m, rep: rep, ds: ds, cp: c.Device.Codepoints.WithDefaults(), seed: maphash.MakeSeed(),
		dq: map[dataKey]*dataQ{}, depthTol: map[int]int64{}, dlim: math.MinInt64}
	names := append([]string(nil), c.Volatile...)
	names = append(names, "bth.icrc") // the ICRC has its own rule
	k.vol = newVolatile(names)
	k.tol = 1 * device.Microsecond
	if c.Tol.TimeSet {
		k.tol = c.Tol.Time
	}
	k.ptol = 1 * device.Microsecond
	if c.Tol.PauseSet {
		k.ptol = c.Tol.Pause
	}
	k.win = 100 * device.Microsecond
	if c.Tol.WindowSet {
		k.win = c.Tol.Window
	}
	k.win = max(k.win, 2*k.tol)
	k.jitter = 0
	if c.Tol.JitterSet {
		k.jitter = c.Tol.Jitter
	}
	k.missed = c.Tol.MissedPeriods
	for _, p := range c.Ports {
		dt := p.Speed / 8 / 1_000_000 // 1 µs of the port's speed
		if c.Tol.DepthSet {
			dt = c.Tol.QueueDepth
		}
		k.depthTol[p.ID] = dt
		k.maxDepthTol = max(k.maxDepthTol, dt)
	}
	k.lag = k.tol + 2
	// A NIC's host side is checked only when the device capture has it.
	if c.Role == device.RoleNIC {
		for i := 0; i < ds.r.NInterfaces(); i++ {
			if c.portOf(i, ds.r.Interface(i).Name, ds.r.IsPcapng()) == device.HostPort {
				k.hasHost = true
			}
		}
	}
	if m.SFC != nil || c.Has(SchemePBFS) {
		k.trig = &trigIndex{k: k}
	}
	if m.SFC != nil {
		k.sfc = newSFCState(k)
	}
	k.sch = newSchemeState(k)
	k.pfc = &pfcState{q: map[pfcKey]*pfcQ{}}
	k.gen = &genState{q: map[genKey][]*genItem{}}
	return k
}

func (k *devChecker) buf(b []byte) []byte {
	var x []byte
	if n := len(k.pool); n > 0 {
		x = k.pool[n-1][:0]
		k.pool = k.pool[:n-1]
	}
	return append(x, b...)
}

func (k *devChecker) free(b []byte) {
	if cap(b) <= 16<<10 {
		k.pool = append(k.pool, b)
	}
}

func (k *devChecker) hash(frame []byte) uint64 {
	k.ma = k.vol.mask(k.ma, frame, &k.cp)
	if !k.vol.any {
		return maphash.Bytes(k.seed, frame)
	}
	return maphash.Bytes(k.seed, k.ma)
}

func (k *devChecker) equal(a, b []byte) bool { return equalMasked(k.vol, &k.ma, &k.mb, a, b, &k.cp) }

func keyOf(m *device.Meta, port int) dataKey {
	if m.IP() {
		return dataKey{port: port, flow: m.Flow()}
	}
	return dataKey{port: port, et: m.EtherType}
}

func (k *devChecker) dev(d Deviation) { k.rep.add(d) }

// refOut takes a frame the reference model sent.
func (k *devChecker) refOut(o device.Out) {
	k.refNo++
	k.rep.Frames.Model++
	if k.c.Role == device.RoleNIC && o.Port == device.HostPort && !k.hasHost {
		return
	}
	if o.Generated {
		switch o.Kind {
		case device.KindBTS, device.KindCIM:
			if k.sfc != nil {
				k.sfc.refSignal(o, k.refNo)
				return
			}
		case device.KindPFC, device.KindPause:
			k.pfc.ref(k, o, k.refNo)
			return
		}
		if k.sch.ref(o, k.refNo) {
			return
		}
		k.gen.ref(k, o, k.refNo)
		return
	}
	var m device.Meta
	device.Parse(o.Frame, &m, &k.cp)
	if len(k.slab) == 0 {
		k.slab = make([]dataItem, 256)
	}
	it := &k.slab[0]
	k.slab = k.slab[1:]
	*it = dataItem{t: o.Time, no: k.refNo, key: keyOf(&m, o.Port), hash: k.hash(o.Frame), data: k.buf(o.Frame)}
	q := k.dq[it.key]
	if q == nil {
		q = &dataQ{}
		k.dq[it.key] = q
	}
	q.items = append(q.items, it)
	k.ring = append(k.ring, it)
}

// refFire takes a decision of the reference SFC switch.
func (k *devChecker) refFire(f Firing) { k.sfc.refFire(f) }

// afterInput runs after each input frame reached the model at r.t: the
// reference is complete up to r.t, so device frames up to r.t − lag can
// be checked.
func (k *devChecker) afterInput(r *record) {
	if k.trig != nil {
		k.trig.index(r)
	}
	k.sch.input(r)
	k.advance(r.t - k.lag)
}

// advance checks every device frame at or before lim, then finalizes the
// reference items no later device frame can match.
func (k *devChecker) advance(lim int64) {
	for k.err == nil {
		if k.dpend == nil {
			if k.deof {
				break
			}
			r, err := k.ds.next()
			if err == io.EOF {
				k.deof = true
				break
			}
			if err != nil {
				k.err = err
				return
			}
			k.dpend = r
		}
		if k.dpend.t > lim {
			break
		}
		r := k.dpend
		k.dpend = nil
		k.rep.Frames.Expected++
		k.devFrame(r)
	}
	if lim > k.dlim {
		k.dlim = lim
	}
	k.expire(false)
}

// ignored reports frames no check looks at: ARP and LLDP, which capture
// setups see and no reference model sends.
func ignored(m *device.Meta) bool {
	return m.EtherType == 0x0806 || m.EtherType == 0x88cc
}

func (k *devChecker) devFrame(r *record) {
	var m device.Meta
	device.Parse(r.data, &m, &k.cp)
	if ignored(&m) {
		return
	}
	if k.c.Role == device.RoleNIC && r.port == device.HostPort && !k.hasHost {
		return
	}
	signal := m.Kind.Signal()
	if k.matchData(r, &m, signal) {
		return
	}
	if signal {
		switch m.Kind {
		case device.KindBTS, device.KindCIM:
			if k.sfc != nil {
				k.sfc.devSignal(r, &m)
				return
			}
		case device.KindPFC, device.KindPause:
			k.pfc.dev(k, r, &m)
			return
		}
		if k.sch.dev(r, &m) {
			return
		}
		k.gen.dev(k, r, &m)
		return
	}
	k.unmatchedData(r, &m)
}

// matchData matches a device frame with the reference's data frames of
// its port and flow. When onlyExact is set (a signal kind, maybe a
// forwarded one) it only looks for an equal frame.
func (k *devChecker) matchData(r *record, m *device.Meta, onlyExact bool) bool {
	key := keyOf(m, r.port)
	q := k.dq[key]
	if q == nil {
		return false
	}
	h := k.hash(r.data)
	live := q.live()
	for i, it := range live {
		if i >= 4096 {
			break
		}
		if it.state == itemMatched || it.hash != h || !k.equal(it.data, r.data) {
			continue
		}
		k.rep.checked(CheckDataLoss, 1)
		k.rep.checked(CheckDataOrder, 1)
		k.rep.checked(CheckTiming, 1)
		k.rep.checked(CheckDataIntegrity, 1)
		if it.state == itemOvertaken {
			k.dev(Deviation{Check: CheckDataOrder, Frame: r.no, Ref: it.no, Port: k.c.PortName(r.port), Time: r.t, Field: "frame.order",
				Expected: "before later frames of its flow", Actual: "after them", Detail: describe(r.data, &k.cp)})
		}
		for _, x := range live[:i] {
			if x.state == itemPending {
				x.state = itemOvertaken
			}
		}
		if dt := r.t - it.t; dt > k.tol || dt < -k.tol {
			k.dev(Deviation{Check: CheckTiming, Frame: r.no, Ref: it.no, Port: k.c.PortName(r.port), Time: r.t, Field: "frame.time",
				Expected: fmtTime(it.t), Actual: fmtTime(r.t), Detail: fmt.Sprintf("off by %s, tolerance %s", fmtTime(dt), fmtTime(k.tol))})
		}
		k.checkICRC(r, it.data)
		it.state = itemMatched
		q.last = h
		k.free(it.data)
		it.data = nil
		q.trim()
		return true
	}
	return false
}

// unmatchedData reports a data frame that equals nothing the reference
// sent on its port: a duplicate, an altered frame (compared with the
// oldest pending frame of its flow) or an added one.
func (k *devChecker) unmatchedData(r *record, m *device.Meta) {
	port := k.c.PortName(r.port)
	k.rep.checked(CheckDataIntegrity, 1)
	key := keyOf(m, r.port)
	q := k.dq[key]
	if q != nil && q.last == k.hash(r.data) {
		k.dev(Deviation{Check: CheckDataIntegrity, Frame: r.no, Port: port, Time: r.t, Field: "frame",
			Expected: "(none)", Actual: describe(r.data, &k.cp), Detail: "duplicate of the flow's previous frame"})
		return
	}
	var head *dataItem
	if q != nil {
		for _, it := range q.live() {
			if it.state != itemMatched {
				head = it
				break
			}
		}
	}
	if head == nil || head.t > r.t+k.win {
		k.dev(Deviation{Check: CheckDataIntegrity, Frame: r.no, Port: port, Time: r.t, Field: "frame",
			Expected: "(none)", Actual: describe(r.data, &k.cp), Detail: "a frame the reference does not send on this port"})
		k.checkICRC(r, nil)
		return
	}
	if k.df == nil {
		k.df = newDiffer(k.c.Device.Codepoints)
	}
	for _, fd := range k.df.diff(head.data, r.data, 8, k.vol) {
		k.dev(Deviation{Check: CheckDataIntegrity, Frame: r.no, Ref: head.no, Port: port, Time: r.t, Field: fd.Field,
			Expected: fd.Expected, Actual: fd.Actual, Detail: "altered"})
	}
	k.checkICRC(r, head.data)
	head.state = itemMatched
	k.free(head.data)
	head.data = nil
	q.trim()
}

// checkICRC verifies the RoCEv2 ICRC of a device frame, unless the
// reference frame it stands for carries a wrong one too.
func (k *devChecker) checkICRC(r *record, ref []byte) {
	ok, has, want := icrcOK(r.data, &k.cp)
	if !has {
		return
	}
	k.rep.checked(CheckFieldRules, 1)
	if ok {
		return
	}
	if ref != nil {
		if rok, rhas, _ := icrcOK(ref, &k.cp); rhas && !rok {
			return
		}
	}
	var m device.Meta
	device.Parse(r.data, &m, &k.cp)
	end := min(m.L3+m.IPLen, len(r.data))
	got := binary.LittleEndian.Uint32(r.data[end-4 : end])
	k.dev(Deviation{Check: CheckFieldRules, Frame: r.no, Port: k.c.PortName(r.port), Time: r.t, Field: "bth.icrc",
		Expected: fmt.Sprintf("0x%08x", want), Actual: fmt.Sprintf("0x%08x", got), Detail: "ICRC does not verify"})
}

// icrcOK computes the ICRC of a RoCEv2 frame: ok, whether the frame has
// one, and the right value.
func icrcOK(frame []byte, cp *device.Codepoints) (ok, has bool, want uint32) {
	var m device.Meta
	device.Parse(frame, &m, cp)
	if m.Kind != device.KindData || m.Proto != 17 || m.DstPort != cp.RoCEPort || m.Payload == 0 {
		return false, false, 0
	}
	end := m.L3 + m.IPLen
	if end > len(frame) || end-4 < m.Payload+12 {
		return false, false, 0
	}
	crc, err := layers.ComputeICRC(frame[m.L3:end])
	if err != nil {
		return false, false, 0
	}
	return binary.LittleEndian.Uint32(frame[end-4:end]) == crc, true, crc
}

// expire finalizes what no device frame can match any more: data frames
// the device never sent, signals it never matched. At the end (all) every
// pending item is finalized.
func (k *devChecker) expire(all bool) {
	lim := k.dlim
	for k.rhead < len(k.ring) {
		it := k.ring[k.rhead]
		if !all && it.t+k.win >= lim {
			break
		}
		k.ring[k.rhead] = nil
		k.rhead++
		if it.state == itemMatched {
			continue
		}
		k.rep.checked(CheckDataLoss, 1)
		k.dev(Deviation{Check: CheckDataLoss, Ref: it.no, Port: k.c.PortName(it.key.port), Time: it.t, Field: "frame",
			Expected: describe(it.data, &k.cp), Actual: "(none)", Detail: fmt.Sprintf("reference frame %d never sent by the device", it.no)})
		it.state = itemMatched
		k.free(it.data)
		it.data = nil
		if q := k.dq[it.key]; q != nil {
			q.trim()
		}
	}
	if k.rhead > 1024 && k.rhead*2 > len(k.ring) {
		n := copy(k.ring, k.ring[k.rhead:])
		clear(k.ring[n:])
		k.ring, k.rhead = k.ring[:n], 0
	}
	if k.sfc != nil {
		k.sfc.expire(all)
	}
	if k.trig != nil {
		k.trig.expire(all)
	}
	k.sch.expire(all)
	k.pfc.expire(k, all)
	k.gen.expire(k, all)
	// Forget idle flows now and then so memory follows the window, not the
	// number of flows ever seen.
	if all || lim-k.gcAt > 4*k.win {
		k.gcAt = lim
		for key, q := range k.dq {
			if len(q.live()) == 0 {
				delete(k.dq, key)
			}
		}
		if k.sfc != nil {
			k.sfc.gc(lim)
		}
	}
}

func (k *devChecker) finish() {
	k.dlim = math.MaxInt64
	k.expire(true)
}

// sameBytes compares two frames with the checker's volatile fields masked.
func (k *devChecker) sameBytes(a, b []byte) bool {
	if !k.vol.any {
		return bytes.Equal(a, b)
	}
	return k.equal(a, b)
}
