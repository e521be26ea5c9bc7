// SPDX-License-Identifier: Apache-2.0

package pcapio

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// gzipCapture returns a pcapng of n frames, and its octets cut after the
// section header and first interface (so that the rest can go in another
// gzip member).
func gzipCapture(n int) (all []byte, head int) {
	w := (&ng{}).shb().idb("p", 1, 0)
	head = len(w.buf)
	for i := 1; i <= n; i++ {
		w.epb(0, uint64(i), frameData(i, 60), 60)
	}
	return w.buf, head
}

// readFrames reads want frames with Next from r in a goroutine and
// reports whether they came within the deadline (a reader that waits for
// more input before returning what it holds never gives them).
func readFrames(t *testing.T, r *Reader, want int) bool {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		for i := 0; i < want; i++ {
			if _, err := r.Next(); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("before frame %d: %v", want, err)
			return false
		}
		return true
	case <-time.After(5 * time.Second):
		return false
	}
}

// TestGzipPipeStaysOpen: a gzip capture from a pipe whose writer sent a
// whole member and paused, the pipe left open (gzip -c x.pcapng | sfcdump
// read -r -), gives every frame at once, as zstd and a plain capture do:
// gzip.Reader's multistream mode read the next member's header before it
// returned the member's last octets, and so held them, there all of them,
// until the writer went on. A second member sent later is read after it,
// and the end of the pipe ends the capture.
func TestGzipPipeStaysOpen(t *testing.T) {
	plain, _ := gzipCapture(5)
	more := (&ng{}).epb(0, 6, frameData(6, 60), 60).epb(0, 7, frameData(7, 60), 60)
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() { _, _ = pw.Write(gzipped(plain)) }()
	opened := make(chan *Reader, 1)
	go func() {
		r, err := NewReader("x.gz", pr)
		if err != nil {
			t.Error(err)
		}
		opened <- r
	}()
	var r *Reader
	select {
	case r = <-opened:
	case <-time.After(5 * time.Second):
		t.Fatal("NewReader still waits for more input after a whole gzip member")
	}
	if r == nil {
		return
	}
	if !readFrames(t, r, 5) {
		t.Fatal("the frames of a whole gzip member are held while the pipe stays open")
	}
	go func() { _, _ = pw.Write(gzipped(more.buf)) }()
	if !readFrames(t, r, 2) {
		t.Fatal("the frames of a second gzip member are held while the pipe stays open")
	}
	pw.Close()
	if fr, err := r.Next(); err != io.EOF || r.Frames() != 7 {
		t.Errorf("after the pipe closed: %v %v, %d frames; want io.EOF after 7", fr, err, r.Frames())
	}
}

// TestGzipMembers: a gzip file of several members (cat a.gz b.gz, and
// an empty member between) reads as its members' octets one after the
// other, cut at a block or inside one; what follows the last member is
// reported as gzip.Reader's multistream mode reports it, after every
// frame before it.
func TestGzipMembers(t *testing.T) {
	plain, head := gzipCapture(6)
	want := readAllNext(plain, nil)
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	mid := head + 100 // inside the second frame's block
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"one member", gzipped(plain)},
		{"two members at a block", cat(gzipped(plain[:head]), gzipped(plain[head:]))},
		{"two members inside a block", cat(gzipped(plain[:mid]), gzipped(plain[mid:]))},
		{"an empty member between", cat(gzipped(plain[:mid]), gzipped(nil), gzipped(plain[mid:]))},
	} {
		for _, how := range []string{"Next", "ReadBatch"} {
			var g got
			if how == "Next" {
				g = readAllNext(nil, bytes.NewReader(c.data))
			} else {
				g = readAllBatch(nil, bytes.NewReader(c.data), 2)
			}
			if d := same(want, g); d != "" || g.err != nil || g.open != nil {
				t.Errorf("%s, %s: %s (%v %v)", c.name, how, d, g.open, g.err)
			}
		}
	}
	damaged := gzipped(plain[mid:])
	damaged[len(damaged)-8] ^= 1 // the second member's CRC-32
	for _, c := range []struct {
		name     string
		data     []byte
		is       error
		lastGood int
		msg      string
	}{
		{"trailing garbage", cat(gzipped(plain), []byte("garbage after the member")), gzip.ErrHeader, 6,
			"x: after frame 6: the gzip stream is damaged: invalid header"},
		{"a second member cut in its header", cat(gzipped(plain), []byte{0x1f, 0x8b, 8}), io.ErrUnexpectedEOF, 6,
			"x: after frame 6: the gzip stream is damaged: unexpected EOF"},
		{"a damaged second member", cat(gzipped(plain[:mid]), damaged), gzip.ErrChecksum, 6,
			"x: after frame 6: the gzip stream is damaged: invalid checksum"},
	} {
		// What gzip.Reader's multistream mode says of the stream.
		gz, _ := gzip.NewReader(bytes.NewReader(c.data))
		if _, err := io.ReadAll(gz); !errors.Is(err, c.is) {
			t.Fatalf("%s: gzip.Reader: %v, want %v", c.name, err, c.is)
		}
		for _, how := range []string{"Next", "ReadBatch"} {
			var g got
			if how == "Next" {
				g = readAllNext(nil, bytes.NewReader(c.data))
			} else {
				g = readAllBatch(nil, bytes.NewReader(c.data), 2)
			}
			var fe *FrameError
			if g.open != nil || !errors.As(g.err, &fe) || !errors.Is(g.err, c.is) || fe.LastGood != c.lastGood ||
				len(g.frames) != c.lastGood || !strings.Contains(g.err.Error(), c.msg) {
				t.Errorf("%s, %s: %d frames, then %v %v; want %d, then %q", c.name, how, len(g.frames), g.open, g.err, c.lastGood, c.msg)
			}
		}
	}
}
