package layers

import (
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Benchmarks per format through a gopacket.DecodingLayerParser holding
// Ethernet, IPv4, IPv6, UDP and our layers, next to gopacket's own
// Ethernet / Ethernet+IPv4 / Ethernet+IPv4+UDP decode of the same RoCEv2
// frame, so that one run shows what our layer adds and what gopacket's
// IPv4 decode costs. Run:
//
//	go test ./layers/ -run '^$' -bench . -benchtime=200ms

// benchFrames are the frames of the per-format benchmarks.
func benchFrames(b *testing.B) []namedFrame {
	write := roceFrame{bth: BTH{Opcode: OpcodeRCWriteOnly, PKey: 0xffff, DestQP: 0x123, PSN: 1, AckReq: true,
		RETH: RETH{VA: 0x7f0000001000, RKey: 1, DMALen: 1024}}, payload: make([]byte, 1024)}
	ack := roceFrame{v6: true, bth: BTH{Opcode: OpcodeRCAck, PKey: 0xffff, DestQP: 0x123, PSN: 1, AETH: AETH{MSN: 5}}}
	return []namedFrame{
		{"pause", unhex(b, pauseHex), LayerTypePause},
		{"pfc", unhex(b, pfcHex), LayerTypePFC},
		{"roce-write-1k-ipv4", write.build(b, optsFix), LayerTypeBTH},
		{"roce-ack-ipv6", ack.build(b, optsFix), LayerTypeBTH},
		{"cnp-ipv4", unhex(b, cnpV4Hex), LayerTypeBTH},
		{"cnp-ipv6", unhex(b, cnpV6Hex), LayerTypeBTH},
		{"cim-l2", unhex(b, cimL2Hex), LayerTypeCIM},
		{"cim-l3", unhex(b, cimL3Hex), LayerTypeCIM},
		{"bts", unhex(b, btsHex), LayerTypeBTS},
		{"postcard", unhex(b, postcardHex), LayerTypePostcard},
		{"bfc", unhex(b, bfcHex), LayerTypeBFC},
		{"fgcredit", unhex(b, fgCreditHex), LayerTypeFGCredit},
		{"fgpause", unhex(b, fgPauseHex), LayerTypeFGPause},
	}
}

// benchParser is a DecodingLayerParser over Ethernet, IP, UDP and our
// layers (no Dot1Q, no Payload: decoding stops after our layer).
type benchParser struct {
	eth     layers.Ethernet
	ip4     layers.IPv4
	ip6     layers.IPv6
	udp     layers.UDP
	mc      MACControl
	pause   Pause
	pfc     PFC
	bth     BTH
	cim     CIM
	bts     BTS
	pc      Postcard
	fc      FCExp
	bfc     BFC
	fgc     FGCredit
	fgp     FGPause
	dlp     *gopacket.DecodingLayerParser
	decoded []gopacket.LayerType
}

func newBenchParser() *benchParser {
	p := &benchParser{decoded: make([]gopacket.LayerType, 0, 8)}
	p.dlp = gopacket.NewDecodingLayerParser(layers.LayerTypeEthernet, &p.eth, &p.ip4, &p.ip6, &p.udp,
		&p.mc, &p.pause, &p.pfc, &p.bth, &p.cim, &p.bts, &p.pc, &p.fc, &p.bfc, &p.fgc, &p.fgp)
	p.dlp.IgnoreUnsupported = true
	return p
}

func BenchmarkDecode(b *testing.B) {
	for _, f := range benchFrames(b) {
		b.Run(f.name, func(b *testing.B) {
			p := newBenchParser()
			decode := func() {
				if err := p.dlp.DecodeLayers(f.frame, &p.decoded); err != nil || p.decoded[len(p.decoded)-1] != f.lt {
					b.Fatalf("%v %v", err, p.decoded)
				}
			}
			if n := testing.AllocsPerRun(10, decode); n != 0 {
				b.Fatalf("%v allocs per decode", n)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(f.frame)))
			b.ResetTimer()
			for b.Loop() {
				decode()
			}
		})
	}
}

// BenchmarkParser decodes RoCEv2 frames through Parser, which also checks
// the ICRC (a CRC-32 over the whole packet).
func BenchmarkParser(b *testing.B) {
	for _, f := range benchFrames(b) {
		if f.lt != LayerTypeBTH {
			continue
		}
		b.Run(f.name, func(b *testing.B) {
			p := NewParser()
			b.ReportAllocs()
			b.SetBytes(int64(len(f.frame)))
			for b.Loop() {
				if err := p.Decode(f.frame); err != nil || !p.BTH.ICRCOK {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGopacket decodes the RoCEv2 WRITE frame of BenchmarkDecode with
// gopacket's own layers only, stopping after Ethernet, IPv4 and UDP: the
// IPv4 decode costs eth+ipv4 minus eth.
func BenchmarkGopacket(b *testing.B) {
	frame := benchFrames(b)[2].frame
	var (
		eth layers.Ethernet
		ip4 layers.IPv4
		udp layers.UDP
	)
	for _, c := range []struct {
		name string
		ls   []gopacket.DecodingLayer
		n    int
	}{
		{"eth", []gopacket.DecodingLayer{&eth}, 1},
		{"eth+ipv4", []gopacket.DecodingLayer{&eth, &ip4}, 2},
		{"eth+ipv4+udp", []gopacket.DecodingLayer{&eth, &ip4, &udp}, 3},
	} {
		b.Run(c.name, func(b *testing.B) {
			dlp := gopacket.NewDecodingLayerParser(layers.LayerTypeEthernet, c.ls...)
			dlp.IgnoreUnsupported = true
			decoded := make([]gopacket.LayerType, 0, 8)
			b.ReportAllocs()
			b.SetBytes(int64(len(frame)))
			for b.Loop() {
				if err := dlp.DecodeLayers(frame, &decoded); err != nil || len(decoded) != c.n {
					b.Fatal(err, decoded)
				}
			}
		})
	}
}

// BenchmarkNewPacket is gopacket.NewPacket on the same frames, for scale.
func BenchmarkNewPacket(b *testing.B) {
	for _, f := range benchFrames(b)[:3] {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if pkt := gopacket.NewPacket(f.frame, layers.LayerTypeEthernet, gopacket.NoCopy); pkt.Layer(f.lt) == nil {
					b.Fatal(pkt.Layers())
				}
			}
		})
	}
}

// BenchmarkSerialize builds the golden frames with FixLengths and
// ComputeChecksums (for RoCEv2, the ICRC) into a reused buffer.
func BenchmarkSerialize(b *testing.B) {
	buf := gopacket.NewSerializeBuffer()
	for _, c := range goldenCases() {
		if c.build == nil {
			continue
		}
		b.Run(c.name, func(b *testing.B) {
			t := &testing.T{}
			ls := c.build(t)
			b.ReportAllocs()
			for b.Loop() {
				if err := gopacket.SerializeLayers(buf, optsFix, ls...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("roce-write-1k-ipv4", func(b *testing.B) {
		r := roceFrame{bth: BTH{Opcode: OpcodeRCWriteOnly, RETH: RETH{DMALen: 1024}}, payload: make([]byte, 1024)}
		eth, ip, udp, bth := r.layers()
		pl := gopacket.Payload(r.payload)
		b.ReportAllocs()
		for b.Loop() {
			if err := gopacket.SerializeLayers(buf, optsFix, eth, ip, udp, bth, pl); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLayer calls DecodeFromBytes of one layer on its own bytes, ours
// and gopacket's IPv4 and UDP, without a parser around them: the cleanest
// comparison of one layer's cost.
func BenchmarkLayer(b *testing.B) {
	write := benchFrames(b)[2].frame
	cases := []struct {
		name string
		l    gopacket.DecodingLayer
		data []byte
	}{
		{"gopacket-ipv4", &layers.IPv4{}, write[14:]},
		{"gopacket-udp", &layers.UDP{}, write[14+20:]},
		{"pause", &Pause{}, pauseBody(b)},
		{"pfc", &PFC{}, pfcBody(b)},
		{"bth-write-1k", &BTH{}, write[14+20+8:]},
		{"bth-cnp", &BTH{}, cnpBody(b)},
		{"cim", &CIM{}, cimBody(b)},
		{"bts", &BTS{}, btsBody(b)},
		{"postcard", &Postcard{}, postcardBody(b)},
		{"bfc", &BFC{}, bfcBody(b)},
		{"fgcredit", &FGCredit{}, fgCreditBody(b)},
		{"fgpause", &FGPause{}, fgPauseBody(b)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.l.DecodeFromBytes(c.data, gopacket.NilDecodeFeedback); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkICRC computes the ICRC of the CNP vectors and of a 1 KB WRITE.
func BenchmarkICRC(b *testing.B) {
	for _, f := range benchFrames(b) {
		if f.lt != LayerTypeBTH {
			continue
		}
		b.Run(f.name, func(b *testing.B) {
			pkt := f.frame[14:]
			b.SetBytes(int64(len(pkt)))
			for b.Loop() {
				if _, err := ComputeICRC(pkt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
