package conformance

import (
	"bytes"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opensfc/sfc/pcapio"
)

// TestNgReaderMatchesPcapio reads every capture under pcaps/ with the fast
// reader and with pcapio and requires the same frames, numbers, times,
// interfaces, lengths, comments and interface names.
func TestNgReaderMatchesPcapio(t *testing.T) {
	var files []string
	filepath.WalkDir("../pcaps", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".pcapng") {
			files = append(files, p)
		}
		return err
	})
	if len(files) < 10 {
		t.Fatalf("only %d captures", len(files))
	}
	for _, f := range files {
		fast, err := openCapture(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if _, ok := fast.(*ngReader); !ok {
			t.Fatalf("%s: not read by ngReader", f)
		}
		slow, err := pcapio.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		for {
			a, ea := fast.Next()
			b, eb := slow.Next()
			if ea == io.EOF || eb == io.EOF {
				if ea != eb {
					t.Fatalf("%s: ends differ: %v, %v", f, ea, eb)
				}
				break
			}
			if ea != nil || eb != nil {
				t.Fatalf("%s: %v, %v", f, ea, eb)
			}
			if a.Number != b.Number || !a.Time.Equal(b.Time) || a.Interface != b.Interface || a.Len != b.Len ||
				!bytes.Equal(a.Data, b.Data) || !slices.Equal(a.Comments, b.Comments) {
				t.Fatalf("%s: frame %d differs", f, b.Number)
			}
		}
		if fast.NInterfaces() != slow.NInterfaces() {
			t.Fatalf("%s: interfaces %d vs %d", f, fast.NInterfaces(), slow.NInterfaces())
		}
		for i := 0; i < fast.NInterfaces(); i++ {
			if fast.Interface(i) != slow.Interface(i) {
				t.Errorf("%s: interface %d: %+v vs %+v", f, i, fast.Interface(i), slow.Interface(i))
			}
		}
		fast.Close()
		slow.Close()
	}
}
