// SPDX-License-Identifier: Apache-2.0

package cim

import (
	"bytes"
	"errors"
	"net/netip"
	"testing"

	"github.com/opensfc/sfc/bts"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

var (
	hostA  = netip.MustParseAddr("10.0.0.1")
	hostB  = netip.MustParseAddr("10.0.1.1")
	remote = netip.MustParseAddr("10.9.0.1")
	v6a    = netip.MustParseAddr("fd00::1")
	v6b    = netip.MustParseAddr("fd00::2")
	macA   = device.MAC{2, 0, 0, 0, 0, 0xa}
	macB   = device.MAC{2, 0, 0, 0, 0, 0xb}
)

func trigger(t testing.TB, src, dst netip.Addr, tagged bool, n int) []byte {
	t.Helper()
	b, err := device.BuildUDP(nil, device.UDPSpec{DstMAC: macB, SrcMAC: macA, Tagged: tagged, VID: 100, Src: src, Dst: dst, DSCP: 26, SrcPort: 4242, DstPort: 4791, Len: n})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBuild(t *testing.T) {
	sig := &bts.Signal{PauseUS: 20, Cacheable: true, Origin: layers.OriginQueue, Reporter: 7}
	cases := []struct {
		name    string
		trig    []byte
		sfc     *bts.Signal
		l2      bool
		msduLen int
		vid     uint16
	}{
		{"v4 with sfc", trigger(t, hostA, hostB, false, 1078), sig, false, 512, 0},
		{"v4 tagged without sfc", trigger(t, hostA, hostB, true, 1082), nil, false, 512, 100},
		{"v4 small padded", trigger(t, hostA, hostB, false, 42), sig, false, 48, 0},
		{"v6 with sfc", trigger(t, v6a, v6b, false, 200), sig, false, 186, 0},
		{"l2 with sfc", trigger(t, hostA, hostB, false, 300), sig, true, 286, 0},
	}
	for _, c := range cases {
		f, err := Build(nil, c.trig, c.sfc, Options{SrcMAC: macB, L2: c.l2})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, m, err := Decode(f, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !got.Add || got.Version != 0 || !bytes.Equal(got.DA, macB[:]) || !bytes.Equal(got.SA, macA[:]) ||
			int(got.MSDULen) != c.msduLen || got.VID != c.vid || got.HasSFC != (c.sfc != nil) || got.Ext != (c.sfc != nil) {
			t.Errorf("%s: %+v", c.name, got)
		}
		if c.sfc != nil && (got.SFC.PauseUS != 20 || !got.SFC.Cacheable || got.SFC.Reporter != 7 || got.SFC.Origin != layers.OriginQueue) {
			t.Errorf("%s: sfc %+v", c.name, got.SFC)
		}
		fl, ok := got.Flow()
		if !got.HasFlow || !ok || fl.SrcPort != 4242 || fl.DSCP != 26 {
			t.Errorf("%s: flow %+v", c.name, fl)
		}
		if !c.l2 && (m.Src != fl.Dst || m.Dst != fl.Src || m.DSCP != 48 || m.DstPort != 35234 || m.SrcPort != 4242) {
			t.Errorf("%s: L3 addressing %+v", c.name, m)
		}
		if c.l2 && m.EtherType != device.EtherTypeCIM {
			t.Errorf("%s: ethertype %#x", c.name, m.EtherType)
		}
		s, err := ToSignal(f, 0)
		if c.sfc == nil {
			if !errors.Is(err, ErrNoSFC) {
				t.Errorf("%s: ToSignal %v, want ErrNoSFC", c.name, err)
			}
			continue
		}
		if err != nil || s.PauseUS != 20 || s.Dst != fl.Src || s.Src != fl.Dst {
			t.Errorf("%s: signal %+v %v", c.name, s, err)
		}
	}
	if _, err := Build(nil, make([]byte, 60), sig, Options{}); !errors.Is(err, bts.ErrTrigger) {
		t.Errorf("arp trigger: %v", err)
	}
	if _, _, err := Decode(trigger(t, hostA, hostB, false, 100), 0); !errors.Is(err, ErrNotCIM) {
		t.Errorf("data frame: %v", err)
	}
	if _, err := FromBTS(nil, trigger(t, hostA, hostB, false, 100), 0, Options{}); !errors.Is(err, bts.ErrNotBTS) {
		t.Errorf("FromBTS of data: %v", err)
	}
}

// TestRoundTrip: BTS → CIM → BTS keeps the SFC fields (pause time, C,
// origin, reporter), the addresses, the UDP source port and the quote;
// the BTS-only congestion port and depth have no CIM field.
func TestRoundTrip(t *testing.T) {
	for _, trig := range [][]byte{trigger(t, hostA, hostB, false, 1078), trigger(t, v6a, v6b, false, 1078), trigger(t, hostA, hostB, false, 60)} {
		for _, sig := range []bts.Signal{
			{PauseUS: 20, Cacheable: true, Origin: layers.OriginQueue, Reporter: 0xdeadbeef, CPPort: layers.CPPortUnknown},
			{PauseUS: 0, Origin: layers.OriginCache, Reporter: 1, CPPort: layers.CPPortUnknown},
			{PauseUS: 65535, Origin: layers.OriginEstimate, CPPort: layers.CPPortUnknown},
		} {
			b1, err := bts.Build(nil, trig, sig, bts.BuildOptions{SrcMAC: macB, DstMAC: macA})
			if err != nil {
				t.Fatal(err)
			}
			c, err := FromBTS(nil, b1, 0, Options{SrcMAC: macB, DstMAC: macA})
			if err != nil {
				t.Fatal(err)
			}
			b2, err := ToBTS(nil, c, 0, bts.BuildOptions{SrcMAC: macB, DstMAC: macA})
			if err != nil {
				t.Fatal(err)
			}
			s1, _ := bts.Decode(b1, 0)
			s2, err := bts.Decode(b2, 0)
			if err != nil {
				t.Fatal(err)
			}
			if s1.PauseUS != s2.PauseUS || s1.Cacheable != s2.Cacheable || s1.Origin != s2.Origin || s1.Reporter != s2.Reporter ||
				s1.Src != s2.Src || s1.Dst != s2.Dst || s1.Flow != s2.Flow || !bytes.Equal(s1.Quote, s2.Quote) {
				t.Errorf("round trip:\n%+v\n%+v", s1, s2)
			}
			// With the BTS-only fields at their "unknown" values the frames
			// are identical.
			if !bytes.Equal(b1, b2) {
				t.Errorf("BTS frames differ:\n% x\n% x", b1, b2)
			}
			// CIM → BTS → CIM: identical too.
			c2, err := FromBTS(nil, b2, 0, Options{SrcMAC: macB, DstMAC: macA})
			if err != nil || !bytes.Equal(c, c2) {
				t.Errorf("CIM frames differ: %v", err)
			}
		}
	}
}

func tor(t testing.TB, schemes ...device.Scheme) *device.Device {
	t.Helper()
	d, err := device.NewSwitch(device.Config{Name: "tor", Ports: []device.PortConfig{
		{ID: 0, Speed: 100 * device.Gbps, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(hostA, 32)}},
		{ID: 1, Speed: 100 * device.Gbps, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(hostB, 32)}},
		{ID: 2, Speed: 100 * device.Gbps, Prefixes: []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Attach(schemes...); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestSwitchMode: the CIM-signalling switch sends, where the BTS switch
// sends a BTS, a CIM with the same pause time, C flag, origin and reporter.
func TestSwitchMode(t *testing.T) {
	run := func(s *bts.Switch) []bts.Signal {
		d := tor(t, s)
		var sigs []bts.Signal
		d.OnOutput(func(o device.Out) {
			if !o.Generated {
				return
			}
			var s bts.Signal
			var err error
			if o.Kind == device.KindCIM {
				s, err = ToSignal(o.Frame, 0)
			} else {
				s, err = bts.Decode(o.Frame, 0)
			}
			if err != nil {
				t.Fatal(err)
			}
			sigs = append(sigs, s)
		})
		fill, _ := device.BuildUDP(nil, device.UDPSpec{Src: remote, Dst: hostB, DSCP: 26, SrcPort: 1, DstPort: 2, Len: 1000})
		for i := 0; i < 375; i++ {
			_ = d.Input(2, 0, fill)
		}
		_ = d.Input(0, 0, trigger(t, hostA, hostB, false, 1000))
		d.Flush()
		return sigs
	}
	a := run(bts.NewSwitch(bts.Params{Reporter: 5}))
	b := run(NewSwitch(bts.Params{Reporter: 5}, Options{}))
	if len(a) != 2 || len(b) != 2 {
		t.Fatalf("%d BTS, %d CIM", len(a), len(b))
	}
	for i := range a {
		if a[i].PauseUS != b[i].PauseUS || a[i].Cacheable != b[i].Cacheable || a[i].Origin != b[i].Origin ||
			a[i].Reporter != b[i].Reporter || a[i].Flow != b[i].Flow || a[i].Src != b[i].Src || a[i].Dst != b[i].Dst {
			t.Errorf("signal %d: BTS %+v, CIM %+v", i, a[i], b[i])
		}
	}
	// The pause comes from qd_e = 376,000, the depth with the triggering
	// packet: (376,000 − 125,000) × 8 / 10^11 s = 20.08 µs → 21 (the old
	// rule's 375,000 gave 20).
	if b[1].PauseUS != 21 || !b[1].Cacheable {
		t.Errorf("CIM %+v", b[1])
	}
}

// TestCIMReceivers: a NIC pauses the flow a CIM names exactly as for its
// BTS; a source ToR caches it and SFC-P converts it.
func TestCIMReceivers(t *testing.T) {
	n, err := device.NewNIC(device.Config{Name: "a", Ports: []device.PortConfig{{ID: 0, Speed: 100 * device.Gbps}}})
	if err != nil {
		t.Fatal(err)
	}
	nic := NewNIC()
	if err := n.Attach(nic); err != nil {
		t.Fatal(err)
	}
	data := trigger(t, hostA, remote, false, 1078)
	f, _ := Build(nil, data, &bts.Signal{PauseUS: 7, Cacheable: true}, Options{})
	_ = n.Input(device.WirePort, 1000, f)
	var m device.Meta
	cp := device.Codepoints{}.WithDefaults()
	device.Parse(data, &m, &cp)
	fl := n.Flow(m.Flow(), false)
	if fl == nil || fl.PauseEnd != 8000 || nic.Applied != 1 {
		t.Fatalf("flow %+v", fl)
	}
	// Without the SFC TLV the CIM is no signal: the NIC hands it to the host.
	f2, _ := Build(nil, data, nil, Options{})
	_ = n.Input(device.WirePort, 2000, f2)
	if nic.Applied != 1 {
		t.Error("plain CIM applied")
	}

	sw := NewSwitch(bts.Params{Cache: true}, Options{})
	d := tor(t, sw, NewSFCP())
	var kinds []device.Kind
	d.OnOutput(func(o device.Out) { kinds = append(kinds, o.Kind) })
	_ = d.Input(2, 1000, f)
	d.Flush()
	if sw.CacheTime(1000, remote, 26) != 7000 || len(kinds) != 1 || kinds[0] != device.KindPFC {
		t.Errorf("cache %d outputs %v", sw.CacheTime(1000, remote, 26), kinds)
	}
	// The CIM-signalling ToR's own cache hit for a local host is converted
	// too (behaviour.md §3): a PFC frame, no CIM (the old SFC-P sent a CIM).
	kinds = nil
	_ = d.Input(1, 2000, trigger(t, hostB, remote, false, 1078))
	d.Flush()
	pfcs := 0
	for _, k := range kinds {
		switch k {
		case device.KindPFC:
			pfcs++
		case device.KindCIM, device.KindBTS:
			t.Errorf("cache hit sent a %v", k)
		}
	}
	if pfcs != 1 || sw.Converted != 1 {
		t.Errorf("cache hit: outputs %v, converted %d", kinds, sw.Converted)
	}
}
