// SPDX-License-Identifier: Apache-2.0

package cim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"

	"github.com/gopacket/gopacket"
	"github.com/opensfc/sfc/bts"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

// Sentinel errors.
var (
	// ErrNotCIM: the frame is not a CIM (EtherType 0x89A2 or UDP to the
	// CIM port).
	ErrNotCIM = errors.New("not a CIM")
	// ErrNoSFC: the CIM carries no SFC pause TLV, so it is no SFC signal.
	ErrNoSFC = errors.New("CIM without the SFC pause TLV")
	// ErrNoFlow: the CIM's MSDU does not hold an IP packet naming a flow.
	ErrNoFlow = errors.New("CIM MSDU names no flow")
)

// Options addresses a CIM.
type Options struct {
	// SrcMAC and DstMAC are the Ethernet addresses of the CIM frame.
	SrcMAC, DstMAC device.MAC
	// L2 builds an L2 CIM (EtherType 0x89A2) instead of the L3 one.
	L2 bool
	// DSCP of an L3 CIM, default 48 like a BTS (DSCPZero selects 0).
	DSCP     uint8
	DSCPZero bool
	// Port is the L3 CIM UDP destination port, default 35234.
	Port uint16
}

// Build appends to dst a CIM about the offending frame trigger (an
// Ethernet frame, as captured), behaviour.md §5 and wire.md §4: Add = 1,
// the trigger's MACs and VLAN, its IP packet as MSDU (first 512 octets,
// padded to 48) and, when sfc is not nil, the SFC pause TLV with sfc's
// pause time, C flag, origin and reporter. The L3 form is addressed like a
// BTS: IP source = the trigger's destination, IP destination = its source,
// UDP source port = its source port.
func Build(dst []byte, trigger []byte, sfc *bts.Signal, o Options) ([]byte, error) {
	var m device.Meta
	cp := device.Codepoints{}
	device.Parse(trigger, &m, &cp)
	ip := m.IPPacket(trigger)
	if ip == nil {
		return dst, fmt.Errorf("%w: %s frame", bts.ErrTrigger, m.Kind)
	}
	c := layers.CIM{Add: true, DA: net.HardwareAddr(trigger[0:6]), SA: net.HardwareAddr(trigger[6:12]), VID: m.VID, MSDU: layers.CIMMSDU(ip)}
	if sfc != nil {
		c.HasSFC = true
		c.SFC = layers.SFCPause{PauseUS: sfc.PauseUS, Cacheable: sfc.Cacheable, Origin: sfc.Origin, Reporter: sfc.Reporter}
	}
	return appendCIM(dst, &c, m.Dst, m.Src, m.SrcPort, o)
}

func appendCIM(dst []byte, c *layers.CIM, src, to netip.Addr, sport uint16, o Options) ([]byte, error) {
	buf := gopacket.NewSerializeBufferExpectedSize(0, 17+len(c.MSDU)+10)
	if err := c.SerializeTo(buf, gopacket.SerializeOptions{FixLengths: true}); err != nil {
		return dst, err
	}
	pdu := buf.Bytes()
	if o.L2 {
		start := len(dst)
		n := max(14+len(pdu), device.MinFrame)
		dst = append(dst, make([]byte, n)...)
		b := dst[start:]
		copy(b[0:6], o.DstMAC[:])
		copy(b[6:12], o.SrcMAC[:])
		binary.BigEndian.PutUint16(b[12:], device.EtherTypeCIM)
		copy(b[14:], pdu)
		return dst, nil
	}
	dscp := o.DSCP
	if dscp == 0 && !o.DSCPZero {
		dscp = bts.DefaultDSCP
	}
	port := o.Port
	if port == 0 {
		port = device.DefaultCIMPort
	}
	f, err := device.BuildUDP(dst, device.UDPSpec{DstMAC: o.DstMAC, SrcMAC: o.SrcMAC, Src: src, Dst: to, DSCP: dscp, TTL: 64,
		SrcPort: sport, DstPort: port, Payload: pdu})
	if err != nil {
		return dst, fmt.Errorf("%w: addresses %v, %v", bts.ErrTrigger, src, to)
	}
	return f, nil
}

// Decode decodes the CIM PDU of an L2 or L3 CIM frame (port 0 means
// 35234) with layers.CIM. It also returns the frame's parsed headers.
func Decode(frame []byte, port uint16) (layers.CIM, device.Meta, error) {
	var m device.Meta
	cp := device.Codepoints{CIMPort: port}.WithDefaults()
	device.Parse(frame, &m, &cp)
	c, err := decodeMeta(frame, &m)
	return c, m, err
}

func decodeMeta(frame []byte, m *device.Meta) (layers.CIM, error) {
	var c layers.CIM
	var pdu []byte
	switch {
	case m.Kind == device.KindCIM && m.IP() && m.Payload > 0:
		end := len(frame)
		if ipEnd := m.L3 + m.IPLen; ipEnd >= m.Payload && ipEnd < end {
			end = ipEnd
		}
		pdu = frame[m.Payload:end]
	case m.Kind == device.KindCIM && m.EtherType == device.EtherTypeCIM:
		pdu = frame[m.L3:]
	default:
		return c, ErrNotCIM
	}
	if err := c.DecodeFromBytes(pdu, gopacket.NilDecodeFeedback); err != nil {
		return c, err
	}
	return c, nil
}

// signalOf turns a decoded CIM into the Signal of the BTS it stands for.
func signalOf(c *layers.CIM, m *device.Meta) (bts.Signal, error) {
	if !c.HasSFC {
		return bts.Signal{}, ErrNoSFC
	}
	fl, ok := c.Flow()
	if !ok {
		return bts.Signal{}, ErrNoFlow
	}
	s := bts.Signal{Flow: fl, PauseUS: c.SFC.PauseUS, Cacheable: c.SFC.Cacheable, Origin: c.SFC.Origin,
		Reporter: c.SFC.Reporter, CPPort: layers.CPPortUnknown, CPQueue: 0, Quote: trimIP(c.MSDU)}
	if m.IP() {
		s.Src, s.Dst = m.Src, m.Dst
	} else {
		s.Src, s.Dst = fl.Dst, fl.Src
	}
	return s, nil
}

// trimIP cuts an MSDU to the length its IP header announces (removing the
// zero padding to 48 octets).
func trimIP(b []byte) []byte {
	if len(b) >= 20 && b[0]>>4 == 4 {
		if n := int(binary.BigEndian.Uint16(b[2:])); n >= 20 && n < len(b) {
			return b[:n]
		}
	}
	if len(b) >= 40 && b[0]>>4 == 6 {
		if n := 40 + int(binary.BigEndian.Uint16(b[4:])); n < len(b) {
			return b[:n]
		}
	}
	return b
}

// ToSignal reads the SFC signal of an SFC-extended CIM frame.
func ToSignal(frame []byte, port uint16) (bts.Signal, error) {
	c, m, err := Decode(frame, port)
	if err != nil {
		return bts.Signal{}, err
	}
	return signalOf(&c, &m)
}

// DecodeSignal is the bts.Decoder for SFC-extended CIMs, so that SFC
// switches (cache, SFC-P) and NICs treat a CIM exactly as its BTS. A CIM
// without the SFC TLV is no signal.
func DecodeSignal(d *device.Device, p *device.Packet) (bts.Signal, bool) {
	if p.Meta.Kind != device.KindCIM {
		return bts.Signal{}, false
	}
	c, err := decodeMeta(p.Data, &p.Meta)
	if err != nil {
		return bts.Signal{}, false
	}
	s, err := signalOf(&c, &p.Meta)
	return s, err == nil
}

// FromBTS converts a BTS frame into an L3 CIM frame (or L2 with o.L2)
// carrying the same SFC fields (pause time, C flag, origin, reporter), the
// same IP addresses and UDP source port, and the BTS quote as MSDU. The
// offending frame's MACs are not in a BTS: the CIM's DA and SA are the
// BTS's source and destination MACs (the direction the offending frame
// went). The BTS's congestion port, queue and depth have no place in the
// CIM and are lost.
func FromBTS(dst []byte, btsFrame []byte, btsPort uint16, o Options) ([]byte, error) {
	s, err := bts.Decode(btsFrame, btsPort)
	if err != nil {
		return dst, err
	}
	var m device.Meta
	cp := device.Codepoints{BTSPort: btsPort}.WithDefaults()
	device.Parse(btsFrame, &m, &cp)
	c := layers.CIM{Add: true, DA: net.HardwareAddr(btsFrame[6:12]), SA: net.HardwareAddr(btsFrame[0:6]), VID: m.VID,
		MSDU: layers.CIMMSDU(s.Quote), HasSFC: true,
		SFC: layers.SFCPause{PauseUS: s.PauseUS, Cacheable: s.Cacheable, Origin: s.Origin, Reporter: s.Reporter}}
	return appendCIM(dst, &c, s.Src, s.Dst, m.SrcPort, o)
}

// ToBTS converts an SFC-extended CIM frame into a BTS frame with the same
// SFC fields, addresses (for an L2 CIM: the MSDU's, swapped) and UDP source
// port, quoting the first 64 octets of the MSDU. The congestion port is
// 0xFFFF (unknown) and the queue depth 0.
func ToBTS(dst []byte, cimFrame []byte, cimPort uint16, o bts.BuildOptions) ([]byte, error) {
	c, m, err := Decode(cimFrame, cimPort)
	if err != nil {
		return dst, err
	}
	s, err := signalOf(&c, &m)
	if err != nil {
		return dst, err
	}
	sport := m.SrcPort
	if !m.IP() {
		sport = s.Flow.SrcPort
	}
	return bts.AppendSignal(dst, s, sport, o)
}

// Emitter returns a bts.Emitter that sends, where SFC would send a BTS, an
// SFC-extended CIM built from the offending frame (the CIM-signalling
// switch mode of behaviour.md §5). The frame leaves the egress port's MAC
// for its neighbour.
func Emitter(o Options) bts.Emitter {
	return func(d *device.Device, out *device.Port, trigger *device.Packet, s bts.Signal) ([]byte, error) {
		oo := o
		oo.SrcMAC, oo.DstMAC = out.MAC, out.PeerMAC
		if oo.Port == 0 {
			oo.Port = d.Codepoints().CIMPort
		}
		return Build(nil, trigger.Data, &s, oo)
	}
}

// NewSwitch returns an SFC switch in CIM-signalling mode: the rules of
// behaviour.md §1 with CIMs instead of BTS, and a cache fed by CIMs as well
// as BTS.
func NewSwitch(p bts.Params, o Options) *bts.Switch {
	s := bts.NewSwitch(p)
	s.Emit = Emitter(o)
	s.Decoders = []bts.Decoder{bts.DecodeBTS, DecodeSignal}
	return s
}

// NewNIC returns an SFC NIC that treats an SFC-extended CIM like its BTS.
func NewNIC() *bts.NIC {
	return &bts.NIC{Decoders: []bts.Decoder{bts.DecodeBTS, DecodeSignal}}
}

// NewSFCP returns SFC-P that converts CIMs as well as BTS into PFC.
func NewSFCP(ports ...int) *bts.SFCP {
	return &bts.SFCP{Ports: ports, Decoders: []bts.Decoder{bts.DecodeBTS, DecodeSignal}}
}
