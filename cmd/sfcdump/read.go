package main

import (
	"errors"
	"io"

	glayers "github.com/gopacket/gopacket/layers"
	"github.com/spf13/cobra"

	"github.com/opensfc/sfc/pcapio"
)

func newReadCmd() *cobra.Command {
	var o outputOptions
	cmd := &cobra.Command{
		Use:   "read FILE...",
		Short: "Decode captures and print one line, a tree, JSON or fields per frame",
		Long: `read decodes pcap, pcapng and gzip-compressed captures ('-' for standard
input) and prints each frame: one line (frame number, time since the first
frame, interface for pcapng, addresses and the signal), the full tree of
fields with -V, JSON Lines with -T json, or chosen fields with -T fields.

Malformed frames are printed as malformed, with the reason, and do not stop
the run. A truncated capture prints every frame before the cut, names the
last good frame and exits with status 1; an unreadable file or a link type
other than Ethernet exits with status 2.`,
		Example: `  sfcdump read pcaps/sample.pcapng
  sfcdump read -V -c 3 pcaps/sample.pcapng
  sfcdump read -Y 'bts.pause_us > 10 && flow.qp == 0xd2' pcaps/sample.pcapng
  sfcdump read -T json pcaps/sample.pcapng | jq .bts
  sfcdump read -T fields -e frame.number -e bts.pause_us -e flow.src -Y bts pcaps/sample.pcapng
  sfcdump read -Y 'pfc || pause' -w pauses.pcapng big.pcapng.gz
  sfcdump read --decode-as udp.port==5000:bts --link-speed port1=25G capture.pcapng
  zcat big.pcapng.gz | sfcdump read -c 100 -`,
		Args:              minArgs(1),
		ValidArgsFunction: completeCaptures,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRead(cmd.OutOrStdout(), cmd.ErrOrStderr(), args, &o)
		},
	}
	o.addFlags(cmd)
	return cmd
}

// completeCaptures completes capture file names.
func completeCaptures(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return []string{"pcap", "pcapng", "gz", "cap"}, cobra.ShellCompDirectiveFilterFileExt
}

func runRead(out, errOut io.Writer, files []string, o *outputOptions) error {
	pr, err := newPrinter(out, o)
	if err != nil {
		return err
	}
	code := 0
	for i, file := range files {
		if pr.done() {
			break
		}
		if err := readOne(pr, i, file); err != nil {
			var ee *exitError
			if !errors.As(err, &ee) {
				pr.close()
				return err // output failed: nothing more to do
			}
			// Everything before the error is printed first; the error goes
			// to stderr and the next file is read.
			if ferr := pr.w.Flush(); ferr != nil {
				return ferr
			}
			report(errOut, err)
			code = max(code, ee.code)
		}
	}
	if err := pr.close(); err != nil {
		return err
	}
	if code != 0 {
		return &exitError{code, errSilent}
	}
	return nil
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
	src := &source{index: index, name: r.Name(), showIf: r.IsPcapng(),
		ifName: func(i int) string { return r.Interface(i).Name }, ifSpeed: func(i int) uint64 { return r.Interface(i).Speed },
		ifLink: func(i int) glayers.LinkType { return r.Interface(i).LinkType }}
	if n := parallelism(); n > 0 {
		err := pr.readParallel(src, r, n)
		var fe *pcapio.FrameError
		if errors.As(err, &fe) {
			return &exitError{1, err}
		}
		return err
	}
	for !pr.done() {
		fr, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &exitError{1, err}
		}
		if err := pr.handle(src, fr); err != nil {
			return err
		}
	}
	return nil
}
