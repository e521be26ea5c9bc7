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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// withChunks runs f with chunks of size octets and a pad of pad.
func withChunks(t *testing.T, size, pad int, f func()) {
	t.Helper()
	old, oldPad := chunkSize, chunkPad
	chunkSize, chunkPad = size, pad
	defer func() { chunkSize, chunkPad = old, oldPad }()
	f()
}

// readAllPositioned reads path by position as sfcdump's workers do: k
// batches reserved at a time, loaded at once by k goroutines, framed in
// Reserve's order. A batch's frames are copied only when the batch is
// about to be reserved again, so a frame must stay valid while later
// batches are loaded and framed.
func readAllPositioned(t *testing.T, path string, k int) got {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		return got{open: err}
	}
	defer r.Close()
	if !r.Positioned() {
		t.Fatalf("%s: not read by position", path)
	}
	ring := make([]Batch, 2*k)
	held := make([][]Frame, len(ring))
	var g got
	flush := func(i int) {
		for _, f := range held[i] {
			g.frames = append(g.frames, copyFrame(&f))
		}
		held[i] = nil
	}
	next := 0
	for end := false; !end; {
		bs := make([]*Batch, k)
		for j := range bs {
			i := next % len(ring)
			next++
			flush(i)
			bs[j] = &ring[i]
			r.Reserve(bs[j], 0)
		}
		var wg sync.WaitGroup
		for _, b := range bs {
			wg.Add(1)
			go func() { defer wg.Done(); b.Load(r) }()
		}
		wg.Wait()
		for j, b := range bs {
			err := r.Frame(b)
			if err != nil {
				if err != io.EOF {
					g.err = err
				}
				end = true
				continue
			}
			if end {
				t.Fatalf("%s: frames after the end", path)
			}
			held[(next-k+j)%len(ring)] = b.Frames
		}
	}
	for i := range ring {
		flush((next + i) % len(ring))
	}
	for i := 0; i < r.NInterfaces(); i++ {
		g.ifaces = append(g.ifaces, r.Interface(i))
	}
	return g
}

// pcapOf returns a classic pcap of n frames, frame i of size(i) octets
// and stamped i seconds.
func pcapOf(n int, size func(i int) int) []byte {
	var buf bytes.Buffer
	w := pcapgo.NewWriter(&buf)
	w.WriteFileHeader(65535, layers.LinkTypeEthernet)
	for i := 0; i < n; i++ {
		d := frameData(i, size(i))
		w.WritePacket(gopacket.CaptureInfo{Timestamp: time.Unix(int64(i), 0), CaptureLength: len(d), Length: len(d)}, d)
	}
	return buf.Bytes()
}

// readChunkByChunk reads r to its end by position, one chunk at a time
// (Reserve with limit, Load, Frame), calling each (when not nil) with the
// chunk's number, its batch and Frame's error.
func readChunkByChunk(r *Reader, limit int, each func(i int, b *Batch, err error)) got {
	var g got
	for i := 0; ; i++ {
		var b Batch
		r.Reserve(&b, limit)
		b.Load(r)
		err := r.Frame(&b)
		if each != nil {
			each(i, &b, err)
		}
		for j := range b.Frames {
			g.frames = append(g.frames, copyFrame(&b.Frames[j]))
		}
		if err != nil {
			if err != io.EOF {
				g.err = err
			}
			break
		}
	}
	for i := 0; i < r.NInterfaces(); i++ {
		g.ifaces = append(g.ifaces, r.Interface(i))
	}
	return g
}

// TestPositionedMatchesNext reads every uncompressed capture of the corpus
// by position, with chunks small enough that records cross their ends
// (and longer than the pad, so that the long-record path runs) and with
// the real sizes, and gets what Next gets: the same frames, interfaces
// and end.
func TestPositionedMatchesNext(t *testing.T) {
	dir := t.TempDir()
	for name, data := range corpus(t) {
		if strings.HasSuffix(name, ".gz") {
			continue
		}
		path := filepath.Join(dir, "c")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want := readAllNext(data, nil)
		for _, c := range []struct{ size, pad, k int }{{61, 23, 3}, {256, 64, 2}, {1000, 2000, 4}, {ChunkSize, ChunkPad, 3}} {
			withChunks(t, c.size, c.pad, func() {
				if d := same(readAllPositioned(t, path, c.k), want); d != "" {
					t.Errorf("%s, chunks of %d, pad %d: %s", name, c.size, c.pad, d)
				}
			})
		}
	}
}

// TestPositionedTruncated cuts captures at many octets: by position the
// reader gives the frames before the cut, then the error Next gives (the
// cut record's offset), or io.EOF where a record ends.
func TestPositionedTruncated(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cut")
	n := 0
	for name, data := range corpus(t) {
		if strings.HasSuffix(name, ".gz") || len(data) > 4500 {
			continue
		}
		for cut := 1; cut < len(data); cut += 1 + 6*min(1, cut/300) {
			if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
				t.Fatal(err)
			}
			want := readAllOpenNext(path)
			if want.open != nil {
				continue
			}
			withChunks(t, 97, 40, func() {
				g := readAllPositioned(t, path, 2)
				if diff := same(g, want); diff != "" {
					t.Fatalf("%s cut at %d: %s", name, cut, diff)
				}
				if fmt.Sprint(g.err) != fmt.Sprint(want.err) {
					t.Fatalf("%s cut at %d: error %q, Next's %q", name, cut, g.err, want.err)
				}
			})
			n++
		}
	}
	if n < 1000 {
		t.Fatalf("only %d cuts tried", n)
	}
}

// readAllOpenNext reads path with Open and Next.
func readAllOpenNext(path string) got {
	r, err := Open(path)
	if err != nil {
		return got{open: err}
	}
	defer r.Close()
	return drainNext(r)
}

// TestPositionedWhen: which readers read by position.
func TestPositionedWhen(t *testing.T) {
	dir := t.TempDir()
	data := pcapCaptures()["pcap-nanos=false"]
	plain := filepath.Join(dir, "p.pcap")
	os.WriteFile(plain, data, 0o644)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(data)
	zw.Close()
	gz := filepath.Join(dir, "p.pcap.gz")
	os.WriteFile(gz, z.Bytes(), 0o644)
	for _, c := range []struct {
		name string
		open func() (*Reader, error)
		want bool
	}{
		{"a regular file", func() (*Reader, error) { return Open(plain) }, true},
		{"gzip", func() (*Reader, error) { return Open(gz) }, false},
		{"NewReader", func() (*Reader, error) { return NewReader("x", bytes.NewReader(data)) }, false},
		{"a tee", func() (*Reader, error) {
			f, err := os.Open(plain)
			if err != nil {
				return nil, err
			}
			return NewReaderTee("x", NewFileReader(f), io.Discard)
		}, false},
	} {
		r, err := c.open()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := r.Positioned(); got != c.want {
			t.Errorf("%s: Positioned %v, want %v", c.name, got, c.want)
		}
	}
}

// TestFrameOrder: Frame refuses a batch out of Reserve's order, which
// would otherwise join records of chunks that do not follow each other.
func TestFrameOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.pcap")
	os.WriteFile(path, pcapCaptures()["pcap-nanos=false"], 0o644)
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var a, b Batch
	r.Reserve(&a, 0)
	r.Reserve(&b, 0)
	b.Load(r)
	if err := r.Frame(&b); !errors.Is(err, errOrder) {
		t.Fatalf("Frame of the second chunk first: %v", err)
	}
	a.Load(r)
	if err := r.Frame(&a); err != nil || len(a.Frames) == 0 {
		t.Fatalf("the first chunk: %d frames, %v", len(a.Frames), err)
	}
}

// TestPositionedBadRecord: a record whose length is refused, in the middle
// of the capture: by position the reader gives the frames before it, then
// the error Next gives, and nothing after.
func TestPositionedBadRecord(t *testing.T) {
	data := pcapCaptures()["pcap-nanos=false"]
	var offs []int
	for o := 24; o+16 <= len(data); o += 16 + int(binary.LittleEndian.Uint32(data[o+8:])) {
		offs = append(offs, o)
	}
	if len(offs) < 3 {
		t.Fatalf("%d records", len(offs))
	}
	path := filepath.Join(t.TempDir(), "bad.pcap")
	for _, o := range offs[1:] {
		d := bytes.Clone(data)
		binary.LittleEndian.PutUint32(d[o+8:], 0x7fffffff)
		os.WriteFile(path, d, 0o644)
		want := readAllOpenNext(path)
		if want.err == nil {
			t.Fatalf("record at %d: Next reads it", o)
		}
		withChunks(t, 50, 20, func() {
			g := readAllPositioned(t, path, 2)
			if diff := same(g, want); diff != "" || fmt.Sprint(g.err) != fmt.Sprint(want.err) {
				t.Errorf("record at %d: %s; error %q, Next's %q", o, diff, g.err, want.err)
			}
		})
	}
}

var errInjected = errors.New("injected read error")

// failingFile: octets from at on cannot be read (EIO on a bad sector).
type failingFile struct {
	f  *os.File
	at int64
}

func (ff *failingFile) Read(p []byte) (int, error) {
	off, _ := ff.f.Seek(0, io.SeekCurrent)
	if off >= ff.at {
		return 0, errInjected
	}
	if int64(len(p)) > ff.at-off {
		p = p[:ff.at-off]
	}
	return ff.f.Read(p)
}

func (ff *failingFile) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) <= ff.at {
		return ff.f.ReadAt(p, off)
	}
	n := 0
	if off < ff.at {
		n, _ = ff.f.ReadAt(p[:ff.at-off], off)
	}
	return n, errInjected
}

// TestPositionedReadErrorKeepsFramesBefore: a chunk that cannot be read
// from some octet on gives the frames before that octet first, as Next
// does, then the read error (found in review: the whole chunk was lost).
func TestPositionedReadErrorKeepsFramesBefore(t *testing.T) {
	data := pcapOf(6000, func(i int) int { return 60 + i%80 })
	path := filepath.Join(t.TempDir(), "p.pcap")
	os.WriteFile(path, data, 0o644)
	at := int64(len(data) * 2 / 3)
	open := func() *Reader {
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		r.count.r = &failingFile{f: r.closer.(*os.File), at: at}
		return r
	}
	r := open()
	want := drainNext(r)
	r.Close()
	if !errors.Is(want.err, errInjected) || len(want.frames) < 10 {
		t.Fatalf("Next: %d frames, %v", len(want.frames), want.err)
	}
	withChunks(t, ChunkSize, ChunkPad, func() {
		r := open()
		defer r.Close()
		if d := same(readChunkByChunk(r, 0, nil), want); d != "" {
			t.Errorf("by position: %s", d)
		}
	})
}

// TestPositionedGrowingFile: a capture being written, whole records at a
// time, read while it grows: a later chunk read while the file still ended
// before it, an earlier one read full after the writer appended. The file
// ended on record boundaries only, so reading by position must end with
// io.EOF, not a record cut short at the later chunk's start.
func TestPositionedGrowingFile(t *testing.T) {
	data := pcapCaptures()["pcap-nanos=false"]
	var ends []int
	for o := 24; o+16 <= len(data); {
		o += 16 + int(binary.LittleEndian.Uint32(data[o+8:]))
		ends = append(ends, o)
	}
	path := filepath.Join(t.TempDir(), "live.pcap")
	withChunks(t, 200, 64, func() {
		s0 := 0 // the last record boundary before chunk 1 (24+200)
		for _, e := range ends {
			if e <= 24+200 {
				s0 = e
			}
		}
		os.WriteFile(path, data[:s0], 0o644)
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var a, b, c Batch
		r.Reserve(&a, 0)
		r.Reserve(&b, 0)
		r.Reserve(&c, 0)
		b.Load(r) // the file ends before chunk 1: 0 octets
		c.Load(r)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(data[s0:]) // the writer appends the rest, whole records
		f.Close()
		a.Load(r) // chunk 0 now full
		n := 0
		var ferr error
		for _, x := range []*Batch{&a, &b, &c} {
			if ferr = r.Frame(x); ferr != nil {
				break
			}
			n += len(x.Frames)
		}
		for ferr == nil {
			var x Batch
			r.Reserve(&x, 0)
			x.Load(r)
			if ferr = r.Frame(&x); ferr == nil {
				n += len(x.Frames)
			}
		}
		if ferr != io.EOF {
			t.Errorf("file ended at octet %d then at %d, both record boundaries; by position: %d frames, then %v", s0, len(data), n, ferr)
		}
	})
}

// TestReserveLimit: with a limit, a chunk after the first holds about
// that many frames of the size framed last (a capture of small frames no
// longer makes batches of 16,000 frames, each costing its caller memory),
// and the frames are still Next's.
func TestReserveLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "small.pcap")
	os.WriteFile(path, pcapOf(20000, func(int) int { return 60 }), 0o644)
	want := readAllOpenNext(path)
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	const limit = 200
	g := readChunkByChunk(r, limit, func(i int, b *Batch, err error) {
		if len(b.Frames) > 2*limit {
			t.Fatalf("chunk %d: %d frames, %d octets (limit %d)", i, len(b.Frames), b.chunk.len, limit)
		}
		if err == nil && i > 1 && b.chunk.len != minChunk {
			t.Errorf("chunk %d: %d octets, want %d (76-octet records, limit %d)", i, b.chunk.len, minChunk, limit)
		}
	})
	if d := same(g, want); d != "" {
		t.Error(d)
	}
}
