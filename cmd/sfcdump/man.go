// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/opensfc/sfc/atomicfile"
	"github.com/opensfc/sfc/version"
)

func init() { subcommands = append(subcommands, newManCmd) }

func newManCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write the manual pages (section 1) of sfcdump and its commands into DIR",
		Long: `man writes one troff manual page per command (sfcdump.1, sfcdump-read.1,
...) into DIR, created if missing, with cobra's doc package: the same text
as --help. Each page is written to a temporary file renamed when complete.`,
		Example: `  sfcdump man ~/.local/share/man/man1 && man sfcdump-read
  sudo sfcdump man /usr/local/share/man/man1`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] == "" {
				return usagef("man: an empty directory name")
			}
			n, err := writeManPages(cmd.Root(), args[0])
			if err != nil {
				return &exitError{1, fmt.Errorf("man: %w", err)}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d pages\n", args[0], n)
			return nil
		},
	}
}

// writeManPages writes the page of root and of every command under it
// that is shown in help into dir, and returns how many.
func writeManPages(root *cobra.Command, dir string) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	header := &doc.GenManHeader{Section: "1", Source: "sfcdump " + version.Get().Version, Manual: "sfcdump manual"}
	n := 0
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
				if err := walk(sub); err != nil {
					return err
				}
			}
		}
		c.DisableAutoGenTag = true
		var buf bytes.Buffer
		h := *header
		// The page's title is its name: SFCDUMP-READ(1), as man
		// sfcdump-read finds it.
		h.Title = strings.ToUpper(strings.ReplaceAll(c.CommandPath(), " ", "-"))
		if err := doc.GenMan(c, &h, &buf); err != nil {
			return err
		}
		name := strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
		if err := atomicfile.WriteFile(filepath.Join(dir, name), buf.Bytes(), atomicfile.DefaultPerm); err != nil {
			return err
		}
		n++
		return nil
	}
	return n, walk(root)
}
