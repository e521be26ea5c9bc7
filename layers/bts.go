// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"encoding/binary"
	"fmt"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Origin says what made a switch send a pause signal (BTS, CIM SFC TLV).
type Origin uint8

// The origins of wire.md §5.
const (
	OriginQueue    Origin = 0 // the congestion point's queue trigger
	OriginCache    Origin = 1 // a near-source pause cache hit
	OriginEstimate Origin = 2 // the incast estimator
)

// String returns "queue", "cache", "estimate" or the number.
func (o Origin) String() string {
	switch o {
	case OriginQueue:
		return "queue"
	case OriginCache:
		return "cache"
	case OriginEstimate:
		return "estimate"
	}
	return fmt.Sprintf("%d", uint8(o))
}

// Known reports whether o is one of the defined origins.
func (o Origin) Known() bool { return o <= OriginEstimate }

// BTS flag bits (the low nibble of octet 0).
const (
	BTSFlagCacheable uint8 = 0x1
)

// BTSVersion is the BTS version this package speaks.
const BTSVersion = 1

// btsHeaderLen is the fixed part of a BTS, before the quote.
const btsHeaderLen = 16

// BTS is an SFC back-to-sender message (wire.md §5), the payload of a UDP
// datagram to port 1021 (configurable), sent by a congested switch to the
// sender of the offending packet:
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|Ver=1  | Flags |    Origin     |       pause time (us)         |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                          reporter id                          |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|       congestion port         |   cong. queue |   reserved    |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                     queue depth (octets)                      |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|  quote: the triggering packet from its IP header, trimmed ... |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// Flag C (0x1) marks the congestion point as a server-facing ToR port, so
// a near-source pause cache may keep the pause. Field names: bts.version,
// bts.cacheable, bts.origin, bts.pause_us, bts.reporter, bts.cp_port,
// bts.cp_queue, bts.queue_depth, bts.quote_len, and flow.* for the quote.
type BTS struct {
	layers.BaseLayer
	Version    uint8
	Cacheable  bool
	Flags      uint8 // the whole 4-bit flags nibble, C included, as on the wire
	Origin     Origin
	PauseUS    uint16 // 0 = resume now
	Reporter   uint32
	CPPort     uint16 // 0xFFFF unknown
	CPQueue    uint8
	QueueDepth uint32
	// Quote is the triggering packet from the first octet of its IP header
	// to the end of the UDP payload; Flow is what it names.
	Quote    []byte
	Flow     Flow
	Warnings Warnings
}

// CPPortUnknown is the congestion port value for "unknown".
const CPPortUnknown = 0xffff

// LayerType returns LayerTypeBTS.
func (m *BTS) LayerType() gopacket.LayerType { return LayerTypeBTS }

// CanDecode returns LayerTypeBTS.
func (m *BTS) CanDecode() gopacket.LayerClass { return LayerTypeBTS }

// NextLayerType returns gopacket.LayerTypeZero: the quote is part of the BTS.
func (m *BTS) NextLayerType() gopacket.LayerType { return gopacket.LayerTypeZero }

// DecodeFromBytes decodes a BTS and names the quoted flow. A quote too short
// to name a flow is an error (ErrQuoteTooShort) after every other field has
// been decoded.
func (m *BTS) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < btsHeaderLen || data[0]>>4 != BTSVersion {
		return m.decodeBad(data, df)
	}
	// From here every field is set (no clearing of the whole layer first),
	// each once: the values are worked out in locals, since the compiler
	// must reload a field after any store through data, which may alias m.
	flags, origin := data[0]&0x0f, Origin(data[1])
	var warn Warnings
	if flags&^BTSFlagCacheable != 0 || data[11] != 0 {
		warn = WarnReserved
	}
	if !origin.Known() {
		warn |= WarnUnknownValue
	}
	m.Version = BTSVersion
	m.Warnings = warn
	m.Flags = flags
	m.Cacheable = flags&BTSFlagCacheable != 0
	m.Origin = origin
	m.PauseUS = binary.BigEndian.Uint16(data[2:])
	m.Reporter = binary.BigEndian.Uint32(data[4:])
	m.CPPort = binary.BigEndian.Uint16(data[8:])
	m.CPQueue = data[10]
	m.QueueDepth = binary.BigEndian.Uint32(data[12:])
	m.Quote = data[btsHeaderLen:]
	m.Contents = data
	if m.Payload != nil { // always nil: a load spares three stores
		m.Payload = nil
	}
	if err := decodeQuote(m.Quote, &m.Flow); err != nil {
		m.Flow = Flow{}
		return quoteErr("bts", btsHeaderLen, err)
	}
	return nil
}

// decodeBad handles a BTS too short for its header or of another version:
// the version, if there is one, and the error.
func (m *BTS) decodeBad(data []byte, df gopacket.DecodeFeedback) error {
	*m = BTS{}
	var err error
	m.Version, err = badHeader("bts", data, btsHeaderLen, btsFieldAt, 1, df)
	if len(data) < btsHeaderLen && len(data) > 0 {
		// Cut short: every field before the cut (dissect leaves out those
		// it reaches into, by their offsets).
		var h [btsHeaderLen]byte
		copy(h[:], data)
		m.Version, m.Flags, m.Origin = h[0]>>4, h[0]&0x0f, Origin(h[1])
		m.Cacheable = m.Flags&BTSFlagCacheable != 0
		m.PauseUS = binary.BigEndian.Uint16(h[2:])
		m.Reporter = binary.BigEndian.Uint32(h[4:])
		m.CPPort = binary.BigEndian.Uint16(h[8:])
		m.CPQueue = h[10]
		m.QueueDepth = binary.BigEndian.Uint32(h[12:])
		m.Contents = data
	}
	return err
}

// badHeader is the error of a header of hdrLen octets whose version is
// the high nibble of its first octet, for data too short for it (naming
// the field the cut falls in, by fieldAt) or of another version than
// want; it returns the version when there is one.
func badHeader(layer string, data []byte, hdrLen int, fieldAt func(int) (string, int), want uint8, df gopacket.DecodeFeedback) (uint8, error) {
	if len(data) < hdrLen {
		df.SetTruncated()
		name, off := fieldAt(len(data))
		return 0, truncated(layer, name, off, hdrLen, len(data))
	}
	v := data[0] >> 4
	return v, errAt(layer, "version", 0, ErrVersion, fmt.Sprintf("version %d, want %d", v, want))
}

// quoteErr re-anchors a DecodeQuote error at the quote's offset in layer.
func quoteErr(layer string, off int, err error) error {
	if de, ok := err.(*DecodeError); ok {
		return &DecodeError{Layer: layer, Field: "quote", Offset: off + de.Offset, Err: de.Err, Detail: de.Detail}
	}
	return err
}

var btsFieldOffsets = [...]struct {
	off  int
	name string
}{{0, "version"}, {1, "origin"}, {2, "pause_us"}, {4, "reporter"}, {8, "cp_port"}, {10, "cp_queue"}, {11, "reserved"}, {12, "queue_depth"}}

// btsFieldAt names the field that covers offset n, and its first octet.
func btsFieldAt(n int) (string, int) {
	name, off := "version", 0
	for _, f := range btsFieldOffsets {
		if f.off <= n {
			name, off = f.name, f.off
		}
	}
	return name, off
}

// SerializeTo writes the BTS header and the Quote. The flags nibble is
// Flags with the C bit taken from Cacheable.
func (m *BTS) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	if m.Version > 15 {
		return errAt("bts", "version", 0, ErrBadValue, "4 bits")
	}
	if m.Flags > 15 {
		return errAt("bts", "flags", 0, ErrBadValue, "4 bits")
	}
	buf, err := b.PrependBytes(btsHeaderLen + len(m.Quote))
	if err != nil {
		return err
	}
	flags := m.Flags &^ BTSFlagCacheable
	if m.Cacheable {
		flags |= BTSFlagCacheable
	}
	buf[0] = versionOr1(m.Version)<<4 | flags
	buf[1] = uint8(m.Origin)
	binary.BigEndian.PutUint16(buf[2:], m.PauseUS)
	binary.BigEndian.PutUint32(buf[4:], m.Reporter)
	binary.BigEndian.PutUint16(buf[8:], m.CPPort)
	buf[10] = m.CPQueue
	buf[11] = 0
	binary.BigEndian.PutUint32(buf[12:], m.QueueDepth)
	copy(buf[btsHeaderLen:], m.Quote)
	return nil
}

func decodeBTS(data []byte, p gopacket.PacketBuilder) error {
	m := &BTS{}
	err := m.DecodeFromBytes(data, p)
	p.AddLayer(m)
	return err
}
