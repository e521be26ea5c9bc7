// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// feedback records SetTruncated.
type feedback struct{ truncated bool }

func (f *feedback) SetTruncated() { f.truncated = true }

// at returns a copy of b with the octets from off replaced by v.
func at(b []byte, off int, v ...byte) []byte {
	c := bytes.Clone(b)
	copy(c[off:], v)
	return c
}

// cat concatenates byte slices into a new one.
func cat(bs ...[]byte) []byte { return bytes.Join(bs, nil) }

// The bodies of the golden frames, as each layer's DecodeFromBytes sees them.
func pauseBody(t testing.TB) []byte    { return unhex(t, pauseHex)[14:] }
func pfcBody(t testing.TB) []byte      { return unhex(t, pfcHex)[14:] }
func cnpBody(t testing.TB) []byte      { return unhex(t, cnpV4Hex)[14+20+8:] }
func cimBody(t testing.TB) []byte      { return unhex(t, cimPDUHex) }
func btsBody(t testing.TB) []byte      { return unhex(t, btsHex)[14+20+8:] }
func postcardBody(t testing.TB) []byte { return unhex(t, postcardHex)[14+40+8:] }
func bfcBody(t testing.TB) []byte      { return unhex(t, bfcHex)[14 : 14+12+16] }
func fgCreditBody(t testing.TB) []byte { return unhex(t, fgCreditHex)[14 : 14+8+16] }
func fgPauseBody(t testing.TB) []byte  { return unhex(t, fgPauseHex)[14:] }

// bthBody returns a BTH with opcode op and n octets after the BTH
// (extension headers, payload, pad, ICRC).
func bthBody(op uint8, n int) []byte {
	b := make([]byte, 12+n)
	b[0] = op
	b[2], b[3] = 0xff, 0xff
	b[7] = 0x42
	return b
}

type decodeRow struct {
	name  string
	layer gopacket.DecodingLayer
	data  []byte
	// err is the sentinel expected (nil: decodes), with the field and the
	// octet offset the *DecodeError must name.
	err    error
	field  string
	offset int
	trunc  bool     // DecodeFeedback.SetTruncated expected
	warn   Warnings // Warnings expected on success
	next   gopacket.LayerType
	check  func(t *testing.T, l gopacket.DecodingLayer) // extra checks on success
}

func decodeRows(t *testing.T) []decodeRow {
	pause, pfc, cnp, cim := pauseBody(t), pfcBody(t), cnpBody(t), cimBody(t)
	bts, pc, bfc, fgc, fgp := btsBody(t), postcardBody(t), bfcBody(t), fgCreditBody(t), fgPauseBody(t)
	zero := gopacket.LayerTypeZero
	payload := gopacket.LayerTypePayload
	return []decodeRow{
		// MAC Control demultiplexer.
		{name: "maccontrol/empty", layer: &MACControl{}, data: nil, err: ErrTruncated, field: "opcode", offset: 0, trunc: true},
		{name: "maccontrol/short", layer: &MACControl{}, data: pause[:1], err: ErrTruncated, field: "opcode", offset: 0, trunc: true},
		{name: "maccontrol/pause", layer: &MACControl{}, data: pause, next: LayerTypePause},
		{name: "maccontrol/pfc", layer: &MACControl{}, data: pfc, next: LayerTypePFC},
		{name: "maccontrol/other-opcode", layer: &MACControl{}, data: at(pause, 0, 0x00, 0x02), next: payload},

		// §1 PAUSE.
		{name: "pause/empty", layer: &Pause{}, data: nil, err: ErrTruncated, field: "opcode", offset: 0, trunc: true},
		{name: "pause/short-opcode", layer: &Pause{}, data: pause[:1], err: ErrTruncated, field: "opcode", offset: 0, trunc: true},
		{name: "pause/short-quanta", layer: &Pause{}, data: pause[:3], err: ErrTruncated, field: "quanta", offset: 2, trunc: true},
		{name: "pause/no-pad", layer: &Pause{}, data: pause[:4], warn: WarnTruncatedPad, next: zero,
			check: func(t *testing.T, l gopacket.DecodingLayer) {
				if p := l.(*Pause); p.Quanta != 0x1234 {
					t.Errorf("quanta %#x", p.Quanta)
				}
			}},
		{name: "pause/truncated-pad", layer: &Pause{}, data: pause[:45], warn: WarnTruncatedPad, next: zero},
		{name: "pause/wrong-opcode", layer: &Pause{}, data: pfc, err: ErrBadValue, field: "opcode", offset: 0},
		{name: "pause/reserved", layer: &Pause{}, data: at(pause, 45, 1), warn: WarnReserved, next: zero},
		{name: "pause/fcs-as-padding", layer: &Pause{}, data: cat(pause, []byte{1, 2, 3, 4}), next: zero,
			check: func(t *testing.T, l gopacket.DecodingLayer) {
				if p := l.(*Pause); len(p.Contents) != 46 || !bytes.Equal(p.Padding, []byte{1, 2, 3, 4}) {
					t.Errorf("contents %d octets, padding %x", len(p.Contents), p.Padding)
				}
			}},

		// §2 PFC.
		{name: "pfc/empty", layer: &PFC{}, data: nil, err: ErrTruncated, field: "opcode", offset: 0, trunc: true},
		{name: "pfc/short-vector", layer: &PFC{}, data: pfc[:3], err: ErrTruncated, field: "enable_vector", offset: 2, trunc: true},
		{name: "pfc/short-time0", layer: &PFC{}, data: pfc[:5], err: ErrTruncated, field: "time_c0", offset: 4, trunc: true},
		{name: "pfc/short-time7", layer: &PFC{}, data: pfc[:19], err: ErrTruncated, field: "time_c7", offset: 18, trunc: true},
		{name: "pfc/no-pad", layer: &PFC{}, data: pfc[:20], warn: WarnTruncatedPad, next: zero,
			check: func(t *testing.T, l gopacket.DecodingLayer) {
				if p := l.(*PFC); p.EnableVector != 0x21 || p.Times != [8]uint16{16, 0, 0, 3, 0, 0xffff, 0, 0} {
					t.Errorf("vector %#x times %v", p.EnableVector, p.Times)
				}
			}},
		{name: "pfc/wrong-opcode", layer: &PFC{}, data: pause, err: ErrBadValue, field: "opcode", offset: 0},
		{name: "pfc/vector-high-octet", layer: &PFC{}, data: at(pfc, 2, 0x01), warn: WarnReserved, next: zero,
			check: func(t *testing.T, l gopacket.DecodingLayer) {
				if p := l.(*PFC); p.EnableVector != 0x0121 || !p.Enabled(0) || !p.Enabled(5) || p.Enabled(1) {
					t.Errorf("vector %#x", p.EnableVector)
				}
			}},
		{name: "pfc/reserved-pad", layer: &PFC{}, data: at(pfc, 20, 0xff), warn: WarnReserved, next: zero},

		// §3 BTH and its extension headers.
		{name: "bth/empty", layer: &BTH{}, data: nil, err: ErrTruncated, field: "opcode", offset: 0, trunc: true},
		{name: "bth/short", layer: &BTH{}, data: cnp[:11], err: ErrTruncated, field: "psn", offset: 9, trunc: true},
		{name: "bth/short-qp", layer: &BTH{}, data: cnp[:7], err: ErrTruncated, field: "destqp", offset: 5, trunc: true},
		{name: "bth/no-icrc", layer: &BTH{}, data: cnp[:12], err: ErrTruncated, field: "icrc", offset: 12, trunc: true},
		{name: "bth/short-icrc", layer: &BTH{}, data: bthBody(OpcodeRCSendOnly, 3), err: ErrTruncated, field: "icrc", offset: 12, trunc: true},
		{name: "bth/send-only-empty", layer: &BTH{}, data: bthBody(OpcodeRCSendOnly, 4), next: zero},
		{name: "bth/send-only-payload", layer: &BTH{}, data: bthBody(OpcodeRCSendOnly, 9), next: payload,
			check: func(t *testing.T, l gopacket.DecodingLayer) {
				if b := l.(*BTH); len(b.Payload) != 5 || len(b.Pad) != 0 || b.DestQP != 0x42 || b.PKey != 0xffff {
					t.Errorf("payload %d pad %d %+v", len(b.Payload), len(b.Pad), b)
				}
			}},
		{name: "bth/reth-cut", layer: &BTH{}, data: bthBody(OpcodeRCWriteOnly, 4+15), err: ErrLength, field: "reth", offset: 12, trunc: true},
		{name: "bth/reth-imm-cut", layer: &BTH{}, data: bthBody(OpcodeRCWriteOnlyImm, 4+19), err: ErrLength, field: "immdt", offset: 28, trunc: true},
		{name: "bth/aeth-cut", layer: &BTH{}, data: bthBody(OpcodeRCAck, 4+3), err: ErrLength, field: "aeth", offset: 12, trunc: true},
		{name: "bth/imm-cut", layer: &BTH{}, data: bthBody(OpcodeRCSendOnlyImm, 4+3), err: ErrLength, field: "immdt", offset: 12, trunc: true},
		{name: "bth/deth-cut", layer: &BTH{}, data: bthBody(OpcodeUDSendOnly, 4+7), err: ErrLength, field: "deth", offset: 12, trunc: true},
		{name: "bth/cnp-cut", layer: &BTH{}, data: cnp[:12+15+4], err: ErrLength, field: "cnp", offset: 12, trunc: true},
		{name: "bth/padcnt-too-large", layer: &BTH{}, data: at(bthBody(OpcodeRCSendOnly, 4+2), 1, 0x30), err: ErrLength, field: "padcnt", offset: 1},
		{name: "bth/padcnt-fits", layer: &BTH{}, data: at(bthBody(OpcodeRCSendOnly, 4+3), 1, 0x30), next: zero,
			check: func(t *testing.T, l gopacket.DecodingLayer) {
				if b := l.(*BTH); b.PadCnt != 3 || len(b.Pad) != 3 || len(b.Payload) != 0 {
					t.Errorf("padcnt %d pad %d payload %d", b.PadCnt, len(b.Pad), len(b.Payload))
				}
			}},
		{name: "bth/write-only", layer: &BTH{}, data: cat(bthBody(OpcodeRCWriteOnly, 0), unhex(t, "00007f0000001000 00000001 00000400"), []byte{0xaa, 1, 0}, []byte{9, 9, 9, 9}), next: payload,
			check: func(t *testing.T, l gopacket.DecodingLayer) {
				b := l.(*BTH)
				if !b.HasRETH() || b.RETH.VA != 0x7f0000001000 || b.RETH.RKey != 1 || b.RETH.DMALen != 1024 || !bytes.Equal(b.Payload, []byte{0xaa, 1, 0}) || b.ICRC != 0x09090909 {
					t.Errorf("%+v", b)
				}
			}},
		{name: "bth/cnp", layer: &BTH{}, data: cnp, next: zero,
			check: func(t *testing.T, l gopacket.DecodingLayer) {
				if b := l.(*BTH); !b.IsCNP() || b.CNP.DestQP != 0xd2 || b.ICRC != 0x2339765c || b.ICRCChecked {
					t.Errorf("%+v", b)
				}
			}},
		{name: "bth/cnp-no-becn", layer: &BTH{}, data: at(cnp, 4, 0x00), warn: WarnCNPNoBECN, next: zero},
		{name: "bth/cnp-reserved", layer: &BTH{}, data: at(cnp, 12+7, 0x01), warn: WarnReserved, next: zero},
		{name: "bth/cnp-extra", layer: &BTH{}, data: cat(cnp[:28], []byte{1, 2, 3, 4}, cnp[28:]), warn: WarnReserved, next: payload},
		{name: "bth/reserved-bits", layer: &BTH{}, data: at(cnp, 8, 0x01), warn: WarnReserved, next: zero},
		{name: "bth/tver", layer: &BTH{}, data: at(cnp, 1, 0x01), warn: WarnTVer, next: zero},
		{name: "reth/empty", layer: &RETH{}, data: nil, err: ErrTruncated, field: "reth", offset: 0, trunc: true},
		{name: "reth/short", layer: &RETH{}, data: make([]byte, 15), err: ErrTruncated, field: "reth", offset: 0, trunc: true},
		{name: "reth/ok", layer: &RETH{}, data: unhex(t, "0102030405060708 090a0b0c 0d0e0f10 ff"), next: payload,
			check: func(t *testing.T, l gopacket.DecodingLayer) {
				if r := l.(*RETH); r.VA != 0x0102030405060708 || r.RKey != 0x090a0b0c || r.DMALen != 0x0d0e0f10 || len(r.Payload) != 1 {
					t.Errorf("%+v", r)
				}
			}},
		{name: "aeth/empty", layer: &AETH{}, data: nil, err: ErrTruncated, field: "aeth", offset: 0, trunc: true},
		{name: "aeth/short", layer: &AETH{}, data: make([]byte, 3), err: ErrTruncated, field: "aeth", offset: 0, trunc: true},
		{name: "aeth/ok", layer: &AETH{}, data: unhex(t, "1f abcdef"), next: payload,
			check: func(t *testing.T, l gopacket.DecodingLayer) {
				if a := l.(*AETH); a.Syndrome != 0x1f || a.MSN != 0xabcdef {
					t.Errorf("%+v", a)
				}
			}},
		{name: "immdt/empty", layer: &ImmDt{}, data: nil, err: ErrTruncated, field: "immdt", offset: 0, trunc: true},
		{name: "immdt/short", layer: &ImmDt{}, data: make([]byte, 3), err: ErrTruncated, field: "immdt", offset: 0, trunc: true},
		{name: "deth/empty", layer: &DETH{}, data: nil, err: ErrTruncated, field: "deth", offset: 0, trunc: true},
		{name: "deth/short", layer: &DETH{}, data: make([]byte, 7), err: ErrTruncated, field: "deth", offset: 0, trunc: true},
		{name: "deth/ok", layer: &DETH{}, data: unhex(t, "80010000 00 123456"), next: payload,
			check: func(t *testing.T, l gopacket.DecodingLayer) {
				if d := l.(*DETH); d.QKey != 0x80010000 || d.SrcQP != 0x123456 {
					t.Errorf("%+v", d)
				}
			}},
		{name: "cnp/empty", layer: &CNP{}, data: nil, err: ErrTruncated, field: "reserved", offset: 0, trunc: true},
		{name: "cnp/short", layer: &CNP{}, data: make([]byte, 15), err: ErrTruncated, field: "reserved", offset: 0, trunc: true},
		{name: "cnp/reserved", layer: &CNP{}, data: at(make([]byte, 16), 3, 1), warn: WarnReserved, next: zero},

		// §4 CIM.
		{name: "cim/empty", layer: &CIM{}, data: nil, err: ErrTruncated, field: "version", offset: 0, trunc: true},
		{name: "cim/short-da", layer: &CIM{}, data: cim[:3], err: ErrTruncated, field: "da", offset: 1, trunc: true},
		{name: "cim/short-sa", layer: &CIM{}, data: cim[:7], err: ErrTruncated, field: "sa", offset: 7, trunc: true},
		{name: "cim/short-vid", layer: &CIM{}, data: cim[:13], err: ErrTruncated, field: "vid", offset: 13, trunc: true},
		{name: "cim/short-msdu-len", layer: &CIM{}, data: cim[:16], err: ErrTruncated, field: "msdu_len", offset: 15, trunc: true},
		{name: "cim/version", layer: &CIM{}, data: at(cim, 0, 0x13), err: ErrVersion, field: "version", offset: 0},
		{name: "cim/msdu-len-too-large", layer: &CIM{}, data: at(cim, 15, 0x00, 0x5e), err: ErrLength, field: "msdu_len", offset: 15, trunc: true},
		{name: "cim/msdu-cut", layer: &CIM{}, data: cim[:17+47], err: ErrLength, field: "msdu_len", offset: 15, trunc: true},
		{name: "cim/tlv-length-too-large", layer: &CIM{}, data: at(cim, 17+48+1, 9), err: ErrTLVLength, field: "tlv.length", offset: 17 + 48 + 1},
		{name: "cim/tlv-cut", layer: &CIM{}, data: cim[:len(cim)-1], err: ErrTLVLength, field: "tlv.length", offset: 17 + 48 + 1},
		{name: "cim/tlv-no-length", layer: &CIM{}, data: cat(cim[:17+48], []byte{7}), err: ErrTLVLength, field: "tlv.length", offset: 17 + 48 + 1},
		{name: "cim/sfc-tlv-length", layer: &CIM{}, data: cat(cim[:17+48], unhex(t, "01 07 0064 01 00 000000")), err: ErrTLVLength, field: "tlv.length", offset: 17 + 48 + 1},
		{name: "cim/no-ext", layer: &CIM{}, data: at(cim, 0, 0x01), next: zero,
			check: func(t *testing.T, l gopacket.DecodingLayer) {
				if c := l.(*CIM); c.Ext || c.HasSFC || len(c.Contents) != 17+48 || len(c.Padding) != 10 || !c.HasFlow {
					t.Errorf("ext %v sfc %v contents %d padding %d", c.Ext, c.HasSFC, len(c.Contents), len(c.Padding))
				}
			}},
		{name: "cim/unknown-tlv-then-end-and-pad", layer: &CIM{}, data: cat(cim[:17+48], unhex(t, "09 02 abcd"), cim[17+48:], []byte{0, 0, 0}), next: zero,
			check: func(t *testing.T, l gopacket.DecodingLayer) {
				c := l.(*CIM)
				if !c.HasSFC || c.SFC.PauseUS != 100 || c.SFC.Reporter != 42 || len(c.TLVs) != 14 || !bytes.Equal(c.Padding, []byte{0, 0, 0}) {
					t.Errorf("sfc %+v tlvs %x padding %x", c.SFC, c.TLVs, c.Padding)
				}
			}},
		{name: "cim/end-tlv-hides-rest", layer: &CIM{}, data: cat(cim[:17+48], []byte{0}, cim[17+48:]), next: zero,
			check: func(t *testing.T, l gopacket.DecodingLayer) {
				if c := l.(*CIM); c.HasSFC || len(c.TLVs) != 0 || len(c.Padding) != 11 {
					t.Errorf("sfc %v tlvs %x padding %x", c.HasSFC, c.TLVs, c.Padding)
				}
			}},
		{name: "cim/msdu-short-no-flow", layer: &CIM{}, data: cat(at(cim[:17], 15, 0, 4), cim[17:21], cim[17+48:]), warn: WarnMSDULength | WarnNoFlow, next: zero},
		{name: "cim/msdu-over-512", layer: &CIM{}, data: cat(at(cim[:17], 15, 0x02, 0x01), cim[17:17+48], make([]byte, 513-48)), warn: WarnMSDULength, next: zero},
		{name: "cim/reserved", layer: &CIM{}, data: at(cim, 13, 0x10), warn: WarnReserved, next: zero},
		{name: "cim/unknown-origin", layer: &CIM{}, data: at(cim, 17+48+5, 9), warn: WarnUnknownValue, next: zero},
		{name: "cim/sfc-flag-reserved", layer: &CIM{}, data: at(cim, 17+48+4, 0x81), warn: WarnReserved, next: zero},

		// §5 BTS.
		{name: "bts/empty", layer: &BTS{}, data: nil, err: ErrTruncated, field: "version", offset: 0, trunc: true},
		{name: "bts/short-pause", layer: &BTS{}, data: bts[:3], err: ErrTruncated, field: "pause_us", offset: 2, trunc: true},
		{name: "bts/short-depth", layer: &BTS{}, data: bts[:15], err: ErrTruncated, field: "queue_depth", offset: 12, trunc: true},
		{name: "bts/version", layer: &BTS{}, data: at(bts, 0, 0x21), err: ErrVersion, field: "version", offset: 0},
		{name: "bts/no-quote", layer: &BTS{}, data: bts[:16], err: ErrQuoteTooShort, field: "quote", offset: 16},
		{name: "bts/quote-ip-cut", layer: &BTS{}, data: bts[:16+19], err: ErrQuoteTooShort, field: "quote", offset: 16},
		{name: "bts/quote-l4-cut", layer: &BTS{}, data: bts[:16+27], err: ErrQuoteTooShort, field: "quote", offset: 16 + 20},
		{name: "bts/quote-not-ip", layer: &BTS{}, data: at(bts, 16, 0x55), err: ErrVersion, field: "quote", offset: 16},
		{name: "bts/quote-ihl", layer: &BTS{}, data: at(bts, 16, 0x44), err: ErrBadValue, field: "quote", offset: 16},
		{name: "bts/quote-28", layer: &BTS{}, data: bts[:16+28], next: zero,
			check: func(t *testing.T, l gopacket.DecodingLayer) {
				if b := l.(*BTS); b.Flow.HasQP || b.Flow.DstPort != 4791 || len(b.Quote) != 28 {
					t.Errorf("flow %v quote %d", b.Flow, len(b.Quote))
				}
			}},
		{name: "bts/unknown-origin", layer: &BTS{}, data: at(bts, 1, 3), warn: WarnUnknownValue, next: zero},
		{name: "bts/reserved-flag", layer: &BTS{}, data: at(bts, 0, 0x13), warn: WarnReserved, next: zero},
		{name: "bts/reserved-octet", layer: &BTS{}, data: at(bts, 11, 1), warn: WarnReserved, next: zero},

		// §6 CC-postcard.
		{name: "postcard/empty", layer: &Postcard{}, data: nil, err: ErrTruncated, field: "version", offset: 0, trunc: true},
		{name: "postcard/short-switch", layer: &Postcard{}, data: pc[:5], err: ErrTruncated, field: "switch_id", offset: 4, trunc: true},
		{name: "postcard/short-rate", layer: &Postcard{}, data: pc[:13], err: ErrTruncated, field: "rate_mbps", offset: 12, trunc: true},
		{name: "postcard/short-marked", layer: &Postcard{}, data: pc[:35], err: ErrTruncated, field: "recent_marked_bytes", offset: 32, trunc: true},
		{name: "postcard/version", layer: &Postcard{}, data: at(pc, 0, 0x00), err: ErrVersion, field: "version", offset: 0},
		{name: "postcard/no-quote", layer: &Postcard{}, data: pc[:36], err: ErrQuoteTooShort, field: "quote", offset: 36},
		{name: "postcard/quote-ipv6-cut", layer: &Postcard{}, data: pc[:36+39], err: ErrQuoteTooShort, field: "quote", offset: 36},
		{name: "postcard/quote-l4-cut", layer: &Postcard{}, data: pc[:36+47], err: ErrQuoteTooShort, field: "quote", offset: 36 + 40},
		{name: "postcard/reserved", layer: &Postcard{}, data: at(pc, 10, 1), warn: WarnReserved, next: zero},

		// §7 experimental family.
		{name: "fcexp/empty", layer: &FCExp{}, data: nil, next: payload},
		{name: "fcexp/short", layer: &FCExp{}, data: bfc[:3], next: payload},
		{name: "fcexp/bfc", layer: &FCExp{}, data: bfc, next: LayerTypeBFC},
		{name: "fcexp/fgcredit", layer: &FCExp{}, data: fgc, next: LayerTypeFGCredit},
		{name: "fcexp/fgpause", layer: &FCExp{}, data: fgp, next: LayerTypeFGPause},
		{name: "fcexp/other-magic", layer: &FCExp{}, data: at(bfc, 0, 0x12), next: payload},
		{name: "fcexp/unknown-subtype", layer: &FCExp{}, data: at(bfc, 2, 9), next: payload},

		{name: "bfc/empty", layer: &BFC{}, data: nil, err: ErrTruncated, field: "header", offset: 0, trunc: true},
		{name: "bfc/short-header", layer: &BFC{}, data: bfc[:3], err: ErrTruncated, field: "header", offset: 0, trunc: true},
		{name: "bfc/short-body", layer: &BFC{}, data: bfc[:11], err: ErrTruncated, field: "body", offset: 4, trunc: true},
		{name: "bfc/magic", layer: &BFC{}, data: at(bfc, 0, 0x46, 0x44), err: ErrBadValue, field: "magic", offset: 0},
		{name: "bfc/subtype", layer: &BFC{}, data: at(bfc, 2, 2), err: ErrBadValue, field: "subtype", offset: 2},
		{name: "bfc/version", layer: &BFC{}, data: at(bfc, 3, 3), err: ErrVersion, field: "version", offset: 3},
		{name: "bfc/version-0", layer: &BFC{}, data: at(bfc, 3, 0), err: ErrVersion, field: "version", offset: 3},
		{name: "bfc/version-1", layer: &BFC{}, data: at(bfc, 3, 1), warn: WarnBFCVersion1, next: zero,
			check: func(t *testing.T, l gopacket.DecodingLayer) {
				if b := l.(*BFC); b.Version != 1 || len(b.Filter) != 16 || b.BitsSet() != 3 {
					t.Errorf("version 1: version %d, filter %d octets, %d bits", b.Version, len(b.Filter), b.BitsSet())
				}
			}},
		{name: "bfc/hashes-0", layer: &BFC{}, data: at(bfc, 4, 0), err: ErrBadValue, field: "hashes", offset: 4},
		{name: "bfc/hashes-9", layer: &BFC{}, data: at(bfc, 4, 9), err: ErrBadValue, field: "hashes", offset: 4},
		{name: "bfc/filter-len-0", layer: &BFC{}, data: at(bfc, 6, 0, 0), err: ErrBadValue, field: "filter_len", offset: 6},
		{name: "bfc/filter-len-not-multiple", layer: &BFC{}, data: at(bfc, 6, 0, 15), err: ErrBadValue, field: "filter_len", offset: 6},
		{name: "bfc/filter-len-over-1024", layer: &BFC{}, data: at(bfc, 6, 0x04, 0x04), err: ErrBadValue, field: "filter_len", offset: 6},
		{name: "bfc/filter-len-too-large", layer: &BFC{}, data: at(bfc, 6, 0, 20), err: ErrLength, field: "filter_len", offset: 6, trunc: true},
		{name: "bfc/filter-cut", layer: &BFC{}, data: bfc[:12+15], err: ErrLength, field: "filter_len", offset: 6, trunc: true},
		{name: "bfc/reserved", layer: &BFC{}, data: at(bfc, 5, 1), warn: WarnReserved, next: zero},
		{name: "bfc/padding", layer: &BFC{}, data: unhex(t, bfcHex)[14:], next: zero,
			check: func(t *testing.T, l gopacket.DecodingLayer) {
				if b := l.(*BFC); len(b.Filter) != 16 || len(b.Padding) != 18 || b.BitsSet() != 3 {
					t.Errorf("filter %x padding %d", b.Filter, len(b.Padding))
				}
			}},

		{name: "fgcredit/empty", layer: &FGCredit{}, data: nil, err: ErrTruncated, field: "header", offset: 0, trunc: true},
		{name: "fgcredit/short", layer: &FGCredit{}, data: fgc[:7], err: ErrTruncated, field: "body", offset: 4, trunc: true},
		{name: "fgcredit/magic", layer: &FGCredit{}, data: at(fgc, 1, 0), err: ErrBadValue, field: "magic", offset: 0},
		{name: "fgcredit/subtype", layer: &FGCredit{}, data: at(fgc, 2, 3), err: ErrBadValue, field: "subtype", offset: 2},
		{name: "fgcredit/version", layer: &FGCredit{}, data: at(fgc, 3, 0), err: ErrVersion, field: "version", offset: 3},
		{name: "fgcredit/family", layer: &FGCredit{}, data: at(fgc, 4, 5), err: ErrBadValue, field: "family", offset: 4},
		{name: "fgcredit/count-too-large", layer: &FGCredit{}, data: at(fgc, 6, 0, 3), err: ErrLength, field: "count", offset: 6, trunc: true},
		{name: "fgcredit/entries-cut", layer: &FGCredit{}, data: fgc[:len(fgc)-1], err: ErrLength, field: "count", offset: 6, trunc: true},
		{name: "fgcredit/family-6-too-large", layer: &FGCredit{}, data: at(fgc, 4, 6), err: ErrLength, field: "count", offset: 6, trunc: true},
		{name: "fgcredit/zero", layer: &FGCredit{}, data: at(fgc, 6, 0, 0), next: zero,
			check: func(t *testing.T, l gopacket.DecodingLayer) {
				if f := l.(*FGCredit); len(f.Entries) != 0 || len(f.Padding) != 16 {
					t.Errorf("entries %v padding %d", f.Entries, len(f.Padding))
				}
			}},
		{name: "fgcredit/reserved", layer: &FGCredit{}, data: at(fgc, 5, 1), warn: WarnReserved, next: zero},

		{name: "fgpause/empty", layer: &FGPause{}, data: nil, err: ErrTruncated, field: "header", offset: 0, trunc: true},
		{name: "fgpause/short", layer: &FGPause{}, data: fgp[:5], err: ErrTruncated, field: "body", offset: 4, trunc: true},
		{name: "fgpause/family", layer: &FGPause{}, data: at(fgp, 4, 4+0x80), err: ErrBadValue, field: "family", offset: 4},
		{name: "fgpause/count-too-large", layer: &FGPause{}, data: at(fgp, 6, 0x01, 0x00), err: ErrLength, field: "count", offset: 6, trunc: true},
		{name: "fgpause/entries-cut", layer: &FGPause{}, data: fgp[:8+20+19], err: ErrLength, field: "count", offset: 6, trunc: true},
		{name: "fgpause/family-4", layer: &FGPause{}, data: at(fgp, 4, 4), next: zero,
			check: func(t *testing.T, l gopacket.DecodingLayer) {
				// Read as IPv4 the same octets hold 2 entries and padding.
				if f := l.(*FGPause); len(f.Entries) != 2 || f.Entries[0].Dst.String() != "253.0.0.0" || len(f.Padding) != 24 {
					t.Errorf("entries %v padding %d", f.Entries, len(f.Padding))
				}
			}},
		{name: "fgpause/reserved-entry", layer: &FGPause{}, data: at(fgp, 8+2, 0, 1), warn: WarnReserved, next: zero},
	}
}

func TestDecodeTable(t *testing.T) {
	for _, r := range decodeRows(t) {
		t.Run(r.name, func(t *testing.T) {
			var fb feedback
			err := r.layer.DecodeFromBytes(r.data, &fb)
			if fb.truncated != r.trunc {
				t.Errorf("SetTruncated %v, want %v", fb.truncated, r.trunc)
			}
			if r.err != nil {
				var de *DecodeError
				if !errors.Is(err, r.err) || !errors.As(err, &de) {
					t.Fatalf("error %v, want %v in a *DecodeError", err, r.err)
				}
				if de.Field != r.field || de.Offset != r.offset {
					t.Errorf("error at %s offset %d, want %s offset %d (%v)", de.Field, de.Offset, r.field, r.offset, err)
				}
				if layerName := strings.ToLower(r.layer.(gopacket.Layer).LayerType().String()); de.Layer != layerName {
					t.Errorf("error names layer %q, want %q", de.Layer, layerName)
				}
				if !strings.Contains(err.Error(), de.Field) {
					t.Errorf("message %q does not name the field", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("error %v", err)
			}
			if w := warningsOf(r.layer.(gopacket.Layer)); w != r.warn {
				t.Errorf("warnings %q, want %q", w, r.warn)
			}
			if nt := r.layer.NextLayerType(); nt != r.next {
				t.Errorf("NextLayerType %v, want %v", nt, r.next)
			}
			if r.check != nil {
				r.check(t, r.layer)
			}
		})
	}
}

// TestDecodeCutEverywhere cuts every golden frame at every length and
// decodes it through NewPacket and Parser: no panic, and where one of our
// layers fails, the error is a *DecodeError.
func TestDecodeCutEverywhere(t *testing.T) {
	p := NewParser()
	for _, tc := range goldenCases() {
		frame := unhex(t, tc.hex)
		for n := 0; n < len(frame); n++ {
			cut := frame[:n]
			if err := p.Decode(cut); err != nil {
				if strings.Contains(err.Error(), "panic") {
					t.Errorf("%s cut at %d: Parser: %v", tc.name, n, err)
				}
				if p.Failed == gopacket.LayerTypeZero {
					t.Errorf("%s cut at %d: Parser error %v without Failed", tc.name, n, err)
				}
				var de *DecodeError
				if int(p.Failed) >= 1500 && int(p.Failed) < 1600 && !errors.As(err, &de) {
					t.Errorf("%s cut at %d: %v failed with %T %v", tc.name, n, p.Failed, err, err)
				}
			}
			// NewPacket recovers from a panic into a DecodeFailure whose
			// Dump is the stack (the error text alone does not say panic).
			pkt := gopacket.NewPacket(cut, layers.LayerTypeEthernet, gopacket.NoCopy)
			if df, ok := pkt.ErrorLayer().(*gopacket.DecodeFailure); ok && df.Dump() != "" {
				t.Errorf("%s cut at %d: NewPacket panicked: %v\n%s", tc.name, n, df.Error(), df.Dump())
			}
		}
	}
}

func TestWarningsText(t *testing.T) {
	if got := (WarnReserved | WarnICRC).String(); got != "reserved bits not zero; ICRC mismatch" {
		t.Errorf("String %q", got)
	}
	if Warnings(0).List() != nil || Warnings(0).Has(0) {
		t.Error("zero warnings")
	}
	all := WarnOption<<1 - 1 // the last warning
	if n := len(all.List()); n != len(warningText) {
		t.Errorf("%d texts for %d warnings", n, len(warningText))
	}
	if !(WarnReserved | WarnTVer).Has(WarnTVer) || WarnReserved.Has(WarnReserved|WarnTVer) {
		t.Error("Has")
	}
}

// A BTH cut inside its header keeps the fields that are whole: a cut CNP
// still shows its opcode and QP.
func TestBTHCutKeepsWholeFields(t *testing.T) {
	cnp := unhex(t, cnpV4Hex)[14+20+8:]
	var b BTH
	var fb feedback
	err := b.DecodeFromBytes(cnp[:10], &fb)
	if !errors.Is(err, ErrTruncated) || !fb.truncated {
		t.Fatalf("err %v truncated %v", err, fb.truncated)
	}
	if b.Opcode != OpcodeCNP || b.PKey != 0xffff || !b.BECN || b.DestQP != 0xd2 || b.PSN != 0 {
		t.Errorf("cut BTH fields %+v", b)
	}
}

// badPadCntFrames are RoCEv2 frames whose PadCnt is larger than the octets
// after their extension headers, which are whole: the RETH, AETH and ImmDt
// must stay decoded (nothing decoded is lost), and tshark decodes them
// (TestTsharkBadPadCnt).
func badPadCntFrames(t testing.TB) []struct {
	name  string
	frame []byte
	bth   BTH // as generated, with the PadCnt written
} {
	var out []struct {
		name  string
		frame []byte
		bth   BTH
	}
	// Built with no payload (a serialized payload is padded to 4
	// octets, which any PadCnt fits), then given the PadCnt.
	add := func(name string, v6 bool, b BTH, padCnt uint8) {
		f := roceFrame{v6: v6, bth: b}.build(t, optsFix)
		bth := 14 + 20 + 8
		if v6 {
			bth = 14 + 40 + 8
		}
		f[bth+1] = f[bth+1]&^0x30 | padCnt<<4
		b.PadCnt = padCnt
		out = append(out, struct {
			name  string
			frame []byte
			bth   BTH
		}{name, f, b})
	}
	reth := RETH{VA: 0x1122334455667788, RKey: 0xaabbccdd, DMALen: 64}
	add("RC RDMA WRITE Only, no payload, PadCnt 2", false, BTH{Opcode: OpcodeRCWriteOnly, PKey: 0xffff, DestQP: 0xd2, PSN: 1000, RETH: reth}, 2)
	add("RC RDMA WRITE Only over IPv6, no payload, PadCnt 3", true, BTH{Opcode: OpcodeRCWriteOnly, PKey: 0xffff, DestQP: 0xd3, PSN: 7, RETH: reth}, 3)
	add("RC RDMA WRITE Only with Immediate, PadCnt 1", false, BTH{Opcode: OpcodeRCWriteOnlyImm, PKey: 0x8001, DestQP: 0xabcd, PSN: 9,
		RETH: RETH{VA: 0x1000, RKey: 0x99, DMALen: 30}, ImmDt: ImmDt{Data: 0xdeadbeef}}, 1)
	add("RC RDMA Read Response Last, no payload, PadCnt 3", false, BTH{Opcode: OpcodeRCReadResponseLast, PKey: 0xffff, DestQP: 0x11, PSN: 12,
		AETH: AETH{Syndrome: 0x1f, MSN: 0x123456}}, 3)
	add("RC Acknowledge, PadCnt 1", true, BTH{Opcode: OpcodeRCAck, PKey: 0xffff, DestQP: 0x12, PSN: 13,
		AETH: AETH{Syndrome: 0x60, MSN: 0xabcdef}}, 1)
	return out
}

// TestBTHKeepsWholeExtOnError: a PadCnt larger than the octets after the
// extension headers is an error naming padcnt at offset 1, but the
// extension headers, whole, stay decoded (ExtDecoded, their values) through
// Parser and as layers of NewPacket; an extension header cut short keeps
// those before it and names itself. It used to drop them all (a WRITE with
// PadCnt 2 and no payload showed no RETH).
func TestBTHKeepsWholeExtOnError(t *testing.T) {
	p := NewParser()
	for _, c := range badPadCntFrames(t) {
		err := p.Decode(c.frame)
		var de *DecodeError
		if !errors.As(err, &de) || !errors.Is(err, ErrLength) || de.Layer != "bth" || de.Field != "padcnt" || de.Offset != 1 || p.Failed != LayerTypeBTH {
			t.Errorf("%s: error %v (failed %v), want bth padcnt at offset 1", c.name, err, p.Failed)
			continue
		}
		b := &p.BTH
		if b.Opcode != c.bth.Opcode || b.DestQP != c.bth.DestQP || b.PSN != c.bth.PSN || b.PadCnt != c.bth.PadCnt {
			t.Errorf("%s: header %+v", c.name, b)
		}
		for _, x := range []struct {
			lt       gopacket.LayerType
			has, got bool
		}{
			{LayerTypeRETH, c.bth.HasRETH(), b.RETH.VA == c.bth.RETH.VA && b.RETH.RKey == c.bth.RETH.RKey && b.RETH.DMALen == c.bth.RETH.DMALen},
			{LayerTypeAETH, c.bth.HasAETH(), b.AETH.Syndrome == c.bth.AETH.Syndrome && b.AETH.MSN == c.bth.AETH.MSN},
			{LayerTypeImmDt, c.bth.HasImmDt(), b.ImmDt.Data == c.bth.ImmDt.Data},
		} {
			if b.ExtDecoded(x.lt) != x.has || x.has && !x.got {
				t.Errorf("%s: %v decoded %v (opcode has it: %v): RETH %+v AETH %+v ImmDt %+v", c.name, x.lt, b.ExtDecoded(x.lt), x.has, b.RETH, b.AETH, b.ImmDt)
			}
		}
		pkt := gopacket.NewPacket(c.frame, layers.LayerTypeEthernet, gopacket.NoCopy)
		if pkt.ErrorLayer() == nil {
			t.Errorf("%s: NewPacket: no error", c.name)
		}
		if r, ok := pkt.Layer(LayerTypeRETH).(*RETH); ok != c.bth.HasRETH() || ok && (r.VA != c.bth.RETH.VA || len(r.Contents) != 16) {
			t.Errorf("%s: NewPacket RETH layer %v %+v", c.name, ok, r)
		}
		if a, ok := pkt.Layer(LayerTypeAETH).(*AETH); ok != c.bth.HasAETH() || ok && (a.MSN != c.bth.AETH.MSN || len(a.Contents) != 4) {
			t.Errorf("%s: NewPacket AETH layer %v %+v", c.name, ok, a)
		}
	}
	// Keeping them allocates nothing: no more than the error of a SEND
	// with a bad PadCnt, which has no extension header (the
	// *DecodeError and its detail are the only allocations).
	send := roceFrame{bth: BTH{Opcode: OpcodeRCSendOnly, DestQP: 1}}.build(t, optsFix)
	send[14+20+8+1] |= 0x20
	base := testing.AllocsPerRun(100, func() { _ = p.Decode(send) })
	for _, c := range badPadCntFrames(t) {
		if n := testing.AllocsPerRun(100, func() { _ = p.Decode(c.frame) }); n > base {
			t.Errorf("%s: %v allocations a decode, %v without extension headers", c.name, n, base)
		}
	}
	// A good frame after them: ExtDecoded follows the opcode again, and
	// the extension headers of the bad frame are gone.
	good := roceFrame{bth: BTH{Opcode: OpcodeRCSendOnly, DestQP: 1}, payload: []byte{1, 2, 3, 4}}.build(t, optsFix)
	if err := p.Decode(good); err != nil || p.BTH.ExtDecoded(LayerTypeRETH) || p.BTH.ExtDecoded(LayerTypeAETH) || p.BTH.AETH.MSN != 0 || p.BTH.RETH.VA != 0 {
		t.Errorf("good frame after: %v %+v", err, p.BTH)
	}

	// RETH whole, ImmDt cut: the RETH stays, the error names the ImmDt.
	var b BTH
	var fb feedback
	data := cat(bthBody(OpcodeRCWriteOnlyImm, 0), unhex(t, "1122334455667788 aabbccdd 00000040"), []byte{0xde, 0xad}, []byte{9, 9, 9, 9})
	err := b.DecodeFromBytes(data, &fb)
	var de *DecodeError
	if !errors.As(err, &de) || de.Field != "immdt" || de.Offset != 28 || !errors.Is(err, ErrLength) {
		t.Fatalf("RETH + cut ImmDt: %v", err)
	}
	if !b.ExtDecoded(LayerTypeRETH) || b.ExtDecoded(LayerTypeImmDt) || b.RETH.VA != 0x1122334455667788 || b.RETH.DMALen != 64 || b.ImmDt.Data != 0 {
		t.Errorf("RETH + cut ImmDt: RETH %v %+v, ImmDt %v %+v", b.ExtDecoded(LayerTypeRETH), b.RETH, b.ExtDecoded(LayerTypeImmDt), b.ImmDt)
	}
}
