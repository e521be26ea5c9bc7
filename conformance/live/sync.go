// SPDX-License-Identifier: Apache-2.0

package live

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Sync is a directory conform live and an emulator share (sfcdump
// conform live --sync DIR, sfcdump emulate --sync DIR), so that a run
// against the emulated reference device is judged on the device, not on
// the host: conform live writes there the wall-clock instant of each
// vector's model time 0 (file "origin"), where the emulator starts a
// fresh device (EmuOptions.Origin); the emulator appends there every time
// it falls behind (file "lag.jsonl", one Lag per line), and conform live
// reads those of its run (Options.DUTLag) to call it INCONCLUSIVE. Both
// processes must run on the same host (one CLOCK_REALTIME).
type Sync struct {
	dir string
	mu  sync.Mutex
	lag *os.File
	err error
}

// The files of a Sync directory.
const (
	SyncOrigin = "origin"
	SyncLag    = "lag.jsonl"
)

// OpenSync makes dir if needed and returns its Sync.
func OpenSync(dir string) (*Sync, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &Sync{dir: dir}, nil
}

// SetOrigin writes the wall-clock instant of the next run's model time 0
// (through a temporary file renamed into place).
func (s *Sync) SetOrigin(t time.Time) error {
	p := filepath.Join(s.dir, SyncOrigin)
	if err := os.WriteFile(p+".tmp", []byte(t.UTC().Format(time.RFC3339Nano)+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(p+".tmp", p)
}

// Origin reads the instant SetOrigin wrote: zero when there is none (or
// it cannot be read). It is EmuOptions.Origin.
func (s *Sync) Origin() time.Time {
	b, err := os.ReadFile(filepath.Join(s.dir, SyncOrigin))
	if err != nil {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(b)))
	if err != nil {
		return time.Time{}
	}
	return t
}

// AddLag appends one event to the lag log. It is EmuOptions.OnLag; the
// first write error is kept for Close.
func (s *Sync) AddLag(x Lag) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lag == nil && s.err == nil {
		s.lag, s.err = os.OpenFile(filepath.Join(s.dir, SyncLag), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	}
	if s.err != nil {
		return
	}
	b, _ := json.Marshal(x)
	if _, err := s.lag.Write(append(b, '\n')); err != nil {
		s.err = err
	}
}

// Lags returns the logged events whose instant is in [from, to]. It is
// Options.DUTLag. A last line still being written is left out.
func (s *Sync) Lags(from, to time.Time) ([]Lag, error) {
	p := filepath.Join(s.dir, SyncLag)
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // the emulator never fell behind
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Lag
	r := bufio.NewReader(f)
	for line := 1; ; line++ {
		b, err := r.ReadBytes('\n')
		if err == io.EOF {
			return out, nil // a partial last line is still being written
		}
		if err != nil {
			return out, err
		}
		var x Lag
		if err := json.Unmarshal(b, &x); err != nil {
			return out, fmt.Errorf("%s: line %d: %v", p, line, err)
		}
		if !x.At.Before(from) && !x.At.After(to) {
			out = append(out, x)
		}
	}
}

// Close closes the lag log and returns the first error writing it.
func (s *Sync) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lag != nil {
		if err := s.lag.Close(); err != nil && s.err == nil {
			s.err = err
		}
		s.lag = nil
	}
	return s.err
}

// LagShare: an emulator's output may lag by 1/LagShare of the time
// tolerance (in vector time) before the run is INCONCLUSIVE. The lag adds
// to the device's latency as captured; a quarter of the tolerance cannot
// turn the reference device's timing into a deviation, and a fault that
// shows in timing needs to be larger than the remaining three quarters.
const LagShare = 4

// lagReasons turns the emulator's lag events of a run into INCONCLUSIVE
// reasons: any input taken late (the device did not see the input as
// sent, perhaps not in its order), and outputs that left more than
// 1/LagShare of the time tolerance late in vector time (n: the dilation).
func lagReasons(ev []Lag, n float64, tol int64) []string {
	var in, out []Lag
	limit := time.Duration(float64(tol) / LagShare * n)
	for _, x := range ev {
		switch {
		case x.Kind == LagInput:
			in = append(in, x)
		case x.Kind == LagOutput && x.Lag > limit:
			out = append(out, x)
		}
	}
	var reasons []string
	worst := func(xs []Lag) Lag {
		w := xs[0]
		for _, x := range xs[1:] {
			if x.Lag > w.Lag {
				w = x
			}
		}
		return w
	}
	vec := func(d time.Duration) string { return fmtNs(int64(float64(d) / n)) }
	if len(in) > 0 {
		w := worst(in)
		reasons = append(reasons, fmt.Sprintf("the emulator took %d input frames late (worst: port %s, %s late in vector time, %s in wall-clock time): the device did not see the input as sent, perhaps not in its order; unload the host or raise the emulator's --settle",
			len(in), w.Port, vec(w.Lag), w.Lag))
	}
	if len(out) > 0 {
		w := worst(out)
		reasons = append(reasons, fmt.Sprintf("the emulator sent %d frames more than a quarter of the %s time tolerance late (worst: port %s, %s late in vector time, %s in wall-clock time): its own lag, not the device's; unload the host or raise --dilate",
			len(out), fmtNs(tol), w.Port, vec(w.Lag), w.Lag))
	}
	return reasons
}

// deliveryReasons compares the frames sent with the emulator's LagRx
// events (what it received, with its kernel receive times): a frame that
// reached it more than 1/LagShare of the time tolerance (vector time)
// after it left, or after a frame sent after it on another port, means
// the device saw an input the reference does not replay (the host's
// kernel held it): INCONCLUSIVE. Frames the emulator never logged are
// left to the other checks (it logs only with --sync).
func deliveryReasons(sent []sentFrame, ev []Lag, name func(int) string, n float64, tol int64) []string {
	if !matchRx(sent, ev, name) {
		return nil
	}
	type got struct {
		no     int
		tx, rx time.Time
	}
	var matched []got
	for _, s := range sent {
		if s.rx.IsZero() {
			continue
		}
		tx := s.kernel
		if tx.IsZero() {
			tx = s.before
		}
		matched = append(matched, got{s.no, tx, s.rx})
	}
	var reasons []string
	limit := time.Duration(float64(tol) / LagShare * n)
	late, worst := 0, got{}
	for _, m := range matched {
		if d := m.rx.Sub(m.tx); d > limit {
			late++
			if d > worst.rx.Sub(worst.tx) {
				worst = m
			}
		}
	}
	if late > 0 {
		d := worst.rx.Sub(worst.tx)
		reasons = append(reasons, fmt.Sprintf("%d input frames reached the emulator more than a quarter of the %s time tolerance after they left (worst: input frame %d, %s in vector time, %s in wall-clock time): the host held them",
			late, fmtNs(tol), worst.no, fmtNs(int64(float64(d)/n)), d))
	}
	slices.SortStableFunc(matched, func(a, b got) int { return a.tx.Compare(b.tx) })
	inverted, first := 0, ""
	var maxRx time.Time
	maxNo := 0
	for _, m := range matched {
		if m.rx.Before(maxRx) {
			if inverted == 0 {
				first = fmt.Sprintf("input frame %d reached it %s before input frame %d, sent before it", m.no, maxRx.Sub(m.rx), maxNo)
			}
			inverted++
			continue
		}
		maxRx, maxNo = m.rx, m.no
	}
	if inverted > 0 {
		reasons = append(reasons, fmt.Sprintf("%d input frames reached the emulator out of the order sent (first: %s): the device did not see the input the reference replays", inverted, first))
	}
	return reasons
}

// matchRx gives each sent frame the time the emulator logged receiving
// it (its LagRx events, matched per port in order by hash; zero: not
// logged), and reports whether it logged any frame at all.
func matchRx(sent []sentFrame, ev []Lag, name func(int) string) bool {
	rx := map[string][]Lag{}
	for _, x := range ev {
		if x.Kind == LagRx {
			rx[x.Port] = append(rx[x.Port], x)
		}
	}
	if len(rx) == 0 {
		return false
	}
	next := map[string]int{}
	for i := range sent {
		s := &sent[i]
		p := name(s.port)
		seen := rx[p]
		for j := next[p]; j < len(seen); j++ {
			if seen[j].Hash == s.hash {
				s.rx = seen[j].At
				next[p] = j + 1
				break
			}
		}
	}
	return true
}
