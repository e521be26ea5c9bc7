// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/opensfc/sfc/layers"
)

// TestFailedLayerWithoutOctetsIsEmpty: a layer the parser names as failed
// but gave no octet (an IPv6 header whose Next Header is an extension
// header, the capture ending right after it) was never run, and showed
// the previous frame's fields: the previous frame's extension headers in
// JSON and the tree. It shows none now (tshark lists the protocol,
// malformed, with no field: so may we).
func TestFailedLayerWithoutOctetsIsEmpty(t *testing.T) {
	// An IPv6 packet with Hop-by-Hop and Destination Options before UDP,
	// then one whose Next Header is Hop-by-Hop and which ends after its
	// fixed header, decoded by the same parser.
	full, _ := hex.DecodeString("0200000000020200000000018" + "6dd" +
		"6000000000200000" + "fd000000000000000000000000000001" + "fd000000000000000000000000000002" +
		"3c00000000000000" + "1100000000000000" + "000100020010000078787878787878780000")
	cut, _ := hex.DecodeString("0200000000020200000000018" + "6dd" +
		"6000000000100040" + "fd000000000000000000000000000001" + "fd000000000000000000000000000003")
	p := layers.NewParser()
	var e Encoder
	f := &Frame{Number: 1, Len: len(full), CapLen: len(full), P: p, LinkBPS: 100e9}
	f.Err = p.Decode(full[:len(full)-2])
	if js := string(e.AppendJSON(nil, f)); !strings.Contains(js, `"header":"dstopts"`) {
		t.Fatalf("the first frame has no extension headers: %s (%v)", js, f.Err)
	}
	f = &Frame{Number: 2, Len: len(cut), CapLen: len(cut), P: p, LinkBPS: 100e9}
	f.Err = p.Decode(cut)
	if f.Err == nil || p.Failed != layers.LayerTypeIPv6Ext || p.FailedLen != 0 {
		t.Fatalf("the second frame: %v, failed %v with %d octets", f.Err, p.Failed, p.FailedLen)
	}
	js, tree := string(e.AppendJSON(nil, f)), string(e.AppendTree(nil, f))
	if strings.Contains(js, "hopopts") || strings.Contains(js, "dstopts") || strings.Contains(tree, "ipv6ext.header") {
		t.Errorf("the previous frame's extension headers are shown:\n%s\n%s", js, tree)
	}
}
