// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/opensfc/sfc/internal/tsharktest"
)

// TestRuntNotTruncated: a 17-octet PFC frame whose captured length is its
// length on the wire was not cut by the capture: it is a runt, malformed
// ("frame too short (need 20 octets, have 3)"), not "[truncated at octet
// 17]", as tshark calls it a Malformed Packet; the same octets cut by the
// capture from a 64-octet frame stay truncated (tshark: packet size
// limited during capture). Either way the fields past the end are absent.
func TestRuntNotTruncated(t *testing.T) {
	data := mustHex(t, "0180c2000001020000000002"+"8808"+"0101"+"00")
	var e Encoder
	for _, c := range []struct {
		name       string
		origLen    int
		truncated  bool
		errWord    string
		tsharkWord string
	}{
		{"runt", len(data), false, "frame too short (need 20 octets, have 3)", "_ws.malformed"},
		{"snapped", 64, true, "truncated (need 20 octets, have 3)", "_ws.short"},
	} {
		f := decodeFrame(data, c.origLen, 0)
		sum := string(AppendSummary(nil, f))
		if strings.Contains(sum, "[truncated at octet 17]") != c.truncated || !strings.Contains(sum, "[malformed: pfc: enable_vector at offset 2: "+c.errWord+"]") {
			t.Errorf("%s: summary %q", c.name, sum)
		}
		js := string(e.AppendJSON(nil, f))
		if strings.Contains(js, `"truncated":17`) != c.truncated || !strings.Contains(js, c.errWord) || !strings.Contains(js, `"enable_vector":null`) {
			t.Errorf("%s: JSON %s", c.name, js)
		}
		tree := string(e.AppendTree(nil, f))
		if strings.Contains(tree, "truncated at octet 17") != c.truncated || !strings.Contains(tree, c.errWord) || strings.Contains(tree, "pfc.enable_vector") {
			t.Errorf("%s: tree\n%s", c.name, tree)
		}
		if cut, ok := CutOf(f); !ok || cut.Truncated() != c.truncated || cut.At != 17 {
			t.Errorf("%s: CutOf %+v %v", c.name, cut, ok)
		}
	}

	// What tshark calls each.
	bin := tsharktest.Path(t)
	path := t.TempDir() + "/runt.pcap"
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := pcapgo.NewWriter(fh)
	if err := w.WriteFileHeader(65535, 1); err != nil {
		t.Fatal(err)
	}
	for i, orig := range []int{len(data), 64} {
		ci := gopacket.CaptureInfo{Timestamp: time.Unix(int64(i), 0), CaptureLength: len(data), Length: orig}
		if err := w.WritePacket(ci, data); err != nil {
			t.Fatal(err)
		}
	}
	fh.Close()
	out, err := exec.Command(bin, "-r", path, "-T", "fields", "-e", "_ws.malformed", "-e", "_ws.short").Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "Malformed") || strings.Contains(lines[0], "size limited") ||
		!strings.Contains(lines[1], "size limited") || strings.Contains(lines[1], "Malformed") {
		t.Errorf("tshark calls the runt and the snapped frame %q; want malformed, then size limited", lines)
	}
}
