// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"net/netip"
	"strconv"
	"strings"

	"github.com/gopacket/gopacket"
	glayers "github.com/gopacket/gopacket/layers"

	"github.com/opensfc/sfc/layers"
)

var opNames = map[uint8]string{
	0x00: "RC SEND First", 0x01: "RC SEND Middle", 0x02: "RC SEND Last", 0x03: "RC SEND Last Imm",
	0x04: "RC SEND Only", 0x05: "RC SEND Only Imm", 0x06: "RC WRITE First", 0x07: "RC WRITE Middle",
	0x08: "RC WRITE Last", 0x09: "RC WRITE Last Imm", 0x0a: "RC WRITE Only", 0x0b: "RC WRITE Only Imm",
	0x0c: "RC READ Request", 0x0d: "RC READ Response First", 0x0e: "RC READ Response Middle",
	0x0f: "RC READ Response Last", 0x10: "RC READ Response Only", 0x11: "RC ACK", 0x12: "RC ATOMIC ACK",
	0x13: "RC CmpSwap", 0x14: "RC FetchAdd", 0x16: "RC SEND Last Inv", 0x17: "RC SEND Only Inv",
	0x20: "UC SEND First", 0x21: "UC SEND Middle", 0x22: "UC SEND Last", 0x23: "UC SEND Last Imm",
	0x24: "UC SEND Only", 0x25: "UC SEND Only Imm", 0x26: "UC WRITE First", 0x27: "UC WRITE Middle",
	0x28: "UC WRITE Last", 0x29: "UC WRITE Last Imm", 0x2a: "UC WRITE Only", 0x2b: "UC WRITE Only Imm",
	0x64: "UD SEND Only", 0x65: "UD SEND Only Imm", 0x81: "CNP",
}

// opNameTab is opNames as an array: OpcodeName runs once per RoCEv2 frame
// of the one-line output, and a map lookup cost 8% of sfcdump read.
var opNameTab = func() (t [256]string) {
	for op, n := range opNames {
		t[op] = n
	}
	return t
}()

// OpcodeName names a RoCEv2 opcode ("RC WRITE Only", "CNP", or "op 0x..").
func OpcodeName(op uint8) string {
	if n := opNameTab[op]; n != "" {
		return n
	}
	return "op 0x" + strconv.FormatUint(uint64(op), 16)
}

func appendFlow(dst []byte, fl layers.Flow) []byte {
	dst = netip.AddrPortFrom(fl.Src, fl.SrcPort).AppendTo(dst)
	dst = append(dst, " > "...)
	dst = netip.AddrPortFrom(fl.Dst, fl.DstPort).AppendTo(dst)
	dst = append(dst, " proto "...)
	dst = AppendUint(dst, uint64(fl.Proto))
	dst = append(dst, " dscp "...)
	dst = AppendUint(dst, uint64(fl.DSCP))
	if fl.HasQP {
		dst = append(dst, " qp 0x"...)
		dst = appendHex24(dst, fl.QP)
	}
	return dst
}

func appendHex24(dst []byte, v uint32) []byte {
	return append(dst, hexDigits[v>>20&15], hexDigits[v>>16&15], hexDigits[v>>12&15],
		hexDigits[v>>8&15], hexDigits[v>>4&15], hexDigits[v&15])
}

func appendMAC(dst, m []byte) []byte { return AppendValue(dst, Value{Kind: KindMAC, B: m}, false) }

// summaryScan returns, from one pass over the decoded layers, the mask of
// the decoded layers (present.go's bits) and the frame's number of
// warnings (countWarnings, which was a second pass).
func summaryScan(p *layers.Parser) (m uint32, warnings int) {
	for _, t := range p.Decoded {
		bit := decBit(t)
		m |= bit
		if bit&decWarn != 0 {
			warnings += bits.OnesCount16(uint16(warningsOf(p, bit)))
		}
	}
	return m, warnings
}

// addrMemoLog is log2 of the address pairs an Encoder keeps the text of
// (addrMemo): a capture's frames mostly go between a few pairs.
const addrMemoLog = 4

// addrMemo keeps the summary's address column ("10.1.0.1 > 10.1.0.2",
// two MACs) of the last address pairs seen, each in the slot its key
// hashes to. The text is a function of the key alone, so a hit is the
// text appendAddrs writes. On the 2-vCPU VM of bench/ the summary of the
// first 64 frames of bench/gen's mix took 38 ns a frame without it, 31
// with it (the column was 4.6% of sfcdump read's CPU samples).
type addrMemo [1 << addrMemoLog]addrMemoEntry

// addrMemoEntry is one pair's column. k0 and k1 hold the addresses and
// their kind (k1's top octet: 4 for IPv4, 6 for MACs; 0 for an empty
// entry).
type addrMemoEntry struct {
	k0, k1 uint64
	n      uint8
	text   [39]byte // two MACs and " > ": 35 octets
}

// addrKey returns the memo key of the column appendAddrs writes for p,
// false for one it does not keep (IPv6, SLL, cut addresses).
func addrKey(p *layers.Parser, has uint32) (k0, k1 uint64, ok bool) {
	switch {
	case has&decIPv4 != 0:
		s, d := p.IPv4.SrcIP, p.IPv4.DstIP
		if len(s) != 4 || len(d) != 4 {
			return 0, 0, false
		}
		return uint64(binary.BigEndian.Uint32(s))<<32 | uint64(binary.BigEndian.Uint32(d)), 4 << 56, true
	case has&(decIPv6|decEth) == decEth:
		s, d := p.Eth.SrcMAC, p.Eth.DstMAC
		if len(s) != 6 || len(d) != 6 {
			return 0, 0, false
		}
		k0 = uint64(binary.BigEndian.Uint32(s))<<32 | uint64(binary.BigEndian.Uint16(s[4:]))<<16 | uint64(binary.BigEndian.Uint16(d))
		return k0, 6<<56 | uint64(binary.BigEndian.Uint32(d[2:])), true
	}
	return 0, 0, false
}

// appendAddrsMemo is appendAddrs through m.
func appendAddrsMemo(dst []byte, p *layers.Parser, has uint32, m *addrMemo) []byte {
	k0, k1, ok := addrKey(p, has)
	if !ok {
		return appendAddrs(dst, p, has)
	}
	h := (k0 ^ k1*0xC2B2AE3D27D4EB4F) * 0x9E3779B97F4A7C15
	e := &m[h>>(64-addrMemoLog)]
	if e.k0 == k0 && e.k1 == k1 {
		return append(dst, e.text[:e.n]...)
	}
	n := len(dst)
	dst = appendAddrs(dst, p, has)
	if t := dst[n:]; len(t) <= len(e.text) {
		e.k0, e.k1, e.n = k0, k1, uint8(copy(e.text[:], t))
	}
	return dst
}

func appendAddrs(dst []byte, p *layers.Parser, has uint32) []byte {
	switch {
	case has&decIPv4 != 0 && len(p.IPv4.SrcIP) == 4 && len(p.IPv4.DstIP) == 4:
		dst = appendIPv4(dst, p.IPv4.SrcIP)
		dst = append(dst, " > "...)
		dst = appendIPv4(dst, p.IPv4.DstIP)
	// An IP header cut before its addresses shows the MACs instead.
	case has&decIPv4 != 0 && len(p.IPv4.DstIP) > 0:
		dst = addrOf(p.IPv4.SrcIP).AppendTo(dst)
		dst = append(dst, " > "...)
		dst = addrOf(p.IPv4.DstIP).AppendTo(dst)
	case has&decIPv6 != 0 && len(p.IPv6.DstIP) > 0:
		dst = addrOf(p.IPv6.SrcIP).AppendTo(dst)
		dst = append(dst, " > "...)
		dst = addrOf(p.IPv6.DstIP).AppendTo(dst)
	case has&decEth != 0:
		dst = appendMAC(dst, p.Eth.SrcMAC)
		dst = append(dst, " > "...)
		dst = appendMAC(dst, p.Eth.DstMAC)
	case has&decSLL != 0:
		// A Linux cooked capture keeps the source link address only
		// (tshark shows "src →").
		addr := p.SLL.Addr
		if p.Has(glayers.LayerTypeLinuxSLL2) {
			addr = p.SLL2.Addr
		}
		if len(addr) == 6 {
			dst = appendMAC(dst, addr)
			dst = append(dst, " >"...)
		}
	}
	return dst
}

// AppendSummary appends the one-line description of f, without the frame
// number, time and interface columns: addresses, protocol and its key
// fields, "[malformed: reason]" for a decode error and "[N warnings]".
func AppendSummary(dst []byte, f *Frame) []byte { return appendSummary(dst, f, nil) }

// AppendSummary is the package's AppendSummary, the address column of
// recent address pairs kept in e rather than written again.
func (e *Encoder) AppendSummary(dst []byte, f *Frame) []byte {
	return appendSummary(dst, f, &e.addrs)
}

// appendSummary is AppendSummary with the address column through m, when
// not nil.
func appendSummary(dst []byte, f *Frame, m *addrMemo) []byte {
	p := f.P
	has, warnings := summaryWarnings(f)
	if m != nil {
		dst = appendAddrsMemo(dst, p, has, m)
	} else {
		dst = appendAddrs(dst, p, has)
	}
	dst = append(dst, ' ', ' ')
	if f.Err != nil && p.Failed != 0 {
		if name, ok := failedNames[p.Failed]; ok {
			// The layer that failed holds only part of its fields: name it,
			// show those it holds (what came before the cut or the fault),
			// and let the error say what is wrong.
			dst = append(dst, name...)
			dst = appendHeldFields(dst, f, failedProto[p.Failed])
			return appendTail(dst, f, warnings)
		}
	}
	switch {
	case has&decBTS != 0:
		m := &p.BTS
		dst = append(dst, "BTS pause "...)
		dst = AppendUint(dst, uint64(m.PauseUS))
		dst = append(dst, "us origin "...)
		dst = append(dst, m.Origin.String()...)
		if m.Cacheable {
			dst = append(dst, " C"...)
		}
		dst = append(dst, " reporter "...)
		dst = AppendUint(dst, uint64(m.Reporter))
		dst = append(dst, " depth "...)
		dst = AppendUint(dst, uint64(m.QueueDepth))
		dst = append(dst, " flow "...)
		dst = appendFlow(dst, m.Flow)
	case has&decCIM != 0:
		m := &p.CIM
		dst = append(dst, "CIM "...)
		if m.Add {
			dst = append(dst, "add"...)
		} else {
			dst = append(dst, "del"...)
		}
		dst = append(dst, " vid "...)
		dst = AppendUint(dst, uint64(m.VID))
		dst = append(dst, " msdu "...)
		dst = AppendUint(dst, uint64(m.MSDULen))
		if m.HasSFC {
			dst = append(dst, " sfc pause "...)
			dst = AppendUint(dst, uint64(m.SFC.PauseUS))
			dst = append(dst, "us origin "...)
			dst = append(dst, m.SFC.Origin.String()...)
			if m.SFC.Cacheable {
				dst = append(dst, " C"...)
			}
			dst = append(dst, " reporter "...)
			dst = AppendUint(dst, uint64(m.SFC.Reporter))
		}
		if fl, ok := m.Flow(); ok {
			dst = append(dst, " flow "...)
			dst = appendFlow(dst, fl)
		}
	case has&decPostcard != 0:
		m := &p.Postcard
		dst = append(dst, "POSTCARD switch "...)
		dst = appendMAC(dst, m.SwitchID)
		dst = append(dst, " port "...)
		dst = AppendUint(dst, uint64(m.Port))
		dst = append(dst, " I_p "...)
		dst = AppendUint(dst, uint64(m.IPBytes))
		dst = append(dst, " Q1 "...)
		dst = AppendUint(dst, uint64(m.Q1Bytes))
		dst = append(dst, " flow "...)
		dst = appendFlow(dst, m.Flow)
	case has&decBTH != 0:
		m := &p.BTH
		dst = append(dst, "RoCEv2 "...)
		dst = append(dst, OpcodeName(m.Opcode)...)
		dst = append(dst, " qp 0x"...)
		dst = appendHex24(dst, m.DestQP)
		if !m.IsCNP() {
			dst = append(dst, " psn "...)
			dst = AppendUint(dst, uint64(m.PSN))
		}
		if m.FECN {
			dst = append(dst, " FECN"...)
		}
		if m.BECN {
			dst = append(dst, " BECN"...)
		}
		if m.HasRETH() {
			dst = append(dst, " len "...)
			dst = AppendUint(dst, uint64(m.RETH.DMALen))
		}
		if m.ICRCChecked && !m.ICRCOK && f.CapLen >= f.Len {
			dst = append(dst, " [bad ICRC]"...)
		}
	case has&decPause != 0:
		dst = append(dst, "PAUSE quanta "...)
		dst = AppendUint(dst, uint64(p.Pause.Quanta))
		dst = appendPauseTime(dst, uint64(p.Pause.Quanta), f.LinkBPS)
	case has&decPFC != 0:
		m := &p.PFC
		dst = append(dst, "PFC"...)
		for i := 0; i < 8; i++ {
			if m.Enabled(i) {
				dst = append(dst, " p"...)
				dst = append(dst, byte('0'+i), '=')
				dst = AppendUint(dst, uint64(m.Times[i]))
				dst = appendPauseTime(dst, uint64(m.Times[i]), f.LinkBPS)
			}
		}
		if m.EnableVector&0xff == 0 {
			dst = append(dst, " (no priority enabled)"...)
		}
	case has&decBFC != 0:
		m := &p.BFC
		dst = append(dst, "BFC seq "...)
		dst = AppendUint(dst, uint64(m.Seq))
		dst = append(dst, " k "...)
		dst = AppendUint(dst, uint64(m.Hashes))
		dst = append(dst, " L "...)
		dst = AppendUint(dst, uint64(m.FilterLen))
		dst = append(dst, " bits "...)
		dst = strconv.AppendInt(dst, int64(m.BitsSet()), 10)
	case has&decFGCredit != 0:
		dst = append(dst, "FG-CREDIT"...)
		for _, e := range p.FGCredit.Entries {
			dst = append(dst, ' ')
			dst = e.Dst.AppendTo(dst)
			dst = append(dst, '=')
			dst = AppendUint(dst, uint64(e.Credits))
		}
	case has&decFGPause != 0:
		dst = append(dst, "FG-DSTPAUSE"...)
		for _, e := range p.FGPause.Entries {
			dst = append(dst, ' ')
			dst = e.Dst.AppendTo(dst)
			dst = append(dst, '=')
			if e.PauseUS == 0xffff { // wire.md §7.3
				dst = append(dst, "until-resumed"...)
				continue
			}
			dst = AppendUint(dst, uint64(e.PauseUS))
			dst = append(dst, "us"...)
		}
	case has&decUDP != 0:
		// A header cut short names only the ports it holds ("?" else).
		n := len(p.UDP.Contents)
		dst = append(dst, "UDP "...)
		dst = appendPortOr(dst, uint64(p.UDP.SrcPort), !p.UDP.Partial || n >= 2)
		dst = append(dst, " > "...)
		dst = appendPortOr(dst, uint64(p.UDP.DstPort), !p.UDP.Partial || n >= 4)
	case has&(decIPv4|decIPv6) != 0:
		dst = appendIPSummary(dst, p, has)
	case has&decEth != 0 && p.Eth.EthernetType == glayers.EthernetTypeLLC && p.Eth.Length > 0:
		// An 802.3 frame: the type field is a length (gopacket reads it
		// as EtherType 0, LLC); STP is one.
		dst = append(dst, "802.3 LLC, length "...)
		dst = strconv.AppendUint(dst, uint64(p.Eth.Length), 10)
	case has&decEth != 0 && p.Eth.EthernetType == layers.EthernetTypeMACControl && p.Has(layers.LayerTypeMACControl):
		// MAC Control of another opcode than PAUSE and PFC (EPON's Gate,
		// Report, ...): named by its opcode, as tshark does.
		dst = append(dst, "MAC Control opcode 0x"...)
		op := p.MACControl.Opcode
		dst = append(dst, hexDigits[op>>12], hexDigits[op>>8&15], hexDigits[op>>4&15], hexDigits[op&15])
	case has&decEth != 0 && p.EthPartial:
		// Cut before its type: the addresses alone (the tail says where).
		if n := len(dst); n > 0 && dst[n-1] == ' ' {
			dst = dst[:n-1]
		}
	case has&decEth != 0:
		dst = append(dst, "ethertype 0x"...)
		dst = strconv.AppendUint(dst, uint64(p.Eth.EthernetType), 16)
	}
	return appendTail(dst, f, warnings)
}

// appendIPSummary describes an IP packet that holds none of the formats
// above: a fragment ("fragment offset 1480 more id 0x5 proto 17"), ESP
// ("ESP spi 0x4242 seq 1, encrypted"), else its upper-layer protocol,
// behind any AH or IPv6 extension headers ("IP proto 6").
func appendIPSummary(dst []byte, p *layers.Parser, has uint32) []byte {
	proto, _ := p.IPProtocol()
	// A header cut before its protocol field says so, not "proto 0".
	if has&decIPv4 != 0 && p.IPv4.Partial && p.IPv4.IHL < 5 {
		dst = append(dst, "IP (bogus header length "...)
		dst = AppendUint(dst, uint64(p.IPv4.IHL)*4)
		return append(dst, ')')
	}
	if has&decIPv4 != 0 && p.IPv4.Partial && len(p.IPv4.Contents) < 10 || has&decIPv6 != 0 && p.IPv6.Partial && len(p.IPv6.Contents) < 7 {
		return append(dst, "IP (header cut short)"...)
	}
	if upperUnknown(p) {
		// Not "IP proto 0": 0 names the Hop-by-Hop header the cut fell
		// in, not what it carries.
		return append(dst, "IPv6 (extension headers cut short)"...)
	}
	if has&decIPv6Ext != 0 {
		for i := range p.IPv6Ext.N {
			h := &p.IPv6Ext.Headers[i]
			switch {
			case h.Type == layers.IPv6ESP:
				return appendESP(dst, h.SPI, h.Seq)
			case h.Type == layers.IPv6Fragment && (h.FragOffset != 0 || h.MoreFrags):
				return appendFragment(dst, uint64(h.FragOffset)*8, h.MoreFrags, uint64(h.FragID), proto)
			}
		}
	}
	if has&decESP != 0 {
		return appendESP(dst, p.ESP.SPI, p.ESP.Seq)
	}
	if has&decIPv4 != 0 && (p.IPv4.FragOffset != 0 || p.IPv4.Flags&glayers.IPv4MoreFragments != 0) {
		return appendFragment(dst, uint64(p.IPv4.FragOffset)*8, p.IPv4.Flags&glayers.IPv4MoreFragments != 0, uint64(p.IPv4.Id), proto)
	}
	dst = append(dst, "IP proto "...)
	return AppendUint(dst, uint64(proto))
}

// appendESP appends "ESP spi 0x4242 seq 1, encrypted".
func appendESP(dst []byte, spi, seq uint32) []byte {
	dst = append(dst, "ESP spi 0x"...)
	dst = strconv.AppendUint(dst, uint64(spi), 16)
	dst = append(dst, " seq "...)
	dst = AppendUint(dst, uint64(seq))
	return append(dst, ", encrypted"...)
}

// appendPortOr appends port, or "?" when the capture does not hold it.
func appendPortOr(dst []byte, port uint64, ok bool) []byte {
	if !ok {
		return append(dst, '?')
	}
	return AppendUint(dst, port)
}

func appendFragment(dst []byte, off uint64, more bool, id uint64, proto uint8) []byte {
	dst = append(dst, "fragment offset "...)
	dst = AppendUint(dst, off)
	if more {
		dst = append(dst, " more"...)
	}
	dst = append(dst, " id 0x"...)
	dst = strconv.AppendUint(dst, id, 16)
	dst = append(dst, " proto "...)
	return AppendUint(dst, uint64(proto))
}

var failedNames = map[gopacket.LayerType]string{
	layers.LayerTypePause: "PAUSE", layers.LayerTypePFC: "PFC", layers.LayerTypeMACControl: "MAC Control",
	layers.LayerTypeBTH: "RoCEv2", layers.LayerTypeCIM: "CIM", layers.LayerTypeBTS: "BTS",
	layers.LayerTypePostcard: "POSTCARD", layers.LayerTypeBFC: "BFC", layers.LayerTypeFGCredit: "FG-CREDIT",
	layers.LayerTypeFGPause: "FG-DSTPAUSE", glayers.LayerTypeIPSecAH: "AH", glayers.LayerTypeIPSecESP: "ESP",
}

// failedProto names the Protos entry of each layer in failedNames that
// has one.
var failedProto = map[gopacket.LayerType]string{
	layers.LayerTypePause: "pause", layers.LayerTypePFC: "pfc", layers.LayerTypeBTH: "bth", layers.LayerTypeCIM: "cim",
	layers.LayerTypeBTS: "bts", layers.LayerTypePostcard: "postcard", layers.LayerTypeBFC: "bfc",
	layers.LayerTypeFGCredit: "fgcredit", layers.LayerTypeFGPause: "fgpause", glayers.LayerTypeIPSecAH: "ah", glayers.LayerTypeIPSecESP: "esp",
}

// appendHeldFields appends, for the layer proto that failed part-way, the
// fields it holds (as -V lists them: not cut off, not of an unknown
// version) as " name=value", a true flag as " name", a false one left out:
// a frame cut short still shows everything before the cut on its line.
func appendHeldFields(dst []byte, f *Frame, proto string) []byte {
	pr, ok := byProto[proto] // ours (LookupProto may give Wireshark's)
	if !ok || !pr.present(f) {
		return dst
	}
	c, cut := CutOf(f)
	var vals []Value
	for _, fd := range pr.Fields {
		if cut && fd.cutOff(&c) || fd.versionOff(f) {
			continue
		}
		short := strings.TrimPrefix(fd.Name, proto+".")
		vals = fd.get(f, vals[:0])
		for _, v := range vals {
			if v.Kind == KindBool {
				if v.U != 0 {
					dst = append(dst, ' ')
					dst = append(dst, short...)
				}
				continue
			}
			dst = append(dst, ' ')
			dst = append(dst, short...)
			dst = append(dst, '=')
			dst = AppendValue(dst, v, fd.Hex)
		}
	}
	return dst
}

// appendTail appends the truncated, malformed and warnings marks (n
// warnings).
func appendTail(dst []byte, f *Frame, n int) []byte {
	if f.Err != nil || f.CapLen < f.Len {
		if c, ok := CutOf(f); ok && c.Truncated() {
			dst = append(dst, " [truncated at octet "...)
			dst = strconv.AppendInt(dst, int64(c.At), 10)
			dst = append(dst, ']')
		}
	}
	if f.Err != nil && errors.Is(f.Err, layers.ErrLinkType) {
		// Not malformed: of a link type no layer here decodes (an
		// 802.11 or USB interface beside the Ethernet ones), shown as
		// tshark shows it, undecoded.
		var de *layers.DecodeError
		if errors.As(f.Err, &de) {
			dst = append(dst, " ["...)
			dst = append(dst, de.Detail...)
			dst = append(dst, ", not decoded]"...)
		}
	} else if f.Err != nil {
		dst = append(dst, " [malformed: "...)
		dst = append(dst, errorText(f)...)
		dst = append(dst, ']')
	}
	if n > 0 {
		dst = append(dst, " ["...)
		dst = strconv.AppendInt(dst, int64(n), 10)
		dst = append(dst, " warning"...)
		if n > 1 {
			dst = append(dst, 's')
		}
		dst = append(dst, ']')
	}
	return dst
}

// summaryWarnings returns, from one pass over f's decoded layers, their
// mask (present.go's bits) and f's number of warnings as AppendWarnings
// lists them: countWarnings, but a layer type decoded twice (an IP header
// in IP) counts its length warning once. So it is positive exactly when
// countWarnings is.
func summaryWarnings(f *Frame) (has uint32, warnings int) {
	p := f.P
	has, warnings = summaryScan(p)
	if f.CapLen > f.Len {
		warnings++ // AppendWarnings' frame warning
	}
	warnings += lengthWarnings(f, has)
	if f.CapLen < f.Len && has&decBTH != 0 && p.BTH.Warnings&layers.WarnICRC != 0 {
		warnings-- // not an ICRC: the capture was snapped (layerWarnings)
	}
	if f.CapLen < f.Len && has&decPause != 0 && p.Pause.Warnings&snappedPad(f, p.Pause.Contents, p.Pause.Padding) != 0 ||
		f.CapLen < f.Len && has&decPFC != 0 && p.PFC.Warnings&snappedPad(f, p.PFC.Contents, p.PFC.Padding) != 0 {
		warnings-- // not short on the wire: snapped (layerWarnings)
	}
	return has, warnings
}

// countWarnings counts the warnings of every layer of f.
func countWarnings(f *Frame) int {
	n := 0
	if f.CapLen > f.Len {
		n++ // frameWarning
	}
	for i, t := range f.P.Decoded {
		// layerWarnings has none for the other layers: skip its search.
		if decBit(t)&(decWarn|decIPv4|decIPv6|decUDP) == 0 {
			continue
		}
		_, w := layerWarnings(f, i)
		n += bits.OnesCount16(uint16(w))
	}
	return n
}

// AppendTree appends the verbose tree of f: every protocol and field, one
// per line, then the warnings and the error.
func (e *Encoder) AppendTree(dst []byte, f *Frame) []byte {
	var c Cut
	cut := false
	if f.Err != nil || f.CapLen < f.Len {
		c, cut = CutOf(f)
	}
	in := PresenceOf(f)
	for i, p := range Protos {
		if !in.Has(i) {
			continue
		}
		dst = append(dst, "    "...)
		dst = append(dst, p.Name...)
		dst = append(dst, '\n')
		for _, fd := range p.Fields {
			if cut && fd.cutOff(&c) || fd.versionOff(f) {
				continue // cut off, or of an unknown version: absent, not 0
			}
			if fd.at != nil && p.entries != nil {
				continue // in the entry's subtree, below
			}
			e.vals = fd.get(f, e.vals[:0])
			for _, v := range e.vals {
				dst = appendTreeValue(dst, "        ", f, fd, v)
			}
		}
		if p.entries != nil {
			dst = appendTreeEntries(dst, f, p, &c, cut)
		}
	}
	dst = AppendWarnings(dst, f, "    warning: ", "\n")
	if cut && c.Truncated() {
		dst = append(dst, "    truncated at octet "...)
		dst = strconv.AppendInt(dst, int64(c.At), 10)
		dst = append(dst, '\n')
	}
	if f.Err != nil {
		dst = append(dst, "    error: "...)
		dst = append(dst, errorText(f)...)
		dst = append(dst, '\n')
	}
	return dst
}

// appendTreeValue appends the tree line of value v of field fd, indented
// by indent: "name: value", and the time of a time in quanta.
func appendTreeValue(dst []byte, indent string, f *Frame, fd *Field, v Value) []byte {
	dst = append(dst, indent...)
	dst = append(dst, fd.Name...)
	dst = append(dst, ": "...)
	dst = AppendValue(dst, v, fd.Hex)
	if fd.Forever != 0 && v.Kind == KindUint && v.U == fd.Forever {
		dst = append(dst, " (until resumed)"...)
	}
	if fd.Quanta && f.LinkBPS > 0 && (fd.counts == nil || fd.counts(f)) {
		dst = append(dst, " ("...)
		dst = appendMicros(dst, QuantaNS(v.U, f.LinkBPS))
		dst = append(dst, " us at "...)
		dst = AppendSpeed(dst, f.LinkBPS)
		dst = append(dst, ')')
	}
	return append(dst, '\n')
}

// appendTreeEntries appends the subtrees of a protocol with entries
// (Proto.entries), one per entry in order, headed by the protocol's
// entryName and the entry's number from 1 ("tag 1", "header 2"), with
// the fields that entry has.
func appendTreeEntries(dst []byte, f *Frame, p *Proto, c *Cut, cut bool) []byte {
	for i := range p.entries(f) {
		dst = append(dst, "        "...)
		dst = append(dst, p.entryName...)
		dst = append(dst, ' ')
		dst = AppendUint(dst, uint64(i+1))
		dst = append(dst, '\n')
		for _, fd := range p.Fields {
			if fd.at == nil || cut && fd.cutOff(c) || fd.versionOff(f) {
				continue
			}
			if v, ok := fd.at(f, i); ok {
				dst = appendTreeValue(dst, "            ", f, fd, v)
			}
		}
	}
	return dst
}

// appendPauseTime appends " (T us)", the time quanta ask for at bps
// (nothing when the speed is unknown), as the one-line summary shows it.
func appendPauseTime(dst []byte, quanta, bps uint64) []byte {
	if bps == 0 {
		return dst
	}
	dst = append(dst, " ("...)
	dst = appendMicros(dst, QuantaNS(quanta, bps))
	return append(dst, " us)"...)
}

// appendMicros appends ns nanoseconds as microseconds with 3 decimals.
func appendMicros(dst []byte, ns uint64) []byte {
	dst = AppendUint(dst, ns/1000)
	dst = append(dst, '.')
	r := ns % 1000
	return append(dst, byte('0'+r/100), byte('0'+r/10%10), byte('0'+r%10))
}

// AppendSpeed appends a link speed in bit/s the way it is written on the
// command line: 100G, 25G, 2.5G, 400M.
func AppendSpeed(dst []byte, bps uint64) []byte {
	switch {
	case bps >= 1e9 && bps%1e9 == 0:
		return append(AppendUint(dst, bps/1e9), 'G')
	case bps >= 1e9 && bps%1e8 == 0:
		return append(strconv.AppendFloat(dst, float64(bps)/1e9, 'f', -1, 64), 'G')
	case bps >= 1e6 && bps%1e6 == 0:
		return append(AppendUint(dst, bps/1e6), 'M')
	}
	return append(AppendUint(dst, bps), "b/s"...)
}
