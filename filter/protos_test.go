// SPDX-License-Identifier: Apache-2.0

package filter_test

import (
	"path/filepath"
	"testing"

	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/internal/tsharktest"
)

// protoFilters name protocols tshark accepts in filters that sfcdump
// refused ("unknown field or protocol"): it knows them by presence.
var protoFilters = []string{
	"tcp", "!tcp", "icmp", "icmpv6", "arp", "lldp", "llc", "stp", "not llc && eth",
	"tcp || icmp", "arp && vlan", "tcp && ipv6", "count(tcp) == 1", "!(stp || lldp || arp) && !udp",
}

// TestWiresharkProtocolsTshark: on a capture of the protocols (made with
// scapy: testdata/protos.py, with near misses: a lone IPv4 or IPv6
// fragment of TCP, protocol numbers in UDP ports, SNAP, an EtherType that
// is not ARP) and of our formats (pcaps/sample.pcapng), each filter of
// protoFilters selects the frames tshark selects.
func TestWiresharkProtocolsTshark(t *testing.T) {
	bin := tsharktest.Path(t)
	path, frames := statCapture(t, []string{filepath.Join("testdata", "protos.pcap"), filepath.Join("testdata", "llc-lengths.pcap"),
		filepath.Join("..", "pcaps", "sample.pcapng")}, nil, func(string, *dissect.Frame) bool { return true })
	theirs := tsharkSelect(t, bin, path, protoFilters, len(frames))
	for i, expr := range protoFilters {
		sameSelection(t, expr, frames, theirs[i])
	}
	// Listed among Wireshark's names, as protocols.
	for _, name := range []string{"tcp", "icmp", "icmpv6", "arp", "lldp", "llc", "stp"} {
		found := false
		for _, w := range dissect.WiresharkNames() {
			found = found || w.Name == name && w.Field == nil
		}
		if !found {
			t.Errorf("%s is not among dissect.WiresharkNames", name)
		}
	}
}
