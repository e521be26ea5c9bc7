// SPDX-License-Identifier: Apache-2.0

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/opensfc/sfc/pcapio"
)

func newReadCmd() *cobra.Command {
	var o outputOptions
	var rFiles []string
	cmd := &cobra.Command{
		Use:   "read [-r] FILE...",
		Short: "Decode captures and print one line, a tree, JSON or fields per frame",
		Long: `read decodes pcap and pcapng captures, plain or compressed with gzip or
zstd, named as arguments or with -r as tcpdump and tshark take them ('-'
for standard input, read as a stream), and prints each frame: one line
(frame number, time since the first frame with a time ('-' for a frame that
has none, a pcapng simple packet block), interface for pcapng, addresses
and the signal), the full tree of fields with -V, JSON Lines with -T json,
or chosen fields with -T fields. Several files are read in the order given
and their frames numbered across them, as one capture (mergecap -a), as -w
writes them. Strings from the capture (interface names,
comments) are escaped: control characters, invalid UTF-8 and bidi controls
never reach the terminal raw.

-w writes the frames that match as pcapng ('-' for standard output) to a
temporary file renamed when complete: each frame with its time, lengths,
comments, flags and drop count, and its interface (name, link type, snap
length, speed (the --link-speed one if given), FCS length, timestamp
resolution (from 1 s to 1 ns, decimal or binary, with each timestamp as
the capture has it; a finer one, read to the nanosecond, is written in
nanoseconds), comment, description, filter, OS, and its last statistics
block); the first input's section comment, hardware, OS and application.
Other blocks and options (packet hashes, name resolution) are not kept,
and copy strings past 16 MiB in all are cut. An output that is one of the inputs is refused (exit
status 2) before anything is written. An error never replaces an existing
file; into a new file, the frames read before an input failed (a capture
broken part-way, one that cannot be opened) are still written. Ctrl-C (SIGINT, SIGTERM, SIGHUP) stops the
read, keeps every frame written (to the -w file, or shown on standard output, as
text or as a capture) and exits with status 130 (a -w file that no frame reached
yet leaves an existing file as it was); a pipe or standard input is read
frame by frame, so that what a paused writer sent is shown.

Malformed frames are printed as malformed, with the reason, and do not stop
the run. An interface's if_speed or if_tsresol that is malformed or out of
range (an if_speed outside what --link-speed takes, 1M to 1000T) is
ignored with a warning on stderr, as tshark ignores it: the speed is then
not known, the timestamps in microseconds. A truncated capture prints every frame before the cut, names the
last good frame and exits with status 1; so does a damaged gzip or zstd
stream, whose checksum covers the frames already read (the message says
so). An unreadable file, or a classic pcap of a link type other than
Ethernet, Linux cooked (SLL, SLL2) or raw IP, exits with status 2; in a
pcapng the frames of an interface of another link type are shown, not
decoded, beside the others (as tshark does).`,
		Example: `  sfcdump read pcaps/sample.pcapng
  sfcdump read -V -c 3 pcaps/sample.pcapng
  sfcdump read -Y 'bts.pause_us > 10 && flow.qp == 0xd2' pcaps/sample.pcapng
  sfcdump read -T json pcaps/sample.pcapng | jq .bts
  sfcdump read -T fields -e frame.number -e bts.pause_us -e flow.src -Y bts pcaps/sample.pcapng
  sfcdump read -Y 'pfc || pause' -w pauses.pcapng big.pcapng.gz
  sfcdump read --decode-as udp.port==5000:bts --link-speed port1=25G capture.pcapng
  sfcdump read -r capture.pcapng.zst -q -w pfc.pcapng -Y pfc
  tcpdump -i eth0 -w - | sfcdump read -r - -Y 'pfc || cnp'
  sfcdump read -Y bts -w - big.pcapng | tshark -r - -V`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: completeCaptures,
		RunE: func(cmd *cobra.Command, args []string) error {
			files := append(append([]string(nil), rFiles...), args...)
			if len(files) == 0 {
				return usagef("read: no capture to read: give FILE or -r FILE ('-' for standard input) (see 'sfcdump read --help')")
			}
			if err := stdinOnce("read", files); err != nil {
				return err
			}
			o.writeSet = cmd.Flags().Changed("write")
			return runRead(cmd.OutOrStdout(), cmd.ErrOrStderr(), files, &o)
		},
	}
	o.addFlags(cmd)
	cmd.Flags().StringArrayVarP(&rFiles, "read-file", "r", nil, "capture to read, as tcpdump -r and tshark -r ('-': standard input; repeatable; before the positional FILEs)")
	_ = cmd.RegisterFlagCompletionFunc("read-file", completeCaptures)
	return cmd
}

// completeCaptures completes capture file names.
func completeCaptures(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return []string{"pcap", "pcapng", "gz", "zst", "cap"}, cobra.ShellCompDirectiveFilterFileExt
}

func runRead(out, errOut io.Writer, files []string, o *outputOptions) error {
	pr, err := newPrinter(out, o, files)
	if err != nil {
		return err
	}
	defer pr.notifyInterrupt(errOut)()
	pr.errOut = errOut
	defer pr.catchClosedPipe()()
	code := 0
	for i, file := range files {
		if pr.done() {
			break
		}
		if err := readOne(pr, i, file); err != nil {
			var ee *exitError
			if !errors.As(err, &ee) {
				if errors.Is(err, syscall.EPIPE) {
					return pr.endOnClosedPipe(errOut)
				}
				pr.close(false)
				return &exitError{1, err} // output failed: nothing more to do
			}
			// Everything before the error is printed first; the error goes
			// to stderr and the next file is read.
			if ferr := pr.flush(); ferr != nil {
				pr.close(false)
				return &exitError{1, ferr}
			}
			report(errOut, err)
			code = max(code, ee.code)
		}
	}
	if pr.opened > 0 && !pr.interrupted.Load() {
		if err := pr.speeds.unmatched(); err != nil {
			report(errOut, err)
			code = max(code, 2)
		}
	}
	// The -w file is put in place when every input was read, when the run
	// was interrupted (the frames so far are wanted), and for a capture
	// broken part-way when it replaces nothing (salvage into a new file).
	// An input that could not be read (exit 2: not opened, not a capture;
	// 1: broken part-way) or an unmatched --link-speed does not make the
	// frames written wrong: into a new file they are kept (salvage), and
	// an existing file is replaced only by a run without errors.
	// An interrupt before any frame was written leaves an existing file
	// as it was (emptyInterrupt).
	keep := code == 0 || pr.interrupted.Load() || !pr.outExisted
	pr.outMu.Lock()
	empty := pr.interrupted.Load() && pr.emptyInterrupt()
	pr.outMu.Unlock()
	if empty {
		keep = false
	}
	if err := pr.close(keep); err != nil {
		if errors.Is(err, syscall.EPIPE) && pr.committed {
			return pr.reportClosedPipe(errOut) // the -w capture is in place
		}
		return &exitError{1, err}
	}
	if !keep && !empty && pr.outAtomic != nil {
		report(errOut, fmt.Errorf("-w %s: not written because of the error above; an existing file is left as it was", o.write))
	}
	if pr.interrupted.Load() {
		msg := fmt.Sprintf("interrupted after %d frames", pr.printed)
		switch {
		case empty:
			msg = pr.emptyInterruptNote()
		case pr.outAtomic != nil:
			msg += fmt.Sprintf(", all written to %s", o.write)
		}
		report(errOut, errors.New(msg))
		code = max(code, 130)
	}
	if code != 0 {
		return &exitError{code, errSilent}
	}
	return nil
}

// catchClosedPipe, with a -w file, catches SIGPIPE until the returned
// function is called: a reader that closes standard output early (read
// -P -w X | head) would have SIGPIPE kill the process with the capture in
// a temporary file; caught, the write fails with EPIPE and the run ends
// as if interrupted (endOnClosedPipe). Without -w nothing is lost, and
// SIGPIPE ends the process as it ends tcpdump.
func (pr *printer) catchClosedPipe() (stop func()) {
	if pr.outAtomic == nil {
		return func() {}
	}
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	return func() { signal.Stop(pipe) }
}

// endOnClosedPipe ends a run whose standard output was closed by its
// reader (EPIPE) as an interrupt ends it: the -w capture is put in place
// with the frames written so far, and the exit status is 141, a shell's
// for a process that SIGPIPE ended (what the run would have been without
// -w).
func (pr *printer) endOnClosedPipe(errOut io.Writer) error {
	pr.interrupted.Store(true)
	pr.outMu.Lock()
	err := pr.finishOutput(true) // standard output is not flushed: it is gone
	pr.outMu.Unlock()
	if err != nil {
		return &exitError{1, err}
	}
	return pr.reportClosedPipe(errOut)
}

// reportClosedPipe says where the frames of a run whose standard output
// was closed went, and returns exit status 141 (endOnClosedPipe).
func (pr *printer) reportClosedPipe(errOut io.Writer) error {
	report(errOut, fmt.Errorf("standard output was closed by its reader; %d frames written to %s", pr.written, pr.o.write))
	return &exitError{141, errSilent}
}

// warnCapture reports warning err of capture name (pcapio's OnWarning:
// an interface option ignored) on stderr; the run goes on, its exit
// status unchanged.
func warnCapture(errOut io.Writer, name string, err error) {
	report(errOut, fmt.Errorf("%s: warning: %w", name, err))
}

// warnInLine reports warning err of capture name as warnCapture does,
// after writing out what standard output holds, under stdMu: the buffer
// is written in blocks that may end mid-line, and where stdout and stderr
// are one file or pipe (2>&1) the warning went inside a frame's line.
// What was printed ends with a whole line, so the warning starts its own.
//
// A worker of the parallel reader reading a batch has warnTo set: the
// warning is kept with the batch and reported when the batch is written
// (emit, by reportWarning), just before the frame it was met reading, as
// the serial read gives it, or not at all past -c. Reported when met, it
// came up to a batch early, and from frames read ahead past -c.
func (pr *printer) warnInLine(name string, err error) {
	if b := pr.warnTo; b != nil {
		// Met reading the batch's last frame so far (appendFrames makes
		// the frame's slot first), or a block before the next.
		b.warns = append(b.warns, batchWarn{max(0, len(b.rb.Frames)-1), err})
		return
	}
	pr.reportWarning(name, err)
}

// reportWarning writes warning err of capture name on a line of its own
// (warnInLine): standard output's buffer first.
func (pr *printer) reportWarning(name string, err error) {
	pr.stdMu.Lock()
	defer pr.stdMu.Unlock()
	if pr.w != nil {
		pr.w.Flush() // an error shows at the next write
	}
	warnCapture(pr.errOut, name, err)
}

// errSilent is an error already reported on stderr.
var errSilent = errors.New("")

// readOne reads one capture through pr. Capture errors come back as
// *exitError (2: cannot open, 1: broken after some frames); other errors
// are output errors.
func readOne(pr *printer, index int, file string) error {
	r, err := pcapio.Open(file)
	if err != nil {
		return &exitError{2, err}
	}
	defer r.Close()
	defer func() { pr.readSoFar += r.Frames() }()
	if pr.errOut != nil {
		r.OnWarning(func(err error) { pr.warnInLine(r.Name(), err) })
	}
	defer func() {
		if n := r.MetadataDropped(); n > 0 && pr.errOut != nil {
			report(pr.errOut, fmt.Errorf("%s: note: %d octets of interface names, comments and descriptions past %d MiB were not kept (shown and written cut)",
				r.Name(), n, pcapio.MetadataBudget>>20))
		}
	}()
	pr.opened++
	src := &source{index: index, base: pr.readSoFar, name: r.Name(), showIf: r.IsPcapng(), classic: !r.IsPcapng(),
		ifName: func(i int) string { return r.Interface(i).Name }, ifSpeed: func(i int) uint64 { return r.Interface(i).Speed },
		ifOut: r.Interface, section: r.Section()}
	if r.NInterfaces() > 0 {
		pr.emptyFrom(src)
	}
	// A pipe or standard input is read frame by frame: a batch would hold
	// frames read but not shown while the writer pauses, and Ctrl-C then
	// would lose them.
	// Every interface asks for its speed at the end, also one without
	// frames, so that a --link-speed naming none is found (linkSpeeds.unmatched).
	defer func() {
		if n := r.NInterfaces(); n > 0 {
			pr.view(src, n-1)
		}
	}()
	// The interfaces' statistics blocks (usually at the end) go to the -w
	// capture with its frames: their drop counters say whether the
	// capture is complete, which device mode reads.
	if pr.outFile != nil {
		defer func() {
			for i := 0; i < r.NInterfaces(); i++ {
				if st, ok := r.Stats(i); ok {
					pr.keepStats([2]int{index, i}, st)
				}
			}
		}()
	}
	if _, size := r.Progress(); size > 0 && parallelism() > 0 {
		err := pr.readParallel(src, r)
		var fe *pcapio.FrameError
		if errors.As(err, &fe) {
			fe.LastGood += src.base // numbered across the files, as printed
			return &exitError{1, err}
		}
		return err
	}
	// Before each read that may wait for the writer, what was decoded so
	// far is written out (tcpdump -l).
	r.OnRead(func() { _ = pr.flush() }) // a write error stays in the writer, reported at its close
	for !pr.done() {
		fr, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var fe *pcapio.FrameError
			if errors.As(err, &fe) {
				fe.LastGood += src.base
			}
			return &exitError{1, err}
		}
		if err := pr.handle(src, fr); err != nil {
			return err
		}
	}
	return nil
}
