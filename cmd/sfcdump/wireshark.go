// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/opensfc/sfc/atomicfile"
	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/wireshark"
)

func init() { subcommands = append(subcommands, subcommand{name: "wireshark", make: newWiresharkCmd}) }

func newWiresharkCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "wireshark",
		Short: "Install the Lua dissectors that teach Wireshark our formats",
		Long: `The Lua dissectors decode CIM (with the SFC TLV), BTS, CC-postcards, BFC,
Floodgate credit and dst-pause, and add CNP and FECN/BECN to Wireshark's BTH,
with the same field names as sfcdump (bts.pause_us, flow.src, ...).`,
	}
	var dir string
	var force bool
	install := &cobra.Command{
		Use:   "install",
		Short: "Copy the dissectors into Wireshark's personal plugin folder",
		Long: `install writes sfc.lua into Wireshark's personal Lua plugin folder (or
--dir) and records its SHA-256 beside it (.sfc.lua.sha256). Both (and
the backup --force makes) are written to temporary files renamed only
when all are complete: an error leaves every file as it was.

An installed sfc.lua that is exactly what an earlier install wrote is
replaced by this version. One that differs from it (edited by hand, or
written by something else) is left alone, with the lines that differ,
unless --force: then it is kept as sfc.lua.bak and replaced.`,
		Example: `  sfcdump wireshark install
  sfcdump wireshark install --dir /usr/lib/x86_64-linux-gnu/wireshark/plugins
  sfcdump wireshark install --force     # replace a locally edited sfc.lua (kept as sfc.lua.bak)
  tshark -G plugins | grep sfc.lua`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("dir") && dir == "" {
				return usagef("--dir: an empty folder name (leave --dir out for Wireshark's personal plugin folder)")
			}
			defer removeOutputsOnInterrupt(cmd.ErrOrStderr())()
			path, what, err := installDissector(dir, force)
			if err != nil {
				return &exitError{1, err}
			}
			fmt.Fprintln(cmd.OutOrStdout(), path)
			if what != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), what)
			}
			return nil
		},
	}
	install.Flags().StringVar(&dir, "dir", "", "plugin folder, which must exist (default: Wireshark's personal Lua plugin folder, made if needed)")
	install.Flags().BoolVar(&force, "force", false, "replace an sfc.lua that was edited or not written by install (kept as sfc.lua.bak)")
	path := &cobra.Command{
		Use:   "path",
		Short: "Print where the dissectors are (or would be) installed",
		Example: `  sfcdump wireshark path
  tshark -X lua_script:$(sfcdump wireshark path) -r pcaps/sample.pcapng`,
		Args: noArgs,
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

// stampName is the file beside sfc.lua holding the SHA-256 of what
// install wrote, to tell an untouched earlier install from a local edit.
const stampName = "." + wireshark.FileName + ".sha256"

func sum(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }

// installDissector writes wireshark.Dissector into dir (the personal
// plugin folder when empty) and returns the path and a note for stderr.
// An existing sfc.lua is replaced only when it is what an earlier install
// wrote, or with force (keeping it as sfc.lua.bak).
func installDissector(dir string, force bool) (path, note string, err error) {
	if dir == "" {
		if dir, err = wireshark.PluginDir(); err != nil {
			return "", "", err
		}
		// Wireshark's own folder may not exist yet: make it.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", "", err
		}
	} else if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		// A folder named with --dir must exist: a mistyped path is not
		// created.
		if err == nil {
			err = fmt.Errorf("not a directory")
		}
		return "", "", fmt.Errorf("--dir %s: %w", dissect.Escape(dir), err)
	}
	path = filepath.Join(dir, wireshark.FileName)
	stamp := filepath.Join(dir, stampName)
	// The backup, the plugin and its stamp are one output: none of them
	// is put in place unless all are complete (a backup of a file left
	// unreplaced, or a plugin without its stamp, would mislead the next
	// install).
	var g atomicfile.Group
	defer g.Abort()
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", "", err
	case bytes.Equal(old, wireshark.Dissector):
		note = "already up to date"
	default:
		recorded, _ := os.ReadFile(stamp)
		if strings.TrimSpace(string(recorded)) == sum(old) {
			note = "replaced the version an earlier install wrote"
			break
		}
		if !force {
			return "", "", fmt.Errorf("%s differs from the dissector this sfcdump carries and is not what an earlier install wrote (edited by hand?): %s; not replaced: `sfcdump wireshark install --force` replaces it and keeps it as %s.bak",
				path, describeDiff(old, wireshark.Dissector), wireshark.FileName)
		}
		bak, err := backupName(path, old)
		if err != nil {
			return "", "", err
		}
		// The backup is the user's edited file: as private as it was,
		// and theirs (a 0600 file came back 0644 and root's).
		perm, was := atomicfile.DefaultPerm, fs.FileInfo(nil)
		if fi, err := os.Stat(path); err == nil {
			perm, was = fi.Mode().Perm(), fi
		}
		f, err := g.Create(bak, perm)
		if err != nil {
			return "", "", err
		}
		if was != nil {
			atomicfile.GiveOwner(f.Name(), was)
		}
		if _, err := f.Write(old); err != nil {
			return "", "", err
		}
		if err := f.Commit(); err != nil {
			return "", "", err
		}
		note = "replaced; the old file is kept as " + bak
	}
	if err := g.WriteFile(path, wireshark.Dissector, atomicfile.DefaultPerm); err != nil {
		return "", "", err
	}
	if err := g.WriteFile(stamp, []byte(sum(wireshark.Dissector)+"\n"), atomicfile.DefaultPerm); err != nil {
		return "", "", err
	}
	if err := g.Commit(); err != nil {
		return "", "", err
	}
	return path, note, nil
}

// backupName is where to keep old, the file at path being replaced:
// path.bak, unless that holds another file, which is not overwritten:
// then path.bak.1, .2, ... (the first free or equal one).
func backupName(path string, old []byte) (string, error) {
	for i := 0; i < 1000; i++ {
		name := path + ".bak"
		if i > 0 {
			name += "." + strconv.Itoa(i)
		}
		b, err := os.ReadFile(name)
		if errors.Is(err, fs.ErrNotExist) || err == nil && bytes.Equal(b, old) {
			return name, nil
		}
		if err != nil {
			return "", err
		}
	}
	return "", fmt.Errorf("%s.bak to %s.bak.999 all hold other files: remove some", path, path)
}

// describeDiff says how many lines of have differ from want and shows the
// first.
func describeDiff(have, want []byte) string {
	h, w := strings.Split(string(have), "\n"), strings.Split(string(want), "\n")
	n, first := 0, -1
	for i := 0; i < max(len(h), len(w)); i++ {
		var a, b string
		if i < len(h) {
			a = h[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			n++
			if first < 0 {
				first = i
			}
		}
	}
	line := func(l []string, i int) string {
		if i >= len(l) {
			return "(no line)"
		}
		return fmt.Sprintf("%q", dissect.Escape(l[i]))
	}
	return fmt.Sprintf("%d of %d lines differ, the first at line %d: installed %s, ours %s",
		n, max(len(h), len(w)), first+1, line(h, first), line(w, first))
}
