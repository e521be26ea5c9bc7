// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"encoding/binary"
	"net"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Ethernet is gopacket's Ethernet layer with a faster choice of the next
// layer for the EtherTypes that carry several of our formats:
//
//	EtherType 0x8808, opcode 0x0001 / 0x0101        → Pause / PFC
//	EtherType 0x88B5, magic 0x4643, subtype 1, 2, 3 → BFC / FGCredit / FGPause
//	                  (the first octets of the payload)
//
// It peeks at the opcode, or at the magic and subtype, and names the
// format's layer itself, so a DecodingLayerParser goes straight to it
// instead of through the demultiplexing layer MACControl or FCExp (each
// step of a DecodingLayerParser costs about as much as a small layer's
// decode). Every other case (an opcode cut short or unknown, another
// magic, an unknown subtype, any other EtherType) is left to gopacket's
// choice, so the demultiplexing layers still report what they report for
// layers.Ethernet. Its layer type is layers.LayerTypeEthernet; every field
// and method of layers.Ethernet is promoted. Use it in a
// DecodingLayerParser in place of layers.Ethernet; Parser does.
type Ethernet struct {
	layers.Ethernet
}

// DecodeFromBytes is layers.Ethernet's, field for field: the same slices
// of data (capacities included) and the same errors, a length field below
// 0x0600 (LLC) and a header cut short left to it. It stores each field
// itself: gopacket's builds the BaseLayer aside and copies it in, a
// store-forwarding stall that made it 12% of decoding and rendering
// bench/gen's mix (15 ns a frame on the 2-vCPU VM of bench/).
func (e *Ethernet) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < 14 || data[12] < 0x06 {
		return e.Ethernet.DecodeFromBytes(data, df)
	}
	e.DstMAC = net.HardwareAddr(data[0:6])
	e.SrcMAC = net.HardwareAddr(data[6:12])
	e.EthernetType = layers.EthernetType(binary.BigEndian.Uint16(data[12:14]))
	e.Contents = data[:14]
	e.Payload = data[14:]
	e.Length = 0
	return nil
}

// partial keeps the addresses of a header cut after them (12 or 13
// octets), as Wireshark shows them, and returns the error of the cut
// (Parser.EthPartial says it happened).
func (e *Ethernet) partial(data []byte, df gopacket.DecodeFeedback) error {
	e.Ethernet = layers.Ethernet{}
	e.DstMAC, e.SrcMAC = net.HardwareAddr(data[0:6:6]), net.HardwareAddr(data[6:12:12])
	e.Contents, e.Payload = data, nil
	df.SetTruncated()
	return cutAt("eth", ethFieldEnds, len(data), 14)
}

var ethFieldEnds = []fieldEnd{{"dst", 6}, {"src", 12}, {"type", 14}}

// NextLayerType returns our format's layer type for a MAC Control or
// 0x88B5 frame that names one, else what layers.Ethernet returns.
func (e *Ethernet) NextLayerType() gopacket.LayerType {
	if t := l2Next(e.EthernetType, e.Payload); t != gopacket.LayerTypeZero {
		return t
	}
	return e.Ethernet.NextLayerType()
}

// EthernetTypeQinQ9100 is TPID 0x9100, the VLAN tag of the "QinQ" switches
// that predate 802.1ad (which took 0x88A8), still sent by many. Wireshark
// decodes it as an 802.1Q tag (its vlan.qinq_ethertype preference, 0x9100
// by default); this package registers it with gopacket as gopacket
// registers 0x88A8, so it decodes as a Dot1Q layer wherever a frame is read
// (Ethernet, Linux cooked captures, behind another tag).
const EthernetTypeQinQ9100 layers.EthernetType = 0x9100

// IsVLANTPID reports whether EtherType et opens a VLAN tag that this
// package decodes as a Dot1Q layer: 0x8100 (802.1Q), 0x88A8 (802.1ad) or
// 0x9100 (the pre-802.1ad QinQ TPID).
func IsVLANTPID(et layers.EthernetType) bool {
	return et == layers.EthernetTypeDot1Q || et == layers.EthernetTypeQinQ || et == EthernetTypeQinQ9100
}

// MaxVLANTags is how many VLAN tags of one frame Dot1Q decodes: Wireshark
// 4.0's limit ("Too many nested VLAN tags" after 20; it counts its vlan
// tags, 0x8100 and 0x9100, where this counts 802.1ad tags too). Behind
// that many, a frame whose next EtherType opens yet another tag is not
// decoded further: the rest is a payload, neither IP nor a signal, as in
// Wireshark. device.Parse walks as many (device.MaxVLANTags).
const MaxVLANTags = 20

// Dot1Q is gopacket's 802.1Q layer with the next-layer choice of Ethernet,
// so a VLAN-tagged PAUSE, PFC, BFC or Floodgate frame skips the
// demultiplexing layer too. It decodes a tag of any TPID IsVLANTPID
// names (0x8100, 0x88A8, 0x9100), stacked in any order, up to
// MaxVLANTags of them. Its layer type is layers.LayerTypeDot1Q; every
// field and method of layers.Dot1Q is promoted. Parser uses it.
type Dot1Q struct {
	layers.Dot1Q
	// Tags are the frame's VLAN tags, outer first (QinQ stacks them; the
	// promoted fields are the last one decoded, the inner); NTags of them
	// are valid, at most MaxVLANTags. Parser resets them per frame and
	// fills in each tag's TPID; a DecodingLayerParser of your own must
	// set NTags to 0 before each frame, or the tag limit counts the tags
	// of the frames before.
	Tags  [MaxVLANTags]VLANTag
	NTags int
}

// VLANTag is one VLAN tag of a frame: 802.1Q, 802.1ad or pre-802.1ad QinQ.
type VLANTag struct {
	TPID     layers.EthernetType // 0x8100, 0x88A8, 0x9100 (the EtherType before the tag)
	Priority uint8
	DEI      bool
	ID       uint16
	// Type is the EtherType after the tag (Wireshark's vlan.etype; 1500
	// or less, an 802.3 length).
	Type layers.EthernetType
}

// DecodeFromBytes decodes one tag as gopacket does and records it in Tags.
func (d *Dot1Q) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if err := d.Dot1Q.DecodeFromBytes(data, df); err != nil {
		return err
	}
	if d.NTags < len(d.Tags) {
		d.Tags[d.NTags] = VLANTag{Priority: d.Priority, DEI: d.DropEligible, ID: d.VLANIdentifier, Type: d.Type}
		d.NTags++
	}
	return nil
}

// partial records a tag cut after its TCI (2 or 3 octets: priority, DEI
// and VLAN identifier, not the EtherType after it), and returns the error
// of the cut (Parser.Dot1QPartial says it happened; the tag's Type is 0
// and not the frame's; Parser sets its TPID as the others').
func (d *Dot1Q) partial(data []byte, df gopacket.DecodeFeedback) error {
	tci := binary.BigEndian.Uint16(data)
	d.Dot1Q = layers.Dot1Q{Priority: uint8(tci >> 13), DropEligible: tci&0x1000 != 0, VLANIdentifier: tci & 0xfff}
	d.Contents, d.Payload = data, nil
	if d.NTags < len(d.Tags) {
		d.Tags[d.NTags] = VLANTag{Priority: d.Priority, DEI: d.DropEligible, ID: d.VLANIdentifier}
		d.NTags++
	}
	df.SetTruncated()
	return cutAt("vlan", dot1qFieldEnds, len(data), 4)
}

var dot1qFieldEnds = []fieldEnd{{"tci", 2}, {"type", 4}}

// NextLayerType returns our format's layer type for a MAC Control or
// 0x88B5 payload that names one, gopacket.LayerTypePayload for yet
// another tag behind MaxVLANTags of them, else what layers.Dot1Q returns.
func (d *Dot1Q) NextLayerType() gopacket.LayerType {
	if t := l2Next(d.Type, d.Payload); t != gopacket.LayerTypeZero {
		return t
	}
	if d.NTags >= len(d.Tags) && IsVLANTPID(d.Type) {
		return gopacket.LayerTypePayload
	}
	return d.Dot1Q.NextLayerType()
}

// l2Next returns the layer type the demultiplexing layer of EtherType et
// would choose for payload p when that is one of our formats, and
// gopacket.LayerTypeZero otherwise (not our EtherType, too short, another
// opcode, magic or subtype).
func l2Next(et layers.EthernetType, p []byte) gopacket.LayerType {
	// The demultiplexing layers' own choice (macControlNext, fcNext), where
	// it names one of our layers rather than gopacket.LayerTypePayload.
	t := gopacket.LayerTypePayload
	switch et {
	case EthernetTypeMACControl:
		if len(p) >= 2 {
			t = macControlNext(binary.BigEndian.Uint16(p))
		}
	case EthernetTypeFCExp:
		if len(p) >= fcHeaderLen {
			t = fcNext(binary.BigEndian.Uint16(p), p[2])
		}
	}
	if t == gopacket.LayerTypePayload {
		return gopacket.LayerTypeZero
	}
	return t
}
