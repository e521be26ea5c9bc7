// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/opensfc/sfc/internal/tsharktest"
)

// linkCaptures are captures of other link types than Ethernet
// (testdata/link: SLL and SLL2 written by tcpdump -i any, raw IP by scapy),
// each holding RoCEv2 WRITEs to QP 0xabcd and BTS frames quoting QP 0x1234.
// raw12.pcap is raw.pcap with link type 12 (DLT_RAW) in its header,
// raw14.pcap with 14 (OpenBSD's DLT_RAW).
var linkCaptures = []string{"sll.pcap", "sll2.pcap", "sll-ipoib.pcap", "sll2-ipoib.pcap", "raw.pcap", "raw12.pcap", "raw14.pcap", "ipv4.pcap", "ipv6.pcap"}

// TestDecodeLink: Parser.DecodeLink finds RoCEv2 and BTS behind Linux
// cooked headers and in raw IP packets, as tshark does.
func TestDecodeLink(t *testing.T) {
	p := NewParser()
	for _, name := range linkCaptures {
		f, err := os.Open("testdata/link/" + name)
		if err != nil {
			t.Fatal(err)
		}
		r, err := pcapgo.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		var ours []string
		for {
			data, _, err := r.ReadPacketData()
			if err != nil {
				break
			}
			if err := p.DecodeLink(r.LinkType(), data); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			line := "-"
			switch {
			case p.Has(LayerTypeBTH):
				line = fmt.Sprintf("4791 0x%06x", p.BTH.DestQP)
			case p.Has(LayerTypeBTS):
				if !p.BTS.Flow.HasQP || p.BTS.Flow.QP != 0x1234 || !p.BTS.Cacheable {
					t.Errorf("%s: BTS %+v", name, p.BTS)
				}
				line = "1021 -"
			}
			ours = append(ours, line)
			if strings.HasPrefix(name, "sll") != (p.Has(layers.LayerTypeLinuxSLL) || p.Has(layers.LayerTypeLinuxSLL2)) {
				t.Errorf("%s: decoded %v", name, p.Decoded)
			}
		}
		f.Close()
		if len(ours) < 1 || !strings.Contains(strings.Join(ours, ","), "0x00abcd") && !strings.Contains(strings.Join(ours, ","), "1021") {
			t.Errorf("%s: %q", name, ours)
		}
		if bin, err := exec.LookPath("tshark"); err == nil {
			var want []string
			for _, l := range tsharktest.FieldLines(t, bin, "testdata/link/"+name, []string{"udp.dstport", "infiniband.bth.destqp"}) {
				c := strings.Split(l, "\t")
				if c[1] == "" {
					c[1] = "-"
				}
				want = append(want, c[0]+" "+c[1])
			}
			if strings.Join(ours, ",") != strings.Join(want, ",") {
				t.Errorf("%s: ours %q, tshark %q", name, ours, want)
			}
		}
	}
	// Another link type is an error; a frame that says another IP version
	// than its link type is malformed.
	if err := p.DecodeLink(105, make([]byte, 60)); err == nil || len(p.Decoded) != 0 {
		t.Errorf("802.11: %v %v", err, p.Decoded)
	}
	v4 := make([]byte, 40)
	v4[0] = 0x45
	if err := p.DecodeLink(229, v4); !errors.Is(err, ErrVersion) {
		t.Errorf("IPv4 in LINKTYPE_IPV6: %v", err)
	}
	sll := sllFrame(t)
	if n := testing.AllocsPerRun(20, func() { _ = p.DecodeLink(layers.LinkTypeLinuxSLL, sll) }); n != 0 {
		t.Errorf("%v allocations per SLL decode", n)
	}
}

// sllFrame is the first frame of sll.pcap.
func sllFrame(t *testing.T) []byte {
	f, err := os.Open("testdata/link/sll.pcap")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, _, err := r.ReadPacketData()
	if err != nil {
		t.Fatal(err)
	}
	return data
}
