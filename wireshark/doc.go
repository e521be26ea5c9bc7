// SPDX-License-Identifier: Apache-2.0

// Package wireshark ships the project's Lua dissectors (sfc.lua) for the
// formats Wireshark does not decode itself — CIM with the SFC TLV, BTS,
// CC-postcards, BFC, Floodgate credit and dst-pause, and CNP and FECN/BECN
// on top of Wireshark's own BTH — embedded so that `sfcdump wireshark
// install` works from a `go install`ed binary.
//
// The dissectors use the field names of wire.md, the same as sfcdump's JSON
// and filters. The package's test loads them into Debian's tshark and checks
// that for every frame of the captures under pcaps/, tshark's fields equal
// sfcdump's (package dissect) for every field of every protocol, and that
// on testdata/quotes.pcapng (quotes behind AH, ESP, fragments, long IPv6
// extension header chains) the quoted flow is layers.DecodeQuote's.
package wireshark

import (
	_ "embed"
	"errors"
	"os"
	"path/filepath"
	"runtime"

	"github.com/opensfc/sfc/atomicfile"
)

// Dissector is the content of sfc.lua.
//
//go:embed sfc.lua
var Dissector []byte

// FileName is the name the dissector is installed under.
const FileName = "sfc.lua"

// PluginDir returns the personal Lua plugin folder of Wireshark for the
// current user: $XDG_CONFIG_HOME is not used by Wireshark for plugins;
// it is ~/.local/lib/wireshark/plugins on Linux and macOS and
// %APPDATA%\Wireshark\plugins on Windows.
func PluginDir() (string, error) {
	if runtime.GOOS == "windows" {
		appdata := os.Getenv("APPDATA")
		if appdata == "" {
			return "", errors.New("APPDATA is not set")
		}
		return filepath.Join(appdata, "Wireshark", "plugins"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "lib", "wireshark", "plugins"), nil
}

// Install writes the dissector into dir (PluginDir when dir is empty),
// creating the folder, and returns the path written. The file is written
// through a temporary file renamed when complete; an existing sfc.lua is
// replaced whatever it holds (`sfcdump wireshark install` first checks
// for local edits).
func Install(dir string) (string, error) {
	if dir == "" {
		var err error
		if dir, err = PluginDir(); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, FileName)
	return path, atomicfile.WriteFile(path, Dissector, atomicfile.DefaultPerm)
}
