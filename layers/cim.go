// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"encoding/binary"
	"fmt"
	"net"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// CIM constants (wire.md §4).
const (
	EthernetTypeCIM layers.EthernetType = 0x89a2
	// CIMMinMSDU and CIMMaxMSDU bound the encapsulated MSDU length of
	// 802.1Qcz; builders pad to the minimum and cut at the maximum.
	CIMMinMSDU = 48
	CIMMaxMSDU = 512
	// TLVEnd ends the extension TLVs; what follows is padding.
	TLVEnd uint8 = 0
	// TLVSFCPause is the SFC pause-time extension TLV type.
	TLVSFCPause uint8 = 1
	// SFCFlagCacheable is the C flag of the SFC pause TLV.
	SFCFlagCacheable uint8 = 0x01
)

const (
	cimHeaderLen = 17
	sfcTLVLen    = 8
)

// SFCPause is the value of the SFC pause-time TLV (type 1, 8 octets): the
// same pause time, C flag, origin and reporter a BTS would carry.
type SFCPause struct {
	PauseUS   uint16
	Cacheable bool
	Flags     uint8 // the whole flags octet as on the wire, C included
	Origin    Origin
	Reporter  uint32
}

// CIM is an IEEE 802.1Qcz congestion isolation message (wire.md §4), on
// EtherType 0x89A2 (L2) or UDP port 35234 (L3, configurable):
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|Ver=0  |rsv|E|A|        destination_address (6 octets) ...     |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|   ...         |        source_address (6 octets) ...          |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|   ...         | rsv   |    vlan_identifier    |  MSDU length  |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|  ...          |  encapsulated MSDU (N octets) ...             |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	| when E: TLVs: type (1) | length (1) | value ...  | 0 = end    |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// Field names: cim.version, .add, .ext, .da, .sa, .vid, .msdu_len, and from
// the SFC TLV .pause_us, .cacheable, .origin, .reporter; flow.* for the MSDU.
type CIM struct {
	layers.BaseLayer
	Version uint8
	Ext     bool // E: extension TLVs follow the MSDU
	Add     bool // 1 add (isolate), 0 delete
	DA, SA  net.HardwareAddr
	VID     uint16 // 12 bits
	MSDULen uint16
	MSDU    []byte
	// HasSFC says the SFC pause TLV is present; SFC holds it.
	HasSFC bool
	SFC    SFCPause
	// TLVs is the raw extension region as decoded, from the first TLV up to
	// (not including) the end TLV. SerializeTo writes it back with the SFC
	// TLV replaced by SFC (or dropped when HasSFC is false), so unknown TLVs
	// survive a decode and re-encode byte for byte.
	TLVs []byte
	// HasFlow says the MSDU holds an IP packet that names a flow, which
	// Flow decodes.
	HasFlow  bool
	Padding  []byte
	Warnings Warnings
}

// Flow returns the flow the MSDU names (DecodeQuote of the MSDU) and
// HasFlow. Decoding a CIM checks that the MSDU names a flow but builds the
// flow only here, on demand: building it was 40% of a CIM decode, paid on
// every frame by readers that never look at it. It does not allocate.
func (m *CIM) Flow() (Flow, bool) {
	var f Flow
	if !m.HasFlow || decodeQuote(m.MSDU, &f) != nil {
		return Flow{}, false
	}
	return f, true
}

// LayerType returns LayerTypeCIM.
func (m *CIM) LayerType() gopacket.LayerType { return LayerTypeCIM }

// CanDecode returns LayerTypeCIM.
func (m *CIM) CanDecode() gopacket.LayerClass { return LayerTypeCIM }

// NextLayerType returns gopacket.LayerTypeZero.
func (m *CIM) NextLayerType() gopacket.LayerType { return gopacket.LayerTypeZero }

// cimFieldAt names the header field that covers offset n (< 17), and its
// first octet.
func cimFieldAt(n int) (string, int) {
	switch {
	case n < 1:
		return "version", 0
	case n < 7:
		return "da", 1
	case n < 13:
		return "sa", 7
	case n < 15:
		return "vid", 13
	}
	return "msdu_len", 15
}

// DecodeFromBytes decodes a CIM PDU with its TLVs. An MSDU length outside
// 48..512 decodes with WarnMSDULength; an MSDU that names no IP flow with
// WarnNoFlow; a TLV whose length runs past the PDU, or an SFC TLV whose
// length is not 8, is ErrTLVLength.
func (m *CIM) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	// The usual PDU takes a straight path: version 0, the MSDU whole and
	// naming an IPv4 or extension-free IPv6 flow, and no extension TLVs or
	// one SFC pause TLV then the end. Its lengths and TLVs are checked
	// first, then every field is set once (clearing the whole CIM first
	// cost as much as the rest). Anything else, well-formed or not, goes to
	// decodeChecked, which handles every case and names the error: the
	// straight path calls nothing else, since a call in it made the
	// compiler keep a stack copy of all it held in registers.
	if len(data) < cimHeaderLen || data[0]>>4 != 0 {
		return m.decodeChecked(data, df)
	}
	msduLen := binary.BigEndian.Uint16(data[15:])
	end := cimHeaderLen + int(msduLen)
	if end > len(data) || !quoteStraight(data[cimHeaderLen:end]) {
		return m.decodeChecked(data, df)
	}
	b0 := data[0]
	var warn Warnings
	if b0&0x0c != 0 || data[13]&0xf0 != 0 {
		warn = WarnReserved
	}
	if msduLen < CIMMinMSDU || msduLen > CIMMaxMSDU {
		warn |= WarnMSDULength
	}
	off := end
	ext := b0&0x02 != 0
	if ext {
		// The usual extension region: one SFC pause TLV, then the end
		// TLV or the end of the PDU.
		t := data[end:]
		if len(t) < 2+sfcTLVLen || t[0] != TLVSFCPause || t[1] != sfcTLVLen || len(t) > 2+sfcTLVLen && t[2+sfcTLVLen] != TLVEnd {
			return m.decodeChecked(data, df)
		}
		off = end + 2 + sfcTLVLen
	}
	m.Version, m.Ext, m.Add = 0, ext, b0&0x01 != 0
	m.DA = net.HardwareAddr(data[1:7:7])
	m.SA = net.HardwareAddr(data[7:13:13])
	m.VID = binary.BigEndian.Uint16(data[13:]) & 0x0fff
	m.MSDULen = msduLen
	m.MSDU = data[cimHeaderLen:end]
	m.HasFlow = true
	m.HasSFC = ext
	if ext {
		v := (*[2 + sfcTLVLen]byte)(data[end:off])
		if v[4]&^SFCFlagCacheable != 0 {
			warn |= WarnReserved
		}
		if !Origin(v[5]).Known() {
			warn |= WarnUnknownValue
		}
		m.SFC.PauseUS = binary.BigEndian.Uint16(v[2:])
		m.SFC.Flags = v[4]
		m.SFC.Cacheable = v[4]&SFCFlagCacheable != 0
		m.SFC.Origin = Origin(v[5])
		m.SFC.Reporter = binary.BigEndian.Uint32(v[6:])
		m.TLVs = v[:]
	} else {
		m.SFC = SFCPause{}
		if m.TLVs != nil {
			m.TLVs = nil
		}
	}
	m.Warnings = warn
	m.Contents = data[:off]
	// Payload is always nil and Padding usually empty: where the field
	// already holds that, a load spares the three stores.
	if m.Payload != nil {
		m.Payload = nil
	}
	if off != len(data) {
		m.Padding = data[off:]
	} else if m.Padding != nil {
		m.Padding = nil
	}
	return nil
}

// decodeChecked decodes field by field, stopping at the first fault; the
// fields before it stay set.
func (m *CIM) decodeChecked(data []byte, df gopacket.DecodeFeedback) error {
	*m = CIM{}
	if len(data) < cimHeaderLen {
		df.SetTruncated()
		m.decodeCut(data)
		name, off := cimFieldAt(len(data))
		return truncated("cim", name, off, cimHeaderLen, len(data))
	}
	m.Version = data[0] >> 4
	if m.Version != 0 {
		return errAt("cim", "version", 0, ErrVersion, fmt.Sprintf("version %d, want 0", m.Version))
	}
	if data[0]&0x0c != 0 || data[13]&0xf0 != 0 {
		m.Warnings |= WarnReserved
	}
	m.Ext = data[0]&0x02 != 0
	m.Add = data[0]&0x01 != 0
	m.DA = net.HardwareAddr(data[1:7:7])
	m.SA = net.HardwareAddr(data[7:13:13])
	m.VID = binary.BigEndian.Uint16(data[13:]) & 0x0fff
	m.MSDULen = binary.BigEndian.Uint16(data[15:])
	end := cimHeaderLen + int(m.MSDULen)
	if end > len(data) {
		df.SetTruncated()
		return errAt("cim", "msdu_len", 15, ErrLength, fmt.Sprintf("MSDU of %d octets, %d follow", m.MSDULen, len(data)-cimHeaderLen))
	}
	m.MSDU = data[cimHeaderLen:end]
	if m.MSDULen < CIMMinMSDU || m.MSDULen > CIMMaxMSDU {
		m.Warnings |= WarnMSDULength
	}
	if m.HasFlow = quoteNamesFlow(m.MSDU); !m.HasFlow {
		m.Warnings |= WarnNoFlow
	}
	m.Contents, m.Payload = data, nil
	if !m.Ext {
		m.Contents, m.Padding = data[:end], data[end:]
		return nil
	}
	off := end
	for off < len(data) {
		t := data[off]
		if t == TLVEnd {
			break
		}
		if off+2 > len(data) {
			return errAt("cim", "tlv.length", off+1, ErrTLVLength, fmt.Sprintf("TLV type %d has no length octet", t))
		}
		l := int(data[off+1])
		if off+2+l > len(data) {
			return errAt("cim", "tlv.length", off+1, ErrTLVLength, fmt.Sprintf("TLV type %d of %d octets, %d left", t, l, len(data)-off-2))
		}
		if t == TLVSFCPause {
			if l != sfcTLVLen {
				return errAt("cim", "tlv.length", off+1, ErrTLVLength, fmt.Sprintf("SFC pause TLV of %d octets, want 8", l))
			}
			v := data[off+2 : off+2+sfcTLVLen : off+2+sfcTLVLen]
			m.HasSFC = true
			m.SFC.PauseUS = uint16(v[0])<<8 | uint16(v[1])
			m.SFC.Flags = v[2]
			m.SFC.Cacheable = v[2]&SFCFlagCacheable != 0
			m.SFC.Origin = Origin(v[3])
			m.SFC.Reporter = uint32(v[4])<<24 | uint32(v[5])<<16 | uint32(v[6])<<8 | uint32(v[7])
			if v[2]&^SFCFlagCacheable != 0 {
				m.Warnings |= WarnReserved
			}
			if !m.SFC.Origin.Known() {
				m.Warnings |= WarnUnknownValue
			}
		}
		off += 2 + l
	}
	m.TLVs = data[end:off]
	m.Contents, m.Padding = data[:off], data[off:]
	return nil
}

// tlvsLen returns the length SerializeTo gives the extension region.
func (m *CIM) tlvsLen() int {
	n, sawSFC := 0, false
	for t := m.TLVs; len(t) >= 2 && 2+int(t[1]) <= len(t); t = t[2+int(t[1]):] {
		if t[0] == TLVSFCPause {
			sawSFC = true
			if !m.HasSFC {
				continue
			}
			n += 2 + sfcTLVLen
			continue
		}
		n += 2 + int(t[1])
	}
	if m.HasSFC && !sawSFC {
		n += 2 + sfcTLVLen
	}
	return n
}

func (m *CIM) putSFC(b []byte) {
	b[0], b[1] = TLVSFCPause, sfcTLVLen
	binary.BigEndian.PutUint16(b[2:], m.SFC.PauseUS)
	flags := m.SFC.Flags &^ SFCFlagCacheable
	if m.SFC.Cacheable {
		flags |= SFCFlagCacheable
	}
	b[4] = flags
	b[5] = uint8(m.SFC.Origin)
	binary.BigEndian.PutUint32(b[6:], m.SFC.Reporter)
}

// SerializeTo writes the CIM PDU: header, MSDU, and the extension TLVs when
// there are any (see TLVs). With FixLengths, MSDULen is set from len(MSDU)
// and Ext from whether any TLV is written.
func (m *CIM) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	if m.Version > 15 {
		return errAt("cim", "version", 0, ErrBadValue, "4 bits")
	}
	if m.VID > 0x0fff {
		return errAt("cim", "vid", 13, ErrBadValue, "12 bits")
	}
	if len(m.DA) != 6 || len(m.SA) != 6 {
		return errAt("cim", "da/sa", 1, ErrBadValue, "MAC addresses must be 6 octets")
	}
	if len(m.MSDU) > 0xffff {
		return errAt("cim", "msdu_len", 15, ErrBadValue, "MSDU over 65535 octets")
	}
	for t := m.TLVs; len(t) > 0; t = t[2+int(t[1]):] {
		if len(t) < 2 || 2+int(t[1]) > len(t) || t[0] == TLVEnd {
			return errAt("cim", "tlvs", cimHeaderLen+len(m.MSDU)+len(m.TLVs)-len(t), ErrTLVLength, "TLVs must be whole type-length-value triples without an end TLV")
		}
	}
	tl := m.tlvsLen()
	if opts.FixLengths {
		m.MSDULen = uint16(len(m.MSDU))
		m.Ext = tl > 0
	}
	if !m.Ext {
		tl = 0
	}
	buf, err := b.PrependBytes(cimHeaderLen + len(m.MSDU) + tl)
	if err != nil {
		return err
	}
	buf[0] = m.Version << 4
	if m.Ext {
		buf[0] |= 0x02
	}
	if m.Add {
		buf[0] |= 0x01
	}
	copy(buf[1:7], m.DA)
	copy(buf[7:13], m.SA)
	binary.BigEndian.PutUint16(buf[13:], m.VID)
	binary.BigEndian.PutUint16(buf[15:], m.MSDULen)
	off := cimHeaderLen + copy(buf[cimHeaderLen:], m.MSDU)
	if tl == 0 {
		return nil
	}
	sawSFC := false
	for t := m.TLVs; len(t) >= 2; t = t[2+int(t[1]):] {
		if t[0] == TLVSFCPause {
			sawSFC = true
			if m.HasSFC {
				m.putSFC(buf[off:])
				off += 2 + sfcTLVLen
			}
			continue
		}
		off += copy(buf[off:], t[:2+int(t[1])])
	}
	if m.HasSFC && !sawSFC {
		m.putSFC(buf[off:])
	}
	return nil
}

// CIMMSDU returns what a builder encapsulates for an offending IP packet:
// its first min(len, 512) octets, zero-padded to 48. It copies only when it
// must pad.
func CIMMSDU(ipPacket []byte) []byte {
	if len(ipPacket) > CIMMaxMSDU {
		return ipPacket[:CIMMaxMSDU]
	}
	if len(ipPacket) < CIMMinMSDU {
		p := make([]byte, CIMMinMSDU)
		copy(p, ipPacket)
		return p
	}
	return ipPacket
}

func decodeCIM(data []byte, p gopacket.PacketBuilder) error {
	m := &CIM{}
	err := m.DecodeFromBytes(data, p)
	p.AddLayer(m)
	return err
}

// decodeCut decodes the fields of a PDU cut before the end of its header
// that are whole (dissect leaves out those the cut reaches into).
func (m *CIM) decodeCut(data []byte) {
	var h [cimHeaderLen]byte
	copy(h[:], data)
	m.Version, m.Ext, m.Add = h[0]>>4, h[0]&0x02 != 0, h[0]&0x01 != 0
	if len(data) >= 7 {
		m.DA = net.HardwareAddr(data[1:7:7])
	}
	if len(data) >= 13 {
		m.SA = net.HardwareAddr(data[7:13:13])
	}
	m.VID = binary.BigEndian.Uint16(h[13:]) & 0x0fff
	m.MSDULen = binary.BigEndian.Uint16(h[15:])
	m.Contents = data
}
