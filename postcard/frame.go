// SPDX-License-Identifier: Apache-2.0

package postcard

import (
	"fmt"
	"math"
	"net"
	"net/netip"

	"github.com/gopacket/gopacket"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

// BuildOptions addresses a CC-postcard (wire.md §6).
type BuildOptions struct {
	SrcMAC, DstMAC device.MAC // Ethernet addresses
	// Src is the IP source: the switch (of the marked packet's family).
	Src netip.Addr
	// SwitchID is the switch id field.
	SwitchID device.MAC
	// Port is the egress port the assessment is about.
	Port uint16
	// DSCP of the postcard, default 48 (set DSCPZero for 0); UDPPort its
	// UDP destination port, default 1022.
	DSCP     uint8
	DSCPZero bool   // use DSCP 0
	UDPPort  uint16 // default 1022
}

type builder struct {
	ser gopacket.SerializeBuffer
	pc  layers.Postcard
	sid [6]byte
}

func clamp32(v int64) uint32 {
	if v < 0 {
		return 0
	}
	if v > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(v)
}

// build appends the postcard about the marked frame (parsed into m) to dst.
func (b *builder) build(dst []byte, marked []byte, m *device.Meta, a Assessment, o BuildOptions) ([]byte, error) {
	ip := m.IPPacket(marked)
	if ip == nil || m.L4 == 0 {
		return dst, fmt.Errorf("%w: %s frame", ErrTrigger, m.Kind)
	}
	if b.ser == nil {
		b.ser = gopacket.NewSerializeBufferExpectedSize(0, 36+layers.QuoteLen)
	}
	b.sid = o.SwitchID
	b.pc = layers.Postcard{Version: layers.PostcardVersion, Port: o.Port, SwitchID: net.HardwareAddr(b.sid[:]),
		RateMbps: clamp32(a.RateMbps), WindowNS: clamp32(a.WindowNS), IPBytes: clamp32(a.IP), Q1Bytes: clamp32(a.Q1),
		RecentBytes: clamp32(a.Recent), RecentMarkedBytes: clamp32(a.RecentMarked), Quote: layers.Quote(ip)}
	if err := b.ser.Clear(); err != nil {
		return dst, err
	}
	if err := b.pc.SerializeTo(b.ser, gopacket.SerializeOptions{}); err != nil {
		return dst, err
	}
	dscp := o.DSCP
	if dscp == 0 && !o.DSCPZero {
		dscp = DefaultDSCP
	}
	port := o.UDPPort
	if port == 0 {
		port = device.DefaultPostcardPort
	}
	return device.BuildUDP(dst, device.UDPSpec{DstMAC: o.DstMAC, SrcMAC: o.SrcMAC, Src: o.Src, Dst: m.Src, DSCP: dscp, TTL: 64,
		SrcPort: m.SrcPort, DstPort: port, Payload: b.ser.Bytes()})
}

// Build appends to dst a CC-postcard (wire.md §6) carrying assessment a
// about the marked data frame (an Ethernet frame, as captured): IP
// destination = its source, UDP source port = its source port, the quote
// = its first min(IP length, 64) octets. o.Src must be of the frame's
// address family.
func Build(dst []byte, marked []byte, a Assessment, o BuildOptions) ([]byte, error) {
	var m device.Meta
	cp := device.Codepoints{}
	device.Parse(marked, &m, &cp)
	var b builder
	return b.build(dst, marked, &m, a, o)
}

// Decode decodes the CC-postcard in an Ethernet frame to UDP port port (0
// meaning 1022). The quote's flow is in the layer's Flow; Quote and
// SwitchID alias frame.
func Decode(frame []byte, port uint16) (layers.Postcard, error) {
	var m device.Meta
	cp := device.Codepoints{PostcardPort: port}.WithDefaults()
	device.Parse(frame, &m, &cp)
	var l layers.Postcard
	if m.Kind != device.KindPostcard || m.Payload == 0 {
		return l, ErrNotPostcard
	}
	end := len(frame)
	if e := m.L3 + m.IPLen; e >= m.Payload && e < end {
		end = e
	}
	err := l.DecodeFromBytes(frame[m.Payload:end], gopacket.NilDecodeFeedback)
	return l, err
}
