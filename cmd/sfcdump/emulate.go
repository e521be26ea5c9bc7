// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/conformance/live"
	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/liveio"
)

func init() { subcommands = append(subcommands, subcommand{name: "emulate", make: newEmulateCmd}) }

// maxSettle bounds --settle: the quiet time before the emulator starts
// answering is seconds in practice; an hour is a typo.
const maxSettle = time.Hour

func newEmulateCmd() *cobra.Command {
	var ports []string
	var scheme, config, speed, format, fault string
	var o live.EmuOptions
	var duration time.Duration
	var syncDir string
	cmd := &cobra.Command{
		Use:   "emulate --port NAME=IFACE ... (--scheme S | --config case.yaml)",
		Short: "Run the reference device on real interfaces as a software switch or NIC",
		Long: `emulate runs the project's reference device (the models conformance checks
against, built as 'conform check' builds them from a case) on host
interfaces: frames read on a port's interface (AF_PACKET; needs
CAP_NET_RAW, usually root) enter the device at the model time of their
kernel receive timestamp, and every frame the device sends (forwarded data,
BTS, CIM, PFC, PAUSE, BFC, Floodgate and postcard signals) leaves on its
port's interface when the device's clock reaches it. A NIC or host stack
can be tested against it, and 'conform live' checked against a known
device.

Time: model time = (wall clock − receive time of the first frame) / --dilate.
With --dilate N the device runs N times slower than real time (a frame
that takes 86 ns at 100 Gb/s keeps the emulated port busy for 86·N ns),
so software senders can keep up with line-rate scenarios; drive it with
'conform live --dilate N'. Frames are held --settle after their receive
time so that frames of several ports go in in arrival order: the device's
latency grows by settle/N in model time.

--config case.yaml gives the device (ports, speeds, forwarding, schemes,
parameters); without it, --scheme makes a switch with the scheme's default
parameters whose port i (--port i=IFACE) routes 10.0.i.0/24 and
fd00:0:0:i::/64 at --speed. A NIC case maps its host side with
--port host=IFACE.

--sync DIR joins it to 'conform live --sync DIR' on the same host: conform
live writes each vector's epoch there (as a wall-clock instant), and the
emulator starts a fresh device whose clock starts at it, so that its
periodic timers (PFC refresh, BFC and Floodgate ticks) have the phase the
reference gives them; the emulator logs there each input it took late and
each output it sent late, and conform live calls a run during which it
fell behind INCONCLUSIVE (docs/live.md).

It runs until SIGINT (Ctrl-C) or SIGTERM, or for --duration, then prints a
summary: frames in and out per port, signals sent, the model's drops,
kernel drops, and how far it fell behind the wall clock.`,
		Example: `  sudo sfcdump emulate --scheme pfc --port 0=veth0 --port 1=veth1 --port 2=veth2
  sudo sfcdump emulate --config pcaps/sfc/incast-first-bts/case.yaml --dilate 10000 \
      --port 0=d0 --port 1=d1 --port 2=d2 --port 3=d3 --port 4=d4`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return &usageError{fmt.Errorf("--format %q: want text or json", format)}
			}
			if err := checkDilate(o.Dilate); err != nil {
				return err
			}
			if o.Settle < 0 || o.Settle > maxSettle {
				return &usageError{fmt.Errorf("--settle %s: want 0 to %s", o.Settle, maxSettle)}
			}
			if duration < 0 {
				return &usageError{fmt.Errorf("--duration %s: want 0 or more (0: until SIGINT or SIGTERM)", duration)}
			}
			pm, err := live.ParsePortMap(ports)
			if err != nil {
				return &usageError{err}
			}
			if len(pm) == 0 {
				return &usageError{fmt.Errorf("emulate needs --port NAME=IFACE for the device's ports")}
			}
			var c *conformance.Case
			switch {
			case config != "" && cmd.Flags().Changed("speed"):
				return &usageError{fmt.Errorf("--speed sets the default switch's ports; with --config the case's ports give their speeds")}
			case config != "":
				c, err = conformance.LoadCase(config)
				if err != nil {
					return &exitError{2, err}
				}
				if scheme != "" && !live.HasScheme(c, scheme) {
					return &usageError{fmt.Errorf("--scheme %s: %s runs %s", scheme, config, strings.Join(c.Schemes, ", "))}
				}
			case scheme == "":
				return &usageError{fmt.Errorf("emulate needs --scheme (%s) or --config case.yaml", strings.Join(live.EmuSchemes, "|"))}
			default:
				var ids []int
				for name := range pm {
					id, err := strconv.Atoi(name)
					if err != nil {
						return &usageError{fmt.Errorf("--port %s=...: without --config, ports are numbered (--port 0=IFACE)", name)}
					}
					ids = append(ids, id)
				}
				sort.Ints(ids)
				if _, err := parseSpeed(speed); err != nil {
					return &usageError{fmt.Errorf("--speed %s: %v", dissect.Escape(speed), err)}
				}
				c, err = live.DefaultCase(scheme, ids, speed)
				if err != nil {
					return &usageError{err}
				}
			}
			ids, unknown, err := pm.Resolve(c)
			if err != nil {
				return &usageError{err}
			}
			if len(unknown) > 0 {
				return &usageError{fmt.Errorf("--port: %s: no such port in the case (ports: %s)", strings.Join(unknown, ", "), strings.Join(c.InterfaceNames(), ", "))}
			}
			if o.Settle == 0 {
				o.Settle = -1 // the library reads 0 as its default
			}
			if fault != "" {
				if o.Fault, err = live.ParseFault(fault); err != nil {
					return &usageError{err}
				}
			}
			if syncDir != "" {
				sy, err := live.OpenSync(syncDir)
				if err != nil {
					return &exitError{2, fmt.Errorf("--sync: %w", err)}
				}
				defer sy.Close()
				o.Origin, o.OnLag, o.LogInputs = sy.Origin, sy.AddLag, true
			}
			open := map[int]*liveio.Port{}
			defer func() {
				for _, p := range open {
					p.Close()
				}
			}()
			for id, iface := range ids {
				p, err := liveOpen(iface, liveio.Options{Promisc: true})
				if err != nil {
					return &exitError{1, fmt.Errorf("port %s: %w", c.PortName(id), err)}
				}
				open[id] = p
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if duration > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, duration)
				defer cancel()
			}
			errw := cmd.ErrOrStderr()
			o.Ready = func() {
				var m []string
				for _, id := range sortedIDs(ids) {
					m = append(m, c.PortName(id)+"="+ids[id])
				}
				fmt.Fprintf(errw, "sfcdump: emulating %s (%s) on %s, dilate %g; Ctrl-C to stop\n", c.Role, strings.Join(c.Schemes, ", "), strings.Join(m, " "), o.Dilate)
			}
			sum, runErr := live.Emulate(ctx, c, open, o)
			if sum != nil {
				out := cmd.OutOrStdout()
				if format == "json" {
					e := json.NewEncoder(out)
					e.SetIndent("", "  ")
					_ = e.Encode(sum)
				} else {
					fmt.Fprint(out, sum.String())
				}
			}
			if runErr != nil {
				return &exitError{1, runErr}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&ports, "port", nil, "NAME=IFACE: run port NAME (id, interface name, or host) on host interface IFACE; repeat per port")
	fl.StringVar(&scheme, "scheme", "", "scheme of the default switch: "+strings.Join(live.EmuSchemes, ", ")+" (with --config: must be one the case runs)")
	fl.StringVar(&config, "config", "", "case.yaml describing the device (role, ports, schemes, parameters)")
	fl.StringVar(&speed, "speed", "100G", "port speed of the default switch (without --config)")
	fl.Float64Var(&o.Dilate, "dilate", 1, "run the device's clock this many times slower than the wall clock")
	fl.DurationVar(&o.Settle, "settle", time.Millisecond, "hold each frame this long after it arrives, to take frames of all ports in arrival order")
	fl.StringVar(&syncDir, "sync", "", "a directory shared with 'sfcdump conform live --sync' on this host: start a fresh device at each vector's epoch, and log this emulator's lag there")
	fl.DurationVar(&duration, "duration", 0, "stop after this long (0: until SIGINT or SIGTERM)")
	fl.StringVarP(&format, "format", "T", "text", "summary format: text or json")
	fl.StringVar(&fault, "fault", "", "inject faults, for tests: "+live.Faults)
	_ = fl.MarkHidden("fault")
	return cmd
}

func sortedIDs(m map[int]string) []int {
	var ids []int
	for id := range m {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	return ids
}
