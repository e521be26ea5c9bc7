// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"encoding/binary"
	"fmt"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// IPSecAH is gopacket's IPsec Authentication Header (RFC 4302) as an IPv4
// packet carries it (IP protocol 51), decoded without allocating and with
// this package's errors, so that Parser walks it to the UDP header behind
// it: a RoCEv2 packet, a BTS, a postcard or a CIM behind an AH decode as
// behind IPv4 alone. Its layer type is layers.LayerTypeIPSecAH; every
// field of layers.IPSecAH is promoted (NextHeader, HeaderLength, SPI,
// Seq, AuthenticationData: the ICV). In IPv6 an AH is one of the
// extension headers IPv6Ext walks.
//
//	 0               1               2               3
//	| Next Header   | Payload Len   |           Reserved            |
//	|               Security Parameters Index (SPI)                 |
//	|                   Sequence Number Field                       |
//	|          Integrity Check Value (ICV), variable length         |
//
// Payload Len is the header's length in 4-octet units, less 2 (12 octets
// of ICV give 4).
type IPSecAH struct {
	layers.IPSecAH
	// Partial says the last decode found the data ending inside the 12
	// octets of the fixed part: the fields it holds whole are set, the
	// others zero, and the decode returned ErrTruncated.
	Partial bool
}

// ahFieldEnds are where the AH's fixed fields end (Wireshark's names).
var ahFieldEnds = []fieldEnd{{"next_header", 1}, {"length", 2}, {"reserved", 4}, {"spi", 8}, {"sequence", 12}}

// DecodeFromBytes decodes the header and sets its payload to what follows
// it. Data that ends inside the fixed 12 octets is ErrTruncated (the
// fields it holds whole are kept); a length under 12 octets is
// ErrBadValue, and one past the data ErrLength (the fixed fields are
// kept, the ICV is not).
func (a *IPSecAH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	h := &a.IPSecAH
	*h, a.Partial = layers.IPSecAH{}, false
	n := len(data)
	if n < 12 {
		a.Partial = true
		if n >= 1 {
			h.NextHeader = layers.IPProtocol(data[0])
		}
		if n >= 2 {
			h.HeaderLength = data[1]
			h.ActualLength = (int(data[1]) + 2) * 4
		}
		if n >= 4 {
			h.Reserved = binary.BigEndian.Uint16(data[2:])
		}
		if n >= 8 {
			h.SPI = binary.BigEndian.Uint32(data[4:])
		}
		h.Contents, h.Payload = data, nil
		df.SetTruncated()
		return cutAt("ah", ahFieldEnds, n, 12)
	}
	h.NextHeader, h.HeaderLength = layers.IPProtocol(data[0]), data[1]
	h.Reserved = binary.BigEndian.Uint16(data[2:])
	h.SPI, h.Seq = binary.BigEndian.Uint32(data[4:]), binary.BigEndian.Uint32(data[8:])
	l := (int(data[1]) + 2) * 4
	h.ActualLength = l
	h.Contents, h.Payload = data[:12], nil
	if l < 12 {
		return errAt("ah", "length", 1, ErrBadValue, fmt.Sprintf("%d (a header of %d octets, at least 12)", data[1], l))
	}
	if l > n {
		df.SetTruncated()
		return errAt("ah", "icv", 12, ErrLength, fmt.Sprintf("header of %d octets, %d left", l, n))
	}
	// Slices of the frame that keep its capacity, as gopacket's:
	// offsets in the frame are told by capacities.
	h.AuthenticationData = data[12:l]
	h.Contents, h.Payload = data[:l], data[l:]
	return nil
}

// CanDecode returns layers.LayerTypeIPSecAH.
func (a *IPSecAH) CanDecode() gopacket.LayerClass { return layers.LayerTypeIPSecAH }

// NextLayerType returns the layer type of the Next Header (UDP, ESP,
// ...), reading gopacket's protocol table in place as IPv4 does;
// gopacket.LayerTypeZero for an IPv6 extension header or a protocol
// without a decoder.
func (a *IPSecAH) NextLayerType() gopacket.LayerType {
	if a.Partial {
		return gopacket.LayerTypeZero
	}
	return ipProtocolNext(a.NextHeader)
}

// ipProtocolNext is the layer type gopacket's protocol table gives IP
// protocol p, read in place (IPProtocol.LayerType copies the whole entry),
// or gopacket.LayerTypeZero for an IPv6 extension header or a protocol
// without a decoder.
func ipProtocolNext(p layers.IPProtocol) gopacket.LayerType {
	m := &layers.IPProtocolMetadata[p]
	if m.DecodeWith == nil || layers.LayerClassIPv6Extension.Contains(m.LayerType) {
		return gopacket.LayerTypeZero
	}
	return m.LayerType
}

// IPSecESP is gopacket's IPsec Encapsulating Security Payload header (RFC
// 4303) as an IPv4 packet, or an AH, carries it (IP protocol 50): the SPI
// and the sequence number, then octets that are encrypted. Decoding ends
// there, with the note WarnEncrypted, as IPv6Ext ends an IPv6 chain at
// ESP. Its layer type is layers.LayerTypeIPSecESP; every field of
// layers.IPSecESP is promoted.
type IPSecESP struct {
	layers.IPSecESP
	// Partial says the last decode found the data ending inside the SPI
	// or the sequence number: the field it holds whole is set, and the
	// decode returned ErrTruncated.
	Partial bool
	// Warnings: WarnEncrypted when the header decoded.
	Warnings Warnings
}

var espFieldEnds = []fieldEnd{{"spi", 4}, {"sequence", 8}}

// DecodeFromBytes decodes the SPI and the sequence number; the rest is
// Encrypted, and the layer has no payload to decode.
func (e *IPSecESP) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	h := &e.IPSecESP
	*h, e.Partial, e.Warnings = layers.IPSecESP{}, false, 0
	if len(data) < 8 {
		e.Partial = true
		if len(data) >= 4 {
			h.SPI = binary.BigEndian.Uint32(data)
		}
		h.Contents = data
		df.SetTruncated()
		return cutAt("esp", espFieldEnds, len(data), 8)
	}
	h.SPI, h.Seq = binary.BigEndian.Uint32(data), binary.BigEndian.Uint32(data[4:])
	h.Encrypted = data[8:]
	h.Contents = data
	e.Warnings = WarnEncrypted
	return nil
}

// CanDecode returns layers.LayerTypeIPSecESP.
func (e *IPSecESP) CanDecode() gopacket.LayerClass { return layers.LayerTypeIPSecESP }

// NextLayerType returns gopacket.LayerTypeZero: what follows is
// encrypted.
func (e *IPSecESP) NextLayerType() gopacket.LayerType { return gopacket.LayerTypeZero }
