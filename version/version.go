// SPDX-License-Identifier: Apache-2.0

// Package version names the build of this module: its module version, the
// VCS revision it was built from and the Go toolchain. sfcdump --version
// prints it and every conformance report carries it, so a verdict can be
// traced to the harness that gave it.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Info is what the binary knows about its own build.
type Info struct {
	Module   string // module path, e.g. github.com/opensfc/sfc
	Version  string // module version ("(devel)" for a checkout build)
	Revision string // VCS revision, "" when not stamped
	Modified bool   // the work tree had uncommitted changes
	Go       string // Go toolchain version
}

// Get reads the build information of the running binary. It never fails:
// fields it cannot learn are left as "unknown" (Version) or empty.
func Get() Info {
	in := Info{Module: "github.com/opensfc/sfc", Version: "unknown", Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return in
	}
	if bi.Main.Path != "" {
		in.Module = bi.Main.Path
	}
	if bi.Main.Version != "" {
		in.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	return in
}

// String is the one-line form used by --version and in reports:
// "github.com/opensfc/sfc (devel) rev 1dbb1f2c3d4e+dirty go1.26.8".
func (i Info) String() string {
	s := fmt.Sprintf("%s %s", i.Module, i.Version)
	if i.Revision != "" {
		r := i.Revision
		if len(r) > 12 {
			r = r[:12]
		}
		s += " rev " + r
		if i.Modified {
			s += "+dirty"
		}
	} else if i.Version == "(devel)" || i.Version == "unknown" {
		// A checkout build with no VCS stamp (GOFLAGS=-buildvcs=false, or
		// no git at build time) names no commit: say so, rather than
		// leave a report that cannot be traced.
		s += " rev unknown (not stamped: build with -buildvcs=true in a git checkout)"
	}
	return s + " " + i.Go
}

// String is Get().String().
func String() string { return Get().String() }
