// SPDX-License-Identifier: Apache-2.0

package filter_test

import (
	"os"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/pcapgo"

	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/internal/tsharktest"
	"github.com/opensfc/sfc/layers"
)

// vlanFilters name VLAN tags, by protocol, field and TPID, over the
// frames of layers/testdata/vlan9100.pcap (tags of TPID 0x9100, alone and
// stacked with 0x8100 and 0x88A8).
var vlanFilters = []string{
	"vlan",
	"count(vlan) == 1",
	"count(vlan) == 2",
	"vlan.id == 100",
	"vlan.id == 2 && vlan.priority == 1",
	"vlan.id == 4095", // the 0x88A8 S-tag's: ieee8021ad, not vlan
	"vlan.priority == 7 && udp.dstport == 1021",
	"eth.type == 0x9100",
	"eth.type == 0x9100 && macc.opcode == 0x0101",
	"infiniband.bth.destqp == 0xd2 && count(vlan) == 1",
	"vlan.etype == 0x0800", // the EtherType after each tag
	"vlan.etype == 0x8808",
	"vlan.etype == 0x9100 && count(vlan) == 2",
	"vlan.etype in {0x8100, 0x86dd}",
	"vlan.etype & 0x8000 && udp",
}

// TestVLAN9100Filters: display filters on VLAN tags of TPID 0x9100
// select the frames tshark 4.0 selects (it decodes 0x9100 as vlan);
// eth.vlan and eth.pcp, ours, see every tag. Before, a 0x9100 frame had
// no tag and nothing behind it.
func TestVLAN9100Filters(t *testing.T) {
	const file = "../layers/testdata/vlan9100.pcap"
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var frames []*dissect.Frame
	for {
		data, _, err := r.ReadPacketData()
		if err != nil {
			break
		}
		p := layers.NewParser()
		fr := &dissect.Frame{Number: len(frames) + 1, Len: len(data), CapLen: len(data), P: p}
		if fr.Err = p.Decode(data); fr.Err != nil {
			t.Fatalf("frame %d: %v", fr.Number, fr.Err)
		}
		frames = append(frames, fr)
	}
	if len(frames) < 6 {
		t.Fatalf("%d frames", len(frames))
	}
	selects := func(expr string) string {
		ours, err := selected(expr, frames)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return strings.Join(ours, " ")
	}
	// Ours alone: every tag, whatever its TPID.
	for expr, want := range map[string]string{
		"eth.vlan == 4095":                   "6",
		"count(eth.vlan) == 2":               "3 5 6",
		"eth.pcp == 7 && bts":                "4",
		"eth.vlan == 100 && pfc.time_c5 > 0": "1",
		"vlan.etype == 0x0800":               "2 3 4 6",
		"vlan.etype == 0x9100":               "5",
	} {
		if got := selects(expr); got != want {
			t.Errorf("%s: selects %q, want %q", expr, got, want)
		}
	}
	bin := tsharktest.Path(t)
	for _, expr := range vlanFilters {
		theirs := strings.Fields(tshark(t, bin, "-n", "-r", file, "-Y", expr, "-T", "fields", "-e", "frame.number"))
		if got, want := selects(expr), strings.Join(theirs, " "); got != want {
			t.Errorf("%s: sfcdump selects %q, tshark %q", expr, got, want)
		}
	}
}
