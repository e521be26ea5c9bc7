// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/filter"
	"github.com/opensfc/sfc/internal/term"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/pcapio"
	"github.com/opensfc/sfc/stats"
)

func init() { subcommands = append(subcommands, subcommand{name: "stats", make: newStatsCmd}) }

// scanOptions are the flags of the commands that scan whole captures
// (stats, timeline).
type scanOptions struct {
	filter    string
	decodeAs  []string
	linkSpeed []speedSpec
	progress  string
	rFiles    []string
}

// files returns the captures to read: -r ones, then the arguments; none
// is a usage error.
func (o *scanOptions) files(cmd *cobra.Command, args []string) ([]string, error) {
	files := append(append([]string(nil), o.rFiles...), args...)
	if len(files) == 0 {
		return nil, usagef("%s: no capture to read: give FILE or -r FILE ('-' for standard input) (see '%s --help')", cmd.CommandPath(), cmd.CommandPath())
	}
	if err := stdinOnce(cmd.CommandPath(), files); err != nil {
		return nil, err
	}
	return files, nil
}

// stdinOnce refuses standard input ('-') named more than once among the
// captures: the second would find it read to its end (and a -w output
// made from the first would be thrown away with the error).
func stdinOnce(cmd string, files []string) error {
	n := 0
	for _, f := range files {
		if f == "-" {
			n++
		}
	}
	if n > 1 {
		return usagef("%s: standard input ('-') named %d times: it can be read once", cmd, n)
	}
	return nil
}

func (o *scanOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVarP(&o.filter, "display-filter", "Y", "", "take only frames that match FILTER")
	f.StringArrayVar(&o.decodeAs, "decode-as", nil, "decode a UDP port as a protocol: udp.port==N:PROTO (bts, postcard, cim, bth) (repeatable)")
	f.Var(&speedFlag{&o.linkSpeed, "link-speed"}, "link-speed", "link speed for PFC quanta: SPEED or IFACE=SPEED, e.g. 100G, port1=25G (repeatable; default the capture's if_speed when from 1M to 1000T, else 100G)")
	f.Var(&speedFlag{&o.linkSpeed, "speed"}, "speed", "the same as --link-speed; overrides the capture's own (pcapng if_speed)")
	f.StringArrayVarP(&o.rFiles, "read-file", "r", nil, "capture to read, as tshark -r ('-': standard input; repeatable; before the positional FILEs)")
	_ = cmd.RegisterFlagCompletionFunc("read-file", completeCaptures)
	f.StringVar(&o.progress, "progress", "auto", "progress on stderr: auto (on a terminal, for files over 64 MiB), always or never")
	_ = cmd.RegisterFlagCompletionFunc("display-filter", completeFields)
	_ = cmd.RegisterFlagCompletionFunc("progress", cobra.FixedCompletions([]string{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))
}

// scanner reads captures frame by frame for stats and timeline.
type scanner struct {
	o      *scanOptions
	flt    *filter.Filter
	speeds linkSpeeds
	p      *layers.Parser
	frame  dissect.Frame
	errOut io.Writer
	opened int // files that could be opened as captures
	// stop is set by an interrupt (Ctrl-C): the scan ends at the next
	// frame. mu is held while frames are decoded and counted, and let go
	// while a read may wait for input, so that an interrupt that finds the
	// scan waiting can report what was counted (stats' interrupt).
	stop   atomic.Bool
	mu     sync.Mutex
	frames int // frames counted (passed to fn)
	base   int // frames of the files read before: frames are numbered across files, as read numbers them
}

// errInterrupted ends a scan stopped by an interrupt.
var errInterrupted = errors.New("interrupted")

func newScanner(o *scanOptions, errOut io.Writer) (*scanner, error) {
	s := &scanner{o: o, p: layers.NewParser(), errOut: errOut}
	if !filter.Empty(o.filter) { // only spaces: no filter, as tshark's
		f, err := filter.Compile(o.filter)
		if err != nil {
			var se *filter.SyntaxError
			if errors.As(err, &se) {
				return nil, &exitError{2, fmt.Errorf("-Y: %v\n%s", err, indent(se.Caret()))}
			}
			return nil, &exitError{2, err}
		}
		s.flt = f
	}
	switch o.progress {
	case "auto", "always", "never":
	default:
		return nil, &exitError{2, fmt.Errorf("--progress %s: want auto, always or never", o.progress)}
	}
	if err := applyDecodeAs(o.decodeAs); err != nil {
		return nil, &exitError{2, err}
	}
	sp, err := parseLinkSpeeds(o.linkSpeed)
	if err != nil {
		return nil, &exitError{2, err}
	}
	s.speeds = sp
	return s, nil
}

// isTerminal reports whether w is a terminal (term.IsTerminal).
var isTerminal = term.IsTerminal

// scan calls fn for every frame of every file that passes the filter. A
// file that cannot be opened or breaks part-way is reported on stderr and
// the others are still read; the returned error carries the worst status.
func (s *scanner) scan(files []string, fn func(f *dissect.Frame, iface string)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	code := 0
	for _, file := range files {
		err := s.scanOne(file, fn)
		if err == errInterrupted {
			return err
		}
		if err == nil {
			continue
		}
		var ee *exitError
		if !errors.As(err, &ee) {
			return err
		}
		report(s.errOut, err)
		code = max(code, ee.code)
	}
	if s.opened > 0 {
		if err := s.speeds.unmatched(); err != nil {
			report(s.errOut, err)
			code = max(code, 2)
		}
	}
	if code != 0 {
		return &exitError{code, errSilent}
	}
	return nil
}

func (s *scanner) scanOne(file string, fn func(f *dissect.Frame, iface string)) error {
	r, err := pcapio.Open(file)
	if err != nil {
		return &exitError{2, err}
	}
	defer r.Close()
	defer func() { s.base += r.Frames() }()
	s.opened++
	// mu is let go before a read that may wait, taken again after it.
	locked := true
	r.OnRead(func() {
		if locked {
			s.mu.Unlock()
			locked = false
		}
	})
	defer func() {
		if !locked {
			s.mu.Lock()
		}
	}()
	src := &source{name: r.Name(), ifName: func(i int) string { return r.Interface(i).Name }, ifSpeed: func(i int) uint64 { return r.Interface(i).Speed }}
	var speeds []uint64
	var descs []string // the interfaces' if_description, beside speeds
	classic := !r.IsPcapng()
	_, size := r.Progress()
	show := s.o.progress == "always" || s.o.progress == "auto" && size > 64<<20 && isTerminal(s.errOut)
	var lastShow time.Time
	defer func() {
		if show && !lastShow.IsZero() {
			fmt.Fprintf(s.errOut, "\r\033[K")
		}
	}()
	r.OnWarning(func(err error) {
		if show && !lastShow.IsZero() {
			fmt.Fprintf(s.errOut, "\r\033[K") // the progress line, shown again
		}
		warnCapture(s.errOut, r.Name(), err)
	})
	for n := 0; ; n++ {
		if show && n&4095 == 0 {
			if now := time.Now(); now.Sub(lastShow) > 200*time.Millisecond {
				lastShow = now
				read, size := r.Progress()
				if size > 0 {
					fmt.Fprintf(s.errOut, "\r%s: %d frames, %.0f%%\033[K", dissect.Escape(r.Name()), n, 100*float64(read)/float64(size))
				} else {
					fmt.Fprintf(s.errOut, "\r%s: %d frames, %d MiB\033[K", dissect.Escape(r.Name()), n, read>>20)
				}
			}
		}
		fr, err := r.Next()
		if !locked {
			s.mu.Lock()
			locked = true
		}
		if s.stop.Load() {
			return errInterrupted
		}
		if err == io.EOF {
			// Every interface asks for its speed, also one without
			// frames, so that a --link-speed naming none is found.
			for i := 0; i < r.NInterfaces(); i++ {
				src.speedOf(s.speeds, i)
			}
			return nil
		}
		if err != nil {
			var fe *pcapio.FrameError
			if errors.As(err, &fe) {
				fe.LastGood += s.base // numbered across the files, as read does
			}
			return &exitError{1, err}
		}
		for len(speeds) <= fr.Interface {
			i := len(speeds)
			speeds = append(speeds, src.speedOf(s.speeds, i))
			descs = append(descs, r.Interface(i).Description)
		}
		f := &s.frame
		*f = dissect.Frame{Number: s.base + fr.Number, Time: fr.Time, Interface: fr.Interface, Len: fr.Len,
			CapLen: len(fr.Data), P: s.p, LinkBPS: speeds[fr.Interface], Classic: classic, IfDescription: descs[fr.Interface]}
		f.Err = decodeFrame(s.p, fr)
		if s.flt != nil && !s.flt.Match(f) {
			continue
		}
		s.frames++
		fn(f, src.names[fr.Interface])
	}
}

// scanKeeping is scan, interruptible: Ctrl-C (or a second signal while a
// read waits) runs keep once, which puts out what the frames counted so
// far give (stats' report; timeline's keep writes nothing), says on errOut
// that the run was interrupted after N frames and what keep's output
// shows (shows), and
// ends the scan with exit status 130 (interrupted true).
func (s *scanner) scanKeeping(files []string, fn func(f *dissect.Frame, iface string), keep func() error, shows string,
	errOut io.Writer) (err error, interrupted bool) {
	var once sync.Once
	kept := func() {
		once.Do(func() {
			if err := keep(); err != nil {
				report(errOut, err)
			}
			report(errOut, fmt.Errorf("interrupted after %d frames; %s", s.frames, shows))
		})
	}
	done := s.onInterrupt(kept)
	err = s.scan(files, fn)
	done()
	if err == errInterrupted {
		kept()
		return &exitError{130, errSilent}, true
	}
	return err, false
}

// onInterrupt watches for an interrupt (SIGINT, SIGTERM, SIGHUP): the
// scan stops at its next frame (scan returns errInterrupted, and the
// caller reports); when it still waits for input after interruptGrace or
// a second signal, report runs from here, with the scan held at its read,
// and the process ends with status 130. done ends the watch.
func (s *scanner) onInterrupt(report func()) (done func()) {
	return watchInterrupt(func() { s.stop.Store(true) }, func(quit <-chan struct{}) {
		if !s.mu.TryLock() {
			select {
			case <-quit: // the scan got there first
				return
			case <-time.After(interruptGrace):
				return // the scan is in a frame: it reports
			}
		}
		report()
		exitProcess(130)
		s.mu.Unlock() // only where exitProcess returns (tests)
	})
}

func newStatsCmd() *cobra.Command {
	var o scanOptions
	var asJSON bool
	var top int
	cmd := &cobra.Command{
		Use:   "stats [-r] FILE...",
		Short: "Summarise who paused whom, for how long and why",
		Long: `stats reads captures and prints: frames per protocol; per flow the pause
signals (BTS, CIM, Floodgate dst-pause), resumes, pause time requested and
time actually paused; per interface and priority the PFC (and 802.3x PAUSE)
frames, quanta, that time at the link speed, and time paused; a histogram of
requested pause times; signals per reporter or switch; CNPs per queue pair;
ICRC failures; malformed frames by reason.

Paused time follows behaviour.md: a signal at t for d sets the pause end to
t+d (a later signal overwrites it, 0 resumes now). Several files add up, in
the order given; PFC rows are keyed by interface name.`,
		Example: `  sfcdump stats pcaps/sample.pcapng
  sfcdump stats --json pcaps/sample.pcapng | jq '.flows[0]'
  sfcdump stats --link-speed port1=25G --top 5 capture.pcapng.gz
  sfcdump stats -Y 'ip.dst == 10.0.0.0/16' capture.pcapng
  sfcdump stats -r capture.pcapng.zst`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: completeCaptures,
		RunE: func(cmd *cobra.Command, args []string) error {
			args, err := o.files(cmd, args)
			if err != nil {
				return err
			}
			if top < 0 {
				return usagef("--top %d: want a number of rows, 0 for all", top)
			}
			if err := checkStdoutNotInput(cmd.OutOrStdout(), args); err != nil {
				return err
			}
			sc, err := newScanner(&o, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			c := stats.New()
			out := cmd.OutOrStdout()
			write := func() error {
				r := c.Finish()
				if asJSON {
					enc := json.NewEncoder(out)
					enc.SetIndent("", "  ")
					return enc.Encode(r)
				}
				return r.WriteText(out, top)
			}
			// Ctrl-C prints the report of the frames counted so far and
			// exits with status 130, as read keeps what it read.
			scanErr, interrupted := sc.scanKeeping(args, c.Add, write, "the report counts those", cmd.ErrOrStderr())
			if interrupted {
				return scanErr
			}
			if sc.opened == 0 {
				// No input was a capture: no report, not an empty one a
				// script would take for a capture without frames.
				return scanErr
			}
			if err := write(); err != nil {
				return &exitError{1, err}
			}
			return scanErr
		},
	}
	o.addFlags(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as one JSON object")
	cmd.Flags().IntVar(&top, "top", 20, "rows shown in the per-flow, reporter and CNP tables (0: all; no negative; --json has all)")
	return cmd
}
