// SPDX-License-Identifier: Apache-2.0

package conformance_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/device"
)

// TestEvidenceNamesTheFault: a right verdict names the field that is
// wrong (probe round 5): a data frame whose DF bit flipped (checksum
// updated) names ip.flags, not only the checksum; one whose TTL fell by
// one with its checksum left stale names the checksum too, since TTL − 1
// alone is allowed; a CIM whose E bit is cleared shows the reference's
// pause (1 µs), not the cleared comparison value 0.
func TestEvidenceNamesTheFault(t *testing.T) {
	isData := func(f capFrame) bool { m := meta(f.data); return m.Kind == device.KindData && m.IPVersion == 4 }
	isCIM := func(f capFrame) bool { return meta(f.data).Kind == device.KindCIM }
	for _, tc := range []struct {
		name, vector, rule, field, expected string
		is                                  func(capFrame) bool
		edit                                func(b []byte)
	}{
		{"DF flipped", "sfc/incast-first-bts", "DATA-ALTERED", "ip.flags", "0", isData, func(b []byte) {
			m := meta(b)
			b[m.L3+6] ^= 0x40
			fixChecksums(b)
		}},
		{"TTL − 1, checksum stale", "sfc/incast-first-bts", "DATA-ALTERED", "ip.checksum", "a valid checksum", isData, func(b []byte) {
			b[meta(b).L3+8]--
		}},
		{"CIM E bit cleared", "cim/incast-sfc-tlv", "SFC-CIM-FIELDS", "cim.pause_us", "1", isCIM, func(b []byte) {
			m := meta(b)
			pdu := m.L3
			if m.IP() {
				pdu = m.Payload
			}
			b[pdu] &^= 0x02
			fixChecksums(b)
		}},
	} {
		vdir := filepath.Join(pcaps, tc.vector)
		exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
		c := &capture{names: exp.names, frames: slices.Clone(exp.frames)}
		i := slices.IndexFunc(c.frames, tc.is)
		if i < 0 {
			t.Fatalf("%s: no frame to change in %s", tc.name, tc.vector)
		}
		c.frames[i].data = slices.Clone(c.frames[i].data)
		tc.edit(c.frames[i].data)
		rep := checkDev(t, vdir, c)
		found := false
		if ch := rep.Check(tc.rule); ch != nil {
			for _, d := range ch.Deviations {
				if d.Field == tc.field && d.Expected == tc.expected {
					found = true
				}
			}
		}
		if rep.Verdict != conformance.Fail || !found {
			t.Errorf("%s: want FAIL %s naming %s (expected %q):\n%s", tc.name, tc.rule, tc.field, tc.expected, failText(rep))
		}
	}
}
