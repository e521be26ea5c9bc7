// SPDX-License-Identifier: Apache-2.0

package pcapio

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// TestWriterInterfaces: what NewWriterInterfaces and AddInterfaceOf write
// reads back with each interface's name, link type and if_speed (the
// first interface's too, and one added after frames were written), and
// the frames on their interfaces. A writer given no speed writes the same
// octets as before speeds could be given: the corpus's generated inputs
// depend on it.
func TestWriterInterfaces(t *testing.T) {
	var b bytes.Buffer
	w, err := NewWriterInterfaces(&b, Interface{Name: "p25", LinkType: layers.LinkTypeEthernet, Speed: 25e9}, Interface{Name: "plain", LinkType: layers.LinkTypeEthernet, SnapLen: 128},
		Interface{Name: "sll", LinkType: layers.LinkTypeLinuxSLL, Speed: 40e9})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1_700_000_000, 123_456_789)
	for i := 0; i < 3; i++ {
		if err := w.Write(i, t0.Add(time.Duration(i)), frameData(i+1, 60), 60, "c"+strings.Repeat("x", i)); err != nil {
			t.Fatal(err)
		}
	}
	id, err := w.AddInterfaceOf(Interface{Name: "late", LinkType: layers.LinkTypeEthernet, Speed: 400e9})
	if err != nil || id != 3 {
		t.Fatalf("AddInterfaceOf: id %d, %v", id, err)
	}
	if err := w.Write(3, t0.Add(3), frameData(4, 60), 60); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader("x", bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	want := []Interface{
		{Name: "p25", LinkType: layers.LinkTypeEthernet, Speed: 25e9, Resolution: 1, FCSLen: -1},
		{Name: "plain", LinkType: layers.LinkTypeEthernet, SnapLen: 128, ID: 1, Resolution: 1, FCSLen: -1},
		{Name: "sll", LinkType: layers.LinkTypeLinuxSLL, Speed: 40e9, ID: 2, Resolution: 1, FCSLen: -1},
		{Name: "late", LinkType: layers.LinkTypeEthernet, Speed: 400e9, ID: 3, Resolution: 1, FCSLen: -1},
	}
	for i := range want {
		fr, err := r.Next()
		if err != nil {
			t.Fatalf("frame %d: %v", i+1, err)
		}
		if got := r.Interface(fr.Interface); fr.Interface != i || !reflect.DeepEqual(got, want[i]) || !fr.Time.Equal(t0.Add(time.Duration(i))) ||
			!bytes.Equal(fr.Data, frameData(i+1, 60)) {
			t.Errorf("frame %d: interface %d %+v at %v; want %d %+v at %v", i+1, fr.Interface, got, fr.Time, i, want[i], t0.Add(time.Duration(i)))
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the last frame: %v, want EOF", err)
	}
	// tshark, where installed, reads the amended blocks too.
	if _, err := exec.LookPath("tshark"); err == nil {
		p := filepath.Join(t.TempDir(), "w.pcapng")
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("tshark", "-r", p, "-T", "fields", "-e", "frame.interface_name").Output()
		if err != nil || strings.Fields(string(out))[0] != "p25" || len(strings.Fields(string(out))) != 4 {
			t.Errorf("tshark: %v\n%s", err, out)
		}
	}

	// Without speeds: the octets of the writer before AddInterfaceOf.
	var x, y bytes.Buffer
	w1, err := NewWriter(&x, "a", "b")
	if err != nil {
		t.Fatal(err)
	}
	w1.Write(1, t0, frameData(1, 60), 60)
	w1.Flush()
	w2, err := NewWriterInterfaces(&y, Interface{Name: "a", LinkType: layers.LinkTypeEthernet}, Interface{Name: "b", LinkType: layers.LinkTypeEthernet})
	if err != nil {
		t.Fatal(err)
	}
	w2.Write(1, t0, frameData(1, 60), 60)
	w2.Flush()
	if !bytes.Equal(x.Bytes(), y.Bytes()) || x.Len() == 0 {
		t.Errorf("NewWriter and NewWriterInterfaces without speeds differ:\n%x\n%x", x.Bytes(), y.Bytes())
	}
}

// TestWriterAsPcapgo: for what pcapgo's NgWriter also writes (names,
// interface comment, description, filter and OS, nanosecond times,
// comments, flags, a section's application, comment, hardware and OS),
// Writer writes the same octets: the corpus's generated inputs were
// written by pcapgo and must not change.
func TestWriterAsPcapgo(t *testing.T) {
	sec := SectionInfo{Comment: "lab run 7", Hardware: "x86", OS: "Linux", Application: "app"}
	ifs := []Interface{{Name: "p0", LinkType: layers.LinkTypeEthernet}, {Name: "p1", LinkType: layers.LinkTypeEthernet, Comment: "uplink", Description: "to spine", Filter: "udp port 4791", OS: "sonic"},
		{LinkType: layers.LinkTypeLinuxSLL, SnapLen: 96}}
	t0 := time.Unix(1_700_000_000, 123_456_789)
	frames := []struct {
		iface    int
		n        int
		comments []string
		flags    uint32
		drops    uint64
	}{{0, 60, nil, 0, 0}, {1, 61, []string{"c"}, 0, 0}, {2, 62, []string{"", "two", "three33"}, 0, 7}, {0, 63, nil, 2, 0}, {1, 64, []string{"x"}, 0x01000001, 1 << 40}}

	var got bytes.Buffer
	w, err := NewWriterSection(&got, sec, ifs...)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	ng := func(in Interface) pcapgo.NgInterface {
		lt := in.LinkType
		return pcapgo.NgInterface{Name: in.Name, Comment: in.Comment, Description: in.Description, Filter: in.Filter, OS: in.OS,
			LinkType: lt, SnapLength: in.SnapLen, TimestampResolution: 9}
	}
	pw, err := pcapgo.NewNgWriterInterface(&want, ng(ifs[0]), pcapgo.NgWriterOptions{SectionInfo: pcapgo.NgSectionInfo{Hardware: sec.Hardware, OS: sec.OS, Application: sec.Application, Comment: sec.Comment}})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range ifs[1:] {
		if _, err := pw.AddInterface(ng(in)); err != nil {
			t.Fatal(err)
		}
	}
	for i, f := range frames {
		at := t0.Add(time.Duration(i) * time.Microsecond)
		data := frameData(i, f.n)
		if err := w.WriteOptions(f.iface, at, data, f.n+4, PacketOptions{Comments: f.comments, Flags: f.flags, DropCount: f.drops}); err != nil {
			t.Fatal(err)
		}
		opt := pcapgo.NgPacketOptions{Comments: f.comments}
		if f.flags != 0 {
			opt.Flags = new(pcapgo.NgEpbFlags)
			opt.Flags.FromUint32(f.flags)
		}
		if f.drops != 0 {
			opt.DropCount = &f.drops
		}
		ci := gopacket.CaptureInfo{Timestamp: at, CaptureLength: f.n, Length: f.n + 4, InterfaceIndex: f.iface}
		if err := pw.WritePacketWithOptions(ci, data, opt); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := pw.Flush(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("Writer and pcapgo differ:\n%x\n%x", got.Bytes(), want.Bytes())
	}
}

// TestWriterKeepsMetadata: what Reader reads of a capture (the section's
// comment and origin; each interface's comment, description, filter, OS,
// speed, FCS length and timestamp resolution; each frame's comments and
// whole epb_flags word) is what Writer writes back, so a copy (sfcdump
// read -w) loses none of it; a resolution that is not a power of ten is
// written as nanoseconds, which keeps every time exactly; times pcapng
// cannot hold are errors, not wrapped values. tshark reads the copy with
// the same interfaces, flags and comments.
func TestWriterKeepsMetadata(t *testing.T) {
	long := strings.Repeat("a", 40000) + "\n" + strings.Repeat("b", 40000)
	sec := SectionInfo{Comment: "first\nsecond", Hardware: "hw", OS: "os", Application: "dumpcap"}
	ifs := []Interface{
		{Name: "us", LinkType: layers.LinkTypeEthernet, Comment: long, Description: "d", Filter: "f", OS: "o", Speed: 25e9, FCSLen: 4, Resolution: 1000},
		{Name: "ns", LinkType: layers.LinkTypeRaw, Resolution: 1},
		{Name: "bin", LinkType: layers.LinkTypeNull, Resolution: 976563}, // 2^-10 s, kept; BSD loopback stays so
		{Name: "s", LinkType: layers.LinkTypeEthernet, Resolution: 1e9},
	}
	t0 := time.Unix(1_700_000_000, 123_456_000)
	var b bytes.Buffer
	w, err := NewWriterSection(&b, sec, ifs...)
	if err != nil {
		t.Fatal(err)
	}
	// (3/1024 s past the second, on bin's grid, reads as 2929687 ns.)
	times := []time.Time{t0, t0.Add(789), time.Unix(1_700_000_000, 2_929_687), time.Unix(1_700_000_001, 0)}
	for i := range ifs {
		fr := Frame{Time: times[i], Data: frameData(i, 60), Len: 64, Comments: []string{"k" + strings.Repeat("z", i)}, Flags: uint32(i+1) | 0x20,
			DropCount: uint64(i)}
		if err := w.WriteFrame(i, &fr); err != nil {
			t.Fatal(err)
		}
	}
	// Statistics: two for interface 0 (the last one counts), one with
	// every option for interface 1, none for the others.
	stats := []InterfaceStats{
		{Time: t0, Received: 1, Has: StatsReceived},
		{Time: t0.Add(time.Second), Comment: "end", Start: t0, End: t0.Add(time.Second), Received: 10, Dropped: 3, FilterAccept: 9,
			OSDropped: 2, Delivered: 8, Has: StatsReceived | StatsDropped | StatsFilterAccept | StatsOSDropped | StatsDelivered},
		{Time: t0.Add(2 * time.Second), Dropped: 0, OSDropped: 5, Has: StatsDropped | StatsOSDropped},
	}
	for i, st := range stats {
		if err := w.WriteStats(min(i, 1)^1, st); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := NewWriterSection(io.Discard, SectionInfo{OS: strings.Repeat("o", 65536)}, Interface{}); err == nil {
		t.Error("a section header option longer than an option holds was written")
	}
	if _, err := w.AddInterfaceOf(Interface{Description: strings.Repeat("d", 65536)}); err == nil {
		t.Error("an interface option longer than an option holds was written")
	}
	if err := w.Write(0, time.Unix(-1, 0), frameData(9, 60), 60); err == nil {
		t.Error("a time before 1970 was written")
	}
	if err := w.Write(1, time.Unix(1<<40, 0), frameData(9, 60), 60); err == nil {
		t.Error("a time beyond 64 bits of nanoseconds was written")
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader("x", bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	// A Comment set alone is written as it is, one option, newline and all.
	wantSec := sec
	wantSec.Comments = []string{"first\nsecond"}
	if got := r.Section(); !reflect.DeepEqual(got, wantSec) {
		t.Errorf("section %+v, want %+v", got, wantSec)
	}
	for i := range ifs {
		fr, err := r.Next()
		if err != nil {
			t.Fatalf("frame %d: %v", i+1, err)
		}
		want := ifs[i]
		want.ID = i
		if want.FCSLen == 0 {
			want.FCSLen = -1
		}
		if i == 0 { // too long for an option: split at its newline
			want.Comments = []string{strings.Repeat("a", 40000), strings.Repeat("b", 40000)}
		}
		if got := r.Interface(i); !reflect.DeepEqual(got, want) {
			t.Errorf("interface %d: %+v, want %+v", i, got, want)
		}
		if !fr.Time.Equal(times[i]) || fr.Flags != uint32(i+1)|0x20 || fr.Direction != uint8(i+1)&3 || fr.DropCount != uint64(i) ||
			len(fr.Comments) != 1 || fr.Comments[0] != "k"+strings.Repeat("z", i) || fr.Len != 64 {
			t.Errorf("frame %d: %v flags %#x dir %d comments %q len %d", i+1, fr.Time, fr.Flags, fr.Direction, fr.Comments, fr.Len)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the last frame: %v, want EOF", err)
	}
	// Interface 1 got stats[0]; interface 0 stats[1], then stats[2].
	for i, want := range []InterfaceStats{stats[2], stats[0]} {
		got, ok := r.Stats(i)
		if !ok || !got.Time.Equal(want.Time) || !got.Start.Equal(want.Start) || !got.End.Equal(want.End) {
			t.Errorf("interface %d: stats %+v, %v; want %+v", i, got, ok, want)
		}
		got.Time, got.Start, got.End, want.Time, want.Start, want.End = time.Time{}, time.Time{}, time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("interface %d: stats %+v, want %+v", i, got, want)
		}
	}
	if _, ok := r.Stats(2); ok {
		t.Error("stats for an interface that has none")
	}
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Log("tshark not installed: the copy is not read by tshark")
		return
	}
	p := filepath.Join(t.TempDir(), "m.pcapng")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("tshark", "-r", p, "-T", "fields", "-E", "separator=,", "-e", "frame.interface_name",
		"-e", "frame.interface_description", "-e", "frame.packet_flags_direction", "-e", "frame.drop_count", "-e", "frame.comment").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	want := "us,d,0x00000001,,k\nns,,0x00000002,1,kz\nbin,,0x00000003,2,kzz\ns,,0x00000000,3,kzzz\n"
	if string(out) != want {
		t.Errorf("tshark reads\n%s\nwant\n%s", out, want)
	}
}

// TestDamagedCompressedStream: a gzip member whose checksum fails at its
// end is reported as a damaged gzip stream after the frames read, saying
// they may be damaged too (the checksum covers them), not "the last good
// one"; a capture that ends inside its first record says "before the
// first frame", not "after frame 0".
func TestDamagedCompressedStream(t *testing.T) {
	var b bytes.Buffer
	w, err := NewWriter(&b, "p")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		w.Write(0, time.Unix(1, int64(i)), frameData(i, 60), 60)
	}
	w.Flush()
	var z bytes.Buffer
	gw := gzip.NewWriter(&z)
	gw.Write(b.Bytes())
	gw.Close()
	gz := z.Bytes()
	gz[len(gz)-8] ^= 1 // the CRC-32 of the trailer
	r, err := NewReader("x.gz", bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		_, err = r.Next()
		if err != nil {
			break
		}
		n++
	}
	if n != 3 || !errors.Is(err, gzip.ErrChecksum) || !strings.Contains(err.Error(), "x.gz: after frame 3: the gzip stream is damaged: invalid checksum") ||
		!strings.Contains(err.Error(), "may be damaged too") {
		t.Errorf("%d frames, then %v", n, err)
	}

	// A capture error in a compressed input says the compressed stream
	// may be what is damaged (its checksum comes only at the end), and
	// how to check it; the same error uncompressed does not.
	broken := bytes.Clone(b.Bytes())
	broken[len(broken)-1] ^= 0x40 // the last block's trailing length
	for _, c := range []struct {
		name, kind string
		data       []byte
	}{{"plain.pcapng", "", broken}, {"y.pcapng.gz", "gzip", gzipped(broken)}} {
		r, err := NewReader(c.name, bytes.NewReader(c.data))
		if err != nil {
			t.Fatal(err)
		}
		for err == nil {
			_, err = r.Next()
		}
		hint := "the capture is gzip-compressed: damage to the compressed stream reads like this; `gzip -t y.pcapng.gz` checks it"
		if !strings.Contains(err.Error(), "trailing length") || strings.Contains(err.Error(), hint) != (c.kind != "") {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	// A damaged gzip header says so, and how to check the file.
	hdr := gzipped(b.Bytes())
	hdr[3] = 0xff // every flag, reserved ones too
	if _, err := NewReader("h.gz", bytes.NewReader(hdr)); err == nil || !strings.Contains(err.Error(), "h.gz: gzip: the header is damaged or cut short") {
		t.Errorf("a damaged gzip header: %v", err)
	}

	pc := pcapCaptures()
	for name, data := range pc {
		r, err := NewReader(name, bytes.NewReader(data[:24+10]))
		if err != nil {
			continue
		}
		if _, err := r.Next(); err == nil || !strings.Contains(err.Error(), name+": before the first frame: ") {
			t.Errorf("%s cut in its first record: %v", name, err)
		}
		break
	}
}

// gzipped returns b gzip-compressed.
func gzipped(b []byte) []byte {
	var z bytes.Buffer
	gw := gzip.NewWriter(&z)
	gw.Write(b)
	gw.Close()
	return z.Bytes()
}

// TestExplicitZeroOptions: an epb_flags or epb_dropcount of 0 that a
// block carries reads as carried (HasFlags, HasDropCount) and is written
// back by WriteFrame, octet for octet; one the block lacks stays absent.
func TestExplicitZeroOptions(t *testing.T) {
	var orig bytes.Buffer
	w, err := NewWriterInterfaces(&orig, Interface{Name: "p0", LinkType: 1, Resolution: 1})
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 60)
	at := time.Unix(1_700_000_000, 0)
	for _, o := range []PacketOptions{
		{HasFlags: true, HasDropCount: true},
		{HasFlags: true},
		{HasDropCount: true},
		{},
		{Flags: 1, DropCount: 3},
	} {
		if err := w.WriteOptions(0, at, data, 60, o); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader("orig", bytes.NewReader(orig.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var copied bytes.Buffer
	cw, err := NewWriterInterfaces(&copied, r.Interface(0))
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]bool{{true, true}, {true, false}, {false, true}, {false, false}, {true, true}}
	for i, wt := range want {
		fr, err := r.Next()
		if err != nil {
			t.Fatalf("frame %d: %v", i+1, err)
		}
		if fr.HasFlags != wt[0] || fr.HasDropCount != wt[1] {
			t.Errorf("frame %d: HasFlags %v, HasDropCount %v; want %v", i+1, fr.HasFlags, fr.HasDropCount, wt)
		}
		if err := cw.WriteFrame(0, fr); err != nil {
			t.Fatal(err)
		}
	}
	if err := cw.Flush(); err != nil {
		t.Fatal(err)
	}
	// The packet blocks follow the section and interface blocks, which
	// both writers write alike.
	if !bytes.Equal(copied.Bytes(), orig.Bytes()) {
		t.Errorf("the copy differs from the original:\n%x\n%x", copied.Bytes(), orig.Bytes())
	}
}

// TestWriterKeepsEachComment: a section, an interface and a statistics
// block with several comment options, empty ones among them, are read
// as each comment in order (Comments) and joined (Comment), and a copy
// writes them back one option each, as they were, not as one comment
// joined by newlines; a Comment a program changed after reading is
// written instead.
func TestWriterKeepsEachComment(t *testing.T) {
	w := &ng{}
	bo := w.bo()
	var b []byte
	b = bo.AppendUint32(b, 0x1a2b3c4d)
	b = bo.AppendUint16(b, 1)
	b = bo.AppendUint16(b, 0)
	b = bo.AppendUint64(b, ^uint64(0))
	secList := []string{"", "a", "", "b\nc"}
	for _, c := range secList {
		b = w.opt(b, 1, []byte(c))
	}
	b = w.opt(b, 4, []byte("dumpcap"))
	b = w.opt(b, 0, nil)
	w.block(0x0a0d0d0a, b)
	ifList := []string{"x", ""}
	w.idb("p0", 1, 0, w.opt(nil, 1, []byte(ifList[0])), w.opt(nil, 1, nil))
	w.epb(0, 1, frameData(1, 60), 60)
	var isb []byte
	isb = bo.AppendUint32(isb, 0)
	isb = bo.AppendUint32(isb, 0)
	isb = bo.AppendUint32(isb, 2)
	stList := []string{"", ""}
	for _, c := range stList {
		isb = w.opt(isb, 1, []byte(c))
	}
	isb = w.opt(isb, 0, nil)
	w.block(5, isb)

	read := func(data []byte) (SectionInfo, Interface, InterfaceStats) {
		t.Helper()
		r, err := NewReader("x", bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
		}
		st, ok := r.Stats(0)
		if !ok {
			t.Fatal("no statistics read")
		}
		return r.Section(), r.Interface(0), st
	}
	sec, in, st := read(w.buf)
	if !reflect.DeepEqual(sec.Comments, secList) || sec.Comment != "a\n\nb\nc" {
		t.Errorf("section comments %q, joined %q", sec.Comments, sec.Comment)
	}
	if !reflect.DeepEqual(in.Comments, ifList) || in.Comment != "x\n" {
		t.Errorf("interface comments %q, joined %q", in.Comments, in.Comment)
	}
	if !reflect.DeepEqual(st.Comments, stList) || st.Comment != "" {
		t.Errorf("statistics comments %q, joined %q", st.Comments, st.Comment)
	}

	copyOf := func(sec SectionInfo, in Interface, st InterfaceStats) []byte {
		t.Helper()
		var out bytes.Buffer
		cw, err := NewWriterSection(&out, sec, in)
		if err != nil {
			t.Fatal(err)
		}
		if err := cw.Write(0, time.Unix(1, 0), frameData(1, 60), 60); err != nil {
			t.Fatal(err)
		}
		if err := cw.WriteStats(0, st); err != nil {
			t.Fatal(err)
		}
		if err := cw.Flush(); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	sec2, in2, st2 := read(copyOf(sec, in, st))
	if !reflect.DeepEqual(sec2.Comments, secList) || !reflect.DeepEqual(in2.Comments, ifList) || !reflect.DeepEqual(st2.Comments, stList) {
		t.Errorf("copy: comments %q, %q, %q; want %q, %q, %q", sec2.Comments, in2.Comments, st2.Comments, secList, ifList, stList)
	}

	// Comments changed after reading: the new Comment is written.
	sec.Comment, in.Comment, st.Comment = "mine", "", "s1\ns2"
	sec3, in3, st3 := read(copyOf(sec, in, st))
	if !reflect.DeepEqual(sec3.Comments, []string{"mine"}) || in3.Comments != nil || !reflect.DeepEqual(st3.Comments, []string{"s1\ns2"}) {
		t.Errorf("changed: comments %q, %q, %q", sec3.Comments, in3.Comments, st3.Comments)
	}
}

// rawStamps returns the if_tsresol of each interface block of a
// little-endian pcapng b (6 when it has none) and the timestamp of each
// enhanced packet block, as the octets say them.
func rawStamps(b []byte) (res []byte, ts []uint64) {
	for len(b) >= 12 {
		typ, l := binary.LittleEndian.Uint32(b), int(binary.LittleEndian.Uint32(b[4:]))
		body := b[8 : l-4]
		switch typ {
		case 1:
			r := byte(6)
			for o := body[8:]; len(o) >= 4; {
				code, n := binary.LittleEndian.Uint16(o), int(binary.LittleEndian.Uint16(o[2:]))
				if code == 9 && n == 1 {
					r = o[4]
				}
				o = o[min(len(o), 4+(n+3)&^3):]
			}
			res = append(res, r)
		case 6:
			ts = append(ts, uint64(binary.LittleEndian.Uint32(body[4:]))<<32|uint64(binary.LittleEndian.Uint32(body[8:])))
		}
		b = b[l:]
	}
	return res, ts
}

// TestWriterKeepsResolution: a copy (sfcdump read -w) keeps each
// interface's if_tsresol and its frames' timestamps as the capture has
// them, tick for tick, for every resolution from 1 s to 1 ns, binary ones
// too (2^-10 s is not a whole number of nanoseconds: they were written in
// nanoseconds, rounded); a resolution finer than 1 ns, which a time.Time
// does not hold, is written in nanoseconds.
func TestWriterKeepsResolution(t *testing.T) {
	const sec = 17_000_000 // (10^12 units a second count 213 days in 64 bits)
	for _, c := range []struct {
		tsresol, want byte
		ticks         []uint64 // past sec
	}{
		{0x80 | 10, 0x80 | 10, []uint64{0, 1, 3, 511, 1023}},
		{0x80 | 1, 0x80 | 1, []uint64{0, 1}},
		{0x80 | 20, 0x80 | 20, []uint64{1, 2, 1<<20 - 1}},
		{0x80 | 29, 0x80 | 29, []uint64{1, 2, 3, 1<<29 - 1}},
		{0, 0, []uint64{0}},
		{3, 3, []uint64{1, 999}},
		{6, 6, []uint64{1, 999_999}},
		{9, 9, []uint64{1, 999_999_999}},
		{0x80 | 30, 9, []uint64{1, 2, 3, 1<<30 - 1}}, // finer than 1 ns
		{12, 9, []uint64{1, 1500, 999_999_999_999}},
	} {
		w := (&ng{}).shb().idb("p", 1, 0, (&ng{}).opt(nil, 9, []byte{c.tsresol}))
		div := uint64(1)
		for i := byte(0); i < c.tsresol&0x7f; i++ {
			if c.tsresol&0x80 != 0 {
				div *= 2
			} else {
				div *= 10
			}
		}
		for i, tk := range c.ticks {
			w.epb(0, sec*div+tk, frameData(i, 60), 60)
		}
		g := readAllNext(w.buf, nil)
		if g.open != nil || g.err != nil {
			t.Fatalf("if_tsresol %#x: %v %v", c.tsresol, g.open, g.err)
		}
		var out bytes.Buffer
		cw, err := NewWriterInterfaces(&out, g.ifaces...)
		if err != nil {
			t.Fatal(err)
		}
		for i := range g.frames {
			if err := cw.WriteFrame(0, &g.frames[i]); err != nil {
				t.Fatal(err)
			}
		}
		cw.Flush()
		res, ts := rawStamps(out.Bytes())
		wantTS := make([]uint64, len(c.ticks))
		for i, tk := range c.ticks {
			if c.want == c.tsresol {
				wantTS[i] = sec*div + tk
			} else { // in nanoseconds, as the Reader read them
				wantTS[i] = uint64(g.frames[i].Time.UnixNano())
			}
		}
		if len(res) != 1 || res[0] != c.want || !slices.Equal(ts, wantTS) {
			t.Errorf("if_tsresol %#x: copied as %x, timestamps %v; want %#x, %v", c.tsresol, res, ts, c.want, wantTS)
		}
		// And read back, the same times.
		b := readAllNext(out.Bytes(), nil)
		for i := range b.frames {
			if !b.frames[i].Time.Equal(g.frames[i].Time) {
				t.Errorf("if_tsresol %#x: frame %d read back at %v, want %v", c.tsresol, i+1, b.frames[i].Time, g.frames[i].Time)
			}
		}
	}
}
