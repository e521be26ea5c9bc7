// SPDX-License-Identifier: Apache-2.0

// Package layers decodes and encodes the packets datacenter switches and
// NICs use to signal congestion and pause traffic, as gopacket layers.
//
// Importing the package registers every format with gopacket (one init in
// register.go), so any gopacket program decodes them:
//
//	802.3x PAUSE, 802.1Qbb PFC    EtherType 0x8808       Pause, PFC
//	RoCEv2 BTH, RETH, AETH, CNP   UDP 4791               BTH (+ RETH, AETH, ImmDt, DETH, CNP)
//	802.1Qcz CIM (+ SFC TLV)      EtherType 0x89A2, UDP 35234   CIM
//	SFC back-to-sender            UDP 1021               BTS
//	PB-FS CC-postcard             UDP 1022               Postcard
//	BFC pause, Floodgate credit   EtherType 0x88B5       BFC, FGCredit, FGPause
//	and dst-pause                 (magic 0x4643)
//
// The wire formats are fixed by the project's specification (wire.md); each
// layer's doc comment draws its header. Field names in doc comments
// (bts.pause_us, flow.src, ...) are the names sfcdump's filters and JSON use.
//
// # Design
//
// Each layer implements gopacket.DecodingLayer and SerializableLayer.
// DecodeFromBytes slices the input and never copies it: layers hold
// sub-slices of the frame (quotes, MSDUs, filters), so a caller that keeps a
// layer beyond the frame's buffer must copy. Decoding through a
// DecodingLayerParser, or through this package's Parser, does not allocate.
//
// Two EtherTypes carry more than one format. gopacket.NewPacket goes
// straight to the right layer; a DecodingLayerParser needs one layer type per
// EtherType, so the zero-length demultiplexing layers MACControl (0x8808, by
// opcode) and FCExp (0x88B5, by magic and subtype) choose the next layer
// behind gopacket's Ethernet. This package's Ethernet and Dot1Q (wrappers of
// gopacket's, used by Parser) peek at the opcode or the magic and subtype
// themselves and name Pause, PFC, BFC, FGCredit or FGPause directly, sparing
// the parser a step; they leave the other cases to the demultiplexing
// layers. A 0x88B5 frame with another magic is not ours and decodes as a
// payload.
//
// VLAN tags decode as Dot1Q layers, one per tag, for the three TPIDs
// switches send (IsVLANTPID): 0x8100, 0x88A8 and 0x9100, the pre-802.1ad
// QinQ TPID, which gopacket does not know and the package registers with
// it (EthernetTypeQinQ9100) as Wireshark decodes it by default. Parser
// records each tag of a frame, outer first, with its TPID and the
// EtherType after it (Dot1Q.Tags), up to MaxVLANTags (20, Wireshark's
// limit); behind that many, yet another tag and what follows it are a
// payload.
//
// The BTH owns the extension headers its opcode implies (RETH, AETH,
// immediate data, DETH, the CNP body): it decodes them into its fields and
// writes them on serialize, so a RoCEv2 packet serializes as Ethernet, IP,
// UDP, BTH, payload. NewPacket also lists each extension header as a layer of
// its own, with its Contents and Payload; DecodeFromBytes, and so a
// DecodingLayerParser and Parser, leaves those two empty, since there the
// headers are fields of the BTH, not layers (their slices were a tenth of
// a BTH decode). The ICRC needs the IP and UDP headers: NewPacket and Parser check
// it on decode (BTH.ICRCOK), and SerializeTo computes it with
// ComputeChecksums once told the layers (BTH.SetNetworkLayerForICRC), the
// way UDP's checksum needs SetNetworkLayerForChecksum.
//
// BTS, CIM and postcard quotes name a Flow (5-tuple, DSCP and, for RoCEv2,
// the destination QP) with DecodeQuote, without allocating. BTS and
// Postcard decode it into their Flow field; CIM checks that its MSDU names
// one (HasFlow, WarnNoFlow) and decodes it on demand with CIM.Flow, since
// an MSDU is often carried along unread and building the flow was 40% of
// a CIM decode. BFC's flow hash (VFID) and the stage hashes of wire.md
// §7.1 (BFCPolynomials, BFCHash, BFCFlowHashes, StageIndex, FilterMatches,
// SetFilterBit) are exported so the models, the scenarios and the tests
// share one implementation. BFC pause frames are written in version 2;
// version 1 frames decode with WarnBFCVersion1 and are read with their own
// (degenerate) stage hashes.
//
// IPv6 extension headers (Hop-by-Hop, Destination Options, Routing of any
// type, Fragment, AH; ESP ends decoding with WarnEncrypted) are one layer,
// IPv6Ext, which this package's IPv6 names when the fixed header's Next
// Header is one, so Parser finds RoCEv2 and the signal formats behind any
// chain, without allocating; Parser.IPProtocol names the upper layer. A
// fragment that is not atomic is never decoded as RoCEv2 or a signal, on
// either path. In IPv4, an IPsec AH (IP protocol 51) is IPSecAH, behind
// which Parser decodes on (Parser.IPProtocol names the protocol behind it;
// the IPv4 header's own stays 51), and ESP (50) is IPSecESP, which ends
// decoding with WarnEncrypted. The RoCEv2 ICRC is not checked behind
// extension headers nor an AH. Parser.DecodeLink decodes the other link types sfcdump reads:
// Linux cooked captures (SLL, SLL2) and raw IP.
//
// # Errors and warnings
//
// Malformed input returns a *DecodeError naming the layer, the field and the
// octet offset, wrapping a sentinel (ErrTruncated, ErrLength,
// ErrQuoteTooShort, ErrTLVLength, ErrVersion, ErrBadValue) for errors.Is.
// Fields decoded before the error stay in the layer. Conditions that are not
// errors (reserved bits set, PFC to a wrong MAC, CIM MSDU length outside
// 48..512, ICRC mismatch) are Warnings on the layer; they never stop
// decoding. Trailing octets after a structure are Padding, not an error.
//
// # Configurable ports
//
// The CIM, BTS and postcard UDP ports are registered at their defaults and
// can be moved at run time with RegisterUDPPort, the way Wireshark's
// "decode as" works.
package layers
