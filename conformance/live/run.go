// SPDX-License-Identifier: Apache-2.0

package live

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/liveio"
	"github.com/opensfc/sfc/pcapio"
	"github.com/opensfc/sfc/version"
)

// Inconclusive is the verdict of a live run whose capture cannot support
// a verdict (conformance.md rule 9): exit status 3.
const Inconclusive = "INCONCLUSIVE"

// Options set up a live run.
type Options struct {
	// Ports maps the case's ports to host interfaces.
	Ports PortMap
	// Interrupt, when closed, ends a run early (Ctrl-C): sending stops,
	// the captures so far are kept and judged, and the run is
	// INCONCLUSIVE, saying so.
	Interrupt <-chan struct{}
	// Dilate stretches the schedule (and so the tolerances, in wall-clock
	// time) this many times; 0 means 1.
	Dilate float64
	// MaxSlip is how late (in the vector's time, ns) a frame may leave
	// before the run is INCONCLUSIVE; 0 means the case's time tolerance.
	MaxSlip int64
	// Lead is the wall-clock time between opening the ports and the first
	// frame (default 200 ms): the device sees nothing else before it.
	Lead time.Duration
	// Tail is wall-clock time added after the end of the run before the
	// capture stops (default 100 ms), for frames still in flight.
	Tail time.Duration
	// Save, when set, is a directory that keeps each vector's captures
	// and reports (in a sub-directory named after the vector).
	Save string
	// Open opens an interface (default DefaultOpen).
	Open OpenFunc
	// Check are the options of device mode.
	Check conformance.Options
	// DUT names the device under test in reports ("vendor model firmware").
	DUT string
	// OnSchedule, when set, is told the wall-clock instant of the
	// vector's model time 0 (its epoch, else its first input frame as
	// planned) before anything is sent: Sync.SetOrigin, so that an
	// emulated DUT starts its clock where the reference starts its own.
	OnSchedule func(origin time.Time) error
	// DUTLag, when set, gives the lag events a software DUT (sfcdump
	// emulate through a Sync: Sync.Lags) reported for
	// wall-clock instants in [from, to]. A late input, or an output late
	// by more than 1/LagShare of the time tolerance, makes the run
	// INCONCLUSIVE: the DUT's host, not the device it models, fell behind.
	DUTLag func(from, to time.Time) ([]Lag, error)
}

// Slip summarises the schedule achieved: how late frames left against
// their planned instants, in the vector's time (wall-clock slip divided
// by the dilation).
type Slip struct {
	Frames    int   `json:"frames"`
	Tolerance int64 `json:"tolerance_ns"`
	Late      int   `json:"late"`
	MaxNs     int64 `json:"max_ns"`
	MeanNs    int64 `json:"mean_ns"`
	P99Ns     int64 `json:"p99_ns"`
	// WorstFrame is the input frame number that slipped most.
	WorstFrame int `json:"worst_frame"`
	// WallMaxNs is the largest slip in wall-clock time.
	WallMaxNs int64 `json:"wall_max_ns"`
}

// PortResult is what happened on one mapped port.
type PortResult struct {
	Port      string `json:"port"`
	Interface string `json:"interface"`
	Sent      int64  `json:"sent"`
	Captured  int64  `json:"captured"`
	Reference int64  `json:"reference"` // frames the reference sends on it
	// KernelDropped counts the frames the kernel dropped in capture.
	KernelDropped uint64 `json:"kernel_dropped"`
}

// Report is the result of one vector run live: the device-mode report of
// the capture, the schedule achieved, what each port carried, and the
// verdict (Inconclusive when the capture cannot support one).
type Report struct {
	Vector  string   `json:"vector"`
	Harness string   `json:"harness"`
	DUT     string   `json:"dut,omitempty"`
	Dilate  float64  `json:"dilate"`
	Verdict string   `json:"verdict"`
	Reasons []string `json:"reasons,omitempty"`
	// Error is why the vector could not be run (verdict UNUSABLE).
	Error    string              `json:"error,omitempty"`
	Schedule Slip                `json:"schedule"`
	Ports    []PortResult        `json:"ports"`
	Device   *conformance.Report `json:"device,omitempty"`
	// Saved is the directory holding the captures and reports (--save).
	Saved  string `json:"saved,omitempty"`
	WallNs int64  `json:"wall_ns"`
}

// Conformance returns the run as a device-mode report, for the JSON
// Lines and JUnit formats shared with conform run: the device report with
// the live verdict, the live run's reasons as its Notes, and for a vector
// that could not be run an UNUSABLE report carrying the error.
func (r *Report) Conformance() *conformance.Report {
	var c conformance.Report
	if r.Device != nil {
		c = *r.Device
	} else {
		c.Mode = conformance.ModeDevice
	}
	c.Vector, c.Harness, c.DUT, c.Verdict = r.Vector, r.Harness, r.DUT, r.Verdict
	c.Notes = append([]string(nil), r.Reasons...)
	if r.Error != "" {
		c.Error = r.Error
	}
	return &c
}

// ExitCode returns 0 pass, 1 fail, 2 unusable, 3 inconclusive.
func (r *Report) ExitCode() int {
	switch r.Verdict {
	case conformance.Pass:
		return 0
	case conformance.Fail:
		return 1
	case Inconclusive:
		return 3
	}
	return 2
}

// judge is the one place live mode calls device mode: it checks the
// device capture dev against the reference for the input as sent.
func judge(c *conformance.Case, input, dev string, o conformance.Options) (*conformance.Report, error) {
	return conformance.CheckDevice(c, input, dev, o)
}

type unusable struct{ msg string }

func (u *unusable) Error() string { return u.msg }

func unusablef(format string, args ...any) error { return &unusable{fmt.Sprintf(format, args...)} }

// Run runs the vector in dir live: it sends its input on the mapped
// interfaces, captures them, and judges the capture in device mode.
func Run(dir string, o Options) *Report {
	start := time.Now()
	rep := &Report{Vector: dir, Harness: version.String(), DUT: o.DUT, Dilate: o.dilate(), Ports: []PortResult{}}
	if err := run(dir, o, rep); err != nil {
		rep.Verdict, rep.Error = conformance.Unusable, err.Error()
	}
	rep.WallNs = time.Since(start).Nanoseconds()
	if rep.Saved != "" {
		if err := rep.save(rep.Saved); err != nil && rep.Error == "" {
			rep.Error = "saving the report: " + err.Error()
		}
	}
	return rep
}

func (o *Options) dilate() float64 {
	if o.Dilate <= 0 {
		return 1
	}
	return o.Dilate
}

// plan is what a pre-scan of the input and the reference output tell.
type plan struct {
	inPorts  map[int]int64 // input frames per port
	refPorts map[int]int64 // reference frames per port
	t0       int64         // first input frame, ns since 1970
	last     int64         // last input frame
	refLast  int64         // last reference frame
}

// total is the number of input frames.
func (p *plan) total() int64 {
	var n int64
	for _, k := range p.inPorts {
		n += k
	}
	return n
}

func scanInput(c *conformance.Case, input string, maxFrame func(port int, tagged bool) int) (*plan, error) {
	r, err := pcapio.Open(input)
	if err != nil {
		return nil, unusablef("%s: %v", input, err)
	}
	defer r.Close()
	p := &plan{inPorts: map[int]int64{}, refPorts: map[int]int64{}, t0: -1}
	for {
		fr, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, unusablef("%s: %v", input, err)
		}
		port := portOfIface(c, r, fr.Interface)
		if port < 0 {
			return nil, unusablef("%s: frame %d is on interface %d, which is no port of the case", input, fr.Number, fr.Interface)
		}
		if len(fr.Data) < 14 {
			return nil, unusablef("%s: frame %d has %d octets, less than an Ethernet header: live mode cannot send it (the malformed vectors are replay-only)", input, fr.Number, len(fr.Data))
		}
		if fr.Len > len(fr.Data) {
			return nil, unusablef("%s: frame %d is cut to %d of %d octets", input, fr.Number, len(fr.Data), fr.Len)
		}
		if maxFrame != nil {
			tagged := len(fr.Data) >= 14 && device.IsVLANTPID(binary.BigEndian.Uint16(fr.Data[12:]))
			if m := maxFrame(port, tagged); m > 0 && len(fr.Data) > m {
				return nil, unusablef("%s: frame %d has %d octets, more than the MTU of port %s's interface lets through (%d): raise its MTU (ip link set DEV mtu 9000)", input, fr.Number, len(fr.Data), c.PortName(port), m)
			}
		}
		if fr.Time.IsZero() {
			return nil, unusablef("%s: frame %d has no timestamp (a pcapng simple packet block): live mode sends each frame at its time", input, fr.Number)
		}
		t := fr.Time.UnixNano()
		if p.t0 < 0 {
			p.t0 = t
		}
		p.last = t
		p.inPorts[port]++
	}
	if p.t0 < 0 {
		return nil, unusablef("%s: no frames to send", input)
	}
	return p, nil
}

// portOfIface maps an input interface to a port id as device mode does:
// by name when the case's ports name interfaces, else by index.
func portOfIface(c *conformance.Case, r *pcapio.Reader, iface int) int {
	if !r.IsPcapng() {
		if len(c.Ports) > 0 {
			return c.Ports[0].ID
		}
		return 0
	}
	if id, ok := portID(c, r.Interface(iface).Name); ok {
		return id
	}
	names := c.InterfaceNames()
	if iface < len(names) && !strings.HasPrefix(names[iface], "unused") {
		return iface
	}
	return -1
}

// reference runs the reference model on the input and counts its frames
// per port (the ports a device must not leave silent) and its last time.
func reference(c *conformance.Case, input, out string, p *plan) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	_, gerr := conformance.Generate(c, input, f)
	if err := f.Close(); err != nil && gerr == nil {
		gerr = err
	}
	if gerr != nil {
		return unusablef("the reference model: %v", gerr)
	}
	r, err := pcapio.Open(out)
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		fr, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		p.refPorts[fr.Interface]++
		p.refLast = max(p.refLast, fr.Time.UnixNano())
	}
}

func safeName(dir string) string {
	d := filepath.Clean(dir)
	if abs, err := filepath.Abs(d); err == nil {
		if rel, err := filepath.Rel(".", abs); err == nil && !strings.HasPrefix(rel, "..") {
			d = rel
		} else {
			d = filepath.Join(filepath.Base(filepath.Dir(abs)), filepath.Base(abs))
		}
	}
	d = strings.TrimPrefix(d, "pcaps"+string(filepath.Separator))
	return strings.NewReplacer(string(filepath.Separator), "_", ":", "_").Replace(d)
}

func run(dir string, o Options, rep *Report) error {
	c, err := conformance.LoadCase(filepath.Join(dir, conformance.CaseFile))
	if err != nil {
		return err
	}
	input := filepath.Join(dir, "input.pcapng")
	n := o.dilate()
	tol := int64(1000)
	if c.Tol.TimeSet {
		tol = c.Tol.Time
	}
	maxSlip := o.MaxSlip
	if maxSlip <= 0 {
		maxSlip = tol
	}
	rep.Schedule.Tolerance = maxSlip

	ids, _, err := o.Ports.Resolve(c)
	if err != nil {
		return err
	}
	// Work directory: kept with --save, else removed.
	var work string
	if o.Save != "" {
		work = saveDir(o.Save, dir)
		if err := os.MkdirAll(work, 0o755); err != nil {
			return err
		}
		rep.Saved = work
	} else {
		work, err = os.MkdirTemp("", "sfc-live-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(work)
	}

	p, err := scanInput(c, input, nil)
	if err != nil {
		return err
	}
	if err := reference(c, input, filepath.Join(work, "reference.pcapng"), p); err != nil {
		return err
	}
	// Every port with input needs an interface; ports the reference
	// sends on are checked only when mapped (a NIC's host side may be
	// left out), but a switch port the reference sends on must be mapped.
	var missing []string
	for _, id := range sortedKeys(p.inPorts) {
		if _, ok := ids[id]; !ok {
			missing = append(missing, fmt.Sprintf("port %s carries %d input frames", c.PortName(id), p.inPorts[id]))
		}
	}
	for _, id := range sortedKeys(p.refPorts) {
		if _, ok := ids[id]; !ok && p.inPorts[id] == 0 && c.PortName(id) != "host" {
			missing = append(missing, fmt.Sprintf("the reference sends %d frames on port %s", p.refPorts[id], c.PortName(id)))
		}
	}
	if len(missing) > 0 {
		return unusablef("no --port for: %s", strings.Join(missing, "; "))
	}

	open := o.Open
	if open == nil {
		open = DefaultOpen
	}
	ports, taps := map[int]*liveio.Port{}, map[int]*liveio.Port{}
	defer func() {
		for _, pt := range ports {
			pt.Close()
		}
		for _, pt := range taps {
			pt.Close()
		}
	}()
	for _, id := range sortedKeys(ids) {
		pt, err := open(ids[id], liveio.Options{Promisc: true})
		if err != nil {
			return unusablef("port %s: %v", c.PortName(id), err)
		}
		ports[id] = pt
		if p.inPorts[id] > 0 {
			// A second socket sees the frames the first sends, with the
			// kernel's timestamp: the achieved schedule.
			if taps[id], err = open(ids[id], liveio.Options{Outgoing: true}); err != nil {
				return unusablef("port %s: %v", c.PortName(id), err)
			}
		}
	}
	if _, err := scanInput(c, input, func(port int, tagged bool) int { return ports[port].MaxFrame(tagged) }); err != nil {
		return err
	}

	names := c.InterfaceNames()
	mkIfs := func(what string) []liveio.Interface {
		ifs := make([]liveio.Interface, len(names))
		for i, nm := range names {
			ifs[i] = liveio.Interface{Name: nm, Speed: speedOf(c, i)}
			if h, ok := ids[i]; ok {
				ifs[i].Description = what + " " + h
			}
		}
		return ifs
	}
	inPath, devPath := filepath.Join(work, "input.pcapng"), filepath.Join(work, "device.pcapng")
	inF, err := os.Create(inPath + ".tmp")
	if err != nil {
		return err
	}
	defer inF.Close()
	devF, err := os.Create(devPath + ".tmp")
	if err != nil {
		return err
	}
	defer devF.Close()
	app := "sfcdump conform live " + version.String()
	inW, err := liveio.NewNgWriter(inF, app, mkIfs("sent on"))
	if err != nil {
		return err
	}
	devW, err := liveio.NewNgWriter(devF, app, mkIfs("captured on"))
	if err != nil {
		return err
	}

	// Time: wall-clock instant w is vector time t0 + (w − wallStart) / n.
	lead := cmp.Or(o.Lead, 200*time.Millisecond)
	wallStart := time.Now().Add(lead)
	toVec := func(w time.Time) time.Time {
		return time.Unix(0, p.t0+int64(float64(w.Sub(wallStart).Nanoseconds())/n))
	}
	toWall := func(t int64) time.Time { return wallStart.Add(time.Duration(float64(t-p.t0) * n)) }

	if o.OnSchedule != nil {
		base := p.t0
		if c.HasEpoch {
			base = c.Epoch.UnixNano()
		}
		if err := o.OnSchedule(toWall(base)); err != nil {
			return unusablef("telling the emulator the schedule: %v", err)
		}
	}

	capt := &liveio.Capture{Start: wallStart, Map: toVec}
	var cports []liveio.CapturePort
	for _, id := range sortedKeys(ports) {
		cports = append(cports, liveio.CapturePort{Port: ports[id], Iface: id})
	}
	capt.Run(devW, cports)

	tapped := startTaps(taps)
	// Spinning before each frame buys microseconds; where the slip
	// allowed is 100 times the spin or more in wall-clock time (a
	// dilated run), it only takes a core from the device under test
	// (the emulator, when it runs on this host).
	spin := liveio.Spin
	if float64(maxSlip)*n >= 100*float64(spin) {
		spin = 0
	}
	sent, sendErr := send(c, input, ports, toWall, spin, o.Interrupt)
	stopped := Interrupted(o.Interrupt)
	end := max(p.last, p.refLast)
	if c.End > 0 {
		base := p.t0
		if c.HasEpoch {
			base = c.Epoch.UnixNano()
		}
		end = max(end, base+c.End)
	}
	endWall := toWall(end + 2*tol).Add(cmp.Or(o.Tail, 100*time.Millisecond))
	if stopped || waitOrInterrupt(endWall, liveio.Spin, o.Interrupt) {
		stopped, endWall = true, time.Now()
	}
	res, capErr := capt.Stop(endWall)
	slips, untimed := tapped.stop().achieved(sent)
	// A send that failed part-way (an interface went down) leaves a void
	// run, INCONCLUSIVE with its reason, and the frames it sent saved;
	// one that sent nothing is UNUSABLE (nothing reached the device).
	var sendFailed error
	if sendErr != nil && len(sent) > 0 {
		sendFailed, sendErr = sendErr, nil
	}
	if sendErr == nil {
		sendErr = writeSent(input, inW, sent, toVec, n, false)
	}
	if err := inW.Flush(); err != nil {
		return err
	}
	for _, f := range []*os.File{inF, devF} {
		if err := f.Close(); err != nil {
			return err
		}
	}
	for _, pth := range []string{inPath, devPath} {
		if err := os.Rename(pth+".tmp", pth); err != nil {
			return err
		}
	}
	if sendErr != nil {
		return sendErr
	}

	// The schedule achieved.
	rep.Schedule = summarise(slips, n, maxSlip)
	var reasons []string
	if stopped {
		reasons = append(reasons, fmt.Sprintf("interrupted (SIGINT or SIGTERM) after %d of %d input frames were sent: what the device sent after is unknown", len(sent), p.total()))
	}
	if sendFailed != nil {
		reasons = append(reasons, fmt.Sprintf("sending failed after %d of %d input frames: %v", len(sent), p.total(), sendFailed))
	}
	if rep.Schedule.Late > 0 {
		reasons = append(reasons, fmt.Sprintf("sending slipped: %d of %d frames left more than %s after their planned time (worst: input frame %d, %s late in vector time, %s in wall-clock time); raise --dilate",
			rep.Schedule.Late, rep.Schedule.Frames, fmtNs(maxSlip), rep.Schedule.WorstFrame, fmtNs(rep.Schedule.MaxNs), fmtNs(rep.Schedule.WallMaxNs)))
	}
	if untimed > 0 {
		reasons = append(reasons, fmt.Sprintf("%d of %d frames sent have no kernel transmit timestamp (the send tap missed them): the schedule achieved is unknown", untimed, len(sent)))
	}
	perPort := map[int]int64{}
	for _, f := range sent {
		perPort[f.port]++
	}
	for _, r := range res {
		pr := PortResult{Port: c.PortName(r.Iface), Interface: r.Name, Sent: perPort[r.Iface], Captured: r.Frames,
			Reference: p.refPorts[r.Iface], KernelDropped: r.Stats.Dropped}
		rep.Ports = append(rep.Ports, pr)
		if r.Stats.Dropped > 0 {
			reasons = append(reasons, fmt.Sprintf("the kernel dropped %d frames in capture on %s (port %s, PACKET_STATISTICS)", r.Stats.Dropped, r.Name, pr.Port))
		}
		if r.Err != "" {
			reasons = append(reasons, fmt.Sprintf("capture on %s (port %s) ended early: %s", r.Name, pr.Port, r.Err))
		}
		if r.Frames == 0 && pr.Reference > 0 {
			reasons = append(reasons, fmt.Sprintf("port %s (%s) stayed silent: the reference sends %d frames there", pr.Port, r.Name, pr.Reference))
		}
	}
	if capErr != nil {
		reasons = append(reasons, "capture: "+capErr.Error())
	}
	if o.DUTLag != nil {
		ev, err := o.DUTLag(wallStart.Add(-lead), endWall)
		if err != nil {
			reasons = append(reasons, "the emulator's lag log: "+err.Error())
		}
		reasons = append(reasons, lagReasons(ev, n, tol)...)
		reasons = append(reasons, deliveryReasons(sent, ev, c.PortName, n, tol)...)
	}

	dev, err := judge(c, inPath, devPath, o.Check)
	rep.Device = dev
	if dev != nil {
		dev.Vector = dir
		// The vector's digest is of its own files (as conform check and
		// conform run give it), not of the input as this run sent it.
		dev.VectorDigest = o.Check.Digest.Files(filepath.Join(dir, conformance.CaseFile), input)
		if o.Save == "" {
			// Its file goes with the work directory: name none that is
			// gone (the digest still identifies it).
			dev.Input, dev.Compared = "(not kept: --save DIR keeps it)", "(not kept: --save DIR keeps it)"
		}
	}
	if err != nil {
		var ce conformance.CaseErrors
		if errors.As(err, &ce) || conformance.IsUnusable(err) && len(reasons) == 0 {
			return err
		}
		// The capture itself is unreadable for device mode (an
		// unreadable capture is a harness problem when the capture is
		// ours): say why, with the other reasons.
		reasons = append(reasons, "device mode could not use the capture: "+err.Error())
	}
	if len(reasons) == 0 && dev != nil && dev.Verdict == conformance.Fail {
		r, err := rounding(c, input, work, app, mkIfs("received on"), sent, toVec, n, o.Check)
		if err != nil {
			return err
		}
		if r != "" {
			reasons = append(reasons, r)
		}
	}
	rep.Reasons = reasons
	switch {
	case len(reasons) > 0:
		rep.Verdict = Inconclusive
	case dev.ExitCode() == 3:
		rep.Verdict = Inconclusive
	default:
		rep.Verdict = dev.Verdict
	}
	return nil
}

type slip struct {
	frame int
	wall  int64 // ns late, wall clock
}

// sentFrame is one input frame as sent: when it was planned, when the
// send began (a fallback) and the kernel's transmit time (0: unknown).
type sentFrame struct {
	no      int
	port    int
	hash    uint64
	planned time.Time
	before  time.Time
	kernel  time.Time
	// rx is when the emulator received it (its LagRx log; zero: unknown).
	rx time.Time
}

func hashFrame(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// savesMu guards saves: the --save sub-directories this process gave out.
var (
	savesMu sync.Mutex
	saves   = map[string]bool{}
)

// saveDir is the sub-directory of save for vector dir: its safe name, or
// with "-2", "-3", ... when another vector of this process had it (two
// vectors of one name in different folders keep their own evidence).
func saveDir(save, dir string) string {
	savesMu.Lock()
	defer savesMu.Unlock()
	base := filepath.Join(save, safeName(dir))
	work := base
	for i := 2; saves[work]; i++ {
		work = base + "-" + strconv.Itoa(i)
	}
	saves[work] = true
	return work
}

// Interrupted reports whether ch (an Options.Interrupt) is closed; never
// for a nil ch.
func Interrupted(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// waitOrInterrupt waits until at as liveio.WaitUntilSpin does, unless ch
// is closed first; it reports whether it was.
func waitOrInterrupt(at time.Time, spin time.Duration, ch <-chan struct{}) bool {
	if ch == nil {
		liveio.WaitUntilSpin(at, spin)
		return false
	}
	if d := time.Until(at) - spin; d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ch:
			return true
		}
	}
	liveio.WaitUntilSpin(at, spin)
	return Interrupted(ch)
}

// send sends every input frame on its port at its planned instant
// (polling the clock for the last spin before it), until the input ends
// or stop is closed.
func send(c *conformance.Case, input string, ports map[int]*liveio.Port, toWall func(int64) time.Time, spin time.Duration, stop <-chan struct{}) ([]sentFrame, error) {
	r, err := pcapio.Open(input)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var sent []sentFrame
	for {
		fr, err := r.Next()
		if err == io.EOF {
			return sent, nil
		}
		if err != nil {
			return sent, err
		}
		port := portOfIface(c, r, fr.Interface)
		planned := toWall(fr.Time.UnixNano())
		if waitOrInterrupt(planned, spin, stop) {
			return sent, nil
		}
		at := time.Now()
		if err := ports[port].Write(fr.Data); err != nil {
			return sent, fmt.Errorf("input frame %d: %w", fr.Number, err)
		}
		sent = append(sent, sentFrame{no: fr.Number, port: port, hash: hashFrame(fr.Data), planned: planned, before: at})
	}
}

// writeSent writes the input frames to w at the vector time of their
// achieved send times, each with a comment giving its slip.
//
// With received set, each frame is written at the vector time the
// emulator received it instead (it must have one): the input as the
// emulated device's model took it.
func writeSent(input string, w *liveio.NgWriter, sent []sentFrame, toVec func(time.Time) time.Time, n float64, received bool) error {
	r, err := pcapio.Open(input)
	if err != nil {
		return err
	}
	defer r.Close()
	var last time.Time
	for _, s := range sent {
		fr, err := r.Next()
		if err != nil {
			return err
		}
		at, how := s.kernel, "kernel transmit time"
		if at.IsZero() {
			at, how = s.before, "no kernel timestamp: time the send began"
		}
		slip := time.Duration(float64(at.Sub(s.planned)) / n)
		comment := fmt.Sprintf("live: sent %s after its planned time (%s)", slip, how)
		if received {
			at, comment = s.rx, fmt.Sprintf("live: received by the emulator %s after its planned time", time.Duration(float64(s.rx.Sub(s.planned))/n))
		}
		vt := toVec(at)
		if vt.Before(last) { // the wall clock stepped back
			vt = last
		}
		last = vt
		if err := w.WritePacket(s.port, vt, fr.Data, fr.Len, liveio.DirOutbound, comment); err != nil {
			return err
		}
	}
	return nil
}

// taps read the frames sent on each port back from a second socket,
// with the kernel's transmit timestamps.
type taps struct {
	ports map[int]*liveio.Port
	seen  map[int][]tapped
	mu    sync.Mutex
	wg    sync.WaitGroup
}

type tapped struct {
	hash uint64
	t    time.Time
}

func startTaps(ports map[int]*liveio.Port) *taps {
	tp := &taps{ports: ports, seen: map[int][]tapped{}}
	for id, p := range ports {
		tp.wg.Add(1)
		go func(id int, p *liveio.Port) {
			defer tp.wg.Done()
			for {
				fr, err := p.Read()
				if err != nil {
					return
				}
				x := tapped{hashFrame(fr.Data), fr.Time}
				tp.mu.Lock()
				tp.seen[id] = append(tp.seen[id], x)
				tp.mu.Unlock()
			}
		}(id, p)
	}
	return tp
}

func (tp *taps) stop() *taps {
	for _, p := range tp.ports {
		_ = p.StopReading()
	}
	tp.wg.Wait()
	return tp
}

// achieved gives each sent frame its kernel transmit time, matching the
// tapped frames of its port in order, and returns the slips and how many
// frames found no timestamp.
func (tp *taps) achieved(sent []sentFrame) ([]slip, int) {
	next := map[int]int{}
	untimed := 0
	slips := make([]slip, 0, len(sent))
	for i := range sent {
		s := &sent[i]
		seen := tp.seen[s.port]
		for j := next[s.port]; j < len(seen); j++ {
			if seen[j].hash == s.hash {
				s.kernel = seen[j].t
				next[s.port] = j + 1
				break
			}
		}
		at := s.kernel
		if at.IsZero() {
			untimed++
			at = s.before
		}
		slips = append(slips, slip{s.no, max(0, at.Sub(s.planned).Nanoseconds())})
	}
	return slips, untimed
}

func summarise(s []slip, n float64, tol int64) Slip {
	out := Slip{Frames: len(s), Tolerance: tol}
	if len(s) == 0 {
		return out
	}
	v := make([]int64, len(s))
	var sum float64
	for i, x := range s {
		ns := int64(math.Ceil(float64(x.wall) / n))
		v[i] = ns
		sum += float64(ns)
		if ns > tol {
			out.Late++
		}
		if x.wall > out.WallMaxNs || i == 0 {
			out.WallMaxNs, out.MaxNs, out.WorstFrame = x.wall, ns, x.frame
		}
	}
	slices.Sort(v)
	out.MeanNs = int64(sum / float64(len(v)))
	out.P99Ns = v[min(len(v)-1, len(v)*99/100)]
	return out
}

func sortedKeys[V any](m map[int]V) []int {
	var k []int
	for id := range m {
		k = append(k, id)
	}
	slices.Sort(k)
	return k
}

func fmtNs(ns int64) string { return time.Duration(ns).String() }

// rounding looks into a FAIL against an emulator that logged its inputs
// (a Sync): the emulator's model takes each frame at the nanosecond of
// vector time it received it, the reference replays it at the
// nanosecond it left, and the host's delivery delay (a fraction of a
// nanosecond at a high dilation) can carry a frame across a nanosecond.
// Where a frame crossed one and the reference, replaying the input as
// the emulator received it, finds no deviation, the verdict rests on
// where the host's delay fell against the rounding (a frame on a tick
// or on another frame's time is taken on the other side of it): the run
// cannot support a verdict, and rounding returns the reason (else "").
func rounding(c *conformance.Case, input, work, app string, ifs []liveio.Interface, sent []sentFrame, toVec func(time.Time) time.Time, n float64, o conformance.Options) (string, error) {
	moved, first := 0, ""
	for _, s := range sent {
		if s.rx.IsZero() {
			return "", nil // not every frame logged: nothing to compare
		}
		tx := s.kernel
		if tx.IsZero() {
			tx = s.before
		}
		if a, b := toVec(tx), toVec(s.rx); !a.Equal(b) {
			if moved == 0 {
				first = fmt.Sprintf("input frame %d left at %s and reached it at %s", s.no, fmtNs(a.UnixNano()%1e9), fmtNs(b.UnixNano()%1e9))
			}
			moved++
		}
	}
	if moved == 0 {
		return "", nil
	}
	path := filepath.Join(work, "input-received.pcapng")
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return "", err
	}
	defer f.Close()
	w, err := liveio.NewNgWriter(f, app, ifs)
	if err != nil {
		return "", err
	}
	if err := writeSent(input, w, sent, toVec, n, true); err != nil {
		return "", err
	}
	if err := w.Flush(); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		return "", err
	}
	dev, err := judge(c, path, filepath.Join(work, "device.pcapng"), o)
	if err != nil || dev.Verdict != conformance.Pass {
		return "", nil // a deviation either way: the FAIL stands
	}
	return fmt.Sprintf("%d input frames reached the emulator in a later nanosecond of vector time than they left (first: %s; the host's delivery delay against the rounding to whole nanoseconds): the reference finds a deviation for the input as sent and none for the input as the emulator's model took it, so the verdict rests on where the delay fell (a frame on a tick or another frame's time, taken on the other side of it); input-received.pcapng holds the input as received", moved, first), nil
}
