// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/conformance/live"
)

// liveOpen opens the interfaces of conform live and emulate; tests
// replace it to open them inside a network namespace.
var liveOpen live.OpenFunc = live.DefaultOpen

func newConformLiveCmd() *cobra.Command {
	var f conformFormat
	var ports []string
	var o live.Options
	var maxSlip time.Duration
	var syncDir string
	cmd := &cobra.Command{
		Use:   "live VECTOR... --port NAME=IFACE ...",
		Short: "Drive a device on real ports with vectors' inputs and check what it sends (device mode)",
		Long: `live runs each vector against a device wired to this host: it sends the frames
of the vector's input.pcapng on the interfaces mapped to the case's ports
(AF_PACKET, no libpcap; needs CAP_NET_RAW, usually root) at the vector's
times stretched --dilate times, captures every mapped interface meanwhile
into one pcapng (one interface block per port, with its name and speed),
and checks the capture against the reference in device mode, with the
frames as actually sent as the input. Tolerances hold in the vector's time:
in wall-clock time they are --dilate times wider.

--port NAME=IFACE maps a port of the case (its id, its interface name such
as port0, or host for a NIC's host side) to a host interface; repeat it for
every port. Ports of other vectors are ignored.

The verdict is INCONCLUSIVE (exit status 3), whatever the device did, when
the schedule slipped (a frame left more than --max-slip, default the case's
time tolerance, after its planned time, in vector time), the kernel dropped
frames in capture, or a port the reference sends on stayed silent, or
(with --sync, against sfcdump emulate) the emulator itself fell behind. The
report gives the schedule achieved (worst, mean, 99th percentile slip) and
what each port sent and captured.

Exit status: 0 pass, 1 deviations, 2 unusable (vector, port map), 3
inconclusive; with several vectors, the most severe (UNUSABLE, then FAIL,
then INCONCLUSIVE). See docs/live.md.`,
		Example: `  sudo sfcdump conform live pcaps/sfc/incast-first-bts --port 0=eth1 --port 1=eth2 \
      --port 2=eth3 --port 3=eth4 --port 4=eth5
  sudo sfcdump conform live pcaps/sfc --port 0=veth0 ... --dilate 10000 --save runs/ -T json`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			pm, err := live.ParsePortMap(ports)
			if err != nil {
				return &usageError{err}
			}
			if len(pm) == 0 {
				return &usageError{fmt.Errorf("conform live needs --port NAME=IFACE for the device's ports")}
			}
			if err := checkDilate(o.Dilate); err != nil {
				return err
			}
			if maxSlip < 0 {
				return &usageError{fmt.Errorf("--max-slip %s: want 0 or more (0: the case's time tolerance)", maxSlip)}
			}
			dirs, err := vectorDirs(args)
			if err != nil {
				return &exitError{2, err}
			}
			o.Ports, o.Open, o.MaxSlip, o.DUT = pm, liveOpen, maxSlip.Nanoseconds(), f.dut
			o.Check = conformance.Options{MaxShown: f.maxShown, Digest: f.dig, TesterCapture: true}
			if syncDir != "" {
				sy, err := live.OpenSync(syncDir)
				if err != nil {
					return &exitError{2, fmt.Errorf("--sync: %w", err)}
				}
				defer sy.Close()
				o.OnSchedule, o.DUTLag = sy.SetOrigin, sy.Lags
			}
			// Ctrl-C (SIGINT, SIGTERM) ends the run under way: its captures
			// are kept and judged INCONCLUSIVE, the vectors after it are
			// not run, the reports are written, and the exit status is 130.
			stop := make(chan struct{})
			sigs := make(chan os.Signal, 1)
			signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
			defer signal.Stop(sigs)
			go func() {
				if _, ok := <-sigs; ok {
					close(stop)
					signal.Stop(sigs) // a second Ctrl-C ends the process
				}
			}()
			o.Interrupt = stop
			var reps []*live.Report
			for _, d := range dirs {
				rep := live.Run(d, o)
				reps = append(reps, rep)
				if live.Interrupted(stop) {
					break
				}
			}
			if err := writeLive(cmd.OutOrStdout(), &f, reps); err != nil {
				return &exitError{2, err}
			}
			if live.Interrupted(stop) {
				return &exitError{130, errConformSilent}
			}
			if code := liveExit(reps); code != 0 {
				return &exitError{code, errConformSilent}
			}
			return nil
		},
	}
	f.addFlags(cmd)
	fl := cmd.Flags()
	fl.StringArrayVar(&ports, "port", nil, "NAME=IFACE: the host interface wired to port NAME (id, interface name, or host); repeat per port")
	fl.Float64Var(&o.Dilate, "dilate", 1, "stretch the schedule (and the tolerances, in wall-clock time) this many times")
	fl.StringVar(&o.Save, "save", "", "keep each vector's captures and reports in a sub-directory of this directory")
	fl.StringVar(&syncDir, "sync", "", "a directory shared with 'sfcdump emulate --sync' on this host: the emulator starts each vector's clock at its epoch, and its own lag makes a run inconclusive")
	fl.DurationVar(&maxSlip, "max-slip", 0, "how late a frame may leave, in vector time, before the run is inconclusive (default: the case's time tolerance)")
	return cmd
}

// maxDilate bounds --dilate of conform live and emulate: 1 ns of vector
// time becomes at most 1 s of wall-clock time, and a schedule in int64 ns
// times the factor stays far from overflowing for any real vector.
const maxDilate = 1e9

// checkDilate range-checks --dilate: 1 to maxDilate, which NaN and ±Inf
// are not (a plain "< 1" lets NaN through).
func checkDilate(d float64) error {
	if !(d >= 1 && d <= maxDilate) {
		return &usageError{fmt.Errorf("--dilate %g: want 1 to %g", d, float64(maxDilate))}
	}
	return nil
}

// severity orders verdicts for the overall exit status.
func severity(code int) int {
	switch code {
	case 2:
		return 3
	case 1:
		return 2
	case 3:
		return 1
	}
	return 0
}

func liveExit(reps []*live.Report) int {
	code := 0
	for _, r := range reps {
		if c := r.ExitCode(); severity(c) > severity(code) {
			code = c
		}
	}
	return code
}

func writeLive(w io.Writer, f *conformFormat, reps []*live.Report) error {
	switch f.format {
	case "jsonl", "junit":
		conv := make([]*conformance.Report, len(reps))
		for i, r := range reps {
			conv[i] = r.Conformance()
		}
		if f.format == "junit" {
			return conformance.WriteJUnit(w, conv)
		}
		for _, r := range conv {
			if err := r.WriteJSONL(w); err != nil {
				return err
			}
		}
		return nil
	}
	if f.format == "json" {
		if len(reps) == 1 {
			return reps[0].WriteJSON(w)
		}
		verdicts := map[int]string{0: conformance.Pass, 1: conformance.Fail, 2: conformance.Unusable, 3: live.Inconclusive}
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		e.SetEscapeHTML(false)
		return e.Encode(struct {
			Reports []*live.Report `json:"reports"`
			Verdict string         `json:"verdict"`
		}{reps, verdicts[liveExit(reps)]})
	}
	ew := &escapeLines{w: w}
	defer ew.Close()
	w = ew
	counts := map[string]int{}
	for _, r := range reps {
		counts[r.Verdict]++
		if f.quiet && r.Verdict == conformance.Pass {
			fmt.Fprintf(w, "PASS %s\n", r.Vector)
			continue
		}
		if err := r.WriteText(w); err != nil {
			return err
		}
	}
	if len(reps) > 1 {
		_, err := fmt.Fprintf(w, "%d of %d vectors pass (%d fail, %d inconclusive, %d unusable)\n", counts[conformance.Pass], len(reps),
			counts[conformance.Fail], counts[live.Inconclusive], counts[conformance.Unusable])
		return err
	}
	return nil
}
