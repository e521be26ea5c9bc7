package layers

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// The RoCEv2 invariant CRC (wire.md §3.3): CRC-32 (IEEE 802.3) over 8 octets
// of 0xFF, the IP header, the UDP header, the BTH, the extension headers,
// payload and pad, with the variant fields (IPv4 TOS, TTL and header
// checksum; IPv6 traffic class, flow label and hop limit; UDP checksum; BTH
// octet 4) set to all-ones for the computation only. It is written least
// significant octet first.

var icrcLead = [8]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

// icrcOver computes the ICRC from its pieces: the IP header (IPv4 with its
// options, or the 40-octet IPv6 header), the 8-octet UDP header and the
// RoCEv2 UDP payload without its 4-octet ICRC. It does not allocate.
func icrcOver(ipHdr, udpHdr, roce []byte) uint32 {
	crc := crc32.Update(0, crc32.IEEETable, icrcLead[:])
	var h [60]byte
	n := copy(h[:], ipHdr)
	if n > 0 && h[0]>>4 == 6 {
		h[0] |= 0x0f // traffic class, high nibble
		h[1], h[2], h[3] = 0xff, 0xff, 0xff
		h[7] = 0xff // hop limit
	} else if n >= 20 {
		h[1] = 0xff // TOS
		h[8] = 0xff // TTL
		h[10], h[11] = 0xff, 0xff
	}
	crc = crc32.Update(crc, crc32.IEEETable, h[:n])
	var u [8]byte
	copy(u[:], udpHdr)
	u[6], u[7] = 0xff, 0xff
	crc = crc32.Update(crc, crc32.IEEETable, u[:])
	var b [12]byte
	m := copy(b[:], roce)
	if m > 4 {
		b[4] = 0xff
	}
	crc = crc32.Update(crc, crc32.IEEETable, b[:m])
	return crc32.Update(crc, crc32.IEEETable, roce[m:])
}

// ComputeICRC returns the ICRC of a RoCEv2 packet given from the first
// octet of its IP header to the end of its ICRC (the 4 ICRC octets are not
// read). IPv4 (with options) and IPv6 without extension headers are
// supported.
func ComputeICRC(ipPacket []byte) (uint32, error) {
	if len(ipPacket) < 1 {
		return 0, errAt("icrc", "ip", 0, ErrTruncated, "empty packet")
	}
	var hl int
	switch ipPacket[0] >> 4 {
	case 4:
		hl = int(ipPacket[0]&0x0f) * 4
		if hl < 20 {
			return 0, errAt("icrc", "ipv4.ihl", 0, ErrBadValue, fmt.Sprintf("IHL %d", hl/4))
		}
	case 6:
		hl = 40
	default:
		return 0, errAt("icrc", "ip.version", 0, ErrVersion, "")
	}
	if len(ipPacket) < hl+8+12+4 {
		return 0, truncated("icrc", "bth", hl+8, hl+8+12+4, len(ipPacket))
	}
	return icrcOver(ipPacket[:hl], ipPacket[hl:hl+8], ipPacket[hl+8:len(ipPacket)-4]), nil
}

// PutICRC writes crc as the 4 ICRC octets, least significant first.
func PutICRC(dst []byte, crc uint32) { binary.LittleEndian.PutUint32(dst, crc) }

// FixICRC recomputes and rewrites the ICRC at the end of a RoCEv2 packet
// given from its IP header on.
func FixICRC(ipPacket []byte) error {
	crc, err := ComputeICRC(ipPacket)
	if err != nil {
		return err
	}
	PutICRC(ipPacket[len(ipPacket)-4:], crc)
	return nil
}
