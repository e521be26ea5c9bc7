// SPDX-License-Identifier: Apache-2.0

package pcapio

import (
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// frames reads every frame of path and returns their data, joined.
func allFrames(t *testing.T, path string) (int, []byte) {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var all []byte
	n := 0
	for {
		fr, err := r.Next()
		if err != nil {
			break
		}
		n++
		all = append(all, fr.Data...)
	}
	return n, all
}

// TestZstd reads the sample capture compressed by the zstd tool (the
// reference implementation) and by klauspost/compress, and checks it
// gives the frames of the plain file.
func TestZstd(t *testing.T) {
	plain := filepath.Join("..", "pcaps", "sample.pcapng")
	wantN, want := allFrames(t, plain)
	data, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var paths []string
	if zstdTool, err := exec.LookPath("zstd"); err == nil {
		out := filepath.Join(dir, "tool.pcapng.zst")
		if b, err := exec.Command(zstdTool, "-q", "-19", "-o", out, plain).CombinedOutput(); err != nil {
			t.Fatalf("zstd: %v %s", err, b)
		}
		paths = append(paths, out)
	}
	var buf bytes.Buffer
	zw, _ := zstd.NewWriter(&buf)
	zw.Write(data)
	zw.Close()
	lib := filepath.Join(dir, "lib.pcapng.zst")
	os.WriteFile(lib, buf.Bytes(), 0o644)
	paths = append(paths, lib)
	// A skippable frame first (RFC 8878 §3.1.2: magic 0x184D2A50-5F, a
	// 4-octet length, that many octets), as pzstd and seekable zstd write.
	skip := filepath.Join(dir, "skippable.pcapng.zst")
	os.WriteFile(skip, append([]byte{0x53, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 'a', 'b', 'c'}, buf.Bytes()...), 0o644)
	paths = append(paths, skip)
	for _, p := range paths {
		n, got := allFrames(t, p)
		if n != wantN || !bytes.Equal(got, want) || n == 0 {
			t.Errorf("%s: %d frames, want the %d of the plain capture", p, n, wantN)
		}
	}
	// A zstd stream cut short is an error naming the file, not a hang.
	cut := filepath.Join(dir, "cut.pcapng.zst")
	os.WriteFile(cut, buf.Bytes()[:len(buf.Bytes())/2], 0o644)
	r, err := Open(cut)
	if err == nil {
		for err == nil {
			_, err = r.Next()
		}
		r.Close()
	}
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("cut.pcapng.zst")) {
		t.Errorf("cut zstd: %v", err)
	}
}

// TestReaderTee: the tee of NewReaderTee gets the capture's own octets,
// all of them and in order, whether the input is plain, gzip or zstd.
func TestReaderTee(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join("..", "pcaps", "sample.pcapng"))
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(plain)
	w.Close()
	enc, _ := zstd.NewWriter(nil)
	for name, in := range map[string][]byte{"plain": plain, "gzip": gz.Bytes(), "zstd": enc.EncodeAll(plain, nil)} {
		var tee bytes.Buffer
		r, err := NewReaderTee(name, bytes.NewReader(in), &tee)
		if err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
		r.Close()
		if !bytes.Equal(tee.Bytes(), plain) {
			t.Errorf("%s: tee got %d octets, want the %d of the plain capture", name, tee.Len(), len(plain))
		}
	}
}
