// SPDX-License-Identifier: Apache-2.0

package bts

import (
	"errors"
	"fmt"
	"math/bits"
	"net/netip"

	"github.com/gopacket/gopacket"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

// Sentinel errors.
var (
	// ErrNotBTS: the frame is not a BTS (not IP/UDP to the BTS port).
	ErrNotBTS = errors.New("not a BTS")
	// ErrTrigger: the triggering frame is not an IP packet a BTS can quote.
	ErrTrigger = errors.New("triggering frame cannot be quoted")
)

// DefaultDSCP is the DSCP of BTS packets (behaviour.md §1).
const DefaultDSCP = 48

// Signal is what an SFC pause signal says, whatever carries it (a BTS or
// an SFC-extended CIM): the pause for the quoted flow and where it came
// from. Src and Dst are the addresses of the signal packet: Src is the
// congested receiver, Dst the sender to pause.
type Signal struct {
	Src, Dst   netip.Addr
	Flow       layers.Flow
	PauseUS    uint16
	Cacheable  bool
	Origin     layers.Origin
	Reporter   uint32
	CPPort     uint16 // 0xFFFF unknown
	CPQueue    uint8
	QueueDepth uint32
	// Quote is the quoted start of the offending IP packet (a BTS quote or
	// a CIM MSDU). It aliases the frame it was decoded from.
	Quote []byte
}

// FlowKey returns the device flow key of the quoted flow, by which a NIC
// finds the flow to pause.
func (s *Signal) FlowKey() device.FlowKey {
	f := s.Flow
	return device.FlowKey{Src: f.Src, Dst: f.Dst, Proto: f.Proto, SrcPort: f.SrcPort, DstPort: f.DstPort, QP: f.QP, HasQP: f.HasQP}
}

// PauseNs returns the pause time in ns.
func (s *Signal) PauseNs() int64 { return int64(s.PauseUS) * device.Microsecond }

// BuildOptions addresses a BTS.
type BuildOptions struct {
	SrcMAC, DstMAC device.MAC
	DSCP           uint8  // default 48 (set DSCPZero for 0)
	DSCPZero       bool   // use DSCP 0
	Port           uint16 // UDP destination port, default 1021
}

// Build appends to dst a BTS frame about the data frame trigger (an
// Ethernet frame, as captured) carrying s's pause fields: IP source = the
// trigger's destination, IP destination = its source, UDP source port =
// its source port, the quote = its first min(IP length, 64) octets
// (wire.md §5). s.Src, s.Dst, s.Flow and s.Quote are ignored (they come
// from the trigger).
func Build(dst []byte, trigger []byte, s Signal, o BuildOptions) ([]byte, error) {
	var m device.Meta
	cp := device.Codepoints{}
	device.Parse(trigger, &m, &cp)
	return build(dst, nil, trigger, &m, s, o)
}

func build(dst []byte, buf gopacket.SerializeBuffer, trigger []byte, m *device.Meta, s Signal, o BuildOptions) ([]byte, error) {
	ip := m.IPPacket(trigger)
	if ip == nil || m.L4 == 0 {
		return dst, fmt.Errorf("%w: %s frame", ErrTrigger, m.Kind)
	}
	s.Src, s.Dst, s.Quote = m.Dst, m.Src, layers.Quote(ip)
	return appendSignal(dst, buf, s, m.SrcPort, o)
}

// AppendSignal appends to dst a BTS frame from s as it stands: IP source
// s.Src, destination s.Dst, UDP source port sport, quote s.Quote (cut to
// 64 octets). It is the builder behind Build and the CIM to BTS
// conversion.
func AppendSignal(dst []byte, s Signal, sport uint16, o BuildOptions) ([]byte, error) {
	return appendSignal(dst, nil, s, sport, o)
}

// appendSignal is AppendSignal serializing the BTS through buf (reused by
// the caller to stay allocation-free; nil makes a new one).
func appendSignal(dst []byte, buf gopacket.SerializeBuffer, s Signal, sport uint16, o BuildOptions) ([]byte, error) {
	quote := layers.Quote(s.Quote)
	l := layers.BTS{Version: layers.BTSVersion, Cacheable: s.Cacheable, Origin: s.Origin, PauseUS: s.PauseUS,
		Reporter: s.Reporter, CPPort: s.CPPort, CPQueue: s.CPQueue, QueueDepth: s.QueueDepth, Quote: quote}
	if buf == nil {
		buf = gopacket.NewSerializeBufferExpectedSize(0, 16+len(quote))
	} else if err := buf.Clear(); err != nil {
		return dst, err
	}
	if err := l.SerializeTo(buf, gopacket.SerializeOptions{}); err != nil {
		return dst, err
	}
	dscp := o.DSCP
	if dscp == 0 && !o.DSCPZero {
		dscp = DefaultDSCP
	}
	port := o.Port
	if port == 0 {
		port = device.DefaultBTSPort
	}
	f, err := device.BuildUDP(dst, device.UDPSpec{DstMAC: o.DstMAC, SrcMAC: o.SrcMAC, Src: s.Src, Dst: s.Dst, DSCP: dscp, TTL: 64,
		SrcPort: sport, DstPort: port, Payload: buf.Bytes()})
	if err != nil {
		return dst, fmt.Errorf("%w: addresses %v, %v", ErrTrigger, s.Src, s.Dst)
	}
	return f, nil
}

// Decode reads the Signal of a BTS frame (an Ethernet frame to UDP port
// port, 0 meaning 1021). The fixed header and the quote are decoded with
// layers.BTS; a quote too short to name a flow is an error.
func Decode(frame []byte, port uint16) (Signal, error) {
	var m device.Meta
	cp := device.Codepoints{BTSPort: port}.WithDefaults()
	device.Parse(frame, &m, &cp)
	return decodeMeta(frame, &m)
}

func decodeMeta(frame []byte, m *device.Meta) (Signal, error) {
	if m.Kind != device.KindBTS || m.Payload == 0 {
		return Signal{}, ErrNotBTS
	}
	end := len(frame)
	if ipEnd := m.L3 + m.IPLen; ipEnd >= m.Payload && ipEnd < end {
		end = ipEnd // strip Ethernet padding
	}
	var l layers.BTS
	if err := l.DecodeFromBytes(frame[m.Payload:end], gopacket.NilDecodeFeedback); err != nil {
		return Signal{}, err
	}
	return Signal{Src: m.Src, Dst: m.Dst, Flow: l.Flow, PauseUS: l.PauseUS, Cacheable: l.Cacheable, Origin: l.Origin,
		Reporter: l.Reporter, CPPort: l.CPPort, CPQueue: l.CPQueue, QueueDepth: l.QueueDepth, Quote: l.Quote}, nil
}

// Decoder reads the SFC signal a frame carries. DecodeBTS is the default;
// the cim package adds one for SFC-extended CIMs so that switches and NICs
// treat a CIM exactly as the BTS it stands for.
type Decoder func(d *device.Device, p *device.Packet) (Signal, bool)

// DecodeBTS is the Decoder for BTS frames.
func DecodeBTS(d *device.Device, p *device.Packet) (Signal, bool) {
	if p.Meta.Kind != device.KindBTS {
		return Signal{}, false
	}
	s, err := decodeMeta(p.Data, &p.Meta)
	return s, err == nil
}

func decode(decs []Decoder, d *device.Device, p *device.Packet) (Signal, bool) {
	for _, f := range decs {
		if s, ok := f(d, p); ok {
			return s, true
		}
	}
	return Signal{}, false
}

// PauseUS applies the pause time rule of behaviour.md §1: the larger of
// cacheNs and the time to drain qd − qtg octets at bps, rounded up to whole
// µs and clamped to 65535.
func PauseUS(cacheNs, qd, qtg, bps int64) uint16 {
	us := ceilDiv(max(cacheNs, 0), device.Microsecond)
	if qd > qtg && bps > 0 {
		// (qd − qtg) × 8 bit / bps s = (qd − qtg) × 8 × 10^6 / bps µs.
		hi, lo := bits.Mul64(uint64(qd-qtg), 8_000_000)
		if hi >= uint64(bps) {
			return 0xFFFF
		}
		q, r := bits.Div64(hi, lo, uint64(bps))
		if r != 0 {
			q++
		}
		if q > 0xFFFF {
			q = 0xFFFF
		}
		us = max(us, int64(q))
	}
	return uint16(min(us, 0xFFFF))
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }
