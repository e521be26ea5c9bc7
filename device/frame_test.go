// SPDX-License-Identifier: Apache-2.0

package device

import (
	"bufio"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	glayers "github.com/gopacket/gopacket/layers"

	"github.com/opensfc/sfc/layers"
)

// TestParseIPv6ExtTable runs one table of frames, layers' scapy-built
// IPv6 extension-header goldens (layers/testdata/ipv6ext/frames.txt),
// through the core's classifier (Parse) and through layers.Parser, and
// checks that both find the same upper-layer protocol, ports, RoCEv2 QP
// and signal behind every chain, and that neither treats a fragment or ESP
// as RoCEv2 or a signal: a header format change must reach both.
func TestParseIPv6ExtTable(t *testing.T) {
	f, err := os.Open("../layers/testdata/ipv6ext/frames.txt")
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
		if m.IPVersion != 6 || int(m.Proto) != proto {
			t.Errorf("%s: Parse: IPv%d proto %d, want 6, %d", name, m.IPVersion, m.Proto, proto)
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
	if n < 18 {
		t.Fatalf("%d frames", n)
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
