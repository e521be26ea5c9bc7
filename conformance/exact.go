// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/opensfc/sfc/device"
)

// The files of a vector directory.
const (
	CaseFile     = "case.yaml"
	InputFile    = "input.pcapng"
	ExpectedFile = "expected.pcapng"
)

// Options tune a comparison.
type Options struct {
	// MaxShown is how many deviations each check keeps for the report
	// (all are counted); default 20.
	MaxShown int
	// Sequential reads the captures on the replay's goroutine. By default,
	// with more than one CPU, each capture is read and decoded ahead on
	// its own goroutine (a few batches of frames, so memory stays
	// bounded).
	Sequential bool
	// DUT names the device under test in reports ("vendor model
	// firmware"; --dut).
	DUT string
	// Mask adds fields device mode does not compare in signal frames
	// (conformance.md rule 3; --mask), to the case's mask list.
	Mask []string
	// Ignore adds a display filter whose matches in the device capture
	// are background (conformance.md rule 2; --ignore), or-ed with the
	// case's.
	Ignore string
	// Digest is the hash of the report's digests (--digest); unset, the
	// default (DigestBLAKE3).
	Digest Digest
	// TesterCapture says the device capture was taken by the tester on
	// its own ports (conform live): every frame the device sent arrives
	// there inbound, so a deviation does not carry the hint for a
	// capture taken on the device's own port in both directions.
	TesterCapture bool
}

func (o Options) prefetch() bool { return !o.Sequential && runtime.GOMAXPROCS(0) > 1 }

// The checks of exact mode.
const (
	CheckFrames = "frames"
	CheckBytes  = "bytes"
	CheckTime   = "time"
)

var exactChecks = []checkDef{
	{CheckFrames, "every expected frame is sent on its port, in order, and nothing else"},
	{CheckBytes, "every frame has the expected bytes (volatile fields aside)"},
	{CheckTime, "every frame leaves within the time tolerance of the expected time"},
}

// RunVector replays the vector in dir (case.yaml, input.pcapng,
// expected.pcapng) through the reference model and compares the model's
// output with expected.pcapng in exact mode. The error is non-nil only
// when the vector is unusable (IsUnusable); the report then has verdict
// UNUSABLE and the reason.
func RunVector(dir string, opt Options) (*Report, error) {
	rep, err := runVector(dir, opt)
	if rep == nil {
		rep = newReport(ModeExact, opt.MaxShown, nil)
	}
	rep.Vector = dir
	if rep.Input == "" {
		rep.Input = filepath.Join(dir, InputFile)
	}
	if rep.Compared == "" {
		rep.Compared = filepath.Join(dir, ExpectedFile)
	}
	if err != nil {
		rep.unusable(err)
	}
	return rep, err
}

func runVector(dir string, opt Options) (*Report, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, &UnusableError{File: dir, Reason: "not a vector directory", Err: err}
	}
	c, err := loadCaseIn(dir)
	if err != nil {
		return nil, err
	}
	return RunExact(c, filepath.Join(dir, InputFile), filepath.Join(dir, ExpectedFile), opt)
}

func loadCaseIn(dir string) (*Case, error) {
	path := filepath.Join(dir, CaseFile)
	c, err := LoadCase(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &UnusableError{File: path, Reason: "missing: a vector needs case.yaml, input.pcapng and expected.pcapng", Err: err}
		}
		return nil, err
	}
	return c, nil
}

// RunExact replays input through the reference model of c and compares
// its output with the expected capture: same frames, same order per port,
// same bytes except the case's volatile fields, same time within the
// case's time tolerance (default 0). Both captures are streamed.
func RunExact(c *Case, input, expected string, opt Options) (*Report, error) {
	return retryMerged(func(merge bool) (*Report, error) { return runExact(c, input, expected, opt, merge) })
}

func runExact(c *Case, input, expected string, opt Options, merge bool) (*Report, error) {
	rep := newReport(ModeExact, opt.MaxShown, exactChecks)
	rep.Description, rep.Case, rep.Input, rep.Compared = c.Description, c.File, input, expected
	rep.Tolerances = exactTolerances(c)
	m, err := BuildModel(c)
	if err != nil {
		return rep, err
	}
	var ep epochRef
	in, err := openStream(c, input, &ep, merge, "")
	if err != nil {
		return rep, err
	}
	defer in.close()
	exp, err := openOutput(c, expected, &ep, merge, "")
	if err != nil {
		return rep, err
	}
	defer exp.close()
	if opt.prefetch() {
		in.prefetch()
		exp.prefetch()
	}
	x := newExact(c, rep, exp)
	m.Dev.OnOutput(x.actual)
	err = replay(m, in, &rep.Frames.Input, nil, x.advance)
	if err == nil {
		err = x.err
	}
	if err != nil {
		return rep, err
	}
	x.finish()
	if x.err != nil {
		return rep, x.err
	}
	rep.finish()
	return rep, nil
}

// replay feeds every input record to the model in order, calling before(r)
// before and after(r) after each (either may be nil), then runs the model
// until idle (and on to the case's end). What before returns, when not
// nil, is the frame parsed with the model's codepoints: the model takes
// it instead of parsing the frame again.
func replay(m *Model, in *stream, count *int64, before func(r *record) *device.Meta, after func(r *record)) error {
	for {
		r, err := in.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		*count++
		var meta *device.Meta
		if before != nil {
			meta = before(r)
		}
		if meta != nil {
			err = m.Dev.InputParsed(r.port, r.t, r.data, meta)
		} else {
			err = m.Dev.Input(r.port, r.t, r.data)
		}
		if err != nil {
			return &UnusableError{File: in.file, Frame: r.no, Reason: "the model refused the frame: " + err.Error(), Err: err}
		}
		if after != nil {
			after(r)
		}
	}
	m.Dev.Flush()
	if end := m.Case.End; end > m.Dev.Now() {
		m.Dev.AdvanceTo(end)
	}
	return m.fault()
}

// fault returns the configuration fault of the reference run, as an
// error at the case key to change: a PFC switch that dropped lossless
// frames had too small a headroom (behaviour.md §4), so the vector is
// unusable rather than its reference silently lossy.
func (m *Model) fault() error {
	if m.PFC == nil {
		return nil
	}
	if f := m.PFC.Fault(); f != nil {
		return m.Case.errAt("params.headroom", "%v", f)
	}
	return nil
}

// pend is an expected frame waiting for the model's frame it matches.
type pend struct {
	no   int
	t    int64
	data []byte
}

// fifo is a ring of pending frames.
type fifo struct {
	buf     []pend
	head, n int
}

func (q *fifo) push(p pend) {
	if q.n == len(q.buf) {
		nb := make([]pend, max(8, 2*len(q.buf)))
		for i := 0; i < q.n; i++ {
			nb[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.n)%len(q.buf)] = p
	q.n++
}

func (q *fifo) at(i int) *pend { return &q.buf[(q.head+i)%len(q.buf)] }

func (q *fifo) pop() pend {
	p := q.buf[q.head]
	q.buf[q.head] = pend{}
	q.head = (q.head + 1) % len(q.buf)
	q.n--
	return p
}

// exact compares the model's output with an expected capture, frame by
// frame per port, holding only the expected frames within the time
// tolerance of the model's clock.
type exact struct {
	c         *Case
	rep       *Report
	exp       *stream
	tol       int64
	q         map[int]*fifo
	qs        []*fifo // by port id, for the common small ids
	nFrames   int64
	nCompared int64
	order     []int // port ids of q, sorted
	next      *pend // read from the capture, not yet queued (points at nextBuf)
	nextBuf   pend
	nextPort  int
	eof       bool
	err       error
	outNo     int
	pool      [][]byte
	vol       volatile
	cp        device.Codepoints
	ma        []byte
	mb        []byte
	df        *differ
}

func newExact(c *Case, rep *Report, exp *stream) *exact {
	x := &exact{c: c, rep: rep, exp: exp, tol: c.Tol.Time, q: map[int]*fifo{}, vol: newVolatile(c.Volatile), cp: c.Device.Codepoints.WithDefaults()}
	return x
}

func (x *exact) buf(data []byte) []byte {
	var b []byte
	if n := len(x.pool); n > 0 {
		b = x.pool[n-1][:0]
		x.pool = x.pool[:n-1]
	}
	return append(b, data...)
}

func (x *exact) free(p pend) { x.pool = append(x.pool, p.data) }

func (x *exact) queue(port int) *fifo {
	if port >= 0 && port < len(x.qs) && x.qs[port] != nil {
		return x.qs[port]
	}
	q := x.q[port]
	if q == nil {
		q = &fifo{}
		x.q[port] = q
		x.order = sortInts(append(x.order, port))
		if port >= 0 && port < 4096 {
			for len(x.qs) <= port {
				x.qs = append(x.qs, nil)
			}
			x.qs[port] = q
		}
	}
	return q
}

// fill reads expected frames with time ≤ limit into their port queues.
func (x *exact) fill(limit int64) {
	for x.err == nil {
		if x.next == nil {
			if x.eof {
				return
			}
			r, err := x.exp.next()
			if err == io.EOF {
				x.eof = true
				return
			}
			if err != nil {
				x.err = err
				return
			}
			x.rep.Frames.Expected++
			x.nextBuf = pend{no: r.no, t: r.t, data: x.buf(r.data)}
			x.next = &x.nextBuf
			x.nextPort = r.port
		}
		if x.next.t > limit {
			return
		}
		x.queue(x.nextPort).push(*x.next)
		x.next = nil
	}
}

func (x *exact) missing(port int, p pend) {
	x.rep.add(Deviation{Check: CheckFrames, Frame: p.no, Port: x.c.PortName(port), Time: p.t, Field: "frame",
		Expected: describe(p.data, &x.cp), Actual: "(none)", Detail: "the model did not send this frame"})
	x.free(p)
}

func (x *exact) equal(a, b []byte) bool {
	if !x.vol.any {
		return bytes.Equal(a, b)
	}
	return equalMasked(x.vol, &x.ma, &x.mb, a, b, &x.cp)
}

// actual takes one frame the model sent.
func (x *exact) actual(o device.Out) {
	if x.err != nil {
		return
	}
	x.outNo++
	x.rep.Frames.Model++
	x.nFrames++
	x.fill(o.Time + x.tol)
	q := x.queue(o.Port)
	if q.n > 0 && q.at(0).t >= o.Time-x.tol && x.equal(q.at(0).data, o.Frame) {
		// The common case: the head of the port's queue is this frame.
		x.nCompared++
		x.free(q.pop())
		return
	}
	port := x.c.PortName(o.Port)
	// A late frame: the head is due before the window but is this frame.
	if q.n > 0 && q.at(0).t < o.Time-x.tol && x.equal(q.at(0).data, o.Frame) {
		p := q.pop()
		x.rep.add(Deviation{Check: CheckTime, Frame: p.no, Ref: x.outNo, Port: port, Time: o.Time, Field: "frame.time",
			Expected: fmtTime(p.t), Actual: fmtTime(o.Time), Detail: fmt.Sprintf("late by %s, tolerance %s", fmtTime(o.Time-p.t), fmtTime(x.tol))})
		x.free(p)
		return
	}
	for q.n > 0 && q.at(0).t < o.Time-x.tol {
		x.missing(o.Port, q.pop())
	}
	if q.n == 0 {
		// An early frame: the next expected frame of the capture is this one.
		if x.next != nil && x.nextPort == o.Port && x.equal(x.next.data, o.Frame) {
			p := *x.next
			x.next = nil
			x.rep.add(Deviation{Check: CheckTime, Frame: p.no, Ref: x.outNo, Port: port, Time: o.Time, Field: "frame.time",
				Expected: fmtTime(p.t), Actual: fmtTime(o.Time), Detail: fmt.Sprintf("early by %s, tolerance %s", fmtTime(p.t-o.Time), fmtTime(x.tol))})
			x.free(p)
			return
		}
		x.rep.add(Deviation{Check: CheckFrames, Ref: x.outNo, Port: port, Time: o.Time, Field: "frame",
			Expected: "(none)", Actual: describe(o.Frame, &x.cp), Detail: "the model sent a frame the expected capture lacks"})
		return
	}
	x.nCompared++
	if x.equal(q.at(0).data, o.Frame) {
		x.free(q.pop())
		return
	}
	// Frames skipped: a later queued frame is this one.
	for i := 1; i < q.n; i++ {
		if x.equal(q.at(i).data, o.Frame) {
			for j := 0; j < i; j++ {
				x.missing(o.Port, q.pop())
			}
			x.free(q.pop())
			return
		}
	}
	p := q.pop()
	if x.df == nil {
		x.df = newDiffer(x.c.Device.Codepoints)
	}
	for _, fd := range x.df.diff(p.data, o.Frame, 8, x.vol) {
		x.rep.add(Deviation{Check: CheckBytes, Frame: p.no, Ref: x.outNo, Port: port, Time: o.Time, Field: fd.Field, Expected: fd.Expected, Actual: fd.Actual})
	}
	x.free(p)
}

// advance is called after each input at time t: the model sends nothing
// before t − 1 ns from now on, so expected frames due before that minus
// the tolerance are missing.
func (x *exact) advance(r *record) {
	lim := r.t - 2 - x.tol
	x.fill(lim)
	for _, port := range x.order {
		q := x.queue(port)
		for q.n > 0 && q.at(0).t < lim {
			x.missing(port, q.pop())
		}
	}
}

// finish reports every expected frame the model never matched.
func (x *exact) finish() {
	const inf = int64(^uint64(0) >> 1)
	x.fill(inf)
	x.rep.checked(CheckFrames, x.nFrames)
	x.rep.checked(CheckBytes, x.nCompared)
	x.rep.checked(CheckTime, x.nCompared)
	for _, p := range x.order {
		q := x.q[p]
		for q.n > 0 {
			x.missing(p, q.pop())
		}
	}
}
