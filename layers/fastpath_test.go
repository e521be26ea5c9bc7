// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/gopacket/gopacket"
)

// Several layers decode a well-formed input on a straight path and leave
// anything else to a field-by-field path that names the error. These tests
// check that both paths agree, on the golden bodies and on many mutations
// of them.

// mutations returns b, every prefix of b, and n copies of b with 1 to 4
// octets of the first 64 replaced at random (seeded: the same every run).
func mutations(b []byte, n int) [][]byte {
	rng := rand.New(rand.NewSource(int64(len(b))))
	out := [][]byte{b}
	for i := 0; i < len(b); i++ {
		out = append(out, b[:i])
	}
	for i := 0; i < n; i++ {
		c := append([]byte(nil), b...)
		for k := rng.Intn(4) + 1; k > 0; k-- {
			c[rng.Intn(min(len(c), 64))] = []byte{0, 1, 2, 3, 4, 6, 0xff, byte(rng.Intn(256))}[rng.Intn(8)]
		}
		out = append(out, c)
	}
	return out
}

func TestStraightPathMatchesChecked(t *testing.T) {
	type checked interface {
		gopacket.DecodingLayer
		decodeChecked([]byte, gopacket.DecodeFeedback) error
	}
	for _, c := range []struct {
		name string
		mk   func() checked
		base []byte
	}{
		{"bfc", func() checked { return &BFC{} }, unhex(t, bfcHex)[14:]},
		{"fgcredit", func() checked { return &FGCredit{} }, unhex(t, fgCreditHex)[14:]},
		{"fgcredit-v6", func() checked { return &FGCredit{} }, at(fgPauseBody(t), 2, SubtypeFGCredit)},
		{"fgpause", func() checked { return &FGPause{} }, fgPauseBody(t)},
		{"fgpause-v4", func() checked { return &FGPause{} }, at(unhex(t, fgCreditHex)[14:], 2, SubtypeFGPause)},
		{"cim", func() checked { return &CIM{} }, cimBody(t)},
		{"cim-padded", func() checked { return &CIM{} }, cat(cimBody(t), []byte{0, 0, 7, 7})},
		{"cim-two-tlvs", func() checked { return &CIM{} }, cat(cimBody(t)[:17+48], unhex(t, "07 02 abcd"), cimBody(t)[17+48:])},
		{"cim-ipv6", func() checked { return &CIM{} }, cat(at(cimBody(t)[:17], 15, 0, 64), unhex(t, quoteIPv6Hex))},
		{"cim-no-tlvs", func() checked { return &CIM{} }, at(cimBody(t)[:17+48], 0, 0x01)},
		{"cim-end-tlv", func() checked { return &CIM{} }, cat(cimBody(t), []byte{TLVEnd, 0, 0})},
		{"cim-no-flow", func() checked { return &CIM{} }, at(cimBody(t), 17, 0x55)},
	} {
		straight, slow := c.mk(), c.mk() // reused across inputs, as in a parser
		for _, in := range mutations(c.base, 3000) {
			var fs, fc feedback
			es := straight.DecodeFromBytes(in, &fs)
			ec := slow.decodeChecked(in, &fc)
			if fmt.Sprint(es) != fmt.Sprint(ec) || fs != fc {
				t.Fatalf("%s %x: error %v truncated %v, checked path %v %v", c.name, in, es, fs.truncated, ec, fc.truncated)
			}
			if d := sameLayer(straight, slow); d != "" {
				t.Fatalf("%s %x: %s", c.name, in, d)
			}
		}
	}
}

// TestQuoteStraightPath checks decodeQuote's straight path against
// decodeQuoteChecked, into a Flow that held another quote's.
func TestQuoteStraightPath(t *testing.T) {
	v6ext := cat(at(unhex(t, quoteIPv6Hex)[:40], 6, 0), unhex(t, "06 00 0000 0000 0000"), unhex(t, "0050 1f90 00000001 00000000"))
	for _, base := range [][]byte{unhex(t, quoteIPv4Hex), unhex(t, quoteIPv6Hex), v6ext} {
		prev, _ := DecodeQuote(unhex(t, quoteIPv6Hex))
		for _, q := range mutations(base, 3000) {
			got := prev
			errGot := decodeQuote(q, &got)
			var want Flow
			errWant := decodeQuoteChecked(q, &want)
			if fmt.Sprint(errGot) != fmt.Sprint(errWant) || errWant == nil && got != want {
				t.Fatalf("%x: %v %v, checked path %v %v", q, got, errGot, want, errWant)
			}
			prev = got
		}
	}
}

// TestBTHHeaderByHand checks that DecodeFromBytes, which decodes the BTH
// header inline, agrees with decodeHeader (used for cut payloads).
func TestBTHHeaderByHand(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var m BTH
	for i := 0; i < 20000; i++ {
		data := make([]byte, 12+64)
		rng.Read(data[:12])
		if err := m.DecodeFromBytes(data, &feedback{}); err != nil {
			continue // a pad or extension headers longer than the payload
		}
		var want BTH
		want.decodeHeader(data)
		got := BTH{Opcode: m.Opcode, SE: m.SE, M: m.M, PadCnt: m.PadCnt, TVer: m.TVer, PKey: m.PKey, FECN: m.FECN,
			BECN: m.BECN, DestQP: m.DestQP, AckReq: m.AckReq, PSN: m.PSN, Warnings: m.Warnings}
		if m.Opcode == OpcodeCNP { // the CNP body adds its own warnings
			got.Warnings &= WarnTVer
			want.Warnings &= WarnTVer
		}
		if d := sameLayer(&got, &want); d != "" {
			t.Fatalf("%x: %s", data[:12], d)
		}
	}
}

// TestMultipleOf checks the division-free test of BFC's geometry.
func TestMultipleOf(t *testing.T) {
	for k := 1; k <= BFCMaxHashes; k++ {
		for l := 0; l <= BFCMaxFilterLen; l++ {
			if got := multipleOf(l, k); got != (l%k == 0) {
				t.Fatalf("multipleOf(%d, %d) = %v", l, k, got)
			}
		}
	}
}
