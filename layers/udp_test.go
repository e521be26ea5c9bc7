// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"errors"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// TestShortIPAndUDP: IPv4, IPv6 and UDP headers of 0 to their full length
// decode without a panic, directly and as raw-IP frames; a cut one keeps
// the fields it holds whole (Partial) and names the first missing field.
func TestShortIPAndUDP(t *testing.T) {
	v4 := []byte{0x45, 0xc0, 0x00, 0x3c, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11, 0x65, 0xef, 10, 0, 0, 1, 10, 0, 0, 2}
	v6 := append([]byte{0x6b, 0x80, 0x00, 0x00, 0x00, 0x30, 0x11, 0x40}, make([]byte, 32)...)
	udp := []byte{0xc0, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00}
	p := NewParser()
	for n := 0; n <= len(v6); n++ {
		if n <= len(v4) {
			var ip IPv4
			err := ip.DecodeFromBytes(v4[:n], gopacket.NilDecodeFeedback)
			if n > 0 && n < 20 && (!ip.Partial || err == nil) || n >= 9 && n < 20 && ip.TTL != 64 {
				t.Errorf("IPv4 cut at %d: partial %v, ttl %d, %v", n, ip.Partial, ip.TTL, err)
			}
			p.DecodeLink(layers.LinkTypeIPv4, v4[:n])
		}
		var ip6 IPv6
		ip6.Ext = &IPv6Ext{}
		err := ip6.DecodeFromBytes(v6[:n], gopacket.NilDecodeFeedback)
		if n > 0 && n < 40 && (!ip6.Partial || err == nil) || n >= 8 && n < 40 && ip6.HopLimit != 0x40 {
			t.Errorf("IPv6 cut at %d: partial %v, hlim %d, %v", n, ip6.Partial, ip6.HopLimit, err)
		}
		p.DecodeLink(layers.LinkTypeIPv6, v6[:n])
		if n <= len(udp) {
			// A UDP header cut short, behind a whole IPv4 header.
			frame := append(append([]byte(nil), v4...), udp[:n]...)
			frame[3] = byte(20 + n)
			frame[10], frame[11] = 0, 0
			err := p.DecodeLink(layers.LinkTypeIPv4, frame)
			if n > 0 && n < 8 && (!p.Has(layers.LayerTypeUDP) || !p.UDP.Partial || err == nil) || n >= 4 && n < 8 && p.UDP.DstPort != 4791 {
				t.Errorf("UDP cut at %d: has %v, partial %v, dport %d, %v", n, p.Has(layers.LayerTypeUDP), p.UDP.Partial, p.UDP.DstPort, err)
			}
			if n == 8 && (p.UDP.Partial || !p.Has(layers.LayerTypeUDP)) {
				t.Errorf("a whole UDP header: partial %v", p.UDP.Partial)
			}
		}
	}
	var de *DecodeError
	var ip IPv4
	if err := ip.DecodeFromBytes(v4[:13], gopacket.NilDecodeFeedback); !errors.As(err, &de) || de.Field != "src" || de.Offset != 12 {
		t.Errorf("IPv4 cut at 13: %v; want the src at offset 12 missing", err)
	}
}

// IPv4.NextLayerType returns what gopacket's does, for every protocol
// number, fragment flag and offset.
func TestIPv4NextLayerType(t *testing.T) {
	var ip IPv4
	for proto := 0; proto < 256; proto++ {
		for _, fl := range []layers.IPv4Flag{0, layers.IPv4DontFragment, layers.IPv4MoreFragments, layers.IPv4EvilBit} {
			for _, off := range []uint16{0, 1, 185} {
				ip.Protocol, ip.Flags, ip.FragOffset = layers.IPProtocol(proto), fl, off
				if got, want := ip.NextLayerType(), ip.IPv4.NextLayerType(); got != want {
					t.Errorf("protocol %d, flags %v, offset %d: %v, gopacket %v", proto, fl, off, got, want)
				}
			}
		}
	}
}
