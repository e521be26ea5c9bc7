// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"encoding/binary"
	"testing"

	"github.com/opensfc/sfc/device"
)

// routedFrame builds an Ethernet/IPv4/UDP frame with a valid header
// checksum.
func routedFrame(dst, src device.MAC, ttl, tos byte) []byte {
	b := make([]byte, 14+20+8+8)
	copy(b[0:6], dst[:])
	copy(b[6:12], src[:])
	b[12], b[13] = 0x08, 0x00
	ip := b[14:34]
	ip[0], ip[1] = 0x45, tos
	binary.BigEndian.PutUint16(ip[2:], 36)
	ip[8], ip[9] = ttl, 17
	copy(ip[12:16], []byte{10, 0, 0, 1})
	copy(ip[16:20], []byte{10, 0, 1, 1})
	binary.BigEndian.PutUint16(ip[10:], ipv4Sum(ip))
	binary.BigEndian.PutUint16(b[34:], 49152)
	binary.BigEndian.PutUint16(b[36:], 4791)
	binary.BigEndian.PutUint16(b[38:], 16)
	copy(b[42:], "payload!")
	return b
}

// Rule 8's allowed rewrites, and the mutations each must not let through.
func TestRoutedAs(t *testing.T) {
	hostA := device.MAC{2, 0, 0, 0, 0, 1}
	hostB := device.MAC{2, 0, 0, 0, 1, 1}
	portMAC := device.MAC{2, 0x5f, 0, 0, 0, 1}
	peer := device.MAC{2, 0, 0, 0, 0xff, 1}
	k := &devChecker{c: &Case{Ports: []PortSpec{{ID: 1, MAC: portMAC, PeerMAC: peer}}}}
	k.cp = k.c.Device.Codepoints.WithDefaults()
	ref := routedFrame(hostB, hostA, 64, 0x02) // ECT(0)
	badSum := routedFrame(peer, portMAC, 63, 0x02)
	badSum[24]++
	other := routedFrame(peer, portMAC, 63, 0x02)
	other[len(other)-1]++
	for _, tc := range []struct {
		name string
		dev  []byte
		port int
		want bool
	}{
		{"unchanged", routedFrame(hostB, hostA, 64, 0x02), 1, true},
		{"routed: MACs, TTL-1, checksum", routedFrame(peer, portMAC, 63, 0x02), 1, true},
		{"routed and CE-marked", routedFrame(peer, portMAC, 63, 0x03), 1, true},
		{"TTL only", routedFrame(hostB, hostA, 63, 0x02), 1, true},
		{"TTL-2", routedFrame(peer, portMAC, 62, 0x02), 1, false},
		{"TTL+1", routedFrame(hostB, hostA, 65, 0x02), 1, false},
		{"ECN cleared", routedFrame(hostB, hostA, 64, 0x00), 1, false},
		{"DSCP changed", routedFrame(hostB, hostA, 64, 0x06), 1, false},
		{"dst MAC not the peer's", routedFrame(device.MAC{2, 9, 9, 9, 9, 9}, portMAC, 63, 0x02), 1, false},
		{"src MAC not the port's", routedFrame(peer, device.MAC{2, 9, 9, 9, 9, 9}, 63, 0x02), 1, false},
		{"another port's MACs", routedFrame(peer, portMAC, 63, 0x02), 0, false},
		{"checksum wrong", badSum, 1, false},
		{"payload altered", other, 1, false},
		{"shorter", ref[:len(ref)-1], 1, false},
	} {
		if got := k.routedAs(ref, tc.dev, tc.port); got != tc.want {
			t.Errorf("%s: routedAs %v, want %v", tc.name, got, tc.want)
		}
	}
	// CE where the reference's frame is not ECN-capable is a change.
	notECT := routedFrame(hostB, hostA, 64, 0x00)
	if k.routedAs(notECT, routedFrame(hostB, hostA, 64, 0x03), 1) {
		t.Error("CE on a Not-ECT frame accepted")
	}
}
