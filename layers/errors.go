// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gopacket/gopacket"
)

// Sentinel errors. Every decode error of this package wraps one of them in a
// *DecodeError that names the layer, the field and its offset, so callers
// test the kind with errors.Is and print the where.
var (
	// ErrTruncated: the data ends before a field the format requires.
	ErrTruncated = errors.New("truncated")
	// ErrLength: a length or count field points past the end of the data.
	ErrLength = errors.New("length field points past the data")
	// ErrQuoteTooShort: a quote does not hold an IP header plus 8 octets of
	// L4 header, so it cannot name a flow.
	ErrQuoteTooShort = errors.New("quote too short to name a flow")
	// ErrTLVLength: a CIM extension TLV's length is wrong or runs past the PDU.
	ErrTLVLength = errors.New("bad TLV length")
	// ErrVersion: the version field holds a version this package does not know.
	ErrVersion = errors.New("unknown version")
	// ErrBadValue: a field holds a value outside its defined range (for
	// example a BFC hash count of 0 or an address family of 5).
	ErrBadValue = errors.New("value out of range")
	// ErrLinkType: the frame's link type is one the Parser does not decode
	// (DecodeLink): the frame is not malformed, only not decoded.
	ErrLinkType = errors.New("link type not decoded")
	// ErrNoNetworkLayer: the ICRC cannot be computed on serialize because the
	// BTH was not told its IP and UDP layers (BTH.SetNetworkLayerForICRC).
	ErrNoNetworkLayer = errors.New("ICRC needs the IP and UDP layers: call SetNetworkLayerForICRC")
)

// DecodeError says what is wrong in a decoded or serialized layer and where:
// the layer, the field (as named in wire.md's field table where it has a
// name there) and the octet offset of that field's first octet from the
// start of that layer. For ErrTruncated the field is the one the data ends
// in (Detail says how many octets there were).
type DecodeError struct {
	Layer  string
	Field  string
	Offset int
	Err    error  // one of the sentinel errors above
	Detail string // optional extra words, e.g. "need 16, have 9"
}

// Error renders "layer: field at offset N: what (detail)".
func (e *DecodeError) Error() string {
	var b strings.Builder
	b.WriteString(e.Layer)
	b.WriteString(": ")
	b.WriteString(e.Field)
	fmt.Fprintf(&b, " at offset %d: %v", e.Offset, e.Err)
	if e.Detail != "" {
		b.WriteString(" (")
		b.WriteString(e.Detail)
		b.WriteString(")")
	}
	return b.String()
}

// Unwrap returns the sentinel error.
func (e *DecodeError) Unwrap() error { return e.Err }

func errAt(layer, field string, off int, err error, detail string) error {
	return &DecodeError{Layer: layer, Field: field, Offset: off, Err: err, Detail: detail}
}

func truncated(layer, field string, off, need, have int) error {
	return &DecodeError{Layer: layer, Field: field, Offset: off, Err: ErrTruncated,
		Detail: fmt.Sprintf("need %d octets, have %d", need, have)}
}

// LayerError is an error of a layer the Parser decodes with gopacket's own
// decoders (Ethernet, IPv4, IPv6, UDP, ...), which say what is wrong but
// not where: it adds the layer and the offset in the frame where that
// layer starts. The project's layers return a *DecodeError instead.
type LayerError struct {
	Layer gopacket.LayerType
	At    int // offset in the frame of the layer's first octet
	Err   error
}

// Error renders "layer at frame offset N: what".
func (e *LayerError) Error() string {
	return fmt.Sprintf("%s at frame offset %d: %v", e.Layer, e.At, e.Err)
}

// Unwrap returns gopacket's error.
func (e *LayerError) Unwrap() error { return e.Err }

// Warnings is a set of conditions that are not errors: the layer decoded in
// full, but a device sent something the specification says it should not.
// Layers carry their warnings in a Warnings field; decoding never stops for
// them, and recording them does not allocate.
type Warnings uint16

// The warnings a layer can carry.
const (
	// WarnReserved: reserved bits or octets are not zero.
	WarnReserved Warnings = 1 << iota
	// WarnDestMAC: a PAUSE or PFC frame is not sent to 01:80:C2:00:00:01.
	WarnDestMAC
	// WarnMSDULength: a CIM's encapsulated MSDU length is outside 48..512.
	WarnMSDULength
	// WarnICRC: the RoCEv2 ICRC does not match the packet.
	WarnICRC
	// WarnUnknownValue: a code point (BTS origin) has no defined meaning.
	WarnUnknownValue
	// WarnCNPNoBECN: a CNP whose BTH does not have BECN set.
	WarnCNPNoBECN
	// WarnTVer: a BTH transport header version other than 0.
	WarnTVer
	// WarnNoFlow: a CIM's MSDU does not hold an IP packet that names a flow.
	WarnNoFlow
	// WarnTruncatedPad: a fixed-size MAC Control frame is shorter than its
	// 46 octets (the reserved pad is cut); every field was still decoded.
	WarnTruncatedPad
	// WarnBFCVersion1: a BFC pause frame of version 1, whose k stages all
	// hash the VFID with CRC-32C and so are degenerate (wire.md §7.1).
	WarnBFCVersion1
	// WarnEncrypted: an IPv6 extension header chain, an IPv4 packet or an
	// AH ends in ESP; what follows is encrypted and not decoded (a note
	// rather than a fault).
	WarnEncrypted
	// WarnHopByHopOrder: a Hop-by-Hop Options header that does not
	// immediately follow the IPv6 header (RFC 8200 §4.3).
	WarnHopByHopOrder
	// WarnLength: an IP or UDP length field counts more octets than the
	// whole frame holds after the header (Wireshark: "BAD UDP LENGTH",
	// malformed); the layer was decoded from what is there.
	WarnLength
	// WarnOption: an option of an IPv4 header or of an IPv6 Hop-by-Hop or
	// Destination Options header is malformed (its length under the
	// minimum, past the options, or missing) though the header's own
	// length is valid: the header decoded by its length and what follows
	// it decodes (Wireshark: an expert warning). The layer's Option field
	// (an OptionFault) names the option and its offset.
	WarnOption
)

var warningText = [...]string{
	"reserved bits not zero",
	"destination MAC is not 01:80:c2:00:00:01",
	"encapsulated MSDU length outside 48..512",
	"ICRC mismatch",
	"unknown code point",
	"CNP without BECN",
	"BTH transport version not 0",
	"CIM MSDU names no IP flow",
	"MAC Control frame shorter than 46 octets",
	"version 1: its stages are degenerate (all hashed from the VFID with CRC-32C)",
	"ESP: the rest of the packet is encrypted, not decoded",
	"Hop-by-Hop Options header not first (RFC 8200 §4.3)",
	"length field counts more octets than the frame holds",
	"malformed option, the options not read past it",
}

// Has reports whether every warning in x is in w.
func (w Warnings) Has(x Warnings) bool { return w&x == x && x != 0 }

// List returns the text of each warning in w, in a fixed order.
func (w Warnings) List() []string {
	if w == 0 {
		return nil
	}
	var out []string
	for i, t := range warningText {
		if w&(1<<i) != 0 {
			out = append(out, t)
		}
	}
	return out
}

// String joins the warnings with "; ".
func (w Warnings) String() string { return strings.Join(w.List(), "; ") }
