// SPDX-License-Identifier: Apache-2.0

package live

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/liveio"
)

// EmuOptions set up Emulate.
type EmuOptions struct {
	// Dilate slows the device's clock down this many times against the
	// wall clock (0 means 1).
	Dilate float64
	// Fault, when set, makes the emulator a faulty device (for tests).
	Fault *Fault
	// Settle is how long a frame is held after its receive time before
	// the device takes it (default 1 ms; negative: 0): frames read from
	// several ports by several threads go in in receive-time order. The
	// device's latency grows by Settle/Dilate in model time.
	Settle time.Duration
	// Origin, when set, gives the wall-clock instant of model time 0
	// (zero: not known). It is asked at every frame read: when it gives
	// a new instant, not after the frame's receive time, the emulator
	// starts a fresh device whose clock starts there (the frames and
	// timers of the old one are dropped). conform live gives the instant
	// of its vector's epoch (Options.OnSchedule; a Sync), so that the
	// device's periodic timers (PFC refresh, BFC and Floodgate ticks,
	// pause expiries) keep the phase the reference gives them. Without
	// it, model time 0 is the receive time of the first frame: late by
	// the first frame's send slip, which moves every timer against the
	// inputs and, for an input due on a tick, changes what the device
	// does.
	Origin func() time.Time
	// Ready, when set, is called once every port is being read.
	Ready func()
	// OnLag, when set, is called (from the emulator's goroutine) each
	// time the emulator falls behind: an input taken late, or an output
	// sent more than Settle after its due time beyond the settle time.
	// conform live uses them (through a Sync) to call a run against the
	// emulator INCONCLUSIVE rather than judge a stalled machine.
	OnLag func(Lag)
	// LogInputs makes OnLag hear of every frame received too (Kind
	// LagRx), for conform live to compare with what it sent.
	LogInputs bool
}

// Lag is one moment the emulator fell behind the wall clock: a software
// device's own lag, which says nothing about the device it models.
type Lag struct {
	// At is the wall-clock instant the frame was received (input) or due
	// to leave (output).
	At time.Time `json:"at"`
	// Kind is LagInput or LagOutput.
	Kind string `json:"kind"`
	// Port is the port's name in the case.
	Port string `json:"port"`
	// Hash identifies the frame of an LagRx event (FNV-64a of its octets).
	Hash uint64 `json:"hash,omitempty"`
	// Lag is how late, in wall-clock time: for an input, how far the
	// device's clock had passed its receive time when it was taken (it
	// went in at the current model time, perhaps after frames that came
	// later); for an output, how long after its due time it left, beyond
	// the settle time.
	Lag time.Duration `json:"lag_ns"`
}

// The kinds of Lag.
const (
	LagInput  = "input"
	LagOutput = "output"
	// LagRx is every frame received (with EmuOptions.LogInputs), Lag 0:
	// conform live checks each reached the emulator soon after it left,
	// and in the order sent.
	LagRx = "rx"
)

// EmuPort is what the emulator did on one port.
type EmuPort struct {
	Port      string `json:"port"`
	Interface string `json:"interface"`
	In        int64  `json:"in"`
	Out       int64  `json:"out"`
	// KernelDropped counts frames the kernel dropped before the
	// emulator read them (PACKET_STATISTICS): the device never saw them.
	KernelDropped uint64 `json:"kernel_dropped"`
	SendErrors    int64  `json:"send_errors"`
}

// Summary is what an emulator run did.
type Summary struct {
	Device  string         `json:"device"`
	Schemes []string       `json:"schemes"`
	Dilate  float64        `json:"dilate"`
	Wall    time.Duration  `json:"wall_ns"`
	Model   int64          `json:"model_ns"` // model time reached
	Ports   []EmuPort      `json:"ports"`
	Signals map[string]int `json:"signals"` // generated frames by kind
	// Drops are the model's own drops by reason (device.Record).
	Drops map[string]int64 `json:"drops,omitempty"`
	// LateInputs counts frames read after the device's clock had passed
	// their receive time (taken at the current model time instead);
	// MaxInputLag and MaxOutputLag are the worst lags in wall-clock time.
	LateInputs   int64         `json:"late_inputs"`
	MaxInputLag  time.Duration `json:"max_input_lag_ns"`
	MaxOutputLag time.Duration `json:"max_output_lag_ns"`
	Faults       []string      `json:"faults,omitempty"`
	// Devices counts the devices run: 1, plus one per new origin.
	Devices int           `json:"devices"`
	Settle  time.Duration `json:"settle_ns"`
}

// String renders the summary in a few lines.
func (s *Summary) String() string {
	out := fmt.Sprintf("emulated %s (%v) for %s wall clock, %s model time (dilate %g)\n", s.Device, s.Schemes,
		s.Wall.Round(time.Millisecond), time.Duration(s.Model), s.Dilate)
	for _, p := range s.Ports {
		out += fmt.Sprintf("  port %-5s %-12s in %d, out %d, kernel drops %d, send errors %d\n", p.Port, p.Interface, p.In, p.Out, p.KernelDropped, p.SendErrors)
	}
	kinds := make([]string, 0, len(s.Signals))
	for k := range s.Signals {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	out += "  signals sent:"
	if len(kinds) == 0 {
		out += " none"
	}
	for _, k := range kinds {
		out += fmt.Sprintf(" %s %d", k, s.Signals[k])
	}
	out += "\n"
	if len(s.Drops) > 0 {
		out += fmt.Sprintf("  model drops: %v\n", s.Drops)
	}
	out += fmt.Sprintf("  late inputs %d, worst input lag %s, worst output lag %s (beyond the %s settle time)\n", s.LateInputs, s.MaxInputLag, s.MaxOutputLag, s.Settle)
	if s.Devices > 1 {
		out += fmt.Sprintf("  devices: %d (a fresh one at each origin conform live gave)\n", s.Devices)
	}
	for _, f := range s.Faults {
		out += "  fault injected: " + f + "\n"
	}
	return out
}

type emuIn struct {
	port int
	t    time.Time
	data []byte
}

// Emulate runs the reference device of c (built by conformance.BuildModel)
// on the given ports (port id → open port) until ctx is done, and returns
// what it did.
func Emulate(ctx context.Context, c *conformance.Case, ports map[int]*liveio.Port, o EmuOptions) (*Summary, error) {
	m, err := conformance.BuildModel(c)
	if err != nil {
		return nil, err
	}
	d := m.Dev
	devices := 1
	n := o.Dilate
	if n <= 0 {
		n = 1
	}
	sum := &Summary{Device: d.Name(), Schemes: c.Schemes, Dilate: n, Signals: map[string]int{}}
	ids := sortedKeys(ports)
	idx := map[int]int{}
	for i, id := range ids {
		idx[id] = i
		sum.Ports = append(sum.Ports, EmuPort{Port: c.PortName(id), Interface: ports[id].Name()})
	}

	settle := o.Settle
	if settle == 0 {
		settle = time.Millisecond
	}
	settle = max(settle, 0)
	sum.Settle = settle
	var wall0 time.Time
	started := false
	toModel := func(w time.Time) int64 { return int64(float64(w.Sub(wall0).Nanoseconds()) / n) }
	toWall := func(t int64) time.Time { return wall0.Add(time.Duration(float64(t) * n)) }

	fault := o.Fault
	var sendBuf []byte
	onOutput := func(out device.Out) {
		pt, ok := ports[out.Port]
		if out.Generated {
			sum.Signals[out.Kind.String()]++
		}
		if !ok {
			return // a port with no interface
		}
		frame := out.Frame
		if fault != nil {
			var keep bool
			sendBuf = append(sendBuf[:0], frame...)
			frame, keep = fault.apply(out, sendBuf, c)
			if !keep {
				return
			}
		}
		due := toWall(out.Time)
		lag := time.Since(due) - settle
		if lag > sum.MaxOutputLag {
			sum.MaxOutputLag = lag
		}
		if lag > settle && o.OnLag != nil {
			o.OnLag(Lag{At: due, Kind: LagOutput, Port: c.PortName(out.Port), Lag: lag})
		}
		ep := &sum.Ports[idx[out.Port]]
		if err := pt.Write(frame); err != nil {
			ep.SendErrors++
			return
		}
		ep.Out++
	}
	d.OnOutput(onOutput)
	// record adds the drops of the device to the summary.
	record := func() {
		for _, dr := range d.Record().Drops {
			if sum.Drops == nil {
				sum.Drops = map[string]int64{}
			}
			sum.Drops[dr.Reason] += dr.Frames
		}
	}
	// origin is the wall-clock instant of the current device's model
	// time 0 when Origin gave it.
	var origin time.Time

	in := make(chan emuIn, 4096)
	var wg sync.WaitGroup
	readErr := make(chan error, len(ids))
	for _, id := range ids {
		wg.Add(1)
		go func(id int, p *liveio.Port) {
			defer wg.Done()
			for {
				fr, err := p.Read()
				if err != nil {
					if !errors.Is(err, liveio.ErrClosed) {
						readErr <- err
					}
					return
				}
				select {
				case in <- emuIn{id, fr.Time, append([]byte(nil), fr.Data...)}:
				case <-ctx.Done():
					return
				}
			}
		}(id, ports[id])
	}
	if o.Ready != nil {
		o.Ready()
	}
	feed := func(f emuIn) error {
		if o.Origin != nil {
			if org := o.Origin(); !org.IsZero() && !org.Equal(origin) && !f.t.Before(org) {
				// A new run's clock: a fresh device, model time 0 at org.
				if started {
					record()
					nm, err := conformance.BuildModel(c)
					if err != nil {
						return err
					}
					d = nm.Dev
					d.OnOutput(onOutput)
					devices++
				}
				origin, wall0, started = org, org, true
			}
		}
		if !started {
			wall0, started = f.t, true
		}
		t := toModel(f.t)
		if now := d.Now(); t < now {
			sum.LateInputs++
			lag := time.Duration(float64(now-t) * n)
			if lag > sum.MaxInputLag {
				sum.MaxInputLag = lag
			}
			if o.OnLag != nil {
				o.OnLag(Lag{At: f.t, Kind: LagInput, Port: c.PortName(f.port), Lag: lag})
			}
			t = now
		}
		sum.Ports[idx[f.port]].In++
		if o.OnLag != nil && o.LogInputs {
			o.OnLag(Lag{At: f.t, Kind: LagRx, Port: c.PortName(f.port), Hash: hashFrame(f.data)})
		}
		return d.Input(f.port, t, f.data)
	}
	// taken counts the frames each port's reader handed over. Before the
	// device's clock moves, every frame the kernel has queued must be in
	// hand: a reader the scheduler has not run yet would otherwise make
	// its frame late and reorder it after frames that came after it.
	taken := make([]uint64, len(ids))
	holdMax := max(settle, 50*time.Millisecond)
	var holdSince time.Time
	unread := func() bool {
		for i, id := range ids {
			if k, err := ports[id].Unread(taken[i]); err == nil && k > 0 {
				return true
			}
		}
		return false
	}
	begin := time.Now()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	// pend holds the frames read and not yet due, in receive-time order
	// (few: those of the last settle time).
	var pend []emuIn
	var runErr error
loop:
	for {
		// Sleep until the next input is older than settle, or the next
		// event of the device is due (settle late).
		var wakeAt time.Time
		if len(pend) > 0 {
			wakeAt = pend[0].t.Add(settle)
		}
		if started {
			if next := d.Sim().NextEvent(); next != math.MaxInt64 {
				if w := toWall(next).Add(settle); wakeAt.IsZero() || w.Before(wakeAt) {
					wakeAt = w
				}
			}
		}
		if !holdSince.IsZero() && time.Since(holdSince) < holdMax {
			if w := time.Now().Add(time.Millisecond); wakeAt.IsZero() || w.Before(wakeAt) {
				wakeAt = w
			}
		}
		var wake <-chan time.Time
		if !wakeAt.IsZero() {
			timer.Reset(max(0, time.Until(wakeAt)))
			wake = timer.C
		}
		select {
		case <-ctx.Done():
			break loop
		case err := <-readErr:
			runErr = err
			break loop
		case f := <-in:
			taken[idx[f.port]]++
			i, _ := slices.BinarySearchFunc(pend, f, func(a, b emuIn) int { return a.t.Compare(b.t) })
			pend = slices.Insert(pend, i, f)
		case <-wake:
		}
		// The clock may move to now (settle behind the wall clock) once
		// every frame the kernel holds is in hand: those received before
		// now are queued by the time unread looks (unless the kernel
		// itself lagged by more than settle). Wait for the readers (a
		// while at most: a miscount must not stop the clock).
		now := time.Now().Add(-settle)
		if unread() {
			if holdSince.IsZero() {
				holdSince = time.Now()
			}
			if time.Since(holdSince) < holdMax {
				continue
			}
		} else {
			holdSince = time.Time{}
		}
		// Inputs older than settle go in, in receive-time order, each
		// after the events due before it; then the device catches up with
		// the clock.
		for len(pend) > 0 && !pend[0].t.After(now) {
			f := pend[0]
			pend = pend[1:]
			if runErr = feed(f); runErr != nil {
				break loop
			}
		}
		if started {
			if t := toModel(now); t > d.Now() {
				d.AdvanceTo(t)
			}
		}
	}
	for _, id := range ids {
		_ = ports[id].StopReading()
	}
	wg.Wait()
	sum.Wall = time.Since(begin)
	sum.Model = d.Now()
	for i, id := range ids {
		if st, err := ports[id].Stats(); err == nil {
			sum.Ports[i].KernelDropped = st.Dropped
		}
	}
	record()
	sum.Devices = devices
	if fault != nil {
		sum.Faults = fault.applied
	}
	return sum, runErr
}
