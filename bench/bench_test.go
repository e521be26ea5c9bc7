// SPDX-License-Identifier: Apache-2.0

package bench

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	glayers "github.com/gopacket/gopacket/layers"

	"github.com/opensfc/sfc/bts"
	"github.com/opensfc/sfc/cim"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/filter"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/pfc"
	"github.com/opensfc/sfc/sample"
	"github.com/opensfc/sfc/stats"
)

// dlp is a gopacket.DecodingLayerParser over Ethernet, 802.1Q, IPv4, IPv6,
// UDP (this project's, with the flat port table) and every layer of
// package layers, as an application would build one.
type dlp struct {
	eth     glayers.Ethernet
	dot1q   glayers.Dot1Q
	ip4     glayers.IPv4
	ip6     glayers.IPv6
	udp     layers.UDP
	mc      layers.MACControl
	pause   layers.Pause
	pfc     layers.PFC
	bth     layers.BTH
	cim     layers.CIM
	bts     layers.BTS
	pc      layers.Postcard
	fc      layers.FCExp
	bfc     layers.BFC
	fgc     layers.FGCredit
	fgp     layers.FGPause
	pl      gopacket.Payload
	p       *gopacket.DecodingLayerParser
	decoded []gopacket.LayerType
}

func newDLP() *dlp {
	d := &dlp{decoded: make([]gopacket.LayerType, 0, 16)}
	d.p = gopacket.NewDecodingLayerParser(glayers.LayerTypeEthernet, &d.eth, &d.dot1q, &d.ip4, &d.ip6, &d.udp,
		&d.mc, &d.pause, &d.pfc, &d.bth, &d.cim, &d.bts, &d.pc, &d.fc, &d.bfc, &d.fgc, &d.fgp, &d.pl)
	d.p.IgnoreUnsupported = true
	return d
}

// frames are the sample capture's frames: one of every format.
func frames() []sample.Frame { return sample.Frames() }

// shortName names a sample frame in a benchmark: its format and IP version.
func shortName(f sample.Frame) string {
	p := layers.NewParser()
	_ = p.Decode(f.Data)
	top := p.Decoded[len(p.Decoded)-1]
	if top == gopacket.LayerTypePayload && len(p.Decoded) > 1 {
		top = p.Decoded[len(p.Decoded)-2]
	}
	name := top.String()
	if top == layers.LayerTypeBTH {
		name = dissect.OpcodeName(p.BTH.Opcode)
	}
	switch {
	case p.Has(glayers.LayerTypeIPv4):
		name += "/v4"
	case p.Has(glayers.LayerTypeIPv6):
		name += "/v6"
	default:
		name += "/l2"
	}
	b := []byte(name)
	for i, c := range b {
		if c == ' ' {
			b[i] = '-'
		}
	}
	return string(b)
}

// TestDecodeAllocs: decoding a frame of any format through a
// DecodingLayerParser or a layers.Parser allocates nothing. (A malformed
// frame's error allocates its message.)
func TestDecodeAllocs(t *testing.T) {
	d, p := newDLP(), layers.NewParser()
	for _, f := range frames() {
		if n := testing.AllocsPerRun(50, func() { _ = d.p.DecodeLayers(f.Data, &d.decoded) }); n != 0 {
			t.Errorf("%s: DecodingLayerParser: %v allocations", f.Name, n)
		}
		if n := testing.AllocsPerRun(50, func() { _ = p.Decode(f.Data) }); n != 0 {
			t.Errorf("%s: Parser: %v allocations", f.Name, n)
		}
	}
}

// BenchmarkDecode decodes each format through a DecodingLayerParser
// (dlp), a layers.Parser (parser: the same plus the ICRC and destination
// checks) and gopacket.NewPacket (newpacket, for scale), and gopacket's
// own Ethernet, Ethernet+IPv4 and Ethernet+IPv4+UDP on the IPv4 RoCEv2
// WRITE frame (gopacket/...): our layer's share is dlp minus gopacket's
// eth+ipv4+udp for the same frame.
func BenchmarkDecode(b *testing.B) {
	write := frames()[2].Data
	for _, c := range []struct {
		name string
		ls   func() []gopacket.DecodingLayer
	}{
		{"eth", func() []gopacket.DecodingLayer { return []gopacket.DecodingLayer{&glayers.Ethernet{}} }},
		{"eth+ipv4", func() []gopacket.DecodingLayer { return []gopacket.DecodingLayer{&glayers.Ethernet{}, &glayers.IPv4{}} }},
		{"eth+ipv4+udp", func() []gopacket.DecodingLayer {
			return []gopacket.DecodingLayer{&glayers.Ethernet{}, &glayers.IPv4{}, &glayers.UDP{}}
		}},
	} {
		b.Run("gopacket/"+c.name, func(b *testing.B) {
			p := gopacket.NewDecodingLayerParser(glayers.LayerTypeEthernet, c.ls()...)
			p.IgnoreUnsupported = true
			dec := make([]gopacket.LayerType, 0, 8)
			loopMin(b, func() { _ = p.DecodeLayers(write, &dec) })
		})
	}
	for i, f := range frames() {
		name := fmt.Sprintf("%02d-%s", i+1, shortName(f))
		b.Run(name+"/dlp", func(b *testing.B) {
			d := newDLP()
			loopMin(b, func() { _ = d.p.DecodeLayers(f.Data, &d.decoded) })
		})
		b.Run(name+"/parser", func(b *testing.B) {
			p := layers.NewParser()
			loopMin(b, func() { _ = p.Decode(f.Data) })
		})
		b.Run(name+"/newpacket", func(b *testing.B) {
			loopMin(b, func() {
				pkt := gopacket.NewPacket(f.Data, glayers.LayerTypeEthernet, gopacket.NoCopy)
				_ = pkt.Layers()
			})
		})
	}
}

// decodedFrames decodes the sample capture, one Parser per frame.
func decodedFrames() []*dissect.Frame {
	var out []*dissect.Frame
	for i, sf := range frames() {
		p := layers.NewParser()
		f := &dissect.Frame{Number: i + 1, Time: sample.Start.Add(time.Duration(i) * time.Microsecond),
			Interface: sf.Interface, Len: len(sf.Data), CapLen: len(sf.Data), P: p, LinkBPS: 100e9}
		f.Err = p.Decode(sf.Data)
		out = append(out, f)
	}
	return out
}

// BenchmarkFilter evaluates display filters over the 21 decoded sample
// frames; ns/op is per frame.
func BenchmarkFilter(b *testing.B) {
	fs := decodedFrames()
	for _, c := range []struct{ name, expr string }{
		{"proto", "pfc"},
		{"field", "bth.destqp == 0xd2"},
		{"or", "bth.destqp == 0x12 || pfc.c3"},
		{"and-prefix", "bts.pause_us > 10 && flow.src == 10.0.0.0/8"},
		{"mixed", "bts.pause_us > 10 && flow.src == 10.0.0.0/8 || bth.destqp == 0xd2 || !(udp || eth.type == 0x8808)"},
	} {
		b.Run(c.name, func(b *testing.B) {
			flt := filter.MustCompile(c.expr)
			loopMinPer(b, len(fs), func() {
				for _, f := range fs {
					flt.Match(f)
				}
			})
		})
	}
}

// BenchmarkRender renders the 21 decoded sample frames as sfcdump does:
// the one-line summary, JSON, two fields, the verbose tree; ns/op is per
// frame.
func BenchmarkRender(b *testing.B) {
	fs := decodedFrames()
	var cfs []*dissect.Frame
	for _, f := range fs {
		if common(f) {
			cfs = append(cfs, f)
		}
	}
	qp, _ := dissect.LookupField("bth.destqp")
	num, _ := dissect.LookupField("frame.number")
	var e dissect.Encoder
	buf := make([]byte, 0, 1<<16)
	json := func(f *dissect.Frame) { buf = e.AppendJSON(buf[:0], f) }
	for _, c := range []struct {
		name string
		fs   []*dissect.Frame
		fn   func(f *dissect.Frame)
	}{
		{"summary", fs, func(f *dissect.Frame) { buf = dissect.AppendSummary(buf[:0], f) }},
		{"json", fs, json},
		// -T json of the frames of bench/gen's mix (RoCEv2 WRITE, CNP,
		// PFC) and the other IPv4 RoCEv2 ones: protocols with straight
		// JSON writers. Per frame of that set.
		{"json-common", cfs, json},
		{"fields", fs, func(f *dissect.Frame) { buf = e.AppendFields(buf[:0], f, []*dissect.Field{num, qp}) }},
		{"tree", fs, func(f *dissect.Frame) { buf = e.AppendTree(buf[:0], f) }},
		{"presence", fs, func(f *dissect.Frame) { _ = dissect.PresenceOf(f) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			loopMinPer(b, len(c.fs), func() {
				for _, f := range c.fs {
					c.fn(f)
				}
			})
		})
	}
}

// common reports whether f holds only Ethernet, IP, UDP, RoCEv2 and PFC
// (frames of bench/gen's mix).
func common(f *dissect.Frame) bool {
	return f.P.Has(glayers.LayerTypeEthernet) && !f.P.Has(glayers.LayerTypeIPv6) &&
		(f.P.Has(layers.LayerTypeBTH) && !f.P.Has(layers.LayerTypeBTS) && !f.P.Has(layers.LayerTypePostcard) && !f.P.Has(layers.LayerTypeCIM) || f.P.Has(layers.LayerTypePFC))
}

// BenchmarkStats adds the 21 decoded sample frames to a stats.Collector;
// ns/op is per frame.
func BenchmarkStats(b *testing.B) {
	fs := decodedFrames()
	c := stats.New()
	loopMinPer(b, len(fs), func() {
		for _, f := range fs {
			c.Add(f, "port0")
		}
	})
}

// incast is a 63-to-1 incast into one 100 Gb/s port of a switch running
// scheme: 63 senders offer
// 1,078-octet frames at line rate each; a sender stops while a pause it
// was sent (told by pausedFor) is in force, 2 µs after it left. One op =
// one frame through the switch; frame-events/s counts arrivals and
// departures.
func incast(b *testing.B, scheme device.Scheme, pausedFor func(o device.Out) (int64, bool)) {
	const n = 63
	ports := make([]device.PortConfig, 0, n+1)
	fr := make([][]byte, n)
	recv := netip.MustParseAddr("10.2.0.1")
	for i := 0; i < n; i++ {
		a := netip.AddrFrom4([4]byte{10, 1, 0, byte(i)})
		ports = append(ports, device.PortConfig{ID: i, Speed: 100 * device.Gbps, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(a, 32)}})
		fr[i], _ = device.BuildUDP(nil, device.UDPSpec{Src: a, Dst: recv, DSCP: 26, SrcPort: uint16(1000 + i), DstPort: 4791, Len: 1078})
	}
	ports = append(ports, device.PortConfig{ID: n, Speed: 100 * device.Gbps, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(recv, 32)}})
	d, err := device.NewSwitch(device.Config{Name: "tor", Ports: ports})
	if err != nil {
		b.Fatal(err)
	}
	if scheme != nil {
		if err := d.Attach(scheme); err != nil {
			b.Fatal(err)
		}
	}
	const feedback = 2 * device.Microsecond
	var pauseStart, pauseEnd [n]int64
	var outs int64
	d.OnOutput(func(o device.Out) {
		outs++
		if o.Port < n && pausedFor != nil {
			if dur, ok := pausedFor(o); ok {
				pauseStart[o.Port] = o.Time + feedback
				pauseEnd[o.Port] = o.Time + feedback + dur
			}
		}
	})
	b.ReportAllocs()
	b.ResetTimer()
	in := 0
	var t int64
	for in < b.N {
		for s := 0; s < n && in < b.N; s++ {
			if t < pauseStart[s] || t >= pauseEnd[s] {
				if err := d.Input(s, t, fr[s]); err != nil {
					b.Fatal(err)
				}
				in++
			}
		}
		t += 89
	}
	d.Flush()
	b.StopTimer()
	b.ReportMetric((float64(in)+float64(outs))/b.Elapsed().Seconds(), "frame-events/s")
}

// forward measures the device core alone: port 0 offers 1,078-octet
// frames at line rate to a host behind port 1, no congestion, no scheme.
// One op = one frame in and out.
func forward(b *testing.B) {
	a, dst := netip.MustParseAddr("10.1.0.1"), netip.MustParseAddr("10.2.0.1")
	d, err := device.NewSwitch(device.Config{Name: "tor", Ports: []device.PortConfig{
		{ID: 0, Speed: 100 * device.Gbps, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(a, 32)}},
		{ID: 1, Speed: 100 * device.Gbps, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(dst, 32)}},
	}})
	if err != nil {
		b.Fatal(err)
	}
	fr, _ := device.BuildUDP(nil, device.UDPSpec{Src: a, Dst: dst, DSCP: 26, SrcPort: 1000, DstPort: 4791, Len: 1078})
	var outs int64
	d.OnOutput(func(device.Out) { outs++ })
	b.ReportAllocs()
	b.ResetTimer()
	var t int64
	for i := 0; i < b.N; i++ {
		if err := d.Input(0, t, fr); err != nil {
			b.Fatal(err)
		}
		t += 89
	}
	d.Flush()
	b.StopTimer()
	b.ReportMetric((float64(b.N)+float64(outs))/b.Elapsed().Seconds(), "frame-events/s")
}

// BenchmarkModel runs the models without a benchmark of their own: the
// device core forwarding at line rate, and under the 63-to-1 incast the
// PFC switch (senders obey XOFF) and the SFC switch signalling with CIMs
// (senders obey the CIM's pause). bts, bfc, floodgate and postcard have
// their own BenchmarkSwitch* (see gobench.sh).
func BenchmarkModel(b *testing.B) {
	b.Run("device-core", forward)
	b.Run("pfc", func(b *testing.B) {
		incast(b, pfc.NewSwitch(pfc.Params{}), func(o device.Out) (int64, bool) {
			en, times, err := pfc.Decode(o.Frame)
			if err != nil || en == 0 {
				return 0, false
			}
			var q uint16
			for p := 0; p < 8; p++ {
				if en&(1<<p) != 0 {
					q = max(q, times[p])
				}
			}
			return pfc.QuantaToNs(q, 100*device.Gbps), true
		})
	})
	b.Run("cim", func(b *testing.B) {
		incast(b, cim.NewSwitch(bts.Params{Cache: true}, cim.Options{}), func(o device.Out) (int64, bool) {
			s, err := cim.ToSignal(o.Frame, layers.DefaultCIMPort)
			if err != nil {
				return 0, false
			}
			return s.PauseNs(), true
		})
	})
}

// loopMin runs f in blocks of 64 calls for as long as the benchmark runs
// and reports the fastest block's time per call as ns/op, and allocs/call
// (testing.AllocsPerRun, per call).
func loopMin(b *testing.B, f func()) { loopMinPer(b, 1, f) }

// loopMinPer is loopMin for an f that handles per items: ns/op is per item.
func loopMinPer(b *testing.B, per int, f func()) {
	const block = 64
	best := time.Hour
	allocs := testing.AllocsPerRun(20, f)
	for b.Loop() {
		t0 := time.Now()
		for i := 0; i < block; i++ {
			f()
		}
		best = min(best, time.Since(t0))
	}
	b.ReportMetric(float64(best.Nanoseconds())/block/float64(per), "ns/op")
	b.ReportMetric(allocs/float64(per), "allocs/call")
}
