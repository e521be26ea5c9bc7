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

// icrcLead is the CRC-32 of the 8 leading octets of 0xFF.
var icrcLead = crc32.ChecksumIEEE([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})

// crcOnes continues crc over n octets of 0xFF (the masked fields), octet
// by octet with the IEEE table, so that nothing is copied.
func crcOnes(crc uint32, n int) uint32 {
	c := ^crc
	for ; n > 0; n-- {
		c = crc32.IEEETable[byte(c)^0xff] ^ c>>8
	}
	return ^c
}

// crcOctet continues crc over the single octet b.
func crcOctet(crc uint32, b byte) uint32 {
	c := ^crc
	return ^(crc32.IEEETable[byte(c)^b] ^ c>>8)
}

// icrcOver computes the ICRC from its pieces: the IP header (IPv4 with its
// options, or the 40-octet IPv6 header), the 8-octet UDP header and the
// RoCEv2 UDP payload without its 4-octet ICRC (at least the 12-octet BTH).
// It runs the CRC over the unmasked runs of the input in place and over
// the masked octets as 0xFF, so it neither copies nor allocates.
func icrcOver(ipHdr, udpHdr, roce []byte) uint32 {
	tab := crc32.IEEETable
	crc := icrcLead
	switch {
	case len(ipHdr) >= 8 && ipHdr[0]>>4 == 6:
		crc = crcOctet(crc, ipHdr[0]|0x0f) // traffic class, high nibble
		crc = crcOnes(crc, 3)              // traffic class low nibble, flow label
		crc = crc32.Update(crc, tab, ipHdr[4:7])
		crc = crcOnes(crc, 1) // hop limit
		crc = crc32.Update(crc, tab, ipHdr[8:])
	case len(ipHdr) >= 20 && ipHdr[0]>>4 != 6:
		crc = crcOctet(crc, ipHdr[0])
		crc = crcOnes(crc, 1) // TOS
		crc = crc32.Update(crc, tab, ipHdr[2:8])
		crc = crcOnes(crc, 1) // TTL
		crc = crcOctet(crc, ipHdr[9])
		crc = crcOnes(crc, 2) // header checksum
		crc = crc32.Update(crc, tab, ipHdr[12:])
	default:
		crc = crc32.Update(crc, tab, ipHdr)
	}
	u := min(len(udpHdr), 6)
	crc = crc32.Update(crc, tab, udpHdr[:u])
	for i := u; i < 6; i++ { // a short UDP header counts as zeros
		crc = crcOctet(crc, 0)
	}
	crc = crcOnes(crc, 2) // UDP checksum
	if len(roce) <= 4 {
		return crc32.Update(crc, tab, roce)
	}
	crc = crc32.Update(crc, tab, roce[:4])
	crc = crcOnes(crc, 1) // BTH octet 4: FECN, BECN, reserved
	return crc32.Update(crc, tab, roce[5:])
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
