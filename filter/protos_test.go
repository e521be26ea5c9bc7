// SPDX-License-Identifier: Apache-2.0

package filter_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/internal/tsharktest"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/pcapio"
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
	path := filepath.Join(t.TempDir(), "protos.pcapng")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pcapio.NewWriter(out)
	if err != nil {
		t.Fatal(err)
	}
	var frames []*dissect.Frame
	for _, file := range []string{filepath.Join("testdata", "protos.pcap"), filepath.Join("testdata", "llc-lengths.pcap"),
		filepath.Join("..", "pcaps", "sample.pcapng")} {
		r, err := pcapio.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		for {
			fr, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			data := append([]byte(nil), fr.Data...)
			p := layers.NewParser()
			df := &dissect.Frame{Number: len(frames) + 1, Time: time.Unix(int64(len(frames)+1), 0), Len: len(data), CapLen: len(data), P: p}
			df.Err = p.Decode(data)
			if err := w.Write(0, df.Time, data, len(data)); err != nil {
				t.Fatal(err)
			}
			frames = append(frames, df)
		}
		r.Close()
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	theirs := parallel(protoFilters, func(expr string) string {
		b, err := exec.Command(bin, "-n", "-r", path, "-Y", expr, "-T", "fields", "-e", "frame.number").Output()
		if err != nil {
			return "tshark: " + err.Error()
		}
		return string(b)
	})
	for i, expr := range protoFilters {
		sameSelection(t, expr, frames, strings.Fields(theirs[i]))
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
