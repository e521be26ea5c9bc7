// SPDX-License-Identifier: Apache-2.0

package conformance_test

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	glayers "github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/pcapio"
)

// copyVector copies a corpus vector into a new directory.
func copyVector(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "v")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{conformance.CaseFile, conformance.InputFile, conformance.ExpectedFile} {
		b, err := os.ReadFile(filepath.Join(pcaps, name, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func writeClassic(t *testing.T, path string, c *capture) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := pcapgo.NewWriterNanos(f)
	if err := w.WriteFileHeader(65535, glayers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	for _, fr := range c.frames {
		ci := gopacket.CaptureInfo{Timestamp: fr.t, CaptureLength: len(fr.data), Length: len(fr.data)}
		if err := w.WritePacket(ci, fr.data); err != nil {
			t.Fatal(err)
		}
	}
}

// TestUnusableVectors checks that a vector or capture that cannot be
// compared gives exit status 2 and a message naming the problem.
func TestUnusableVectors(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string // in the error message
	}{
		{"missing directory", func(t *testing.T, dir string) { os.RemoveAll(dir) }, "not a vector directory"},
		{"missing case.yaml", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, conformance.CaseFile)) }, "case.yaml: missing"},
		{"missing input", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, conformance.InputFile)) }, "input.pcapng: missing or unreadable"},
		{"missing expected", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, conformance.ExpectedFile)) }, "expected.pcapng: missing or unreadable"},
		{"input not a capture", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, conformance.InputFile), []byte("this is not a capture\n"), 0o644)
		}, "not a readable capture"},
		{"capture without interface ids, several ports", func(t *testing.T, dir string) {
			in := readCapture(t, filepath.Join(dir, conformance.InputFile))
			writeClassic(t, filepath.Join(dir, conformance.InputFile), in)
		}, "classic pcap has no interface ids, and the case defines 5 ports"},
		{"timestamps going backwards", func(t *testing.T, dir string) {
			in := readCapture(t, filepath.Join(dir, conformance.InputFile))
			in.frames[10].t = in.frames[9].t.Add(-time.Microsecond)
			writeUnsorted(t, filepath.Join(dir, conformance.InputFile), in)
		}, "frame 11: timestamp goes backwards"},
		{"expected timestamps going backwards", func(t *testing.T, dir string) {
			ex := readCapture(t, filepath.Join(dir, conformance.ExpectedFile))
			ex.frames[20].t = ex.frames[19].t.Add(-time.Microsecond)
			writeUnsorted(t, filepath.Join(dir, conformance.ExpectedFile), ex)
		}, "expected.pcapng: frame 21: timestamp goes backwards"},
		{"frame on a port the case does not define", func(t *testing.T, dir string) {
			in := readCapture(t, filepath.Join(dir, conformance.InputFile))
			in.names = append(in.names, "port5", "port6", "port7", "port8", "port9")
			in.frames[3].iface = 9
			in.write(t, filepath.Join(dir, conformance.InputFile))
		}, `frame 4: on interface 9 ("port9"), which is no port of the case (ports: 0, 1, 2, 3, 4`},
		{"capture cut in the middle", func(t *testing.T, dir string) {
			p := filepath.Join(dir, conformance.InputFile)
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:len(b)/2+7], 0o644)
		}, "capture is broken after frame"},
		{"input of tcpdump -i any (Linux cooked)", func(t *testing.T, dir string) {
			p := filepath.Join(dir, conformance.InputFile)
			b, _ := os.ReadFile(p)
			shb := binary.LittleEndian.Uint32(b[4:]) // the first interface's link type follows the section header
			binary.LittleEndian.PutUint16(b[shb+8:], 113)
			os.WriteFile(p, b, 0o644)
		}, ": link type Linux SLL on interface 0: conformance input is Ethernet frames"},
		{"unknown key in case.yaml", func(t *testing.T, dir string) {
			p := filepath.Join(dir, conformance.CaseFile)
			b, _ := os.ReadFile(p)
			os.WriteFile(p, append(b, []byte("colour: blue\n")...), 0o644)
		}, "colour: unknown key"},
		{"model rejects a parameter", func(t *testing.T, dir string) {
			p := filepath.Join(dir, conformance.CaseFile)
			b, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(b), "q_tg: 10KB", "q_tg: 30KB", 1)), 0o644)
		}, "params.q_tg: q_tg = 30000 octets"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyVector(t, "sfc/incast-first-bts")
			tc.setup(t, dir)
			rep, err := conformance.RunVector(dir, conformance.Options{})
			if err == nil || !conformance.IsUnusable(err) {
				t.Fatalf("err = %v, want an unusable-vector error", err)
			}
			if rep.ExitCode() != 2 || rep.Verdict != conformance.Unusable {
				t.Errorf("exit code %d verdict %s, want 2 UNUSABLE", rep.ExitCode(), rep.Verdict)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if !strings.Contains(rep.Error, tc.want) {
				t.Errorf("report error %q does not say %q", rep.Error, tc.want)
			}
		})
	}
}

// writeUnsorted writes a capture keeping the frames' order.
func writeUnsorted(t *testing.T, path string, c *capture) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := newWriter(f, c.names)
	if err != nil {
		t.Fatal(err)
	}
	for _, fr := range c.frames {
		if err := w.Write(fr.iface, fr.t, fr.data, len(fr.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

// TestDeviceModeUnusable checks the device capture's problems too.
func TestDeviceModeUnusable(t *testing.T) {
	dir := copyVector(t, "sfc/incast-first-bts")
	ex := readCapture(t, filepath.Join(dir, conformance.ExpectedFile))
	ex.names = append(ex.names, "port5", "mgmt0")
	ex.frames[0].iface = 6
	dev := filepath.Join(dir, "dev.pcapng")
	ex.write(t, dev)
	rep, err := conformance.CheckFiles(filepath.Join(dir, conformance.CaseFile), filepath.Join(dir, conformance.InputFile), dev, conformance.Options{})
	if !conformance.IsUnusable(err) || rep.ExitCode() != 2 || !strings.Contains(err.Error(), `dev.pcapng: frame`) || !strings.Contains(err.Error(), `"mgmt0"`) {
		t.Fatalf("err %v exit %d", err, rep.ExitCode())
	}
	rep, err = conformance.CheckFiles(filepath.Join(dir, "nope.yaml"), filepath.Join(dir, conformance.InputFile), dev, conformance.Options{})
	if !conformance.IsUnusable(err) || rep.ExitCode() != 2 || !strings.Contains(err.Error(), "nope.yaml: missing") {
		t.Fatalf("err %v exit %d", err, rep.ExitCode())
	}
}

func newWriter(f *os.File, names []string) (*pcapio.Writer, error) {
	return pcapio.NewWriter(f, names...)
}

// TestDeviceModeSurvivesAnyCapture checks every case against every
// capture of the corpus (inputs and expected outputs) as the device's, in
// device mode and in exact mode:
// wrong devices, malformed frames, foreign ports. Each run must end with
// a report or an unusable-vector error, never a panic.
func TestDeviceModeSurvivesAnyCapture(t *testing.T) {
	dirs := vectors(t)
	var caps []string
	for _, d := range dirs {
		caps = append(caps, filepath.Join(d, conformance.InputFile), filepath.Join(d, conformance.ExpectedFile))
	}
	runs := 0
	for i, d := range dirs {
		for j, c := range caps {
			if testing.Short() && (i+j)%5 != 0 {
				continue
			}
			rep, err := conformance.CheckFiles(filepath.Join(d, conformance.CaseFile), filepath.Join(d, conformance.InputFile), c, conformance.Options{MaxShown: 1})
			if err != nil && !conformance.IsUnusable(err) {
				t.Fatalf("%s vs %s: %v", d, c, err)
			}
			if rep == nil || rep.Verdict == "" {
				t.Fatalf("%s vs %s: no verdict", d, c)
			}
			if cs, err := conformance.LoadCase(filepath.Join(d, conformance.CaseFile)); err == nil {
				if rep, err := conformance.RunExact(cs, filepath.Join(d, conformance.InputFile), c, conformance.Options{MaxShown: 1}); err != nil && !conformance.IsUnusable(err) || rep == nil {
					t.Fatalf("exact %s vs %s: %v", d, c, err)
				}
			}
			runs++
		}
	}
	t.Logf("%d device-mode runs", runs)
}

// TestClassicPcapOnePort checks where classic pcap (no interface ids) is
// accepted (conformance.md "A vector": where a vector has one port): the
// output of a case with one port of its own, a NIC's host side being
// implicit and optional in what the device sent, reads as that port, in
// device mode and in exact mode alike (the same verdict as a pcapng of
// that one interface); a NIC's input (host side and wire) and the output
// of a switch with several ports stay unusable.
func TestClassicPcapOnePort(t *testing.T) {
	dir := copyVector(t, "sfc/nic-pause-resume")
	cs := filepath.Join(dir, conformance.CaseFile)
	in := filepath.Join(dir, conformance.InputFile)
	exp := readCapture(t, filepath.Join(dir, conformance.ExpectedFile))
	wire := &capture{names: exp.names[:1]}
	for _, f := range exp.frames {
		if exp.names[f.iface] != "host" {
			wire.frames = append(wire.frames, f)
		}
	}
	wire.frames = append(wire.frames, capFrame{0, exp.frames[len(exp.frames)-1].t.Add(time.Millisecond), lldpFrame()})
	classic, one := filepath.Join(dir, "wire.pcap"), filepath.Join(dir, "wire.pcapng")
	writeClassic(t, classic, wire)
	wire.write(t, one)
	for _, dev := range []string{classic, one} {
		rep, err := conformance.CheckFiles(cs, in, dev, conformance.Options{})
		if err != nil || rep.Verdict != conformance.Pass || rep.ExitCode() != 0 {
			var b strings.Builder
			rep.WriteText(&b)
			t.Fatalf("device mode %s: err %v, verdict %s, want PASS:\n%s", filepath.Base(dev), err, rep.Verdict, b.String())
		}
	}
	// A fault in the classic pcap still fails.
	bad := &capture{names: wire.names}
	for i, f := range wire.frames {
		if m := meta(f.data); i == len(wire.frames)/2 && m.Kind == device.KindData {
			continue
		}
		bad.frames = append(bad.frames, f)
	}
	if len(bad.frames) != len(wire.frames)-1 {
		t.Fatal("no data frame half-way through the wire capture")
	}
	writeClassic(t, classic, bad)
	if rep, err := conformance.CheckFiles(cs, in, classic, conformance.Options{}); err != nil || rep.Verdict != conformance.Fail || rep.Check("DATA-LOSS").Count == 0 {
		t.Fatalf("classic pcap, a data frame dropped: err %v, verdict %v, want FAIL DATA-LOSS", err, rep.Verdict)
	}
	// Exact mode reads it too, with the verdict of the one-interface
	// pcapng: the reference's host frames are missing from both.
	writeClassic(t, classic, wire)
	c, err := conformance.LoadCase(cs)
	if err != nil {
		t.Fatal(err)
	}
	rc, err1 := conformance.RunExact(c, in, classic, conformance.Options{})
	ro, err2 := conformance.RunExact(c, in, one, conformance.Options{})
	if err1 != nil || err2 != nil || rc.Verdict != ro.Verdict || rc.Verdict != conformance.Fail || rc.Check("frames").Count != ro.Check("frames").Count {
		t.Fatalf("exact mode: classic %v %v, pcapng %v %v: want the same FAIL (host frames missing)", rc.Verdict, err1, ro.Verdict, err2)
	}
	// The NIC's input has two ports: classic pcap is unusable there.
	inCap := readCapture(t, in)
	classicIn := filepath.Join(dir, "in.pcap")
	writeClassic(t, classicIn, inCap)
	rep, err := conformance.CheckFiles(cs, classicIn, one, conformance.Options{})
	if !conformance.IsUnusable(err) || rep.ExitCode() != 2 || !strings.Contains(err.Error(), "a NIC's input carries two ports (0, host)") {
		t.Fatalf("NIC input as classic pcap: err %v exit %d, want unusable", err, rep.ExitCode())
	}
	// A switch's output with several ports: unusable.
	sw := copyVector(t, "sfc/incast-first-bts")
	swExp := readCapture(t, filepath.Join(sw, conformance.ExpectedFile))
	writeClassic(t, filepath.Join(sw, "dev.pcap"), swExp)
	rep, err = conformance.CheckFiles(filepath.Join(sw, conformance.CaseFile), filepath.Join(sw, conformance.InputFile), filepath.Join(sw, "dev.pcap"), conformance.Options{})
	if !conformance.IsUnusable(err) || rep.ExitCode() != 2 || !strings.Contains(err.Error(), "classic pcap has no interface ids, and the case defines 5 ports") {
		t.Fatalf("switch output as classic pcap: err %v exit %d, want unusable", err, rep.ExitCode())
	}
	writeClassic(t, filepath.Join(sw, conformance.ExpectedFile), swExp)
	if _, err := conformance.RunVector(sw, conformance.Options{}); !conformance.IsUnusable(err) || !strings.Contains(err.Error(), "the case defines 5 ports") {
		t.Fatalf("exact mode, switch expected as classic pcap: err %v, want unusable", err)
	}
}

// TestDeviceSnappedBackground: a device frame the capture's snap length
// cut is background only when its first octets say so whatever the rest
// held (an LLDP frame of 256 octets cut to 64; an ICMP echo: rule 2, never
// a deviation; probe round 5 had the capture UNUSABLE); it makes the
// capture unusable when a rule judges it or might (a data frame of a
// scenario flow; an IPv6 RoCEv2 frame cut before its QP, which then names
// no flow; a BTS cut inside its UDP header, which read as background "udp"
// and let a spurious signal PASS).
func TestDeviceSnappedBackground(t *testing.T) {
	type extra struct {
		before int    // written just before expected frame before
		data   []byte // captured octets
		orig   int    // octets on the wire
	}
	check := func(vector string, add []extra, cut, cutTo int) (*conformance.Report, error) {
		vdir := filepath.Join(pcaps, vector)
		ex := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
		path := filepath.Join(t.TempDir(), "dev.pcapng")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w, err := newWriter(f, ex.names)
		if err != nil {
			t.Fatal(err)
		}
		for i, fr := range ex.frames {
			for _, e := range add {
				if e.before == i {
					if err := w.Write(fr.iface, fr.t.Add(-time.Nanosecond), e.data, e.orig); err != nil {
						t.Fatal(err)
					}
				}
			}
			data := fr.data
			if i == cut {
				data = data[:cutTo]
			}
			if err := w.Write(fr.iface, fr.t, data, len(fr.data)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return conformance.CheckFiles(filepath.Join(vdir, conformance.CaseFile), filepath.Join(vdir, conformance.InputFile), path, conformance.Options{})
	}
	first := func(vector string, kind device.Kind) (int, []byte) {
		ex := readCapture(t, filepath.Join(pcaps, vector, conformance.ExpectedFile))
		i := slices.IndexFunc(ex.frames, func(f capFrame) bool { return meta(f.data).Kind == kind })
		if i < 0 {
			t.Fatalf("%s: no %v frame", vector, kind)
		}
		return i, ex.frames[i].data
	}
	icmp := mustFrame("ffffffffffff 02bb00000009 0800 4500005400010000400100000a0000090a000001 0800000000010001" + strings.Repeat("00", 56))
	// VLAN-tagged IPv6 with a Hop-by-Hop header, MLDv2 behind it (probe
	// 45: cut to 64, inside the Hop-by-Hop header, it was UNUSABLE), and
	// VLAN-tagged mDNS over IPv6 cut inside its UDP header, ports whole.
	mld := mustFrame("333300000016 02aabbccdd01 8100 0001 86dd 6000000000240001 fe800000000000000000000000000001 ff020000000000000000000000000016 3a00050200000100 8f00000000000001" + strings.Repeat("00", 20))
	mdns6 := mustFrame("3333000000fb 02aabbccdd01 8100 0001 86dd 6000000000280011ff fe800000000000000000000000000001 ff0200000000000000000000000000fb 14e914e900280000" + strings.Repeat("00", 32))
	bi, bts := first("sfc/incast-first-bts", device.KindBTS)
	di, _ := first("sfc/incast-first-bts", device.KindData)
	d6, _ := first("sfc/incast-ipv6", device.KindData)
	for _, tc := range []struct {
		name, vector string
		add          []extra
		cut, cutTo   int
		unusable     bool
	}{
		{"an LLDP frame cut to 64 of 256", "sfc/incast-first-bts", []extra{{3, lldpFrame(), 256}}, -1, 0, false},
		{"an ICMP echo cut to 64", "sfc/incast-first-bts", []extra{{3, icmp[:64], len(icmp)}}, -1, 0, false},
		{"a VLAN-tagged MLD report cut inside its Hop-by-Hop header", "sfc/incast-first-bts", []extra{{3, mld[:64], len(mld)}}, -1, 0, false},
		{"VLAN-tagged mDNS over IPv6 cut inside its UDP header", "sfc/incast-first-bts", []extra{{3, mdns6[:64], len(mdns6)}}, -1, 0, false},
		{"a scenario data frame cut to 60", "sfc/incast-first-bts", nil, di, 60, true},
		{"an IPv6 RoCEv2 data frame cut to 64, before its QP", "sfc/incast-ipv6", nil, d6, 64, true},
		{"a spurious BTS cut to 40, inside its UDP header", "sfc/incast-first-bts", []extra{{bi + 1, bts[:40], len(bts)}}, -1, 0, true},
	} {
		rep, err := check(tc.vector, tc.add, tc.cut, tc.cutTo)
		switch {
		case tc.unusable && (!conformance.IsUnusable(err) || rep.ExitCode() != 2 || !strings.Contains(fmt.Sprint(err), "snap length, and a rule judges it")):
			t.Errorf("%s: want UNUSABLE naming it, got %v (verdict %v)", tc.name, err, rep.Verdict)
		case !tc.unusable && (err != nil || rep.Verdict != conformance.Pass || rep.Background.Total == 0):
			t.Errorf("%s: want PASS with it as background, got %v:\n%s", tc.name, err, failText(rep))
		}
	}
}

func mustFrame(h string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(h, " ", ""))
	if err != nil {
		panic(err)
	}
	return b
}
