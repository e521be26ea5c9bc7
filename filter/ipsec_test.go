// SPDX-License-Identifier: Apache-2.0

package filter_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	glayers "github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/internal/tsharktest"
	"github.com/opensfc/sfc/layers"
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
// frames, into one pcap as tsharkSelect reads it (frame N at second N,
// then one more two seconds after the last), and returns its path and the
// frames decoded.
func ipsecCapture(t *testing.T) (string, []*dissect.Frame) {
	path := filepath.Join(t.TempDir(), "ipsec.pcap")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := pcapgo.NewWriter(out)
	if err := w.WriteFileHeader(65535, glayers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	write := func(at time.Time, data []byte) {
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: at, CaptureLength: len(data), Length: len(data)}, data); err != nil {
			t.Fatal(err)
		}
	}
	var frames []*dissect.Frame
	for _, file := range []string{"../layers/testdata/ipv4ah/frames.pcap", "../layers/testdata/ipv6ext/frames.pcap"} {
		in, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		r, err := pcapgo.NewReader(in)
		if err != nil {
			t.Fatal(err)
		}
		for {
			data, _, err := r.ReadPacketData()
			if err != nil {
				break
			}
			p := layers.NewParser()
			fr := &dissect.Frame{Number: len(frames) + 1, Len: len(data), CapLen: len(data), P: p}
			if fr.Err = p.Decode(data); fr.Err != nil {
				t.Fatalf("%s frame %d: %v", file, fr.Number, fr.Err)
			}
			fr.Time = time.Unix(int64(fr.Number), 0)
			write(fr.Time, data)
			frames = append(frames, fr)
		}
		in.Close()
	}
	write(time.Unix(int64(len(frames)+2), 0), frames[0].P.Eth.Contents)
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return path, frames
}
