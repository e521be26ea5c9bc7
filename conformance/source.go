package conformance

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	glayers "github.com/gopacket/gopacket/layers"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/pcapio"
)

// UnusableError says why a vector or a capture cannot be compared at all:
// a missing or unreadable file, a case.yaml with errors, a capture whose
// frames cannot be placed on the case's ports or in time. It is exit
// status 2 of `sfcdump conform`.
type UnusableError struct {
	File   string // the file at fault
	Frame  int    // 1-based frame number, 0 when not about a frame
	Reason string
	Err    error // the underlying error, if any
}

// Error says "unusable: FILE: frame N: REASON".
func (e *UnusableError) Error() string {
	var b strings.Builder
	b.WriteString("unusable: ")
	b.WriteString(e.File)
	if e.Frame > 0 {
		fmt.Fprintf(&b, ": frame %d", e.Frame)
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	return b.String()
}

// Unwrap returns the underlying error.
func (e *UnusableError) Unwrap() error { return e.Err }

// IsUnusable reports whether err means the vector or capture cannot be
// used (exit status 2): an *UnusableError or case.yaml errors.
func IsUnusable(err error) bool {
	var u *UnusableError
	var ce CaseErrors
	var c1 *CaseError
	return errors.As(err, &u) || errors.As(err, &ce) || errors.As(err, &c1)
}

const noPort = -1 << 30

// record is one frame of a capture placed on a port and in model time.
type record struct {
	no   int   // 1-based frame number in its capture
	port int   // port id (device.HostPort for a NIC's host side)
	t    int64 // model time, ns since the epoch
	data []byte
	// comments of the frame (pcapng), valid like data.
	comments []string
}

// stream reads one capture of a vector as records, in order, checking that
// every frame can be placed on a port of the case and that time never goes
// backwards. It holds one frame at a time.
type stream struct {
	c      *Case
	r      *pcapio.Reader
	file   string
	ifmap  []int // capture interface index → port id, built lazily
	epoch  int64 // Unix ns of model time 0
	last   int64
	peeked *record
	peekE  error
	rec    record
	pre    *prefetcher
}

// epochRef is the Unix time in ns of model time 0, shared by the captures
// of one comparison; the first capture opened sets it when unset.
type epochRef struct {
	ns  int64
	set bool
}

// openStream opens path for case c. Model time 0 is the case's epoch, or
// ep when set, or else the first frame of this capture (which sets ep).
func openStream(c *Case, path string, ep *epochRef) (*stream, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, &UnusableError{File: path, Reason: "missing or unreadable: " + errText(err), Err: err}
	}
	r, err := pcapio.Open(path)
	if err != nil {
		return nil, &UnusableError{File: path, Reason: "not a readable capture: " + errText(err), Err: err}
	}
	s := &stream{c: c, r: r, file: path}
	if !r.IsPcapng() && c.numPorts() > 1 {
		r.Close()
		return nil, &UnusableError{File: path, Reason: fmt.Sprintf("classic pcap has no interface ids, and the case defines %d ports (%s): capture in pcapng with one interface per port",
			c.numPorts(), c.portList())}
	}
	if c.HasEpoch {
		ep.ns, ep.set = c.Epoch.UnixNano(), true
	}
	if ep.set {
		s.epoch = ep.ns
		return s, nil
	}
	// Model time 0 is the first frame of this (the input) capture.
	rec, err := s.read()
	if err == io.EOF {
		s.peekE = io.EOF
		return s, nil
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	s.epoch = rec.t // read() used epoch 0
	rec.t = 0
	s.last = 0
	cp := *rec
	s.peeked = &cp
	ep.ns, ep.set = s.epoch, true
	return s, nil
}

func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// numPorts counts the ports frames can be on: a NIC's host side counts.
func (c *Case) numPorts() int {
	if c.Role == device.RoleNIC {
		return 2
	}
	return len(c.Ports)
}

func (c *Case) portList() string {
	var ids []string
	for _, p := range c.Ports {
		ids = append(ids, fmt.Sprint(p.ID))
	}
	if c.Role == device.RoleNIC {
		ids = append(ids, "host")
	}
	return strings.Join(ids, ", ")
}

// PortName returns how reports and capture interfaces name a port: its
// id, or "host" for a NIC's host side.
func (c *Case) PortName(id int) string {
	if c.Role == device.RoleNIC && id == device.HostPort {
		return "host"
	}
	return fmt.Sprint(id)
}

// portOf maps capture interface i (named name) to a port id.
func (c *Case) portOf(i int, name string, pcapng bool) int {
	if !pcapng {
		if c.Role == device.RoleNIC {
			return device.WirePort
		}
		return c.Ports[0].ID
	}
	if c.Role == device.RoleNIC && name == "host" {
		return device.HostPort
	}
	byName := false
	for _, p := range c.Ports {
		if p.Interface != "" {
			byName = true
			if p.Interface == name {
				return p.ID
			}
		}
	}
	if byName {
		return noPort
	}
	if c.Role == device.RoleNIC {
		switch i {
		case device.WirePort:
			return device.WirePort
		case device.HostPort:
			return device.HostPort
		}
		return noPort
	}
	if c.Port(i) != nil {
		return i
	}
	return noPort
}

func (s *stream) port(iface int) int {
	for len(s.ifmap) <= iface {
		s.ifmap = append(s.ifmap, noPort-1)
	}
	if p := s.ifmap[iface]; p != noPort-1 {
		return p
	}
	name := s.r.Interface(iface).Name
	p := s.c.portOf(iface, name, s.r.IsPcapng())
	s.ifmap[iface] = p
	return p
}

func (s *stream) read() (*record, error) {
	fr, err := s.r.Next()
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		var fe *pcapio.FrameError
		if errors.As(err, &fe) {
			return nil, &UnusableError{File: s.file, Frame: fe.LastGood + 1, Reason: "capture is broken after frame " + fmt.Sprint(fe.LastGood) + ": " + errText(fe.Err), Err: err}
		}
		return nil, &UnusableError{File: s.file, Reason: errText(err), Err: err}
	}
	p := s.port(fr.Interface)
	if p == noPort {
		name := s.r.Interface(fr.Interface).Name
		return nil, &UnusableError{File: s.file, Frame: fr.Number,
			Reason: fmt.Sprintf("on interface %d (%q), which is no port of the case (ports: %s; interface i carries port i unless ports name their interface)", fr.Interface, name, s.c.portList())}
	}
	if fr.LinkType != glayers.LinkTypeEthernet {
		// pcapio reads Linux cooked and raw-IP captures for sfcdump; the
		// device model takes the Ethernet frames a port carries.
		return nil, &UnusableError{File: s.file, Frame: fr.Number,
			Reason: fmt.Sprintf("link type %v on interface %d: conformance input is Ethernet frames as a port carries them (capture on the port, not with tcpdump -i any)", fr.LinkType, fr.Interface)}
	}
	if fr.Warn != nil {
		return nil, &UnusableError{File: s.file, Frame: fr.Number, Reason: errText(fr.Warn), Err: fr.Warn}
	}
	if fr.Len > len(fr.Data) {
		return nil, &UnusableError{File: s.file, Frame: fr.Number,
			Reason: fmt.Sprintf("cut to %d of its %d octets by the capture's snap length: capture whole frames", len(fr.Data), fr.Len)}
	}
	t := fr.Time.UnixNano() - s.epoch
	if t < s.last {
		return nil, &UnusableError{File: s.file, Frame: fr.Number,
			Reason: fmt.Sprintf("timestamp goes backwards: %s, before the previous frame's %s", fmtTime(t), fmtTime(s.last))}
	}
	if t < 0 {
		return nil, &UnusableError{File: s.file, Frame: fr.Number, Reason: fmt.Sprintf("timestamp %s is before the epoch (model time 0)", fmtTime(t))}
	}
	s.last = t
	s.rec = record{no: fr.Number, port: p, t: t, data: fr.Data, comments: fr.Comments}
	return &s.rec, nil
}

// next returns the next record; its data is valid until the next call.
func (s *stream) next() (*record, error) {
	if s.peeked != nil {
		r := s.peeked
		s.peeked = nil
		return r, nil
	}
	if s.peekE != nil {
		return nil, s.peekE
	}
	if s.pre != nil {
		return s.pre.next()
	}
	return s.read()
}

func (s *stream) close() {
	if s.pre != nil {
		s.pre.stop()
	}
	s.r.Close()
}

// prefetch makes the stream read and decode ahead on its own goroutine,
// in batches, so that reading a capture runs beside the model on another
// core. At most a few batches are held, so memory stays bounded.
func (s *stream) prefetch() {
	if s.pre != nil || s.peekE != nil {
		return
	}
	if s.peeked != nil {
		r := *s.peeked
		r.data = append([]byte(nil), r.data...)
		s.peeked = &r
	}
	p := &prefetcher{full: make(chan *batch, 4), empty: make(chan *batch, 6), done: make(chan struct{})}
	for i := 0; i < 6; i++ {
		p.empty <- &batch{}
	}
	s.pre = p
	go p.run(s)
}

const batchLen = 256

type batch struct {
	recs []record
	buf  []byte
	err  error
}

type prefetcher struct {
	full, empty chan *batch
	done        chan struct{}
	cur         *batch
	i           int
	err         error
	stopped     bool
}

func (p *prefetcher) run(s *stream) {
	defer close(p.full)
	for {
		var b *batch
		select {
		case b = <-p.empty:
		case <-p.done:
			return
		}
		b.recs, b.buf, b.err = b.recs[:0], b.buf[:0], nil
		for len(b.recs) < batchLen {
			r, err := s.read()
			if err != nil {
				b.err = err
				break
			}
			off := len(b.buf)
			b.buf = append(b.buf, r.data...)
			rc := *r
			rc.data = b.buf[off:len(b.buf):len(b.buf)]
			b.recs = append(b.recs, rc)
		}
		// Slices into buf may have moved when it grew: fix them up.
		off := 0
		for i := range b.recs {
			n := len(b.recs[i].data)
			b.recs[i].data = b.buf[off : off+n : off+n]
			off += n
		}
		select {
		case p.full <- b:
		case <-p.done:
			return
		}
		if b.err != nil {
			return
		}
	}
}

func (p *prefetcher) next() (*record, error) {
	for {
		if p.cur != nil && p.i < len(p.cur.recs) {
			p.i++
			return &p.cur.recs[p.i-1], nil
		}
		if p.cur != nil {
			if p.cur.err != nil {
				p.err = p.cur.err
			}
			p.empty <- p.cur
			p.cur = nil
		}
		if p.err != nil {
			return nil, p.err
		}
		b, ok := <-p.full
		if !ok {
			return nil, io.EOF
		}
		p.cur, p.i = b, 0
	}
}

func (p *prefetcher) stop() {
	if !p.stopped {
		p.stopped = true
		close(p.done)
		for range p.full {
		}
	}
}

// fmtTime renders model time ns as µs with ns precision ("12.345us").
func fmtTime(ns int64) string {
	sign := ""
	if ns < 0 {
		sign, ns = "-", -ns
	}
	us, rem := ns/1000, ns%1000
	if rem == 0 {
		return fmt.Sprintf("%s%dus", sign, us)
	}
	s := strings.TrimRight(fmt.Sprintf("%03d", rem), "0")
	return fmt.Sprintf("%s%d.%sus", sign, us, s)
}

func sortInts(v []int) []int { sort.Ints(v); return v }
