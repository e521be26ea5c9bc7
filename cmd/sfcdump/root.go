package main

import (
	"fmt"

	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"
)

// subcommands holds the constructors of sfcdump's commands. Each command
// lives in its own file and adds itself here from that file's init(), so
// commands are added without touching this file.
var subcommands []func() *cobra.Command

func init() { subcommands = append(subcommands, newReadCmd) }

func newRootCmd() *cobra.Command {
	var verbose bool
	root := &cobra.Command{
		Use:   "sfcdump",
		Short: "Inspect captures of datacenter congestion and pause signalling",
		Long: `sfcdump reads packet captures (pcap, pcapng, gzip) and decodes the packets
datacenter switches and NICs use to signal congestion and pause traffic:
802.3x PAUSE, 802.1Qbb PFC, RoCEv2 (BTH, RETH, AETH, CNP, ICRC), 802.1Qcz CIM
with the SFC pause TLV, SFC back-to-sender (BTS), PB-FS CC-postcards, BFC
pause frames and Floodgate credit and dst-pause frames.

Field names (bts.pause_us, pfc.time_c3, flow.src, ...) are those of the
project's wire.md, the same in display filters (-Y), JSON, -T fields and
the Wireshark dissectors; 'sfcdump fields' lists them.

Exit status: 0 ok, 1 a capture broken part-way (everything before the
break is printed) or a failed live capture, 2 bad usage or a file that
cannot be read.`,
		Example: `  sfcdump read pcaps/sample.pcapng
  sfcdump read -Y 'bts && flow.qp == 0xd2' -T json capture.pcapng.gz
  sfcdump stats capture.pcapng
  sfcdump timeline capture.pcapng -o pauses.svg
  sudo sfcdump capture -i eth0 -Y 'pfc || cnp'
  source <(sfcdump completion bash)`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRun: func(cmd *cobra.Command, args []string) {
			if verbose {
				logrus.SetLevel(logrus.DebugLevel)
			}
		},
	}
	root.PersistentFlags().BoolVar(&verbose, "debug", false, "log debug messages on stderr")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{fmt.Errorf("%w (see '%s --help')", err, c.CommandPath())}
	})
	for _, c := range subcommands {
		root.AddCommand(c())
	}
	return root
}
