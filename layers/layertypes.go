// SPDX-License-Identifier: Apache-2.0

package layers

import "github.com/gopacket/gopacket"

// Layer type numbers of this package. They live in gopacket's range for
// third-party layers, 1500-1599, all in this one block so a newcomer sees
// every number at once and two layers can never collide.
var (
	// LayerTypeMACControl is the demultiplexing layer for EtherType 0x8808
	// (PAUSE, PFC). Only DecodingLayerParser produces it; NewPacket goes
	// straight to the opcode's layer.
	LayerTypeMACControl = gopacket.RegisterLayerType(1500, gopacket.LayerTypeMetadata{Name: "MACControl", Decoder: gopacket.DecodeFunc(decodeMACControl)})
	// LayerTypePause is an IEEE 802.3x PAUSE frame (wire.md §1).
	LayerTypePause = gopacket.RegisterLayerType(1501, gopacket.LayerTypeMetadata{Name: "Pause", Decoder: gopacket.DecodeFunc(decodePause)})
	// LayerTypePFC is an IEEE 802.1Qbb priority flow control frame (wire.md §2).
	LayerTypePFC = gopacket.RegisterLayerType(1502, gopacket.LayerTypeMetadata{Name: "PFC", Decoder: gopacket.DecodeFunc(decodePFC)})
	// LayerTypeBTH is the RoCEv2 base transport header with the extension
	// headers its opcode implies, the pad and the ICRC (wire.md §3).
	LayerTypeBTH = gopacket.RegisterLayerType(1503, gopacket.LayerTypeMetadata{Name: "BTH", Decoder: gopacket.DecodeFunc(decodeBTH)})
	// LayerTypeRETH is the RDMA extended transport header (wire.md §3.2).
	LayerTypeRETH = gopacket.RegisterLayerType(1504, gopacket.LayerTypeMetadata{Name: "RETH", Decoder: gopacket.DecodeFunc(decodeRETH)})
	// LayerTypeAETH is the ACK extended transport header (wire.md §3.2).
	LayerTypeAETH = gopacket.RegisterLayerType(1505, gopacket.LayerTypeMetadata{Name: "AETH", Decoder: gopacket.DecodeFunc(decodeAETH)})
	// LayerTypeImmDt is the immediate data extension header (wire.md §3.2).
	LayerTypeImmDt = gopacket.RegisterLayerType(1506, gopacket.LayerTypeMetadata{Name: "ImmDt", Decoder: gopacket.DecodeFunc(decodeImmDt)})
	// LayerTypeCNP is a RoCEv2 congestion notification packet body (wire.md §3.2).
	LayerTypeCNP = gopacket.RegisterLayerType(1507, gopacket.LayerTypeMetadata{Name: "CNP", Decoder: gopacket.DecodeFunc(decodeCNP)})
	// LayerTypeCIM is an IEEE 802.1Qcz congestion isolation message, L2 or
	// L3, with the SFC pause extension (wire.md §4).
	LayerTypeCIM = gopacket.RegisterLayerType(1508, gopacket.LayerTypeMetadata{Name: "CIM", Decoder: gopacket.DecodeFunc(decodeCIM)})
	// LayerTypeBTS is an SFC back-to-sender message (wire.md §5).
	LayerTypeBTS = gopacket.RegisterLayerType(1509, gopacket.LayerTypeMetadata{Name: "BTS", Decoder: gopacket.DecodeFunc(decodeBTS)})
	// LayerTypePostcard is a PB-FS CC-postcard (wire.md §6).
	LayerTypePostcard = gopacket.RegisterLayerType(1510, gopacket.LayerTypeMetadata{Name: "Postcard", Decoder: gopacket.DecodeFunc(decodePostcard)})
	// LayerTypeFCExp is the demultiplexing layer for EtherType 0x88B5 behind
	// the magic 0x4643 (wire.md §7). Only DecodingLayerParser produces it.
	LayerTypeFCExp = gopacket.RegisterLayerType(1511, gopacket.LayerTypeMetadata{Name: "FCExp", Decoder: gopacket.DecodeFunc(decodeFCExp)})
	// LayerTypeBFC is a BFC Bloom-filter pause frame (wire.md §7.1).
	LayerTypeBFC = gopacket.RegisterLayerType(1512, gopacket.LayerTypeMetadata{Name: "BFC", Decoder: gopacket.DecodeFunc(decodeBFC)})
	// LayerTypeFGCredit is a Floodgate credit frame (wire.md §7.2).
	LayerTypeFGCredit = gopacket.RegisterLayerType(1513, gopacket.LayerTypeMetadata{Name: "FGCredit", Decoder: gopacket.DecodeFunc(decodeFGCredit)})
	// LayerTypeFGPause is a Floodgate dst-pause frame (wire.md §7.3).
	LayerTypeFGPause = gopacket.RegisterLayerType(1514, gopacket.LayerTypeMetadata{Name: "FGPause", Decoder: gopacket.DecodeFunc(decodeFGPause)})
	// LayerTypeDETH is the datagram extended transport header of UD
	// operations; decoded so that the payload of a UD SEND starts right.
	LayerTypeDETH = gopacket.RegisterLayerType(1515, gopacket.LayerTypeMetadata{Name: "DETH", Decoder: gopacket.DecodeFunc(decodeDETH)})
	// LayerTypeIPv6Ext is the chain of IPv6 extension headers between the
	// fixed header and the upper-layer header (IPv6Ext).
	LayerTypeIPv6Ext = gopacket.RegisterLayerType(1516, gopacket.LayerTypeMetadata{Name: "IPv6Ext", Decoder: gopacket.DecodeFunc(decodeIPv6Ext)})
)
