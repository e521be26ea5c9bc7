// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	glayers "github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/opensfc/sfc/internal/tsharktest"
	"github.com/opensfc/sfc/layers"
)

// TestVLAN9100Tshark: the frames of layers/testdata/vlan9100.pcap (PFC,
// an IPv4 RoCEv2 CNP and a BTS behind VLAN tags of TPID 0x9100, alone or
// with a 0x8100 or 0x88A8 tag) show the format behind their tags in JSON,
// the verbose tree and the summary, rendering without allocating; by
// Wireshark's names their fields (the tags' vlan.id, vlan.priority and
// vlan.etype, the EtherType after each, eth.type, the PFC, IPv4, UDP and
// BTH fields) are tshark 4.0's. Before, a 0x9100 frame was Ethernet and
// nothing more ("ethertype 0x9100"); vlan.etype was unknown.
func TestVLAN9100Tshark(t *testing.T) {
	const file = "../layers/testdata/vlan9100.pcap"
	names := []string{"eth.type", "vlan.id", "vlan.priority", "vlan.etype", "macc.opcode", "macc.cbfc.enbv", "macc.cbfc.pause_time.c5",
		"ip.src", "udp.dstport", "infiniband.bth.opcode", "infiniband.bth.destqp"}
	protos := []string{"pfc", "bth", "bth", "bts", "pfc", "bth"} // the format behind the tags, frame by frame
	frames := readPcap(t, file)
	if len(frames) != len(protos) {
		t.Fatalf("%d frames in %s, want %d", len(frames), file, len(protos))
	}
	var e Encoder
	buf := make([]byte, 0, 1<<16)
	for i, data := range frames {
		fr := decodeFrame(data, len(data), 100e9)
		if fr.Err != nil {
			t.Fatalf("frame %d: %v", i+1, fr.Err)
		}
		if js := string(e.AppendJSON(nil, fr)); !strings.Contains(js, `"`+protos[i]+`":{`) {
			t.Errorf("frame %d: no %s in JSON %s", i+1, protos[i], js)
		}
		if tree := string(e.AppendTree(nil, fr)); !strings.Contains(tree, "\n    "+protos[i]+"\n") {
			t.Errorf("frame %d: no %s in the tree:\n%s", i+1, protos[i], tree)
		}
		if sum := string(AppendSummary(nil, fr)); strings.Contains(sum, "ethertype") {
			t.Errorf("frame %d: summary %q", i+1, sum)
		}
		render := func() {
			b := e.AppendJSON(buf[:0], fr)
			b = AppendSummary(b, fr)
			_ = e.AppendTree(b, fr)
		}
		if n := testing.AllocsPerRun(20, render); n != 0 {
			t.Errorf("frame %d: %v allocations per render", i+1, n)
		}
	}
	compareTshark(t, tsharktest.Path(t), file, names, nil)
}

// TestVLANTagLimitTshark: a RoCEv2 CNP behind 3 and 4 VLAN tags (an
// 802.1ad one among them), and behind MaxVLANTags (20) and 21 802.1Q and
// 0x9100 tags. Up to the limit, tshark 4.0 and sfcdump decode every tag
// and what they carry; behind 20, neither decodes further (tshark: "Too
// many nested VLAN tags"), and both list the 20 tags' vlan.id and
// vlan.etype. (tshark counts its vlan tags, 0x8100 and 0x9100, against
// its 20, not 802.1ad ones; layers counts every tag.)
func TestVLANTagLimitTshark(t *testing.T) {
	cnp := mustHex(t, "0800 45c0003c00000000401165ef0a0000010a000002 c00012b700280000"+
		" 8100ffff400000d200000000 00000000000000000000000000000000 5c763923")
	tpids := map[bool][]uint16{false: {0x8100, 0x9100, 0x88a8, 0x8100}, true: {0x8100, 0x9100}}
	file := filepath.Join(t.TempDir(), "tags.pcap")
	out, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	w := pcapgo.NewWriter(out)
	if err := w.WriteFileHeader(65535, glayers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	counts := []int{3, 4, layers.MaxVLANTags, layers.MaxVLANTags + 1}
	for _, n := range counts {
		frame := mustHex(t, "020000000002 020000000001")
		for k := range n {
			tp := tpids[n >= layers.MaxVLANTags]
			frame = binary.BigEndian.AppendUint16(frame, tp[k%len(tp)])
			frame = binary.BigEndian.AppendUint16(frame, uint16(k%8)<<13|uint16(k+1))
		}
		frame = append(frame, cnp...)
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: time.Unix(0, 0), CaptureLength: len(frame), Length: len(frame)}, frame); err != nil {
			t.Fatal(err)
		}
		f := decodeFrame(frame, len(frame), 0)
		beyond := n > layers.MaxVLANTags
		if f.Err != nil || f.P.Has(layers.LayerTypeBTH) == beyond || f.P.Dot1Q.NTags != min(n, layers.MaxVLANTags) {
			t.Errorf("%d tags: %v, decoded %v, %d tags", n, f.Err, f.P.Decoded, f.P.Dot1Q.NTags)
		}
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	compareTshark(t, tsharktest.Path(t), file, []string{"vlan.id", "vlan.etype", "ip.src", "udp.dstport", "infiniband.bth.destqp"},
		func(_ string, b []byte) string { return string(b) })
}
