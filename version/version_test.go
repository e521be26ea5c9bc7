// SPDX-License-Identifier: Apache-2.0

package version

import (
	"runtime"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	i := Info{Module: "m", Version: "v1.2.3", Revision: "0123456789abcdef", Modified: true, Go: "go1.0"}
	if got, want := i.String(), "m v1.2.3 rev 0123456789ab+dirty go1.0"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	i.Revision, i.Modified = "", false
	if got, want := i.String(), "m v1.2.3 go1.0"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	// A checkout build without a VCS stamp says it cannot be traced.
	i.Version = "(devel)"
	if got, want := i.String(), "m (devel) rev unknown (not stamped: build with -buildvcs=true in a git checkout) go1.0"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
}

func TestGet(t *testing.T) {
	g := Get()
	if g.Go != runtime.Version() {
		t.Fatalf("Go = %q, want %q", g.Go, runtime.Version())
	}
	if !strings.Contains(String(), g.Module) {
		t.Fatalf("String() %q lacks the module %q", String(), g.Module)
	}
}
