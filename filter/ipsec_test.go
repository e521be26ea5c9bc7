// SPDX-License-Identifier: Apache-2.0

package filter_test

import (
	"strings"
	"testing"

	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/internal/tsharktest"
)

// ipsecFilters name the IPsec AH and ESP headers by Wireshark's fields
// (ah.*, esp.*), over the frames of layers/testdata/ipv4ah/frames.pcap
// (IPv4 with an AH in front of RoCEv2, BTS, postcard, CIM and TCP, ESP
// alone and behind an AH, a first fragment: frames 1-12) and of
// layers/testdata/ipv6ext/frames.pcap (AH and ESP among IPv6 extension
// headers: 13 on).
var ipsecFilters = []string{
	"ah",
	"esp",
	"ah && esp",
	"ah.spi == 0x1234",
	"ah.spi == 0xdeadbeef && ah.sequence == 4294967295",
	"ah.sequence >= 9 && !esp",
	"ah.next_header == 6",
	"ah.next_header == 60",
	"ah.length == 5",
	"ah.icv contains 55:55",
	"ah.icv[0] == aa",
	"esp.spi == 0x4242 && esp.sequence == 1",
	"ah && infiniband.bth.destqp == 0xabcd",
	"udp.dstport in {1021, 1022} && ah",
	"ip.proto == 51 && udp.dstport == 4791", // ip.* of Wireshark is IPv4's
	"ip.proto == 50 && !ipv6",
	"ip.proto == 51 && !ah", // the fragment
}

// TestIPsecFilters: filters on the AH and ESP headers select the frames
// tshark 4.0 selects. Before, ah.* and esp.* were unknown names, and no
// field behind an IPv4 AH was decoded.
func TestIPsecFilters(t *testing.T) {
	path, frames := ipsecCapture(t)
	selects := func(expr string) []string {
		ours, err := selected(expr, frames)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return ours
	}
	// Ours alone, where tshark is missing.
	for expr, want := range map[string]string{
		"ah && udp.dstport == 4791 && !ipv6": "1 2 3 4",
		"esp && !ipv6":                       "11 12",
		"ah.next_header == 6":                "9",
		"ip.proto == 51 && bts":              "5 8",
	} {
		if got := strings.Join(selects(expr), " "); got != want {
			t.Errorf("%s: selects %q, want %q", expr, got, want)
		}
	}
	theirs := tsharkSelect(t, tsharktest.Path(t), path, ipsecFilters, len(frames))
	for i, expr := range ipsecFilters {
		sameSelection(t, expr, frames, theirs[i])
	}
}

// ipsecCapture writes the IPv4 AH frames, then the IPv6 extension header
// frames, into one capture as tsharkSelect reads it (statCapture), and
// returns its path and the frames decoded; a frame that does not decode
// whole fails the test.
func ipsecCapture(t *testing.T) (string, []*dissect.Frame) {
	return statCapture(t, []string{"../layers/testdata/ipv4ah/frames.pcap", "../layers/testdata/ipv6ext/frames.pcap"}, nil,
		func(file string, fr *dissect.Frame) bool {
			if fr.Err != nil {
				t.Fatalf("%s frame %d: %v", file, fr.Number, fr.Err)
			}
			return true
		})
}
