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
