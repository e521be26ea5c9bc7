// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"sync"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Default UDP ports (wire.md, code points). The CIM, BTS and postcard
// ports are configurable: see RegisterUDPPort.
const (
	DefaultCIMPort      = 35234
	DefaultBTSPort      = 1021
	DefaultPostcardPort = 1022
)

// Every gopacket hook of this package, in one place: the EtherTypes (ours,
// and the VLAN TPID 0x9100) and the UDP ports at their defaults.
func init() {
	layers.EthernetTypeMetadata[EthernetTypeMACControl] = layers.EnumMetadata{
		DecodeWith: gopacket.DecodeFunc(decodeMACControl), Name: "MACControl", LayerType: LayerTypeMACControl}
	layers.EthernetTypeMetadata[EthernetTypeCIM] = layers.EnumMetadata{
		DecodeWith: gopacket.DecodeFunc(decodeCIM), Name: "CIM", LayerType: LayerTypeCIM}
	layers.EthernetTypeMetadata[EthernetTypeFCExp] = layers.EnumMetadata{
		DecodeWith: gopacket.DecodeFunc(decodeFCExp), Name: "FCExp", LayerType: LayerTypeFCExp}
	// TPID 0x9100 is a VLAN tag, as gopacket has 0x88A8 and Wireshark
	// decodes it (vlan.qinq_ethertype): gopacket left it unknown, and the
	// frame's payload with it.
	layers.EthernetTypeMetadata[EthernetTypeQinQ9100] = layers.EnumMetadata{
		DecodeWith: layers.LayerTypeDot1Q, Name: "Dot1Q", LayerType: layers.LayerTypeDot1Q}
	// An atomic IPv6 fragment (RFC 6946) holds the whole packet: decode on
	// behind it, where gopacket's decoder leaves every fragment a Fragment.
	gopacket.OverrideLayerType(int(layers.LayerTypeIPv6Fragment), gopacket.LayerTypeMetadata{
		Name: "IPv6Fragment", Decoder: gopacket.DecodeFunc(decodeIPv6Fragment)})
	layers.IPProtocolMetadata[layers.IPProtocolIPv6Fragment].DecodeWith = gopacket.DecodeFunc(decodeIPv6Fragment)
	portMu.Lock()
	setUDPPort(RoCEv2Port, LayerTypeBTH)
	bthIndex = udpTable[RoCEv2Port]
	setUDPPort(DefaultCIMPort, LayerTypeCIM)
	setUDPPort(DefaultBTSPort, LayerTypeBTS)
	setUDPPort(DefaultPostcardPort, LayerTypePostcard)
	ports[LayerTypeCIM] = []uint16{DefaultCIMPort}
	ports[LayerTypeBTS] = []uint16{DefaultBTSPort}
	ports[LayerTypePostcard] = []uint16{DefaultPostcardPort}
	ports[LayerTypeBTH] = []uint16{RoCEv2Port}
	portMu.Unlock()
}

var (
	portMu sync.Mutex
	ports  = map[gopacket.LayerType][]uint16{}
)

// RegisterUDPPort makes UDP port decode as layer type lt (LayerTypeBTS,
// LayerTypePostcard, LayerTypeCIM or LayerTypeBTH), for gopacket.NewPacket,
// DecodingLayerParser and this package's Parser alike, the way Wireshark's
// "decode as" works. The defaults stay registered; call UnregisterUDPPort
// to release one. Like gopacket's own registry it must not race with
// decoding: call it before decoding starts.
func RegisterUDPPort(port uint16, lt gopacket.LayerType) {
	portMu.Lock()
	defer portMu.Unlock()
	setUDPPort(port, lt)
	for t, ps := range ports {
		ports[t] = remove(ps, port)
	}
	ports[lt] = append(ports[lt], port)
}

// UnregisterUDPPort makes port decode as a plain payload again.
func UnregisterUDPPort(port uint16) {
	portMu.Lock()
	defer portMu.Unlock()
	setUDPPort(port, gopacket.LayerTypePayload)
	for t, ps := range ports {
		ports[t] = remove(ps, port)
	}
}

// UDPPorts returns the UDP ports registered for layer type lt.
func UDPPorts(lt gopacket.LayerType) []uint16 {
	portMu.Lock()
	defer portMu.Unlock()
	return append([]uint16(nil), ports[lt]...)
}

func remove(ps []uint16, p uint16) []uint16 {
	out := ps[:0]
	for _, q := range ps {
		if q != p {
			out = append(out, q)
		}
	}
	return out
}
