// SPDX-License-Identifier: Apache-2.0

package conformance_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opensfc/sfc/bts"
	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/pcapio"
)

// capFrame is one frame of a capture read whole (tests only).
type capFrame struct {
	iface int
	t     time.Time
	data  []byte
}

type capture struct {
	names  []string
	frames []capFrame
}

func readCapture(t *testing.T, path string) *capture {
	t.Helper()
	r, err := pcapio.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := &capture{}
	for {
		f, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		c.frames = append(c.frames, capFrame{f.Interface, f.Time, append([]byte(nil), f.Data...)})
	}
	for i := 0; i < r.NInterfaces(); i++ {
		c.names = append(c.names, r.Interface(i).Name)
	}
	return c
}

func (c *capture) write(t *testing.T, path string) {
	t.Helper()
	slices.SortStableFunc(c.frames, func(a, b capFrame) int { return a.t.Compare(b.t) })
	writeUnsorted(t, path, c)
}

func meta(b []byte) device.Meta {
	var m device.Meta
	cp := device.Codepoints{}.WithDefaults()
	device.Parse(b, &m, &cp)
	return m
}

// nth returns the index of the n-th frame (0-based) for which ok holds.
func nth(t *testing.T, c *capture, n int, ok func(m *device.Meta, f capFrame) bool) int {
	t.Helper()
	for i, f := range c.frames {
		m := meta(f.data)
		if ok(&m, f) {
			if n == 0 {
				return i
			}
			n--
		}
	}
	t.Fatal("no such frame in the capture")
	return -1
}

func isBTS(m *device.Meta, _ capFrame) bool { return m.Kind == device.KindBTS }
func isData(m *device.Meta, _ capFrame) bool {
	return m.Kind == device.KindData && m.DstPort == 4791
}
func isBFC(m *device.Meta, f capFrame) bool {
	return m.Kind == device.KindExperimental && f.data[m.L3+2] == 1
}
func isCredit(m *device.Meta, f capFrame) bool {
	return m.Kind == device.KindExperimental && f.data[m.L3+2] == 2
}
func isXON(m *device.Meta, f capFrame) bool {
	if m.Kind != device.KindPFC {
		return false
	}
	for i := 0; i < 8; i++ {
		if f.data[m.L3+3]&(1<<i) != 0 && binary.BigEndian.Uint16(f.data[m.L3+4+2*i:]) != 0 {
			return false
		}
	}
	return true
}

// btsPayload returns the offset of the BTS header in a BTS frame.
func btsPayload(b []byte) int { m := meta(b); return m.Payload }

// addBTSInPeriod adds a BTS for a flow that the device already signalled
// in the same reset period: it quotes the flow's packet half-way between
// two of its signals less than a reset period apart.
func addBTSInPeriod(t *testing.T, exp *capture, input *capture, reset time.Duration, c *conformance.Case, inPath string) {
	t.Helper()
	if !addBTSInPeriodOK(t, exp, input, reset, c, inPath) {
		t.Fatal("no flow signalled twice within a reset period")
	}
}

// addBTSInPeriodOK is addBTSInPeriod that reports whether it found a flow
// to do it with.
func addBTSInPeriodOK(t *testing.T, exp *capture, input *capture, reset time.Duration, c *conformance.Case, inPath string) bool {
	t.Helper()
	epoch := c.Epoch
	decided := map[int64]conformance.Firing{}
	if err := conformance.Decisions(c, inPath, 0, func(f conformance.Firing) {
		decided[f.Time] = f
	}); err != nil {
		t.Fatal(err)
	}
	type sig struct {
		i   int
		s   bts.Signal
		arr time.Time // arrival of the quoted packet
	}
	arrival := func(quote []byte) (time.Time, bool) {
		for _, f := range input.frames {
			m := meta(f.data)
			if ip := m.IPPacket(f.data); ip != nil && len(ip) >= len(quote) && bytes.Equal(ip[:len(quote)], quote) {
				return f.t, true
			}
		}
		return time.Time{}, false
	}
	last := map[device.FlowKey]sig{}
	for i, f := range exp.frames {
		m := meta(f.data)
		if m.Kind != device.KindBTS {
			continue
		}
		s, err := bts.Decode(f.data, 0)
		if err != nil {
			t.Fatal(err)
		}
		a, ok := arrival(s.Quote)
		if !ok {
			t.Fatal("BTS quotes no input packet")
		}
		key := s.FlowKey()
		cur := sig{i, s, a}
		if p, ok := last[key]; ok && a.Sub(p.arr) < reset {
			// A packet of the flow between the two triggers.
			mid := p.arr.Add(a.Sub(p.arr) / 2)
			for _, in := range input.frames {
				im := meta(in.data)
				if im.Kind != device.KindData || im.Flow() != key || !in.t.After(p.arr) || in.t.Before(mid) || !in.t.Before(a) {
					continue
				}
				orig := exp.frames[p.i].data
				// The pause and depth the reference computes for this packet.
				f, ok := decided[in.t.Sub(epoch).Nanoseconds()]
				if !ok || !f.Fired {
					continue
				}
				s := p.s
				s.PauseUS, s.QueueDepth = f.PauseUS, uint32(f.Depth)
				nb, err := bts.Build(nil, in.data, s, bts.BuildOptions{SrcMAC: device.MAC(orig[6:12]), DstMAC: device.MAC(orig[0:6])})
				if err != nil {
					t.Fatal(err)
				}
				exp.frames = append(exp.frames, capFrame{exp.frames[p.i].iface, in.t.Add(10 * time.Nanosecond), nb})
				return true
			}
		}
		last[key] = cur
	}
	return false
}

// TestMutations perturbs expected outputs as a faulty device would and
// checks that device mode names the right check, and that unperturbed
// captures and captures perturbed within the tolerances pass.
func TestMutations(t *testing.T) {
	cases := []struct {
		name   string
		vector string
		mutate func(t *testing.T, c *capture, in *capture, cs *conformance.Case, inPath string)
		want   string // the check that must fail; "" means PASS
	}{
		{"unperturbed SFC", "sfc/suppression-reset", nil, ""},
		{"unperturbed PFC", "pfc/xoff-refresh-xon", nil, ""},
		{"unperturbed CIM", "cim/incast-sfc-tlv", nil, ""},
		{"unperturbed NIC", "sfc/nic-pause-resume", nil, ""},
		{"unperturbed BFC", "bfc/collisions", nil, ""},
		{"unperturbed Floodgate", "floodgate/window-credit-dstpause", nil, ""},
		{"unperturbed PB-FS", "pbfs/congested", nil, ""},
		{"all frames 500ns late (within 1us)", "sfc/incast-first-bts", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			for i := range c.frames {
				c.frames[i].t = c.frames[i].t.Add(500 * time.Nanosecond)
			}
		}, ""},
		{"PFC frames 700ns early (beyond the 500ns early tolerance)", "pfc/xoff-refresh-xon", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			for i, f := range c.frames {
				if meta(f.data).Kind == device.KindPFC {
					c.frames[i].t = f.t.Add(-700 * time.Nanosecond)
				}
			}
		}, "PFC-TIMING"},
		{"pause time 0 where the reference pauses (a resume for a pause)", "sfc/suppression-reset", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 1, isBTS)
			p := btsPayload(c.frames[i].data)
			binary.BigEndian.PutUint16(c.frames[i].data[p+2:], 0)
		}, "SFC-BTS-PAUSE"},
		{"a BTS 744ns before its cause", "sfc/incast-first-bts", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 0, isBTS)
			c.frames[i].t = c.frames[i].t.Add(-744 * time.Nanosecond)
		}, "SFC-BTS-TIMING"},
		{"a BTS 400ns early (within 500ns)", "sfc/incast-first-bts", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 0, isBTS)
			c.frames[i].t = c.frames[i].t.Add(-400 * time.Nanosecond)
		}, ""},
		{"2 of the 4 first BTS of an incast dropped (every port captured)", "sfc/incast-first-bts", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			for p := range c.names {
				c.frames = append(c.frames, capFrame{p, c.frames[len(c.frames)-1].t.Add(time.Microsecond), lldpFrame()})
			}
			i := nth(t, c, 1, isBTS)
			c.frames = slices.Delete(c.frames, i, i+1)
			i = nth(t, c, 2, isBTS)
			c.frames = slices.Delete(c.frames, i, i+1)
		}, "SFC-BTS-FIRST"},
		{"a BTS's reserved octet set", "sfc/incast-first-bts", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 0, isBTS)
			c.frames[i].data[btsPayload(c.frames[i].data)+11] = 1
		}, "SFC-BTS-FIELDS"},
		{"a BTS's reporter id changed", "sfc/incast-first-bts", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 0, isBTS)
			c.frames[i].data[btsPayload(c.frames[i].data)+7] ^= 1
		}, "SFC-BTS-FIELDS"},
		{"a duplicated BTS", "sfc/incast-first-bts", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 0, isBTS)
			f := c.frames[i]
			c.frames = append(c.frames, capFrame{f.iface, f.t.Add(10 * time.Nanosecond), append([]byte(nil), f.data...)})
		}, "SFC-BTS-JUSTIFIED"},
		{"LLDP, ARP and ND while the test is set up (before time 0) and during it", "sfc/incast-first-bts", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			t0 := c.frames[0].t
			for _, d := range [][]byte{lldpFrame(), arpFrame()} {
				c.frames = append(c.frames, capFrame{0, t0.Add(-50 * time.Millisecond), d}, capFrame{1, t0.Add(2 * time.Microsecond), d})
			}
		}, ""},
		{"a BTS long before time 0", "sfc/incast-first-bts", func(t *testing.T, c *capture, in *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 0, isBTS)
			f := c.frames[i]
			c.frames = append(c.frames, capFrame{f.iface, in.frames[0].t.Add(-time.Millisecond), append([]byte(nil), f.data...)})
		}, "SFC-BTS-JUSTIFIED"},
		{"queue depth +5KB (no value tolerance by default)", "sfc/incast-first-bts", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 0, isBTS)
			p := btsPayload(c.frames[i].data)
			binary.BigEndian.PutUint32(c.frames[i].data[p+12:], binary.BigEndian.Uint32(c.frames[i].data[p+12:])+5000)
		}, "SFC-BTS-DEPTH"},
		{"PFC quanta +100 (exact by default)", "pfc/xoff-refresh-xon", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 0, func(m *device.Meta, f capFrame) bool { return m.Kind == device.KindPFC && !isXON(m, f) })
			m := meta(c.frames[i].data)
			o := m.L3 + 4 + 2*3
			binary.BigEndian.PutUint16(c.frames[i].data[o:], binary.BigEndian.Uint16(c.frames[i].data[o:])+100)
		}, "PFC-QUANTA"},
		{"drop a BTS", "sfc/suppression-reset", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 3, isBTS)
			c.frames = slices.Delete(c.frames, i, i+1)
		}, "SFC-BTS-COMPLETE"},
		{"add a BTS inside a suppression period", "sfc/suppression-reset", func(t *testing.T, c *capture, in *capture, cs *conformance.Case, inPath string) {
			addBTSInPeriod(t, c, in, 2*time.Microsecond, cs, inPath)
		}, "SFC-BTS-SUPPRESS"},
		{"shift a pause time by 3us", "sfc/suppression-reset", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 1, isBTS)
			p := btsPayload(c.frames[i].data)
			binary.BigEndian.PutUint16(c.frames[i].data[p+2:], binary.BigEndian.Uint16(c.frames[i].data[p+2:])+3)
		}, "SFC-BTS-PAUSE"},
		{"shift a PFC pause by 400 quanta (2us)", "pfc/xoff-refresh-xon", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 1, func(m *device.Meta, f capFrame) bool { return m.Kind == device.KindPFC && !isXON(m, f) })
			m := meta(c.frames[i].data)
			o := m.L3 + 4 + 2*3
			binary.BigEndian.PutUint16(c.frames[i].data[o:], binary.BigEndian.Uint16(c.frames[i].data[o:])+400)
		}, "PFC-QUANTA"},
		{"un-swap a BTS's addresses", "sfc/incast-first-bts", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 0, isBTS)
			m := meta(c.frames[i].data)
			ip := c.frames[i].data[m.L3:]
			var a [4]byte
			copy(a[:], ip[12:16])
			copy(ip[12:16], ip[16:20])
			copy(ip[16:20], a[:])
		}, "SFC-BTS-FIELDS"},
		{"corrupt an ICRC", "sfc/incast-first-bts", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 5, isData)
			c.frames[i].data[len(c.frames[i].data)-1] ^= 0x5a
		}, "DATA-ICRC"},
		{"reorder a flow's data", "sfc/incast-first-bts", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 4, isData)
			mi := meta(c.frames[i].data)
			fi := mi.Flow()
			for j := i + 1; j < len(c.frames); j++ {
				m := meta(c.frames[j].data)
				if m.Kind == device.KindData && m.Flow() == fi && c.frames[j].iface == c.frames[i].iface {
					c.frames[i].data, c.frames[j].data = c.frames[j].data, c.frames[i].data
					return
				}
			}
			t.Fatal("no second frame of the flow")
		}, "DATA-ORDER"},
		{"a PFC XOFF also enabling a class not paused (time 0)", "pfc/xoff-refresh-xon", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 0, func(m *device.Meta, f capFrame) bool { return m.Kind == device.KindPFC && !isXON(m, f) })
			m := meta(c.frames[i].data)
			c.frames[i].data[m.L3+3] |= 0x01 // class 0, its time left 0
		}, "PFC-FIELDS"},
		{"a PFC XOFF with a time set for a class not enabled", "pfc/xoff-refresh-xon", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 0, func(m *device.Meta, f capFrame) bool { return m.Kind == device.KindPFC && !isXON(m, f) })
			m := meta(c.frames[i].data)
			binary.BigEndian.PutUint16(c.frames[i].data[m.L3+4+2*5:], 7) // class 5
		}, "PFC-FIELDS"},
		{"a CIM's VLAN id changed", "cim/incast-sfc-tlv", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 0, func(m *device.Meta, _ capFrame) bool { return m.Kind == device.KindCIM })
			m := meta(c.frames[i].data)
			c.frames[i].data[m.Payload+14] ^= 0x05 // vlan_identifier
		}, "SFC-CIM-FIELDS"},
		{"a Floodgate credit of 7546 octets sent as 0", "floodgate/window-credit-dstpause", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 0, isCredit)
			m := meta(c.frames[i].data)
			binary.BigEndian.PutUint32(c.frames[i].data[m.L3+8:], 0)
		}, "FG-CREDIT"},
		{"drop a PFC XON", "pfc/xoff-refresh-xon", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 0, isXON)
			c.frames = slices.Delete(c.frames, i, i+1)
		}, "PFC-XON"},
		{"drop a data frame", "sfc/incast-first-bts", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 7, isData)
			c.frames = slices.Delete(c.frames, i, i+1)
		}, "DATA-LOSS"},
		{"alter a data frame's payload", "sfc/incast-first-bts", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 9, isData)
			c.frames[i].data[100] ^= 0xff
			m := meta(c.frames[i].data)
			end := m.L3 + m.IPLen
			crc, _ := layersICRC(c.frames[i].data[m.L3:end])
			binary.LittleEndian.PutUint32(c.frames[i].data[end-4:], crc)
		}, "DATA-ALTERED"},
		{"send a BFC frame with a stale sequence", "bfc/pause-resume", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 8, isBFC)
			f := c.frames[i]
			d := append([]byte(nil), f.data...)
			m := meta(d)
			binary.BigEndian.PutUint32(d[m.L3+8:], binary.BigEndian.Uint32(d[m.L3+8:])-1)
			c.frames = append(c.frames, capFrame{f.iface, f.t.Add(100 * time.Nanosecond), d})
		}, "BFC-SEQ"},
		{"BFC frames 300ns late (within 1us)", "bfc/pause-resume", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			for i, f := range c.frames {
				if m := meta(f.data); isBFC(&m, f) {
					c.frames[i].t = f.t.Add(300 * time.Nanosecond)
				}
			}
		}, ""},
		{"inflate a Floodgate credit", "floodgate/window-credit-dstpause", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 0, isCredit)
			m := meta(c.frames[i].data)
			o := m.L3 + 8 // the first entry's credits
			binary.BigEndian.PutUint32(c.frames[i].data[o:], binary.BigEndian.Uint32(c.frames[i].data[o:])+20000)
		}, "FG-CREDIT"},
		{"a Floodgate credit 1000 octets short (counts are exact)", "floodgate/window-credit-dstpause", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 0, isCredit)
			m := meta(c.frames[i].data)
			o := m.L3 + 8
			binary.BigEndian.PutUint32(c.frames[i].data[o:], binary.BigEndian.Uint32(c.frames[i].data[o:])-1000)
		}, "FG-CREDIT"},
		{"drop a dst-pause resume", "floodgate/window-credit-dstpause", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 0, func(m *device.Meta, f capFrame) bool {
				return m.Kind == device.KindExperimental && f.data[m.L3+2] == 3 && binary.BigEndian.Uint16(f.data[m.L3+8:]) == 0
			})
			c.frames = slices.Delete(c.frames, i, i+1)
		}, "FG-RESUME"},
		{"a postcard with I_p 100KB off", "pbfs/congested", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			i := nth(t, c, 2, func(m *device.Meta, _ capFrame) bool { return m.Kind == device.KindPostcard })
			m := meta(c.frames[i].data)
			o := m.Payload + 20
			binary.BigEndian.PutUint32(c.frames[i].data[o:], binary.BigEndian.Uint32(c.frames[i].data[o:])+100000)
		}, "PBFS-COUNTS"},
		{"a flow's last data frame 3us late", "sfc/incast-first-bts", func(t *testing.T, c *capture, _ *capture, _ *conformance.Case, _ string) {
			for i := len(c.frames) - 1; i >= 0; i-- {
				if m := meta(c.frames[i].data); isData(&m, c.frames[i]) {
					c.frames[i].t = c.frames[i].t.Add(3 * time.Microsecond)
					return
				}
			}
		}, "DATA-TIMING"},
	}
	dir := t.TempDir()
	for n, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vdir := filepath.Join(pcaps, tc.vector)
			exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
			in := readCapture(t, filepath.Join(vdir, conformance.InputFile))
			if tc.mutate != nil {
				cs, err := conformance.LoadCase(filepath.Join(vdir, conformance.CaseFile))
				if err != nil {
					t.Fatal(err)
				}
				tc.mutate(t, exp, in, cs, filepath.Join(vdir, conformance.InputFile))
				for i := range exp.frames {
					fixChecksums(exp.frames[i].data)
				}
			}
			devPath := filepath.Join(dir, strings.ReplaceAll(tc.vector, "/", "_")+"-"+string(rune('a'+n))+".pcapng")
			exp.write(t, devPath)
			rep, err := conformance.CheckFiles(filepath.Join(vdir, conformance.CaseFile), filepath.Join(vdir, conformance.InputFile), devPath, conformance.Options{})
			if err != nil {
				t.Fatalf("unusable: %v", err)
			}
			got := rep.Failed()
			if tc.want == "" && len(got) > 0 || tc.want != "" && !slices.Contains(got, tc.want) {
				var b strings.Builder
				rep.WriteText(&b)
				t.Fatalf("failed checks %v, want %q\n%s", got, tc.want, b.String())
			}
			if tc.want != "" {
				d := rep.Check(tc.want).Deviations[0]
				if d.Port == "" || d.Field == "" || d.Expected == "" || d.Actual == "" {
					t.Errorf("deviation lacks a port, field, expected or actual value: %+v", d)
				}
				t.Logf("%s: %s", tc.want, d)
			}
		})
	}
}

// TestAnotherSuppressionPhasePasses checks that a device whose filter
// clears at another phase than the reference's (its clock offset by 1 µs)
// passes device mode although its signals differ from the reference's.
func TestAnotherSuppressionPhasePasses(t *testing.T) {
	vdir := filepath.Join(pcaps, "sfc/suppression-reset")
	c, err := conformance.LoadCase(filepath.Join(vdir, conformance.CaseFile))
	if err != nil {
		t.Fatal(err)
	}
	shifted := *c
	shifted.Epoch = c.Epoch.Add(-time.Microsecond)
	var b bytes.Buffer
	if _, err := conformance.Generate(&shifted, filepath.Join(vdir, conformance.InputFile), &b); err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(filepath.Join(vdir, conformance.ExpectedFile))
	if bytes.Equal(old, b.Bytes()) {
		t.Fatal("the shifted phase changed nothing; the test needs a vector where it matters")
	}
	dev := filepath.Join(t.TempDir(), "dev.pcapng")
	if err := os.WriteFile(dev, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := conformance.CheckDevice(c, filepath.Join(vdir, conformance.InputFile), dev, conformance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != conformance.Pass {
		var s strings.Builder
		rep.WriteText(&s)
		t.Fatalf("a device with another suppression phase fails:\n%s", s.String())
	}
	// Rule 5: what passes only by the property is named in the report.
	if c := rep.Check("SFC-BTS-COMPLETE"); c == nil || c.Accepted == 0 || !strings.Contains(c.Why, "phase") {
		t.Errorf("the signals the device's phase suppresses are not named as accepted: %+v", c)
	}
	ex, _ := conformance.RunExact(c, filepath.Join(vdir, conformance.InputFile), dev, conformance.Options{})
	if ex.Verdict == conformance.Pass {
		t.Error("exact mode should see the phase difference")
	}
}

func layersICRC(ip []byte) (uint32, error) { return layers.ComputeICRC(ip) }

// fixChecksums makes the IPv4 header and UDP checksums of a signal frame
// valid again after a mutation (a faulty device still sends valid
// checksums; rule 3 checks them on their own).
func fixChecksums(b []byte) {
	m := meta(b)
	if !m.IP() || m.Kind == device.KindData {
		return
	}
	if m.IPVersion == 4 {
		ihl := int(b[m.L3]&0x0f) * 4
		b[m.L3+10], b[m.L3+11] = 0, 0
		binary.BigEndian.PutUint16(b[m.L3+10:], ^sum16(b[m.L3:m.L3+ihl], 0))
	}
	if m.Proto == 17 && m.L4 > 0 && m.L4+8 <= len(b) {
		end := min(m.L3+m.IPLen, len(b))
		udp := b[m.L4:end]
		udp[6], udp[7] = 0, 0
		var acc uint32
		addrs := b[m.L3+12 : m.L3+20]
		if m.IPVersion == 6 {
			addrs = b[m.L3+8 : m.L3+40]
		}
		for i := 0; i+1 < len(addrs); i += 2 {
			acc += uint32(binary.BigEndian.Uint16(addrs[i:]))
		}
		acc += 17 + uint32(len(udp))
		c := ^sum16(udp, acc)
		if c == 0 {
			c = 0xffff
		}
		binary.BigEndian.PutUint16(udp[6:], c)
	}
}

func sum16(b []byte, acc uint32) uint16 {
	for i := 0; i+1 < len(b); i += 2 {
		acc += uint32(binary.BigEndian.Uint16(b[i:]))
	}
	if len(b)%2 == 1 {
		acc += uint32(b[len(b)-1]) << 8
	}
	for acc > 0xffff {
		acc = acc&0xffff + acc>>16
	}
	return uint16(acc)
}

func lldpFrame() []byte {
	b := make([]byte, 64)
	copy(b, []byte{0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e, 0x02, 0xaa, 0, 0, 0, 1, 0x88, 0xcc})
	return b
}

func arpFrame() []byte {
	b := make([]byte, 60)
	copy(b, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0xaa, 0, 0, 0, 1, 0x08, 0x06, 0, 1, 8, 0, 6, 4, 0, 1})
	return b
}

// TestLiteralBFCTickerPasses checks that a BFC device that sends a pause
// frame every τ for ever (the literal reading of behaviour.md §6; the
// reference stops once idle) passes device mode.
func TestLiteralBFCTickerPasses(t *testing.T) {
	vdir := filepath.Join(pcaps, "bfc/pause-resume")
	c, err := conformance.LoadCase(filepath.Join(vdir, conformance.CaseFile))
	if err != nil {
		t.Fatal(err)
	}
	literal := *c
	literal.Params = maps.Clone(c.Params)
	literal.Params["always_send"] = conformance.Param{Name: "always_send", Bool: true}
	var b bytes.Buffer
	n, err := conformance.Generate(&literal, filepath.Join(vdir, conformance.InputFile), &b)
	if err != nil {
		t.Fatal(err)
	}
	ex, _ := conformance.RunVector(vdir, conformance.Options{})
	if n <= ex.Frames.Model {
		t.Fatalf("always_send sent %d frames, the reference %d: nothing to test", n, ex.Frames.Model)
	}
	dev := filepath.Join(t.TempDir(), "dev.pcapng")
	if err := os.WriteFile(dev, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := conformance.CheckDevice(c, filepath.Join(vdir, conformance.InputFile), dev, conformance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != conformance.Pass {
		var s strings.Builder
		rep.WriteText(&s)
		t.Fatalf("a device sending BFC frames every tau fails:\n%s", s.String())
	}
}
