// SPDX-License-Identifier: Apache-2.0

package pcapio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// TestInterfaceSpeedAndResolution: each pcapng interface keeps its own
// if_speed and if_tsresol, in either byte order; times are exact for
// decimal and binary resolutions (2^-10 s is 976562.5 ns). if_tsresol 0
// is 10^0, whole seconds; only an interface without it is in microseconds;
// 10^-19, the finest decimal resolution taken, is exact.
func TestInterfaceSpeedAndResolution(t *testing.T) {
	for _, be := range []bool{false, true} {
		w := &ng{be: be}
		speed := func(bps uint64) []byte { return w.opt(nil, 8, w.bo().AppendUint64(nil, bps)) }
		res := func(r byte) []byte { return w.opt(nil, 9, []byte{r}) }
		w.shb().
			idb("p25", 1, 0, speed(25e9), res(9)).
			idb("p100", 1, 0, speed(100e9), res(0x80|10)).
			idb("plain", 1, 0).
			idb("seconds", 1, 0, res(0)).
			idb("e19", 1, 0, res(19)).
			epb(0, 1_700_000_000_123_456_789, frameData(1, 60), 60).
			epb(1, 1700000000<<10|3, frameData(2, 60), 60). // 3/1024 s
			epb(2, 1_700_000_000_000_007, frameData(3, 60), 60).
			epb(3, 1_700_000_000, frameData(4, 60), 60).
			epb(4, 12_345_678_901_234_567_890, frameData(5, 60), 60)
		r, err := NewReader("x", bytes.NewReader(w.buf))
		if err != nil {
			t.Fatal(err)
		}
		want := []struct {
			name  string
			speed uint64
			time  time.Time
		}{
			{"p25", 25e9, time.Unix(1_700_000_000, 123_456_789)},
			{"p100", 100e9, time.Unix(1_700_000_000, 2_929_687)}, // 3e9/1024 = 2929687.5
			{"plain", 0, time.Unix(1_700_000_000, 7_000)},
			{"seconds", 0, time.Unix(1_700_000_000, 0)},
			{"e19", 0, time.Unix(1, 234_567_890)},
		}
		for i, w := range want {
			fr, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			in := r.Interface(fr.Interface)
			if fr.Interface != i || in.Name != w.name || in.Speed != w.speed || !fr.Time.Equal(w.time) {
				t.Errorf("be=%v frame %d: interface %d %+v, time %v; want %s %d %v", be, i+1, fr.Interface, in, fr.Time, w.name, w.speed, w.time)
			}
		}
	}
}

// TestSectionsKeepTheirInterfaces: in a pcapng file of several sections
// each frame names its own section's interface, numbered across the file
// (the second section's interface 0 is not the first section's), and the
// interfaces of a section already left can still be looked up: with Next
// and with ReadBatch, whose frames are looked up after later batches were
// read (as sfcdump's parallel reader does).
func TestSectionsKeepTheirInterfaces(t *testing.T) {
	w := &ng{}
	speed := func(bps uint64) []byte { return w.opt(nil, 8, w.bo().AppendUint64(nil, bps)) }
	w.shb().idb("a0", 1, 0, speed(25e9)).idb("a1", 1, 0, speed(400e9)).
		epb(0, 1, frameData(1, 60), 60).
		epb(1, 2, frameData(2, 60), 60).
		shb().idb("b0", 1, 0, speed(10e9)).
		epb(0, 3, frameData(3, 60), 60).
		spb(frameData(4, 60), 60)
	want := []Interface{
		{Name: "a0", LinkType: layers.LinkTypeEthernet, Speed: 25e9, Resolution: 1000, FCSLen: -1},
		{Name: "a1", LinkType: layers.LinkTypeEthernet, Speed: 400e9, ID: 1, Resolution: 1000, FCSLen: -1},
		{Name: "b0", LinkType: layers.LinkTypeEthernet, Speed: 10e9, Section: 1, Resolution: 1000, FCSLen: -1},
	}
	wantIf := []int{0, 1, 2, 2}
	for _, how := range []string{"Next", "ReadBatch of 1"} {
		var g got
		if how == "Next" {
			g = readAllNext(w.buf, nil)
		} else {
			g = readAllBatch(w.buf, nil, 1)
		}
		if g.open != nil || g.err != nil || len(g.frames) != len(wantIf) {
			t.Fatalf("%s: %d frames, %v %v", how, len(g.frames), g.open, g.err)
		}
		for i, fr := range g.frames {
			if fr.Interface != wantIf[i] {
				t.Errorf("%s: frame %d on interface %d, want %d", how, i+1, fr.Interface, wantIf[i])
			}
		}
		if !reflect.DeepEqual(g.ifaces, want) {
			t.Errorf("%s: interfaces\n%+v\nwant\n%+v", how, g.ifaces, want)
		}
	}
	// A frame of the second section may only name its own interfaces.
	bad := &ng{}
	bad.shb().idb("a0", 1, 0).idb("a1", 1, 0).shb().idb("b0", 1, 0).epb(1, 1, frameData(1, 60), 60)
	if g := readAllNext(bad.buf, nil); g.err == nil || !strings.Contains(g.err.Error(), "frame names interface 1, section 1 has 1") {
		t.Errorf("interface 1 of section 1: %v", g.err)
	}
}

// TestNoTimestamp: a simple packet block's frame has no time (the zero
// time.Time, not another frame's nor 1970), and the writer writes such a
// frame back as a simple packet block on interface 0 (on another, which
// that block cannot name, at time 0).
func TestNoTimestamp(t *testing.T) {
	w := &ng{}
	w.shb().idb("p", 1, 0).epb(0, 1_000_000, frameData(1, 60), 60).spb(frameData(2, 60), 60)
	g := readAllNext(w.buf, nil)
	if g.open != nil || g.err != nil || len(g.frames) != 2 || g.frames[0].Time.IsZero() || !g.frames[1].Time.IsZero() {
		t.Fatalf("read: %v %v %+v", g.open, g.err, g.frames)
	}
	var b bytes.Buffer
	pw, _ := NewWriter(&b, "a", "b")
	t0 := time.Unix(5, 0).UTC()
	for _, c := range []struct {
		iface int
		t     time.Time
	}{{0, t0}, {0, time.Time{}}, {1, time.Time{}}, {0, t0}} {
		if err := pw.Write(c.iface, c.t, frameData(1, 61), 61); err != nil {
			t.Fatal(err)
		}
	}
	pw.Flush()
	g = readAllNext(b.Bytes(), nil)
	want := []time.Time{t0, {}, time.Unix(0, 0).UTC(), t0}
	if g.open != nil || g.err != nil || len(g.frames) != len(want) {
		t.Fatalf("written: %v %v %d frames", g.open, g.err, len(g.frames))
	}
	for i, fr := range g.frames {
		if !fr.Time.Equal(want[i]) || fr.Time.IsZero() != want[i].IsZero() || !bytes.Equal(fr.Data, frameData(1, 61)) || fr.Len != 61 {
			t.Errorf("written frame %d: %v, %d/%d octets; want %v", i+1, fr.Time, len(fr.Data), fr.Len, want[i])
		}
	}
}

// TestLinkTypes: Linux cooked captures (SLL, SLL2) and raw IP are read, in
// classic pcap and pcapng, each frame naming its interface's link type;
// others are refused up front.
func TestLinkTypes(t *testing.T) {
	for _, lt := range []layers.LinkType{layers.LinkTypeEthernet, layers.LinkTypeLinuxSLL, LinkTypeLinuxSLL2, layers.LinkTypeRaw, LinkTypeRawDLT, LinkTypeRawOpenBSD, LinkTypeIPv4, LinkTypeIPv6} {
		var b bytes.Buffer
		pw := pcapgo.NewWriter(&b)
		pw.WriteFileHeader(65535, lt)
		pw.WritePacket(gopacket.CaptureInfo{Timestamp: time.Unix(1, 0), CaptureLength: 60, Length: 60}, frameData(1, 60))
		r, err := NewReader("x", &b)
		if err != nil {
			t.Errorf("%v: %v", lt, err)
			continue
		}
		if fr, err := r.Next(); err != nil || fr.LinkType != lt || r.Interface(0).LinkType != lt {
			t.Errorf("%v: %v %v", lt, fr, err)
		}
		w := (&ng{}).shb().idb("eth", 1, 0).idb("any", uint16(lt), 0).epb(1, 1, frameData(1, 60), 60).epb(0, 1, frameData(1, 60), 60)
		r, err = NewReader("x", bytes.NewReader(w.buf))
		if err != nil {
			t.Errorf("%v pcapng: %v", lt, err)
			continue
		}
		if fr, err := r.Next(); err != nil || fr.LinkType != lt {
			t.Errorf("%v pcapng: %+v %v", lt, fr, err)
		}
		if fr, err := r.Next(); err != nil || fr.LinkType != layers.LinkTypeEthernet {
			t.Errorf("%v pcapng, second frame: %+v %v", lt, fr, err)
		}
	}
	for _, lt := range []layers.LinkType{105, 0, 127} { // 802.11, BSD loopback, radiotap
		if SupportedLink(lt) {
			t.Errorf("%v supported", lt)
		}
	}
}

// TestCapLenExceedsOrigLen: a record whose captured length exceeds its
// original length is read and flagged (ErrCapLen in Frame.Warn, with the
// lengths); the frames after it are read too.
func TestCapLenExceedsOrigLen(t *testing.T) {
	var b bytes.Buffer
	pw := pcapgo.NewWriter(&b)
	pw.WriteFileHeader(65535, layers.LinkTypeEthernet)
	for i := 0; i < 3; i++ {
		pw.WritePacket(gopacket.CaptureInfo{Timestamp: time.Unix(1, 0), CaptureLength: 60, Length: 60}, frameData(i, 60))
	}
	pc := b.Bytes()
	binary.LittleEndian.PutUint32(pc[24+16+60+12:], 40) // frame 2: origlen 40 < caplen 60
	ngc := (&ng{}).shb().idb("p", 1, 0).epb(0, 1, frameData(1, 60), 60).epb(0, 1, frameData(2, 60), 40).epb(0, 1, frameData(3, 60), 60)
	for name, data := range map[string][]byte{"pcap": pc, "pcapng": ngc.buf} {
		r, err := NewReader("x", bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		var warned []int
		n := 0
		for {
			fr, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			n++
			if fr.Warn != nil {
				warned = append(warned, fr.Number)
				if !errors.Is(fr.Warn, ErrCapLen) || fr.Warn.Error() != "captured length exceeds original length: 60 > 40" || len(fr.Data) != 60 || fr.Len != 40 {
					t.Errorf("%s: frame %d: %v, %d of %d", name, fr.Number, fr.Warn, len(fr.Data), fr.Len)
				}
			}
		}
		if n != 3 || len(warned) != 1 || warned[0] != 2 {
			t.Errorf("%s: %d frames, flagged %v; want 3, [2]", name, n, warned)
		}
	}
}
