// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"strings"
	"testing"
)

// TestBadQuoteKeepsFields: a BTS or postcard whose quote is not an IPv4 or
// IPv6 packet (IP version 5: layers.ErrVersion, in the field "quote")
// keeps every fixed field before the quote, in JSON, the verbose tree and
// filters, as a bad IHL or an empty quote does: the error is the quote's
// only. A BTS of a version this package does not know still has only its
// version. Before, the quote's version error read as the BTS's own:
// "pause_us":null, "switch_id":null, and -V showed bts.version alone.
// (Frames of /tmp/hard/badquote.pcap, byte for byte, and a BTS of
// version 2.)
func TestBadQuoteKeepsFields(t *testing.T) {
	const (
		head = "020000000001 020000000002 0800 45c0 0054 0000 0000 4011 0000 0a000002 0a000001 c00003fd00400000"
		bts  = "11000014 00000007 00050003 0005b8d8"
		rest = "68003c000000004011000a0a0000010a000002c00012b7002800000a00ffff000000d200000000"
		card = "020000000001 020000000002 0800 45c0 0068 0000 0000 4011 0000 0a000002 0a000001 c00003fe00540000" +
			"10000005 020000000001 0000 00009c40 000f4240 000186a0 0000c350 000001f4 000000c8"
	)
	btsFields := `"bts":{"version":1,"cacheable":true,"origin":"queue","pause_us":20,"reporter":7,"cp_port":5,"cp_queue":0,"queue_depth":375000,"quote_len":40}`
	cases := []struct {
		name, frame string
		json        string // the layer's JSON object
		tree        string // a line of the verbose tree
		field, err  string
		value       uint64 // of field
	}{
		{"bts-quote-ip-version-5", head + bts + "55" + rest, btsFields, "bts.pause_us: 20\n",
			"bts.pause_us", "bts: quote at offset 16: unknown version (IP version 5)", 20},
		{"bts-quote-ihl-3", head + bts + "43" + rest, btsFields, "bts.queue_depth: 375000\n",
			"bts.queue_depth", "bts: quote at offset 16: value out of range (IHL 3)", 375000},
		{"postcard-quote-ip-version-5", card + "55" + rest,
			`"postcard":{"version":1,"port":5,"switch_id":"02:00:00:00:00:01","rate_mbps":40000,"window_ns":1000000,"ip_bytes":100000,"q1_bytes":50000,"recent_bytes":500,"recent_marked_bytes":200,"quote_len":40}`,
			"postcard.q1_bytes: 50000\n", "postcard.q1_bytes", "postcard: quote at offset 36: unknown version (IP version 5)", 50000},
		{"bts-version-2", head + "21" + bts[2:] + "45" + rest,
			`"bts":{"version":2,"cacheable":null,"origin":null,"pause_us":null,"reporter":null,"cp_port":null,"cp_queue":null,"queue_depth":null,"quote_len":null}`,
			"bts.version: 2\n", "bts.pause_us", "bts: version at offset 0: unknown version (version 2, want 1)", 0},
	}
	var e Encoder
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := mustHex(t, c.frame)
			f := decodeFrame(data, len(data), 100e9)
			if f.Err == nil || f.Err.Error() != c.err {
				t.Fatalf("error %v, want %q", f.Err, c.err)
			}
			js := string(e.AppendJSON(nil, f))
			tree := string(e.AppendTree(nil, f))
			if !strings.Contains(js, c.json) || !strings.Contains(js, `"errors":["`+c.err+`"]`) || strings.Contains(js, `"flow"`) {
				t.Errorf("JSON %s\nwant %s", js, c.json)
			}
			if !strings.Contains(tree, "        "+c.tree) || !strings.Contains(tree, "    error: "+c.err+"\n") {
				t.Errorf("tree lacks %q:\n%s", c.tree, tree)
			}
			fd, _ := LookupField(c.field)
			v := fd.Values(f, nil)
			if c.value == 0 {
				if len(v) != 0 {
					t.Errorf("%s = %v in a layer of unknown version", c.field, v)
				}
			} else if len(v) != 1 || v[0].U != c.value {
				t.Errorf("%s = %v, want %d", c.field, v, c.value)
			}
		})
	}
}
