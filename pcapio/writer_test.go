// SPDX-License-Identifier: Apache-2.0

package pcapio

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// TestWriterInterfaces: what NewWriterInterfaces and AddInterfaceOf write
// reads back with each interface's name, link type and if_speed (the
// first interface's too, and one added after frames were written), and
// the frames on their interfaces. A writer given no speed writes the same
// octets as before speeds could be given: the corpus's generated inputs
// depend on it.
func TestWriterInterfaces(t *testing.T) {
	var b bytes.Buffer
	w, err := NewWriterInterfaces(&b, Interface{Name: "p25", Speed: 25e9}, Interface{Name: "plain", SnapLen: 128},
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
	id, err := w.AddInterfaceOf(Interface{Name: "late", Speed: 400e9})
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
		if got := r.Interface(fr.Interface); fr.Interface != i || got != want[i] || !fr.Time.Equal(t0.Add(time.Duration(i))) ||
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
	w2, err := NewWriterInterfaces(&y, Interface{Name: "a"}, Interface{Name: "b"})
	if err != nil {
		t.Fatal(err)
	}
	w2.Write(1, t0, frameData(1, 60), 60)
	w2.Flush()
	if !bytes.Equal(x.Bytes(), y.Bytes()) || x.Len() == 0 {
		t.Errorf("NewWriter and NewWriterInterfaces without speeds differ:\n%x\n%x", x.Bytes(), y.Bytes())
	}
}

// TestAddIfSpeed: the option goes before the end of options, or is
// followed by one where the block had none; a block that is not an
// interface block is refused.
func TestAddIfSpeed(t *testing.T) {
	idb := func(opts ...byte) []byte {
		n := 20 + len(opts)
		b := []byte{1, 0, 0, 0, byte(n), 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}
		b = append(b, opts...)
		return append(b, byte(n), 0, 0, 0)
	}
	speed := []byte{8, 0, 8, 0, 0x40, 0x78, 0x7d, 0x01, 0, 0, 0, 0} // 25e6
	for _, c := range []struct {
		name     string
		in, want []byte
	}{
		{"end of options", idb(2, 0, 1, 0, 'a', 0, 0, 0, 0, 0, 0, 0), idb(append(append([]byte{2, 0, 1, 0, 'a', 0, 0, 0}, speed...), 0, 0, 0, 0)...)},
		{"no options", idb(), idb(append(append([]byte{}, speed...), 0, 0, 0, 0)...)},
	} {
		got, err := addIfSpeed(c.in, 25e6)
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("%s: %x, %v; want %x", c.name, got, err, c.want)
		}
	}
	epb := idb()
	epb[0] = 6
	if _, err := addIfSpeed(epb, 1); err == nil {
		t.Error("an enhanced packet block was amended")
	}
	if _, err := addIfSpeed(nil, 1); err == nil {
		t.Error("no block: no error")
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
