// SPDX-License-Identifier: Apache-2.0

//go:build linux && (amd64 || arm64 || riscv64 || ppc64 || ppc64le || s390x || loong64 || mips64 || mips64le)

package pcapio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOpenReadsFilesRaw checks that Open reads a regular file through
// fileReader, which keeps asking preadv2 with RWF_NOWAIT (the capture was
// just written: it is in the page cache), and that the frames are those
// read from the same octets in memory.
func TestOpenReadsFilesRaw(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, "port0")
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 1000)
	for i := range 2000 { // 2 MB: many reads
		data[0] = byte(i)
		if err := w.Write(0, time.Unix(int64(i), 0), data[:100+i%900], 100+i%900); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c.pcapng")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fr, ok := r.count.r.(*fileReader)
	if !ok {
		t.Fatalf("Open reads a regular file through %T, not fileReader", r.count.r)
	}
	m, err := NewReader("mem", bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var b Batch
	n := 0
	for {
		err := r.ReadBatch(&b, 0)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := range b.Frames {
			want, err := m.Next()
			if err != nil {
				t.Fatal(err)
			}
			if got := &b.Frames[i]; !bytes.Equal(got.Data, want.Data) || !got.Time.Equal(want.Time) || got.Number != want.Number {
				t.Fatalf("frame %d differs from the one read from memory", got.Number)
			}
			n++
		}
	}
	if n != 2000 {
		t.Fatalf("%d frames, want 2000", n)
	}
	if !fr.nowait {
		t.Error("RWF_NOWAIT was given up on a file in the page cache")
	}
}

// TestFileReaderFallback reads a file alternating the raw call and
// os.File.Read (what a read the cache cannot serve takes): both continue
// from the file's offset, so the octets come in order, then io.EOF.
func TestFileReaderFallback(t *testing.T) {
	want := make([]byte, 300000)
	for i := range want {
		want[i] = byte(i * 7)
	}
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, want, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, ok := newFileReader(f, true).(*fileReader)
	if !ok {
		t.Fatal("no fileReader for a regular file")
	}
	var got []byte
	p := make([]byte, 7000)
	for i := 0; ; i++ {
		r.nowait = i%2 == 0
		n, err := r.Read(p)
		got = append(got, p[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d octets, not the file's %d", len(got), len(want))
	}
	if n, err := r.Read(p); n != 0 || err != io.EOF {
		t.Fatalf("after the end: %d, %v", n, err)
	}
	if _, ok := newFileReader(f, false).(*os.File); !ok {
		t.Error("not a regular file: read as os.File")
	}
}

// TestFileReaderReadAtError: a positioned read that preadv2 refuses for
// another reason than uncached pages (here EISDIR: a directory) goes
// through os.File.ReadAt, which reports the error, and preadv2 is not
// tried again.
func TestFileReaderReadAtError(t *testing.T) {
	d, err := os.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	fr, ok := newFileReader(d, true).(*fileReader)
	if !ok {
		t.Fatal("not a fileReader")
	}
	n, err := fr.ReadAt(make([]byte, 64), 0)
	if n != 0 || !errors.Is(err, syscall.EISDIR) || !fr.atFailed.Load() {
		t.Fatalf("%d octets, %v, preadv2 given up %v", n, err, fr.atFailed.Load())
	}
}
