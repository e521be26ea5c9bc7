package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/opensfc/sfc/wireshark"
)

func init() { subcommands = append(subcommands, newWiresharkCmd) }

func newWiresharkCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "wireshark",
		Short: "Install the Lua dissectors that teach Wireshark our formats",
		Long: `The Lua dissectors decode CIM (with the SFC TLV), BTS, CC-postcards, BFC,
Floodgate credit and dst-pause, and add CNP and FECN/BECN to Wireshark's BTH,
with the same field names as sfcdump (bts.pause_us, flow.src, ...).`,
	}
	var dir string
	install := &cobra.Command{
		Use:   "install",
		Short: "Copy the dissectors into Wireshark's personal plugin folder",
		Example: `  sfcdump wireshark install
  sfcdump wireshark install --dir /usr/lib/x86_64-linux-gnu/wireshark/plugins
  tshark -G plugins | grep sfc.lua`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := wireshark.Install(dir)
			if err != nil {
				return &exitError{1, fmt.Errorf("installing the dissectors: %w", err)}
			}
			fmt.Fprintln(cmd.OutOrStdout(), path)
			return nil
		},
	}
	install.Flags().StringVar(&dir, "dir", "", "plugin folder (default: Wireshark's personal Lua plugin folder)")
	path := &cobra.Command{
		Use:   "path",
		Short: "Print where the dissectors are (or would be) installed",
		Example: `  sfcdump wireshark path
  tshark -X lua_script:$(sfcdump wireshark path) -r pcaps/sample.pcapng`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := wireshark.PluginDir()
			if err != nil {
				return &exitError{1, err}
			}
			p := filepath.Join(d, wireshark.FileName)
			fmt.Fprintln(cmd.OutOrStdout(), p)
			if _, err := os.Stat(p); err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "not installed yet: run `sfcdump wireshark install`")
			}
			return nil
		},
	}
	cmd.AddCommand(install, path)
	return cmd
}
