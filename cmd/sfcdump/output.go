// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	glayers "github.com/gopacket/gopacket/layers"
	"github.com/spf13/cobra"

	"github.com/opensfc/sfc/atomicfile"
	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/filter"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/pcapio"
)

// outputOptions are the flags read and capture share.
type outputOptions struct {
	count   int
	numeric int // -n, -nn: names are never resolved anyway
	filter  string
	verbose bool
	hex     bool
	format  string
	fields  []string
	// fieldsStyle are the -E options of -T fields.
	fieldsStyle []string
	write       string
	print       bool
	decodeAs    []string
	linkSpeed   []speedSpec
	quiet       bool

	noRender bool // set by newPrinter: -q, or -w without -P
	writeSet bool // -w was given (perhaps empty)
}

func (o *outputOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.IntVarP(&o.count, "count", "c", 0, "stop after N frames printed or written (0: all; no negative)")
	f.StringVarP(&o.filter, "display-filter", "Y", "", "show only frames that match FILTER, e.g. 'bts.pause_us > 10 && flow.qp == 0xd2'")
	f.BoolVarP(&o.verbose, "verbose", "V", false, "print the full tree of every layer and field, warnings included")
	f.BoolVarP(&o.hex, "hex", "x", false, "print a hex dump of each frame")
	f.StringVarP(&o.format, "format", "T", "text", "output format: text, json (JSON Lines) or fields")
	f.StringArrayVarP(&o.fields, "field", "e", nil, "field to print with -T fields (repeatable): frame.number, frame.time_epoch, or protocol.field; Wireshark's names print as tshark prints them")
	f.StringArrayVarP(&o.fieldsStyle, "fields-option", "E", nil, "-T fields layout, as tshark's -E (repeatable): bom=y|n, header=y|n, separator=/t|/s|C, quote=d|s|n, occurrence=f|l|a|N, aggregator=,|/s|C")
	f.StringVarP(&o.write, "write", "w", "", "write the frames that match to `OUT.pcapng` (with their comments, flags and interfaces as the capture describes them); '-' for stdout")
	f.BoolVarP(&o.print, "print", "P", false, "print frames even when writing them with -w")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "print no frames (with -w: only write them; errors still go to stderr), as tshark -q")
	f.CountVarP(&o.numeric, "numeric", "n", "taken for tcpdump's and tshark's -n and -nn (as in -nnr FILE): addresses and ports are always printed as numbers")
	f.StringArrayVar(&o.decodeAs, "decode-as", nil, "decode a UDP port as a protocol: udp.port==N:PROTO, PROTO one of bts, postcard, cim, bth (roce) (repeatable)")
	f.Var(&speedFlag{&o.linkSpeed, "link-speed"}, "link-speed", "link speed for quanta-to-time: SPEED for every interface or IFACE=SPEED (name or index), e.g. 100G, port1=25G (repeatable; default 100G)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json", "fields"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("field", completeFields)
	_ = cmd.RegisterFlagCompletionFunc("display-filter", completeFields)
	_ = cmd.RegisterFlagCompletionFunc("decode-as", cobra.FixedCompletions([]string{
		"udp.port==1021:bts", "udp.port==1022:postcard", "udp.port==35234:cim", "udp.port==4791:bth"}, cobra.ShellCompDirectiveNoSpace))
	f.Var(&speedFlag{&o.linkSpeed, "speed"}, "speed", "the same as --link-speed; overrides the capture's own (pcapng if_speed)")
	_ = cmd.RegisterFlagCompletionFunc("link-speed", cobra.FixedCompletions([]string{"10G", "25G", "40G", "50G", "100G", "200G", "400G", "800G"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("write", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"pcapng"}, cobra.ShellCompDirectiveFilterFileExt
	})
}

// completeFields completes field and protocol names, ours and
// Wireshark's.
func completeFields(_ *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	out := dissect.FieldNames()
	for _, p := range dissect.Protos {
		out = append(out, p.Name)
	}
	for _, w := range dissect.WiresharkNames() {
		out = append(out, w.Name)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// source describes where frames come from: one capture file or one live
// interface.
type source struct {
	index int // order among the sources of a run
	// base is the number of frames of the sources read before this one:
	// frames are numbered across the files of a run, as one capture
	// (mergecap -a), so that -w's output numbers them alike.
	base   int
	name   string
	showIf bool // print the interface column
	// classic: a classic pcap, which has no interfaces (no
	// frame.interface_id, as in tshark).
	classic bool
	// ifName returns the name of interface i ("" when unnamed).
	ifName func(i int) string
	names  []string // cached ifName results escaped for the terminal, "if<N>" for unnamed
	raw    []string // cached ifName results as the capture has them
	speeds []uint64
	known  []uint64 // knownSpeed of each interface, beside speeds
	// ifSpeed returns interface i's speed from the capture (pcapng
	// if_speed), 0 when unknown; nil for none.
	ifSpeed func(i int) uint64
	// ifOut returns interface i as the capture describes it (link type,
	// snap length, timestamp resolution, FCS length, comment, description,
	// filter, OS), which -w writes back; nil for an Ethernet interface
	// that says nothing.
	ifOut func(i int) pcapio.Interface
	outs  []pcapio.Interface // cached ifOut results
	// section is what the capture's first section header says, which -w
	// writes when this source writes the first frame.
	section pcapio.SectionInfo
}

// ifaceName returns the cached display name of interface i: the name the
// capture gives, escaped (dissect.AppendEscaped), or "if<N>".
func (s *source) ifaceName(i int) string {
	for len(s.names) <= i {
		n := len(s.names)
		name := ""
		if s.ifName != nil {
			name = s.ifName(n)
		}
		s.raw = append(s.raw, name)
		if name == "" {
			name = "if" + strconv.Itoa(n)
		}
		s.names = append(s.names, dissect.Escape(name))
	}
	return s.names[i]
}

// ifaceRaw returns the name of interface i as the capture has it ("" when
// unnamed).
func (s *source) ifaceRaw(i int) string {
	s.ifaceName(i)
	return s.raw[i]
}

// speedOf returns the link speed of interface i in bit/s: the one the
// flags give it (givenSpeed), else the capture's own (pcapng if_speed),
// else DefaultLinkSpeed.
func (s *source) speedOf(l linkSpeeds, i int) uint64 {
	if bps, ok := s.givenSpeed(l, i); ok {
		return bps
	}
	if bps := s.capturedSpeed(i); bps != 0 {
		return bps
	}
	return DefaultLinkSpeed
}

// givenSpeed returns the speed --link-speed (or --speed) gives interface
// i, which they name as the capture does or as it is shown.
func (s *source) givenSpeed(l linkSpeeds, i int) (uint64, bool) {
	name := s.ifaceName(i)
	if _, ok := l.byName[s.raw[i]]; ok && s.raw[i] != "" {
		name = s.raw[i]
	}
	return l.given(i, name)
}

// formatter decodes, filters and renders frames. Each goroutine that
// renders needs its own: it holds the parser and scratch space.
type formatter struct {
	o    *outputOptions
	flt  *filter.Filter
	cols []column
	// fstyle is -T fields' layout (-E), vals its scratch space.
	fstyle fieldsStyle
	vals   []dissect.Value
	enc    dissect.Encoder
	p      *layers.Parser
	frame  dissect.Frame
}

// view is what rendering needs from a source, fixed for a run of frames:
// the first frame's time (of the first frame that has one; zero while none
// had) and the interfaces' names and speeds.
type view struct {
	first time.Time
	// prev is the time of the last frame with a time read before the run
	// (frame.time_delta of its first frame).
	prev    time.Time
	showIf  bool
	classic bool // source.classic
	names   []string
	speeds  []uint64
	// raw are the interfaces' names as the capture has them and known
	// their speeds that -w records (source.knownSpeed).
	raw   []string
	known []uint64
	outs  []pcapio.Interface // source.outs
	base  int                // source.base
}

// printer filters, prints and writes frames for read and capture.
type printer struct {
	formatter
	// readSoFar counts the frames of the files read before the current
	// one (source.base).
	readSoFar int
	opened    int // inputs opened as captures
	w         *bufio.Writer
	speeds    linkSpeeds
	buf       []byte
	printed   int
	first     time.Time
	prev      time.Time // of the last frame read that has a time
	started   bool
	quiet     bool // -q, or -w without -P

	outPath   string
	outFile   io.Writer
	outAtomic *atomicfile.File // nil for -w - and an output written in place
	outClose  io.Closer        // an output written in place, closed when finished
	out       *pcapio.Writer
	outIface  map[[2]int]int
	outNext   map[int]int // by source index: its interfaces added so far
	// outEmpty is the interface (and section) a -w capture that no frame
	// reached is written with: the first input's first interface.
	outEmpty    *pcapio.Interface
	outEmptySec pcapio.SectionInfo
	errOut      io.Writer // where read's notes go (nil: none)
	// warnTo, while a parallel worker reads a batch (under the read lock
	// or its turn), is where the capture's warnings go (warnInLine).
	warnTo *batch
	stdout io.Writer // what w buffers (print writes big outputs to it)
	// outStats are the inputs' interface statistics, by the same key as
	// outIface, written to -w at its end for the interfaces it has.
	outStats []keptStats
	// outExisted: the -w file existed before the run, so no error may
	// replace it.
	outExisted bool

	// interrupted is set on SIGINT or SIGTERM: reading stops at the next
	// frame and what was written is kept.
	interrupted atomic.Bool
	// outMu guards the -w capture between the run and an interrupt that
	// saves it while a read is blocked (salvage); written counts its
	// frames and closed says it is finished.
	outMu     sync.Mutex
	written   int
	closed    bool
	committed bool // the -w file is in place
	// stdMu guards standard output's buffer (w), apart from outMu: a
	// write stuck in a standard output nobody reads holds stdMu only, so
	// an interrupt still finishes the -w capture. Whoever takes both
	// takes stdMu first.
	stdMu sync.Mutex
}

// exitProcess ends the process after a salvage (tests replace it).
var exitProcess = os.Exit

// newPrinter checks the options (count, filter, format, fields, decode-as,
// link speeds, an output that is one of inputs) before any frame is read
// and before anything is opened for writing: a mistake there is exit
// status 2.
func newPrinter(stdout io.Writer, o *outputOptions, inputs []string) (*printer, error) {
	pr := &printer{formatter: formatter{o: o, p: layers.NewParser()}}
	if o.count < 0 {
		return nil, usagef("-c %d: want a number of frames, 0 for all", o.count)
	}
	if o.writeSet && o.write == "" {
		return nil, usagef("-w: an empty file name ('-' for standard output)")
	}
	if fd, ok := atomicfile.DescriptorOf(o.write); ok && fd == 1 {
		// -w /dev/stdout is -w -, with its checks (a terminal, -P).
		o.write = "-"
	}
	if o.write == "-" && isTerminal(stdout) {
		return nil, usagef("-w -: standard output is a terminal, which a binary capture would garble (and its strings are not escaped): redirect it to a file or a pipe")
	}
	if o.quiet && o.print {
		return nil, usagef("-q prints no frames: -P cannot print them")
	}
	// A flag that says how frames are printed, when none will be: a
	// usage error, not silently nothing (as -P with -w - is).
	if o.quiet || o.write != "" && !o.print {
		why := "-q prints no frames"
		switch {
		case o.write == "-" && !o.quiet:
			why = "-w - writes the capture to standard output, where no frame can be printed too"
		case !o.quiet:
			why = "-w prints no frames unless -P is given"
		}
		for _, f := range []struct {
			set  bool
			name string
		}{{o.verbose, "-V"}, {o.hex, "-x"}, {o.format != "text", "-T " + o.format}, {len(o.fields) > 0, "-e"}, {len(o.fieldsStyle) > 0, "-E"}} {
			if f.set {
				return nil, usagef("%s has no effect: %s", dissect.Escape(f.name), why)
			}
		}
	}
	if !filter.Empty(o.filter) { // only spaces: no filter, as tshark's
		f, err := filter.Compile(o.filter)
		if err != nil {
			var se *filter.SyntaxError
			if errors.As(err, &se) {
				return nil, &exitError{2, fmt.Errorf("-Y: %v\n%s", err, indent(se.Caret()))}
			}
			return nil, &exitError{2, fmt.Errorf("-Y: %w", err)}
		}
		pr.flt = f
	}
	switch o.format {
	case "text", "json":
	case "fields":
		if len(o.fields) == 0 {
			return nil, &exitError{2, errors.New("-T fields needs at least one -e FIELD")}
		}
		// As with -q: a flag that says how frames are printed, where
		// it cannot change what is printed, is a usage error.
		if o.verbose {
			return nil, usagef("-V has no effect: -T fields prints the -e fields, one line per frame")
		}
		if o.hex {
			return nil, usagef("-x has no effect: -T fields prints the -e fields, one line per frame")
		}
		for _, name := range o.fields {
			fd, ok := dissect.LookupField(name)
			if !ok {
				return nil, &exitError{2, fmt.Errorf("-e %s: unknown field (see `sfcdump fields`)", name)}
			}
			pr.cols = append(pr.cols, newColumn(name, fd))
		}
		st, err := parseFieldsStyle(o.fieldsStyle)
		if err != nil {
			return nil, err
		}
		pr.fstyle = st
	default:
		return nil, &exitError{2, fmt.Errorf("-T %s: unknown format (text, json, fields)", o.format)}
	}
	if len(o.fields) > 0 && o.format != "fields" {
		return nil, &exitError{2, fmt.Errorf("-e needs -T fields")}
	}
	if len(o.fieldsStyle) > 0 && o.format != "fields" {
		return nil, usagef("-E needs -T fields")
	}
	if err := applyDecodeAs(o.decodeAs); err != nil {
		return nil, &exitError{2, err}
	}
	sp, err := parseLinkSpeeds(o.linkSpeed)
	if err != nil {
		return nil, &exitError{2, err}
	}
	pr.speeds = sp
	pr.w, pr.stdout = bufio.NewWriterSize(stdout, 1<<16), stdout
	pr.quiet = o.quiet || o.write != "" && !o.print
	o.noRender = pr.quiet
	if pr.fstyle.bom && !pr.quiet && o.format == "fields" {
		pr.w.WriteString("\ufeff") // as tshark's -E bom=y, before the header
	}
	if pr.fstyle.header && !pr.quiet {
		pr.w.WriteString(fieldsHeader(pr.cols, &pr.fstyle))
	}
	if !pr.quiet && o.write != "-" {
		if err := checkStdoutNotInput(stdout, inputs); err != nil {
			return nil, err
		}
	}
	if o.write != "" {
		pr.outPath = o.write
		if err := atomicfile.CheckNotInputStdio(o.write, fileOf(stdout), os.Stdin, inputs...); err != nil {
			return nil, usagef("-w: %w", err)
		}
		if o.write == "-" {
			if o.print {
				return nil, usagef("-w - writes the capture to standard output: -P cannot print there too")
			}
			pr.outFile = stdout
		} else {
			_, err := os.Stat(o.write)
			pr.outExisted = err == nil
			f, err := atomicfile.Create(o.write, atomicfile.DefaultPerm)
			if err != nil {
				// An output that cannot be written is a runtime error (1),
				// as in tcpdump; the usage was right.
				return nil, &exitError{1, fmt.Errorf("-w: %w", err)}
			}
			if f.InPlace() {
				// A device, a named pipe, a descriptor (/dev/fd/3): what
				// is written there cannot be taken back, so it is
				// written as -w - writes standard output (flushed as it
				// goes, finished whatever happens), never held back as
				// a file to be put in place is.
				pr.outFile, pr.outClose, pr.outExisted = f, f, false
			} else {
				pr.outFile, pr.outAtomic = f, f
			}
		}
	}
	return pr, nil
}

func indent(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }

// done reports whether -c is reached or the run was interrupted.
func (pr *printer) done() bool {
	return pr.o.count > 0 && pr.printed >= pr.o.count || pr.interrupted.Load()
}

// interruptGrace is how long an interrupted run has to reach its next
// frame before the -w capture is saved from the signal's goroutine.
var interruptGrace = 500 * time.Millisecond

// notifyInterrupt makes SIGINT and SIGTERM stop the run at the next frame
// (done) instead of killing the process, so that the -w file keeps every
// frame written. A read blocked on a pipe that sends nothing more never
// reaches its next frame: after interruptGrace, or at a second signal,
// the capture written so far is put in place from here and the process
// exits 130 (salvage). The returned function stops listening.
func (pr *printer) notifyInterrupt(errOut io.Writer) (stop func()) {
	return watchInterrupt(func() { pr.interrupted.Store(true) }, func(<-chan struct{}) { pr.salvage(errOut) })
}

// watchInterrupt calls first at the first SIGINT, SIGTERM or SIGHUP, and
// stuck when the run has not ended interruptGrace later or at a second
// signal (quit is closed when it ends meanwhile); stop ends the watch.
// read's and stats' interrupts both go through it.
func watchInterrupt(first func(), stuck func(quit <-chan struct{})) (stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	quit := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-quit:
			return
		}
		first()
		select {
		case <-quit:
			return
		case <-sigs:
		case <-time.After(interruptGrace):
		}
		stuck(quit)
	}()
	return func() { signal.Stop(sigs); close(quit) }
}

// removeOutputsOnInterrupt makes Ctrl-C (SIGINT, SIGTERM, SIGHUP) during
// a command that writes files whole (man, conform gen and scenario,
// wireshark install) remove the temporary files of the outputs not yet in
// place (atomicfile.RemovePending) and end the process with status 130:
// killed by the signal, it left them hidden beside their targets. Every
// target is as it was, or, for a set committed before the signal, in
// place whole.
func removeOutputsOnInterrupt(errOut io.Writer) (stop func()) {
	return watchInterrupt(func() {
		atomicfile.RemovePending()
		report(errOut, errors.New("interrupted: every output not yet complete is left as it was"))
		exitProcess(130)
	}, func(<-chan struct{}) {})
}

// salvage flushes what was printed, finishes the -w capture with the
// frames written so far, puts it in place (unless it has none and would
// replace a file: emptyInterrupt) and ends the process with 130 (1 if
// that fails), unless the run finished first. Nothing can write to
// the outputs after. When standard output itself is blocked (a reader
// that stopped reading holds a write), what was decoded last is not
// printed, but the -w capture is still put in place; only when that
// capture is standard output too (-w -) is nothing more written.
func (pr *printer) salvage(errOut io.Writer) {
	// A lock held by a writer stuck in a blocked standard output, or a
	// flush into it, would hang the process for good: each is given
	// salvageWait.
	lock := func(mu *sync.Mutex) bool {
		deadline := time.Now().Add(salvageWait)
		for !mu.TryLock() {
			if time.Now().After(deadline) {
				return false
			}
			time.Sleep(time.Millisecond)
		}
		return true
	}
	stdBlocked := !lock(&pr.stdMu)
	var ferr error
	if !stdBlocked {
		defer pr.stdMu.Unlock()
		flushed := make(chan error, 1)
		go func() { flushed <- pr.w.Flush() }()
		select {
		case ferr = <-flushed:
		case <-time.After(salvageWait):
			stdBlocked = true // the flush still runs: w is not touched again
		}
	}
	if !lock(&pr.outMu) { // -w - into the blocked standard output
		report(errOut, errors.New("interrupted; standard output is blocked, so what was decoded last (and the end of the -w - capture) is not written"))
		exitProcess(130)
		return
	}
	defer pr.outMu.Unlock()
	if pr.closed { // the run finished meanwhile
		return
	}
	empty := pr.interrupted.Load() && pr.emptyInterrupt()
	if err := pr.finishOutput(!empty); err != nil || ferr != nil {
		report(errOut, errors.Join(ferr, err))
		exitProcess(1)
		return
	}
	msg := "interrupted while waiting for input"
	if stdBlocked {
		msg = "interrupted; standard output is blocked, so what was decoded last is not printed"
	}
	switch {
	case empty:
		msg = pr.emptyInterruptNote()
	case pr.outAtomic != nil:
		msg += fmt.Sprintf(": %d frames, all written to %s", pr.written, pr.outPath)
	}
	report(errOut, errors.New(msg))
	exitProcess(130)
}

// emptyInterrupt reports whether an interrupted run has written no frame
// to a -w file that replaces an existing one: that file is then left as
// it was (a capture of nothing is not worth the one it would replace).
// An interrupted run that wrote frames puts them in place; one that
// replaces nothing still leaves its empty capture. The caller holds
// outMu, or the run is over.
func (pr *printer) emptyInterrupt() bool {
	return pr.outAtomic != nil && pr.outExisted && pr.written == 0
}

// emptyInterruptNote is what an interrupted run says when emptyInterrupt.
func (pr *printer) emptyInterruptNote() string {
	return fmt.Sprintf("interrupted before any frame: %s left as it was", pr.outPath)
}

// flush writes out what was printed so far, under stdMu (see print),
// and with -w - the frames written so far: a reader downstream waits for
// them.
func (pr *printer) flush() error {
	pr.stdMu.Lock()
	err := pr.w.Flush()
	pr.stdMu.Unlock()
	pr.outMu.Lock()
	defer pr.outMu.Unlock()
	if pr.out != nil && pr.outAtomic == nil && !pr.closed {
		if e := pr.out.Flush(); err == nil {
			err = e
		}
	}
	return err
}

// salvageWait bounds how long a salvage waits for a write to standard
// output in progress.
var salvageWait = 2 * time.Second

// newFormatter returns a formatter like pr's, for another goroutine.
func (pr *printer) newFormatter() *formatter {
	fm := &formatter{o: pr.o, cols: pr.cols, fstyle: pr.fstyle, p: layers.NewParser()}
	if pr.flt != nil {
		fm.flt = filter.MustCompile(pr.flt.String()) // compiled once already
	}
	return fm
}

// view returns the rendering view of src, after making sure it knows
// interfaces up to iface.
func (pr *printer) view(src *source, iface int) view {
	for len(src.speeds) <= iface {
		i := len(src.speeds)
		src.speeds = append(src.speeds, src.speedOf(pr.speeds, i))
		src.known = append(src.known, src.knownSpeed(pr.speeds, i))
		out := pcapio.Interface{LinkType: glayers.LinkTypeEthernet}
		if src.ifOut != nil {
			out = src.ifOut(i)
		}
		src.outs = append(src.outs, out)
	}
	// A snapshot: the source's slices only grow, by appending, so the
	// writer reads them without racing the reader.
	return view{first: pr.first, showIf: src.showIf, classic: src.classic, names: src.names, speeds: src.speeds, raw: src.raw, known: src.known,
		outs: src.outs, base: src.base}
}

// handle decodes one frame, and prints and writes it when it matches.
func (pr *printer) handle(src *source, fr *pcapio.Frame) error {
	if !pr.started && !fr.Time.IsZero() {
		pr.first, pr.started = fr.Time, true
	}
	v := pr.view(src, fr.Interface)
	v.prev = pr.prev
	if !fr.Time.IsZero() {
		pr.prev = fr.Time
	}
	buf, ok := pr.format(pr.buf[:0], &v, fr)
	pr.buf = buf
	if !ok {
		return nil
	}
	pr.printed++
	if pr.outFile != nil {
		if err := pr.writeFrame(src, &v, fr); err != nil {
			return err
		}
	}
	if pr.quiet {
		return nil
	}
	return pr.print(buf)
}

// print writes rendered frames to standard output's buffer, under stdMu:
// an interrupt that salvages the run from another goroutine flushes that
// buffer and must not meet a write half done.
//
// A batch's output of directWrite octets or more goes straight to
// standard output, after what the buffer holds: copying it into the
// buffer first was 1.5% of sfcdump read's CPU, under the output lock.
func (pr *printer) print(b []byte) error {
	pr.stdMu.Lock()
	defer pr.stdMu.Unlock()
	if len(b) >= directWrite && pr.stdout != nil {
		if err := pr.w.Flush(); err != nil {
			return err
		}
		_, err := pr.stdout.Write(b)
		return err
	}
	_, err := pr.w.Write(b)
	return err
}

// directWrite is the least output print writes without buffering it: a
// batch of one line per frame is 30 KiB or so, written in one call.
const directWrite = 16 << 10

// format decodes fr and, when it passes the filter, appends its rendering
// to buf (nothing when writing with -w and not -P) and returns true.
func (fm *formatter) format(buf []byte, v *view, fr *pcapio.Frame) ([]byte, bool) {
	// The frame lives in the formatter: field getters are called through
	// function values, so a local would escape and cost an allocation.
	// Field by field: a composite literal assigned to *f is built aside
	// and copied with write barriers (5% of sfcdump read).
	f := &fm.frame
	f.Number, f.Time, f.Interface, f.Len = fr.Number+v.base, fr.Time, fr.Interface, fr.Len
	f.Start, f.Prev, f.Comments = v.first, v.prev, fr.Comments
	f.IfName = ""
	if fr.Interface < len(v.raw) && v.raw[fr.Interface] != "" {
		f.IfName = v.raw[fr.Interface] // as the capture has it; none for an unnamed one
	}
	f.CapLen, f.P, f.LinkBPS = len(fr.Data), fm.p, v.speeds[fr.Interface]
	f.IfDescription, f.Classic = v.outs[fr.Interface].Description, v.classic
	f.Err = decodeFrame(fm.p, fr)
	if fm.flt != nil && !fm.flt.Match(f) {
		return buf, false
	}
	if fm.o.noRender {
		return buf, true
	}
	switch fm.o.format {
	case "json":
		buf = fm.enc.AppendJSON(buf, f)
		if fm.o.hex {
			buf = append(buf[:len(buf)-1], `,"raw":"`...)
			buf = appendHexString(buf, fr.Data)
			buf = append(buf, '"', '}')
		}
		buf = append(buf, '\n')
	case "fields":
		buf = fm.appendFields(buf, f)
		buf = append(buf, '\n')
	default:
		buf = dissect.AppendUint(buf, uint64(f.Number))
		buf = append(buf, ' ')
		if f.Time.IsZero() {
			buf = append(buf, '-') // no time: a simple packet block
		} else {
			buf = appendRelTime(buf, relNanos(f.Time, v.first))
		}
		buf = append(buf, ' ')
		if v.showIf {
			buf = append(buf, v.names[f.Interface]...)
			buf = append(buf, ' ')
		}
		buf = fm.enc.AppendSummary(buf, f)
		buf = append(buf, '\n')
		if fm.o.verbose {
			buf = append(buf, "    frame\n        frame.time: "...)
			if f.Time.IsZero() {
				buf = append(buf, "none (the capture gives no timestamp)"...)
			} else {
				buf = f.Time.UTC().AppendFormat(buf, time.RFC3339Nano)
			}
			buf = append(buf, "\n        frame.interface: "...)
			buf = strconv.AppendInt(buf, int64(f.Interface), 10)
			buf = append(buf, " ("...)
			buf = append(buf, v.names[f.Interface]...)
			if f.LinkBPS > 0 {
				buf = append(buf, ", "...)
				buf = dissect.AppendSpeed(buf, f.LinkBPS)
			}
			buf = append(buf, ")\n        frame.len: "...)
			buf = strconv.AppendInt(buf, int64(f.Len), 10)
			buf = append(buf, "\n        frame.caplen: "...)
			buf = strconv.AppendInt(buf, int64(f.CapLen), 10)
			buf = append(buf, '\n')
			for _, c := range fr.Comments {
				buf = append(buf, "        frame.comment: "...)
				buf = dissect.AppendEscaped(buf, c)
				buf = append(buf, '\n')
			}
			buf = fm.enc.AppendTree(buf, f)
		}
		if fm.o.hex {
			buf = dissect.AppendHex(buf, fr.Data)
		}
	}
	return buf, true
}

func appendHexString(dst, data []byte) []byte {
	const digits = "0123456789abcdef"
	for _, c := range data {
		dst = append(dst, digits[c>>4], digits[c&15])
	}
	return dst
}

// writeFrame writes fr, of source src seen through v, to the -w capture.
// The first frame of a source adds all the interfaces that source has so
// far, in order, so a single input keeps its interface ids, with their
// names as the capture has them, link types and speeds (the --speed given
// for them, else their if_speed): read back, the capture decodes as what
// was shown.
func (pr *printer) writeFrame(src *source, v *view, fr *pcapio.Frame) error {
	pr.outMu.Lock()
	defer pr.outMu.Unlock()
	if pr.closed {
		return fmt.Errorf("-w %s: already finished", pr.outPath)
	}
	key := [2]int{src.index, fr.Interface}
	id, ok := pr.outIface[key]
	if !ok {
		if pr.outIface == nil {
			pr.outIface, pr.outNext = map[[2]int]int{}, map[int]int{}
		}
		// The source's interfaces are added in order, each once: from
		// the first not added yet (a loop from 0 was quadratic in them).
		for i := pr.outNext[src.index]; i <= fr.Interface; i++ {
			k := [2]int{src.index, i}
			var err error
			// The input's interface as it describes itself (link type,
			// snap length, resolution, FCS length, comment...), with the
			// speed -w records.
			in := v.outs[i]
			in.Name, in.Speed = v.raw[i], v.known[i]
			if pr.out == nil {
				pr.out, err = pcapio.NewWriterSection(pr.outFile, src.section, in)
				pr.outIface[k] = 0
			} else {
				pr.outIface[k], err = pr.out.AddInterfaceOf(in)
			}
			if err != nil {
				return fmt.Errorf("-w %s: %w", pr.outPath, err)
			}
			pr.outNext[src.index] = i + 1
		}
		id = pr.outIface[key]
	}
	if err := pr.out.WriteFrame(id, fr); err != nil {
		return fmt.Errorf("-w %s: %w", pr.outPath, err)
	}
	pr.written++
	return nil
}

// emptyFrom makes src's interface 0, as -w would write it, the one a -w
// capture that no frame reaches is written with, unless an earlier
// source gave one: an empty capture still says where it was taken.
func (pr *printer) emptyFrom(src *source) {
	if pr.outFile == nil {
		return
	}
	pr.outMu.Lock()
	defer pr.outMu.Unlock()
	if pr.outEmpty != nil {
		return
	}
	in := pcapio.Interface{LinkType: glayers.LinkTypeEthernet}
	if src.ifOut != nil {
		in = src.ifOut(0)
	}
	in.Name = src.ifaceRaw(0)
	in.Speed = src.knownSpeed(pr.speeds, 0)
	pr.outEmpty, pr.outEmptySec = &in, src.section
}

// keptStats is an input interface's statistics block for -w.
type keptStats struct {
	key [2]int // source index, interface
	st  pcapio.InterfaceStats
}

// keepStats keeps an input interface's statistics for the -w capture.
func (pr *printer) keepStats(key [2]int, st pcapio.InterfaceStats) {
	pr.outMu.Lock()
	defer pr.outMu.Unlock()
	pr.outStats = append(pr.outStats, keptStats{key, st})
}

// close flushes standard output and finishes the -w capture (an empty
// capture when nothing matched). keep says whether the run went well
// enough to put the -w file in place: when it is false, or when anything
// fails here, the temporary file is removed and an existing file is left
// as it was.
func (pr *printer) close(keep bool) error {
	pr.stdMu.Lock()
	defer pr.stdMu.Unlock()
	pr.outMu.Lock()
	defer pr.outMu.Unlock()
	if pr.closed {
		return nil // salvaged: flushed and finished there
	}
	err := pr.w.Flush()
	if e := pr.finishOutput(keep); err == nil {
		err = e
	}
	return err
}

// finishOutput finishes the -w capture and, when keep, puts it in place;
// the caller holds outMu.
func (pr *printer) finishOutput(keep bool) error {
	pr.closed = true
	var err error
	if pr.outFile != nil && (keep || pr.outAtomic == nil) {
		if pr.out == nil {
			var e error
			if pr.outEmpty != nil {
				pr.out, e = pcapio.NewWriterSection(pr.outFile, pr.outEmptySec, *pr.outEmpty)
			} else {
				pr.out, e = pcapio.NewWriter(pr.outFile, "if0")
			}
			if e != nil && err == nil {
				err = fmt.Errorf("-w %s: %w", pr.outPath, e)
			}
		}
		if pr.out != nil {
			for _, k := range pr.outStats {
				if id, ok := pr.outIface[k.key]; ok {
					// A statistics block the copy cannot hold (a time
					// pcapng cannot say in its resolution) is left out
					// with a note: the frames written are not lost for it.
					if e := pr.out.WriteStats(id, k.st); e != nil && pr.errOut != nil {
						report(pr.errOut, fmt.Errorf("-w %s: note: the statistics of interface %d are not copied: %w", pr.outPath, id, e))
					}
				}
			}
			if e := pr.out.Flush(); e != nil && err == nil {
				err = fmt.Errorf("-w %s: %w", pr.outPath, e)
			}
		}
	}
	if pr.outClose != nil {
		if e := pr.outClose.Close(); e != nil && err == nil {
			err = fmt.Errorf("-w %s: %w", pr.outPath, e)
		}
		pr.outClose = nil
	}
	if pr.outAtomic != nil {
		if keep && err == nil {
			if e := pr.outAtomic.Commit(); e != nil {
				err = fmt.Errorf("-w %s: %w", pr.outPath, e)
			} else {
				pr.committed = true
			}
		}
		pr.outAtomic.Abort() // nothing after Commit
	}
	return err
}

// relNanos returns t.Sub(first).Nanoseconds() for times without a
// monotonic reading (a capture's): from their seconds and nanoseconds when
// they are less than 2^33 s (272 years) apart, as Sub computes it, without
// Sub's overflow check (an Add and an Equal: 3 % of sfcdump read); by Sub,
// which saturates, when farther apart (a pcapng timestamp can be).
func relNanos(t, first time.Time) int64 {
	if s := t.Unix() - first.Unix(); s > -1<<33 && s < 1<<33 {
		return s*1e9 + int64(t.Nanosecond()-first.Nanosecond())
	}
	return t.Sub(first).Nanoseconds()
}

func appendRelTime(dst []byte, ns int64) []byte {
	if ns < 0 {
		dst = append(dst, '-')
		ns = -ns
	}
	dst = dissect.AppendUint(dst, uint64(ns/1e9))
	dst = append(dst, '.')
	return dissect.AppendNanos9(dst, ns%1e9)
}
