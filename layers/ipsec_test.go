// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/opensfc/sfc/internal/tsharktest"
)

// readAH4Frames reads the golden IPv4 AH and ESP frames
// (testdata/ipv4ah/frames.txt, built by hand by gen.py there). device's
// tests read the same file.
func readAH4Frames(t testing.TB) []ext6Frame {
	t.Helper()
	return readFrameTable(t, "testdata/ipv4ah/frames.txt", 12)
}

// TestIPv4AHParser: behind an IPv4 AH the Parser finds the upper layer
// (RoCEv2, BTS, postcard, CIM, with the quote's flow, itself behind an AH
// in one), names the upper-layer protocol, keeps the AH's fields, does
// not check the ICRC (the IPv4 header names AH), stops at ESP with
// WarnEncrypted, never decodes a fragment, and does not allocate. Before,
// the Parser stopped at the AH: "IP proto 51".
func TestIPv4AHParser(t *testing.T) {
	p := NewParser()
	for _, fr := range readAH4Frames(t) {
		t.Run(fr.name, func(t *testing.T) {
			if err := p.Decode(fr.frame); err != nil {
				t.Fatalf("decode: %v (decoded %v)", err, p.Decoded)
			}
			// A fragment is not decoded past IPv4: its protocol is the
			// header's (device.Parse walks the first fragment's AH for
			// the ports, the table's proto).
			want := fr.proto
			if fr.kind == "frag" {
				want = 51
			}
			if proto, ok := p.IPProtocol(); !ok || proto != want {
				t.Errorf("IPProtocol = %d, %v; want %d", proto, ok, want)
			}
			wantAH := fr.name != "esp" && fr.kind != "frag"
			if p.Has(layers.LayerTypeIPSecAH) != wantAH {
				t.Fatalf("AH decoded %v, want %v: %v", p.Has(layers.LayerTypeIPSecAH), wantAH, p.Decoded)
			}
			if wantAH {
				spi, seq, icv := uint32(0x1234), uint32(9), 12
				switch fr.name {
				case "ah-cnp":
					spi, seq = 0xdeadbeef, 0xffffffff
				case "ah-icv16-roce":
					icv = 16
				}
				if p.AH.SPI != spi || p.AH.Seq != seq || len(p.AH.AuthenticationData) != icv || p.AH.Partial ||
					int(p.AH.HeaderLength) != (12+icv)/4-2 || uint8(p.AH.NextHeader) != fr.proto {
					t.Errorf("AH %+v", p.AH)
				}
				if p.IPv4.Protocol != 51 {
					t.Errorf("IPv4 protocol %d", p.IPv4.Protocol)
				}
			}
			checkExt6Upper(t, fr, p.Has, p.UDP.SrcPort, p.UDP.DstPort, &p.BTH, &p.BTS.Flow, &p.Postcard.Flow, &p.CIM)
			if p.Has(LayerTypeBTH) && (p.BTH.ICRCChecked || p.BTH.Warnings.Has(WarnICRC)) {
				t.Errorf("ICRC checked behind an AH: %+v", p.BTH)
			}
			if fr.kind == "esp" {
				if !p.Has(layers.LayerTypeIPSecESP) || p.ESP.SPI != 0x4242 || p.ESP.Seq != 1 || p.ESP.Warnings != WarnEncrypted ||
					p.Decoded[len(p.Decoded)-1] != layers.LayerTypeIPSecESP {
					t.Errorf("ESP %+v, decoded %v", p.ESP, p.Decoded)
				}
			}
			if n := testing.AllocsPerRun(20, func() { _ = p.Decode(fr.frame) }); n != 0 {
				t.Errorf("%v allocations per decode", n)
			}
		})
	}
}

// TestIPv4AHNewPacket: gopacket.NewPacket (gopacket's own IPSecAH decoder)
// finds the same upper layers, and leaves the ICRC unchecked behind an
// AH, as Parser: FuzzPacket compares the two paths' warnings.
func TestIPv4AHNewPacket(t *testing.T) {
	for _, fr := range readAH4Frames(t) {
		t.Run(fr.name, func(t *testing.T) {
			pkt, up := newPacketUpper(t, fr.frame)
			has := func(lt gopacket.LayerType) bool { return pkt.Layer(lt) != nil }
			bth := up.bth
			checkExt6Upper(t, fr, has, up.u.SrcPort, up.u.DstPort, &bth, &up.bts.Flow, &up.pc.Flow, &up.cim)
			if bth.ICRCChecked || bth.Warnings.Has(WarnICRC) {
				t.Errorf("ICRC checked behind an AH: %+v", bth)
			}
		})
	}
}

// TestIPv4AHTshark: tshark 4.0 agrees on the IP protocol (51 for an AH:
// ip.proto is the IPv4 header's), the AH's SPI and sequence number, the
// ESP's SPI, the UDP ports and the RoCEv2 DestQP of every golden frame.
func TestIPv4AHTshark(t *testing.T) {
	bin := tsharktest.Path(t)
	lines := tsharktest.FieldLines(t, bin, "testdata/ipv4ah/frames.pcap",
		[]string{"ip.proto", "ah.spi", "ah.sequence", "esp.spi", "udp.srcport", "udp.dstport", "infiniband.bth.destqp"}, "-n")
	frames := readAH4Frames(t)
	if len(lines) != len(frames) {
		t.Fatalf("tshark: %d lines for %d frames", len(lines), len(frames))
	}
	p := NewParser()
	for i, fr := range frames {
		if err := p.Decode(fr.frame); err != nil {
			t.Fatalf("%s: %v", fr.name, err)
		}
		var ours [7]string
		ours[0] = strconv.Itoa(int(p.IPv4.Protocol))
		if p.Has(layers.LayerTypeIPSecAH) {
			ours[1], ours[2] = fmt.Sprintf("0x%08x", p.AH.SPI), strconv.Itoa(int(p.AH.Seq))
		}
		if p.Has(layers.LayerTypeIPSecESP) {
			ours[3] = fmt.Sprintf("0x%08x", p.ESP.SPI)
		}
		if p.Has(layers.LayerTypeUDP) {
			ours[4], ours[5] = strconv.Itoa(int(p.UDP.SrcPort)), strconv.Itoa(int(p.UDP.DstPort))
		}
		if p.Has(LayerTypeBTH) {
			ours[6] = "0x" + hex.EncodeToString([]byte{byte(p.BTH.DestQP >> 16), byte(p.BTH.DestQP >> 8), byte(p.BTH.DestQP)})
		}
		if got := strings.Join(ours[:], "\t"); got != lines[i] {
			t.Errorf("%s:\n ours   %q\n tshark %q", fr.name, got, lines[i])
		}
	}
}

// TestIPv4AHErrors: an AH cut short keeps the fields it holds whole and
// names the first it lacks; a length under 12 octets or past the packet
// is an error of its own; ESP cut short too. Quotes walk the AH (the flow
// is the protocol behind it, with its ports) and stop at ESP.
func TestIPv4AHErrors(t *testing.T) {
	var roce []byte
	for _, fr := range readAH4Frames(t) {
		if fr.name == "ah-roce" {
			roce = fr.frame
		}
	}
	const ahAt = 14 + 20
	p := NewParser()
	for n := 0; n < 12; n++ {
		frame := roce[: ahAt+n : ahAt+n]
		err := p.Decode(frame)
		var de *DecodeError
		if !errors.As(err, &de) || de.Layer != "ah" && n > 0 || !errors.Is(err, ErrTruncated) {
			t.Errorf("AH cut at %d: %v", n, err)
			continue
		}
		if p.Failed != layers.LayerTypeIPSecAH || p.FailedAt != ahAt || p.FailedLen != n {
			t.Errorf("AH cut at %d: failed %v at %d, %d octets", n, p.Failed, p.FailedAt, p.FailedLen)
		}
		if n == 0 {
			continue // the data ends where the AH should begin: nothing to keep
		}
		want := []string{"", "length", "reserved", "reserved", "spi", "spi", "spi", "spi", "sequence", "sequence", "sequence", "sequence"}[n]
		if de.Field != want || !p.AH.Partial || uint8(p.AH.NextHeader) != 17 || n >= 2 && p.AH.HeaderLength != 4 ||
			n >= 8 && p.AH.SPI != 0x1234 || n < 8 && p.AH.SPI != 0 {
			t.Errorf("AH cut at %d: field %q (want %q), AH %+v", n, de.Field, want, p.AH)
		}
		if proto, _ := p.IPProtocol(); proto != 51 {
			t.Errorf("AH cut at %d: IPProtocol %d", n, proto)
		}
	}
	bad := func(edit func(b []byte)) []byte {
		b := append([]byte(nil), roce...)
		edit(b)
		return b
	}
	for _, tc := range []struct {
		name  string
		frame []byte
		want  error
		field string
	}{
		{"length 0 (8 octets)", bad(func(b []byte) { b[ahAt+1] = 0 }), ErrBadValue, "length"},
		{"length past the packet", bad(func(b []byte) { b[ahAt+1] = 200 }), ErrLength, "icv"},
		{"ICV cut by the capture", roce[: ahAt+20 : ahAt+20], ErrLength, "icv"},
	} {
		err := p.Decode(tc.frame)
		var de *DecodeError
		if !errors.As(err, &de) || !errors.Is(err, tc.want) || de.Layer != "ah" || de.Field != tc.field {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if p.AH.SPI != 0x1234 || p.AH.Seq != 9 || p.AH.AuthenticationData != nil || p.Has(layers.LayerTypeUDP) {
			t.Errorf("%s: AH %+v, decoded %v", tc.name, p.AH, p.Decoded)
		}
	}
	// ESP cut short.
	var esp []byte
	for _, fr := range readAH4Frames(t) {
		if fr.name == "esp" {
			esp = fr.frame
		}
	}
	for n := 1; n < 8; n++ {
		err := p.Decode(esp[: ahAt+n : ahAt+n])
		var de *DecodeError
		if !errors.As(err, &de) || de.Layer != "esp" || !errors.Is(err, ErrTruncated) || !p.ESP.Partial ||
			n >= 4 && p.ESP.SPI != 0x4242 || p.ESP.Warnings != 0 {
			t.Errorf("ESP cut at %d: %v, %+v", n, err, p.ESP)
		}
	}

	// Quotes.
	ip4 := func(proto uint8, rest ...byte) []byte {
		q := make([]byte, 20, 20+len(rest))
		q[0], q[1], q[9] = 0x45, 26<<2, proto
		q[12], q[15], q[16], q[19] = 10, 1, 10, 2
		return append(q, rest...)
	}
	ah := func(nh uint8) []byte {
		return []byte{nh, 4, 0, 0, 0, 0, 0x12, 0x34, 0, 0, 0, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	}
	udpBTH := []byte{0xc0, 0x00, 0x12, 0xb7, 0, 20, 0, 0, 0x0a, 0x40, 0xff, 0xff, 0, 0x00, 0x07, 0x77, 0, 0, 0, 1}
	for _, tc := range []struct {
		name         string
		q            []byte
		err          error
		proto        uint8
		sport, dport uint16
		qp           uint32
	}{
		{"ah udp bth", ip4(51, append(ah(17), udpBTH...)...), nil, 17, 49152, 4791, 0x777},
		{"ah ah udp bth", ip4(51, append(append(ah(51), ah(17)...), udpBTH...)...), nil, 17, 49152, 4791, 0x777},
		{"ah esp", ip4(51, append(ah(50), 0, 0, 0x42, 0x42, 0, 0, 0, 1)...), nil, 50, 0, 0, 0},
		{"ah cut", ip4(51, 17), ErrQuoteTooShort, 51, 0, 0, 0},
		{"udp cut behind ah", ip4(51, append(ah(17), udpBTH[:6]...)...), ErrQuoteTooShort, 17, 0, 0, 0},
	} {
		fl, err := DecodeQuote(tc.q)
		if !errors.Is(err, tc.err) || err == nil && (fl.Proto != tc.proto || fl.SrcPort != tc.sport || fl.DstPort != tc.dport ||
			fl.HasQP != (tc.qp != 0) || fl.QP != tc.qp || fl.DSCP != 26) {
			t.Errorf("%s: %v, %v; want %v proto %d %d > %d qp %#x", tc.name, fl, err, tc.err, tc.proto, tc.sport, tc.dport, tc.qp)
		}
		if a := testing.AllocsPerRun(20, func() { _, _ = DecodeQuote(tc.q) }); a != 0 && tc.err == nil {
			t.Errorf("%s: %v allocations", tc.name, a)
		}
	}
}

// TestParserNoDecoderStops: an IPv4 packet of a protocol the Parser has no
// decoder for still ends decoding silently, and an IPv4 header naming AH
// with nothing behind it is the missing header it is.
func TestParserNoDecoderStops(t *testing.T) {
	var roce []byte
	for _, fr := range readAH4Frames(t) {
		if fr.name == "ah-roce" {
			roce = fr.frame
		}
	}
	p := NewParser()
	gre := append([]byte(nil), roce...)
	gre[14+9] = 47
	if err := p.Decode(gre); err != nil || !slices.Equal(p.Decoded, []gopacket.LayerType{ltEth, layers.LayerTypeIPv4}) {
		t.Errorf("GRE: %v %v", p.Decoded, err)
	}
	empty := append([]byte(nil), roce[:34]...)
	empty[14+2], empty[14+3] = 0, 20 // total length: the header alone
	if err := p.Decode(empty); !errors.Is(err, ErrTruncated) || p.Failed != layers.LayerTypeIPSecAH {
		t.Errorf("AH missing: %v, failed %v", err, p.Failed)
	}
}
