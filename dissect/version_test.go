// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"strings"
	"testing"

	"github.com/gopacket/gopacket"

	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/sample"
)

// TestUnknownVersionFieldsAbsent: a BTS, postcard, CIM, BFC, Floodgate
// credit or dst-pause frame whose version the layer does not know had only
// its version decoded. Its other fields are absent (no values, so no
// filter comparison holds; null in JSON; left out of the verbose tree),
// not 0: a BTS of version 2 read as pause_us 0 (a resume) before. The
// version and the error that names it stay.
func TestUnknownVersionFieldsAbsent(t *testing.T) {
	cases := []struct {
		sample string // a sample frame's name, by prefix
		proto  string
		lt     gopacket.LayerType
		byte3  bool // the version is octet 3 (common header), else octet 0's high nibble
	}{
		{"BTS from the congestion point", "bts", layers.LayerTypeBTS, false},
		{"PB-FS CC-postcard, IPv4", "postcard", layers.LayerTypePostcard, false},
		{"802.1Qcz CIM, L2", "cim", layers.LayerTypeCIM, false},
		{"BFC pause frame", "bfc", layers.LayerTypeBFC, true},
		{"Floodgate credit, IPv4", "fgcredit", layers.LayerTypeFGCredit, true},
		{"Floodgate dst-pause until resumed", "fgpause", layers.LayerTypeFGPause, true},
	}
	var e Encoder
	for _, c := range cases {
		var data []byte
		for _, s := range sample.Frames() {
			if strings.HasPrefix(s.Name, c.sample) {
				data = append([]byte(nil), s.Data...)
			}
		}
		if data == nil {
			t.Fatalf("no sample frame %q", c.sample)
		}
		good := decodeFrame(data, len(data), 100e9)
		if good.Err != nil || !good.P.Has(c.lt) {
			t.Fatalf("%s: sample does not decode: %v", c.proto, good.Err)
		}
		off := cap(data) - cap(good.P.Layer(c.lt).(gopacket.Layer).LayerContents())
		bad := append([]byte(nil), data...)
		if c.byte3 {
			bad[off+3] = 9
		} else {
			bad[off] = bad[off]&0x0f | 9<<4
		}
		f := decodeFrame(bad, len(bad), 100e9)
		if f.Err == nil || !strings.Contains(f.Err.Error(), "unknown version") {
			t.Fatalf("%s of version 9: error %v, want an unknown version", c.proto, f.Err)
		}
		pr, _ := LookupProto(c.proto)
		if !pr.Present(f) {
			t.Errorf("%s of version 9: protocol absent", c.proto)
		}
		var fields []*Field
		for _, name := range FieldNames() {
			if strings.HasPrefix(name, c.proto+".") {
				fd, _ := LookupField(name)
				fields = append(fields, fd)
			}
		}
		for _, fd := range fields {
			vs := fd.Values(f, nil)
			if fd.Short == "version" {
				if len(vs) != 1 || vs[0].U != 9 {
					t.Errorf("%s: %v, want 9", fd.Name, vs)
				}
				continue
			}
			if len(vs) != 0 {
				t.Errorf("%s of version 9: %s = %v, want absent", c.proto, fd.Name, vs)
			}
			if len(fd.Values(good, nil)) == 0 && fd.Short != "quote_len" && !fd.Entry && fd.Name != "cim.pause_us" {
				t.Logf("%s: absent in the good frame too", fd.Name)
			}
		}
		js := string(e.AppendJSON(nil, f))
		for _, fd := range pr.Fields {
			switch {
			case fd.Short == "version":
				if !strings.Contains(js, `"`+c.proto+`":{"version":9`) {
					t.Errorf("%s JSON: no version 9: %s", c.proto, js)
				}
			case fd.Entry:
				if !strings.Contains(js, `"entries":null`) {
					t.Errorf("%s JSON: entries not null: %s", c.proto, js)
				}
			case !strings.Contains(js, `"`+fd.Short+`":null`):
				t.Errorf("%s JSON: %s not null: %s", c.proto, fd.Short, js)
			}
		}
		if !strings.Contains(js, "unknown version") {
			t.Errorf("%s JSON: the error is gone: %s", c.proto, js)
		}
		tree := string(e.AppendTree(nil, f))
		if !strings.Contains(tree, c.proto+".version: 9\n") || !strings.Contains(tree, "unknown version") {
			t.Errorf("%s tree: no version or error:\n%s", c.proto, tree)
		}
		for _, fd := range fields {
			if fd.Short != "version" && strings.Contains(tree, fd.Name+":") {
				t.Errorf("%s tree shows %s:\n%s", c.proto, fd.Name, tree)
			}
		}
	}
}
