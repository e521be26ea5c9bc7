// SPDX-License-Identifier: Apache-2.0

package live

import (
	"fmt"
	"slices"
	"strings"

	"github.com/opensfc/sfc/conformance"
)

// EmuSchemes are the schemes `sfcdump emulate --scheme` offers.
var EmuSchemes = []string{conformance.SchemeSFC, conformance.SchemePFC, conformance.SchemeBFC, conformance.SchemeFloodgate, conformance.SchemePBFS}

// DefaultCase is the switch `sfcdump emulate` runs without --config: the
// scheme's defaults of behaviour.md, ports ids (each of the given speed in
// bit/s), port i routing 10.0.i.0/24 and fd00:0:0:i::/64, every port
// server-facing, port MACs 02:5f:00:00:00:ii and peer MACs
// 02:00:00:00:00:ii.
func DefaultCase(scheme string, ids []int, speed string) (*conformance.Case, error) {
	if !slices.Contains(EmuSchemes, scheme) {
		return nil, fmt.Errorf("--scheme %q: want one of %s", scheme, strings.Join(EmuSchemes, ", "))
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("no ports: give --port ID=IFACE for each port")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "description: \"sfcdump emulate: %s switch with default parameters\"\nrole: switch\nschemes: [%s]\nports:\n", scheme, scheme)
	for _, id := range ids {
		if id < 0 || id > 255 {
			return nil, fmt.Errorf("port %d: without --config, ports are ids 0..255", id)
		}
		fmt.Fprintf(&b, "  - id: %d\n    speed: %s\n    server_facing: true\n    mac: 02:5f:00:00:00:%02x\n    peer_mac: 02:00:00:00:00:%02x\n    prefixes: [10.0.%d.0/24, \"fd00:0:0:%x::/64\"]\n",
			id, speed, id, id, id, id)
	}
	return conformance.ParseCase("(emulate --scheme "+scheme+")", []byte(b.String()))
}

// HasScheme reports whether c runs scheme s, counting the SFC variants
// (sfc-cache, sfc-p, cim) as sfc.
func HasScheme(c *conformance.Case, s string) bool {
	if c.Has(s) {
		return true
	}
	return s == conformance.SchemeSFC && (c.Has(conformance.SchemeSFCCache) || c.Has(conformance.SchemeSFCP) || c.Has(conformance.SchemeCIM))
}
