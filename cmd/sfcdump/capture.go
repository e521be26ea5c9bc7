// SPDX-License-Identifier: Apache-2.0

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gopacket/gopacket"
	glayers "github.com/gopacket/gopacket/layers"
	"github.com/spf13/cobra"

	"github.com/opensfc/sfc/pcapio"
)

func init() { subcommands = append(subcommands, subcommand{name: "capture", make: newCaptureCmd}) }

// liveHandle is what capture reads from: a pcapgo.EthernetHandle.
type liveHandle interface {
	ZeroCopyReadPacketData() ([]byte, gopacket.CaptureInfo, error)
	Close() error
}

// openLive opens a live capture on iface (capture_linux.go; elsewhere an
// error: AF_PACKET is Linux's). Tests replace it to open the handle inside
// a network namespace.
var openLive = openEthernet

func newCaptureCmd() *cobra.Command {
	var o outputOptions
	var iface string
	var duration time.Duration
	var promisc bool
	var snaplen int
	cmd := &cobra.Command{
		Use:   "capture -i IFACE",
		Short: "Capture live from an interface (AF_PACKET, no libpcap) and decode as read does",
		Long: `capture opens a packet socket on one interface through gopacket's pure-Go
pcapgo.EthernetHandle (no cgo, no libpcap; needs CAP_NET_RAW, usually root)
and prints every frame as read does, with the same options: -Y, -V, -x, -T,
-e, -w (the frames that match, as pcapng), --decode-as, --link-speed.
Pause quanta convert to time at the interface's speed as the kernel reports
it (/sys/class/net/IFACE/speed, what ethtool shows), which -w records as
if_speed; --speed overrides it, and 100G is assumed where none is known.

It stops after -c frames, after --duration, or on Ctrl-C (SIGINT), SIGTERM
or SIGHUP (the terminal closed), and flushes everything first: the -w file,
written to a temporary file renamed at the end, keeps every frame captured.
An interface that cannot be opened, or an interrupt before the first frame,
leaves an existing -w file as it was.`,
		Example: `  sudo sfcdump capture -i eth0 -Y 'pfc || bts || cnp'
  sudo sfcdump capture -i eth0 -c 1000 -w pauses.pcapng -Y 'pfc.c3'
  sudo sfcdump capture -i eth0 --duration 10s -T json | jq -c .bts`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if iface == "" {
				return &usageError{errors.New("capture: -i IFACE is required")}
			}
			if cmd.Flags().Changed("duration") && duration <= 0 {
				return usagef("--duration %s: want a positive duration such as 30s (leave it out to capture until -c or Ctrl-C)", duration)
			}
			if snaplen < 0 || snaplen > maxSnaplen {
				return usagef("--snaplen %d: want 1 to %d octets, or 0 for whole frames", snaplen, maxSnaplen)
			}
			o.writeSet = cmd.Flags().Changed("write")
			return runCapture(cmd.OutOrStdout(), cmd.ErrOrStderr(), iface, duration, promisc, snaplen, &o)
		},
	}
	o.addFlags(cmd)
	f := cmd.Flags()
	f.StringVarP(&iface, "interface", "i", "", "interface to capture on")
	f.DurationVar(&duration, "duration", 0, "stop after this long (e.g. 30s; leave it out to run until -c or Ctrl-C)")
	f.BoolVar(&promisc, "promisc", true, "put the interface in promiscuous mode")
	f.IntVarP(&snaplen, "snaplen", "s", 0, "capture at most this many octets of each frame (0: whole frames)")
	_ = cmd.RegisterFlagCompletionFunc("interface", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return completable(interfaceNames()), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// completable returns the names a shell may offer as candidates: a name
// with control characters would reach the terminal raw through the
// shell's list, and escaped it would not name the interface, so it is
// left out.
func completable(names []string) []string {
	var out []string
	for _, n := range names {
		if !strings.ContainsFunc(n, func(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 }) {
			out = append(out, n)
		}
	}
	return out
}

// maxSnaplen is the largest --snaplen, tcpdump's MAXIMUM_SNAPLEN.
const maxSnaplen = 262144

func runCapture(out, errOut io.Writer, iface string, duration time.Duration, promisc bool, snaplen int, o *outputOptions) error {
	pr, err := newPrinter(out, o, nil)
	if err != nil {
		return err
	}
	h, err := openLive(iface, promisc, snaplen)
	if err != nil {
		pr.close(false)
		return &exitError{1, fmt.Errorf("capture on %s: %w", iface, err)}
	}
	// Stopping closes the handle, which ends a blocked read.
	var stopping atomic.Bool
	var once sync.Once
	stop := func() { once.Do(func() { stopping.Store(true); h.Close() }) }
	defer stop()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	defer pr.catchClosedPipe()() // capture -P -w X | head keeps X (below)
	done := make(chan struct{})
	defer close(done)
	go func() {
		var timeout <-chan time.Time
		if duration > 0 {
			t := time.NewTimer(duration)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-sigs:
			pr.interrupted.Store(true) // not --duration's end
		case <-timeout:
		case <-done:
			return
		}
		stop()
		// A loop stuck writing to a standard output nobody reads never
		// sees the stop: after interruptGrace, or at another signal, the
		// -w capture is put in place from here and the process exits
		// 130 (salvage).
		select {
		case <-done:
		case <-sigs:
			pr.salvage(errOut)
		case <-time.After(interruptGrace):
			pr.salvage(errOut)
		}
	}()

	// The interface's own speed (as ethtool reports it) converts pause
	// quanta and is written to -w as if_speed, unless --speed gives one.
	speed := ifaceSpeed(iface)
	src := &source{name: iface, ifName: func(int) string { return iface }, ifSpeed: func(int) uint64 { return speed }, ifOut: func(int) pcapio.Interface {
		return pcapio.Interface{LinkType: glayers.LinkTypeEthernet, SnapLen: uint32(snaplen)}
	}}
	pr.emptyFrom(src) // a capture of no frame still names the interface
	var fr pcapio.Frame
	var readErr error
	for n := 1; !pr.done(); n++ {
		data, ci, err := h.ZeroCopyReadPacketData()
		if err != nil {
			if !stopping.Load() {
				readErr = &exitError{1, fmt.Errorf("capture on %s: after frame %d: %w", iface, n-1, err)}
			}
			break
		}
		fr = pcapio.Frame{Number: n, Time: ci.Timestamp, Len: ci.Length, Data: data}
		if err := pr.handle(src, &fr); err != nil {
			readErr = err
			break
		}
		// Live frames come one by one: show each at once.
		if err := pr.flush(); err != nil {
			readErr = err
			break
		}
	}
	// Frames captured cannot be captured again: they are kept, except that
	// a run ended by an error does not replace an existing file. A
	// standard output closed by its reader is a stop, not an error.
	// A capture interrupted before its first frame leaves an existing
	// file as it was (emptyInterrupt); --duration ending it is no
	// interrupt: the run was complete.
	pipeClosed := errors.Is(readErr, syscall.EPIPE) && pr.outAtomic != nil
	keep := readErr == nil || !pr.outExisted || pipeClosed
	pr.outMu.Lock()
	empty := pr.interrupted.Load() && readErr == nil && pr.emptyInterrupt()
	pr.outMu.Unlock()
	if empty {
		keep = false
	}
	if err := pr.close(keep); err != nil && readErr == nil {
		readErr = &exitError{1, err}
	}
	if empty && readErr == nil {
		report(errOut, errors.New(pr.emptyInterruptNote()))
	}
	if pipeClosed && pr.committed {
		return pr.reportClosedPipe(errOut)
	}
	return readErr
}

// interfaceNames lists the host's interfaces, for completion.
func interfaceNames() []string {
	var names []string
	entries, err := os.ReadDir("/sys/class/net")
	if err != nil {
		return nil
	}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
