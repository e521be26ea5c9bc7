// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
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
	no    int   // 1-based frame number in its capture
	port  int   // port id (device.HostPort for a NIC's host side)
	iface int   // capture interface
	t     int64 // model time, ns since the epoch
	data  []byte
	// comments of the frame (pcapng), valid like data.
	comments []string
	// snapped is the frame's length on the wire when the capture's snap
	// length cut it (a device capture only; 0 when whole).
	snapped int
	// dir is what the pcapng says of the frame's direction at the
	// capturing interface (pcapio.Frame.Direction: 1 inbound).
	dir uint8
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

	// beforeT0 lets frames precede model time 0 (the device capture,
	// conformance.md rule 1); the input capture defines time 0.
	beforeT0 bool
	// names are the capture's interface names known when it was opened.
	names []string
	// sections are the pcapng section of each of names' interfaces.
	sections []int
	// merging: frames of different interfaces are not in one time order
	// in the file; merge holds frames read ahead, per interface, so that
	// they leave merged by time (rule 1). Without it a frame earlier than
	// the previous one (of another interface) is errUnsorted, and the
	// comparison starts again merging.
	merging   bool
	merge     mergeQ
	ifLast    []int64 // per interface, the last timestamp read (ns, Unix)
	emitted   int64   // the last model time handed out
	emittedOK bool
	// digest hashes every octet of the file as it is read; drops adds up
	// the frames the pcapng says the capture dropped.
	digest hash.Hash
	dig    Digest // digest's name
	drops  *dropScan
	ifFCS  []int // each interface's FCS octets (pcapio.Interface.FCSLen)
	res    int64 // the coarsest timestamp unit of its interfaces, ns
	// cutAt, when the file ends in the middle of a record and cutOK, is
	// the number of the last whole frame: the capture ends there.
	cutOK bool
	cut   bool
	cutAt int
	file0 *os.File
}

// epochRef is the Unix time in ns of model time 0, shared by the captures
// of one comparison; the first capture opened sets it when unset.
type epochRef struct {
	ns  int64
	set bool
}

// resolution returns the coarsest timestamp unit of the stream's
// interfaces in ns (1 for nanosecond captures), as the interface blocks
// before the first frame declare them (read apart, at open: the stream's
// own reader may be running in its prefetch goroutine).
func (s *stream) resolution() int64 { return max(s.res, 1) }

// openStream opens path for case c. Model time 0 is the case's epoch, or
// ep when set, or else the first frame of this capture (which sets ep).
// With merge the capture's interfaces are merged by time; with a digest
// (not "") the file's is computed as it is read (device mode's reports).
func openStream(c *Case, path string, ep *epochRef, merge bool, digest Digest) (*stream, error) {
	return openCapture(c, path, ep, merge, digest, false)
}

// openOutput opens a capture of what the device sent (the device
// capture of device mode, the expected capture of exact mode): as
// openStream, but a NIC's host side is optional there (the host side is
// then not checked in device mode), so a classic pcap is accepted where
// the case's own ports are one (conformance.md "A vector": classic pcap
// is accepted where a vector has one port); its frames are on that port.
func openOutput(c *Case, path string, ep *epochRef, merge bool, digest Digest) (*stream, error) {
	return openCapture(c, path, ep, merge, digest, true)
}

func openCapture(c *Case, path string, ep *epochRef, merge bool, digest Digest, output bool) (*stream, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, &UnusableError{File: path, Reason: "missing or unreadable: " + errText(err), Err: err}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &UnusableError{File: path, Reason: "missing or unreadable: " + errText(err), Err: err}
	}
	// Read with raw system calls (pcapio.NewFileReader): a blocking read
	// hands the P to another thread and keeps sysmon polling, which cost
	// more CPU than the read itself at 2 × 288 MB.
	src := pcapio.NewFileReader(f)
	var h hash.Hash
	var drops *dropScan
	var tee io.Writer // drops scan the capture's own octets, decompressed
	if digest != "" {
		h = digest.newHash()
		drops = &dropScan{}
		src, tee = io.TeeReader(src, h), drops // the digest is the file's as stored, as b3sum or sha256sum gives it
	}
	r, err := pcapio.NewReaderTee(path, src, tee)
	if err != nil {
		f.Close()
		return nil, &UnusableError{File: path, Reason: "not a readable capture: " + errText(err), Err: err}
	}
	s := &stream{c: c, r: r, file: path, digest: h, dig: digest, file0: f, merging: merge, drops: drops}
	s.names, s.sections, s.res = interfaceNames(path)
	for i := range s.names {
		s.merge.see(i) // frames wait for every declared interface
	}
	if !r.IsPcapng() && c.numPorts(output) > 1 {
		s.closeFiles()
		if c.Role == device.RoleNIC && len(c.Ports) == 1 {
			return nil, &UnusableError{File: path, Reason: fmt.Sprintf("classic pcap has no interface ids, and a NIC's input carries two ports (%s): the frames its host offers for transmission go on interface 1 or \"host\": capture in pcapng with one interface per port",
				c.portList())}
		}
		return nil, &UnusableError{File: path, Reason: fmt.Sprintf("classic pcap has no interface ids, and the case defines %d ports (%s): capture in pcapng with one interface per port",
			c.numPorts(output), c.portList())}
	}
	if err := s.checkInterfaces(); err != nil {
		s.closeFiles()
		return nil, err
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
		s.closeFiles()
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

// numPorts counts the ports frames of a capture can be on: a NIC's host
// side counts in its input (frames offered for transmission), not in
// what it sent (optional there: left out when it cannot be captured).
func (c *Case) numPorts(output bool) int {
	if c.Role == device.RoleNIC && !output {
		return len(c.Ports) + 1
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

// portOf maps capture interface i (named name; i is its id within its
// pcapng section, Interface.ID) to a port id.
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
	// Interface i carries port i within its section: a capture of
	// several sections (captures concatenated) numbers each from 0.
	in := s.r.Interface(iface)
	p := s.c.portOf(in.ID, in.Name, s.r.IsPcapng())
	s.ifmap[iface] = p
	return p
}

func (s *stream) readRaw() (*record, error) {
	fr, err := s.r.Next()
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		var fe *pcapio.FrameError
		if errors.As(err, &fe) && s.cutOK && errors.Is(err, io.ErrUnexpectedEOF) {
			// The device capture was cut (its writer stopped): it ends
			// at its last whole frame, and the check says so (rule 9).
			s.cut, s.cutAt = true, fe.LastGood
			return nil, io.EOF
		}
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
	snapped := 0
	if fr.Len > len(fr.Data) {
		if !s.cutOK {
			return nil, &UnusableError{File: s.file, Frame: fr.Number,
				Reason: fmt.Sprintf("cut to %d of its %d octets by the capture's snap length: capture whole frames", len(fr.Data), fr.Len)}
		}
		// A device frame cut short may still be background (an LLDP frame
		// past a small snap length): the checker decides (devFrame).
		snapped = fr.Len
	}
	data := fr.Data
	for len(s.ifFCS) <= fr.Interface {
		s.ifFCS = append(s.ifFCS, s.r.Interface(len(s.ifFCS)).FCSLen)
	}
	if n := s.ifFCS[fr.Interface]; n > 0 {
		// The interface keeps each frame's FCS (pcapng if_fcslen): octet
		// counts are without it (behaviour.md §0).
		if len(data) < n {
			return nil, &UnusableError{File: s.file, Frame: fr.Number,
				Reason: fmt.Sprintf("%d octets, shorter than the %d-octet FCS its interface says every frame ends with", len(data), n)}
		}
		data = data[:len(data)-n]
	}
	if fr.Time.IsZero() {
		return nil, &UnusableError{File: s.file, Frame: fr.Number,
			Reason: "no timestamp (a pcapng simple packet block): conformance input needs the time of every frame"}
	}
	ns := fr.Time.UnixNano()
	for len(s.ifLast) <= fr.Interface {
		s.ifLast = append(s.ifLast, math.MinInt64)
	}
	if ns < s.ifLast[fr.Interface] {
		return nil, &UnusableError{File: s.file, Frame: fr.Number,
			Reason: fmt.Sprintf("timestamp goes backwards on interface %d: %s, before that interface's previous frame at %s (frames of one interface must be in time order)",
				fr.Interface, fmtTime(ns-s.epoch), fmtTime(s.ifLast[fr.Interface]-s.epoch))}
	}
	s.ifLast[fr.Interface] = ns
	t := ns - s.epoch
	if t < 0 && !s.beforeT0 {
		return nil, &UnusableError{File: s.file, Frame: fr.Number, Reason: fmt.Sprintf("timestamp %s is before the epoch (model time 0)", fmtTime(t))}
	}
	s.last = t
	s.rec = record{no: fr.Number, port: p, iface: fr.Interface, t: t, data: data, comments: fr.Comments, snapped: snapped, dir: fr.Direction}
	return &s.rec, nil
}

// read returns the next record in time order: frames of one interface
// must be in time order; frames of different interfaces are merged by
// time through per-interface queues. A frame leaves once every interface
// the capture declares has one queued (the earliest first), or once
// mergeDepth frames are queued (an interface silent that long is taken to
// be behind no one); a frame more than that out of place is an error with
// a hint.
func (s *stream) read() (*record, error) {
	if !s.merging {
		r, err := s.readRaw()
		if err != nil {
			return nil, err
		}
		if s.emittedOK && r.t < s.emitted {
			return nil, errUnsorted
		}
		s.emitted, s.emittedOK = r.t, true
		return r, nil
	}
	q := &s.merge
	for {
		if q.n > 0 && (q.eof || q.full() || q.n >= mergeDepth) {
			break
		}
		if q.eof {
			return nil, io.EOF
		}
		r, err := s.readRaw()
		if err == io.EOF {
			q.eof = true
			continue
		}
		if err != nil {
			return nil, err
		}
		if q.n == 0 && q.single(r) {
			// Fast path: one interface so far, nothing queued.
			return s.emit(r)
		}
		q.push(r)
	}
	r := q.pop()
	return s.emit(r)
}

func (s *stream) emit(r *record) (*record, error) {
	if s.emittedOK && r.t < s.emitted {
		return nil, &UnusableError{File: s.file, Frame: r.no,
			Reason: fmt.Sprintf("frame at %s is more than %d frames away from its place in time order: merge the interfaces by time (mergecap sorts)", fmtTime(r.t), mergeDepth)}
	}
	s.emitted, s.emittedOK = r.t, true
	return r, nil
}

// errUnsorted says a capture's interfaces are not in one time order: the
// comparison is run again with the capture merged by time.
var errUnsorted = errors.New("frames of different interfaces out of time order")

// retryMerged runs fn without merging, and again merging when a capture
// turned out to need it.
func retryMerged[T any](fn func(merge bool) (T, error)) (T, error) {
	v, err := fn(false)
	if errors.Is(err, errUnsorted) {
		return fn(true)
	}
	return v, err
}

// mergeDepth is how many frames are read ahead at most to merge the
// interfaces of a capture by time.
const mergeDepth = 1 << 14

// mergeQ is a queue of read-ahead frames per interface.
type mergeQ struct {
	qs   [][]record // per interface
	bufs [][]byte   // spare frame buffers
	seen []bool
	nIf  int // interfaces seen
	n    int // frames queued
	eof  bool
	out  record
}

// single reports whether r is of the only interface declared or seen so
// far (then it can leave at once: nothing can be earlier).
func (q *mergeQ) single(r *record) bool {
	q.see(r.iface)
	return q.nIf == 1
}

func (q *mergeQ) see(i int) {
	for len(q.seen) <= i {
		q.seen = append(q.seen, false)
		q.qs = append(q.qs, nil)
	}
	if !q.seen[i] {
		q.seen[i] = true
		q.nIf++
	}
}

// full reports whether every interface seen has a frame queued.
func (q *mergeQ) full() bool {
	for i, ok := range q.seen {
		if ok && len(q.qs[i]) == 0 {
			return false
		}
	}
	return true
}

func (q *mergeQ) push(r *record) {
	q.see(r.iface)
	var b []byte
	if n := len(q.bufs); n > 0 {
		b, q.bufs = q.bufs[n-1][:0], q.bufs[:n-1]
	}
	c := *r
	c.data = append(b, r.data...)
	if len(r.comments) > 0 {
		c.comments = append([]string(nil), r.comments...)
	}
	q.qs[r.iface] = append(q.qs[r.iface], c)
	q.n++
}

// pop removes the earliest queued frame (the lowest frame number among
// equal times); its data is valid until the next pop.
func (q *mergeQ) pop() *record {
	best := -1
	for i, x := range q.qs {
		if len(x) == 0 {
			continue
		}
		if best < 0 || x[0].t < q.qs[best][0].t || x[0].t == q.qs[best][0].t && x[0].no < q.qs[best][0].no {
			best = i
		}
	}
	if q.out.data != nil {
		q.bufs = append(q.bufs, q.out.data)
	}
	q.out = q.qs[best][0]
	q.qs[best] = q.qs[best][1:]
	if len(q.qs[best]) == 0 {
		q.qs[best] = q.qs[best][:0:0]
	}
	q.n--
	return &q.out
}

// interfaceNames reads the interface names of a pcapng capture declared
// before its first frame (where writers put them), and their sections.
func interfaceNames(path string) (names []string, sections []int, res int64) {
	res = 1
	r, err := pcapio.Open(path)
	if err != nil {
		return nil, nil, res
	}
	defer r.Close()
	r.Next()
	for i := 0; i < r.NInterfaces(); i++ {
		in := r.Interface(i)
		names = append(names, in.Name)
		sections = append(sections, in.Section)
		res = max(res, in.Resolution)
	}
	if !r.IsPcapng() {
		res = max(res, r.Interface(0).Resolution)
	}
	return names, sections, res
}

// Digest returns the digest of the octets read so far (all of the file
// once it was read to its end), "" without one.
func (s *stream) Digest() string {
	if s.digest == nil {
		return ""
	}
	return s.dig.text(s.digest.Sum(nil))
}

func (s *stream) closeFiles() {
	s.r.Close()
	if s.file0 != nil {
		s.file0.Close()
	}
}

// checkInterfaces requires every port of the case to be a distinct
// interface of a pcapng capture (conformance.md rule 1).
func (s *stream) checkInterfaces() error {
	if !s.r.IsPcapng() {
		return nil
	}
	n := len(s.names)
	seen := map[int]bool{}
	first := map[[2]int]int{} // (section, port) → interface
	for i, name := range s.names {
		p := s.c.portOf(i, name, true)
		if p == noPort {
			continue
		}
		seen[p] = true
		key := [2]int{s.sections[i], p}
		if j, dup := first[key]; dup {
			// Two interfaces of one section named for one port: which
			// one is it? (Sections repeat their interfaces: captures
			// concatenated.)
			return &UnusableError{File: s.file, Reason: fmt.Sprintf("interfaces %d and %d (%q) both stand for port %s: each port must be one interface of a section",
				j, i, name, s.c.PortName(p))}
		}
		first[key] = i
	}
	var missing []string
	named := false
	for _, p := range s.c.Ports {
		if !seen[p.ID] {
			missing = append(missing, fmt.Sprint(p.ID))
		}
		named = named || p.Interface != ""
	}
	if len(missing) == 0 {
		return nil
	}
	if named {
		var want, have []string
		for _, p := range s.c.Ports {
			if p.Interface != "" && !seen[p.ID] {
				want = append(want, fmt.Sprintf("%q", p.Interface))
			}
		}
		for _, name := range s.names {
			have = append(have, fmt.Sprintf("%q", name))
		}
		return &UnusableError{File: s.file, Reason: fmt.Sprintf("port(s) %s have no interface: case.yaml names their interfaces %s, and the capture's interfaces (declared before its first frame) are %s",
			strings.Join(missing, ", "), strings.Join(want, ", "), strings.Join(have, ", "))}
	}
	return &UnusableError{File: s.file, Reason: fmt.Sprintf("the capture declares %d interface(s) before its first frame for the case's %d port(s); port(s) %s have none. "+
		"Every port must be its own capture interface: a capture merged without keeping interfaces cannot say which port a frame left by "+
		"(hint: capture with one -i per port, or merge per-port captures with `mergecap -I none -w out.pcapng p0.pcapng p1.pcapng ...`; "+
		"or name each port's interface in case.yaml)", n, len(s.c.Ports), strings.Join(missing, ", "))}
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
	s.closeFiles()
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
