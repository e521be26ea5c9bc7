package fuzz

import (
	"encoding/binary"
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
				var err error
				got := allocated(func() {
					var l gopacket.DecodingLayer = &layers.FGCredit{}
					if st == layers.SubtypeFGPause {
						l = &layers.FGPause{}
					}
					err = l.DecodeFromBytes(data, gopacket.NilDecodeFeedback)
				})
				if err != nil {
					t.Fatalf("subtype %d family %d, %d entries: %v", st, fam, n, err)
				}
				if b := decodeBound(len(data)); got > b {
					t.Errorf("subtype %d family %d, %d entries: a fresh layer allocated %d octets for %d (%.1f ×), bound %d",
						st, fam, n, got, len(data), float64(got)/float64(len(data)), b)
				}
			}
		}
	}
}
