// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"net/netip"
	"testing"

	"github.com/gopacket/gopacket"
)

func TestDecodeQuote(t *testing.T) {
	v4 := unhex(t, quoteIPv4Hex)
	v6 := unhex(t, quoteIPv6Hex)
	a4, b4 := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	a6, b6 := netip.MustParseAddr("fd00::1"), netip.MustParseAddr("fd00::2")
	// IPv6 with a hop-by-hop (8 octets) and a fragment header before TCP.
	v6ext := cat(at(v6[:40], 6, 0), unhex(t, "2c 00 0000 0000 0000"), unhex(t, "06 00 0001 00000001"),
		unhex(t, "0050 1f90 00000001 00000000"))
	for _, r := range []struct {
		name   string
		q      []byte
		want   Flow
		err    error
		offset int
	}{
		{"ipv4-roce", v4, Flow{Src: a4, Dst: b4, Proto: 17, SrcPort: 49152, DstPort: 4791, DSCP: 26, QP: 0x123, HasQP: true}, nil, 0},
		{"ipv4-bth-cut", v4[:20+8+11], Flow{Src: a4, Dst: b4, Proto: 17, SrcPort: 49152, DstPort: 4791, DSCP: 26}, nil, 0},
		{"ipv4-udp-only", v4[:28], Flow{Src: a4, Dst: b4, Proto: 17, SrcPort: 49152, DstPort: 4791, DSCP: 26}, nil, 0},
		{"ipv4-not-roce-port", at(v4, 22, 0x12, 0xb8), Flow{Src: a4, Dst: b4, Proto: 17, SrcPort: 49152, DstPort: 4792, DSCP: 26}, nil, 0},
		{"ipv4-options", cat(at(v4[:20], 0, 0x46), unhex(t, "01010101"), v4[20:28]), Flow{Src: a4, Dst: b4, Proto: 17, SrcPort: 49152, DstPort: 4791, DSCP: 26}, nil, 0},
		{"ipv4-options-cut", cat(at(v4[:20], 0, 0x46), unhex(t, "01010101"), v4[20:27]), Flow{}, ErrQuoteTooShort, 24},
		{"ipv4-icmp-no-ports", at(v4, 9, 1), Flow{Src: a4, Dst: b4, Proto: 1, DSCP: 26}, nil, 0},
		{"ipv4-tcp", at(v4, 9, 6), Flow{Src: a4, Dst: b4, Proto: 6, SrcPort: 49152, DstPort: 4791, DSCP: 26}, nil, 0},
		{"ipv6-roce", v6, Flow{Src: a6, Dst: b6, Proto: 17, SrcPort: 49154, DstPort: 4791, DSCP: 1, QP: 0x456, HasQP: true}, nil, 0},
		{"ipv6-dscp-63", at(v6, 0, 0x6f, 0xc0), Flow{Src: a6, Dst: b6, Proto: 17, SrcPort: 49154, DstPort: 4791, DSCP: 63, QP: 0x456, HasQP: true}, nil, 0},
		{"ipv6-ext-headers", v6ext, Flow{Src: a6, Dst: b6, Proto: 6, SrcPort: 80, DstPort: 8080, DSCP: 1}, nil, 0},
		{"ipv6-ext-cut", v6ext[:41], Flow{}, ErrQuoteTooShort, 40},
		{"ipv6-l4-cut", v6ext[:56+7], Flow{}, ErrQuoteTooShort, 56},
		{"empty", nil, Flow{}, ErrQuoteTooShort, 0},
		{"ipv4-header-cut", v4[:19], Flow{}, ErrQuoteTooShort, 0},
		{"ipv6-header-cut", v6[:39], Flow{}, ErrQuoteTooShort, 0},
		{"ipv4-ihl-4", at(v4, 0, 0x44), Flow{}, ErrBadValue, 0},
		{"version-0", make([]byte, 64), Flow{}, ErrVersion, 0},
	} {
		got, err := DecodeQuote(r.q)
		if quoteNamesFlow(r.q) != (err == nil) {
			t.Errorf("%s: quoteNamesFlow %v, DecodeQuote %v", r.name, !(err == nil), err)
		}
		// A CIM with this quote as its MSDU: HasFlow and Flow() agree.
		var m CIM
		if derr := m.DecodeFromBytes(cat(at(cimBody(t)[:17], 15, byte(len(r.q)>>8), byte(len(r.q))), r.q), gopacket.NilDecodeFeedback); derr != nil {
			t.Fatalf("%s: CIM: %v", r.name, derr)
		}
		want := got
		if err != nil {
			want = Flow{}
		}
		if fl, ok := m.Flow(); m.HasFlow != (err == nil) || ok != m.HasFlow || fl != want || (m.Warnings&WarnNoFlow != 0) == m.HasFlow {
			t.Errorf("%s: CIM HasFlow %v, Flow() %v %v, warnings %v; DecodeQuote %v %v", r.name, m.HasFlow, fl, ok, m.Warnings, got, err)
		}
		if r.err != nil {
			var de *DecodeError
			if !errors.Is(err, r.err) || !errors.As(err, &de) || de.Offset != r.offset {
				t.Errorf("%s: error %v, want %v at %d", r.name, err, r.err, r.offset)
			}
			continue
		}
		if err != nil || got != r.want {
			t.Errorf("%s: %v %v, want %v", r.name, got, err, r.want)
		}
	}
}

func TestFlowString(t *testing.T) {
	f, _ := DecodeQuote(unhex(t, quoteIPv6Hex))
	if got, want := f.String(), "[fd00::1]:49154 > [fd00::2]:4791 proto 17 dscp 1 qp 0x000456"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

func TestQuoteAndCIMMSDU(t *testing.T) {
	long := make([]byte, 1000)
	if len(Quote(long)) != 64 || len(Quote(long[:20])) != 20 {
		t.Error("Quote length")
	}
	if len(CIMMSDU(long)) != 512 || len(CIMMSDU(long[:100])) != 100 {
		t.Error("CIMMSDU cut")
	}
	short := []byte{0x45, 1, 2}
	m := CIMMSDU(short)
	if len(m) != 48 || !bytes.Equal(m[:3], short) || !allZero(m[3:]) {
		t.Errorf("CIMMSDU pad: %x", m)
	}
}

// TestVFIDKeyLayout computes each stage's CRC with hash/crc32 over the
// key wire.md §7.1 lays out, written by hand, and compares with VFID,
// BFCKey, BFCFlowHashes and StageIndex.
func TestVFIDKeyLayout(t *testing.T) {
	for _, r := range []struct {
		flow Flow
		key  string // src IP, dst IP, protocol, src port, dst port
	}{
		{Flow{Src: netip.MustParseAddr("10.0.0.1"), Dst: netip.MustParseAddr("10.0.0.2"), Proto: 17, SrcPort: 49152, DstPort: 4791, DSCP: 26, QP: 5, HasQP: true},
			"0a000001 0a000002 11 c000 12b7"},
		{Flow{Src: netip.MustParseAddr("fd00::1"), Dst: netip.MustParseAddr("fd00::2"), Proto: 6, SrcPort: 80, DstPort: 8080},
			"fd000000000000000000000000000001 fd000000000000000000000000000002 06 0050 1f90"},
	} {
		key := unhex(t, r.key)
		if got := BFCKey(r.flow); !bytes.Equal(got, key) {
			t.Errorf("BFCKey(%v) = %x, want %x", r.flow, got, key)
		}
		want := crc32.Checksum(key, crc32.MakeTable(crc32.Castagnoli))
		if got := VFID(r.flow); got != want {
			t.Errorf("VFID(%v) = %08x, want CRC-32C(%x) = %08x", r.flow, got, key, want)
		}
		// DSCP and QP are not part of the key.
		g := r.flow
		g.DSCP, g.QP, g.HasQP = 0, 0, false
		if VFID(g) != want || BFCFlowHashes(g) != BFCFlowHashes(r.flow) {
			t.Errorf("the hashes depend on DSCP or QP")
		}
		h := BFCFlowHashes(r.flow)
		if h[0] != want {
			t.Errorf("stage 0 hash %08x is not the VFID %08x", h[0], want)
		}
		for s, poly := range BFCPolynomials {
			c := crc32.Checksum(key, crc32.MakeTable(poly))
			if h[s] != c || BFCHash(s, key) != c {
				t.Errorf("stage %d hash %08x, BFCHash %08x, want crc32 %08x", s, h[s], BFCHash(s, key), c)
			}
		}
		for _, geo := range []struct{ l, k int }{{128, 4}, {16, 4}, {1024, 8}, {1, 1}} {
			for s := 0; s < geo.k; s++ {
				w := crc32.Checksum(key, crc32.MakeTable(BFCPolynomials[s])) % uint32(8*geo.l/geo.k)
				if got := StageIndex(BFCVersion, &h, s, geo.l, geo.k); got != w {
					t.Errorf("StageIndex(v2, %d, %d, %d) = %d, want %d", s, geo.l, geo.k, got, w)
				}
			}
		}
	}
	buf := make([]byte, 80)
	for i := range buf {
		buf[i] = byte(i*37 + 11)
	}
	for s, poly := range BFCPolynomials {
		tab := crc32.MakeTable(poly)
		for n := 0; n <= len(buf); n++ {
			if got, want := BFCHash(s, buf[:n]), crc32.Checksum(buf[:n], tab); got != want {
				t.Errorf("BFCHash(%d) of %d octets %08x, want %08x", s, n, got, want)
			}
		}
	}
	if BFCHash(-1, buf) != 0 || BFCHash(8, buf) != 0 {
		t.Error("BFCHash of a stage outside 0..7")
	}
}

// TestFilterMatches sets a flow's bit stage by stage: it matches only when
// every stage holds it, and the bit lands where §7.1 says (octet b/8 of the
// stage, mask 0x80 >> b%8).
func TestFilterMatches(t *testing.T) {
	f, _ := DecodeQuote(unhex(t, quoteIPv4Hex))
	h := BFCFlowHashes(f)
	const l, k = 128, 4
	filter := make([]byte, l)
	for s := 0; s < k; s++ {
		if FilterMatches(BFCVersion, filter, k, &h) {
			t.Fatalf("matches with %d of %d stages set", s, k)
		}
		SetFilterBit(BFCVersion, filter, k, &h, s)
		i := StageIndex(BFCVersion, &h, s, l, k)
		if filter[s*l/k+int(i/8)]&(0x80>>(i%8)) == 0 {
			t.Fatalf("stage %d bit %d not at octet %d", s, i, s*l/k+int(i/8))
		}
	}
	if !FilterMatches(BFCVersion, filter, k, &h) {
		t.Fatal("no match with every stage set")
	}
	b := &BFC{Version: BFCVersion, Hashes: k, FilterLen: l, Filter: filter}
	if !b.Matches(f) || b.BitsSet() > k {
		t.Errorf("Matches %v bits %d", b.Matches(f), b.BitsSet())
	}
	// Read as version 1, the same bits name other flows.
	if FilterMatches(BFCVersion1, filter, k, &h) || (&BFC{Version: BFCVersion1, Hashes: k, FilterLen: l, Filter: filter}).Matches(f) {
		t.Error("a version 2 filter matches the flow when read as version 1")
	}
	for _, bad := range []struct {
		f []byte
		k int
	}{{filter, 0}, {filter[:3], 4}, {filter[:6], 4}, {nil, 1}, {make([]byte, 9), 9}} {
		if FilterMatches(BFCVersion, bad.f, bad.k, &h) {
			t.Errorf("FilterMatches(len %d, k %d) matched", len(bad.f), bad.k)
		}
	}
	all := bytes.Repeat([]byte{0xff}, l)
	var zero BFCHashes
	if !FilterMatches(BFCVersion, all, k, &zero) || (&BFC{Filter: all}).BitsSet() != 8*l {
		t.Error("full filter")
	}
}

// TestICRCFunctions checks ComputeICRC, FixICRC and PutICRC against the
// wire.md vectors, and that every field the ICRC masks can change without
// changing it, while any other does.
func TestICRCFunctions(t *testing.T) {
	for _, r := range []struct {
		hex  string
		ip   int // IP header length
		want uint32
	}{{cnpV4Hex, 20, 0x2339765c}, {cnpV6Hex, 40, 0xf4e67d0f}} {
		pkt := unhex(t, r.hex)[14:]
		got, err := ComputeICRC(pkt)
		if err != nil || got != r.want {
			t.Errorf("ComputeICRC %08x %v, want %08x", got, err, r.want)
		}
		var le [4]byte
		PutICRC(le[:], r.want)
		if !bytes.Equal(le[:], pkt[len(pkt)-4:]) {
			t.Errorf("PutICRC %x, wire %x", le, pkt[len(pkt)-4:])
		}
		broken := bytes.Clone(pkt)
		copy(broken[len(broken)-4:], []byte{0, 0, 0, 0})
		if err := FixICRC(broken); err != nil || !bytes.Equal(broken, pkt) {
			t.Errorf("FixICRC: %v %x", err, broken)
		}
		var masked []int
		if r.ip == 20 {
			masked = []int{1, 8, 10, 11} // TOS, TTL, checksum
		} else {
			masked = []int{1, 2, 3, 7} // traffic class low nibble and flow label, hop limit
		}
		masked = append(masked, r.ip+6, r.ip+7, r.ip+8+4) // UDP checksum, BTH octet 4
		for i := 0; i < len(pkt)-4; i++ {
			c := bytes.Clone(pkt)
			c[i] ^= 0x01
			if r.ip == 40 && i == 0 {
				c[i] ^= 0x01 ^ 0x08 // the traffic class's high nibble
			}
			got, _ := ComputeICRC(c)
			isMasked := false
			for _, m := range masked {
				isMasked = isMasked || m == i
			}
			if r.ip == 40 && i == 0 {
				isMasked = true
			}
			if (got == r.want) != isMasked {
				t.Errorf("IP header %d: flipping octet %d: ICRC %08x (masked %v)", r.ip, i, got, isMasked)
			}
		}
	}
	for _, bad := range [][]byte{nil, {0x45}, make([]byte, 20+8+12+3), at(make([]byte, 60), 0, 0x44), at(make([]byte, 60), 0, 0x55)} {
		if _, err := ComputeICRC(bad); err == nil {
			t.Errorf("ComputeICRC(%x) without error", bad)
		}
		if bad != nil && FixICRC(bad) == nil {
			t.Errorf("FixICRC(%x) without error", bad)
		}
	}
}

// The hash helpers take any geometry without panicking: an invalid one has
// no bits (StageIndex 0) and sets none.
func TestFilterHelpersInvalidGeometry(t *testing.T) {
	for _, g := range []struct{ l, k int }{{0, 4}, {128, 0}, {3, 4}, {-8, 4}} {
		h := BFCHashes{1, 2, 3, 4, 5, 6, 7, 8}
		if got := StageIndex(BFCVersion, &h, 0, g.l, g.k); got != 0 {
			t.Errorf("StageIndex(L=%d, k=%d) = %d, want 0", g.l, g.k, got)
		}
	}
	for _, c := range []struct {
		filter []byte
		k, s   int
	}{{nil, 4, 0}, {make([]byte, 4), 0, 0}, {make([]byte, 8), 4, 9}, {make([]byte, 8), 4, -1}, {make([]byte, 6), 4, 0}} {
		h := BFCHashes{0x1234, 0x1234, 0x1234, 0x1234, 0x1234, 0x1234, 0x1234, 0x1234}
		SetFilterBit(BFCVersion, c.filter, c.k, &h, c.s)
		if !allZero(c.filter) {
			t.Errorf("SetFilterBit(len %d, k %d, s %d) set a bit", len(c.filter), c.k, c.s)
		}
	}
}

// TestDecodeQuoteIPv4LaterFragment: a quoted IPv4 packet that is a
// fragment after the first (offset not 0) has no L4 header: its flow has
// the addresses and protocol but no ports and no QP, as a later IPv6
// fragment's; the first fragment (offset 0, MF set) has its ports.
func TestDecodeQuoteIPv4LaterFragment(t *testing.T) {
	q, _ := hex.DecodeString("4568004800000000401100000a0000010a000002" + "c0001001" + "0034000" + "0" +
		"0a0000000000d20000000003e8000000000000000000000000000000000000")
	for _, c := range []struct {
		frag      uint16
		wantPorts bool
	}{{0x0000, true}, {0x2000, true}, {0x0001, false}, {0x2005, false}, {0x1fff, false}} {
		b := bytes.Clone(q)
		binary.BigEndian.PutUint16(b[6:], c.frag)
		f, err := DecodeQuote(b)
		if err != nil || f.Proto != 17 || f.Src.String() != "10.0.0.1" || (f.SrcPort == 49152 && f.DstPort == 4097) != c.wantPorts ||
			f.HasQP && !c.wantPorts {
			t.Errorf("fragment field %#04x: %+v, %v; ports wanted %v", c.frag, f, err, c.wantPorts)
		}
	}
}

// TestDecodeQuoteShortAH: a quoted IPv4 AH whose length gives fewer than
// its 12 fixed octets is refused, as Parser and device.Parse refuse it
// (the walk read the AH's sequence number as ports); a later fragment's
// flow prints without ports.
func TestDecodeQuoteShortAH(t *testing.T) {
	q, _ := hex.DecodeString("4500003c0000000040330000" + "0a0000010a000002" + "11000000" + "aaaabbbb" + "00000000" +
		"03e812b700140000" + "0a000000000000d2")
	if f, err := DecodeQuote(q); !errors.Is(err, ErrBadValue) {
		t.Errorf("AH of 8 octets: %+v, %v; want ErrBadValue", f, err)
	}
	q[21] = 1 // 12 octets: walked, UDP 1000 > 4791 behind it
	if f, err := DecodeQuote(q); err != nil || f.Proto != 17 || f.SrcPort != 1000 || f.DstPort != 4791 {
		t.Errorf("AH of 12 octets: %+v, %v", f, err)
	}
	frag := Flow{Src: netip.MustParseAddr("10.0.0.1"), Dst: netip.MustParseAddr("10.0.0.2"), Proto: 17, NoL4: true}
	if s := frag.String(); s != "10.0.0.1 > 10.0.0.2 proto 17 dscp 0" {
		t.Errorf("a later fragment's flow: %q", s)
	}
}
