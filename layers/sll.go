// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"encoding/binary"
	"net"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Linux cooked capture headers (SLL, SLL2: what `tcpdump -i any`
// writes) carry the source's link-layer address in an 8-octet field and
// its real length beside it:
//
//	SLL (link type 113), 16 octets
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|          Packet type          |     Link-layer address type   |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|  Link-layer address length    |                               |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +
//	|            Link-layer address (8 octets, first 8 kept)        |
//	+                               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                               |        Protocol type          |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// SLL2 (276, 20 octets) has the same fields in another order, the
// address length in one octet at offset 11 and the address at 12.
//
// An address longer than 8 octets is cut to the field: an IPoIB
// interface's is 20 (ARPHRD_INFINIBAND, 32), so a capture on a host with
// InfiniBand ports holds such headers. gopacket refuses them ("invalid
// address length 20"); Wireshark shows the 8 octets kept and the length
// as written, and decodes what follows. sllDecoder and sll2Decoder do the
// same: the Parser's SLL and SLL2 layers are gopacket's, with Addr the 8
// octets kept and AddrLen (AddrLength) the length the header gives.

// sllDecoder decodes into gopacket's LinuxSLL, accepting an address
// longer than its field.
type sllDecoder struct{ *layers.LinuxSLL }

// DecodeFromBytes decodes an SLL header as gopacket does, or, when the
// address length is over 8, with Addr the 8 octets of the field.
func (d sllDecoder) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < 16 || binary.BigEndian.Uint16(data[4:6]) <= 8 {
		return d.LinuxSLL.DecodeFromBytes(data, df)
	}
	s := d.LinuxSLL
	s.PacketType = layers.LinuxSLLPacketType(binary.BigEndian.Uint16(data[0:2]))
	s.AddrType = binary.BigEndian.Uint16(data[2:4])
	s.AddrLen = binary.BigEndian.Uint16(data[4:6])
	s.Addr = net.HardwareAddr(data[6:14:14])
	s.EthernetType = layers.EthernetType(binary.BigEndian.Uint16(data[14:16]))
	s.Contents, s.Payload = data[:16], data[16:]
	return nil
}

// sll2Decoder decodes into gopacket's LinuxSLL2, accepting an address
// longer than its field.
type sll2Decoder struct{ *layers.LinuxSLL2 }

// DecodeFromBytes decodes an SLL2 header as gopacket does, or, when the
// address length is over 8, with Addr the 8 octets of the field.
func (d sll2Decoder) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < 20 || data[11] <= 8 {
		return d.LinuxSLL2.DecodeFromBytes(data, df)
	}
	s := d.LinuxSLL2
	s.ProtocolType = layers.EthernetType(binary.BigEndian.Uint16(data[0:2]))
	s.InterfaceIndex = binary.BigEndian.Uint32(data[4:8])
	s.ARPHardwareType = layers.ARPHardwareType(binary.BigEndian.Uint16(data[8:10]))
	s.PacketType = layers.LinuxSLL2PacketType(data[10])
	s.AddrLength = data[11]
	s.Addr = net.HardwareAddr(data[12:20:20])
	s.Contents, s.Payload = data[:20], data[20:]
	return nil
}
