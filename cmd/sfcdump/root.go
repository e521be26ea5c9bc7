// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"strings"

	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"

	"github.com/opensfc/sfc/version"
)

// subcommands holds sfcdump's commands by name. Each command lives in its
// own file and adds itself here from that file's init(), so commands are
// added without touching this file.
var subcommands []subcommand

// subcommand is a command's name (its cobra Name) and constructor; whole
// says that it runs over the whole tree (man writes a page for every
// command).
type subcommand struct {
	name  string
	make  func() *cobra.Command
	whole bool
}

// commandNamed returns args[0] when it names a subcommand that runs on its
// own, for newRootCmd; "" otherwise (a flag first, help, completion, a
// typo, man).
func commandNamed(args []string) string {
	if len(args) > 0 {
		for _, s := range subcommands {
			if s.name == args[0] && !s.whole {
				return s.name
			}
		}
	}
	return ""
}

func init() { subcommands = append(subcommands, subcommand{name: "read", make: newReadCmd}) }

// newRootCmd returns sfcdump's command tree; with only the name of a
// subcommand, a tree of the root and that one alone, which is all that
// runs when the arguments start with its name (run): building every
// command and its flags was a twentieth of the start-up of sfcdump read
// (about 1 ms on the 2-vCPU VM of bench/).
func newRootCmd(only string) *cobra.Command {
	var verbose bool
	root := &cobra.Command{
		Use:   "sfcdump",
		Short: "Inspect captures of datacenter congestion and pause signalling",
		Long: `sfcdump reads packet captures (pcap, pcapng, gzip, zstd) and decodes the packets
datacenter switches and NICs use to signal congestion and pause traffic:
802.3x PAUSE, 802.1Qbb PFC, RoCEv2 (BTH, RETH, AETH, CNP, ICRC), 802.1Qcz CIM
with the SFC pause TLV, SFC back-to-sender (BTS), PB-FS CC-postcards, BFC
pause frames and Floodgate credit and dst-pause frames.

Field names (bts.pause_us, pfc.time_c3, flow.src, ...) are those of the
project's wire.md, the same in display filters (-Y), JSON, -T fields and
the Wireshark dissectors; 'sfcdump fields' lists them.

Exit status: 0 ok; 1 a runtime error: a capture broken part-way (everything
before the break is printed), a failed live capture, an output that cannot
be written; 2 bad usage (an unknown command or flag, a value out of range,
an output that is also an input) or an input that cannot be read; 130 a
read interrupted by Ctrl-C; conform: as conformance.md says.

Outputs (-w, -o, wireshark install, man, conform gen) are written to a
temporary file beside the target and renamed when complete, the files of
one command (man's pages, a vector's files, the plugin and its backup) all
together: an error or an interrupted run never leaves half a file, and
never replaces an existing one, except that an interrupted capture (read -w,
capture -w) puts in place every frame written, if it wrote any.`,
		Example: `  sfcdump read pcaps/sample.pcapng
  sfcdump read -Y 'bts && flow.qp == 0xd2' -T json capture.pcapng.gz
  sfcdump stats capture.pcapng
  sfcdump timeline capture.pcapng -o pauses.svg
  sudo sfcdump capture -i eth0 -Y 'pfc || cnp'
  source <(sfcdump completion bash)`,
		Version:       version.String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.ArbitraryArgs,
		RunE:          groupRun,
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
	root.SetVersionTemplate("sfcdump {{.Version}}\n")
	for _, c := range subcommands {
		if only == "" || c.name == only {
			root.AddCommand(c.make())
		}
	}
	// A command that only groups others (wireshark, conform, completion)
	// shows its help when called alone and refuses an unknown subcommand
	// as bad usage: cobra would print the help and exit 0.
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.HasSubCommands() && !sub.Runnable() {
				sub.Args, sub.RunE = cobra.ArbitraryArgs, groupRun
			}
			walk(sub)
		}
	}
	walk(root)
	return root
}

// initDefaultCommands adds cobra's help and completion commands, which
// cobra would add when it executes, so that they refuse bad usage with
// exit status 2 as every other command does: an unknown help topic (cobra
// prints the root's usage and exits 0), an unknown shell (the same), an
// argument after the shell (exit 1). It is called after SetOut: the
// completion commands keep the output they find.
func initDefaultCommands(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.Run, c.RunE = nil, helpRun
		case "completion":
			c.Args, c.RunE = cobra.ArbitraryArgs, groupRun
			for _, sh := range c.Commands() {
				sh.Args = noArgs
			}
		}
	}
}

// helpRun is the help command's RunE: the help of the command args
// name, a usage error (exit status 2) when they name none.
func helpRun(c *cobra.Command, args []string) error {
	cmd, rest, err := c.Root().Find(args)
	if cmd == nil || err != nil || len(rest) > 0 {
		return usagef("help: unknown help topic %q (see '%s --help')", strings.Join(args, " "), c.Root().Name())
	}
	cmd.InitDefaultHelpFlag()
	cmd.InitDefaultVersionFlag()
	return cmd.Help()
}

// groupRun is the RunE of a command that only groups subcommands: its
// help without arguments, a usage error (exit status 2) naming the
// unknown subcommand, with cobra's suggestions, otherwise.
func groupRun(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return cmd.Help()
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += " (did you mean " + strings.Join(s, ", ") + "?)"
	}
	return usagef("%s (see '%s --help')", msg, cmd.CommandPath())
}
