// SPDX-License-Identifier: Apache-2.0

package fuzz

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	glayers "github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/pcapio"
	"github.com/opensfc/sfc/sample"
)

// Limits of FuzzPcap: inputs up to 256 KiB, at most 16 MiB once
// decompressed (a gzip bomb is skipped: reading it is slow, not wrong), at
// most maxFrames frames per input.
const (
	maxCapture      = 256 << 10
	maxDecompressed = 16 << 20
	maxFrames       = 1 << 16
)

// pcapBound is what reading a capture of n (decompressed) octets may
// allocate in all: see doc.go.
func pcapBound(n int) uint64 { return 16*uint64(n) + 2<<20 }

// captureSeeds returns the shipped captures, the sample frames as classic
// pcap (both byte orders' magic is read, we write one), and gzip of both.
func captureSeeds() [][]byte {
	var out [][]byte
	for _, path := range captures() {
		if b, err := os.ReadFile(path); err == nil && len(b) <= maxCapture {
			out = append(out, b)
		}
	}
	var pc bytes.Buffer
	w := pcapgo.NewWriterNanos(&pc)
	w.WriteFileHeader(65535, glayers.LinkTypeEthernet)
	for i, f := range sample.Frames() {
		w.WritePacket(gopacket.CaptureInfo{Timestamp: sample.Start.Add(time.Duration(i) * time.Microsecond),
			CaptureLength: len(f.Data), Length: len(f.Data)}, f.Data)
	}
	out = append(out, pc.Bytes())
	var ng bytes.Buffer
	sample.Write(&ng, sample.Malformed()[:3])
	out = append(out, ng.Bytes())
	for _, b := range out[:len(out):len(out)] {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(b)
		zw.Close()
		out = append(out, z.Bytes())
	}
	return out
}

// decompressedLen returns the octets pcapio will read from data: its
// length, or for gzip the length of the decompressed stream (or what it
// holds up to a decompression error), and false beyond maxDecompressed.
func decompressedLen(data []byte) (int, bool) {
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		return len(data), true
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return len(data), true
	}
	n, _ := io.Copy(io.Discard, io.LimitReader(zr, maxDecompressed+1))
	return max(int(n), len(data)), n <= maxDecompressed
}

// readPath is sfcdump read's loop (cmd/sfcdump/read.go) without the
// output: open, read frame by frame, decode with one Parser, render the
// summary, the tree (with comments) and JSON.
type readPath struct {
	p   *layers.Parser
	enc dissect.Encoder
	buf []byte
}

func (rp *readPath) run(t *testing.T, data []byte) {
	r, err := pcapio.NewReader("fuzz", bytes.NewReader(data))
	if err != nil {
		if err.Error() == "" {
			t.Fatal("NewReader: empty error")
		}
		return
	}
	defer r.Close()
	for n := 0; n < maxFrames; n++ {
		fr, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			var fe *pcapio.FrameError
			if !errors.As(err, &fe) || fe.LastGood != n {
				t.Fatalf("Next after %d frames: %T %v, want a *pcapio.FrameError naming frame %d", n, err, err, n)
			}
			return
		}
		if fr.Number != n+1 || fr.Interface < 0 || fr.Interface >= r.NInterfaces() {
			t.Fatalf("frame %d: number %d, interface %d of %d", n+1, fr.Number, fr.Interface, r.NInterfaces())
		}
		f := dissect.Frame{Number: fr.Number, Time: fr.Time, Interface: fr.Interface, Len: fr.Len, CapLen: len(fr.Data), P: rp.p}
		f.Err = rp.p.Decode(fr.Data)
		b := dissect.AppendSummary(rp.buf[:0], &f)
		b = append(b, r.Interface(fr.Interface).Name...)
		for _, c := range fr.Comments {
			b = append(b, c...)
		}
		b = rp.enc.AppendTree(b, &f)
		mark := len(b)
		b = rp.enc.AppendJSON(b, &f)
		if !json.Valid(b[mark:]) {
			t.Fatalf("frame %d: invalid JSON %s", fr.Number, b[mark:])
		}
		rp.buf = b
	}
}

// FuzzPcap feeds arbitrary octets to sfcdump's read path as a capture
// file: no panic, errors of the documented types, the allocation bound.
func FuzzPcap(f *testing.F) {
	for _, b := range captureSeeds() {
		f.Add(b)
	}
	rp := &readPath{p: layers.NewParser()}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxCapture {
			return
		}
		n, ok := decompressedLen(data)
		if !ok {
			return
		}
		defer watch("FuzzPcap", 5*time.Second)()
		checkAlloc(t, "reading the capture", n, pcapBound(n), func(int) { rp.run(t, data) })
	})
}
