// SPDX-License-Identifier: Apache-2.0

package fuzz

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/device"
)

// maxCase caps case.yaml inputs: the shipped ones are under 2 KiB.
const maxCase = 64 << 10

// caseBound is what parsing a case.yaml of n octets may allocate. YAML is
// no packet format: yaml.v3 builds a node tree (a few hundred octets per
// scalar) and the decoder keeps line numbers per key, so the factor is
// larger than a decoder's; the bound is there to catch alias expansion
// ("billion laughs") and other blow-ups, which are orders of magnitude
// above it.
func caseBound(n int) uint64 { return 512*uint64(n) + 1<<20 }

// FuzzCase parses arbitrary case.yaml text as the conformance harness does
// and builds the reference device it describes: no panic, errors that name
// the file, line and key (conformance.CaseErrors / *CaseError), the
// allocation bound, and a built model that runs: a few sample frames go in
// and it drains.
func FuzzCase(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "pcaps", "*", "*", "case.yaml"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("role: nic\nschemes: [sfc]\nports:\n  - id: 0\n    speed: 100G\n    prefixes: [10.0.0.1/32]\n"))
	f.Add([]byte("a: &a [*a, *a]\n"))
	fr := frames()
	f.Fuzz(func(t *testing.T, text []byte) {
		if len(text) > maxCase {
			return
		}
		defer watch("FuzzCase", 5*time.Second)()
		var c *conformance.Case
		var err error
		checkAlloc(t, "ParseCase", len(text), caseBound(len(text)), func(int) { c, err = conformance.ParseCase("case.yaml", text) })
		if err != nil {
			var ce *conformance.CaseError
			if !errors.As(err, &ce) || err.Error() == "" {
				t.Fatalf("ParseCase: %T %v, want conformance.CaseErrors", err, err)
			}
			if ce.Line < 0 || ce.File != "case.yaml" {
				t.Fatalf("ParseCase: error names %s line %d", ce.File, ce.Line)
			}
			return
		}
		m, err := conformance.BuildModel(c)
		if err != nil {
			var ce *conformance.CaseError
			if !errors.As(err, &ce) && !errors.Is(err, device.ErrParam) {
				t.Fatalf("BuildModel: %T %v, want a *conformance.CaseError", err, err)
			}
			return
		}
		d := m.Dev
		for i := 0; i < 8; i++ {
			port := d.Ports()[i%len(d.Ports())].ID
			if d.Role() == device.RoleNIC && i%2 == 1 {
				port = device.HostPort
			}
			d.Input(port, int64(i)*1000, fr[(i*7)%len(fr)])
		}
		// TestKnownBugPFCRefreshKeepsFlushRunning: PFC with BFC or
		// Floodgate may never be idle.
		if slices.Contains(c.Schemes, "pfc") && (slices.Contains(c.Schemes, "bfc") || slices.Contains(c.Schemes, "floodgate")) {
			d.AdvanceTo(d.Now() + 50*device.Millisecond)
		} else {
			d.Flush()
		}
	})
}
