// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/opensfc/sfc/device"
)

// TestMaskedTagAnyTPID: masking eth.pcp, eth.dei and eth.vlan exempts the
// outer tag's TCI whatever its TPID: 0x8100, 0x88A8 or 0x9100 (the
// pre-802.1ad QinQ TPID; it was compared, so a device that sends its
// signals behind a 0x9100 tag with another PCP failed a masked
// comparison). 0x9200 is no tag: nothing to exempt.
func TestMaskedTagAnyTPID(t *testing.T) {
	masks, err := newMaskSet([]string{"eth.pcp", "eth.dei", "eth.vlan"})
	if err != nil {
		t.Fatal(err)
	}
	cp := device.Codepoints{}.WithDefaults()
	pfc := func(tpid uint16, tci string) []byte {
		b, err := hex.DecodeString(fmt.Sprintf("0180c2000001020000000001%04x%s88080101002100100000000000000000ffff00000000", tpid, tci) +
			strings.Repeat("00", 26))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		tpid uint16
		same bool
	}{{0x8100, true}, {0x88a8, true}, {0x9100, true}, {0x9200, false}} {
		a, b := pfc(tc.tpid, "6064"), pfc(tc.tpid, "f00a") // PCP 3, VID 100; PCP 7, DEI, VID 10
		for _, fr := range [][]byte{a, b} {
			var m device.Meta
			device.Parse(fr, &m, &cp)
			var e exemptions
			frameExempt(&e, fr, &m, masks, &cp)
			e.apply(fr)
		}
		if got := bytes.Equal(a, b); got != tc.same {
			t.Errorf("TPID %#04x: equal after masking %v, want %v", tc.tpid, got, tc.same)
		}
	}
}
