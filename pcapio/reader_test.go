// SPDX-License-Identifier: Apache-2.0

package pcapio

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// got is what a reader gave: the frames (copied) and how it ended.
type got struct {
	frames []Frame
	ifaces []Interface
	err    error // nil: io.EOF
	open   error
}

func copyFrame(f *Frame) Frame {
	c := *f
	c.Data = bytes.Clone(f.Data)
	c.Comments = append([]string(nil), f.Comments...)
	if len(c.Comments) == 0 {
		c.Comments = nil
	}
	return c
}

func readAllNext(data []byte, src io.Reader) got {
	if src == nil {
		src = bytes.NewReader(data)
	}
	r, err := NewReader("x", src)
	if err != nil {
		return got{open: err}
	}
	return drainNext(r)
}

// drainNext reads r to its end with Next.
func drainNext(r *Reader) got {
	var g got
	for {
		fr, err := r.Next()
		if err != nil {
			if err != io.EOF {
				g.err = err
			}
			break
		}
		g.frames = append(g.frames, copyFrame(fr))
	}
	for i := 0; i < r.NInterfaces(); i++ {
		g.ifaces = append(g.ifaces, r.Interface(i))
	}
	return g
}

func readAllBatch(data []byte, src io.Reader, limit int) got {
	if src == nil {
		src = bytes.NewReader(data)
	}
	r, err := NewReader("x", src)
	if err != nil {
		return got{open: err}
	}
	var g got
	// Batches are kept (not copied) until the end, three at a time
	// recycled, as sfcdump does: a frame must stay valid while its
	// batch is not read into again.
	var ring [3]Batch
	var held [3][]Frame
	for i := 0; ; i++ {
		b := &ring[i%3]
		for _, f := range held[i%3] {
			g.frames = append(g.frames, copyFrame(&f))
		}
		held[i%3] = nil
		err := r.ReadBatch(b, limit)
		if err != nil {
			for j := i + 1; j < i+3; j++ {
				for _, f := range held[j%3] {
					g.frames = append(g.frames, copyFrame(&f))
				}
			}
			if err != io.EOF {
				g.err = err
			}
			break
		}
		if len(b.Frames) == 0 {
			panic("empty batch without an error")
		}
		held[i%3] = b.Frames
	}
	for i := 0; i < r.NInterfaces(); i++ {
		g.ifaces = append(g.ifaces, r.Interface(i))
	}
	return g
}

func readAllOracle(data []byte) got {
	r, err := newOracle("x", bytes.NewReader(data))
	if err != nil {
		return got{open: err}
	}
	var g got
	for {
		fr, err := r.Next()
		if err != nil {
			if err != io.EOF {
				g.err = err
			}
			break
		}
		g.frames = append(g.frames, copyFrame(fr))
	}
	for i := 0; i < r.NInterfaces(); i++ {
		g.ifaces = append(g.ifaces, r.Interface(i))
	}
	return g
}

// same reports how a and b differ ("" when they do not): frames, end
// (error or not, and the last good frame), interfaces.
func same(a, b got) string {
	if (a.open == nil) != (b.open == nil) {
		return fmt.Sprintf("open: %v / %v", a.open, b.open)
	}
	if a.open != nil {
		return ""
	}
	if len(a.frames) != len(b.frames) {
		return fmt.Sprintf("%d / %d frames (errors %v / %v)", len(a.frames), len(b.frames), a.err, b.err)
	}
	for i := range a.frames {
		if !reflect.DeepEqual(a.frames[i], b.frames[i]) {
			return fmt.Sprintf("frame %d:\n%+v\n%+v", i+1, a.frames[i], b.frames[i])
		}
	}
	if (a.err == nil) != (b.err == nil) {
		return fmt.Sprintf("end: %v / %v", a.err, b.err)
	}
	var fa, fb *FrameError
	if a.err != nil && (!errors.As(a.err, &fa) || !errors.As(b.err, &fb) || fa.LastGood != fb.LastGood) {
		return fmt.Sprintf("errors %v / %v", a.err, b.err)
	}
	if !reflect.DeepEqual(a.ifaces, b.ifaces) {
		return fmt.Sprintf("interfaces %v / %v", a.ifaces, b.ifaces)
	}
	return ""
}

// ng builds pcapng blocks.
type ng struct {
	be  bool
	buf []byte
}

func (w *ng) bo() binary.AppendByteOrder {
	if w.be {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

func (w *ng) block(typ uint32, body []byte) *ng {
	bo := w.bo()
	body = append(body, make([]byte, (4-len(body)%4)%4)...)
	l := uint32(12 + len(body))
	w.buf = bo.AppendUint32(w.buf, typ)
	w.buf = bo.AppendUint32(w.buf, l)
	w.buf = append(w.buf, body...)
	w.buf = bo.AppendUint32(w.buf, l)
	return w
}

func (w *ng) opt(dst []byte, code uint16, v []byte) []byte {
	bo := w.bo()
	dst = bo.AppendUint16(dst, code)
	dst = bo.AppendUint16(dst, uint16(len(v)))
	dst = append(dst, v...)
	return append(dst, make([]byte, (4-len(v)%4)%4)...)
}

func (w *ng) shb() *ng {
	bo := w.bo()
	var b []byte
	b = bo.AppendUint32(b, 0x1a2b3c4d)
	b = bo.AppendUint16(b, 1)
	b = bo.AppendUint16(b, 0)
	b = bo.AppendUint64(b, ^uint64(0))
	b = w.opt(b, 4, []byte("test"))
	b = w.opt(b, 0, nil)
	return w.block(0x0a0d0d0a, b)
}

func (w *ng) idb(name string, link uint16, snap uint32, opts ...[]byte) *ng {
	bo := w.bo()
	var b []byte
	b = bo.AppendUint16(b, link)
	b = bo.AppendUint16(b, 0)
	b = bo.AppendUint32(b, snap)
	if name != "" {
		b = w.opt(b, 2, []byte(name))
	}
	for _, o := range opts {
		b = append(b, o...)
	}
	if name != "" || len(opts) > 0 {
		b = w.opt(b, 0, nil)
	}
	return w.block(1, b)
}

func (w *ng) epb(iface uint32, ts uint64, data []byte, orig int, comments ...string) *ng {
	bo := w.bo()
	var b []byte
	b = bo.AppendUint32(b, iface)
	b = bo.AppendUint32(b, uint32(ts>>32))
	b = bo.AppendUint32(b, uint32(ts))
	b = bo.AppendUint32(b, uint32(len(data)))
	b = bo.AppendUint32(b, uint32(orig))
	b = append(b, data...)
	b = append(b, make([]byte, (4-len(data)%4)%4)...)
	for _, c := range comments {
		b = w.opt(b, 1, []byte(c))
	}
	if len(comments) > 0 {
		b = w.opt(b, 0, nil)
	}
	return w.block(6, b)
}

func (w *ng) opb(iface uint16, ts uint64, data []byte) *ng {
	bo := w.bo()
	var b []byte
	b = bo.AppendUint16(b, iface)
	b = bo.AppendUint16(b, 0)
	b = bo.AppendUint32(b, uint32(ts>>32))
	b = bo.AppendUint32(b, uint32(ts))
	b = bo.AppendUint32(b, uint32(len(data)))
	b = bo.AppendUint32(b, uint32(len(data)))
	b = append(b, data...)
	return w.block(2, b)
}

func (w *ng) spb(data []byte, orig int) *ng {
	b := w.bo().AppendUint32(nil, uint32(orig))
	return w.block(3, append(b, data...))
}

func frameData(i, n int) []byte {
	b := make([]byte, n)
	for j := range b {
		b[j] = byte(i*7 + j)
	}
	if n >= 14 {
		b[12], b[13] = 0x08, 0x00
	}
	return b
}

// ngCaptures are pcapng captures that exercise the format: both byte
// orders, sections, interfaces met along the way, resolutions and offsets,
// comments, simple, obsolete and unknown blocks.
func ngCaptures() map[string][]byte {
	out := map[string][]byte{}
	for _, be := range []bool{false, true} {
		w := &ng{be: be}
		ns := w.opt(nil, 9, []byte{9})
		bin := w.opt(nil, 9, []byte{0x80 | 20})
		off := w.opt(nil, 14, binary.LittleEndian.AppendUint64(nil, 1000))
		if be {
			off = w.opt(nil, 14, binary.BigEndian.AppendUint64(nil, 1000))
		}
		w.shb().idb("port0", 1, 0).idb("", 1, 64, ns).
			epb(0, 1_700_000_000_123_456, frameData(1, 60), 60).
			epb(1, 1_700_000_000_123_456_789, frameData(2, 61), 1500, "a comment", "").
			block(5, make([]byte, 12)).      // interface statistics
			block(4, make([]byte, 4)).       // name resolution
			block(0x0bad, make([]byte, 40)). // custom
			idb("late", 1, 0, bin, off).
			epb(2, 3<<20|12345, frameData(3, 62), 62, "x").
			spb(frameData(4, 100), 100).
			opb(1, 42, frameData(5, 63)).
			shb().idb("second-section", 1, 0).
			epb(0, 5, frameData(6, 0), 0).
			epb(0, 6, frameData(7, 300000), 300000)
		out[fmt.Sprintf("sections-be=%v", be)] = w.buf
	}
	// Written by pcapgo, the way the project writes captures.
	var b bytes.Buffer
	pw, _ := NewWriter(&b, "a", "b")
	for i := 0; i < 50; i++ {
		var c []string
		if i%7 == 0 {
			c = []string{fmt.Sprint("frame ", i)}
		}
		pw.Write(i%2, time.Unix(1700000000, int64(i)*1000).UTC(), frameData(i, 60+i), 60+i, c...)
	}
	pw.Flush()
	out["pcapio-writer"] = b.Bytes()
	return out
}

// pcapCaptures are classic pcaps in both byte orders and resolutions.
func pcapCaptures() map[string][]byte {
	out := map[string][]byte{}
	for _, nanos := range []bool{false, true} {
		var b bytes.Buffer
		var w *pcapgo.Writer
		if nanos {
			w = pcapgo.NewWriterNanos(&b)
		} else {
			w = pcapgo.NewWriter(&b)
		}
		w.WriteFileHeader(65535, layers.LinkTypeEthernet)
		for i := 0; i < 40; i++ {
			d := frameData(i, 14+i*3)
			w.WritePacket(gopacket.CaptureInfo{Timestamp: time.Unix(1700000000+int64(i), int64(i)*1001).UTC(), CaptureLength: len(d), Length: len(d) + i}, d)
		}
		out[fmt.Sprintf("pcap-nanos=%v", nanos)] = b.Bytes()
		// The same, big-endian.
		be := bytes.Clone(b.Bytes())
		swap := func(o int, n int) {
			for i, j := o, o+n-1; i < j; i, j = i+1, j-1 {
				be[i], be[j] = be[j], be[i]
			}
		}
		swap(0, 4)
		swap(4, 2)
		swap(6, 2)
		swap(8, 4)
		swap(12, 4)
		swap(16, 4)
		swap(20, 4)
		for o := 24; o < len(be); {
			cl := int(binary.LittleEndian.Uint32(be[o+8:]))
			for k := 0; k < 4; k++ {
				swap(o+4*k, 4)
			}
			o += 16 + cl
		}
		out[fmt.Sprintf("pcap-be-nanos=%v", nanos)] = be
	}
	// A record with an absurd fraction (pcapgo multiplies it in 32 bits).
	p := bytes.Clone(out["pcap-nanos=false"])
	binary.LittleEndian.PutUint32(p[24+4:], 4_300_000)
	out["pcap-odd-fraction"] = p
	return out
}

func corpus(t testing.TB) map[string][]byte {
	out := ngCaptures()
	for k, v := range pcapCaptures() {
		out[k] = v
	}
	files, _ := filepath.Glob("../pcaps/*.pcapng")
	more, _ := filepath.Glob("../pcaps/*/*/*.pcapng")
	for _, f := range append(files, more...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = b
	}
	plain := make(map[string][]byte, len(out))
	for k, v := range out {
		plain[k] = v
	}
	for k, v := range plain {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(v)
		zw.Close()
		out[k+".gz"] = z.Bytes()
	}
	return out
}

// TestReaderMatchesPcapgo reads every capture of the corpus with Next and
// with ReadBatch (several limits, whole reads and one octet at a time) and
// compares with the pcapgo-based reader pcapio had: the same frames
// (number, time, interface, lengths, data, comments), interfaces and end.
func TestReaderMatchesPcapgo(t *testing.T) {
	for name, data := range corpus(t) {
		want := readAllOracle(data)
		if want.open != nil || want.err != nil || len(want.frames) == 0 {
			t.Fatalf("%s: the oracle reads %d frames, %v %v", name, len(want.frames), want.open, want.err)
		}
		for _, c := range []struct {
			how string
			g   got
		}{
			{"Next", readAllNext(data, nil)},
			{"Next, one octet per read", readAllNext(data, iotest.OneByteReader(bytes.NewReader(data)))},
			{"ReadBatch", readAllBatch(data, nil, 0)},
			{"ReadBatch of 3", readAllBatch(data, nil, 3)},
			{"ReadBatch, half reads", readAllBatch(data, iotest.HalfReader(bytes.NewReader(data)), 0)},
		} {
			if d := same(c.g, want); d != "" {
				t.Errorf("%s, %s: %s", name, c.how, d)
			}
		}
	}
}

// TestReaderTruncated cuts captures at every octet: the new reader gives
// the frames before the cut and then a *FrameError naming the last good
// one, like the oracle, or io.EOF exactly where a record ends. (pcapgo
// takes a classic record header with no data after it for the end of the
// capture; pcapio calls it a truncated record.)
func TestReaderTruncated(t *testing.T) {
	for name, data := range corpus(t) {
		if strings.HasSuffix(name, ".gz") || len(data) > 4500 {
			continue
		}
		// Every octet of the first 1000, then a stride that visits
		// every offset modulo 4 (the pcapng alignment).
		for cut := 1; cut < len(data); cut += 1 + 4*min(1, cut/1000) {
			d := data[:cut]
			want := readAllOracle(d)
			g := readAllNext(d, nil)
			if diff := same(g, want); diff != "" {
				if want.err == nil && g.err != nil && len(g.frames) == len(want.frames) && !strings.HasPrefix(name, "sections") && !strings.Contains(name, "pcapng") {
					continue // the record header with no data
				}
				if want.open != nil && g.open == nil && len(g.frames) == 0 {
					continue // a section header and nothing else: empty, not broken
				}
				t.Errorf("%s cut at %d: %s", name, cut, diff)
				break
			}
			if b := readAllBatch(d, nil, 2); same(b, g) != "" {
				t.Errorf("%s cut at %d: ReadBatch %s", name, cut, same(b, g))
				break
			}
		}
	}
}

// TestReaderErrors: what the reader refuses, and how.
// TestPcapngOtherLinkTypes: a pcapng interface of a link type sfcdump does
// not decode (802.11, 105) does not end the capture: its frames are read
// with their link type, and those of the Ethernet interfaces beside it
// (probe round 4: a capture with one such interface was refused whole,
// its PFC frames never shown). A classic pcap of such a link type is
// still refused (TestReaderErrors).
func TestPcapngOtherLinkTypes(t *testing.T) {
	raw := (&ng{}).shb().idb("w", 105, 0).epb(0, 1, frameData(1, 60), 60)
	late := (&ng{}).shb().idb("p", 1, 0).epb(0, 1, frameData(1, 60), 60).idb("q", 105, 0).epb(1, 1, frameData(2, 60), 60).epb(0, 1, frameData(3, 60), 60)
	for _, c := range []struct {
		name  string
		data  []byte
		links []layers.LinkType
	}{
		{"802.11 alone", raw.buf, []layers.LinkType{105}},
		{"Ethernet, then an 802.11 interface", late.buf, []layers.LinkType{layers.LinkTypeEthernet, 105, layers.LinkTypeEthernet}},
	} {
		r, err := NewReader("x", bytes.NewReader(c.data))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []layers.LinkType
		for {
			fr, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: after %d frames: %v", c.name, len(got), err)
			}
			got = append(got, fr.LinkType)
		}
		if !slices.Equal(got, c.links) {
			t.Errorf("%s: frames of link types %v, want %v", c.name, got, c.links)
		}
	}
}

func TestReaderErrors(t *testing.T) {
	eth := func(w *ng) *ng { return w.shb().idb("p", 1, 0) }
	badIface := eth(&ng{}).epb(0, 1, frameData(1, 60), 60).epb(3, 1, frameData(1, 60), 60)
	past := eth(&ng{}).epb(0, 1, frameData(1, 60), 60)
	binary.LittleEndian.PutUint32(past.buf[len(past.buf)-72:], 1000) // captured length past the block
	trailer := eth(&ng{}).epb(0, 1, frameData(1, 60), 60)
	trailer.buf[len(trailer.buf)-1] = 9
	// if_fcslen and if_tsoffset cut short still end the capture (only a
	// malformed if_speed or if_tsresol is ignored: TestIgnoredInterfaceOptions).
	fcs2 := (&ng{}).shb().idb("p", 1, 0, (&ng{}).opt(nil, 13, []byte{4, 0}))
	lateOff := eth(&ng{}).epb(0, 1, frameData(1, 60), 60).shb().idb("q", 1, 0, (&ng{}).opt(nil, 14, []byte{1, 2, 3, 4})).epb(0, 1, frameData(1, 60), 60)
	pc := pcapCaptures()["pcap-nanos=false"]
	snap := bytes.Clone(pc)
	binary.LittleEndian.PutUint32(snap[24+8:], 300000)
	binary.LittleEndian.PutUint32(snap[24+12:], 300000)
	linkRaw := bytes.Clone(pc)
	linkRaw[20] = 105
	// A classic pcap whose snap length is 0xFFFFFFFF and whose second
	// record claims 1 GiB: refused from its header, never read.
	bomb := bytes.Clone(pc[:24+16+int(binary.LittleEndian.Uint32(pc[24+8:]))])
	binary.LittleEndian.PutUint32(bomb[16:], 0xFFFFFFFF)
	bomb = append(bomb, pc[24:24+16]...)
	binary.LittleEndian.PutUint32(bomb[len(bomb)-8:], 1<<30)
	binary.LittleEndian.PutUint32(bomb[len(bomb)-4:], 1<<30)
	odd := eth(&ng{})
	odd.buf = binary.LittleEndian.AppendUint32(odd.buf, 6)
	odd.buf = binary.LittleEndian.AppendUint32(odd.buf, 91)
	odd.buf = binary.LittleEndian.AppendUint32(odd.buf, 0)
	bigPacket := eth(&ng{})
	bigPacket.buf = binary.LittleEndian.AppendUint32(bigPacket.buf, 6)
	bigPacket.buf = binary.LittleEndian.AppendUint32(bigPacket.buf, 20<<20)
	bigPacket.buf = binary.LittleEndian.AppendUint32(bigPacket.buf, 0)
	// An option that claims 200 octets before a whole if_speed; an
	// if_speed of 4 octets.
	optPast := (&ng{}).shb()
	{
		var o []byte
		o = binary.LittleEndian.AppendUint16(o, 1)
		o = binary.LittleEndian.AppendUint16(o, 0)
		o = binary.LittleEndian.AppendUint32(o, 0)
		o = binary.LittleEndian.AppendUint16(o, 2)
		o = binary.LittleEndian.AppendUint16(o, 200)
		o = append(o, "eth0"...)
		o = (&ng{}).opt(o, 8, binary.LittleEndian.AppendUint64(nil, 25e9))
		optPast.block(1, append(o, 0, 0, 0, 0))
	}
	linkHuge := bytes.Clone(pc[:24])
	binary.LittleEndian.PutUint32(linkHuge[20:], 0xFFFFFFFF)
	for _, c := range []struct {
		name     string
		data     []byte
		open     string // error of NewReader
		lastGood int    // else: frames before the *FrameError
		err      string
	}{
		{name: "empty", data: nil, open: "not a pcap or pcapng capture"},
		{name: "text", data: []byte("hello, world"), open: "not a pcap or pcapng capture (magic 68656c6c)"},
		{name: "802.11 pcap", data: linkRaw, open: "x: interface 0: unsupported link type"},
		{name: "unknown interface", data: badIface.buf, lastGood: 1, err: "frame names interface 3, capture has 1"},
		{name: "captured length past the block", data: past.buf, lastGood: 0, err: "past the block"},
		{name: "trailing length", data: trailer.buf, lastGood: 0, err: "trailing length"},
		{name: "pcapng version 1.1", data: shbVersion(1, 1), open: "x: unknown pcapng version in section header (1.1)"},
		{name: "pcapng version 2.0", data: shbVersion(2, 0), open: "x: unknown pcapng version in section header (2.0)"},
		{name: "if_fcslen of 2 octets", data: fcs2.buf, open: "x: interface 0: if_fcslen option of 2 octets, want 1"},
		{name: "if_tsoffset of 4 octets in section 2", data: lateOff.buf, lastGood: 1, err: "interface 0 of section 1: if_tsoffset option of 4 octets, want 8"},
		{name: "snap length", data: snap, lastGood: 0, err: "capture length exceeds snap length: 300000 > 65535"},
		{name: "1 GiB frame, snap length 0xFFFFFFFF", data: bomb, lastGood: 1, err: "capture length 1073741824: more than 16777216 octets, the most a frame may hold"},
		{name: "block length not a multiple of 4", data: odd.buf, lastGood: 0, err: "pcapng block of type 0x6: length 91, not a multiple of 4"},
		{name: "20 MiB packet block", data: bigPacket.buf, lastGood: 0, err: "pcapng packet block: length 20971520, more than 17825792 octets"},
		{name: "option past the block", data: optPast.buf, open: "x: interface 0: option 2 of 200 octets runs past the block"},
		{name: "link type 0xFFFFFFFF", data: linkHuge, open: "x: interface 0: unsupported link type number 65535"}, // the low 16 bits
		{name: "pcap header cut", data: pc[:10], open: "x: the pcap file header is cut short (10 of its 24 octets)"},
	} {
		r, err := NewReader("x", bytes.NewReader(c.data))
		if c.open != "" {
			if err == nil || !strings.Contains(err.Error(), c.open) {
				t.Errorf("%s: NewReader: %v, want %q", c.name, err, c.open)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: NewReader: %v", c.name, err)
			continue
		}
		n := 0
		for {
			_, err = r.Next()
			if err != nil {
				break
			}
			n++
		}
		var fe *FrameError
		if !errors.As(err, &fe) || fe.LastGood != c.lastGood || n != c.lastGood || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %d frames, then %v; want %d, a *FrameError with %q", c.name, n, err, c.lastGood, c.err)
		}
		if _, again := r.Next(); again != err {
			t.Errorf("%s: the error again: %v", c.name, again)
		}
	}
}

// TestReaderAllocation: reading allocates a buffer and nothing per frame
// (but comments); a length field cannot make it allocate much more than
// the input.
func TestReaderAllocation(t *testing.T) {
	data := pcapCaptures()["pcap-nanos=true"]
	br := bytes.NewReader(data)
	r, _ := NewReader("x", br)
	n := testing.AllocsPerRun(20, func() {
		br.Reset(data)
		r.pos, r.end, r.rerr, r.err = 0, 0, nil, nil
		r.fill(24)
		r.pos += 24
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	})
	if n != 0 {
		t.Errorf("%v allocations per read of 40 frames", n)
	}
	// A pcapng block that says 256 MiB, in a 100-octet file.
	w := (&ng{}).shb().idb("p", 1, 0)
	w.buf = binary.LittleEndian.AppendUint32(w.buf, 6)
	w.buf = binary.LittleEndian.AppendUint32(w.buf, 1<<28)
	w.buf = append(w.buf, make([]byte, 40)...)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	g := readAllNext(w.buf, nil)
	runtime.ReadMemStats(&ms)
	if a := ms.TotalAlloc - before; a > 4*readChunk || g.err == nil {
		t.Errorf("a block claiming 256 MiB: %d octets allocated, end %v", a, g.err)
	}
}

// FuzzReader: any input reads without panic, Next and ReadBatch agree,
// and an error is a *FrameError naming the last good frame.
func FuzzReader(f *testing.F) {
	for _, d := range corpus(f) {
		if len(d) < 20000 {
			f.Add(d)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a := readAllNext(data, nil)
		b := readAllBatch(data, nil, 5)
		if d := same(a, b); d != "" {
			t.Fatalf("Next and ReadBatch: %s", d)
		}
		if a.err != nil {
			var fe *FrameError
			if !errors.As(a.err, &fe) || fe.LastGood != len(a.frames) {
				t.Fatalf("%T %v after %d frames", a.err, a.err, len(a.frames))
			}
		}
		for i, fr := range a.frames {
			if fr.Number != i+1 || fr.Interface < 0 || fr.Len < 0 {
				t.Fatalf("frame %d: number %d, interface %d, length %d", i+1, fr.Number, fr.Interface, fr.Len)
			}
		}
		roundTrip(t, data)
		// By position, in chunks small enough that records cross them,
		// from a file: what Next reads of the same file.
		if len(data) == 0 {
			return
		}
		path := filepath.Join(t.TempDir(), "c")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want := readAllOpenNext(path)
		if want.open != nil {
			return
		}
		if r, err := Open(path); err != nil || !r.Positioned() {
			if err == nil {
				r.Close()
			}
			return // gzip, zstd
		} else {
			r.Close()
		}
		withChunks(t, 37, 16, func() {
			g := readAllPositioned(t, path, 2)
			if d := same(g, want); d != "" || fmt.Sprint(g.err) != fmt.Sprint(want.err) {
				t.Fatalf("by position: %s; error %q, Next's %q", d, g.err, want.err)
			}
		})
	})
}

// roundTrip checks that what Reader reads of data (up to an error),
// written back by Writer (every interface, in order, with its metadata;
// every frame; every interface's statistics) reads back the same: the
// section's info, each interface but for its numbering (one section), a
// resolution other than a power of ten (nanoseconds) and an if_fcslen of
// 0 (left out); each frame's time (a frame without one on another
// interface than the first is written at 1970, which a simple packet
// block cannot name; rounded down to the interface's resolution), data, length (at least the data's: an original
// length below the captured one is not written back), comments, flags
// and drop count (and whether the block has them, a 0 too). A frame or statistics block whose time pcapng cannot
// hold (before 1970 with an if_tsoffset) is an error of the Writer and
// is left out of the comparison.
func roundTrip(t *testing.T, data []byte) {
	r, err := NewReader("x", bytes.NewReader(data))
	if err != nil {
		return
	}
	var frames []Frame
	for {
		fr, err := r.Next()
		if err != nil {
			break
		}
		frames = append(frames, copyFrame(fr))
	}
	if !r.IsPcapng() && len(frames) == 0 {
		return
	}
	var out bytes.Buffer
	ifs := make([]Interface, r.NInterfaces())
	for i := range ifs {
		ifs[i] = r.Interface(i)
	}
	if len(ifs) == 0 {
		return
	}
	w, err := NewWriterSection(&out, r.Section(), ifs...)
	if err != nil {
		t.Fatalf("NewWriterSection: %v", err)
	}
	var kept []Frame
	for i := range frames {
		if err := w.WriteFrame(frames[i].Interface, &frames[i]); err != nil {
			if !strings.Contains(err.Error(), "before 1970") && !strings.Contains(err.Error(), "beyond what a pcapng timestamp counts") {
				t.Fatalf("frame %d: %v", i+1, err)
			}
			continue
		}
		kept = append(kept, frames[i])
	}
	var stats []int
	for i := range ifs {
		if st, ok := r.Stats(i); ok {
			if err := w.WriteStats(i, st); err == nil {
				stats = append(stats, i)
			}
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	b, err := NewReader("y", bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatalf("the copy does not open: %v", err)
	}
	sec := r.Section()
	if sec.Application == "" {
		sec.Application = DefaultApplication
	}
	if got := b.Section(); !reflect.DeepEqual(got, sec) {
		t.Fatalf("section %+v, want %+v", got, sec)
	}
	for i, want := range kept {
		got, err := b.Next()
		if err != nil {
			t.Fatalf("copy, frame %d: %v", i+1, err)
		}
		wt := want.Time
		if wt.IsZero() && want.Interface != 0 {
			wt = time.Unix(0, 0)
		}
		if !wt.IsZero() {
			// In the interface's resolution, rounded down: a classic
			// pcap's fraction past a second reads (as in pcapgo and
			// tshark) wrapped in 32 bits, off the microsecond grid.
			_, div := tsResolution(ifs[want.Interface].Resolution)
			wt = time.Unix(wt.Unix(), onGrid(int64(wt.Nanosecond()), int64(div)))
		}
		if !got.Time.Equal(wt) || got.Time.IsZero() != wt.IsZero() || got.Interface != want.Interface ||
			!bytes.Equal(got.Data, want.Data) || got.Len != max(want.Len, len(want.Data)) || got.Flags != want.Flags ||
			got.DropCount != want.DropCount || got.HasFlags != want.HasFlags || got.HasDropCount != want.HasDropCount ||
			strings.Join(got.Comments, "\x00") != strings.Join(want.Comments, "\x00") {
			t.Fatalf("copy, frame %d: %+v\nwant %+v", i+1, *got, want)
		}
	}
	if _, err := b.Next(); err != io.EOF {
		t.Fatalf("copy: after the frames: %v", err)
	}
	for i, want := range ifs {
		want.Section, want.ID = 0, i
		if want.Resolution != 1 {
			if res, _ := tsResolution(want.Resolution); res == 9 {
				want.Resolution = 1
			}
		}
		if want.FCSLen == 0 {
			want.FCSLen = -1
		}
		if got := b.Interface(i); !reflect.DeepEqual(got, want) {
			t.Fatalf("copy, interface %d: %+v\nwant %+v", i, got, want)
		}
	}
	for _, i := range stats {
		want, _ := r.Stats(i)
		got, ok := b.Stats(i)
		if !ok || !got.Time.Equal(want.Time) || !got.Start.Equal(want.Start) || !got.End.Equal(want.End) || got.Comment != want.Comment ||
			!reflect.DeepEqual(got.Comments, want.Comments) || got.Has != want.Has || got.Received != want.Received || got.Dropped != want.Dropped || got.OSDropped != want.OSDropped ||
			got.FilterAccept != want.FilterAccept || got.Delivered != want.Delivered {
			t.Fatalf("copy, interface %d: statistics %+v\nwant %+v", i, got, want)
		}
	}
}

// onGrid returns ns nanoseconds past a second on the grid of div units
// a second (at most 10^9) as a Reader reads them: the time of the last
// unit whose time is at most ns.
func onGrid(ns, div int64) int64 {
	n := ns * div / 1e9 // its time is at most ns; the next one's may be too
	if (n+1)*1e9/div <= ns {
		n++
	}
	return n * 1e9 / div
}

// benchFile writes a classic pcap and a pcapng of n frames with the
// benchmark capture's sizes (half 1,090 octets, a quarter 64, a quarter 62).
func benchFile(b *testing.B, n int) (pcapPath, ngPath string) {
	dir := b.TempDir()
	pcapPath, ngPath = filepath.Join(dir, "b.pcap"), filepath.Join(dir, "b.pcapng")
	fp, _ := os.Create(pcapPath)
	fn, _ := os.Create(ngPath)
	pw := pcapgo.NewWriterNanos(fp)
	pw.WriteFileHeader(65535, layers.LinkTypeEthernet)
	nw, _ := NewWriter(fn, "port0")
	sizes := []int{1090, 64, 1090, 62}
	for i := 0; i < n; i++ {
		d := frameData(i, sizes[i%4])
		t := time.Unix(1700000000, int64(i)*1000)
		pw.WritePacket(gopacket.CaptureInfo{Timestamp: t, CaptureLength: len(d), Length: len(d)}, d)
		nw.Write(0, t, d, len(d))
	}
	nw.Flush()
	fp.Close()
	fn.Close()
	return pcapPath, ngPath
}

// BenchmarkRead reads 100,000 frames from a file (in the page cache):
// with pcapgo alone, doing nothing with the frames (the raw read floor of
// bench/), with the pcapgo-based reader pcapio had (oracle), with Next and
// with ReadBatch. It reports ns per frame of the fastest pass (on a shared
// machine, the one least interrupted).
func BenchmarkRead(b *testing.B) {
	const n = 100_000
	pcapPath, ngPath := benchFile(b, n)
	count := func(b *testing.B, k int) {
		if k != n {
			b.Fatalf("%d frames, want %d", k, n)
		}
	}
	for _, c := range []struct {
		name string
		path string
	}{{"pcap", pcapPath}, {"pcapng", ngPath}} {
		for _, m := range []struct {
			name string
			read func(b *testing.B)
		}{
			{"pcapgo-floor", func(b *testing.B) {
				f, _ := os.Open(c.path)
				defer f.Close()
				k := 0
				if c.name == "pcap" {
					r, _ := pcapgo.NewReader(f)
					for ; ; k++ {
						if _, _, err := r.ZeroCopyReadPacketData(); err != nil {
							break
						}
					}
				} else {
					r, _ := pcapgo.NewNgReader(f, pcapgo.DefaultNgReaderOptions)
					for ; ; k++ {
						if _, _, err := r.ZeroCopyReadPacketData(); err != nil {
							break
						}
					}
				}
				count(b, k)
			}},
			{"oracle", func(b *testing.B) {
				r, _ := openOracle(c.path)
				defer r.Close()
				k := 0
				for ; ; k++ {
					if _, err := r.Next(); err != nil {
						break
					}
				}
				count(b, k)
			}},
			{"Next", func(b *testing.B) {
				r, _ := Open(c.path)
				defer r.Close()
				k := 0
				for ; ; k++ {
					if _, err := r.Next(); err != nil {
						break
					}
				}
				count(b, k)
			}},
			{"ReadBatch", func(b *testing.B) {
				var bs [4]Batch
				r, _ := Open(c.path)
				defer r.Close()
				k := 0
				for i := 0; ; i++ {
					if err := r.ReadBatch(&bs[i%4], 0); err != nil {
						break
					}
					k += len(bs[i%4].Frames)
				}
				count(b, k)
			}},
		} {
			b.Run(c.name+"/"+m.name, func(b *testing.B) {
				best := time.Hour
				for b.Loop() {
					t0 := time.Now()
					m.read(b)
					best = min(best, time.Since(t0))
				}
				b.ReportMetric(float64(best.Nanoseconds())/n, "ns/frame")
			})
		}
	}
}

// TestInterfaceResolutionFCS: Interface.Resolution is the timestamp unit
// in ns, rounded up, for pcapng's if_tsresol (absent: µs) and classic
// pcap's magic; FCSLen is if_fcslen, -1 when the capture does not say.
func TestInterfaceResolutionFCS(t *testing.T) {
	res := func(v byte) []byte { return (&ng{}).opt(nil, 9, []byte{v}) }
	w := (&ng{}).shb().idb("a", 1, 0).idb("b", 1, 0, res(9)).idb("c", 1, 0, res(3)).idb("d", 1, 0, res(0x80|20)).
		idb("e", 1, 0, res(12), (&ng{}).opt(nil, 13, []byte{4})).idb("f", 1, 0, (&ng{}).opt(nil, 13, []byte{0}))
	r, err := NewReader("x", bytes.NewReader(w.buf))
	if err != nil {
		t.Fatal(err)
	}
	r.Next() // reads the interface blocks
	want := []struct {
		res int64
		fcs int
	}{{1000, -1}, {1, -1}, {1_000_000, -1}, {954, -1}, {1, 4}, {1000, 0}}
	if r.NInterfaces() != len(want) {
		t.Fatalf("%d interfaces", r.NInterfaces())
	}
	for i, w := range want {
		if in := r.Interface(i); in.Resolution != w.res || in.FCSLen != w.fcs {
			t.Errorf("interface %s: resolution %d ns, FCS %d; want %d, %d", in.Name, in.Resolution, in.FCSLen, w.res, w.fcs)
		}
	}
	for name, data := range pcapCaptures() {
		r, err := NewReader(name, bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		wantRes := int64(1000)
		if strings.Contains(name, "nanos=true") {
			wantRes = 1
		}
		if in := r.Interface(0); in.Resolution != wantRes || in.FCSLen != -1 {
			t.Errorf("%s: resolution %d, FCS %d; want %d, -1", name, in.Resolution, in.FCSLen, wantRes)
		}
	}
}

// TestModifiedPcap: Kuznetsov's modified pcap (magic 0xa1b2cd34, either
// byte order; 8 more octets per record header) reads as the same frames
// as the classic pcap it was made from, as Wireshark reads it.
func TestModifiedPcap(t *testing.T) {
	for _, name := range []string{"pcap-nanos=false", "pcap-be-nanos=false"} {
		plain := pcapCaptures()[name]
		be := strings.Contains(name, "be")
		var bo binary.ByteOrder = binary.LittleEndian
		if be {
			bo = binary.BigEndian
		}
		mod := bytes.Clone(plain[:24])
		bo.PutUint32(mod, 0xa1b2cd34)
		for rest := plain[24:]; len(rest) >= 16; {
			n := int(bo.Uint32(rest[8:]))
			mod = append(mod, rest[:16]...)
			mod = append(mod, 0, 0, 0, 3, 0, 8, 0, 0) // ifindex, protocol, packet type, pad
			mod = append(mod, rest[16:16+n]...)
			rest = rest[16+n:]
		}
		want, got := readAllNext(plain, nil), readAllNext(mod, nil)
		if d := same(want, got); d != "" || len(got.frames) != 40 {
			t.Errorf("%s as modified pcap: %s (%d frames)", name, d, len(got.frames))
		}
		if g := readAllBatch(mod, nil, 7); same(want, g) != "" {
			t.Errorf("%s as modified pcap, in batches: %s", name, same(want, g))
		}
	}
}

// TestDirection: an enhanced packet block's epb_flags give the frame's
// direction relative to the capturing interface (written by pcapgo, the
// reference writer): inbound 1, outbound 2, none 0.
func TestDirection(t *testing.T) {
	var buf bytes.Buffer
	w, err := pcapgo.NewNgWriterInterface(&buf, pcapgo.NgInterface{Name: "p", LinkType: layers.LinkTypeEthernet, SnapLength: 65535}, pcapgo.NgWriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data := frameData(1, 60)
	for _, d := range []pcapgo.NgEpbFlag{pcapgo.NgEpbFlagDirectionInbound, pcapgo.NgEpbFlagDirectionOutbound, 0} {
		var opts pcapgo.NgPacketOptions
		if d != 0 {
			opts.Flags = &pcapgo.NgEpbFlags{Direction: d}
		}
		ci := gopacket.CaptureInfo{Timestamp: time.Unix(1, 0), CaptureLength: len(data), Length: len(data)}
		if err := w.WritePacketWithOptions(ci, data, opts); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	r, err := NewReader("x", &buf)
	if err != nil {
		t.Fatal(err)
	}
	var got []uint8
	for {
		fr, err := r.Next()
		if err != nil {
			break
		}
		got = append(got, fr.Direction)
	}
	if !slices.Equal(got, []uint8{1, 2, 0}) {
		t.Errorf("directions %v, want [1 2 0]", got)
	}
}

// TestMaxInterfaces: a capture of MaxInterfaces interfaces reads; one
// more interface block is an error naming the limit, after the frames
// before it, so what a reader (and sfcdump) keeps per interface stays
// bounded whatever the capture.
func TestMaxInterfaces(t *testing.T) {
	var b bytes.Buffer
	w, err := NewWriter(&b, "i0")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < MaxInterfaces; i++ {
		if _, err := w.AddInterface(""); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Write(MaxInterfaces-1, time.Unix(1, 0), frameData(1, 60), 60); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	g := readAllNext(b.Bytes(), nil)
	if g.open != nil || g.err != nil || len(g.frames) != 1 || len(g.ifaces) != MaxInterfaces {
		t.Fatalf("%d interfaces: open %v, %d frames, end %v", MaxInterfaces, g.open, len(g.frames), g.err)
	}
	if _, err := w.AddInterface("one too many"); err != nil {
		t.Fatal(err)
	}
	w.Write(0, time.Unix(2, 0), frameData(2, 60), 60)
	w.Flush()
	g = readAllNext(b.Bytes(), nil)
	if len(g.frames) != 1 || g.err == nil || !strings.Contains(g.err.Error(), "after frame 1 (the last good one): pcapng interface description: more than 65536 interfaces") {
		t.Errorf("%d interfaces: %d frames, end %v", MaxInterfaces+1, len(g.frames), g.err)
	}
}

// TestMetadataBudget: the strings a Reader keeps of a capture's metadata
// (here 300 interfaces with a 64,000-octet comment each, 19.2 MB) stop at
// MetadataBudget, and what was not kept is counted; the first ones are
// kept whole.
func TestMetadataBudget(t *testing.T) {
	var b bytes.Buffer
	w, err := NewWriter(&b, "i0")
	if err != nil {
		t.Fatal(err)
	}
	comment := strings.Repeat("c", 64000)
	for i := 1; i < 300; i++ {
		if _, err := w.AddInterfaceOf(Interface{Name: "i", LinkType: layers.LinkTypeEthernet, Comment: comment}); err != nil {
			t.Fatal(err)
		}
	}
	w.Write(299, time.Unix(1, 0), frameData(1, 60), 60)
	w.Flush()
	r, err := NewReader("x", bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	kept := 0
	for i := 0; i < r.NInterfaces(); i++ {
		in := r.Interface(i)
		kept += len(in.Name) + len(in.Comment)
	}
	total := len("i0") + 299*(len("i")+64000)
	if kept > MetadataBudget || int64(kept)+r.MetadataDropped() != int64(total) || r.MetadataDropped() == 0 {
		t.Errorf("kept %d octets, dropped %d, of %d (budget %d)", kept, r.MetadataDropped(), total, MetadataBudget)
	}
	if r.Interface(1).Comment != comment {
		t.Error("the first interface's comment was cut")
	}
}

// TestPcapLinkTypeHighBits: a classic pcap's link type is the field's low
// 16 bits; bit 26 says that bits 28-31 give the FCS length in 16-bit
// units (libpcap's LT_FCS_LENGTH_PRESENT and LT_FCS_LENGTH), and the bits
// between are not held against the file, as libpcap and Wireshark read
// it: Ethernet with 0x50000001 (no FCS said) or 0x24000001 (4 octets)
// was "unsupported link type".
func TestPcapLinkTypeHighBits(t *testing.T) {
	for _, c := range []struct {
		field uint32
		fcs   int
	}{{1, -1}, {0x50000001, -1}, {0x24000001, 4}, {0x04000001, 0}, {0xF4000001, 30}, {0x00FF0001, -1}} {
		data := pcapCaptures()["pcap-nanos=false"]
		if data == nil {
			t.Fatal("no pcap-nanos=false capture")
		}
		data = bytes.Clone(data)
		binary.LittleEndian.PutUint32(data[20:], c.field)
		r, err := NewReader("x", bytes.NewReader(data))
		if err != nil {
			t.Errorf("%#x: %v", c.field, err)
			continue
		}
		if in := r.Interface(0); in.LinkType != layers.LinkTypeEthernet || in.FCSLen != c.fcs {
			t.Errorf("%#x: link type %v, FCS length %d; want Ethernet, %d", c.field, in.LinkType, in.FCSLen, c.fcs)
		}
		if _, err := r.Next(); err != nil {
			t.Errorf("%#x: first frame: %v", c.field, err)
		}
	}
}

// TestPcapOlderMinorVersions: classic pcap 2.2 and 2.3 (older libpcaps')
// read as 2.4, as libpcap and tshark read them; 2.1 and 2.5 are refused.
func TestPcapOlderMinorVersions(t *testing.T) {
	for minor, ok := range map[uint16]bool{1: false, 2: true, 3: true, 4: true, 5: false} {
		data := bytes.Clone(pcapCaptures()["pcap-nanos=false"])
		binary.LittleEndian.PutUint16(data[6:], minor)
		r, err := NewReader("x", bytes.NewReader(data))
		if !ok {
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("unknown minor version %d", minor)) {
				t.Errorf("2.%d: %v, want refused", minor, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("2.%d: %v", minor, err)
			continue
		}
		n := 0
		for _, err := r.Next(); err == nil; _, err = r.Next() {
			n++
		}
		if n != 40 {
			t.Errorf("2.%d: %d frames, want 40", minor, n)
		}
	}
}

// TestCutRecordOffset: a capture that ends in the middle of a record
// names the octet where that record starts, read frame by frame (Next)
// or in batches (ReadBatch), classic pcap and pcapng.
func TestCutRecordOffset(t *testing.T) {
	sample, err := os.ReadFile(filepath.Join("..", "pcaps", "sample.pcapng"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
		next func(b []byte) int // the length of the record that b starts with
		off  int                // where the first record starts
	}{
		{"pcap", pcapCaptures()["pcap-nanos=false"], func(b []byte) int { return 16 + int(binary.LittleEndian.Uint32(b[8:])) }, 24},
		{"pcapng", sample, func(b []byte) int { return int(binary.LittleEndian.Uint32(b[4:])) }, 0},
	} {
		last := c.off
		for o := c.off; o < len(c.data); o += c.next(c.data[o:]) {
			last = o
		}
		path := filepath.Join(t.TempDir(), "cut")
		os.WriteFile(path, c.data[:last+5], 0o644)
		want := fmt.Sprintf("the record at octet %d is cut short: unexpected EOF", last)
		for _, batch := range []bool{false, true} {
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			var b Batch
			for err == nil {
				if batch {
					err = r.ReadBatch(&b, 7)
				} else {
					_, err = r.Next()
				}
			}
			r.Close()
			if !strings.Contains(fmt.Sprint(err), want) {
				t.Errorf("%s, batches %v: %v; want %q", c.name, batch, err, want)
			}
		}
	}
}
