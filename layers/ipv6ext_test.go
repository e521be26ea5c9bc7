// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/opensfc/sfc/internal/tsharktest"
)

// ext6Frame is one golden frame of testdata/ipv6ext/frames.txt, built by
// scapy (gen.py there): an IPv6 packet with extension headers and what is
// behind them.
type ext6Frame struct {
	name         string
	proto        uint8
	ports        bool
	sport, dport uint16
	kind         string // roce, bts, postcard, cim, tcp, frag, esp
	frame        []byte
}

// readExt6Frames reads the golden IPv6 extension-header frames. device's
// tests read the same file, so the core's classifier and this package are
// tested on one table.
func readExt6Frames(t testing.TB) []ext6Frame {
	t.Helper()
	return readFrameTable(t, "testdata/ipv6ext/frames.txt", 18)
}

// readFrameTable reads a table of golden frames in the format of
// testdata/ipv6ext/frames.txt (name proto sport dport kind hex), at least
// min of them.
func readFrameTable(t testing.TB, path string, min int) []ext6Frame {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []ext6Frame
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		if len(w) != 6 {
			t.Fatalf("bad line %q", sc.Text())
		}
		fr := ext6Frame{name: w[0], kind: w[4]}
		p, _ := strconv.Atoi(w[1])
		fr.proto = uint8(p)
		if w[2] != "-" {
			s, _ := strconv.Atoi(w[2])
			d, _ := strconv.Atoi(w[3])
			fr.ports, fr.sport, fr.dport = true, uint16(s), uint16(d)
		}
		if fr.frame, err = hex.DecodeString(w[5]); err != nil {
			t.Fatal(err)
		}
		out = append(out, fr)
	}
	if len(out) < min {
		t.Fatalf("%s: %d frames", path, len(out))
	}
	return out
}

// TestIPv6ExtParser: behind every extension header chain the Parser finds
// the upper layer (RoCEv2, BTS, postcard, CIM, with the quote's flow),
// names the upper-layer protocol, lists each header, never decodes a
// fragment (other than an atomic one) as RoCEv2 or a signal, stops at ESP,
// and does not allocate.
func TestIPv6ExtParser(t *testing.T) {
	p := NewParser()
	for _, fr := range readExt6Frames(t) {
		t.Run(fr.name, func(t *testing.T) {
			if err := p.Decode(fr.frame); err != nil {
				t.Fatalf("decode: %v (decoded %v)", err, p.Decoded)
			}
			if proto, ok := p.IPProtocol(); !ok || proto != fr.proto {
				t.Errorf("IPProtocol = %d, %v; want %d", proto, ok, fr.proto)
			}
			if fr.name != "plain-roce" && !p.Has(LayerTypeIPv6Ext) {
				t.Errorf("no IPv6Ext layer: %v", p.Decoded)
			}
			checkExt6Upper(t, fr, p.Has, p.UDP.SrcPort, p.UDP.DstPort, &p.BTH, &p.BTS.Flow, &p.Postcard.Flow, &p.CIM)
			if n := testing.AllocsPerRun(20, func() { _ = p.Decode(fr.frame) }); n != 0 {
				t.Errorf("%v allocations per decode", n)
			}
		})
	}
	// The chain in RFC 8200's order, header by header.
	for _, fr := range readExt6Frames(t) {
		if fr.name != "rfc8200-order-cnp" {
			continue
		}
		if err := p.Decode(fr.frame); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range p.IPv6Ext.List() {
			got = append(got, h.Name()+"/"+strconv.Itoa(int(h.NextHeader)))
		}
		if want := "hopopts/60 dstopts/43 routing/44 fragment/51 ah/60 dstopts/17"; strings.Join(got, " ") != want {
			t.Errorf("chain %q, want %q", got, want)
		}
		h := p.IPv6Ext.Headers
		if h[2].RoutingType != 4 || h[2].SegmentsLeft != 1 || h[3].FragID != 7 || !p.IPv6Ext.Atomic() || h[4].SPI != 0x1234 || h[4].Seq != 9 {
			t.Errorf("header fields: %+v", h[:6])
		}
		if h[2].SRHLastEntry != 1 || h[2].SRHFlags != 0 || h[2].SRHTag != 0 || !h[2].HasNextHeader() {
			t.Errorf("SRH fields: %+v", h[2])
		}
		if !p.BTH.IsCNP() || p.BTH.CNP.DestQP != 0xabcd || p.BTH.ICRCChecked {
			t.Errorf("CNP behind the chain: %+v (ICRC is not checked behind extension headers)", p.BTH)
		}
	}
}

// TestIPv6ExtPerHeader: each header keeps its own type fields: two
// Routing headers (type 0 with Segments Left 1; a Segment Routing Header
// with Last Entry 1, Flags 0x80 and Tag 0x1234) and two Fragment headers
// (identifications 1 and 2), without allocating; ESP has no Next Header
// in the clear.
func TestIPv6ExtPerHeader(t *testing.T) {
	v6 := func(nh, ext string) []byte {
		const udp = "c001303900080000" // to port 12345: UDP alone
		b, err := hex.DecodeString("020000000002020000000001" + "86dd" + "60000000" + fmt.Sprintf("%04x", (len(ext)+len(udp))/2) + nh + "40" +
			"fd000000000000000000000000000001" + "fd000000000000000000000000000002" + ext + udp)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	p := NewParser()
	rh := v6("2b", "3c02000100000000"+"fd000000000000000000000000000009"+"2b00010400000000"+"1104040101801234"+
		"fd000000000000000000000000000002fd000000000000000000000000000008")
	if err := p.Decode(rh); err != nil {
		t.Fatalf("routing: %v", err)
	}
	h := p.IPv6Ext.List()
	if len(h) != 3 || h[0].RoutingType != 0 || h[0].SegmentsLeft != 1 || h[0].SRHTag != 0 ||
		h[2].RoutingType != 4 || h[2].SegmentsLeft != 1 || h[2].SRHLastEntry != 1 || h[2].SRHFlags != 0x80 || h[2].SRHTag != 0x1234 {
		t.Errorf("routing headers: %+v", h)
	}
	if n := testing.AllocsPerRun(20, func() { _ = p.Decode(rh) }); n != 0 {
		t.Errorf("%v allocations per decode", n)
	}
	if err := p.Decode(v6("2c", "2c00000000000001"+"1100000000000002")); err != nil {
		t.Fatalf("fragments: %v", err)
	}
	if h := p.IPv6Ext.List(); len(h) != 2 || h[0].FragID != 1 || h[1].FragID != 2 || h[0].NextHeader != 44 || h[1].NextHeader != 17 {
		t.Errorf("fragment headers: %+v", h)
	}
	if err := p.Decode(v6("32", "0000020000000001")); err != nil {
		t.Fatalf("esp: %v", err)
	}
	if h := p.IPv6Ext.List(); len(h) != 1 || h[0].HasNextHeader() || h[0].SPI != 0x200 {
		t.Errorf("ESP: %+v", h)
	}
}

// checkExt6Upper checks what a decode found behind the extension headers.
func checkExt6Upper(t *testing.T, fr ext6Frame, has func(gopacket.LayerType) bool, sport, dport layers.UDPPort,
	bth *BTH, btsFlow, pcFlow *Flow, cim *CIM) {
	t.Helper()
	signal := map[string]gopacket.LayerType{"roce": LayerTypeBTH, "bts": LayerTypeBTS, "postcard": LayerTypePostcard, "cim": LayerTypeCIM}
	for kind, lt := range signal {
		if got, want := has(lt), kind == fr.kind; got != want {
			t.Errorf("has %v = %v, want %v", lt, got, want)
		}
	}
	if fr.kind == "frag" || fr.kind == "esp" || fr.kind == "tcp" {
		if has(layers.LayerTypeUDP) {
			t.Errorf("UDP decoded in a %s", fr.kind)
		}
		return
	}
	if !has(layers.LayerTypeUDP) || uint16(sport) != fr.sport || uint16(dport) != fr.dport {
		t.Errorf("UDP %d > %d, want %d > %d", sport, dport, fr.sport, fr.dport)
	}
	switch fr.kind {
	case "roce":
		if bth.DestQP != 0xabcd {
			t.Errorf("DestQP %#x", bth.DestQP)
		}
	case "bts":
		want := uint32(0x1234)
		if strings.Contains(fr.name, "quote-") {
			want = 0x777 // the quote has its own Hop-by-Hop and AH headers, or AH
		}
		if !btsFlow.HasQP || btsFlow.QP != want || btsFlow.DstPort != 4791 {
			t.Errorf("BTS flow %v, want qp %#x", btsFlow, want)
		}
	case "postcard":
		if !pcFlow.HasQP || pcFlow.QP != 0x1234 {
			t.Errorf("postcard flow %v", pcFlow)
		}
	case "cim":
		if fl, ok := cim.Flow(); !ok || fl.QP != 0x1234 || !cim.HasSFC || cim.SFC.PauseUS != 30 {
			t.Errorf("CIM flow %v %v, SFC %+v", fl, ok, cim.SFC)
		}
	}
}

// TestIPv6ExtNewPacket: gopacket.NewPacket finds the same upper layers
// behind the same chains (an atomic fragment included, which gopacket's
// own Fragment decoder leaves undecoded).
func TestIPv6ExtNewPacket(t *testing.T) {
	for _, fr := range readExt6Frames(t) {
		t.Run(fr.name, func(t *testing.T) {
			pkt, up := newPacketUpper(t, fr.frame)
			has := func(lt gopacket.LayerType) bool { return pkt.Layer(lt) != nil }
			bth := up.bth
			checkExt6Upper(t, fr, has, up.u.SrcPort, up.u.DstPort, &bth, &up.bts.Flow, &up.pc.Flow, &up.cim)
			if fr.kind == "esp" && !has(layers.LayerTypeIPSecESP) {
				t.Errorf("no ESP layer: %v", pkt.Layers())
			}
		})
	}
}

// TestIPv6ExtTshark: tshark 4.0 agrees on the UDP ports and the RoCEv2
// DestQP of every golden frame it decodes (a CNP too, as an unknown opcode;
// it does not decode BTS,
// postcards or CIM; peers.md).
func TestIPv6ExtTshark(t *testing.T) {
	bin := tsharktest.Path(t)
	lines := tsharktest.FieldLines(t, bin, "testdata/ipv6ext/frames.pcap", []string{"udp.srcport", "udp.dstport", "infiniband.bth.destqp"})
	frames := readExt6Frames(t)
	if len(lines) != len(frames) {
		t.Fatalf("tshark: %d lines for %d frames", len(lines), len(frames))
	}
	p := NewParser()
	for i, fr := range frames {
		col := strings.Split(lines[i], "\t")
		_ = p.Decode(fr.frame)
		var ours [3]string
		if p.Has(layers.LayerTypeUDP) {
			ours[0], ours[1] = strconv.Itoa(int(p.UDP.SrcPort)), strconv.Itoa(int(p.UDP.DstPort))
		}
		if p.Has(LayerTypeBTH) {
			ours[2] = "0x" + hex.EncodeToString([]byte{byte(p.BTH.DestQP >> 16), byte(p.BTH.DestQP >> 8), byte(p.BTH.DestQP)})
		}
		if col[0] != ours[0] || col[1] != ours[1] || col[2] != ours[2] {
			t.Errorf("%s: tshark %q, ours %q", fr.name, col[:3], ours)
		}
	}
}

// TestIPv6ExtErrors: a chain cut short or too long is an error naming the
// header and its offset from the start of the IPv6 payload; the headers
// before it stay decoded, and a quote reports ErrQuoteTooShort.
func TestIPv6ExtErrors(t *testing.T) {
	hbh8 := []byte{60, 0, 1, 4, 0, 0, 0, 0} // Hop-by-Hop, next Destination Options
	long := make([]byte, 0, 96)
	for range MaxIPv6ExtHeaders + 1 {
		long = append(long, 60, 0, 1, 4, 0, 0, 0, 0)
	}
	for _, tc := range []struct {
		name  string
		first uint8
		data  []byte
		want  string // error text
		n     int    // headers listed: those before the error, and one cut after its length
	}{
		{"cut dstopts", 0, append(hbh8, 17), "ipv6: dstopts at offset 8: truncated", 1},
		// Its Next Header and length are there: it is listed, Cut set.
		{"dstopts longer than the data", 0, append(hbh8, 17, 1, 0, 0, 0, 0, 0, 0), "ipv6: dstopts at offset 8: length field points past the data", 2},
		{"cut fragment", 44, []byte{17, 0, 0}, "ipv6: fragment at offset 0: truncated", 0},
		{"cut AH", 51, []byte{17, 4, 0, 0, 0, 0}, "ipv6: ah at offset 0: truncated", 0},
		{"AH longer than the data", 51, []byte{17, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "ipv6: ah at offset 0: length field points past the data", 0},
		// Payload length 0: 8 octets, no room for the sequence number
		// (fuzz: decoded on to UDP, where gopacket stops).
		{"AH of 8 octets", 51, []byte{17, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0x30, 0x39, 0x12, 0xb7, 0, 8, 0, 0}, "ipv6: ah.length at offset 1: value out of range (AH of 8 octets, less than 12)", 0},
		{"cut routing", 43, []byte{17, 0, 4}, "ipv6: routing at offset 0: truncated", 0},
		{"cut ESP", 50, []byte{0, 0, 1}, "ipv6: esp at offset 0: truncated", 0},
		{"too many", 60, long, "ipv6: dstopts at offset 80: value out of range", MaxIPv6ExtHeaders},
	} {
		var e IPv6Ext
		e.Proto = tc.first
		err := e.DecodeFromBytes(tc.data, gopacket.NilDecodeFeedback)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || e.N != tc.n {
			t.Errorf("%s: %v, %d headers; want %q, %d", tc.name, err, e.N, tc.want, tc.n)
		}
		for i, h := range e.List() {
			if cut := i == e.N-1 && strings.Contains(tc.want, "length field points past"); (h.Cut != 0) != cut {
				t.Errorf("%s: header %d Cut %d", tc.name, i, h.Cut)
			}
		}
	}
	// In a quote: cut headers are too short to name a flow; ESP and a
	// fragment after the first name a flow without ports.
	ip6 := func(nh uint8, rest ...byte) []byte {
		q := make([]byte, 40, 40+len(rest))
		q[0], q[6] = 0x60, nh
		q[23], q[39] = 1, 2
		return append(q, rest...)
	}
	for _, tc := range []struct {
		name  string
		q     []byte
		err   error
		proto uint8
	}{
		{"hbh cut", ip6(0, 17), ErrQuoteTooShort, 0},
		{"ah cut", ip6(51, 17), ErrQuoteTooShort, 51},
		{"esp", ip6(50, 0, 0, 1, 0, 0, 0, 0, 1), nil, 50},
		{"non-first fragment", ip6(44, 17, 0, 0, 8, 0, 0, 0, 1, 0xc0, 0, 0x12, 0xb7, 0, 0, 0, 0), nil, 17},
		{"ah then udp", ip6(51, append([]byte{17, 4, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1}, 0x30, 0x39, 0x12, 0xb7, 0, 8, 0, 0)...), ErrQuoteTooShort, 17},
		{"ah then udp whole", ip6(51, append([]byte{17, 2, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0}, 0x30, 0x39, 0x12, 0xb7, 0, 8, 0, 0)...), nil, 17},
	} {
		fl, err := DecodeQuote(tc.q)
		if !errors.Is(err, tc.err) || err == nil && fl.Proto != tc.proto {
			t.Errorf("%s: %v, %v; want %v proto %d", tc.name, fl, err, tc.err, tc.proto)
		}
		if err == nil && tc.name != "ah then udp whole" && (fl.SrcPort != 0 || fl.HasQP) {
			t.Errorf("%s: ports or QP from a packet without an L4 header: %v", tc.name, fl)
		}
		if tc.name == "ah then udp whole" && (fl.SrcPort != 12345 || fl.DstPort != 4791) {
			t.Errorf("%s: %v", tc.name, fl)
		}
	}
}

// BenchmarkParserIPv6Ext decodes RoCEv2 behind extension header chains
// (plain-roce has none: the reference).
func BenchmarkParserIPv6Ext(b *testing.B) {
	p := NewParser()
	for _, fr := range readExt6Frames(b) {
		switch fr.name {
		case "plain-roce", "hbh-roce", "srh-roce", "rfc8200-order-cnp":
		default:
			continue
		}
		b.Run(fr.name, func(b *testing.B) {
			for b.Loop() {
				_ = p.Decode(fr.frame)
			}
		})
	}
}

// TestHopByHopNotFirst: a Hop-by-Hop header after another extension
// header decodes, with WarnHopByHopOrder (RFC 8200 §4.3); first, it has
// none.
func TestHopByHopNotFirst(t *testing.T) {
	ip6 := func(nh byte, rest ...byte) []byte {
		h := []byte{0x60, 0, 0, 0, 0, byte(len(rest)), nh, 64}
		h = append(h, make([]byte, 32)...)
		return append(h, rest...)
	}
	udp := []byte{0xc0, 0x00, 0x13, 0x88, 0, 8, 0, 0}
	opts := func(nh byte) []byte { return []byte{nh, 0, 1, 4, 0, 0, 0, 0} } // PadN
	p := NewParser()
	for _, tc := range []struct {
		name  string
		frame []byte
		warn  bool
	}{
		{"dstopts then hop-by-hop", ip6(IPv6DestOpts, append(append(opts(IPv6HopByHop), opts(17)...), udp...)...), true},
		{"hop-by-hop then dstopts", ip6(IPv6HopByHop, append(append(opts(IPv6DestOpts), opts(17)...), udp...)...), false},
	} {
		err := p.DecodeLink(layers.LinkTypeIPv6, tc.frame)
		if err != nil || !p.Has(layers.LayerTypeUDP) || p.IPv6Ext.Warnings.Has(WarnHopByHopOrder) != tc.warn {
			t.Errorf("%s: %v, decoded %v, warnings %v; want the warning %v", tc.name, err, p.Decoded, p.IPv6Ext.Warnings, tc.warn)
		}
	}
}

// upperLayers are the layers above IP that gopacket.NewPacket found (the
// zero layer for one it did not).
type upperLayers struct {
	u   layers.UDP
	bth BTH
	bts BTS
	pc  Postcard
	cim CIM
}

// newPacketUpper decodes frame with gopacket.NewPacket, which must find
// no error, and returns the packet and its layers above IP.
func newPacketUpper(t *testing.T, frame []byte) (gopacket.Packet, upperLayers) {
	t.Helper()
	pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
	if el := pkt.ErrorLayer(); el != nil {
		t.Fatalf("decode: %v", el.Error())
	}
	var up upperLayers
	if l, ok := pkt.Layer(layers.LayerTypeUDP).(*layers.UDP); ok {
		up.u = *l
	}
	if l, ok := pkt.Layer(LayerTypeBTH).(*BTH); ok {
		up.bth = *l
	}
	if l, ok := pkt.Layer(LayerTypeBTS).(*BTS); ok {
		up.bts = *l
	}
	if l, ok := pkt.Layer(LayerTypePostcard).(*Postcard); ok {
		up.pc = *l
	}
	if l, ok := pkt.Layer(LayerTypeCIM).(*CIM); ok {
		up.cim = *l
	}
	return pkt, up
}
