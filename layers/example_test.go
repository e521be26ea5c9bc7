// SPDX-License-Identifier: Apache-2.0

package layers_test

import (
	"encoding/hex"
	"fmt"
	"net"
	"strings"

	"github.com/gopacket/gopacket"
	gl "github.com/gopacket/gopacket/layers"

	"github.com/opensfc/sfc/layers"
)

func mustHex(s string) []byte {
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		panic(err)
	}
	return b
}

// A PFC frame pausing priority 3 for 0xFFFF quanta (wire.md §2).
var pfcFrame = mustHex(`0180c2000001 020000000001 8808
	0101 0008 0000 0000 0000 ffff 0000 0000 0000 0000
	0000000000000000000000000000000000000000000000000000`)

// The IPv4 CNP vector of wire.md §3.3.
var cnpFrame = mustHex(`020000000002 020000000001 0800 45c0003c00000000401165ef0a0000010a000002
	c00012b700280000 8100ffff400000d200000000 00000000000000000000000000000000 5c763923`)

// Importing the package is enough for gopacket.NewPacket to decode the
// formats of wire.md.
func Example_newPacket() {
	pkt := gopacket.NewPacket(pfcFrame, gl.LayerTypeEthernet, gopacket.Default)
	if pfc, ok := pkt.Layer(layers.LayerTypePFC).(*layers.PFC); ok {
		for p := 0; p < 8; p++ {
			if pfc.Enabled(p) {
				fmt.Printf("priority %d paused for %d quanta\n", p, pfc.Times[p])
			}
		}
		fmt.Println("warnings:", len(pfc.Warnings.List()))
	}
	cnp := gopacket.NewPacket(cnpFrame, gl.LayerTypeEthernet, gopacket.Default)
	fmt.Println(cnp.Layer(layers.LayerTypeCNP) != nil, cnp.Layer(layers.LayerTypeBTH).(*layers.BTH).ICRCOK)
	// Output:
	// priority 3 paused for 65535 quanta
	// warnings: 0
	// true true
}

// Parser decodes frame after frame without allocating, and checks the
// RoCEv2 ICRC.
func ExampleParser() {
	p := layers.NewParser()
	for _, frame := range [][]byte{cnpFrame, pfcFrame} {
		if err := p.Decode(frame); err != nil {
			fmt.Println("error:", err)
			continue
		}
		switch {
		case p.Has(layers.LayerTypeBTH) && p.BTH.IsCNP():
			fmt.Printf("CNP to QP 0x%06x from %v, BECN %v, ICRC ok %v\n", p.BTH.DestQP, p.IPv4.SrcIP, p.BTH.BECN, p.BTH.ICRCOK)
		case p.Has(layers.LayerTypePFC):
			fmt.Printf("PFC vector 0x%04x\n", p.PFC.EnableVector)
		}
	}
	// A cut frame: the error names the layer, the field and the offset.
	err := p.Decode(cnpFrame[:14+20+8+12+10])
	fmt.Println(p.Failed, err)
	// Output:
	// CNP to QP 0x0000d2 from 10.0.0.1, BECN true, ICRC ok true
	// PFC vector 0x0008
	// BTH bth: cnp at offset 12: length field points past the data (opcode 0x81 needs 16 octets of extension headers, 6 before the ICRC)
}

// A switch builds a BTS from the data packet that triggered it (wire.md
// §5): addresses swapped, DSCP 48, the data packet's UDP source port, and
// the first 64 octets of the packet as the quote.
func ExampleBTS() {
	data := cnpFrame[14:] // the offending packet, from its IP header
	flow, _ := layers.DecodeQuote(data)

	ip := &gl.IPv4{Version: 4, TOS: 48 << 2, TTL: 64, Protocol: gl.IPProtocolUDP,
		SrcIP: flow.Dst.AsSlice(), DstIP: flow.Src.AsSlice()}
	udp := &gl.UDP{SrcPort: gl.UDPPort(flow.SrcPort), DstPort: layers.DefaultBTSPort}
	udp.SetNetworkLayerForChecksum(ip)
	bts := &layers.BTS{Cacheable: true, Origin: layers.OriginQueue, PauseUS: 25, Reporter: 7,
		CPPort: 3, CPQueue: 3, QueueDepth: 250000, Quote: layers.Quote(data)}
	buf := gopacket.NewSerializeBuffer()
	err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true},
		&gl.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, EthernetType: gl.EthernetTypeIPv4},
		ip, udp, bts)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d octets, BTS header %x\n", len(buf.Bytes()), buf.Bytes()[14+20+8:][:16])

	pkt := gopacket.NewPacket(buf.Bytes(), gl.LayerTypeEthernet, gopacket.Default)
	got := pkt.Layer(layers.LayerTypeBTS).(*layers.BTS)
	fmt.Println(got.PauseUS, got.Origin, got.Flow)
	// Output:
	// 118 octets, BTS header 1100001900000007000303000003d090
	// 25 queue 10.0.0.1:49152 > 10.0.0.2:4791 proto 17 dscp 48 qp 0x0000d2
}

// RegisterUDPPort moves a format to another port at run time, the way
// Wireshark's "decode as" works.
func ExampleRegisterUDPPort() {
	layers.RegisterUDPPort(2021, layers.LayerTypeBTS)
	defer layers.UnregisterUDPPort(2021)
	fmt.Println(layers.UDPPorts(layers.LayerTypeBTS))

	quote := cnpFrame[14:]
	ip := &gl.IPv4{Version: 4, TTL: 64, Protocol: gl.IPProtocolUDP, SrcIP: net.IP{10, 0, 0, 2}, DstIP: net.IP{10, 0, 0, 1}}
	udp := &gl.UDP{SrcPort: 49152, DstPort: 2021}
	udp.SetNetworkLayerForChecksum(ip)
	buf := gopacket.NewSerializeBuffer()
	_ = gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true},
		&gl.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, EthernetType: gl.EthernetTypeIPv4},
		ip, udp, &layers.BTS{PauseUS: 10, Quote: quote})
	p := layers.NewParser()
	if err := p.Decode(buf.Bytes()); err == nil && p.Has(layers.LayerTypeBTS) {
		fmt.Println("BTS on port 2021, pause", p.BTS.PauseUS, "us")
	}
	// Output:
	// [1021 2021]
	// BTS on port 2021, pause 10 us
}

// A DecodingLayerParser of one's own: this package's Ethernet (in place of
// gopacket's) names PAUSE and PFC frames' layer itself, so the parser goes
// straight to it; the package's UDP looks its ports up in a flat table.
func ExampleEthernet() {
	var (
		eth layers.Ethernet
		ip4 gl.IPv4
		udp layers.UDP
		pfc layers.PFC
		bth layers.BTH
	)
	dlp := gopacket.NewDecodingLayerParser(gl.LayerTypeEthernet, &eth, &ip4, &udp, &pfc, &bth)
	dlp.IgnoreUnsupported = true
	var decoded []gopacket.LayerType
	for _, frame := range [][]byte{pfcFrame, cnpFrame} {
		if err := dlp.DecodeLayers(frame, &decoded); err != nil {
			fmt.Println("error:", err)
		}
		fmt.Println(decoded)
	}
	fmt.Println(pfc.Times[3], bth.Opcode == layers.OpcodeCNP, bth.CNP.DestQP)
	// Output:
	// [Ethernet PFC]
	// [Ethernet IPv4 UDP BTH]
	// 65535 true 210
}

// A BFC pause frame pausing the flow of the CNP above: its bit in each of
// the k stages, stage s at CRC_s(5-tuple) mod (8 L / k) (wire.md §7.1).
func ExampleBFC() {
	flow, _ := layers.DecodeQuote(cnpFrame[14:])
	h := layers.BFCFlowHashes(flow) // the eight stage CRCs; h[0] is the VFID
	const k, l = layers.BFCDefaultHashes, layers.BFCDefaultFilterLen
	filter := make([]byte, l)
	for s := 0; s < k; s++ {
		layers.SetFilterBit(layers.BFCVersion, filter, k, &h, s)
	}
	buf := gopacket.NewSerializeBuffer()
	err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true},
		&gl.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, DstMAC: layers.HopByHopDst, EthernetType: layers.EthernetTypeFCExp},
		&layers.BFC{Hashes: k, Seq: 1, Filter: filter})
	if err != nil {
		fmt.Println(err)
		return
	}
	pkt := gopacket.NewPacket(buf.Bytes(), gl.LayerTypeEthernet, gopacket.Default)
	got := pkt.Layer(layers.LayerTypeBFC).(*layers.BFC)
	other := flow
	other.SrcPort++
	fmt.Printf("version %d, VFID %08x, %d bits set, pauses the flow %v, the next port %v\n",
		got.Version, layers.VFID(flow), got.BitsSet(), got.Matches(flow), got.Matches(other))
	// Output:
	// version 2, VFID 2bd0dc8d, 4 bits set, pauses the flow true, the next port false
}

// A frame of `tcpdump -i any` (a Linux cooked capture v2, link type 276):
// DecodeLink decodes the cooked header, then RoCEv2 as behind Ethernet.
func ExampleParser_DecodeLink() {
	frame, _ := hex.DecodeString("080000000000000103040006000000000000000045000044739240004011c9147f0000017f000001" +
		"c00012b70030fe430a40ffff0000abcd00000007000000000000100000001234000000087061796c6f61642101020304")
	p := layers.NewParser()
	if err := p.DecodeLink(276, frame); err != nil {
		fmt.Println("error:", err)
	}
	fmt.Println(p.Decoded)
	fmt.Printf("ifindex %d, qp 0x%06x, dma length %d\n", p.SLL2.InterfaceIndex, p.BTH.DestQP, p.BTH.RETH.DMALen)
	// Output:
	// [Linux SLL2 IPv4 UDP BTH Payload]
	// ifindex 1, qp 0x00abcd, dma length 8
}
