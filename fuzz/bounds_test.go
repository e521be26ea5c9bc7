// SPDX-License-Identifier: Apache-2.0

package fuzz

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/gopacket/gopacket"

	"github.com/opensfc/sfc/layers"
)

// fgFrame returns a Floodgate body of subtype st and family fam with n
// entries (zero credits and addresses).
func fgFrame(st, fam byte, n int) []byte {
	a := 4
	if fam == 6 {
		a = 16
	}
	b := make([]byte, 8+n*(4+a))
	b[0], b[1], b[2], b[3], b[4] = 0x46, 0x43, st, 1, fam
	binary.BigEndian.PutUint16(b[6:], uint16(n))
	return b
}

// The largest allocations a decoder makes are the Floodgate entry lists: a
// 32-octet entry per 8 octets of IPv4 entries. The fuzzers rarely build
// the large frames that show how that grows, so this test pins the bound
// of doc.go for every size up to the 65535 entries a count allows. It
// found that append's doubling made a fresh FGCredit allocate 21 × its
// input for 65535 IPv4 entries (11 MB for a 512 KiB frame) before the
// entry lists were sized once (layers/floodgate.go).
func TestDecoderAllocWorstCase(t *testing.T) {
	for _, st := range []byte{layers.SubtypeFGCredit, layers.SubtypeFGPause} {
		for _, fam := range []byte{4, 6} {
			for _, n := range []int{1, 10, 100, 1000, 8191, 65535} {
				data := fgFrame(st, fam, n)
				// checkAlloc measures twice before failing: the count is
				// the whole process's, and other tests run in parallel.
				checkAlloc(t, fmt.Sprintf("subtype %d family %d, %d entries: a fresh layer", st, fam, n), len(data), decodeBound(len(data)), func(int) {
					var l gopacket.DecodingLayer = &layers.FGCredit{}
					if st == layers.SubtypeFGPause {
						l = &layers.FGPause{}
					}
					if err := l.DecodeFromBytes(data, gopacket.NilDecodeFeedback); err != nil {
						t.Fatalf("subtype %d family %d, %d entries: %v", st, fam, n, err)
					}
				})
			}
		}
	}
}

// pcapng block builders for the capture worst cases (little-endian).
func ngBlock(typ uint32, body []byte) []byte {
	n := uint32(12 + len(body))
	b := binary.LittleEndian.AppendUint32(nil, typ)
	b = binary.LittleEndian.AppendUint32(b, n)
	b = append(b, body...)
	return binary.LittleEndian.AppendUint32(b, n)
}

func ngSHB() []byte {
	body := binary.LittleEndian.AppendUint32(nil, 0x1a2b3c4d)
	body = append(body, 1, 0, 0, 0)
	return ngBlock(0x0a0d0d0a, binary.LittleEndian.AppendUint64(body, ^uint64(0)))
}

func ngIDB(opts []byte) []byte {
	return ngBlock(1, append([]byte{1, 0, 0, 0, 0, 0, 0, 0}, opts...))
}

func repeat(n int, parts ...[]byte) []byte {
	var b []byte
	for i := 0; i < n; i++ {
		for _, p := range parts {
			b = append(b, p...)
		}
	}
	return b
}

// captureWorstCases are captures whose allocations grow with the input:
// many blocks of the kinds pcapgo keeps or copies.
func captureWorstCases() map[string][]byte {
	opts := append(repeat(5000, []byte{2, 0, 4, 0, 'e', 't', 'h', '0'}), 0, 0, 0, 0)
	comments := append(repeat(5000, []byte{1, 0, 4, 0, 'a', 'b', 'c', 'd'}), 0, 0, 0, 0)
	epb := make([]byte, 20+60)
	binary.LittleEndian.PutUint32(epb[12:], 60)
	binary.LittleEndian.PutUint32(epb[16:], 60)
	epb = append(epb, comments...)
	return map[string][]byte{
		"an interface with 5000 name options": append(ngSHB(), ngIDB(opts)...),
		"3 frames with 5000 comments each":    append(append(ngSHB(), ngIDB(nil)...), repeat(3, ngBlock(6, epb))...),
		"10000 section headers":               repeat(10000, ngSHB()),
		"10000 interfaces":                    append(ngSHB(), repeat(10000, ngIDB(nil))...),
	}
}

// TestCaptureAllocWorstCase pins the capture reader's bound (doc.go) on
// the captures the fuzzer is unlikely to build: they need thousands of
// well-formed blocks. It found that the capture of interface description
// blocks made the reader allocate 58.7 × its size (11.7 MB for 10000 IDBs
// in 200 KB) when pcapio read pcapng through gopacket's pcapgo, which kept
// an NgInterface per IDB; pcapio's own parser (0dba9a0) takes 13.6 ×.
func TestCaptureAllocWorstCase(t *testing.T) {
	rp := &readPath{p: layers.NewParser()}
	for name, data := range captureWorstCases() {
		if got, b := allocated(func() { rp.run(t, data) }), pcapBound(len(data)); got > b {
			t.Errorf("%s: %d octets allocated for %d (%.1f ×), bound %d", name, got, len(data), float64(got)/float64(len(data)), b)
		}
	}
}
