// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"strings"
	"testing"

	"github.com/opensfc/sfc/internal/tsharktest"
)

// tsharkSame writes frames as an Ethernet pcap and checks that each
// Wireshark-named field prints as tshark -T fields prints it, frame by
// frame.
func tsharkSame(t *testing.T, names []string, frames ...[]byte) {
	t.Helper()
	bin := tsharktest.Path(t)
	path := t.TempDir() + "/frames.pcap"
	writePcap(t, path, 1, frames...)
	want := tsharktest.FieldLines(t, bin, path, names)
	if len(want) != len(frames) {
		t.Fatalf("tshark printed %d lines for %d frames", len(want), len(frames))
	}
	for i, data := range frames {
		f := decodeFrame(data, len(data), 0)
		var got []string
		for _, n := range names {
			got = append(got, tsharkText(t, f, n))
		}
		if g := strings.Join(got, "\t"); g != want[i] {
			t.Errorf("frame %d (%s):\n ours   %q\n tshark %q", i+1, strings.Join(names, " "), g, want[i])
		}
	}
}

// TestFragOffsetTshark: ip.frag_offset is the header's 13 bits, in
// 8-octet units, as tshark 4.0's -T fields and filters give it (3, where
// sfcdump said 24); ipv6.fraghdr.offset likewise. Our ipv6ext.frag_offset
// counts octets, as documented (docs/decisions.md).
func TestFragOffsetTshark(t *testing.T) {
	frames := [][]byte{
		// IPv4, fragment offset 3 (24 octets), MF.
		mustHex(t, "020000000002020000000001080045000"+"02c00052003401146b70a0000010a000002"+strings.Repeat("78", 24)),
		// IPv4, first fragment (offset 0), MF.
		mustHex(t, "02000000000202000000000108004500002c00062000401146b90a0000010a0000020001000200181fed"+strings.Repeat("79", 16)),
		// IPv6 with a Fragment header, offset 3, M.
		mustHex(t, "02000000000202000000000186dd6000000000202c40fd000000000000000000000000000001fd00000000000000000000000000000211000019000000077a"+strings.Repeat("7a", 23)),
	}
	tsharkSame(t, []string{"ip.frag_offset", "ipv6.fraghdr.offset"}, frames...)
	f := decodeFrame(frames[0], len(frames[0]), 0)
	if vs := mustField(t, "ip.frag_offset").Values(f, nil); len(vs) != 1 || vs[0].U != 3 {
		t.Errorf("ip.frag_offset %v, want 3", vs)
	}
	f = decodeFrame(frames[2], len(frames[2]), 0)
	if vs := mustField(t, "ipv6ext.frag_offset").Values(f, nil); len(vs) != 1 || vs[0].U != 24 {
		t.Errorf("ipv6ext.frag_offset %v, want 24 (octets)", vs)
	}
	if _, ok := LookupField("ipv6.fragment.offset"); ok {
		t.Error("ipv6.fragment.offset is no field of tshark 4.0 (its ipv6.fraghdr.offset is), yet sfcdump knows it")
	}
}

// TestCutMACControlOpcodeTshark: a PFC or PAUSE frame cut after its
// opcode (17 octets: the Ethernet header, the opcode, one octet) keeps
// macc.opcode, decoded before the cut, as pfc.opcode keeps it and tshark
// gives it (0x0101); it was absent.
func TestCutMACControlOpcodeTshark(t *testing.T) {
	frames := [][]byte{
		mustHex(t, "0180c2000001020000000002"+"8808"+"0101"+"00"),
		mustHex(t, "0180c2000001020000000002"+"8808"+"0001"+"ff"),
	}
	for _, data := range frames {
		f := decodeFrame(data, len(data), 0)
		if vs := mustField(t, "macc.opcode").Values(f, nil); len(vs) != 1 {
			t.Errorf("%x: macc.opcode %v, want one value", data, vs)
		}
	}
	tsharkSame(t, []string{"macc.opcode"}, frames...)
}

// TestAppendTsharkDoesNotAllocate: -T fields by Wireshark's names
// (frame.time, sll.unused, macc.opcode) renders without allocating.
func TestAppendTsharkDoesNotAllocate(t *testing.T) {
	buf := make([]byte, 0, 256)
	cases := []struct {
		v  Value
		st TsharkStyle
	}{
		{TimeValue(1767225600, 1000), TsharkStyle{AbsTime: true}},
		{bytesV([]byte{0, 0, 1}), TsharkStyle{PlainBytes: true}},
		{u(0x101), TsharkStyle{HexDigits: 4}},
	}
	if n := testing.AllocsPerRun(100, func() {
		for _, c := range cases {
			buf = AppendTshark(buf[:0], c.v, c.st)
		}
	}); n != 0 {
		t.Errorf("%v allocations per run", n)
	}
}

// TestWiresharkNamesValues: Wireshark's names of fields sfcdump decodes
// (IPv6 extension headers, the address bits, the tag's DEI, the
// interface) have tshark's values, a value per header or tag of the kind,
// without tshark; TestTsharkNamesOfHeaders compares their text with it.
func TestWiresharkNamesValues(t *testing.T) {
	// RFC 8200's order (layers/testdata/ipv6ext): Hop-by-Hop, Destination
	// Options, Routing (segment routing, 1 left), an atomic Fragment
	// (ident 7), AH, Destination Options, then UDP.
	rfc8200 := decodeFrame(mustHex(t, rfc8200Frame), len(mustHex(t, rfc8200Frame)), 0)
	vlanDEI := decodeFrame(mustHex(t, vlanDEIFrame), len(mustHex(t, vlanDEIFrame)), 0)
	text := func(f *Frame, name string) string {
		var s []string
		for _, v := range mustField(t, name).Values(f, nil) {
			s = append(s, string(AppendValue(nil, v, false)))
		}
		return strings.Join(s, ",")
	}
	for _, tc := range []struct {
		f          *Frame
		name, want string
	}{
		{rfc8200, "ipv6.hopopts.nxt", "60"},
		{rfc8200, "ipv6.dstopts.nxt", "43,17"},
		{rfc8200, "ipv6.routing.type", "4"},
		{rfc8200, "ipv6.routing.segleft", "1"},
		{rfc8200, "ipv6.routing.nxt", "44"},
		{rfc8200, "ipv6.fraghdr.nxt", "51"},
		{rfc8200, "ipv6.fraghdr.offset", "0"},
		{rfc8200, "ipv6.fraghdr.more", "false"},
		{rfc8200, "ipv6.fraghdr.ident", "7"},
		{rfc8200, "eth.dst.ig", "false"},
		{rfc8200, "eth.src.lg", "true"},
		{vlanDEI, "eth.dst.ig", "true"},
		{vlanDEI, "eth.dst.lg", "false"},
		{vlanDEI, "eth.src.ig", "false"},
		{vlanDEI, "eth.src.lg", "true"},
		{vlanDEI, "eth.ig", "true,false"},
		{vlanDEI, "eth.lg", "false,true"},
		{vlanDEI, "vlan.dei", "false,true"},
		{vlanDEI, "vlan.cfi", ""},
		{vlanDEI, "ipv6.fraghdr.ident", ""},
	} {
		if got := text(tc.f, tc.name); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	for name, want := range map[string]bool{"ipv6.hopopts": true, "ipv6.routing": true, "ipv6.fraghdr": true, "ipv6.dstopts": true} {
		p, ok := LookupProto(name)
		if !ok || p.Present(rfc8200) != want || p.Present(vlanDEI) {
			t.Errorf("%s: known %v, present %v in RFC 8200's order, %v in a VLAN frame", name, ok, p != nil && p.Present(rfc8200), p != nil && p.Present(vlanDEI))
		}
	}
	// A classic pcap has no interface; a pcapng's describes it or not.
	vlanDEI.Interface, vlanDEI.IfDescription = 2, "rack\x1b7"
	if got := text(vlanDEI, "frame.interface_id") + " " + text(vlanDEI, "frame.interface_description"); got != `2 rack\x1b7` {
		t.Errorf("pcapng: frame.interface_id and description %q", got)
	}
	vlanDEI.Classic, vlanDEI.Interface, vlanDEI.IfDescription = true, 0, ""
	if got := text(vlanDEI, "frame.interface_id") + text(vlanDEI, "frame.interface_description"); got != "" || text(vlanDEI, "frame.interface") != "0" {
		t.Errorf("classic pcap: frame.interface_id and description %q, frame.interface %s", got, text(vlanDEI, "frame.interface"))
	}
}

const (
	rfc8200Frame = "02000000000202000000000186dd6680000000880040fd000000000000000000000000000001fd0000000000000000000000000000023c000104000000002b000104000000002c04040101000000fd000000000000000000000000000002fd00000000000000000000000000000933000000000000073c0400000000123400000009aaaaaaaaaaaaaaaaaaaaaaaa1100010400000000c00012b7002800008100ffff4000abcd00000000000000000000000000000000000000000f7de6f4"
	// QinQ to a multicast group from a locally administered address: an
	// outer tag without DEI, an inner one with (TCI 0x1014).
	vlanDEIFrame = "01005e000001 020000000009 8100 0064 8100 1014 0800 45000020000100004011 0000 0a0000010a000002 c0000fa0000c0000 61626364"
)

// TestTsharkNamesOfHeaders: the Wireshark names of the IPv6 extension
// headers, the address bits and the tag's DEI print as tshark -T fields
// prints them.
func TestTsharkNamesOfHeaders(t *testing.T) {
	tsharkSame(t, []string{"ipv6.hopopts.nxt", "ipv6.dstopts.nxt", "ipv6.routing.type", "ipv6.routing.segleft", "ipv6.routing.nxt",
		"ipv6.fraghdr.nxt", "ipv6.fraghdr.offset", "ipv6.fraghdr.more", "ipv6.fraghdr.ident",
		"eth.dst.ig", "eth.dst.lg", "eth.src.ig", "eth.src.lg", "eth.ig", "eth.lg", "vlan.dei", "vlan.cfi"},
		mustHex(t, rfc8200Frame), mustHex(t, vlanDEIFrame))
}

// TestIPv4OnlyNamesTshark: LookupField's and LookupProto's ip and ip.*
// (filters, -e) are Wireshark's, IPv4's alone: an IPv6 frame has no ip,
// ip.src, ip.ttl, ip.proto, but ip.version is in both, as tshark gives
// them; ours (OurField, JSON, the verbose tree) are either family's.
// ipv6.nxt is left out: ours is the protocol behind the extension
// headers (docs/interop.md).
func TestIPv4OnlyNamesTshark(t *testing.T) {
	v6 := decodeFrame(mustHex(t, rfc8200Frame), len(mustHex(t, rfc8200Frame)), 0)
	v4 := decodeFrame(mustHex(t, vlanDEIFrame), len(mustHex(t, vlanDEIFrame)), 0)
	ip, ok := LookupProto("ip")
	if !ok || ip.Present(v6) || !ip.Present(v4) {
		t.Errorf("ip: present in IPv6 %v, in IPv4 %v; want IPv4 alone", ok && ip.Present(v6), ok && ip.Present(v4))
	}
	for _, name := range []string{"ip.src", "ip.dst", "ip.ttl", "ip.proto", "ip.dscp", "ip.ecn"} {
		ws, ours := mustField(t, name), mustOurField(t, name)
		if len(ws.Values(v6, nil)) != 0 || len(ws.Values(v4, nil)) != 1 || len(ours.Values(v6, nil)) != 1 {
			t.Errorf("%s: %v in IPv6, %v in IPv4; ours %v in IPv6", name, ws.Values(v6, nil), ws.Values(v4, nil), ours.Values(v6, nil))
		}
	}
	tsharkSame(t, []string{"ip.version", "ip.src", "ip.dst", "ip.ttl", "ip.proto", "ip.addr", "ip.len",
		"ipv6.src", "ipv6.dst", "ipv6.addr", "ipv6.hlim", "ipv6.plen", "ipv6.flow", "ipv6.tclass.dscp"},
		mustHex(t, rfc8200Frame), mustHex(t, vlanDEIFrame))
}

func mustOurField(t *testing.T, name string) *Field {
	t.Helper()
	fd, ok := OurField(name)
	if !ok {
		t.Fatalf("no field %s of ours", name)
	}
	return fd
}
