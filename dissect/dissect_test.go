// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/sample"
)

// wireMDFields is wire.md's field table, written out: every name must be
// in the registry, under its protocol.
var wireMDFields = map[string][]string{
	"pause":    {"opcode", "quanta"},
	"pfc":      {"opcode", "enable_vector", "c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "time_c0", "time_c1", "time_c2", "time_c3", "time_c4", "time_c5", "time_c6", "time_c7"},
	"bth":      {"opcode", "se", "m", "padcnt", "tver", "pkey", "fecn", "becn", "destqp", "ackreq", "psn", "icrc", "icrc_ok"},
	"reth":     {"va", "rkey", "dmalen"},
	"aeth":     {"syndrome", "msn"},
	"cnp":      {"destqp"},
	"cim":      {"version", "add", "ext", "da", "sa", "vid", "msdu_len", "pause_us", "cacheable", "origin", "reporter"},
	"bts":      {"version", "cacheable", "origin", "pause_us", "reporter", "cp_port", "cp_queue", "queue_depth", "quote_len"},
	"postcard": {"version", "port", "switch_id", "rate_mbps", "window_ns", "ip_bytes", "q1_bytes", "recent_bytes", "recent_marked_bytes", "quote_len"},
	"bfc":      {"version", "hashes", "filter_len", "seq", "bits_set"},
	"fgcredit": {"version", "family", "count", "dst", "credits"},
	"fgpause":  {"version", "family", "count", "dst", "pause_us"},
	"flow":     {"src", "dst", "proto", "sport", "dport", "dscp", "qp"},
}

func TestRegistryHasWireMDNames(t *testing.T) {
	for proto, fields := range wireMDFields {
		if _, ok := LookupProto(proto); !ok {
			t.Errorf("no protocol %s", proto)
		}
		for _, f := range fields {
			fd, ok := LookupField(proto + "." + f)
			if !ok {
				t.Errorf("no field %s.%s", proto, f)
				continue
			}
			if fd.Proto().Name != proto {
				t.Errorf("%s belongs to %s", fd.Name, fd.Proto().Name)
			}
		}
	}
	if _, ok := LookupField("bts.nonsense"); ok {
		t.Error("LookupField found a field that does not exist")
	}
}

func frames(t testing.TB) []Frame {
	var out []Frame
	for i, sf := range sample.Frames() {
		p := layers.NewParser()
		f := Frame{Number: i + 1, Time: sample.Start, Len: len(sf.Data), CapLen: len(sf.Data), P: p}
		f.Err = p.Decode(sf.Data)
		if f.Err != nil {
			t.Fatalf("sample frame %d (%s): %v", i+1, sf.Name, f.Err)
		}
		out = append(out, f)
	}
	return out
}

// Each sample frame's JSON is valid, holds exactly the protocols the frame
// has under wire.md's names, and a field absent from a frame (a PFC's bts
// fields) has no values.
func TestJSONAndPresence(t *testing.T) {
	var e Encoder
	want := []string{"pause", "pfc", "reth", "reth", "aeth", "bth", "cnp", "cnp", "bts", "bts", "bts", "cim", "cim", "cim",
		"postcard", "postcard", "bfc", "fgcredit", "fgcredit", "fgpause", "fgpause"}
	for i, f := range frames(t) {
		line := e.AppendJSON(nil, &f)
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(line, &obj); err != nil {
			t.Fatalf("frame %d: invalid JSON %s: %v", i+1, line, err)
		}
		if _, ok := obj["frame"]; !ok {
			t.Errorf("frame %d: no frame object", i+1)
		}
		if _, ok := obj[want[i]]; !ok {
			t.Errorf("frame %d: no %q in %s", i+1, want[i], line)
		}
		for proto := range obj {
			if proto == "frame" || proto == "warnings" || proto == "errors" {
				continue
			}
			p, ok := LookupProto(proto)
			if !ok || !p.Present(&f) {
				t.Errorf("frame %d: JSON has %q, which the frame does not hold", i+1, proto)
			}
		}
		bts, _ := LookupField("bts.pause_us")
		if got := bts.Values(&f, nil); (len(got) > 0) != f.P.Has(layers.LayerTypeBTS) {
			t.Errorf("frame %d: bts.pause_us values %v, frame has BTS %v", i+1, got, f.P.Has(layers.LayerTypeBTS))
		}
	}
}

// Floodgate entries nest in JSON and are one value per entry in -e.
func TestEntries(t *testing.T) {
	f := frames(t)[17] // Floodgate credit, IPv4, two destinations
	var e Encoder
	line := string(e.AppendJSON(nil, &f))
	if !strings.Contains(line, `"fgcredit":{"version":1,"family":4,"count":2,"entries":[{"dst":"10.0.0.2","credits":147500},{"dst":"10.0.1.7","credits":1078}]}`) {
		t.Errorf("fgcredit JSON: %s", line)
	}
	dst, _ := LookupField("fgcredit.dst")
	cr, _ := LookupField("fgcredit.credits")
	if got := string(e.AppendFields(nil, &f, []*Field{dst, cr})); got != "10.0.0.2,10.0.1.7\t147500,1078" {
		t.Errorf("fields: %q", got)
	}
}

// Rendering a frame allocates nothing once the encoder's scratch is warm.
func TestRenderDoesNotAllocate(t *testing.T) {
	fs := frames(t)
	var e Encoder
	buf := make([]byte, 0, 1<<16)
	all := make([]*Field, 0, 256)
	for _, n := range FieldNames() {
		fd, _ := LookupField(n)
		all = append(all, fd)
	}
	for i := range fs {
		f := &fs[i]
		render := func() {
			b := e.AppendJSON(buf[:0], f)
			b = AppendSummary(b, f)
			b = e.AppendFields(b, f, all)
			_ = e.AppendTree(b, f)
		}
		render()
		if n := testing.AllocsPerRun(20, render); n != 0 {
			t.Errorf("frame %d: %v allocations per render", i+1, n)
		}
	}
}
