// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"bytes"
	"encoding/binary"

	"github.com/opensfc/sfc/device"
)

// Rule 8 lets a device alter a forwarded data frame "as the scheme
// allows: TTL, ECN marking, MACs on routing". routedAs reports whether
// the device frame dev is the reference frame ref forwarded by a router,
// and nothing more:
//
//   - eth.dst is ref's, or the peer MAC of the egress port (case.yaml
//     ports[].peer_mac); eth.src is ref's, or the egress port's own MAC;
//   - the IPv4 TTL or IPv6 hop limit is ref's, or ref's less one;
//   - the ECN field is ref's, or CE where ref's is ECT(0) or ECT(1);
//   - an IPv4 header that changed carries a checksum that verifies;
//   - every other octet is ref's (the UDP checksum and the ICRC do not
//     cover these fields).
//
// A frame that differs otherwise is DATA-ALTERED, with the fields named.
func (k *devChecker) routedAs(ref, dev []byte, port int) bool {
	if len(ref) != len(dev) || len(dev) < 14 {
		return false
	}
	var mac, peer device.MAC
	for _, p := range k.c.Ports {
		if p.ID == port {
			mac, peer = p.MAC, p.PeerMAC
		}
	}
	b := append(k.rt[:0], dev...)
	k.rt = b
	var zero device.MAC
	if !bytes.Equal(b[0:6], ref[0:6]) {
		if peer == zero || !bytes.Equal(b[0:6], peer[:]) {
			return false
		}
		copy(b[0:6], ref[0:6])
	}
	if !bytes.Equal(b[6:12], ref[6:12]) {
		if mac == zero || !bytes.Equal(b[6:12], mac[:]) {
			return false
		}
		copy(b[6:12], ref[6:12])
	}
	var m device.Meta
	device.Parse(dev, &m, &k.cp)
	l3 := m.L3
	switch {
	case m.IPVersion == 4 && l3+20 <= len(b):
		changed := false
		if b[l3+8] != ref[l3+8] {
			if ref[l3+8] == 0 || b[l3+8] != ref[l3+8]-1 {
				return false
			}
			b[l3+8], changed = ref[l3+8], true
		}
		if e, re := b[l3+1]&3, ref[l3+1]&3; e != re {
			if e != 3 || re == 0 {
				return false
			}
			b[l3+1], changed = b[l3+1]&^3|re, true
		}
		if changed || !bytes.Equal(b[l3+10:l3+12], ref[l3+10:l3+12]) {
			hl := int(dev[l3]&0x0f) * 4
			if hl < 20 || l3+hl > len(dev) || ipv4Sum(dev[l3:l3+hl]) != 0 {
				return false
			}
			copy(b[l3+10:l3+12], ref[l3+10:l3+12])
		}
	case m.IPVersion == 6 && l3+40 <= len(b):
		if b[l3+7] != ref[l3+7] {
			if ref[l3+7] == 0 || b[l3+7] != ref[l3+7]-1 {
				return false
			}
			b[l3+7] = ref[l3+7]
		}
		if e, re := b[l3+1]>>4&3, ref[l3+1]>>4&3; e != re {
			if e != 3 || re == 0 {
				return false
			}
			b[l3+1] = b[l3+1]&^0x30 | re<<4
		}
	}
	return bytes.Equal(b, ref)
}

// ipv4Sum is the ones' complement sum of an IPv4 header, folded and
// complemented: 0 when its checksum verifies.
func ipv4Sum(h []byte) uint16 {
	var s uint32
	for i := 0; i+1 < len(h); i += 2 {
		s += uint32(binary.BigEndian.Uint16(h[i:]))
	}
	for s > 0xffff {
		s = s>>16 + s&0xffff
	}
	return ^uint16(s)
}
