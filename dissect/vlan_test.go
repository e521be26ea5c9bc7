// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/pcapgo"

	"github.com/opensfc/sfc/internal/tsharktest"
)

// TestVLAN9100Tshark: the frames of layers/testdata/vlan9100.pcap (PFC,
// an IPv4 RoCEv2 CNP and a BTS behind VLAN tags of TPID 0x9100, alone or
// with a 0x8100 or 0x88A8 tag) show the format behind their tags in JSON,
// the verbose tree and the summary, rendering without allocating; by
// Wireshark's names their fields (the tags' vlan.id and vlan.priority,
// eth.type, the PFC, IPv4, UDP and BTH fields) are tshark 4.0's. Before,
// a 0x9100 frame was Ethernet and nothing more ("ethertype 0x9100").
func TestVLAN9100Tshark(t *testing.T) {
	const file = "../layers/testdata/vlan9100.pcap"
	names := []string{"eth.type", "vlan.id", "vlan.priority", "macc.opcode", "macc.cbfc.enbv", "macc.cbfc.pause_time.c5",
		"ip.src", "udp.dstport", "infiniband.bth.opcode", "infiniband.bth.destqp"}
	protos := []string{"pfc", "bth", "bth", "bts", "pfc", "bth"} // the format behind the tags, frame by frame
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var e Encoder
	var ours []string
	buf := make([]byte, 0, 1<<16)
	for i := 0; ; i++ {
		data, _, err := r.ReadPacketData()
		if err != nil {
			break
		}
		if i >= len(protos) {
			t.Fatalf("more than %d frames in %s", len(protos), file)
		}
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
		var cols []string
		for _, name := range names {
			fd := mustField(t, name)
			st, _ := TsharkStyleOf(name) // as sfcdump -T fields prints it
			var vs []string
			for _, v := range fd.Values(fr, nil) {
				vs = append(vs, string(AppendTshark(nil, v, st)))
			}
			cols = append(cols, strings.Join(vs, ","))
		}
		ours = append(ours, strings.Join(cols, "\t"))
	}
	if len(ours) != len(protos) {
		t.Fatalf("%d frames in %s, want %d", len(ours), file, len(protos))
	}
	bin := tsharktest.Path(t)
	args := []string{"-n", "-r", file, "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,"}
	for _, name := range names {
		args = append(args, "-e", name)
	}
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatal(err)
	}
	theirs := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(theirs) != len(ours) {
		t.Fatalf("tshark printed %d lines for %d frames", len(theirs), len(ours))
	}
	for i := range ours {
		if ours[i] != theirs[i] {
			t.Errorf("frame %d (%s):\n ours   %q\n tshark %q", i+1, strings.Join(names, " "), ours[i], theirs[i])
		}
	}
}
