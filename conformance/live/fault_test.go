// SPDX-License-Identifier: Apache-2.0

package live

import (
	"encoding/binary"
	"io"
	"testing"

	"github.com/opensfc/sfc/bts"
	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/pcapio"
)

// outputs reads a vector's expected frames as the device's outputs.
func outputs(t *testing.T, vector string) (*conformance.Case, []device.Out) {
	t.Helper()
	c, err := conformance.LoadCase("../../pcaps/" + vector + "/case.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := pcapio.Open("../../pcaps/" + vector + "/expected.pcapng")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var outs []device.Out
	cp := c.Device.Codepoints.WithDefaults()
	for {
		fr, err := r.Next()
		if err == io.EOF {
			return c, outs
		}
		if err != nil {
			t.Fatal(err)
		}
		var m device.Meta
		device.Parse(fr.Data, &m, &cp)
		outs = append(outs, device.Out{Port: fr.Interface, Time: fr.Time.UnixNano(), Frame: append([]byte(nil), fr.Data...),
			Kind: m.Kind, Generated: m.Kind.Signal()})
	}
}

// udpSumOK verifies a UDP checksum the textbook way: the one's-complement
// sum over the pseudo-header and the datagram, checksum included, is
// 0xFFFF.
func udpSumOK(b []byte, m *device.Meta) bool {
	var sum uint32
	words := func(p []byte) {
		for len(p) >= 2 {
			sum += uint32(p[0])<<8 | uint32(p[1])
			p = p[2:]
		}
		if len(p) == 1 {
			sum += uint32(p[0]) << 8
		}
	}
	words(m.Src.AsSlice())
	words(m.Dst.AsSlice())
	n := int(binary.BigEndian.Uint16(b[m.L4+4:]))
	sum += 17 + uint32(n)
	words(b[m.L4 : m.L4+n])
	for sum > 0xFFFF {
		sum = sum&0xFFFF + sum>>16
	}
	return sum == 0xFFFF
}

func TestFaultPauseBTS(t *testing.T) {
	c, outs := outputs(t, "sfc/incast-ipv6") // IPv6: the checksum is mandatory
	f, _ := ParseFault("pause+7")
	cp := c.Device.Codepoints.WithDefaults()
	n := 0
	for _, o := range outs {
		if o.Kind != device.KindBTS {
			continue
		}
		before, err := bts.Decode(o.Frame, cp.BTSPort)
		if err != nil {
			t.Fatal(err)
		}
		got, keep := f.apply(o, append([]byte(nil), o.Frame...), c)
		if !keep {
			t.Fatal("pause+7 dropped a frame")
		}
		after, err := bts.Decode(got, cp.BTSPort)
		if err != nil {
			t.Fatal(err)
		}
		var m device.Meta
		device.Parse(got, &m, &cp)
		if after.PauseUS != before.PauseUS+7 || !udpSumOK(got, &m) || !udpSumOK(o.Frame, &m) {
			t.Errorf("BTS pause %d -> %d, checksum ok %v", before.PauseUS, after.PauseUS, udpSumOK(got, &m))
		}
		n++
	}
	if n == 0 {
		t.Fatal("no BTS in the vector")
	}
	// Data frames pass untouched.
	for _, o := range outs {
		if o.Kind == device.KindData {
			got, keep := f.apply(o, append([]byte(nil), o.Frame...), c)
			if !keep || string(got) != string(o.Frame) {
				t.Error("pause+7 changed a data frame")
			}
			break
		}
	}
}

func TestFaultPausePFCAndDrops(t *testing.T) {
	c, outs := outputs(t, "pfc/xoff-refresh-xon")
	f, _ := ParseFault("pause-3,drop-first-pfc,drop-data-2")
	var pfcs, dropped, data int
	for _, o := range outs {
		got, keep := f.apply(o, append([]byte(nil), o.Frame...), c)
		switch {
		case o.Kind == device.KindPFC && !keep:
			dropped++
		case o.Kind == device.KindPFC:
			pfcs++
			var m device.Meta
			device.Parse(got, &m, nil)
			en := binary.BigEndian.Uint16(got[m.L3+2:])
			for i := 0; i < 8; i++ {
				was := binary.BigEndian.Uint16(o.Frame[m.L3+4+2*i:])
				now := binary.BigEndian.Uint16(got[m.L3+4+2*i:])
				want := was
				if en&(1<<i) != 0 {
					want = uint16(max(0, int(was)-3))
				}
				if now != want {
					t.Errorf("class %d: quanta %d -> %d, want %d", i, was, now, want)
				}
			}
		case o.Kind == device.KindData:
			data++
			if keep != (data != 2) {
				t.Errorf("data frame %d: kept %v", data, keep)
			}
		}
	}
	if dropped != 1 || pfcs == 0 || len(f.applied) != 3 {
		t.Errorf("dropped %d PFC frames (want 1), changed %d, applied %q", dropped, pfcs, f.applied)
	}
}
