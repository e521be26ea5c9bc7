// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"encoding/binary"
	"fmt"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// BTH is the RoCEv2 base transport header (wire.md §3.1) with everything
// else the UDP payload holds: the extension headers its opcode implies, the
// payload, the pad and the ICRC.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|    OpCode     |S|M|Pad| TVer  |             P_Key             |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|F|B|   resv    |                    DestQP                     |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|A|    resv     |                      PSN                      |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|  extension headers (by opcode) | payload | pad | ICRC (4, LE) |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// The BTH owns the extension headers: it decodes them into RETH, AETH,
// ImmDt, DETH and CNP by opcode and writes them from there on serialize, so a
// RoCEv2 packet serializes as Ethernet, IP, UDP, BTH, payload. NewPacket
// also adds each present extension header as its own layer (so
// packet.Layer(LayerTypeRETH) works), then the payload as a
// gopacket.Payload; DecodingLayerParser sees the BTH only. An extension
// header's Payload is what follows it up to the pad; the BTH's Payload is
// what follows all of them.
//
// The ICRC is checked where the IP and UDP headers are known: by NewPacket,
// and by this package's Parser. VerifyICRC checks it by hand.
type BTH struct {
	layers.BaseLayer
	Opcode uint8
	SE, M  bool
	PadCnt uint8 // 0..3
	TVer   uint8 // 0..15, 0 defined
	PKey   uint16
	FECN   bool
	BECN   bool
	DestQP uint32 // 24 bits
	AckReq bool
	PSN    uint32 // 24 bits

	// Extension headers; which are present follows from Opcode (HasRETH...).
	RETH  RETH
	AETH  AETH
	ImmDt ImmDt
	DETH  DETH
	CNP   CNP
	// OtherExt holds extension headers decoded by length only (AtomicETH,
	// AtomicAckETH, IETH); on serialize it is written where they go.
	OtherExt []byte

	Pad  []byte // the PadCnt pad octets
	ICRC uint32 // as a number: the wire octets read least significant first
	// ICRCChecked says whether the ICRC was verified (the IP and UDP headers
	// were known); ICRCOK is the result. A mismatch also sets WarnICRC.
	ICRCChecked, ICRCOK bool
	Warnings            Warnings

	// roceLen is the length of the whole UDP payload, which starts at
	// Contents (whose capacity reaches its end): VerifyICRC and setExtBases
	// read it back through roce. A length alone is one store in the decode
	// where a slice is three.
	roceLen int
	netL    gopacket.SerializableLayer
	udpL    *layers.UDP
	hdrExt  uint16 // extension header flags, from the opcode
}

// RoCEv2 opcodes with a name in this package. The transport is bits 7..5.
const (
	OpcodeRCSendFirst         uint8 = 0x00
	OpcodeRCSendOnly          uint8 = 0x04
	OpcodeRCSendOnlyImm       uint8 = 0x05
	OpcodeRCWriteFirst        uint8 = 0x06
	OpcodeRCWriteMiddle       uint8 = 0x07
	OpcodeRCWriteLast         uint8 = 0x08
	OpcodeRCWriteLastImm      uint8 = 0x09
	OpcodeRCWriteOnly         uint8 = 0x0a
	OpcodeRCWriteOnlyImm      uint8 = 0x0b
	OpcodeRCReadRequest       uint8 = 0x0c
	OpcodeRCReadResponseFirst uint8 = 0x0d
	OpcodeRCReadResponseLast  uint8 = 0x0f
	OpcodeRCReadResponseOnly  uint8 = 0x10
	OpcodeRCAck               uint8 = 0x11
	OpcodeUCWriteOnly         uint8 = 0x2a
	OpcodeUDSendOnly          uint8 = 0x64
	OpcodeUDSendOnlyImm       uint8 = 0x65
	OpcodeCNP                 uint8 = 0x81
)

// Extension header flags, in wire order.
const (
	extDETH uint16 = 1 << iota
	extRETH
	extAtomic    // AtomicETH, 28 octets
	extAETH      //
	extAtomicAck // AtomicAckETH, 8 octets
	extImm
	extIETH // 4 octets
	extCNP  // 16 reserved octets
)

// rcExt gives the extension headers of the RC operations (low 5 bits);
// UC uses the same codes for 0x00-0x0b.
var rcExt = [32]uint16{
	0x03: extImm, 0x05: extImm, 0x06: extRETH, 0x09: extImm, 0x0a: extRETH,
	0x0b: extRETH | extImm, 0x0c: extRETH, 0x0d: extAETH, 0x0f: extAETH,
	0x10: extAETH, 0x11: extAETH, 0x12: extAETH | extAtomicAck,
	0x13: extAtomic, 0x14: extAtomic, 0x16: extIETH, 0x17: extIETH,
}

// opTable holds, per opcode, the extension headers and their length, so
// that decoding looks them up once.
var opTable = func() (t [256]struct {
	ext uint16
	n   uint8
}) {
	for op := range t {
		e := opcodeExtOf(uint8(op))
		t[op].ext, t[op].n = e, uint8(extLen(e))
	}
	return t
}()

// opcodeExt returns the extension headers an opcode implies.
func opcodeExt(op uint8) uint16 { return opTable[op].ext }

// opcodeExtOf computes the extension headers an opcode implies. RD
// operations (0x40-0x5f) and undefined opcodes get none: their octets are
// payload.
func opcodeExtOf(op uint8) uint16 {
	switch {
	case op < 0x20:
		return rcExt[op]
	case op < 0x2c:
		return rcExt[op&0x1f]
	case op == OpcodeUDSendOnly:
		return extDETH
	case op == OpcodeUDSendOnlyImm:
		return extDETH | extImm
	case op == OpcodeCNP:
		return extCNP
	}
	return 0
}

// extLen returns the length of the extension headers in ext.
func extLen(ext uint16) int {
	n := 0
	for _, x := range extWire {
		if ext&x.flag != 0 {
			n += x.n
		}
	}
	return n
}

// extWire lists the extension headers in the order they follow the BTH on
// the wire, with their lengths.
var extWire = [...]struct {
	flag uint16
	n    int
}{{extDETH, 8}, {extRETH, 16}, {extAtomic, 28}, {extAETH, 4}, {extAtomicAck, 8}, {extImm, 4}, {extIETH, 4}, {extCNP, 16}}

// HasRETH reports whether the opcode carries a RETH.
func (m *BTH) HasRETH() bool { return opcodeExt(m.Opcode)&extRETH != 0 }

// HasAETH reports whether the opcode carries an AETH.
func (m *BTH) HasAETH() bool { return opcodeExt(m.Opcode)&extAETH != 0 }

// HasImmDt reports whether the opcode carries immediate data.
func (m *BTH) HasImmDt() bool { return opcodeExt(m.Opcode)&extImm != 0 }

// HasDETH reports whether the opcode carries a DETH (UD operations).
func (m *BTH) HasDETH() bool { return opcodeExt(m.Opcode)&extDETH != 0 }

// IsCNP reports whether this is a congestion notification packet.
func (m *BTH) IsCNP() bool { return m.Opcode == OpcodeCNP }

// LayerType returns LayerTypeBTH.
func (m *BTH) LayerType() gopacket.LayerType { return LayerTypeBTH }

// CanDecode returns LayerTypeBTH.
func (m *BTH) CanDecode() gopacket.LayerClass { return LayerTypeBTH }

// NextLayerType returns gopacket.LayerTypePayload when there is a payload.
func (m *BTH) NextLayerType() gopacket.LayerType {
	if len(m.Payload) == 0 {
		return gopacket.LayerTypeZero
	}
	return gopacket.LayerTypePayload
}

// DecodeFromBytes decodes a RoCEv2 UDP payload. It does not check the ICRC
// (it does not see the IP header): see VerifyICRC and Parser.
func (m *BTH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < 12+4 {
		return m.decodeCut(data, df)
	}
	// The header's first 8 octets in one load (opcode, flags, P_Key, F/B,
	// DestQP): loading octets of it apart as well made the compiler split
	// the load into eight.
	w := binary.BigEndian.Uint64(data)
	op, f := uint8(w>>56), uint8(w>>48)
	ext, el := opTable[op].ext, int(opTable[op].n)
	end := len(data) - 4
	padStart := end - int(f>>4&3)
	if 12+el > padStart {
		return m.decodeBadLength(data, ext, el, df)
	}
	// Every field is set below and each extension header the opcode
	// implies is overwritten whole, so only those of the previous frame
	// that this one lacks need clearing (a BTH is 472 octets; clearing it
	// whole was a third of its decode time). decodeStale clears them and
	// comes back: a call here that returned to the work below made the
	// compiler keep a copy on the stack of all it holds in registers.
	if m.hdrExt&^ext != 0 {
		return m.decodeStale(data, df)
	}
	// decodeHeader, by hand: the call and the reloads of data (which the
	// compiler cannot tell apart from m) cost about 1 ns.
	x := binary.BigEndian.Uint32(data[8:]) // A, PSN
	fb := uint8(w >> 24)
	var warn Warnings
	if fb&0x3f != 0 || x&0x7f000000 != 0 {
		warn = WarnReserved
	}
	if f&0x0f != 0 {
		warn |= WarnTVer
	}
	m.Opcode = op
	m.SE, m.M, m.PadCnt, m.TVer = f&0x80 != 0, f&0x40 != 0, f>>4&3, f&0x0f
	m.PKey = uint16(w >> 32)
	m.FECN, m.BECN = fb&0x80 != 0, fb&0x40 != 0
	m.DestQP = uint32(w) & 0xffffff
	m.AckReq = x&0x80000000 != 0
	m.PSN = x & 0xffffff
	m.Contents, m.roceLen = data[:12], len(data)
	m.ICRC = binary.LittleEndian.Uint32(data[end:])
	m.ICRCChecked, m.ICRCOK = false, false
	m.hdrExt = ext
	if m.OtherExt != nil { // seldom set: a load is cheaper than a store
		m.OtherExt = nil
	}
	if padStart != end {
		m.Pad = data[padStart:end]
	} else if m.Pad != nil { // most frames have no pad: a load, not three stores
		m.Pad = nil
	}
	// The extension headers of the usual opcodes here, the others in
	// decodeExt (a call in the common path costs the spills it causes).
	off := 12
	// Most common first: WRITE, then CNP and ACK; SEND (none) passes all.
	if ext == extRETH {
		m.RETH.decode(data[12:28])
		off = 28
	} else if ext == extCNP {
		m.CNP.DestQP = uint32(w) & 0xffffff
		cw := cnpWarnings(data[12:28], fb&0x40 != 0)
		m.CNP.Warnings = cw
		warn |= cw
		off = 28
	} else if ext == extAETH {
		m.AETH.decode(data[12:16])
		off = 16
	} else if ext != 0 {
		// Last, so that nothing is live after the call.
		m.Warnings = warn
		m.decodeExt(data[:padStart], ext)
		return nil
	}
	if ext == extCNP && off < padStart {
		warn |= WarnReserved
	}
	m.Warnings = warn
	m.Payload = data[off:padStart]
	return nil
}

// setExtBases sets the Contents and Payload of the extension headers, each
// Payload running from the header's end to the pad, as gopacket expects of
// a layer: in a gopacket.Packet (decodeBTH) they are layers of their own,
// and NewPacket decodes the BTH payload from the last one's Payload.
// DecodeFromBytes leaves them alone: in a DecodingLayerParser they are
// fields of the BTH, and their six slice stores were a tenth of its decode.
func (m *BTH) setExtBases() {
	r := m.roce()
	m.setExtBasesIn(r[:len(r)-4-int(m.PadCnt)])
}

// setExtBasesIn is setExtBases over d, the UDP payload up to the pad (or,
// when the decode failed, up to the ICRC), for the extension headers in
// hdrExt.
func (m *BTH) setExtBasesIn(d []byte) {
	off := 12
	for _, x := range extWire {
		if m.hdrExt&x.flag == 0 {
			continue
		}
		var b *layers.BaseLayer
		switch x.flag {
		case extDETH:
			b = &m.DETH.BaseLayer
		case extRETH:
			b = &m.RETH.BaseLayer
		case extAETH:
			b = &m.AETH.BaseLayer
		case extImm:
			b = &m.ImmDt.BaseLayer
		case extCNP:
			b = &m.CNP.BaseLayer
		}
		if b != nil { // the others are not layers: OtherExt holds them
			b.Contents, b.Payload = d[off:off+x.n], d[off+x.n:]
		}
		off += x.n
	}
}

// decodeStale clears the extension headers of the previous frame and
// decodes data.
func (m *BTH) decodeStale(data []byte, df gopacket.DecodeFeedback) error {
	m.clearExt(m.hdrExt)
	m.hdrExt = 0
	return m.DecodeFromBytes(data, df)
}

// decodeExt decodes the extension headers ext from offset 12 of data,
// which ends at the pad and holds them all, and sets Payload to what
// follows them.
func (m *BTH) decodeExt(data []byte, ext uint16) {
	off := 12
	if ext&extDETH != 0 {
		m.DETH.decode(data[off:])
		off += 8
	}
	if ext&extRETH != 0 {
		m.RETH.decode(data[off:])
		off += 16
	}
	otherStart := off
	if ext&extAtomic != 0 {
		off += 28
	}
	if ext&extAETH != 0 {
		m.AETH.decode(data[off:])
		off += 4
	}
	if ext&extAtomicAck != 0 {
		if otherStart == off-4 { // AETH sits between: keep only the AtomicAckETH
			otherStart = off
		}
		off += 8
	}
	if ext&(extAtomic|extAtomicAck) != 0 {
		m.OtherExt = data[otherStart:off]
	}
	if ext&extImm != 0 {
		m.ImmDt.decode(data[off:])
		off += 4
	}
	if ext&extIETH != 0 {
		m.OtherExt = data[off : off+4]
		off += 4
	}
	// The CNP body (only opcode 0x81, which carries nothing else) is
	// decoded inline by DecodeFromBytes.
	m.Payload = data[off:]
}

// decodeCut decodes a UDP payload too short for a BTH and an ICRC: the
// header fields that are whole, so a cut frame still shows its opcode and
// QP; the cut field and those after it stay zero.
func (m *BTH) decodeCut(data []byte, df gopacket.DecodeFeedback) error {
	m.reset()
	df.SetTruncated()
	if len(data) >= 12 {
		m.decodeHeader(data)
		return truncated("bth", "icrc", 12, 16, len(data))
	}
	*m = BTH{netL: m.netL, udpL: m.udpL}
	var h [12]byte
	copy(h[:], data)
	var whole BTH
	whole.decodeHeader(h[:])
	field, off := "opcode", 0
	for _, f := range bthFields {
		if f.end > len(data) {
			field, off = f.name, f.off
			break
		}
		f.keep(m, &whole)
	}
	return truncated("bth", field, off, 16, len(data))
}

// decodeBadLength decodes the header of a payload too short for the
// extension headers (el octets, ext) and the pad its header names, and
// returns the error. The extension headers that are whole before the ICRC
// stay decoded (ExtDecoded), as every field before a fault does: a PadCnt
// larger than what follows them loses none of them, and an extension
// header cut short loses only itself and those after it.
func (m *BTH) decodeBadLength(data []byte, ext uint16, el int, df gopacket.DecodeFeedback) error {
	m.reset()
	m.decodeHeader(data)
	end := len(data) - 4
	m.ICRC = binary.LittleEndian.Uint32(data[end:])
	var cut uint16
	var off int
	m.hdrExt, cut, off = m.decodeExtWhole(data[:end], ext)
	if 12+el > end {
		// The error names the first extension header that is not whole.
		df.SetTruncated()
		return errAt("bth", extName(cut), off, ErrLength,
			fmt.Sprintf("opcode 0x%02x needs %d octets of extension headers, %d before the ICRC", m.Opcode, el, end-12))
	}
	return errAt("bth", "padcnt", 1, ErrLength,
		fmt.Sprintf("pad of %d octets, %d after the headers", m.PadCnt, end-12-el))
}

// decodeExtWhole decodes, in wire order, the extension headers of ext that
// are whole in d (the UDP payload up to the pad or the ICRC), stopping at
// the first that is not, and returns the flags of those it decoded, the
// flag of that first one (0 when all are whole) and its offset. It is the
// path of a BTH whose lengths do not add up; DecodeFromBytes and decodeExt
// decode a well-formed one.
func (m *BTH) decodeExtWhole(d []byte, ext uint16) (got, cut uint16, off int) {
	off = 12
	for _, x := range extWire {
		if ext&x.flag == 0 {
			continue
		}
		if off+x.n > len(d) {
			return got, x.flag, off
		}
		h := d[off : off+x.n]
		switch x.flag {
		case extDETH:
			m.DETH.decode(h)
		case extRETH:
			m.RETH.decode(h)
		case extAETH:
			m.AETH.decode(h)
		case extImm:
			m.ImmDt.decode(h)
		case extCNP:
			m.CNP.DestQP = m.DestQP
			m.CNP.Warnings = cnpWarnings(h, m.BECN)
			m.Warnings |= m.CNP.Warnings
		default: // AtomicETH, AtomicAckETH, IETH: at most one per opcode
			m.OtherExt = h
		}
		got |= x.flag
		off += x.n
	}
	return got, 0, off
}

// ExtDecoded reports whether the last decode decoded the extension header
// of layer type t (LayerTypeRETH, LayerTypeAETH, LayerTypeImmDt,
// LayerTypeDETH or LayerTypeCNP): the opcode carries it and its octets
// were whole. After a decode without error it is HasRETH, HasAETH... as
// the opcode says; after an error it is also true of the extension headers
// that were whole before the fault (a PadCnt larger than the octets after
// them, an extension header cut after them), which keep their values.
func (m *BTH) ExtDecoded(t gopacket.LayerType) bool {
	var f uint16
	switch t {
	case LayerTypeRETH:
		f = extRETH
	case LayerTypeAETH:
		f = extAETH
	case LayerTypeImmDt:
		f = extImm
	case LayerTypeDETH:
		f = extDETH
	case LayerTypeCNP:
		f = extCNP
	}
	return m.hdrExt&f != 0
}

// bthFields lists the BTH header fields in wire order, for a partial
// decode of a cut header.
var bthFields = [...]struct {
	name     string
	off, end int
	keep     func(dst, src *BTH)
}{
	{"opcode", 0, 1, func(d, s *BTH) { d.Opcode = s.Opcode }},
	{"se", 1, 2, func(d, s *BTH) { d.SE, d.M, d.PadCnt, d.TVer = s.SE, s.M, s.PadCnt, s.TVer }},
	{"pkey", 2, 4, func(d, s *BTH) { d.PKey = s.PKey }},
	{"fecn", 4, 5, func(d, s *BTH) { d.FECN, d.BECN = s.FECN, s.BECN; d.Warnings |= s.Warnings & WarnReserved }},
	{"destqp", 5, 8, func(d, s *BTH) { d.DestQP = s.DestQP }},
	{"ackreq", 8, 9, func(d, s *BTH) { d.AckReq = s.AckReq }},
	{"psn", 9, 12, func(d, s *BTH) { d.PSN = s.PSN }},
}

// reset clears what a decode sets, without zeroing the extension headers
// the previous frame did not use (a BTH is 472 octets; clearing it whole
// was a third of its decode time).
func (m *BTH) reset() {
	m.clearExt(m.hdrExt)
	m.BaseLayer = layers.BaseLayer{}
	m.OtherExt, m.Pad, m.roceLen = nil, nil, 0
	m.ICRC, m.ICRCChecked, m.ICRCOK, m.Warnings, m.hdrExt = 0, false, false, 0, 0
}

// clearExt zeroes the extension headers in ext.
//
//go:noinline
func (m *BTH) clearExt(ext uint16) {
	if ext&extDETH != 0 {
		m.DETH = DETH{}
	}
	if ext&extRETH != 0 {
		m.RETH = RETH{}
	}
	if ext&extAETH != 0 {
		m.AETH = AETH{}
	}
	if ext&extImm != 0 {
		m.ImmDt = ImmDt{}
	}
	if ext&extCNP != 0 {
		m.CNP = CNP{}
	}
}

// decodeHeader decodes the 12 octets of h into the BTH fields.
func (m *BTH) decodeHeader(h []byte) {
	h = h[:12]
	m.Opcode = h[0]
	m.SE = h[1]&0x80 != 0
	m.M = h[1]&0x40 != 0
	m.PadCnt = h[1] >> 4 & 3
	m.TVer = h[1] & 0x0f
	m.PKey = binary.BigEndian.Uint16(h[2:])
	m.FECN = h[4]&0x80 != 0
	m.BECN = h[4]&0x40 != 0
	m.DestQP = uint32(h[5])<<16 | uint32(h[6])<<8 | uint32(h[7])
	m.AckReq = h[8]&0x80 != 0
	m.PSN = uint32(h[9])<<16 | uint32(h[10])<<8 | uint32(h[11])
	if h[4]&0x3f != 0 || h[8]&0x7f != 0 {
		m.Warnings |= WarnReserved
	}
	if m.TVer != 0 {
		m.Warnings |= WarnTVer
	}
}

func extName(ext uint16) string {
	switch {
	case ext&extRETH != 0:
		return "reth"
	case ext&extAETH != 0:
		return "aeth"
	case ext&extCNP != 0:
		return "cnp"
	case ext&extDETH != 0:
		return "deth"
	case ext&extImm != 0:
		return "immdt"
	}
	return "ext"
}

// roce returns the UDP payload the BTH was decoded from, or nil when there
// is none: a BTH built by hand, one whose decode failed, or one whose
// Contents was replaced since by octets that no longer end in the ICRC
// decoded (a copy kept, with other octets after it).
func (m *BTH) roce() []byte {
	n := m.roceLen
	if n < 16 || n > cap(m.Contents) {
		return nil
	}
	r := m.Contents[:n]
	if binary.LittleEndian.Uint32(r[n-4:]) != m.ICRC {
		return nil
	}
	return r
}

// VerifyICRC checks the ICRC against the IP header (IPv4 with options, or
// IPv6) and the UDP header of the packet this BTH was decoded from, and
// records the result in ICRCChecked, ICRCOK and WarnICRC, replacing what
// an earlier call recorded. It does not allocate. It reads the rest of the
// packet through Contents, as decoded: on a BTH whose decode failed, that
// was built by hand, or whose Contents was replaced since by octets that
// do not run on to the ICRC decoded, or with a UDP header shorter than 8
// octets, it checks nothing and returns false, with ICRCChecked and ICRCOK
// false and no WarnICRC.
func (m *BTH) VerifyICRC(ipHeader, udpHeader []byte) bool {
	m.Warnings &^= WarnICRC
	r := m.roce()
	if len(r) < 16 || len(udpHeader) < 8 {
		m.ICRCChecked, m.ICRCOK = false, false
		return false
	}
	got := icrcOver(ipHeader, udpHeader, r[:len(r)-4])
	m.ICRCChecked = true
	m.ICRCOK = got == m.ICRC
	if !m.ICRCOK {
		m.Warnings |= WarnICRC
	}
	return m.ICRCOK
}

// SetNetworkLayerForICRC tells the BTH the IP layer (*layers.IPv4 or
// *layers.IPv6) and the UDP layer it will be serialized under, so that
// SerializeTo with ComputeChecksums computes the ICRC, the way UDP needs
// SetNetworkLayerForChecksum.
func (m *BTH) SetNetworkLayerForICRC(ip gopacket.SerializableLayer, udp *layers.UDP) {
	m.netL, m.udpL = ip, udp
}

// SerializeTo writes the BTH and the extension headers its opcode implies
// in front of the payload already in b, then the pad and the ICRC after it.
// With FixLengths it sets PadCnt to align the payload to 4 octets; with
// ComputeChecksums it computes the ICRC (see SetNetworkLayerForICRC),
// otherwise it writes ICRC as set.
func (m *BTH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	if m.DestQP > 0xffffff || m.PSN > 0xffffff {
		return errAt("bth", "destqp/psn", 5, ErrBadValue, "DestQP and PSN are 24 bits")
	}
	if m.TVer > 15 {
		return errAt("bth", "tver", 1, ErrBadValue, "4 bits")
	}
	payloadLen := len(b.Bytes())
	if opts.FixLengths {
		m.PadCnt = uint8((4 - payloadLen%4) % 4)
	} else if m.PadCnt > 3 {
		return errAt("bth", "padcnt", 1, ErrBadValue, "2 bits")
	}
	tail, err := b.AppendBytes(int(m.PadCnt) + 4)
	if err != nil {
		return err
	}
	clear(tail)
	ext := opcodeExt(m.Opcode)
	el := extLen(ext)
	buf, err := b.PrependBytes(12 + el)
	if err != nil {
		return err
	}
	buf[0] = m.Opcode
	buf[1] = m.PadCnt<<4 | m.TVer
	if m.SE {
		buf[1] |= 0x80
	}
	if m.M {
		buf[1] |= 0x40
	}
	binary.BigEndian.PutUint16(buf[2:], m.PKey)
	buf[4] = 0
	if m.FECN {
		buf[4] |= 0x80
	}
	if m.BECN {
		buf[4] |= 0x40
	}
	put24(buf[5:], m.DestQP)
	buf[8] = 0
	if m.AckReq {
		buf[8] = 0x80
	}
	put24(buf[9:], m.PSN)
	off := 12
	other := m.OtherExt
	if ext&extDETH != 0 {
		if err := m.DETH.put(buf[off:]); err != nil {
			return err
		}
		off += 8
	}
	if ext&extRETH != 0 {
		m.RETH.put(buf[off:])
		off += 16
	}
	for _, x := range [...]struct {
		flag uint16
		n    int
	}{{extAtomic, 28}, {extAETH, 4}, {extAtomicAck, 8}} {
		if ext&x.flag == 0 {
			continue
		}
		if x.flag == extAETH {
			if err := m.AETH.put(buf[off:]); err != nil {
				return err
			}
		} else {
			clear(buf[off : off+x.n])
			other = other[copy(buf[off:off+x.n], other):]
		}
		off += x.n
	}
	if ext&extImm != 0 {
		binary.BigEndian.PutUint32(buf[off:], m.ImmDt.Data)
		off += 4
	}
	if ext&extIETH != 0 {
		clear(buf[off : off+4])
		copy(buf[off:off+4], m.OtherExt)
		off += 4
	}
	if ext&extCNP != 0 {
		clear(buf[off : off+16])
	}
	all := b.Bytes()
	icrc := m.ICRC
	if opts.ComputeChecksums {
		if icrc, err = m.computeICRC(all, opts); err != nil {
			return err
		}
		m.ICRC = icrc
	}
	PutICRC(all[len(all)-4:], icrc)
	return nil
}

// computeICRC serializes the IP and UDP layers in front of a copy of roce in
// a scratch buffer (on copies of the layers, so they are not changed) and
// computes the ICRC over the result.
func (m *BTH) computeICRC(roce []byte, opts gopacket.SerializeOptions) (uint32, error) {
	if m.netL == nil || m.udpL == nil {
		return 0, ErrNoNetworkLayer
	}
	scratch := gopacket.NewSerializeBufferExpectedSize(60+8, len(roce))
	p, _ := scratch.PrependBytes(len(roce))
	copy(p, roce)
	o := gopacket.SerializeOptions{FixLengths: opts.FixLengths}
	udp := *m.udpL
	if err := udp.SerializeTo(scratch, o); err != nil {
		return 0, err
	}
	switch ip := m.netL.(type) {
	case *layers.IPv4:
		c := *ip
		if err := c.SerializeTo(scratch, o); err != nil {
			return 0, err
		}
	case *layers.IPv6:
		c := *ip
		if err := c.SerializeTo(scratch, o); err != nil {
			return 0, err
		}
	default:
		return 0, fmt.Errorf("bth: ICRC over %v is not supported: %w", m.netL.LayerType(), ErrBadValue)
	}
	return ComputeICRC(scratch.Bytes())
}

func put24(b []byte, v uint32) { b[0], b[1], b[2] = byte(v>>16), byte(v>>8), byte(v) }

func get24(b []byte) uint32 { return uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2]) }

func decodeBTH(data []byte, p gopacket.PacketBuilder) error {
	m := &BTH{}
	err := m.DecodeFromBytes(data, p)
	p.AddLayer(m)
	if err == nil {
		if pk, ok := p.(gopacket.Packet); ok {
			// Not behind IPv6 extension headers nor an IPv4 AH, as
			// Parser (see there).
			if nl, tl := pk.NetworkLayer(), pk.TransportLayer(); nl != nil && tl != nil && !behindIPv6Ext(nl) &&
				pk.Layer(layers.LayerTypeIPSecAH) == nil {
				m.VerifyICRC(nl.LayerContents(), tl.LayerContents())
			}
		}
		m.setExtBases()
	} else if m.hdrExt != 0 {
		// The extension headers that were whole before the fault are
		// layers too (ExtDecoded): nothing decoded is lost.
		m.setExtBasesIn(data[:len(data)-4])
	}
	ext := m.hdrExt
	for _, x := range [...]struct {
		flag uint16
		l    gopacket.Layer
	}{{extDETH, &m.DETH}, {extRETH, &m.RETH}, {extAETH, &m.AETH}, {extImm, &m.ImmDt}, {extCNP, &m.CNP}} {
		if ext&x.flag != 0 {
			p.AddLayer(x.l)
		}
	}
	if err != nil {
		return err
	}
	if len(m.Payload) == 0 {
		return nil
	}
	// Not p.NextDecoder: it would decode the last extension layer's
	// Payload, which for ATOMIC ACKNOWLEDGE still holds the AtomicAckETH.
	return gopacket.LayerTypePayload.Decode(m.Payload, p)
}

// behindIPv6Ext reports whether network layer nl is an IPv6 header whose
// Next Header is an extension header (gopacket's IPv6 takes a Hop-by-Hop
// header into itself: its NextHeader then still says 0).
func behindIPv6Ext(nl gopacket.NetworkLayer) bool {
	ip, ok := nl.(*layers.IPv6)
	return ok && IsIPv6Ext(uint8(ip.NextHeader))
}

// RETH is the RDMA extended transport header (16 octets): virtual address,
// R_Key and DMA length. Field names: reth.va, reth.rkey, reth.dmalen.
// Its Contents and Payload are set where it is a layer (NewPacket, or its
// own DecodeFromBytes), not when a BTH decodes it; so for every extension
// header.
type RETH struct {
	layers.BaseLayer
	VA     uint64
	RKey   uint32
	DMALen uint32
}

func (r *RETH) decode(b []byte) {
	r.VA = binary.BigEndian.Uint64(b)
	r.RKey = binary.BigEndian.Uint32(b[8:])
	r.DMALen = binary.BigEndian.Uint32(b[12:])
}

func (r *RETH) put(b []byte) {
	binary.BigEndian.PutUint64(b, r.VA)
	binary.BigEndian.PutUint32(b[8:], r.RKey)
	binary.BigEndian.PutUint32(b[12:], r.DMALen)
}

// LayerType returns LayerTypeRETH.
func (r *RETH) LayerType() gopacket.LayerType { return LayerTypeRETH }

// CanDecode returns LayerTypeRETH.
func (r *RETH) CanDecode() gopacket.LayerClass { return LayerTypeRETH }

// NextLayerType returns gopacket.LayerTypePayload.
func (r *RETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes a RETH on its own (16 octets); the rest is Payload.
func (r *RETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*r = RETH{}
	if len(data) < 16 {
		df.SetTruncated()
		return truncated("reth", "reth", 0, 16, len(data))
	}
	r.decode(data)
	r.Contents, r.Payload = data[:16], data[16:]
	return nil
}

// SerializeTo writes the 16-octet RETH.
func (r *RETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(16)
	if err != nil {
		return err
	}
	r.put(buf)
	return nil
}

func decodeRETH(data []byte, p gopacket.PacketBuilder) error {
	r := &RETH{}
	err := r.DecodeFromBytes(data, p)
	p.AddLayer(r)
	if err != nil {
		return err
	}
	return p.NextDecoder(gopacket.LayerTypePayload)
}

// AETH is the ACK extended transport header (4 octets): syndrome and
// 24-bit MSN. Field names: aeth.syndrome, aeth.msn.
type AETH struct {
	layers.BaseLayer
	Syndrome uint8
	MSN      uint32
}

func (a *AETH) decode(b []byte) {
	a.Syndrome = b[0]
	a.MSN = get24(b[1:])
}

func (a *AETH) put(b []byte) error {
	if a.MSN > 0xffffff {
		return errAt("aeth", "msn", 1, ErrBadValue, "24 bits")
	}
	b[0] = a.Syndrome
	put24(b[1:], a.MSN)
	return nil
}

// LayerType returns LayerTypeAETH.
func (a *AETH) LayerType() gopacket.LayerType { return LayerTypeAETH }

// CanDecode returns LayerTypeAETH.
func (a *AETH) CanDecode() gopacket.LayerClass { return LayerTypeAETH }

// NextLayerType returns gopacket.LayerTypePayload.
func (a *AETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes an AETH on its own (4 octets).
func (a *AETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*a = AETH{}
	if len(data) < 4 {
		df.SetTruncated()
		return truncated("aeth", "aeth", 0, 4, len(data))
	}
	a.decode(data)
	a.Contents, a.Payload = data[:4], data[4:]
	return nil
}

// SerializeTo writes the 4-octet AETH.
func (a *AETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(4)
	if err != nil {
		return err
	}
	return a.put(buf)
}

func decodeAETH(data []byte, p gopacket.PacketBuilder) error {
	a := &AETH{}
	err := a.DecodeFromBytes(data, p)
	p.AddLayer(a)
	if err != nil {
		return err
	}
	return p.NextDecoder(gopacket.LayerTypePayload)
}

// ImmDt is the 4-octet immediate data of the "with immediate" opcodes.
type ImmDt struct {
	layers.BaseLayer
	Data uint32
}

func (i *ImmDt) decode(b []byte) {
	i.Data = binary.BigEndian.Uint32(b)
}

// LayerType returns LayerTypeImmDt.
func (i *ImmDt) LayerType() gopacket.LayerType { return LayerTypeImmDt }

// CanDecode returns LayerTypeImmDt.
func (i *ImmDt) CanDecode() gopacket.LayerClass { return LayerTypeImmDt }

// NextLayerType returns gopacket.LayerTypePayload.
func (i *ImmDt) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes immediate data on its own (4 octets).
func (i *ImmDt) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*i = ImmDt{}
	if len(data) < 4 {
		df.SetTruncated()
		return truncated("immdt", "immdt", 0, 4, len(data))
	}
	i.decode(data)
	i.Contents, i.Payload = data[:4], data[4:]
	return nil
}

// SerializeTo writes the 4 octets of immediate data.
func (i *ImmDt) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(4)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint32(buf, i.Data)
	return nil
}

func decodeImmDt(data []byte, p gopacket.PacketBuilder) error {
	i := &ImmDt{}
	err := i.DecodeFromBytes(data, p)
	p.AddLayer(i)
	if err != nil {
		return err
	}
	return p.NextDecoder(gopacket.LayerTypePayload)
}

// DETH is the datagram extended transport header of UD operations (8
// octets): Q_Key, reserved octet, 24-bit source QP.
type DETH struct {
	layers.BaseLayer
	QKey  uint32
	SrcQP uint32
}

func (d *DETH) decode(b []byte) {
	d.QKey = binary.BigEndian.Uint32(b)
	d.SrcQP = get24(b[5:])
}

func (d *DETH) put(b []byte) error {
	if d.SrcQP > 0xffffff {
		return errAt("deth", "srcqp", 5, ErrBadValue, "24 bits")
	}
	binary.BigEndian.PutUint32(b, d.QKey)
	b[4] = 0
	put24(b[5:], d.SrcQP)
	return nil
}

// LayerType returns LayerTypeDETH.
func (d *DETH) LayerType() gopacket.LayerType { return LayerTypeDETH }

// CanDecode returns LayerTypeDETH.
func (d *DETH) CanDecode() gopacket.LayerClass { return LayerTypeDETH }

// NextLayerType returns gopacket.LayerTypePayload.
func (d *DETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes a DETH on its own (8 octets).
func (d *DETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*d = DETH{}
	if len(data) < 8 {
		df.SetTruncated()
		return truncated("deth", "deth", 0, 8, len(data))
	}
	d.decode(data)
	d.Contents, d.Payload = data[:8], data[8:]
	return nil
}

// SerializeTo writes the 8-octet DETH.
func (d *DETH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(8)
	if err != nil {
		return err
	}
	return d.put(buf)
}

func decodeDETH(data []byte, p gopacket.PacketBuilder) error {
	d := &DETH{}
	err := d.DecodeFromBytes(data, p)
	p.AddLayer(d)
	if err != nil {
		return err
	}
	return p.NextDecoder(gopacket.LayerTypePayload)
}

// CNP is the body of a RoCEv2 congestion notification packet (opcode 0x81):
// 16 reserved octets after a BTH with BECN set. DestQP repeats the BTH's so
// that the field cnp.destqp stands on its own. Non-zero reserved octets
// decode with WarnReserved, a BTH without BECN with WarnCNPNoBECN.
type CNP struct {
	layers.BaseLayer
	DestQP   uint32
	Warnings Warnings
}

// cnpWarnings returns the warnings of a CNP with the 16 reserved octets b
// after a BTH whose BECN is becn.
func cnpWarnings(b []byte, becn bool) Warnings {
	var w Warnings
	// allZero by hand: with its loop, cnpWarnings would no longer inline
	// into the BTH decode (CNP 8.0 -> 9.3 ns).
	if binary.LittleEndian.Uint64(b)|binary.LittleEndian.Uint64(b[8:16]) != 0 {
		w = WarnReserved
	}
	if !becn {
		w |= WarnCNPNoBECN
	}
	return w
}

// LayerType returns LayerTypeCNP.
func (c *CNP) LayerType() gopacket.LayerType { return LayerTypeCNP }

// CanDecode returns LayerTypeCNP.
func (c *CNP) CanDecode() gopacket.LayerClass { return LayerTypeCNP }

// NextLayerType returns gopacket.LayerTypeZero.
func (c *CNP) NextLayerType() gopacket.LayerType { return gopacket.LayerTypeZero }

// DecodeFromBytes decodes the 16 reserved octets on their own; DestQP is not
// known there and is left 0.
func (c *CNP) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*c = CNP{}
	if len(data) < 16 {
		df.SetTruncated()
		return truncated("cnp", "reserved", 0, 16, len(data))
	}
	c.Contents, c.Payload = data[:16], data[16:]
	if !allZero(data[:16]) {
		c.Warnings |= WarnReserved
	}
	return nil
}

// SerializeTo writes the 16 zero octets.
func (c *CNP) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(16)
	if err != nil {
		return err
	}
	clear(buf)
	return nil
}

func decodeCNP(data []byte, p gopacket.PacketBuilder) error {
	c := &CNP{}
	err := c.DecodeFromBytes(data, p)
	p.AddLayer(c)
	return err
}
