// SPDX-License-Identifier: Apache-2.0

package conformance_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opensfc/sfc/conformance"
)

// TestSignalOctetSweep sets every octet of one signal frame of each kind
// in turn to another value (XOR 0xff, as a faulty device might send) and
// checks device mode's verdict (conformance.md rule 3: every field of
// every signal frame, from the Ethernet header to the last octet, equals
// the reference's): the IPv4 identification may differ (PASS); an octet
// the suite's exemptOctets gives to another rule, or whose change makes
// another frame (EtherType, lengths, checksums, pause times, counts,
// quotes), must FAIL some rule; every other octet, padding and reserved
// octets included, must FAIL the kind's FIELDS rule. PAUSE frames are
// not swept: the reference never sends one (every device PAUSE is
// unjustified).
func TestSignalOctetSweep(t *testing.T) {
	for _, tc := range []struct {
		vector string
		fam    sigFam
	}{
		{"sfc/incast-first-bts", famSFC},
		{"sfc/incast-ipv6", famSFC},
		{"sfc/incast-vlan", famSFC},
		{"cim/incast-sfc-tlv", famSFC},
		{"cim/incast-l2-vlan", famSFC},
		{"pfc/xoff-refresh-xon", famPFC},
		{"sfc-p/bts-to-pfc", famPFC},
		{"bfc/pause-resume", famBFC},
		{"floodgate/credit-at-enqueue", famCredit},
		{"floodgate/window-credit-dstpause", famDstPause},
		{"floodgate/window-credit-ipv6", famDstPause},
		{"floodgate/window-credit-ipv6", famCredit},
		{"pbfs/congested", famPostcard},
		{"pbfs/congested-ipv6", famPostcard},
	} {
		t.Run(tc.vector+"/"+string(tc.fam), func(t *testing.T) {
			dir := filepath.Join(pcaps, tc.vector)
			v := loadVec(t, dir)
			all := v.idx(tc.fam)
			if len(all) == 0 {
				t.Fatalf("no %s frame in %s", tc.fam, tc.vector)
			}
			i := all[0]
			if tc.fam == famBFC {
				for _, j := range all {
					if !allZeroBFC(v.exp.frames[j].data) {
						i = j
						break
					}
				}
			}
			rule := famPrefix(v, tc.fam) + "-FIELDS"
			orig := v.exp.frames[i].data
			ex := exemptOctets(tc.fam, orig)
			m := meta(orig)
			ipID, sums := map[int]bool{}, map[int]bool{}
			if m.IP() && m.IPVersion == 4 {
				ipID[m.L3+4], ipID[m.L3+5] = true, true
				sums[m.L3+10], sums[m.L3+11] = true, true
			}
			if m.IP() && m.Proto == 17 {
				sums[m.L4+6], sums[m.L4+7] = true, true
			}
			tmp := t.TempDir()
			fields := 0
			for o := range orig {
				c := v.exp.clone()
				withEnd(c)
				c.frames[i].data[o] ^= 0xff
				if !sums[o] { // a wrong checksum must fail as such
					safeFixChecksums(c.frames[i].data)
				}
				path := filepath.Join(tmp, fmt.Sprintf("o%d.pcapng", o))
				c.write(t, path)
				rep, err := conformance.CheckFiles(filepath.Join(dir, conformance.CaseFile), filepath.Join(dir, conformance.InputFile), path, conformance.Options{})
				os.Remove(path)
				if err != nil {
					t.Fatalf("octet %d: %v", o, err)
				}
				text := func() string { var b strings.Builder; rep.WriteText(&b); return b.String() }
				switch {
				case ipID[o]:
					if rep.Verdict != conformance.Pass {
						t.Errorf("%s frame %d octet %d (IPv4 identification, any): %s, want PASS:\n%s", tc.fam, i, o, rep.Verdict, text())
					}
				case ex[o]:
					if rep.Verdict != conformance.Fail {
						t.Errorf("%s frame %d octet %d: %s, want FAIL:\n%s", tc.fam, i, o, rep.Verdict, text())
					}
				default:
					fields++
					if c := rep.Check(rule); rep.Verdict != conformance.Fail || c == nil || c.Count == 0 {
						t.Errorf("%s frame %d octet %d = 0x%02x (was 0x%02x): %s, want FAIL %s:\n%s", tc.fam, i, o, orig[o]^0xff, orig[o], rep.Verdict, rule, text())
					}
				}
			}
			t.Logf("%s frame %d: %d octets, %d of them %s's", tc.fam, i, len(orig), fields, rule)
		})
	}
}

// safeFixChecksums recomputes a signal's checksums unless the change
// left its lengths unusable (then the frame is malformed anyway).
func safeFixChecksums(b []byte) {
	defer func() { _ = recover() }()
	fixChecksums(b)
}
