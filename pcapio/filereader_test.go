// SPDX-License-Identifier: Apache-2.0

package pcapio_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/opensfc/sfc/pcapio"
)

// TestNewFileReader reads a regular file and a pipe through
// NewFileReader, whole and from an offset, as f.Read would.
func TestNewFileReader(t *testing.T) {
	want := make([]byte, 300<<10+17)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range want {
		want[i] = byte(rng.Uint32())
	}
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(5, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(pcapio.NewFileReader(f))
	if err != nil || !bytes.Equal(got, want[5:]) {
		t.Fatalf("regular file: %d octets, err %v; want %d", len(got), err, len(want)-5)
	}

	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	go func() {
		pw.Write(want)
		pw.Close()
	}()
	got, err = io.ReadAll(pcapio.NewFileReader(pr))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("pipe: %d octets, err %v; want %d", len(got), err, len(want))
	}
}
