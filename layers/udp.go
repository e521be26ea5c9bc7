package layers

import (
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// UDP is gopacket's UDP layer with a faster choice of the next layer: the
// ports registered with this package's RegisterUDPPort (RoCEv2, BTS,
// postcard, CIM, and any moved at run time) are looked up in a flat table
// instead of gopacket's map, which costs about 16 ns a frame. Other ports
// go to gopacket's own lookup, in the same order (destination port, then
// source port). Use it in a DecodingLayerParser in place of layers.UDP;
// Parser does. Every field and method of layers.UDP is promoted.
type UDP struct {
	layers.UDP
}

// NextLayerType returns the layer type of the destination port, else of
// the source port, as gopacket's UDP does.
func (u *UDP) NextLayerType() gopacket.LayerType {
	if t := udpTable[u.DstPort]; t != 0 {
		return udpTypes[t]
	}
	if t := udpTable[u.SrcPort]; t != 0 && u.DstPort.LayerType() == gopacket.LayerTypePayload {
		return udpTypes[t]
	}
	return u.UDP.NextLayerType()
}

// udpTable maps a port to an index into udpTypes; 0 is "not ours".
var (
	udpTable [65536]uint8
	udpTypes = []gopacket.LayerType{gopacket.LayerTypePayload}
)

// isBTHPort reports whether UDP port p is registered for the BTH (4791
// unless RegisterUDPPort moved it): a quote whose UDP destination port it
// is holds a BTH, and names its DestQP.
func isBTHPort(p uint16) bool { return udpTable[p] == bthIndex }

// bthIndex is the BTH's index in udpTypes, which init gives it first and
// which stays the same whatever ports come and go.
var bthIndex uint8

// setUDPPort records port → lt in gopacket's registry and in udpTable
// (lt == LayerTypePayload clears it). Callers hold portMu.
func setUDPPort(port uint16, lt gopacket.LayerType) {
	layers.RegisterUDPPortLayerType(layers.UDPPort(port), lt)
	if lt == gopacket.LayerTypePayload {
		udpTable[port] = 0
		return
	}
	for i, t := range udpTypes {
		if t == lt {
			udpTable[port] = uint8(i)
			return
		}
	}
	udpTypes = append(udpTypes, lt)
	udpTable[port] = uint8(len(udpTypes) - 1)
}

// IPv4 is gopacket's IPv4 layer that also checks the version nibble:
// gopacket decodes any version behind EtherType 0x0800, so a frame with
// version 5 would decode as IPv4 where Wireshark and the reference models
// call it malformed. Parser uses it; every field of layers.IPv4 is
// promoted.
type IPv4 struct {
	layers.IPv4
}

// DecodeFromBytes rejects a version other than 4 (ErrVersion), then
// decodes as gopacket does.
func (ip *IPv4) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) > 0 && data[0]>>4 != 4 {
		ip.IPv4 = layers.IPv4{}
		return errAt("ipv4", "version", 0, ErrVersion, "version nibble is not 4")
	}
	return ip.IPv4.DecodeFromBytes(data, df)
}

// IPv6 is gopacket's IPv6 layer that also checks the version nibble, as
// IPv4 does. Parser uses it.
type IPv6 struct {
	layers.IPv6
}

// DecodeFromBytes rejects a version other than 6 (ErrVersion), then
// decodes as gopacket does.
func (ip *IPv6) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) > 0 && data[0]>>4 != 6 {
		ip.IPv6 = layers.IPv6{}
		return errAt("ipv6", "version", 0, ErrVersion, "version nibble is not 6")
	}
	return ip.IPv6.DecodeFromBytes(data, df)
}
