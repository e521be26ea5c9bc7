// SPDX-License-Identifier: Apache-2.0

package device

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/netip"
	"slices"
	"sort"
	"testing"
)

var (
	ipA = netip.MustParseAddr("10.0.0.1")
	ipB = netip.MustParseAddr("10.0.1.1")
	ipC = netip.MustParseAddr("10.0.2.1")
)

func frame(t testing.TB, src, dst netip.Addr, dscp uint8, n int) []byte {
	t.Helper()
	b, err := BuildUDP(nil, UDPSpec{Src: src, Dst: dst, DSCP: dscp, SrcPort: 1000, DstPort: 2000, Len: n})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func threePort(t testing.TB, cfg Config) *Device {
	t.Helper()
	cfg.Ports = []PortConfig{
		{ID: 0, Speed: 100 * Gbps, ServerFacing: true, Prefixes: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/24")}},
		{ID: 1, Speed: 100 * Gbps, ServerFacing: true, Prefixes: []netip.Prefix{netip.MustParsePrefix("10.0.1.0/24")}},
		{ID: 2, Speed: 100 * Gbps, Prefixes: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}},
	}
	d, err := NewSwitch(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestTxTime(t *testing.T) {
	cases := []struct {
		n    int
		bps  int64
		want int64
		fs   int64
	}{
		{1078, 100 * Gbps, 89, 88_160_000},
		{60, 100 * Gbps, 7, 6_720_000},
		{10, 100 * Gbps, 7, 6_720_000}, // padded to 60
		{1078, 25 * Gbps, 353, 352_640_000},
		{1078, 400 * Gbps, 23, 22_040_000},
		{1078, 800 * Gbps, 12, 11_020_000},
		{1500, 10 * Gbps, 1220, 1_219_200_000},
	}
	for _, c := range cases {
		if got := TxTime(c.n, c.bps); got != c.want {
			t.Errorf("TxTime(%d, %d) = %d, want %d", c.n, c.bps, got, c.want)
		}
		if got := txFs(c.n, c.bps); got != c.fs {
			t.Errorf("txFs(%d, %d) = %d, want %d", c.n, c.bps, got, c.fs)
		}
	}
	if got := BytesTime(250_000, 100*Gbps); got != 20_000 {
		t.Errorf("BytesTime = %d", got)
	}
}

func TestParseUnits(t *testing.T) {
	cases := []struct {
		f    func(string) (int64, error)
		in   string
		want int64
		bad  bool
	}{
		{ParseBytes, "125KB", 125_000, false},
		{ParseBytes, "64KiB", 65536, false},
		{ParseBytes, "1500", 1500, false},
		{ParseBytes, "1.5MB", 1_500_000, false},
		{ParseBytes, "12 parsecs", 0, true},
		{ParseBytes, "", 0, true},
		{ParseDuration, "5us", 5000, false},
		{ParseDuration, "88ns", 88, false},
		{ParseDuration, "1.5ms", 1_500_000, false},
		{ParseDuration, "5 fortnights", 0, true},
		{ParseDuration, "0", 0, false}, // a bare 0 needs no unit
		{ParseDuration, " 0 ", 0, false},
		{ParseDuration, "0ns", 0, false},
		{ParseDuration, "5", 0, true}, // any other number does
		{ParseDuration, "0.5", 0, true},
		{ParseRate, "100Gbps", 100 * Gbps, false},
		{ParseRate, "25G", 25 * Gbps, false},
		{ParseRate, "400Gb/s", 400 * Gbps, false},
		{ParseRate, "fast", 0, true},
	}
	for _, c := range cases {
		got, err := c.f(c.in)
		if c.bad {
			if !errors.Is(err, ErrUnit) {
				t.Errorf("%q: err %v, want ErrUnit", c.in, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}

func TestParse(t *testing.T) {
	cp := Codepoints{}.WithDefaults()
	v6a, v6b := netip.MustParseAddr("fd00::1"), netip.MustParseAddr("fd00::2")
	mk := func(s UDPSpec) []byte {
		b, err := BuildUDP(nil, s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	pfc := make([]byte, 60)
	copy(pfc[12:], []byte{0x88, 0x08, 0x01, 0x01})
	pause := make([]byte, 60)
	copy(pause[12:], []byte{0x88, 0x08, 0x00, 0x01})
	cases := []struct {
		name string
		b    []byte
		kind Kind
		dscp uint8
	}{
		{"v4 data", mk(UDPSpec{Src: ipA, Dst: ipB, DSCP: 26, SrcPort: 1, DstPort: 2}), KindData, 26},
		{"v6 data", mk(UDPSpec{Src: v6a, Dst: v6b, DSCP: 46, SrcPort: 1, DstPort: 2}), KindData, 46},
		{"tagged", mk(UDPSpec{Tagged: true, VID: 7, Src: ipA, Dst: ipB, DSCP: 8, SrcPort: 1, DstPort: 2}), KindData, 8},
		{"bts", mk(UDPSpec{Src: ipA, Dst: ipB, DSCP: 48, SrcPort: 1, DstPort: 1021}), KindBTS, 48},
		{"cim", mk(UDPSpec{Src: ipA, Dst: ipB, SrcPort: 1, DstPort: 35234}), KindCIM, 0},
		{"postcard", mk(UDPSpec{Src: ipA, Dst: ipB, SrcPort: 1, DstPort: 1022}), KindPostcard, 0},
		{"pfc", pfc, KindPFC, 0},
		{"pause", pause, KindPause, 0},
		{"short", []byte{1, 2, 3}, KindMalformed, 0},
		{"cut ipv4", mk(UDPSpec{Src: ipA, Dst: ipB, SrcPort: 1, DstPort: 2})[:20], KindMalformed, 0},
		{"arp", append(make([]byte, 12), 0x08, 0x06, 0, 0), KindOther, 0},
	}
	for _, c := range cases {
		var m Meta
		Parse(c.b, &m, &cp)
		if m.Kind != c.kind || m.DSCP != c.dscp {
			t.Errorf("%s: kind %v dscp %d, want %v %d", c.name, m.Kind, m.DSCP, c.kind, c.dscp)
		}
	}
	var m Meta
	Parse(mk(UDPSpec{Tagged: true, VID: 7, PCP: 3, Src: ipA, Dst: ipB, SrcPort: 1, DstPort: 2}), &m, &cp)
	if !m.Tagged || m.VID != 7 || m.PCP != 3 || m.SrcPort != 1 || m.DstPort != 2 || m.Dst != ipB {
		t.Errorf("tagged meta %+v", m)
	}
	// RoCEv2 DestQP.
	bth := make([]byte, 12)
	bth[5], bth[6], bth[7] = 0x12, 0x34, 0x56
	Parse(mk(UDPSpec{Src: ipA, Dst: ipB, SrcPort: 5, DstPort: 4791, Payload: bth}), &m, &cp)
	if !m.HasQP || m.QP != 0x123456 || m.Kind != KindData {
		t.Errorf("roce meta %+v", m)
	}
}

func TestConfigErrors(t *testing.T) {
	good := PortConfig{ID: 0, Speed: 100 * Gbps}
	cases := []struct {
		name string
		cfg  Config
	}{
		{"no ports", Config{}},
		{"slow port", Config{Ports: []PortConfig{{ID: 0, Speed: 10}}}},
		{"dup id", Config{Ports: []PortConfig{good, good}}},
		{"negative id", Config{Ports: []PortConfig{{ID: -1, Speed: Gbps}}}},
		{"few queues", Config{Ports: []PortConfig{{ID: 0, Speed: Gbps, Queues: 4}}}},
		{"control class", Config{Ports: []PortConfig{good}, ControlClass: 9}},
		{"dscp map", Config{Ports: []PortConfig{good}, DSCPClass: []uint8{1}}},
		{"dt without buffer", Config{Ports: []PortConfig{good}, DynamicThreshold: true}},
		{"alpha", Config{Ports: []PortConfig{good}, Buffer: 1000, DynamicThreshold: true, Alpha: 1000}},
		{"buffer", Config{Ports: []PortConfig{good}, Buffer: -1}},
	}
	for _, c := range cases {
		_, err := NewSwitch(c.cfg)
		var pe *ParamError
		if !errors.Is(err, ErrParam) || !errors.As(err, &pe) || pe.Name == "" || pe.Allowed == "" {
			t.Errorf("%s: err %v, want a ParamError", c.name, err)
		}
	}
	if _, err := NewNIC(Config{Ports: []PortConfig{good, {ID: 1, Speed: Gbps}}}); !errors.Is(err, ErrParam) {
		t.Errorf("nic with 2 ports: %v", err)
	}
}

func TestInputErrors(t *testing.T) {
	d := threePort(t, Config{})
	if err := d.Input(9, 0, frame(t, ipA, ipB, 0, 100)); !errors.Is(err, ErrPort) {
		t.Errorf("bad port: %v", err)
	}
	if err := d.Input(0, 100, frame(t, ipA, ipB, 0, 100)); err != nil {
		t.Fatal(err)
	}
	if err := d.Input(0, 50, frame(t, ipA, ipB, 0, 100)); !errors.Is(err, ErrTimeOrder) {
		t.Errorf("time order: %v", err)
	}
	// Malformed and unroutable frames are counted, not errors.
	if err := d.Input(0, 100, []byte{1, 2}); err != nil {
		t.Error(err)
	}
	if err := d.Input(0, 100, frame(t, ipA, netip.MustParseAddr("192.168.0.1"), 0, 100)); err != nil {
		t.Error(err)
	}
	d.Flush()
	r := d.Record()
	if r.Dropped("malformed") != 1 || r.Dropped("no route") != 1 {
		t.Errorf("drops %+v", r.Drops)
	}
}

// TestForwardTiming: back-to-back 1,078-octet frames at 100 Gb/s leave
// every 88.16 ns without accumulating rounding; the queue depth counts a
// frame until its last bit has left.
func TestForwardTiming(t *testing.T) {
	d := threePort(t, Config{Trace: Trace{Depth: true}})
	var outs []Out
	d.OnOutput(func(o Out) { outs = append(outs, Out{Port: o.Port, Time: o.Time}) })
	f := frame(t, ipA, ipB, 0, 1078)
	for i := 0; i < 100; i++ {
		if err := d.Input(0, 0, f); err != nil {
			t.Fatal(err)
		}
	}
	if got := d.Depth(1, 0); got != 100*1078 {
		t.Fatalf("depth after enqueue %d", got)
	}
	d.AdvanceTo(88)
	if got := d.Depth(1, 0); got != 100*1078 {
		t.Errorf("depth at 88 ns = %d, first frame not yet out", got)
	}
	d.AdvanceTo(89)
	if got := d.Depth(1, 0); got != 99*1078 {
		t.Errorf("depth at 89 ns = %d", got)
	}
	d.Flush()
	if len(outs) != 100 {
		t.Fatalf("%d outputs", len(outs))
	}
	for i, o := range outs {
		want := (int64(i)*88_160_000 + 999_999) / 1_000_000
		if o.Port != 1 || o.Time != want {
			t.Fatalf("out %d: port %d t %d, want t %d", i, o.Port, o.Time, want)
		}
	}
	if d.Now() != 8816 {
		t.Errorf("flush ended at %d, want 8816", d.Now())
	}
	r := d.Record()
	if q := r.Queue(1, 0); q.Peak != 107800 || q.Depth != 0 || q.EnqFrames != 100 {
		t.Errorf("queue record %+v", q)
	}
}

func TestStrictControlClass(t *testing.T) {
	d := threePort(t, Config{})
	var kinds []Kind
	d.OnOutput(func(o Out) { kinds = append(kinds, o.Kind) })
	for i := 0; i < 3; i++ {
		_ = d.Input(0, 0, frame(t, ipA, ipB, 0, 1000))
	}
	bts, _ := BuildUDP(nil, UDPSpec{Src: ipB, Dst: ipA, DSCP: 48, SrcPort: 1, DstPort: 1021, Len: 80})
	if err := d.Send(1, bts); err != nil {
		t.Fatal(err)
	}
	d.Flush()
	want := []Kind{KindData, KindBTS, KindData, KindData}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("order %v, want %v", kinds, want)
		}
	}
	if d.Record().SignalsSent(KindBTS) != 1 {
		t.Error("signal not counted")
	}
}

func TestSharedBuffer(t *testing.T) {
	d := threePort(t, Config{Buffer: 10_000, DynamicThreshold: true, Alpha: 1})
	for i := 0; i < 20; i++ {
		_ = d.Input(0, 0, frame(t, ipA, ipB, 0, 1000))
	}
	// α = 1: one queue alone may reach half the buffer: q + n <= free.
	if got := d.Depth(1, 0); got != 5000 {
		t.Errorf("depth %d, want 5000", got)
	}
	d.Flush()
	if n := d.Record().Dropped("dynamic threshold"); n != 15 {
		t.Errorf("dropped %d", n)
	}
	d2 := threePort(t, Config{Buffer: 3000})
	for i := 0; i < 5; i++ {
		_ = d2.Input(0, 0, frame(t, ipA, ipB, 0, 1000))
	}
	if n := d2.Record().Dropped("buffer full"); n != 2 {
		t.Errorf("buffer full drops %d", n)
	}
}

func TestPauseClass(t *testing.T) {
	d := threePort(t, Config{Trace: Trace{Pauses: true}})
	var times []int64
	d.OnOutput(func(o Out) { times = append(times, o.Time) })
	d.PauseClass(1, 0, 1000, "test")
	_ = d.Input(0, 10, frame(t, ipA, ipB, 0, 1000))
	_ = d.Input(0, 20, frame(t, ipA, ipB, 8, 1000)) // class 1: not paused
	d.Flush()
	if len(times) != 2 || times[0] != 20 || times[1] != 1000 {
		t.Errorf("times %v, want [20 1000]", times)
	}
	r := d.Record()
	if len(r.Pauses) != 1 || r.Pauses[0].Start != 0 || r.Pauses[0].End != 1000 {
		t.Errorf("pauses %+v", r.Pauses)
	}
}

type counter struct {
	NopScheme
	ingress, enq, deq, dep, timers int
}

func (c *counter) OnIngress(d *Device, p *Packet) Verdict {
	c.ingress++
	if p.Meta.DSCP == 1 {
		p.DropReason = "dscp 1"
		return Drop
	}
	if c.ingress == 1 {
		d.After(500, c, 7, 0)
	}
	return Pass
}
func (c *counter) OnEnqueue(*Device, *Packet) Verdict { c.enq++; return Pass }
func (c *counter) OnDequeue(*Device, *Packet)         { c.deq++ }
func (c *counter) OnDepart(*Device, *Packet)          { c.dep++ }
func (c *counter) OnTimer(d *Device, id int, _ int64) {
	if id == 7 && d.Now() == 500 {
		c.timers++
	}
}

func TestSchemeHooks(t *testing.T) {
	d := threePort(t, Config{})
	c := &counter{}
	if err := d.Attach(c); err != nil {
		t.Fatal(err)
	}
	_ = d.Input(0, 0, frame(t, ipA, ipB, 0, 100))
	_ = d.Input(0, 0, frame(t, ipA, ipB, 1, 100))
	d.Flush()
	if c.ingress != 2 || c.enq != 1 || c.deq != 1 || c.dep != 1 || c.timers != 1 {
		t.Errorf("hooks %+v", *c)
	}
	if d.Record().Dropped("dscp 1") != 1 {
		t.Error("scheme drop not counted")
	}
}

func TestNICLineRateAndPause(t *testing.T) {
	n, err := NewNIC(Config{Name: "h", Ports: []PortConfig{{ID: 0, Speed: 100 * Gbps, Prefixes: []netip.Prefix{netip.PrefixFrom(ipA, 32)}}}, Trace: Trace{Pauses: true}})
	if err != nil {
		t.Fatal(err)
	}
	var times []int64
	n.OnOutput(func(o Out) {
		if o.Port == WirePort {
			times = append(times, o.Time)
		}
	})
	f1 := frame(t, ipA, ipB, 0, 1078)
	if _, err := n.AddFlow(FlowSpec{Template: f1, Count: 10, Start: 0}); err != nil {
		t.Fatal(err)
	}
	k := n.Flows()[0].Key
	n.AdvanceTo(200)
	if err := n.PauseFlow(k, 1200, "bts"); err != nil {
		t.Fatal(err)
	}
	n.Flush()
	// Frames 0..2 start at 0, 88.16, 176.32 (reported 0, 89, 177); frame 3
	// would start at 264.48 but the pause from 200 to 1200 holds it.
	want := []int64{0, 89, 177, 1200}
	for i, w := range want {
		if times[i] != w {
			t.Fatalf("times %v, want prefix %v", times, want)
		}
	}
	if len(times) != 10 {
		t.Errorf("%d frames", len(times))
	}
	if _, err := n.AddFlow(FlowSpec{Template: []byte{1, 2, 3}, Count: 1, Start: n.Now()}); !errors.Is(err, ErrParam) {
		t.Errorf("bad template: %v", err)
	}
	sw := threePort(t, Config{})
	if err := sw.PauseFlow(k, 1, ""); !errors.Is(err, ErrRole) {
		t.Errorf("switch PauseFlow: %v", err)
	}
}

func TestConnectAndDeterminism(t *testing.T) {
	run := func() []byte {
		sim := NewSim()
		sw := threePort(t, Config{Sim: sim})
		var log []byte
		sw.OnOutput(func(o Out) {
			log = append(log, byte(o.Port), byte(o.Time), byte(o.Time>>8))
			log = append(log, o.Frame...)
		})
		for i, ip := range []netip.Addr{ipA, ipC} {
			n, err := NewNIC(Config{Name: ip.String(), Sim: sim, Ports: []PortConfig{{ID: 0, Speed: 100 * Gbps}}})
			if err != nil {
				t.Fatal(err)
			}
			port := 0
			if i == 1 {
				port = 2
			}
			if err := Connect(n, WirePort, sw, port, 1000); err != nil {
				t.Fatal(err)
			}
			if _, err := n.AddFlow(FlowSpec{Template: frame(t, ip, ipB, 0, 1078), Count: 50, Start: int64(i) * 300}); err != nil {
				t.Fatal(err)
			}
		}
		sw.Flush()
		if r := sw.Record(); r.Queue(1, 0).EnqFrames != 100 || r.Queue(1, 0).Peak == 0 {
			t.Errorf("queue %+v", r.Queue(1, 0))
		}
		return log
	}
	a, b := run(), run()
	if string(a) != string(b) || len(a) == 0 {
		t.Error("two runs differ")
	}
	x := threePort(t, Config{})
	y := threePort(t, Config{})
	if err := Connect(x, 0, y, 0, 1); !errors.Is(err, ErrSim) {
		t.Errorf("connect across sims: %v", err)
	}
}

// Port clocks do not wrap: a frame forwarded at a capture-like absolute
// time (ns since 1970, far past 2^63 femtoseconds) leaves at that time.
func TestPortClockLargeTimes(t *testing.T) {
	for _, t0 := range []int64{1 << 60, 1_767_225_600_000_000_000} {
		d, err := NewSwitch(Config{Ports: []PortConfig{
			{ID: 0, Speed: 100e9}, {ID: 1, Speed: 100e9, Prefixes: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		d.OnOutput(func(o Out) { got = append(got, o.Time) })
		frame := frame(t, netip.MustParseAddr("10.1.0.1"), netip.MustParseAddr("10.0.0.2"), 0, 1078)
		for i := 0; i < 3; i++ {
			if err := d.Input(0, t0, frame); err != nil {
				t.Fatal(err)
			}
		}
		d.Flush()
		// 3 back-to-back 1,078-octet frames at 100 Gb/s, 88.16 ns each
		// (behaviour.md §0): first bits at 0, 88.16 and 176.32 ns, rounded up.
		want := []int64{t0, t0 + 89, t0 + 177}
		if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Errorf("t0 %d: out times %v, want %v", t0, got, want)
		}
	}
}

// A frame on a link whose delay exceeds its transmission time moves to
// the peer without a copy (Sim.take); on a shorter link it is copied. On
// both, what the peer forwards is octet for octet what the sender sent,
// while new frames keep taking buffers from the pool: a buffer owned by
// the sender and the peer at once would be overwritten in flight.
func TestLinkHandOver(t *testing.T) {
	for _, delay := range []int64{0, 50, 88, 89, 1000} {
		sim := NewSim()
		a := threePort(t, Config{Sim: sim})
		b := threePort(t, Config{Sim: sim})
		if err := Connect(a, 1, b, 2, delay); err != nil {
			t.Fatal(err)
		}
		var sent, got [][]byte
		a.OnOutput(func(o Out) { sent = append(sent, append([]byte(nil), o.Frame...)) })
		b.OnOutput(func(o Out) { got = append(got, append([]byte(nil), o.Frame...)) })
		dst := netip.MustParseAddr("10.0.1.7")
		for i := 0; i < 40; i++ {
			f := frame(t, ipA, dst, 0, 1078)
			for j := 60; j < len(f); j++ {
				f[j] = byte(i*7 + j)
			}
			// Frames arrive every 60 ns and leave every 88.16 ns: the
			// queue grows, and buffers are freed and reused all along.
			if err := a.Input(0, int64(i)*60, f); err != nil {
				t.Fatal(err)
			}
		}
		a.Flush()
		if len(sent) != 40 || len(got) != 40 {
			t.Fatalf("delay %d: %d frames sent, %d forwarded, want 40", delay, len(sent), len(got))
		}
		for i := range sent {
			if !bytes.Equal(sent[i], got[i]) {
				t.Errorf("delay %d: frame %d forwarded differs from the one sent", delay, i)
			}
		}
	}
}

// before orders events as (t, seq) does, over the signs and extremes of
// time and the sequence (one 128-bit subtraction, no branches).
func TestEventBefore(t *testing.T) {
	ts := []int64{math.MinInt64, -5, -1, 0, 1, 89, math.MaxInt64 - 1, math.MaxInt64}
	ks := []uint64{0, 1, 7, 1 << 63, math.MaxUint64}
	for _, at := range ts {
		for _, bt := range ts {
			for _, ak := range ks {
				for _, bk := range ks {
					a, b := hkey{t: at, k: ak}, hkey{t: bt, k: bk}
					want := 0
					if at < bt || at == bt && ak < bk {
						want = 1
					}
					if got := a.before(&b); got != want {
						t.Fatalf("(%d,%d) before (%d,%d) = %d, want %d", at, ak, bt, bk, got, want)
					}
				}
			}
		}
	}
}

// TestSimOrder schedules and takes events at random against a sorted list
// of (time, scheduling order): the queue must give them in that order,
// for times at the last event taken, near it, far after it (every radix
// bucket), before it (the past heap), at the ends of int64, with peeks
// between, and across the renumbering after 1<<32 events.
func TestSimOrder(t *testing.T) {
	for _, start := range []uint64{0, 1<<32 - 300} {
		q := &evQueue{seq: start}
		rng := rand.New(rand.NewPCG(1, start))
		type ref struct {
			t    int64
			slot uint32
		}
		var want []ref // sorted by time, then scheduling order
		var slot uint32
		var now int64
		for round := 0; round < 30000; round++ {
			switch r := rng.IntN(10); {
			case r < 5 || len(want) == 0:
				var at int64
				switch rng.IntN(6) {
				case 0:
					at = now
				case 1:
					at = now + int64(rng.IntN(100))
				case 2:
					at = now + rng.Int64N(1<<40)
				case 3:
					at = now - int64(rng.IntN(50))
				case 4:
					at = []int64{math.MinInt64, math.MaxInt64, 0, -1}[rng.IntN(4)]
				default:
					at = now + int64(rng.IntN(3))
				}
				q.push(at, slot)
				i := sort.Search(len(want), func(i int) bool { return want[i].t > at })
				want = slices.Insert(want, i, ref{at, slot})
				slot++
			case r < 7:
				if got := q.peek(); got != want[0].t {
					t.Fatalf("start %d round %d: peek %d, want %d", start, round, got, want[0].t)
				}
			default:
				if got := q.pop(); got != want[0].slot {
					t.Fatalf("start %d round %d: took #%d, want #%d (time %d)", start, round, got, want[0].slot, want[0].t)
				}
				now = max(now, want[0].t)
				want = want[1:]
			}
			if q.len() != len(want) {
				t.Fatalf("start %d round %d: %d queued, want %d", start, round, q.len(), len(want))
			}
		}
		if start > 0 && q.seq > 1<<20 {
			t.Fatalf("order numbers were not renumbered: next %d", q.seq)
		}
	}
}

// TestRouteCache checks the cached route of addresses that share cache
// slots, longest prefix first, misses, IPv6 and the v4-mapped form against
// the uncached lookup, asked twice each in shuffled orders.
func TestRouteCache(t *testing.T) {
	var ports []PortConfig
	pf := func(s string) []netip.Prefix { return []netip.Prefix{netip.MustParsePrefix(s)} }
	ports = append(ports, PortConfig{ID: 0, Speed: 100e9, Prefixes: pf("10.0.0.0/8")},
		PortConfig{ID: 1, Speed: 100e9, Prefixes: pf("2001:db8::/32")})
	for i := 0; i < 40; i++ {
		ports = append(ports, PortConfig{ID: 2 + i, Speed: 100e9, Prefixes: pf(fmt.Sprintf("10.%d.0.0/16", i))},
			PortConfig{ID: 100 + i, Speed: 100e9, Prefixes: pf(fmt.Sprintf("10.%d.7.%d/32", i, i))})
	}
	d, err := NewSwitch(Config{Ports: ports})
	if err != nil {
		t.Fatal(err)
	}
	var addrs []netip.Addr
	for i := 0; i < 48; i++ {
		for _, s := range []string{"10.%d.7.%d", "10.%d.8.%d", "11.%d.0.%d", "2001:db8::%d:%d", "::ffff:10.%d.7.%d"} {
			addrs = append(addrs, netip.MustParseAddr(fmt.Sprintf(s, i, i)))
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 4; round++ {
		rng.Shuffle(len(addrs), func(i, j int) { addrs[i], addrs[j] = addrs[j], addrs[i] })
		for _, a := range addrs {
			if got, want := d.route(a), d.lookup(a); got != want {
				t.Fatalf("round %d: route(%s) = %d, lookup %d", round, a, got, want)
			}
		}
	}
	if got := d.route(netip.MustParseAddr("10.3.7.3")); got < 0 || d.ports[got].ID != 103 {
		t.Errorf("10.3.7.3 routed to port index %d, want port 103 (the /32)", got)
	}
}

// TestInputParsed: a switch fed frames it is given parsed sends the same
// frames at the same times, and drops and counts the same, as one that
// parses them itself (malformed frames and unknown ports included).
func TestInputParsed(t *testing.T) {
	frames := [][]byte{frame(t, ipA, ipB, 0, 1078), frame(t, ipB, ipA, 26, 300), frame(t, ipA, ipC, 46, 64), {1, 2, 3}, frame(t, ipC, ipB, 0, 9000)}
	run := func(parsed bool) (string, error) {
		d := threePort(t, Config{})
		var b bytes.Buffer
		d.OnOutput(func(o Out) { fmt.Fprintf(&b, "%d %d %x\n", o.Port, o.Time, o.Frame) })
		cp := d.Codepoints()
		for i := 0; i < 300; i++ {
			f, port, at := frames[i%len(frames)], i%4, int64(i*37)
			var err error
			if parsed {
				var m Meta
				Parse(f, &m, &cp)
				err = d.InputParsed(port, at, f, &m)
			} else {
				err = d.Input(port, at, f)
			}
			if err != nil && !errors.Is(err, ErrPort) {
				return "", err
			}
		}
		d.Flush()
		fmt.Fprintf(&b, "%+v\n", d.Record())
		return b.String(), nil
	}
	a, err := run(false)
	if err != nil {
		t.Fatal(err)
	}
	p, err := run(true)
	if err != nil {
		t.Fatal(err)
	}
	if a != p {
		t.Errorf("parsed input differs:\n%s\nwant\n%s", p, a)
	}
}
