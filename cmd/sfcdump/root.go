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
pause frames and Floodgate credit and dst-pause frames.`,
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
