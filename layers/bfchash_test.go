// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"net/netip"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
)

// TestBFCCheckValues: each stage's CRC of the nine octets "123456789" is
// the check value of wire.md §7.1's table, through BFCHash and through
// hash/crc32 with the table's reflected polynomial.
func TestBFCCheckValues(t *testing.T) {
	for _, r := range []struct {
		s           int
		normal, rev uint32
		check       uint32
		name        string
	}{
		{0, 0x1EDC6F41, 0x82F63B78, 0xE3069283, "CRC-32C"},
		{1, 0x04C11DB7, 0xEDB88320, 0xCBF43926, "CRC-32 (IEEE 802.3)"},
		{2, 0x741B8CD7, 0xEB31D82E, 0x2D3DD0AE, "Koopman"},
		{3, 0x32583499, 0x992C1A4C, 0xEEB754CC, "Koopman 2"},
		{4, 0x814141AB, 0xD5828281, 0xA9CC8179, "CRC-32Q polynomial"},
		{5, 0xA833982B, 0xD419CC15, 0x87315576, "CRC-32D polynomial"},
		{6, 0xF4ACFB13, 0xC8DF352F, 0x1697D06A, "AUTOSAR polynomial"},
		{7, 0x8001801B, 0xD8018001, 0x01206205, "CD-ROM EDC polynomial"},
	} {
		t.Run(fmt.Sprintf("stage%d", r.s), func(t *testing.T) {
			in := []byte("123456789")
			if BFCPolynomials[r.s] != r.rev {
				t.Errorf("%s: polynomial %08x, want %08x", r.name, BFCPolynomials[r.s], r.rev)
			}
			if got := reverse32(r.normal); got != r.rev {
				t.Errorf("%s: table's normal %08x reflects to %08x, table says %08x", r.name, r.normal, got, r.rev)
			}
			if got := BFCHash(r.s, in); got != r.check {
				t.Errorf("%s: BFCHash = %08x, want %08x", r.name, got, r.check)
			}
			if got := crc32.Checksum(in, crc32.MakeTable(r.rev)); got != r.check {
				t.Errorf("%s: crc32.MakeTable(%08x) gives %08x, want %08x", r.name, r.rev, got, r.check)
			}
			if got := bitwiseCRC(r.normal, in); got != r.check {
				t.Errorf("%s: bit by bit %08x, want %08x", r.name, got, r.check)
			}
			// The tables are made without crc32.MakeTable: table 0 is
			// its table all the same, and every slicing table gives
			// the CRC of a longer key alike (37 octets: 4 steps of 8, a
			// 4, a 1).
			if *crc32.MakeTable(r.rev) != bfcTables()[r.s][0] {
				t.Errorf("%s: table 0 differs from crc32.MakeTable's", r.name)
			}
			key := []byte("0123456789abcdefghijklmnopqrstuvwxyz!")
			if got, want := BFCHash(r.s, key), crc32.Checksum(key, crc32.MakeTable(r.rev)); got != want {
				t.Errorf("%s: BFCHash of 37 octets = %08x, crc32 %08x", r.name, got, want)
			}
		})
	}
}

// reverse32 reverses the bit order of x.
func reverse32(x uint32) uint32 {
	var r uint32
	for i := 0; i < 32; i++ {
		r = r<<1 | x>>i&1
	}
	return r
}

// bitwiseCRC is the reflected CRC-32 of the normal polynomial, one bit at a
// time: an implementation that shares nothing with BFCHash but the idea.
func bitwiseCRC(normal uint32, p []byte) uint32 {
	poly := reverse32(normal)
	c := ^uint32(0)
	for _, b := range p {
		c ^= uint32(b)
		for i := 0; i < 8; i++ {
			if c&1 != 0 {
				c = c>>1 ^ poly
			} else {
				c >>= 1
			}
		}
	}
	return ^c
}

// bfcGoldenV2 is the BFC pause body (common header on) of version 2 with
// k = 4, L = 128, sequence 42, pausing 10.0.0.1:49152 > 10.0.0.2:4791 UDP
// and [fd00::1]:49153 > [fd00::2]:4791 UDP. It is the output of
// testdata/bfc_v2.py, which computes the CRCs bit by bit from the normal
// polynomials of wire.md's table (TestBFCGoldenV2Python reruns it). One
// stage of 32 octets per line after the header.
const bfcGoldenV2 = `4643 01 02 04 00 0080 0000002a
00000000000020000000000000000000 00040000000000000000000000000000
00000000000000000000000000000000 00000000100000000100000000000000
00020000000000000000000000000000 00000000000000000000000800000000
00000000000000000002000000000000 00000000008000000000000000000000`

var bfcGoldenFlows = []Flow{
	{Src: netip.MustParseAddr("10.0.0.1"), Dst: netip.MustParseAddr("10.0.0.2"), Proto: 17, SrcPort: 49152, DstPort: 4791},
	{Src: netip.MustParseAddr("fd00::1"), Dst: netip.MustParseAddr("fd00::2"), Proto: 17, SrcPort: 49153, DstPort: 4791},
}

// TestBFCGoldenV2: SetFilterBit and SerializeTo write the golden frame
// byte for byte; it decodes as version 2 without warnings and pauses both
// flows and not a third; read as version 1 it pauses neither.
func TestBFCGoldenV2(t *testing.T) {
	want := unhex(t, bfcGoldenV2)
	filter := make([]byte, 128)
	for _, f := range bfcGoldenFlows {
		h := BFCFlowHashes(f)
		for s := 0; s < 4; s++ {
			SetFilterBit(BFCVersion, filter, 4, &h, s)
		}
	}
	buf := gopacket.NewSerializeBuffer()
	if err := (&BFC{Hashes: 4, Seq: 42, Filter: filter}).SerializeTo(buf, gopacket.SerializeOptions{FixLengths: true}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("encoded\n got %x\nwant %x", buf.Bytes(), want)
	}
	var m BFC
	if err := m.DecodeFromBytes(want, gopacket.NilDecodeFeedback); err != nil || m.Version != BFCVersion || m.Warnings != 0 || m.BitsSet() != 8 {
		t.Fatalf("decode: %v, version %d, warnings %q, %d bits", err, m.Version, m.Warnings, m.BitsSet())
	}
	for _, f := range bfcGoldenFlows {
		if !m.Matches(f) {
			t.Errorf("golden frame does not pause %v", f)
		}
	}
	other := bfcGoldenFlows[0]
	other.SrcPort++
	if m.Matches(other) {
		t.Errorf("golden frame pauses %v", other)
	}
	v1 := append([]byte(nil), want...)
	v1[3] = BFCVersion1
	if err := m.DecodeFromBytes(v1, gopacket.NilDecodeFeedback); err != nil || !m.Warnings.Has(WarnBFCVersion1) {
		t.Fatalf("version 1: %v, warnings %q", err, m.Warnings)
	}
	for _, f := range bfcGoldenFlows {
		if m.Matches(f) {
			t.Errorf("the golden filter read as version 1 pauses %v", f)
		}
	}
}

// TestBFCGoldenV2Python reruns testdata/bfc_v2.py, the independent
// bit-by-bit implementation, and compares its frame with the golden one.
func TestBFCGoldenV2Python(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	out, err := exec.Command(py, filepath.Join("testdata", "bfc_v2.py")).CombinedOutput()
	if err != nil {
		t.Fatalf("bfc_v2.py: %v: %s", err, out)
	}
	got, err := hex.DecodeString(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	if want := unhex(t, bfcGoldenV2); !bytes.Equal(got, want) {
		t.Errorf("bfc_v2.py gives\n%x\nthe golden frame is\n%x", got, want)
	}
}
