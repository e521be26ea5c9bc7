// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"
)

// The frames of the malformed-option tests, as a tester crafted them
// (/tmp/hard/v4badopt.pcap, hbhopt.pcap): a BTS over UDP behind an IPv4
// header of IHL 6 whose one option word is opt4, or behind an IPv6
// Hop-by-Hop (or Destination Options) header of 8 octets whose options
// are opt6.
const (
	v4optEth  = "020000000001 020000000002 0800"
	v4optHdr  = "46c0 0058 0000 0000 4011 0000 0a000002 0a000001"
	v4optBody = "c00003fd00400000" + // UDP 49152 > 1021, length 64
		"11000014 00000007 00050003 0005b8d8" + // BTS: C, queue, 20 us, reporter 7, depth 375000
		"4568003c00000000401100 0a 0a000001 0a000002 c00012b70028 0000 0a00ffff000000d200000000" // the quote
	v6optEth  = "020000000001 020000000002 86dd"
	v6optHdr  = "60000000 005c %s 40 fd000000000000000000000000000002 fd000000000000000000000000000001"
	v6optBody = "c00103fd00540000" + // UDP 49153 > 1021, length 84
		"1100000c 00000009 ffff0000 00000000" + // BTS: C, queue, 12 us, reporter 9
		"6a00000000141140 fd000000000000000000000000000001 fd000000000000000000000000000002 c00112b700140000 0a00ffff0000abcd00000000"
)

func optFrame(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// v4optFrame is the IPv4 frame with option word opt (4 octets, hex).
func v4optFrame(t testing.TB, opt string) []byte {
	return optFrame(t, v4optEth+v4optHdr+opt+v4optBody)
}

// v6optFrame is the IPv6 frame whose first header (code nh, hex) is an
// 8-octet options header with next header UDP and options opts (6
// octets, hex).
func v6optFrame(t testing.TB, nh, opts string) []byte {
	return optFrame(t, v6optEth+strings.Replace(v6optHdr, "%s", nh, 1)+"1100"+opts+v6optBody)
}

// TestMalformedOptionWarns: an IPv4 header whose IHL is valid but whose
// option has a length of 0 (under 2), runs past the header or lacks its
// length octet, and an IPv6 Hop-by-Hop or Destination Options header
// whose length is valid but whose option TLV runs past it, keep the
// header (its extent is known): the option is a warning naming it and
// its offset, and the UDP and BTS behind decode, as tshark decodes them.
// Before, gopacket's refusal (IPv4) and the TLV check (IPv6) ended the
// frame with an error. Decoding such a frame does not allocate.
func TestMalformedOptionWarns(t *testing.T) {
	cases := []struct {
		name  string
		frame []byte
		warn  string // the option's text; "" none
		opts  int    // IPv4: the options decoded before the fault
	}{
		{"ipv4-length-0", v4optFrame(t, "c0000000"), "ipv4 option type 192 at offset 20: length 0, less than 2", 0},
		{"ipv4-past-header", v4optFrame(t, "07200000"), "ipv4 option type 7 at offset 20: length 32 runs past the header (4 octets left)", 0},
		{"ipv4-nop-then-past", v4optFrame(t, "01010705"), "ipv4 option type 7 at offset 22: length 5 runs past the header (2 octets left)", 2},
		{"ipv4-no-length-octet", v4optFrame(t, "01010107"), "ipv4 option type 7 at offset 23: no length octet, the options end", 3},
		{"ipv4-router-alert", v4optFrame(t, "94040000"), "", 1},
		{"hopopts-padn-past", v6optFrame(t, "00", "010a00000000"), "hopopts option type 1 at offset 2: length 10 runs past the header (12 octets with type and length, 6 left)", 0},
		{"dstopts-past", v6optFrame(t, "3c", "050900000000"), "dstopts option type 5 at offset 2: length 9 runs past the header (11 octets with type and length, 6 left)", 0},
		{"hopopts-no-length-octet", v6optFrame(t, "00", "000000000005"), "hopopts option type 5 at offset 7: no length octet, the options end", 0},
		{"hopopts-valid", v6optFrame(t, "00", "1e0200000100"), "", 0},
	}
	p := NewParser()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := p.Decode(c.frame); err != nil {
				t.Fatalf("decode: %v (decoded %v)", err, p.Decoded)
			}
			if p.Truncated {
				t.Error("Truncated set: the frame is whole")
			}
			if !p.Has(layers.LayerTypeUDP) || p.UDP.DstPort != 1021 || !p.Has(LayerTypeBTS) || !p.BTS.Flow.HasQP {
				t.Fatalf("no UDP and BTS behind the options: %v, dport %d", p.Decoded, p.UDP.DstPort)
			}
			var w Warnings
			var o *OptionFault
			if p.Has(layers.LayerTypeIPv4) {
				w, o = p.IPv4.Warnings, &p.IPv4.Option
				if p.BTS.PauseUS != 20 || p.IPv4.IHL != 6 || len(p.IPv4.Contents) != 24 || len(p.IPv4.Payload) != 64 {
					t.Errorf("IPv4 IHL %d, %d+%d octets, BTS pause %d", p.IPv4.IHL, len(p.IPv4.Contents), len(p.IPv4.Payload), p.BTS.PauseUS)
				}
				if len(p.IPv4.Options) != c.opts {
					t.Errorf("%d options before the fault, want %d: %+v", len(p.IPv4.Options), c.opts, p.IPv4.Options)
				}
			} else {
				w, o = p.IPv6Ext.Warnings, &p.IPv6Ext.Option
				if p.BTS.PauseUS != 12 || p.IPv6Ext.N != 1 || p.IPv6Ext.Headers[0].Length != 8 {
					t.Errorf("IPv6 extension headers %+v, BTS pause %d", p.IPv6Ext.List(), p.BTS.PauseUS)
				}
			}
			if c.warn == "" {
				if w != 0 {
					t.Errorf("warnings %v on a valid option", w)
				}
			} else if w != WarnOption || o.String() != c.warn {
				t.Errorf("warnings %v, option %q; want %v, %q", w, o.String(), WarnOption, c.warn)
			}
			if n := testing.AllocsPerRun(20, func() { _ = p.Decode(c.frame) }); n != 0 {
				t.Errorf("%v allocations per decode", n)
			}
		})
	}
	// The next frame, with no option, has no warning left over.
	if err := p.Decode(v4optFrame(t, "c0000000")); err != nil || p.IPv4.Warnings != WarnOption {
		t.Fatalf("%v %v", err, p.IPv4.Warnings)
	}
	plain := optFrame(t, v4optEth+"45c00054 0000 0000 4011 0000 0a000002 0a000001"+v4optBody)
	if err := p.Decode(plain); err != nil || p.IPv4.Warnings != 0 || !p.Has(LayerTypeBTS) {
		t.Errorf("plain IPv4 after a bad option: %v, warnings %v, %v", err, p.IPv4.Warnings, p.Decoded)
	}
}

// TestMalformedOptionStillErrors: a header whose own length is wrong is
// still an error, as before: an IHL past the frame (truncation), a total
// length shorter than the IHL, an IPv6 options header longer than the
// packet.
func TestMalformedOptionStillErrors(t *testing.T) {
	p := NewParser()
	cut := v4optFrame(t, "c0000000")[:14+22] // IHL 6: 24 octets, 22 captured
	if err := p.Decode(cut); err == nil || !p.Truncated || p.Has(layers.LayerTypeUDP) {
		t.Errorf("IPv4 header cut inside its options: err %v, truncated %v, %v", err, p.Truncated, p.Decoded)
	}
	short := v4optFrame(t, "c0000000")
	copy(short[14+2:], []byte{0, 22}) // total length 22 < IHL 24
	if err := p.Decode(short); err == nil || p.Has(layers.LayerTypeUDP) {
		t.Errorf("total length under the IHL: err %v, %v", err, p.Decoded)
	}
	long := v6optFrame(t, "00", "010a00000000")
	long[14+40+1] = 200 // Hdr Ext Len: 1608 octets, past the packet
	err := p.Decode(long)
	if !errors.Is(err, ErrLength) || p.Has(layers.LayerTypeUDP) {
		t.Errorf("hopopts past the packet: err %v, %v", err, p.Decoded)
	}
}
