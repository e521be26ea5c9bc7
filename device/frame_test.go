// SPDX-License-Identifier: Apache-2.0

package device

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	glayers "github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/opensfc/sfc/layers"
)

// TestParseIPv6ExtTable runs one table of frames, layers' scapy-built
// IPv6 extension-header goldens (layers/testdata/ipv6ext/frames.txt),
// through the core's classifier (Parse) and through layers.Parser, and
// checks that both find the same upper-layer protocol, ports, RoCEv2 QP
// and signal behind every chain, and that neither treats a fragment or ESP
// as RoCEv2 or a signal: a header format change must reach both.
func TestParseIPv6ExtTable(t *testing.T) {
	checkFrameTable(t, "../layers/testdata/ipv6ext/frames.txt", 6, 18)
}

// TestParseIPv4AHTable is TestParseIPv6ExtTable for IPv4 with an IPsec AH
// or ESP header (layers/testdata/ipv4ah/frames.txt): RoCEv2, BTS,
// postcard and CIM behind an AH are classified as layers.Parser decodes
// them, TCP behind one has its ports, ESP and a fragment are neither
// RoCEv2 nor a signal. Before, Parse took the AH for the L4 header
// (protocol 51, KindData) and layers.Parser stopped at it. Each frame cut
// inside its AH, or with an AH length under 12 octets or past the packet,
// is malformed to both.
func TestParseIPv4AHTable(t *testing.T) {
	const path = "../layers/testdata/ipv4ah/frames.txt"
	checkFrameTable(t, path, 4, 12)
	cp := Codepoints{}.WithDefaults()
	lp := layers.NewParser()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const ahAt = 14 + 20
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		w := strings.Fields(line)
		frame, _ := hex.DecodeString(w[5])
		if frame[12] != 0x08 || frame[14+9] != 51 || w[4] == "frag" {
			continue
		}
		ahLen := (int(frame[ahAt+1]) + 2) * 4
		var bad [][]byte
		// (A capture cut behind the AH, in the UDP header, is a layers
		// error and data to Parse, as without an AH: Parse reads what the
		// capture kept.)
		for cut := ahAt; cut < ahAt+ahLen; cut++ {
			bad = append(bad, frame[:cut:cut])
		}
		for _, l := range []byte{0, 200} {
			b := append([]byte(nil), frame...)
			b[ahAt+1] = l
			bad = append(bad, b)
		}
		if frame[ahAt] == 17 {
			// A total length that ends in the UDP header behind the AH:
			// the rest is padding.
			b := append([]byte(nil), frame...)
			binary.BigEndian.PutUint16(b[14+2:], uint16(20+ahLen+4))
			bad = append(bad, b)
		}
		for _, b := range bad {
			n++
			var m Meta
			Parse(b, &m, &cp)
			lerr := lp.Decode(b)
			if m.Kind != KindMalformed || lerr == nil {
				t.Errorf("%s, %d octets, AH length %d: device %v, layers %v", w[0], len(b), b[ahAt+1], m.Kind, lerr)
			}
		}
	}
	if n < 100 {
		t.Fatalf("%d broken frames", n)
	}
}

// checkFrameTable runs the table of golden frames at path (name proto
// sport dport kind hex; at least min of IP version v) through Parse and
// layers.Parser.
func checkFrameTable(t *testing.T, path string, v uint8, min int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cp Codepoints
	cp = cp.WithDefaults()
	lp := layers.NewParser()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		name, kind := w[0], w[4]
		proto, _ := strconv.Atoi(w[1])
		frame, err := hex.DecodeString(w[5])
		if err != nil {
			t.Fatal(err)
		}
		n++
		var m Meta
		Parse(frame, &m, &cp)
		if m.IPVersion != v || int(m.Proto) != proto {
			t.Errorf("%s: Parse: IPv%d proto %d, want %d, %d", name, m.IPVersion, m.Proto, v, proto)
		}
		if w[2] != "-" && (strconv.Itoa(int(m.SrcPort)) != w[2] || strconv.Itoa(int(m.DstPort)) != w[3]) {
			t.Errorf("%s: Parse: ports %d > %d, want %s > %s", name, m.SrcPort, m.DstPort, w[2], w[3])
		}
		if w[2] == "-" && m.L4 != 0 {
			t.Errorf("%s: Parse: an L4 header at %d in a packet without one", name, m.L4)
		}
		wantKind := map[string]Kind{"bts": KindBTS, "postcard": KindPostcard, "cim": KindCIM}[kind]
		if wantKind == 0 {
			wantKind = KindData
		}
		if m.Kind != wantKind || m.HasQP != (kind == "roce") || m.HasQP && m.QP != 0xabcd {
			t.Errorf("%s: Parse: kind %v qp %v %#x, want %v (payload %s)", name, m.Kind, m.HasQP, m.QP, wantKind, kind)
		}
		if m.Fragment != (kind == "frag") {
			t.Errorf("%s: Parse: Fragment %v", name, m.Fragment)
		}
		// The same frame through layers.Parser.
		if err := lp.Decode(frame); err != nil {
			t.Fatalf("%s: layers: %v", name, err)
		}
		lproto, _ := lp.IPProtocol()
		if v == 4 && kind == "frag" {
			// layers decodes no IPv4 fragment past its header; Parse
			// walks a first fragment's AH for the ports.
			lproto = m.Proto
		}
		if lproto != m.Proto {
			t.Errorf("%s: proto: layers %d, device %d", name, lproto, m.Proto)
		}
		if lp.Has(glayers.LayerTypeUDP) != (m.Payload != 0) {
			t.Errorf("%s: UDP: layers %v, device payload at %d", name, lp.Has(glayers.LayerTypeUDP), m.Payload)
		}
		if lp.Has(glayers.LayerTypeUDP) && (uint16(lp.UDP.SrcPort) != m.SrcPort || uint16(lp.UDP.DstPort) != m.DstPort) {
			t.Errorf("%s: ports: layers %d > %d, device %d > %d", name, lp.UDP.SrcPort, lp.UDP.DstPort, m.SrcPort, m.DstPort)
		}
		if lp.Has(layers.LayerTypeBTH) != m.HasQP || m.HasQP && lp.BTH.DestQP != m.QP {
			t.Errorf("%s: RoCEv2: layers %v qp %#x, device %v qp %#x", name, lp.Has(layers.LayerTypeBTH), lp.BTH.DestQP, m.HasQP, m.QP)
		}
		for k, lt := range map[Kind]gopacket.LayerType{KindBTS: layers.LayerTypeBTS, KindPostcard: layers.LayerTypePostcard, KindCIM: layers.LayerTypeCIM} {
			if (m.Kind == k) != lp.Has(lt) {
				t.Errorf("%s: %v: layers and device disagree", name, k)
			}
		}
		if m.Payload != 0 && m.Payload != len(frame)-len(lp.UDP.Payload) {
			t.Errorf("%s: UDP payload at %d, layers at %d", name, m.Payload, len(frame)-len(lp.UDP.Payload))
		}
	}
	if n < min {
		t.Fatalf("%s: %d frames", path, n)
	}
}

// TestParseFragmentsIPv4: an IPv4 fragment, first or not, is never a
// signal nor RoCEv2; the first keeps its ports.
func TestParseFragmentsIPv4(t *testing.T) {
	frame := func(flags uint16) []byte {
		b := make([]byte, 14+20+8+16)
		b[12], b[13] = 0x08, 0x00
		ip := b[14:]
		ip[0], ip[3], ip[8], ip[9] = 0x45, 44, 64, 17
		ip[6], ip[7] = byte(flags>>8), byte(flags)
		u := ip[20:]
		u[0], u[1], u[2], u[3] = 0x30, 0x39, 0x03, 0xfd // 12345 > 1021 (BTS)
		return b
	}
	cp := Codepoints{}.WithDefaults()
	for _, tc := range []struct {
		name  string
		flags uint16
		kind  Kind
		ports bool
	}{
		{"whole", 0, KindBTS, true},
		{"DF", 0x4000, KindBTS, true},
		{"first fragment", 0x2000, KindData, true},
		{"later fragment", 0x0010, KindData, false},
	} {
		var m Meta
		Parse(frame(tc.flags), &m, &cp)
		if m.Kind != tc.kind || (m.SrcPort == 12345) != tc.ports || m.Fragment != (tc.flags&0x3fff != 0) {
			t.Errorf("%s: kind %v ports %d>%d fragment %v", tc.name, m.Kind, m.SrcPort, m.DstPort, m.Fragment)
		}
	}
}

// BenchmarkParse classifies the IPv6 extension-header goldens (and the
// plain RoCEv2 one): the core's per-packet cost, to compare with
// layers.Parser's (BenchmarkParserIPv6Ext), which it does not use.
func BenchmarkParse(b *testing.B) {
	raw, err := os.ReadFile("../layers/testdata/ipv6ext/frames.txt")
	if err != nil {
		b.Fatal(err)
	}
	cp := Codepoints{}.WithDefaults()
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		w := strings.Fields(line)
		switch w[0] {
		case "plain-roce", "hbh-roce", "srh-roce", "rfc8200-order-cnp":
		default:
			continue
		}
		frame, _ := hex.DecodeString(w[5])
		b.Run(w[0], func(b *testing.B) {
			var m Meta
			for b.Loop() {
				Parse(frame, &m, &cp)
			}
		})
	}
}

// TestIPv6LengthBoth: an IPv6 payload length of 0 is a jumbogram only with
// the Jumbo Payload option (RFC 2675) in a first Hop-by-Hop header, and
// that option only comes with length 0. The core's classifier, layers'
// Parser and gopacket's NewPacket agree on every row: the packet is
// RoCEv2, or it is malformed (an error naming the field in layers). Found
// by FuzzPacket: layers took any length 0 as "what was captured".
func TestIPv6LengthBoth(t *testing.T) {
	golden := func(name string) []byte {
		f, err := os.ReadFile("../layers/testdata/ipv6ext/frames.txt")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(f), "\n") {
			if w := strings.Fields(l); len(w) == 6 && w[0] == name {
				b, err := hex.DecodeString(w[5])
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
		}
		t.Fatalf("no frame %s", name)
		return nil
	}
	// hbh-roce: IPv6 at 14 (payload length at 18), a Hop-by-Hop header of
	// 8 octets at 54 with one PadN option (56: type, 57: length, 58-61).
	edit := func(name string, f func(b []byte)) []byte {
		b := golden(name)
		f(b)
		return b
	}
	jumbo := func(v uint32, optLen byte, plen uint16) func([]byte) {
		return func(b []byte) {
			b[18], b[19] = byte(plen>>8), byte(plen)
			b[56], b[57] = 0xc2, optLen
			b[58], b[59], b[60], b[61] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
		}
	}
	lp := layers.NewParser()
	for _, tc := range []struct {
		name   string
		frame  []byte
		roce   bool   // RoCEv2 in all three; else malformed in all three
		layErr string // layers' error, when not roce
	}{
		{"golden hbh", golden("hbh-roce"), true, ""},
		{"length 0, no jumbo option", edit("hbh-roce", func(b []byte) { b[18], b[19] = 0, 0 }), false, "ipv6: payload length at offset 4: value out of range (0 (a jumbogram, RFC 2675) but the Hop-by-Hop header has no Jumbo Payload option)"},
		{"length 0, first header dstopts", edit("dstopts-roce", func(b []byte) { b[18], b[19] = 0, 0 }), false, "ipv6: payload length at offset 4: value out of range (0 (a jumbogram, RFC 2675) with next header 60, not Hop-by-Hop)"},
		// No extension header: no jumbogram but an empty payload (as
		// Wireshark), so the UDP header that should follow is missing.
		{"length 0, UDP next", edit("plain-roce", func(b []byte) { b[18], b[19] = 0, 0 }), false, "udp: header at offset 0: truncated (the data ends where its header should begin)"},
		{"jumbogram of 70,000 (cut by the capture)", edit("hbh-roce", jumbo(70_000, 4, 0)), true, ""},
		{"jumbogram of 4 GB", edit("hbh-roce", jumbo(0xffffffff, 4, 0)), true, ""},
		{"jumbo length 65,535", edit("hbh-roce", jumbo(65_535, 4, 0)), false, "ipv6: jumbo payload at offset 44: value out of range (length 65535, not over 65,535)"},
		{"jumbo option of 3 octets", edit("hbh-roce", func(b []byte) { jumbo(70_000, 3, 0)(b); b[61] = 1 }), false, "ipv6: jumbo payload at offset 42: value out of range (option data of 3 octets, not 4)"},
		{"jumbo option with length 56", edit("hbh-roce", jumbo(70_000, 4, 56)), false, "ipv6: payload length at offset 4: value out of range (56 with a Jumbo Payload option"},
	} {
		var m Meta
		var cp Codepoints
		cp = cp.WithDefaults()
		Parse(tc.frame, &m, &cp)
		if got := m.Kind != KindMalformed && m.HasQP && m.QP == 0xabcd; got != tc.roce {
			t.Errorf("%s: device: kind %v qp %v %#x, want RoCEv2 %v", tc.name, m.Kind, m.HasQP, m.QP, tc.roce)
		}
		err := lp.Decode(tc.frame)
		if got := err == nil && lp.Has(layers.LayerTypeBTH) && lp.BTH.DestQP == 0xabcd; got != tc.roce {
			t.Errorf("%s: layers: %v, BTH %v, want RoCEv2 %v", tc.name, err, lp.Has(layers.LayerTypeBTH), tc.roce)
		}
		if !tc.roce && (err == nil || !strings.HasPrefix(err.Error(), tc.layErr)) {
			t.Errorf("%s: layers error %v, want %q", tc.name, err, tc.layErr)
		}
		pkt := gopacket.NewPacket(tc.frame, glayers.LayerTypeEthernet, gopacket.Default)
		if got := pkt.Layer(layers.LayerTypeBTH) != nil; got != tc.roce {
			t.Errorf("%s: gopacket: BTH %v (%v), want %v", tc.name, got, pkt.ErrorLayer(), tc.roce)
		}
	}
	// Payload length 0 with No Next Header (59) is a whole packet (RFC
	// 8200 §4.7; tshark: nxt 59, plen 0, no expert note): IP in both
	// readings, not malformed, its trailer not a payload.
	nonext := edit("plain-roce", func(b []byte) { b[18], b[19], b[20] = 0, 0, 59 })
	var m Meta
	cp := Codepoints{}.WithDefaults()
	Parse(nonext, &m, &cp)
	if m.Kind == KindMalformed || m.IPVersion != 6 || m.IPLen != 40 || m.HasQP {
		t.Errorf("no next header: device kind %v, IP version %d, length %d, QP %v", m.Kind, m.IPVersion, m.IPLen, m.HasQP)
	}
	if err := lp.Decode(nonext); err != nil || !lp.Has(glayers.LayerTypeIPv6) || lp.IPv6.NextHeader != 59 || lp.Has(layers.LayerTypeBTH) {
		t.Errorf("no next header: layers %v, IPv6 %v, next %d", err, lp.Has(glayers.LayerTypeIPv6), lp.IPv6.NextHeader)
	}
	// Lengths that leave no room for the header they name: malformed in
	// both readings when it is UDP (layers decodes it), whole in both when
	// layers decodes no more (TCP, ICMPv6: the review found device alone
	// calling them malformed, and reading UDP ports from Ethernet padding).
	v4 := func(totalLen uint16) []byte {
		b, _ := hex.DecodeString("020000000002020000000001080045000000000100004011000" + "00a0000010a000002c00012b7001c0000" + strings.Repeat("00", 20))
		b[16], b[17] = byte(totalLen>>8), byte(totalLen)
		return b
	}
	for _, tc := range []struct {
		name      string
		frame     []byte
		malformed bool
	}{
		{"IPv6 length 0, TCP next", edit("plain-roce", func(b []byte) { b[18], b[19], b[20] = 0, 0, 6 }), false},
		{"IPv6 length 0, ICMPv6 next", edit("plain-roce", func(b []byte) { b[18], b[19], b[20] = 0, 0, 58 }), false},
		{"IPv6 length 4, UDP next", edit("plain-roce", func(b []byte) { b[18], b[19] = 0, 4 }), true},
		{"IPv4 total length 20, UDP next, padding after", v4(20), true},
		{"IPv4 total length 24, UDP next", v4(24), true},
		{"IPv4 total length 10, under its header", v4(10), true},
	} {
		var m Meta
		Parse(tc.frame, &m, &cp)
		err := lp.Decode(tc.frame)
		if got := m.Kind == KindMalformed; got != tc.malformed {
			t.Errorf("%s: device malformed %v, want %v", tc.name, got, tc.malformed)
		}
		if got := err != nil; got != tc.malformed {
			t.Errorf("%s: layers error %v, want an error %v", tc.name, err, tc.malformed)
		}
	}
}

// TestParseVLANTable runs one table of frames through the core's
// classifier (Parse) and through layers.Parser: the golden frames of
// layers/testdata/vlan9100.pcap (PFC, a RoCEv2 CNP over IPv4 and a BTS
// behind one or two tags, 0x9100 among them), each with every tag's TPID
// set to each of 0x8100, 0x88A8 and 0x9100 in turn, and with the outer
// one set to 0x9200, which is no tag. Both must find the same tags (the
// outer one's VID and PCP), the same EtherType and offset behind them,
// and the same signal or RoCEv2 QP: a TPID one of them accepts and the
// other does not fails here. Parse skipped no 0x9100 tag, calling every
// such frame KindOther. Each frame is also stacked with more outer tags,
// to 3, 4 and MaxVLANTags tags, which both decode, and to one more, which
// neither decodes past its MaxVLANTags tags (KindOther; a payload behind
// the tags in layers). Parse skipped two tags while layers.Parser decoded
// any number: a frame of three tags was KindOther to one and PFC, RoCEv2
// or a BTS to the other.
func TestParseVLANTable(t *testing.T) {
	if MaxVLANTags != layers.MaxVLANTags {
		t.Fatalf("device.MaxVLANTags %d, layers.MaxVLANTags %d", MaxVLANTags, layers.MaxVLANTags)
	}
	f, err := os.Open("../layers/testdata/vlan9100.pcap")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	cp := Codepoints{}.WithDefaults()
	lp := layers.NewParser()
	tpids := []uint16{EtherTypeVLAN, EtherTypeQinQ, EtherTypeQinQ9100}
	n, n9100 := 0, 0
	for i := 1; ; i++ {
		golden, _, err := r.ReadPacketData()
		if err != nil {
			break
		}
		if err := lp.Decode(golden); err != nil || lp.Dot1Q.NTags == 0 {
			t.Fatalf("frame %d: layers: %v, %d tags", i, err, lp.Dot1Q.NTags)
		}
		ntags := lp.Dot1Q.NTags
		// The kind the frame's payload is, whatever its tags.
		var want Kind
		switch {
		case lp.Has(layers.LayerTypePFC):
			want = KindPFC
		case lp.Has(layers.LayerTypeBTS):
			want = KindBTS
		case lp.Has(layers.LayerTypeBTH):
			want = KindData
		default:
			t.Fatalf("frame %d: decoded %v", i, lp.Decoded)
		}
		// Every assignment of the three TPIDs to the frame's tags, then
		// 0x9200 outside.
		var variants [][]uint16
		var walk func(prefix []uint16)
		walk = func(prefix []uint16) {
			if len(prefix) == ntags {
				variants = append(variants, append([]uint16(nil), prefix...))
				return
			}
			for _, tp := range tpids {
				walk(append(prefix, tp))
			}
		}
		walk(nil)
		variants = append(variants, []uint16{0x9200})
		type variant struct {
			frame []byte
			v     []uint16 // every tag's TPID, outer first
		}
		var frames []variant
		for _, v := range variants {
			frame := append([]byte(nil), golden...)
			for k, tp := range v {
				binary.BigEndian.PutUint16(frame[12+4*k:], tp)
			}
			frames = append(frames, variant{frame, v})
		}
		// More tags, outer ones added (VID 200, 201, ..., the three TPIDs
		// in turn).
		for _, total := range []int{3, 4, MaxVLANTags, MaxVLANTags + 1} {
			if total <= ntags {
				continue
			}
			frame := append([]byte(nil), golden[:12]...)
			var v []uint16
			for k := range total - ntags {
				frame = binary.BigEndian.AppendUint16(frame, tpids[k%3])
				frame = binary.BigEndian.AppendUint16(frame, uint16(k%8)<<13|uint16(200+k))
				v = append(v, tpids[k%3])
			}
			for k := range ntags {
				v = append(v, binary.BigEndian.Uint16(golden[12+4*k:]))
			}
			frames = append(frames, variant{append(frame, golden[12:]...), v})
		}
		for _, fv := range frames {
			frame, v := fv.frame, fv.v
			name := fmt.Sprintf("frame %d TPIDs %04x", i, v)
			n++
			if slices.Contains(v, EtherTypeQinQ9100) {
				n9100++
			}
			var m Meta
			Parse(frame, &m, &cp)
			lerr := lp.Decode(frame)
			if v[0] == 0x9200 {
				if m.Kind != KindOther || m.Tagged || lp.Has(glayers.LayerTypeDot1Q) || lerr != nil {
					t.Errorf("%s: no tag: device %v tagged %v, layers %v %v", name, m.Kind, m.Tagged, lp.Decoded, lerr)
				}
				continue
			}
			if lerr != nil {
				t.Errorf("%s: layers: %v", name, lerr)
				continue
			}
			wantKind, wantTags := want, len(v)
			if len(v) > MaxVLANTags {
				// Beyond the limit: neither decodes what the tags carry.
				wantKind, wantTags = KindOther, MaxVLANTags
				if last := lp.Decoded[len(lp.Decoded)-1]; last != gopacket.LayerTypePayload || lp.Has(glayers.LayerTypeIPv4) {
					t.Errorf("%s: layers decoded %v behind %d tags", name, lp.Decoded, MaxVLANTags)
				}
			}
			if m.Kind != wantKind || m.Kind == KindData && (!m.HasQP || m.QP != lp.BTH.DestQP || !lp.Has(layers.LayerTypeBTH)) {
				t.Errorf("%s: device %v (qp %v %#x), want %v; layers %v", name, m.Kind, m.HasQP, m.QP, wantKind, lp.Decoded)
			}
			if lp.Dot1Q.NTags != wantTags || !m.Tagged {
				t.Errorf("%s: layers %d tags, want %d; device tagged %v", name, lp.Dot1Q.NTags, wantTags, m.Tagged)
				continue
			}
			for k, tag := range lp.Dot1Q.Tags[:wantTags] {
				if uint16(tag.TPID) != v[k] {
					t.Errorf("%s: layers tag %d TPID %#04x", name, k, uint16(tag.TPID))
				}
			}
			outer := lp.Dot1Q.Tags[0]
			if m.VID != outer.ID || m.PCP != outer.Priority {
				t.Errorf("%s: outer tag: device VID %d PCP %d, layers %d %d", name, m.VID, m.PCP, outer.ID, outer.Priority)
			}
			if m.EtherType != uint16(lp.Dot1Q.Type) || m.L3 != len(frame)-len(lp.Dot1Q.Payload) {
				t.Errorf("%s: behind the tags: device EtherType %#04x at %d, layers %#04x at %d", name, m.EtherType, m.L3,
					uint16(lp.Dot1Q.Type), len(frame)-len(lp.Dot1Q.Payload))
			}
			if m.IP() && (m.DstPort != uint16(lp.UDP.DstPort) || m.Payload != len(frame)-len(lp.UDP.Payload)) {
				t.Errorf("%s: UDP: device port %d payload at %d, layers %d at %d", name, m.DstPort, m.Payload,
					lp.UDP.DstPort, len(frame)-len(lp.UDP.Payload))
			}
		}
	}
	if n < 40 || n9100 < 15 {
		t.Fatalf("%d frames, %d with a 0x9100 tag", n, n9100)
	}
	for et := range 1 << 16 {
		if IsVLANTPID(uint16(et)) != layers.IsVLANTPID(glayers.EthernetType(et)) {
			t.Errorf("EtherType %#04x: device.IsVLANTPID %v, layers'", et, IsVLANTPID(uint16(et)))
		}
	}
}
