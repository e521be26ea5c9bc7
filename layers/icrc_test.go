// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"bytes"
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/gopacket/gopacket"
)

// icrcReference is the ICRC the plain way: the whole masked packet copied
// after 8 octets of 0xFF, one CRC call.
func icrcReference(ipHdr, udpHdr, roce []byte) uint32 {
	b := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	ip := len(b)
	b = append(b, ipHdr...)
	switch {
	case len(ipHdr) > 60:
	case len(ipHdr) >= 8 && ipHdr[0]>>4 == 6:
		b[ip] |= 0x0f
		b[ip+1], b[ip+2], b[ip+3], b[ip+7] = 0xff, 0xff, 0xff, 0xff
	case len(ipHdr) >= 20 && ipHdr[0]>>4 != 6:
		b[ip+1], b[ip+8], b[ip+10], b[ip+11] = 0xff, 0xff, 0xff, 0xff
	}
	var u [8]byte
	copy(u[:6], udpHdr)
	u[6], u[7] = 0xff, 0xff
	b = append(b, u[:]...)
	bth := len(b)
	b = append(b, roce...)
	if len(roce) > 4 {
		b[bth+4] = 0xff
	}
	return crc32.ChecksumIEEE(b)
}

// TestICRCOverReference compares icrcOver with icrcReference on random
// packets: IPv4 with and without options, IPv6, odd header lengths, short
// UDP headers and payloads of every length around the thresholds.
func TestICRCOverReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	fill := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	ipLens := []int{0, 1, 7, 8, 19, 20, 24, 40, 60, 64, 100}
	for i := 0; i < 20000; i++ {
		ip := fill(ipLens[rng.IntN(len(ipLens))])
		if len(ip) > 0 {
			ip[0] = ip[0]&0x0f | []byte{0x40, 0x60, 0x50, 0x00}[rng.IntN(4)]
		}
		udp := fill([]int{0, 3, 6, 8}[rng.IntN(4)])
		n := rng.IntN(300)
		if i%10 == 0 {
			n = rng.IntN(3000)
		}
		roce := fill(n)
		if got, want := icrcOver(ip, udp, roce), icrcReference(ip, udp, roce); got != want {
			t.Fatalf("ip %x udp %x roce of %d: %08x, want %08x", ip, udp, len(roce), got, want)
		}
	}
	// Contiguous, as in a frame: the one-pass path.
	for i := 0; i < 20000; i++ {
		hl := []int{20, 40, 20, 40, 24}[i%5]
		n := 12 + rng.IntN(200)
		if i%10 == 0 {
			n = 12 + rng.IntN(3000)
		}
		pkt := fill(hl + 8 + n + rng.IntN(3))
		pkt[0] = pkt[0]&0x0f | []byte{0x40, 0x60, 0x40, 0x60, 0x40}[i%5]
		if i%7 == 0 {
			pkt[0] ^= 0x20 // the other version for this length
		}
		ip, udp, roce := pkt[:hl], pkt[hl:hl+8], pkt[hl+8:hl+8+n]
		_, fast := icrcInPlace(ip, udp, roce)
		v6 := pkt[0]>>4 == 6
		if want := hl == 20 && !v6 || hl == 40 && v6; fast != want {
			t.Fatalf("header of %d, version %d: one pass %v", hl, pkt[0]>>4, fast)
		}
		if got, want := icrcOver(ip, udp, roce), icrcReference(ip, udp, roce); got != want {
			t.Fatalf("contiguous ip %x udp %x roce of %d: %08x, want %08x", ip, udp, len(roce), got, want)
		}
	}
	ip, udp, roce := make([]byte, 20), make([]byte, 8), make([]byte, 1040)
	ip[0] = 0x45
	pkt := make([]byte, 20+8+1040)
	pkt[0] = 0x45
	for _, c := range [][3][]byte{{ip, udp, roce}, {pkt[:20], pkt[20:28], pkt[28:]}} {
		if n := testing.AllocsPerRun(10, func() { icrcOver(c[0], c[1], c[2]) }); n != 0 {
			t.Errorf("icrcOver: %v allocations", n)
		}
	}
}

// BenchmarkICRCOver times icrcOver on the RoCEv2 frames of the decode
// benchmarks, as the fastest of many blocks (see loopMin).
func BenchmarkICRCOver(b *testing.B) {
	for _, f := range benchFrames(b) {
		if f.lt != LayerTypeBTH {
			continue
		}
		b.Run(f.name, func(b *testing.B) {
			pkt := f.frame[14:]
			hl := 20
			if pkt[0]>>4 == 6 {
				hl = 40
			}
			ip, udp, roce := pkt[:hl], pkt[hl:hl+8], pkt[hl+8:len(pkt)-4]
			var sink uint32
			loopMin(b, func() { sink ^= icrcOver(ip, udp, roce) })
			_ = sink
		})
	}
}

// TestVerifyICRCNeedsDecodedContents checks that VerifyICRC checks the
// packet a BTH was decoded from, and checks nothing (false, ICRCChecked
// false) where there is none: a BTH built by hand, a decode that failed,
// a Contents replaced by a copy of its own size or by one with other
// octets after it (which must not be read as the rest of the packet).
func TestVerifyICRCNeedsDecodedContents(t *testing.T) {
	frame := roceFrame{bth: BTH{Opcode: OpcodeRCWriteOnly, DestQP: 9, RETH: RETH{DMALen: 64}}, payload: make([]byte, 64)}.build(t, optsFix)
	ipHdr, udpHdr, payload := frame[14:34], frame[34:42], frame[42:]
	decode := func() *BTH {
		var m BTH
		if err := m.DecodeFromBytes(payload, gopacket.NilDecodeFeedback); err != nil {
			t.Fatal(err)
		}
		return &m
	}
	if m := decode(); !m.VerifyICRC(ipHdr, udpHdr) || !m.ICRCChecked || !m.ICRCOK {
		t.Fatalf("as decoded: checked %v, ok %v", m.ICRCChecked, m.ICRCOK)
	}
	unchecked := func(name string, m *BTH) {
		t.Helper()
		if m.VerifyICRC(ipHdr, udpHdr) || m.ICRCChecked || m.Warnings&WarnICRC != 0 {
			t.Errorf("%s: VerifyICRC checked (ok %v, warnings %v)", name, m.ICRCOK, m.Warnings)
		}
	}
	unchecked("built by hand", &BTH{Opcode: OpcodeRCWriteOnly})
	m := decode()
	m.Contents = bytes.Clone(m.Contents)
	unchecked("Contents copied", m)
	m = decode()
	roomy := make([]byte, 12, len(payload)+64) // zeros after the copy
	copy(roomy, m.Contents)
	m.Contents = roomy
	unchecked("Contents copied with other octets after it", m)
	// With the packet's own octets after it, the copy is the packet, and
	// the check holds.
	m = decode()
	roomy = make([]byte, 12, len(payload)+64)
	copy(roomy[:cap(roomy)], payload)
	m.Contents = roomy
	if !m.VerifyICRC(ipHdr, udpHdr) || !m.ICRCOK {
		t.Errorf("Contents copied with the packet's octets after it: checked %v, ok %v", m.ICRCChecked, m.ICRCOK)
	}
	// Verified, then Contents replaced: the second call records that
	// nothing was checked, not the first call's result.
	m = decode()
	m.VerifyICRC(ipHdr, udpHdr)
	m.Contents = bytes.Clone(m.Contents)
	unchecked("verified, then Contents copied", m)
	// A wrong IP header, then the right one: the second result stands,
	// without the first one's warning.
	m = decode()
	wrongIP := bytes.Clone(ipHdr)
	wrongIP[12] ^= 1 // source address
	if m.VerifyICRC(wrongIP, udpHdr) || m.Warnings&WarnICRC == 0 {
		t.Errorf("wrong IP header: ok %v, warnings %v", m.ICRCOK, m.Warnings)
	}
	if !m.VerifyICRC(ipHdr, udpHdr) || !m.ICRCChecked || m.Warnings&WarnICRC != 0 {
		t.Errorf("right IP header after a wrong one: checked %v, ok %v, warnings %v", m.ICRCChecked, m.ICRCOK, m.Warnings)
	}
	var bad BTH
	short := payload[:12+8+4] // a WRITE needs 16 octets of RETH
	if err := bad.DecodeFromBytes(short, gopacket.NilDecodeFeedback); err == nil {
		t.Fatal("short WRITE decoded")
	}
	unchecked("failed decode", &bad)
}
