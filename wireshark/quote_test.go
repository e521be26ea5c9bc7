// SPDX-License-Identifier: Apache-2.0

package wireshark

import (
	"bytes"
	"encoding/binary"
	"flag"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/sample"
)

var update = flag.Bool("update", false, "rewrite testdata/quotes.pcapng from quoteCases")

// quotesCapture holds a BTS and a postcard frame for every quoteCases
// entry, in order. Regenerate with
//
//	go test ./wireshark/ -run TestQuotesCapture -update
var quotesCapture = filepath.Join("testdata", "quotes.pcapng")

// Quoted packets, built octet by octet: the IPv4 quotes are 10.0.0.1 >
// 10.0.0.2 with DSCP 26, the IPv6 ones fd00::1 > fd00::2 with DSCP 46.

func quote4(proto uint8, frag uint16, opts int, payload ...[]byte) []byte {
	p := bytes.Join(payload, nil)
	h := make([]byte, 20+4*opts)
	h[0] = 0x45 + uint8(opts)
	h[1] = 26 << 2
	binary.BigEndian.PutUint16(h[2:], uint16(len(h)+len(p)))
	binary.BigEndian.PutUint16(h[4:], 7) // identification
	binary.BigEndian.PutUint16(h[6:], frag)
	h[8], h[9] = 64, proto
	copy(h[12:], []byte{10, 0, 0, 1, 10, 0, 0, 2})
	for i := 20; i < len(h); i++ {
		h[i] = 1 // NOP options
	}
	return append(h, p...)
}

func quote6(nh uint8, payload ...[]byte) []byte {
	p := bytes.Join(payload, nil)
	h := make([]byte, 40)
	binary.BigEndian.PutUint32(h, 6<<28|uint32(46<<2)<<20|0x12345)
	binary.BigEndian.PutUint16(h[4:], uint16(len(p)))
	h[6], h[7] = nh, 64
	s, d := netip.MustParseAddr("fd00::1").As16(), netip.MustParseAddr("fd00::2").As16()
	copy(h[8:], s[:])
	copy(h[24:], d[:])
	return append(h, p...)
}

// ext6 is an IPv6 extension header of (units + 1) * 8 octets (hop-by-hop,
// routing, destination options, mobility...), its options PadN.
func ext6(nh uint8, units int) []byte {
	h := make([]byte, (units+1)*8)
	h[0], h[1] = nh, uint8(units)
	h[2], h[3] = 1, uint8(len(h)-4) // PadN over the rest
	return h
}

// ah is an AH (RFC 4302) with a 12-octet ICV: 24 octets, length field 4.
func ah(nh uint8) []byte {
	h := make([]byte, 24)
	h[0], h[1] = nh, 24/4-2
	binary.BigEndian.PutUint32(h[4:], 0x1234) // SPI
	binary.BigEndian.PutUint32(h[8:], 9)      // sequence
	for i := 12; i < 24; i++ {
		h[i] = 0xaa
	}
	return h
}

// esp is an ESP header (SPI, sequence) and 16 octets of ciphertext.
func esp() []byte {
	return append([]byte{0, 0, 0x42, 0x42, 0, 0, 0, 1}, bytes.Repeat([]byte{0x5c}, 16)...)
}

// frag6 is an IPv6 fragment header: offset in 8-octet units, M flag.
func frag6(nh uint8, offset uint16, more bool) []byte {
	h := []byte{nh, 0, 0, 0, 0, 0, 0x0b, 0xad}
	fo := offset << 3
	if more {
		fo |= 1
	}
	binary.BigEndian.PutUint16(h[2:], fo)
	return h
}

func udp(sport, dport uint16) []byte {
	h := make([]byte, 8)
	binary.BigEndian.PutUint16(h, sport)
	binary.BigEndian.PutUint16(h[2:], dport)
	binary.BigEndian.PutUint16(h[4:], 8+12)
	return h
}

func tcp(sport, dport uint16) []byte {
	h := make([]byte, 20)
	binary.BigEndian.PutUint16(h, sport)
	binary.BigEndian.PutUint16(h[2:], dport)
	h[12], h[13] = 5<<4, 0x02
	return h
}

// bth is a RoCEv2 BTH, RDMA WRITE ONLY to DestQP qp.
func bth(qp uint32) []byte {
	h := []byte{0x0a, 0x40, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 7}
	h[5], h[6], h[7] = byte(qp>>16), byte(qp>>8), byte(qp)
	return h
}

func repeat(n int, f func(i int) []byte) []byte {
	var b []byte
	for i := range n {
		b = append(b, f(i)...)
	}
	return b
}

// quoteCase is a quote a BTS and a postcard carry. ports says whether the
// flow it names has ports in layers.DecodeQuote's sense: false behind ESP
// and for a fragment after the first, where the Flow's ports are 0 and
// the dissector shows none. The Flow itself holds no such bit.
type quoteCase struct {
	name  string
	quote []byte
	ports bool
}

func quoteCases() []quoteCase {
	const roce = layers.RoCEv2Port
	u := udp(49152, roce)
	hbh := func(nh uint8) []byte { return ext6(nh, 0) }
	v4later := uint16(185)    // fragment offset 185 (1480 octets), MF clear
	v4first := uint16(0x2000) // MF set, offset 0
	chain := func(n int, ext func(nh uint8) []byte, next, last uint8) []byte {
		return repeat(n, func(i int) []byte {
			if i == n-1 {
				return ext(last)
			}
			return ext(next)
		})
	}
	return []quoteCase{
		{"IPv4 AH UDP 4791 BTH", quote4(51, 0, 0, ah(17), u, bth(0xabcd)), true},
		{"IPv4 AH AH TCP", quote4(51, 0, 0, ah(51), ah(6), tcp(40000, 80)), true},
		{"IPv4 with options, AH, UDP 4791 BTH", quote4(51, 0, 2, ah(17), u, bth(0x1234)), true},
		{"IPv4 AH UDP cut in the BTH", quote4(51, 0, 0, ah(17), u, bth(0x1234)[:8]), true},
		{"IPv4 AH ESP", quote4(51, 0, 0, ah(50), esp()), false},
		{"IPv4 ESP", quote4(50, 0, 0, esp()), false},
		{"IPv4 ESP, 4 octets of it quoted", quote4(50, 0, 0, esp()[:4]), false},
		{"IPv4 UDP 4791 BTH, fragment after the first", quote4(17, v4later, 0, u, bth(0xabcd)), false},
		{"IPv4 fragment after the first, header only", quote4(17, v4later, 0), false},
		{"IPv4 AH, fragment after the first", quote4(51, 0x2000|v4later, 0, ah(17), u), false},
		{"IPv4 UDP 4791 BTH, first fragment", quote4(17, v4first, 0, u, bth(0x77)), true},
		{"IPv4 10 AH UDP", quote4(51, 0, 0, chain(10, ah, 51, 17), u), true},
		{"IPv6 AH UDP 4791 BTH", quote6(51, ah(17), u, bth(0xabcd)), true},
		{"IPv6 HBH AH UDP 4791 BTH", quote6(0, hbh(51), ah(17), u, bth(0xbeef)), true},
		{"IPv6 DSTOPTS routing AH TCP", quote6(60, ext6(43, 1), ext6(51, 0), ah(6), tcp(40000, 80)), true},
		{"IPv6 ESP", quote6(50, esp()), false},
		{"IPv6 ESP, header only", quote6(50), false},
		{"IPv6 HBH ESP", quote6(0, hbh(50), esp()), false},
		{"IPv6 AH ESP", quote6(51, ah(50), esp()), false},
		{"IPv6 UDP 4791 BTH, fragment after the first", quote6(44, frag6(17, 185, true), u, bth(0xabcd)), false},
		{"IPv6 fragment after the first, cut after it", quote6(0, hbh(44), frag6(17, 185, false)), false},
		{"IPv6 UDP 4791 BTH, first fragment", quote6(44, frag6(17, 0, true), u, bth(0x55)), true},
		{"IPv6 mobility header, UDP", quote6(135, ext6(17, 1), u), true},
		{"IPv6 HIP shim6 experimental, UDP", quote6(139, ext6(140, 0), ext6(253, 0), ext6(17, 0), u, bth(1)), true},
		{"IPv6 10 extension headers, UDP 4791 BTH", quote6(0, chain(10, hbh, 60, 17), u, bth(0x99)), true},
		// Quotes DecodeQuote refuses: no flow.* at all.
		{"IPv6 11 extension headers", quote6(0, chain(11, hbh, 0, 17), u), false},
		{"IPv4 11 AH", quote4(51, 0, 0, chain(11, ah, 51, 17), u), false},
		{"IPv4 AH cut", quote4(51, 0, 0, ah(17)[:1]), false},
		{"IPv6 AH UDP cut", quote6(51, ah(17), u[:4]), false},
		{"IPv6 fragment header cut", quote6(44, frag6(17, 185, false)[:6]), false},
		{"IPv4 AH of 8 octets (length 0)", quote4(51, 0, 0, []byte{17, 0, 0, 0, 0, 0, 0x12, 0x34}, u), false},
		{"IPv6 AH of 8 octets (length 0)", quote6(51, []byte{17, 0, 0, 0, 0, 0, 0x12, 0x34}, u), false},
	}
}

// quoteFrames returns a BTS and a postcard frame for every quote case.
func quoteFrames(t *testing.T) []sample.Frame {
	src, dst := netip.MustParseAddr("10.0.255.1"), netip.MustParseAddr("10.0.0.1")
	var out []sample.Frame
	for _, c := range quoteCases() {
		b, err := sample.UDPFrame(src, dst, 48, 49152, layers.DefaultBTSPort,
			&layers.BTS{Version: 1, Origin: layers.OriginQueue, PauseUS: 20, Reporter: 1, CPPort: 5, CPQueue: 3, QueueDepth: 4096, Quote: c.quote})
		if err != nil {
			t.Fatal(err)
		}
		p, err := sample.UDPFrame(src, dst, 48, 49153, layers.DefaultPostcardPort,
			&layers.Postcard{Version: 1, Port: 5, SwitchID: net.HardwareAddr{2, 0, 0, 0, 0xff, 1}, RateMbps: 100000, Quote: c.quote})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, sample.Frame{Name: "bts: " + c.name, Data: b}, sample.Frame{Name: "postcard: " + c.name, Data: p})
	}
	return out
}

// TestQuotesCapture keeps testdata/quotes.pcapng equal to quoteFrames, and
// checks that sfcdump's decode of each frame names the flow DecodeQuote
// does.
func TestQuotesCapture(t *testing.T) {
	frames := quoteFrames(t)
	var buf bytes.Buffer
	if err := sample.Write(&buf, frames); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(quotesCapture), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(quotesCapture, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(quotesCapture)
	if err != nil {
		t.Fatalf("%v (regenerate with -update)", err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Errorf("%s differs from quoteFrames (regenerate with -update)", quotesCapture)
	}
	p := layers.NewParser()
	for i, c := range quoteCases() {
		want, werr := layers.DecodeQuote(c.quote)
		if werr == nil && !c.ports && (want.SrcPort != 0 || want.DstPort != 0 || want.HasQP) {
			t.Errorf("%s: DecodeQuote gives ports %d > %d (qp %v); the case says it has none", c.name, want.SrcPort, want.DstPort, want.HasQP)
		}
		for j, fr := range frames[2*i : 2*i+2] {
			err := p.Decode(fr.Data)
			if werr != nil {
				if err == nil {
					t.Errorf("%s: DecodeQuote: %v, sfcdump decodes it", fr.Name, werr)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", fr.Name, err)
				continue
			}
			got := p.BTS.Flow
			if j == 1 {
				got = p.Postcard.Flow
			}
			if got != want {
				t.Errorf("%s: sfcdump's flow %v, DecodeQuote's %v", fr.Name, got, want)
			}
		}
	}
}

// quoteFlowFields are the flow fields TestDissectorQuotes compares.
var quoteFlowFields = []string{"flow.src", "flow.dst", "flow.proto", "flow.sport", "flow.dport", "flow.dscp", "flow.qp"}

// TestDissectorQuotes runs tshark with sfc.lua on testdata/quotes.pcapng
// (quotes behind AH and ESP, fragments after the first and the first,
// long IPv6 extension header chains, over IPv4 and IPv6) and checks,
// frame by frame, that the flow fields of the Lua quote walk are those of
// layers.DecodeQuote: protocol, ports and whether there are any, DSCP,
// addresses, QP; and that a quote DecodeQuote refuses has no flow fields
// and an expert info.
func TestDissectorQuotes(t *testing.T) {
	rows := pluginFields(t, tshark(t), quotesCapture, quoteFlowFields)
	cases := quoteCases()
	if len(rows) != 2*len(cases) {
		t.Fatalf("tshark printed %d frames, want %d (regenerate %s with -update?)", len(rows), 2*len(cases), quotesCapture)
	}
	for i, row := range rows {
		c := cases[i/2]
		name := [2]string{"bts", "postcard"}[i%2] + ": " + c.name
		cols := strings.Split(row, "\t")
		if len(cols) != len(quoteFlowFields)+2 {
			t.Fatalf("frame %d: tshark printed %d columns, want %d", i+1, len(cols), len(quoteFlowFields)+2)
		}
		got := cols[2:]
		fl, err := layers.DecodeQuote(c.quote)
		want := make([]string, len(quoteFlowFields))
		if err != nil {
			if cols[1] == "" {
				t.Errorf("frame %d (%s): DecodeQuote: %v; tshark shows no expert info", i+1, name, err)
			}
		} else {
			want[0], want[1] = fl.Src.String(), fl.Dst.String()
			want[2] = strconv.Itoa(int(fl.Proto))
			if c.ports && hasPorts(fl.Proto) {
				want[3], want[4] = strconv.Itoa(int(fl.SrcPort)), strconv.Itoa(int(fl.DstPort))
			}
			want[5] = strconv.Itoa(int(fl.DSCP))
			if fl.HasQP {
				want[6] = strconv.Itoa(int(fl.QP))
			}
		}
		for j, f := range quoteFlowFields {
			if got[j] != want[j] {
				t.Errorf("frame %d (%s) %s: tshark %q, DecodeQuote %q", i+1, name, f, got[j], want[j])
			}
		}
	}
}

// hasPorts is layers' rule: the protocols whose first 4 octets are ports.
func hasPorts(proto uint8) bool {
	switch proto {
	case 6, 17, 33, 132, 136:
		return true
	}
	return false
}
