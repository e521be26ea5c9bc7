// SPDX-License-Identifier: Apache-2.0

package sample

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/netip"
	"time"

	"github.com/gopacket/gopacket"
	glayers "github.com/gopacket/gopacket/layers"

	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/pcapio"
)

// Frame is one frame of a sample capture.
type Frame struct {
	Name      string // what the frame shows; written as its pcapng comment
	Interface int
	Data      []byte
}

// Start is the timestamp of the first sample frame; frame i is at Start + i µs.
var Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Interfaces names the sample captures' interfaces.
var Interfaces = []string{"port0", "port1"}

var (
	macA   = net.HardwareAddr{0x02, 0, 0, 0, 0, 0x01}
	macB   = net.HardwareAddr{0x02, 0, 0, 0, 0, 0x02}
	hostA4 = netip.MustParseAddr("10.0.0.1")
	hostB4 = netip.MustParseAddr("10.0.0.2")
	sw4    = netip.MustParseAddr("10.0.255.1")
	hostA6 = netip.MustParseAddr("fd00::1")
	hostB6 = netip.MustParseAddr("fd00::2")
	sw6    = netip.MustParseAddr("fd00::ff:1")
)

var opts = gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err) // the sample frames are fixed: an error is a bug in this package
	}
	return b
}

func serialize(ls ...gopacket.SerializableLayer) ([]byte, error) {
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, opts, ls...); err != nil {
		return nil, err
	}
	return append([]byte(nil), buf.Bytes()...), nil
}

// ipUDP returns Ethernet, IP and UDP layers from src to dst (both IPv4 or
// both IPv6) with the given DSCP.
func ipUDP(src, dst netip.Addr, dscp uint8, sport, dport uint16) (*glayers.Ethernet, gopacket.SerializableLayer, *glayers.UDP) {
	eth := &glayers.Ethernet{SrcMAC: macA, DstMAC: macB}
	udp := &glayers.UDP{SrcPort: glayers.UDPPort(sport), DstPort: glayers.UDPPort(dport)}
	if src.Is4() {
		eth.EthernetType = glayers.EthernetTypeIPv4
		ip := &glayers.IPv4{Version: 4, TOS: dscp << 2, TTL: 64, Protocol: glayers.IPProtocolUDP, SrcIP: src.AsSlice(), DstIP: dst.AsSlice()}
		udp.SetNetworkLayerForChecksum(ip)
		return eth, ip, udp
	}
	eth.EthernetType = glayers.EthernetTypeIPv6
	ip := &glayers.IPv6{Version: 6, TrafficClass: dscp << 2, HopLimit: 64, NextHeader: glayers.IPProtocolUDP, SrcIP: src.AsSlice(), DstIP: dst.AsSlice()}
	udp.SetNetworkLayerForChecksum(ip)
	return eth, ip, udp
}

// RoCE builds a RoCEv2 frame from src to dst carrying bth and payload, with
// a computed ICRC (and, over IPv4, UDP checksum 0 as RoCEv2 sends it).
func RoCE(src, dst netip.Addr, dscp uint8, sport uint16, bth *layers.BTH, payload []byte) ([]byte, error) {
	eth, ip, udp := ipUDP(src, dst, dscp, sport, layers.RoCEv2Port)
	bth.SetNetworkLayerForICRC(ip, udp)
	b, err := serialize(eth, ip, udp, bth, gopacket.Payload(payload))
	if err == nil && src.Is4() {
		b[14+20+6], b[14+20+7] = 0, 0
	}
	return b, err
}

// IPPacket returns the IP packet of an Ethernet frame (no VLAN tag).
func IPPacket(frame []byte) []byte { return frame[14:] }

// UDPFrame builds an Ethernet/IP/UDP frame carrying one of our UDP layers.
func UDPFrame(src, dst netip.Addr, dscp uint8, sport, dport uint16, l gopacket.SerializableLayer) ([]byte, error) {
	eth, ip, udp := ipUDP(src, dst, dscp, sport, dport)
	return serialize(eth, ip, udp, l)
}

// L2Frame builds an Ethernet frame of the given EtherType carrying l,
// padded to 60 octets.
func L2Frame(src, dst net.HardwareAddr, et glayers.EthernetType, l gopacket.SerializableLayer) ([]byte, error) {
	return serialize(&glayers.Ethernet{SrcMAC: src, DstMAC: dst, EthernetType: et}, l)
}

// filterWith returns a BFC filter of l octets and k stages pausing the
// flows, its stages indexed as a frame of the given version defines them.
func filterWith(version uint8, k, l int, flows ...layers.Flow) []byte {
	f := make([]byte, l)
	for _, fl := range flows {
		h := layers.BFCFlowHashes(fl)
		for s := 0; s < k; s++ {
			layers.SetFilterBit(version, f, k, &h, s)
		}
	}
	return f
}

// Frames returns the sample capture: one frame of every format.
func Frames() []Frame {
	write4 := must(RoCE(hostA4, hostB4, 26, 49152, &layers.BTH{Opcode: layers.OpcodeRCWriteOnly, PKey: 0xffff, DestQP: 0xd2, AckReq: true, PSN: 1000,
		RETH: layers.RETH{VA: 0x7f0000001000, RKey: 0x1234, DMALen: 64}}, bytes.Repeat([]byte{0xab}, 64)))
	write6 := must(RoCE(hostA6, hostB6, 26, 49153, &layers.BTH{Opcode: layers.OpcodeRCWriteOnlyImm, PKey: 0x8001, DestQP: 0xabcd, PSN: 7,
		RETH: layers.RETH{VA: 0x1000, RKey: 0x99, DMALen: 30}, ImmDt: layers.ImmDt{Data: 0xdeadbeef}}, bytes.Repeat([]byte{0xcd}, 30)))
	ack6 := must(RoCE(hostB6, hostA6, 26, 49154, &layers.BTH{Opcode: layers.OpcodeRCAck, PKey: 0xffff, DestQP: 0x11, PSN: 7,
		AETH: layers.AETH{Syndrome: 0x1f, MSN: 3}}, nil))
	cnp4 := must(RoCE(hostB4, hostA4, 48, 49152, &layers.BTH{Opcode: layers.OpcodeCNP, PKey: 0xffff, BECN: true, DestQP: 0xd2}, nil))
	cnp6 := must(RoCE(hostB6, hostA6, 48, 49153, &layers.BTH{Opcode: layers.OpcodeCNP, PKey: 0xffff, BECN: true, DestQP: 0xabcd}, nil))
	ecn4 := must(RoCE(hostA4, hostB4, 26, 49152, &layers.BTH{Opcode: layers.OpcodeRCSendOnly, PKey: 0xffff, FECN: true, DestQP: 0xd2, PSN: 1001}, []byte("hello, receiver!")))

	q4 := layers.Quote(IPPacket(write4))
	q6 := layers.Quote(IPPacket(write6))
	flow4, _ := layers.DecodeQuote(q4)
	flow6, _ := layers.DecodeQuote(q6)

	bts4 := must(UDPFrame(hostB4, hostA4, 48, 49152, layers.DefaultBTSPort, &layers.BTS{Version: 1, Cacheable: true, Origin: layers.OriginQueue,
		PauseUS: 20, Reporter: 7, CPPort: 3, CPQueue: 3, QueueDepth: 375000, Quote: q4}))
	bts6 := must(UDPFrame(hostB6, hostA6, 48, 49153, layers.DefaultBTSPort, &layers.BTS{Version: 1, Origin: layers.OriginCache,
		PauseUS: 12, Reporter: 9, CPPort: layers.CPPortUnknown, CPQueue: 3, Quote: q6}))
	resume4 := must(UDPFrame(hostB4, hostA4, 48, 49152, layers.DefaultBTSPort, &layers.BTS{Version: 1, Origin: layers.OriginEstimate,
		PauseUS: 0, Reporter: 7, CPPort: 3, CPQueue: 3, Quote: q4}))

	sfc := layers.SFCPause{PauseUS: 20, Cacheable: true, Origin: layers.OriginQueue, Reporter: 7}
	cimL2 := must(L2Frame(macB, macA, layers.EthernetTypeCIM, &layers.CIM{Add: true, DA: macB, SA: macA, VID: 100,
		MSDU: layers.CIMMSDU(IPPacket(write4)), HasSFC: true, SFC: sfc}))
	cimL3v4 := must(UDPFrame(hostB4, hostA4, 48, 49152, layers.DefaultCIMPort, &layers.CIM{Add: true, DA: macB, SA: macA,
		MSDU: layers.CIMMSDU(IPPacket(write4)), HasSFC: true, SFC: sfc}))
	cimL3v6 := must(UDPFrame(hostB6, hostA6, 48, 49153, layers.DefaultCIMPort, &layers.CIM{Add: true, DA: macB, SA: macA, VID: 5,
		MSDU: layers.CIMMSDU(IPPacket(write6))}))

	pc := func(q []byte) *layers.Postcard {
		return &layers.Postcard{Version: 1, Port: 5, SwitchID: net.HardwareAddr{0x02, 0, 0, 0, 0xff, 1}, RateMbps: 100000,
			WindowNS: 25000, IPBytes: 400000, Q1Bytes: 50000, RecentBytes: 6000, RecentMarkedBytes: 1000, Quote: q}
	}
	pc4 := must(UDPFrame(sw4, hostA4, 48, 49152, layers.DefaultPostcardPort, pc(q4)))
	pc6 := must(UDPFrame(sw6, hostA6, 48, 49153, layers.DefaultPostcardPort, pc(q6)))

	bfc := must(L2Frame(macB, layers.HopByHopDst, layers.EthernetTypeFCExp, &layers.BFC{Version: layers.BFCVersion, Hashes: 4, Seq: 42,
		Filter: filterWith(layers.BFCVersion, 4, 128, flow4, flow6)}))
	cr4 := must(L2Frame(macB, layers.HopByHopDst, layers.EthernetTypeFCExp, &layers.FGCredit{Version: 1, Family: 4,
		Entries: []layers.CreditEntry{{Credits: 147500, Dst: hostB4}, {Credits: 1078, Dst: netip.MustParseAddr("10.0.1.7")}}}))
	cr6 := must(L2Frame(macB, layers.HopByHopDst, layers.EthernetTypeFCExp, &layers.FGCredit{Version: 1, Family: 6,
		Entries: []layers.CreditEntry{{Credits: 4096, Dst: hostB6}}}))
	dp4 := must(L2Frame(macB, layers.HopByHopDst, layers.EthernetTypeFCExp, &layers.FGPause{Version: 1, Family: 4,
		Entries: []layers.DstPauseEntry{{PauseUS: layers.PauseUntilResumed, Dst: hostB4}}}))
	dp6 := must(L2Frame(macB, layers.HopByHopDst, layers.EthernetTypeFCExp, &layers.FGPause{Version: 1, Family: 6,
		Entries: []layers.DstPauseEntry{{PauseUS: 0, Dst: hostB6}}}))

	pause := must(L2Frame(macB, layers.MACControlDst, layers.EthernetTypeMACControl, &layers.Pause{Quanta: 0xffff}))
	pfc := &layers.PFC{}
	pfc.Enable(3, 0xffff)
	pfc.Enable(5, 0)
	pfcF := must(L2Frame(macB, layers.MACControlDst, layers.EthernetTypeMACControl, pfc))

	return []Frame{
		{"802.3x PAUSE, 65535 quanta", 1, pause},
		{"802.1Qbb PFC: priority 3 paused 65535 quanta, priority 5 resumed", 1, pfcF},
		{"RoCEv2 RC RDMA WRITE Only with RETH, IPv4", 0, write4},
		{"RoCEv2 RC RDMA WRITE Only with Immediate (RETH + ImmDt), IPv6", 0, write6},
		{"RoCEv2 RC Acknowledge with AETH, IPv6", 1, ack6},
		{"RoCEv2 RC SEND Only with FECN set, IPv4", 0, ecn4},
		{"RoCEv2 CNP, IPv4", 1, cnp4},
		{"RoCEv2 CNP, IPv6", 1, cnp6},
		{"BTS from the congestion point (origin queue, C), IPv4", 1, bts4},
		{"BTS from a pause cache (origin cache), IPv6", 1, bts6},
		{"BTS resume (pause 0, origin estimate), IPv4", 1, resume4},
		{"802.1Qcz CIM, L2 (EtherType 0x89A2), SFC pause TLV", 1, cimL2},
		{"802.1Qcz CIM, L3 IPv4/UDP 35234, SFC pause TLV", 1, cimL3v4},
		{"802.1Qcz CIM, L3 IPv6/UDP 35234, no extension", 1, cimL3v6},
		{"PB-FS CC-postcard, IPv4", 1, pc4},
		{"PB-FS CC-postcard, IPv6", 1, pc6},
		{"BFC pause frame pausing the two sample RoCEv2 flows", 1, bfc},
		{"Floodgate credit, IPv4, two destinations", 1, cr4},
		{"Floodgate credit, IPv6", 1, cr6},
		{"Floodgate dst-pause until resumed, IPv4", 1, dp4},
		{"Floodgate dst-pause resume, IPv6", 1, dp6},
	}
}

// Malformed returns frames that are broken in one way each.
func Malformed() []Frame {
	fr := Frames()
	get := func(prefix string) []byte {
		for _, f := range fr {
			if len(f.Name) >= len(prefix) && f.Name[:len(prefix)] == prefix {
				return append([]byte(nil), f.Data...)
			}
		}
		panic("no sample frame " + prefix)
	}
	shortQuote := must(UDPFrame(hostB4, hostA4, 48, 49152, layers.DefaultBTSPort, &layers.BTS{Version: 1, PauseUS: 5, Quote: IPPacket(get("RoCEv2 CNP, IPv4"))[:24]}))
	badVersion := get("BTS from the congestion point")
	badVersion[14+20+8] = 0x21 // version 2
	cimLen := get("802.1Qcz CIM, L2")
	cimLen[14+15], cimLen[14+16] = 0x05, 0xdc // MSDU length 1500
	cimTLV := get("802.1Qcz CIM, L3 IPv4")
	tlvOff := 14 + 20 + 8 + 17 + (int(cimTLV[14+20+8+15])<<8 | int(cimTLV[14+20+8+16])) // the SFC TLV follows the MSDU
	cimTLV[tlvOff+1] = 200
	bfcL := get("BFC pause frame")
	bfcL[14+6], bfcL[14+7] = 0x03, 0xfc // L = 1020, a multiple of 4 past the data
	badICRC := get("RoCEv2 RC RDMA WRITE Only with RETH, IPv4")
	badICRC[len(badICRC)-1] ^= 0xff
	pfcRes := get("802.1Qbb PFC")
	pfcRes[14+2] = 0x80 // reserved high octet of the enable vector
	copy(pfcRes[0:6], macA)
	shortBTH := get("RoCEv2 CNP, IPv4")[:14+20+8+10]
	flow4, _ := layers.DecodeQuote(IPPacket(get("RoCEv2 RC RDMA WRITE Only with RETH, IPv4")))
	flow6, _ := layers.DecodeQuote(IPPacket(get("RoCEv2 RC RDMA WRITE Only with Immediate")))
	bfcV1 := must(L2Frame(macB, layers.HopByHopDst, layers.EthernetTypeFCExp, &layers.BFC{Version: layers.BFCVersion1, Hashes: 4, Seq: 43,
		Filter: filterWith(layers.BFCVersion1, 4, 128, flow4, flow6)}))
	return []Frame{
		{"BTS whose quote (24 octets) cannot name a flow", 1, shortQuote},
		{"BTS of version 2", 1, badVersion},
		{"CIM whose MSDU length (1500) runs past the frame", 1, cimLen},
		{"CIM whose SFC TLV length (200) runs past the PDU", 1, cimTLV},
		{"BFC whose filter length (1020) runs past the frame", 1, bfcL},
		{"RoCEv2 WRITE with a wrong ICRC (a warning, not an error)", 0, badICRC},
		{"PFC with reserved bits set, to a unicast MAC (warnings)", 1, pfcRes},
		{"RoCEv2 frame cut inside the BTH", 1, shortBTH},
		{"BFC pause of version 1 pausing the two sample RoCEv2 flows (a warning: its stages are degenerate)", 1, bfcV1},
	}
}

// Write writes frames as pcapng with the sample interfaces, one µs apart,
// each frame's Name as its comment.
func Write(w io.Writer, frames []Frame) error {
	pw, err := pcapio.NewWriter(w, Interfaces...)
	if err != nil {
		return err
	}
	for i, f := range frames {
		if err := pw.Write(f.Interface, Start.Add(time.Duration(i)*time.Microsecond), f.Data, len(f.Data), f.Name); err != nil {
			return fmt.Errorf("frame %d: %w", i+1, err)
		}
	}
	return pw.Flush()
}
