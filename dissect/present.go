// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"math/bits"

	"github.com/gopacket/gopacket"
	glayers "github.com/gopacket/gopacket/layers"

	"github.com/opensfc/sfc/layers"
)

// Presence says which protocols of Protos a frame holds: bit i is
// Protos[i].Present(f). PresenceOf finds them all in one pass over the
// frame's decoded layers, where calling Present for each protocol walks
// the decoded layers some 25 times (Parser.Has per protocol and per
// derived protocol): a third of sfcdump stats' CPU before.
type Presence uint64

// Has reports whether the frame holds Protos[i].
func (s Presence) Has(i int) bool { return s&(1<<uint(i)) != 0 }

// Each reports the index of every protocol the frame holds, in order.
func (s Presence) Each(fn func(i int)) {
	for ; s != 0; s &= s - 1 {
		fn(bits.TrailingZeros64(uint64(s)))
	}
}

// The layers the presence rules look at, as bits of a mask.
const (
	decEth = 1 << iota
	decIPv4
	decIPv6
	decUDP
	decPause
	decPFC
	decBTH
	decCIM
	decBTS
	decPostcard
	decBFC
	decFGCredit
	decFGPause
	decIPv6Ext
	decSLL   // Linux cooked capture, v1 or v2
	decAH    // an IPv4 AH (layers.IPSecAH)
	decESP   // an IPv4 ESP header (layers.IPSecESP)
	decDot1Q // a VLAN tag (one layer per tag)
)

// decBit returns the mask bit of layer type t, 0 for the others. Layer
// types are variables, not constants: a switch on them compares one by
// one, so the bits are looked up in a table made at init.
func decBit(t gopacket.LayerType) uint32 {
	if uint(t) < uint(len(decBits)) {
		return decBits[t]
	}
	return 0
}

var decBits = func() (tab [2048]uint32) {
	for lt, bit := range map[gopacket.LayerType]uint32{
		glayers.LayerTypeEthernet: decEth, glayers.LayerTypeIPv4: decIPv4, glayers.LayerTypeIPv6: decIPv6,
		glayers.LayerTypeUDP: decUDP, layers.LayerTypePause: decPause, layers.LayerTypePFC: decPFC,
		layers.LayerTypeBTH: decBTH, layers.LayerTypeCIM: decCIM, layers.LayerTypeBTS: decBTS,
		layers.LayerTypePostcard: decPostcard, layers.LayerTypeBFC: decBFC, layers.LayerTypeFGCredit: decFGCredit,
		layers.LayerTypeFGPause: decFGPause, layers.LayerTypeIPv6Ext: decIPv6Ext,
		glayers.LayerTypeLinuxSLL: decSLL, glayers.LayerTypeLinuxSLL2: decSLL,
		glayers.LayerTypeIPSecAH: decAH, glayers.LayerTypeIPSecESP: decESP, glayers.LayerTypeDot1Q: decDot1Q,
	} {
		if uint(lt) >= uint(len(tab)) {
			panic("dissect: layer type past the table")
		}
		tab[lt] = bit
	}
	return tab
}()

// warningsOf returns the warnings of the layer whose mask bit is bit.
func warningsOf(p *layers.Parser, bit uint32) layers.Warnings {
	switch bit {
	case decPause:
		return p.Pause.Warnings
	case decPFC:
		return p.PFC.Warnings
	case decBTH:
		return p.BTH.Warnings
	case decCIM:
		return p.CIM.Warnings
	case decBTS:
		return p.BTS.Warnings
	case decPostcard:
		return p.Postcard.Warnings
	case decBFC:
		return p.BFC.Warnings
	case decFGCredit:
		return p.FGCredit.Warnings
	case decFGPause:
		return p.FGPause.Warnings
	case decIPv6Ext:
		return p.IPv6Ext.Warnings
	case decESP:
		return p.ESP.Warnings
	case decIPv4:
		return p.IPv4.Warnings // its option's; the length's is lengthWarnings'
	}
	return 0
}

// decWarn are the layers that have warnings.
const decWarn = decPause | decPFC | decBTH | decCIM | decBTS | decPostcard | decBFC | decFGCredit | decFGPause | decIPv6Ext | decESP | decIPv4

// presenceRule is how PresenceOf decides one protocol: the same test as
// its present function (fields.go), on the mask.
type presenceRule struct {
	kind uint8
	lt   gopacket.LayerType // ruleLayer: has(lt)
	bit  uint32             // ruleLayer: lt's mask bit
}

const (
	ruleCall  = iota // call the protocol's present function
	ruleLayer        // has(lt): decoded, or the layer that failed
	ruleIP           // IPv4 or IPv6 decoded
	ruleRETH         // BTH decoded (or failed after it) and its RETH decoded
	ruleAETH         // BTH decoded (or failed after it) and its AETH decoded
	ruleCNP          // BTH decoded (or failed after it) and its CNP body decoded
	ruleFlow         // quoteFlow: a BTS, a postcard, or a CIM with a flow
	ruleSLL          // a Linux cooked capture header, v1 or v2
	ruleAH           // hasAH: an IPv4 AH, or one in the IPv6 extension headers
	ruleESP          // hasESP: the same for ESP
)

// presenceRules[i] is the rule of Protos[i] (ruleCall for a protocol added
// without one: still right, only slower). TestPresenceOf checks the rules
// against the present functions.
var presenceRules = func() []presenceRule {
	layerOf := map[string]gopacket.LayerType{
		"eth": glayers.LayerTypeEthernet, "udp": glayers.LayerTypeUDP, "pause": layers.LayerTypePause,
		"pfc": layers.LayerTypePFC, "bth": layers.LayerTypeBTH, "cim": layers.LayerTypeCIM, "bts": layers.LayerTypeBTS,
		"postcard": layers.LayerTypePostcard, "bfc": layers.LayerTypeBFC, "fgcredit": layers.LayerTypeFGCredit,
		"fgpause": layers.LayerTypeFGPause, "ipv6ext": layers.LayerTypeIPv6Ext, "vlan": glayers.LayerTypeDot1Q,
	}
	other := map[string]uint8{"ip": ruleIP, "reth": ruleRETH, "aeth": ruleAETH, "cnp": ruleCNP, "flow": ruleFlow, "sll": ruleSLL,
		"ah": ruleAH, "esp": ruleESP}
	rs := make([]presenceRule, len(Protos))
	for i, p := range Protos {
		if lt, ok := layerOf[p.Name]; ok {
			rs[i] = presenceRule{kind: ruleLayer, lt: lt, bit: decBit(lt)}
		} else {
			rs[i] = presenceRule{kind: other[p.Name]} // ruleCall when absent
		}
	}
	if len(Protos) > 64 {
		panic("dissect: more than 64 protocols for Presence")
	}
	return rs
}()

// presenceMasks are presenceRules as masks of Presence, so that PresenceOf
// tests each decoded layer once rather than each protocol.
type presenceMasks struct {
	byBit                                   [32]Presence // ruleLayer protocols, by their layer's mask bit
	ip, reth, aeth, cnp, flow, sll, ah, esp Presence
	layer, call                             []int // the ruleLayer and ruleCall protocols
}

var presence = func() (m presenceMasks) {
	for i, r := range presenceRules {
		bit := Presence(1) << uint(i)
		switch r.kind {
		case ruleLayer:
			if r.bit != 0 {
				m.byBit[bits.TrailingZeros32(r.bit)] |= bit
			}
			m.layer = append(m.layer, i)
		case ruleIP:
			m.ip |= bit
		case ruleRETH:
			m.reth |= bit
		case ruleAETH:
			m.aeth |= bit
		case ruleCNP:
			m.cnp |= bit
		case ruleFlow:
			m.flow |= bit
		case ruleSLL:
			m.sll |= bit
		case ruleAH:
			m.ah |= bit
		case ruleESP:
			m.esp |= bit
		default:
			m.call = append(m.call, i)
		}
	}
	return m
}()

// PresenceOf returns the protocols f holds: Protos[i].Present(f) for
// every i, in one pass over f's decoded layers.
func PresenceOf(f *Frame) Presence {
	p := f.P
	var dec uint32
	for _, t := range p.Decoded {
		dec |= decBit(t)
	}
	m := &presence
	var s Presence
	for d := dec; d != 0; d &= d - 1 {
		s |= m.byBit[bits.TrailingZeros32(d)]
	}
	if f.Err != nil {
		// The layer that failed counts when it kept its fixed header (as has).
		for _, i := range m.layer {
			r := &presenceRules[i]
			if p.Failed == r.lt && p.FailedLen >= gopacketHeader[r.lt] {
				s |= 1 << uint(i)
			}
		}
	}
	if dec&(decIPv4|decIPv6) != 0 {
		s |= m.ip
	}
	// The BTH decoded, or failed keeping the extension headers it decoded
	// whole (bthExt).
	if dec&decBTH != 0 || p.Failed == layers.LayerTypeBTH && f.Err != nil {
		if p.BTH.ExtDecoded(layers.LayerTypeRETH) {
			s |= m.reth
		}
		if p.BTH.ExtDecoded(layers.LayerTypeAETH) {
			s |= m.aeth
		}
		if p.BTH.ExtDecoded(layers.LayerTypeCNP) {
			s |= m.cnp
		}
	}
	if dec&decSLL != 0 {
		s |= m.sll
	}
	// An AH or ESP: IPv4's layer, or in the IPv6 chain (a failed layer
	// counts too, as has).
	if dec&(decAH|decESP|decIPv6Ext) != 0 || f.Err != nil {
		if hasAH(f) {
			s |= m.ah
		}
		if hasESP(f) {
			s |= m.esp
		}
	}
	if dec&(decBTS|decPostcard) != 0 || dec&decCIM != 0 && p.CIM.HasFlow {
		s |= m.flow
	}
	for _, i := range m.call {
		if Protos[i].present(f) {
			s |= 1 << uint(i)
		}
	}
	return s
}
