// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"encoding/binary"
	"fmt"
	"net"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// PostcardVersion is the CC-postcard version this package speaks.
const PostcardVersion = 1

const postcardHeaderLen = 36

// Postcard is a PB-FS CC-postcard (wire.md §6), the payload of a UDP
// datagram to port 1022 (configurable), sent by a switch to the sender of
// a marked packet with the switch's assessment of one egress port:
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|Ver=1  | resv  |   reserved    |          egress port          |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                     switch id (MAC-48) ...                    |
//	+                               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                               |           reserved            |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                      port rate T (Mb/s)                       |
//	|                          DC_RTT (ns)                          |
//	|                        I_p (octets)                           |
//	|                        Q^1 (octets)                           |
//	|                     recentBytes (octets)                      |
//	|                  recentMarkedBytes (octets)                   |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|            quote of the marked packet, as BTS ...             |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// Field names: postcard.version, .port, .switch_id, .rate_mbps, .window_ns,
// .ip_bytes, .q1_bytes, .recent_bytes, .recent_marked_bytes, .quote_len, and
// flow.* for the quote.
type Postcard struct {
	layers.BaseLayer
	Version           uint8
	Port              uint16
	SwitchID          net.HardwareAddr // 6 octets
	RateMbps          uint32
	WindowNS          uint32 // DC_RTT the switch assessed over
	IPBytes           uint32 // I_p
	Q1Bytes           uint32 // Q^1
	RecentBytes       uint32
	RecentMarkedBytes uint32
	Quote             []byte
	Flow              Flow
	Warnings          Warnings
}

// LayerType returns LayerTypePostcard.
func (m *Postcard) LayerType() gopacket.LayerType { return LayerTypePostcard }

// CanDecode returns LayerTypePostcard.
func (m *Postcard) CanDecode() gopacket.LayerClass { return LayerTypePostcard }

// NextLayerType returns gopacket.LayerTypeZero.
func (m *Postcard) NextLayerType() gopacket.LayerType { return gopacket.LayerTypeZero }

var postcardFields = [...]struct {
	off  int
	name string
}{{0, "version"}, {2, "port"}, {4, "switch_id"}, {10, "reserved"}, {12, "rate_mbps"}, {16, "window_ns"},
	{20, "ip_bytes"}, {24, "q1_bytes"}, {28, "recent_bytes"}, {32, "recent_marked_bytes"}}

// postcardFieldAt names the field that covers offset n, and its first octet.
func postcardFieldAt(n int) (string, int) {
	name, off := "version", 0
	for _, f := range postcardFields {
		if f.off <= n {
			name, off = f.name, f.off
		}
	}
	return name, off
}

// DecodeFromBytes decodes a CC-postcard and names the quoted flow; a quote
// too short to name a flow is ErrQuoteTooShort, after the other fields.
func (m *Postcard) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < postcardHeaderLen || data[0]>>4 != PostcardVersion {
		return m.decodeBad(data, df)
	}
	// From here every field is set once (no clearing of the whole layer
	// first).
	h := (*[postcardHeaderLen]byte)(data)
	var warn Warnings
	if h[0]&0x0f != 0 || h[1] != 0 || h[10] != 0 || h[11] != 0 {
		warn = WarnReserved
	}
	m.Version = PostcardVersion
	m.Warnings = warn
	m.SwitchID = net.HardwareAddr(h[4:10:10])
	m.setNumbers(h)
	m.Quote = data[postcardHeaderLen:]
	m.Contents = data
	if m.Payload != nil { // always nil: a load spares three stores
		m.Payload = nil
	}
	if err := decodeQuote(m.Quote, &m.Flow); err != nil {
		m.Flow = Flow{}
		return quoteErr("postcard", postcardHeaderLen, err)
	}
	return nil
}

// setNumbers sets the port and the numbers of header h.
func (m *Postcard) setNumbers(h *[postcardHeaderLen]byte) {
	m.Port = binary.BigEndian.Uint16(h[2:])
	m.RateMbps = binary.BigEndian.Uint32(h[12:])
	m.WindowNS = binary.BigEndian.Uint32(h[16:])
	m.IPBytes = binary.BigEndian.Uint32(h[20:])
	m.Q1Bytes = binary.BigEndian.Uint32(h[24:])
	m.RecentBytes = binary.BigEndian.Uint32(h[28:])
	m.RecentMarkedBytes = binary.BigEndian.Uint32(h[32:])
}

// decodeBad handles a postcard too short for its header or of another
// version: the version, if there is one, and the error.
func (m *Postcard) decodeBad(data []byte, df gopacket.DecodeFeedback) error {
	*m = Postcard{}
	var err error
	m.Version, err = badHeader("postcard", data, postcardHeaderLen, postcardFieldAt, 1, df)
	if len(data) < postcardHeaderLen && len(data) > 0 {
		// Cut short: every field before the cut (dissect leaves out those
		// it reaches into, by their offsets).
		var h [postcardHeaderLen]byte
		copy(h[:], data)
		m.Version = h[0] >> 4
		if len(data) >= 10 {
			m.SwitchID = net.HardwareAddr(data[4:10:10])
		}
		m.setNumbers(&h)
		m.Contents = data
	}
	return err
}

// SerializeTo writes the postcard and its Quote. SwitchID must be 6 octets
// (or empty, written as zeros).
func (m *Postcard) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	if m.Version > 15 {
		return errAt("postcard", "version", 0, ErrBadValue, "4 bits")
	}
	if len(m.SwitchID) != 6 && len(m.SwitchID) != 0 {
		return errAt("postcard", "switch_id", 4, ErrBadValue, fmt.Sprintf("%d octets, want 6", len(m.SwitchID)))
	}
	buf, err := b.PrependBytes(postcardHeaderLen + len(m.Quote))
	if err != nil {
		return err
	}
	clear(buf[:postcardHeaderLen])
	buf[0] = versionOr1(m.Version) << 4
	binary.BigEndian.PutUint16(buf[2:], m.Port)
	copy(buf[4:10], m.SwitchID)
	binary.BigEndian.PutUint32(buf[12:], m.RateMbps)
	binary.BigEndian.PutUint32(buf[16:], m.WindowNS)
	binary.BigEndian.PutUint32(buf[20:], m.IPBytes)
	binary.BigEndian.PutUint32(buf[24:], m.Q1Bytes)
	binary.BigEndian.PutUint32(buf[28:], m.RecentBytes)
	binary.BigEndian.PutUint32(buf[32:], m.RecentMarkedBytes)
	copy(buf[postcardHeaderLen:], m.Quote)
	return nil
}

func decodePostcard(data []byte, p gopacket.PacketBuilder) error {
	m := &Postcard{}
	err := m.DecodeFromBytes(data, p)
	p.AddLayer(m)
	return err
}
