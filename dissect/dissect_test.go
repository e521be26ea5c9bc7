// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"encoding/json"
	"net/netip"
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
			p, ok := byProto[proto] // ours: JSON's ip is IPv4's or IPv6's
			if !ok {
				p, ok = LookupProto(proto)
			}
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

// TestBadPadCntKeepsExt: a RoCEv2 frame whose PadCnt runs past the octets
// after its extension headers keeps the RETH or AETH, which are whole, in
// JSON, the verbose tree and -T fields, with the PadCnt reported as the
// error naming the field and its offset (the JSON used to have no reth
// at all).
func TestBadPadCntKeepsExt(t *testing.T) {
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	build := func(bth *layers.BTH, padCnt byte) []byte {
		fr, err := sample.RoCE(a, b, 0, 49152, bth, nil)
		if err != nil {
			t.Fatal(err)
		}
		fr[14+20+8+1] |= padCnt << 4
		return fr
	}
	write := build(&layers.BTH{Opcode: layers.OpcodeRCWriteOnly, PKey: 0xffff, DestQP: 0xd2, PSN: 1000,
		RETH: layers.RETH{VA: 0x1122334455667788, RKey: 0xaabbccdd, DMALen: 64}}, 2)
	readLast := build(&layers.BTH{Opcode: layers.OpcodeRCReadResponseLast, PKey: 0xffff, DestQP: 0x11, PSN: 12,
		AETH: layers.AETH{Syndrome: 0x1f, MSN: 0x123456}}, 3)
	for _, tc := range []struct {
		name   string
		frame  []byte
		json   string
		fields []string // name=value, as -T fields prints them
	}{
		{"WRITE Only, PadCnt 2", write, `"reth":{"va":1234605616436508552,"rkey":2864434397,"dmalen":64},"errors":["bth: padcnt at offset 1: `,
			[]string{"reth.va=1234605616436508552", "reth.rkey=2864434397", "reth.dmalen=64"}},
		{"Read Response Last, PadCnt 3", readLast, `"aeth":{"syndrome":31,"msn":1193046},"errors":["bth: padcnt at offset 1: `,
			[]string{"aeth.syndrome=31", "aeth.msn=1193046"}},
	} {
		f := decodeFrame(tc.frame, len(tc.frame), 0)
		if f.Err == nil {
			t.Fatalf("%s: no error", tc.name)
		}
		var e Encoder
		if js := string(e.AppendJSON(nil, f)); !strings.Contains(js, tc.json) {
			t.Errorf("%s: JSON lacks %s:\n%s", tc.name, tc.json, js)
		}
		tree := string(e.AppendTree(nil, f))
		for _, nv := range tc.fields {
			name, want, _ := strings.Cut(nv, "=")
			fd, ok := LookupField(name)
			if !ok {
				t.Fatalf("no field %s", name)
			}
			if got := string(e.AppendFields(nil, f, []*Field{fd})); got != want {
				t.Errorf("%s: -e %s = %q, want %q", tc.name, name, got, want)
			}
			if !strings.Contains(tree, "        "+name+": ") {
				t.Errorf("%s: tree lacks %s:\n%s", tc.name, name, tree)
			}
		}
		if !strings.Contains(tree, "error: bth: padcnt at offset 1") {
			t.Errorf("%s: tree lacks the error:\n%s", tc.name, tree)
		}
	}
}
