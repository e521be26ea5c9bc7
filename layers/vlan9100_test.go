// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/opensfc/sfc/internal/tsharktest"
)

// vlanFrame is one golden frame of testdata/vlan9100.pcap: a signal or a
// RoCEv2 packet behind VLAN tags of TPID 0x9100, alone or stacked with an
// 802.1Q or 802.1ad tag.
type vlanFrame struct {
	name    string
	hex     string
	tpids   []layers.EthernetType // the tags' TPIDs, outer first
	ids     []uint16
	prios   []uint8
	decoded []gopacket.LayerType // Parser's Decoded
}

// The payloads behind the tags: a PFC frame (C0 16 quanta, C5 0xFFFF),
// the IPv4 CNP vector of wire.md §3.3 and the IPv4 BTS of sample.pcapng
// (frame 9: quoting QP 0xd2, 20 µs).
const (
	vlanPFCBody = "8808 0101 0021 0010 0000 0000 0000 0000 ffff 0000 0000" // then 26 octets of padding: 46 after the tags
	vlanCNPBody = `0800 45c0003c00000000401165ef0a0000010a000002
    c00012b700280000 8100ffff400000d200000000 00000000000000000000000000000000 5c763923`
	vlanBTSBody = `0800 45c0006c00000000401165bf0a0000020a000001 c00003fd0058a844
    1100001400000007000303000005b8 d84568007c00000000401166070a0000010a000002c00012b7006800000a00ffff000000d2800003e800007f00000010000000123400000040abababababababab`
)

var ltDot1Q = layers.LayerTypeDot1Q

func vlanFrames() []vlanFrame {
	pad := func(n int) string { return " " + strings.Repeat("00", n) }
	const pfcMACs, ipMACs = "0180c2000001 020000000001 ", "020000000002 020000000001 "
	pfc := []gopacket.LayerType{ltEth, ltDot1Q, LayerTypePFC}
	cnp := []gopacket.LayerType{ltEth, ltDot1Q, layers.LayerTypeIPv4, layers.LayerTypeUDP, LayerTypeBTH}
	cnp2 := []gopacket.LayerType{ltEth, ltDot1Q, ltDot1Q, layers.LayerTypeIPv4, layers.LayerTypeUDP, LayerTypeBTH}
	return []vlanFrame{
		{"pfc 9100", pfcMACs + "9100 6064 " + vlanPFCBody + pad(26),
			[]layers.EthernetType{0x9100}, []uint16{100}, []uint8{3}, pfc},
		{"cnp 9100", ipMACs + "9100 a00a " + vlanCNPBody,
			[]layers.EthernetType{0x9100}, []uint16{10}, []uint8{5}, cnp},
		{"cnp 9100 8100", ipMACs + "9100 6005 8100 2006 " + vlanCNPBody,
			[]layers.EthernetType{0x9100, 0x8100}, []uint16{5, 6}, []uint8{3, 1}, cnp2},
		{"bts 9100", ipMACs + "9100 e07b " + vlanBTSBody,
			[]layers.EthernetType{0x9100}, []uint16{123}, []uint8{7},
			[]gopacket.LayerType{ltEth, ltDot1Q, layers.LayerTypeIPv4, layers.LayerTypeUDP, LayerTypeBTS}},
		{"pfc 8100 9100", pfcMACs + "8100 4001 9100 2002 " + vlanPFCBody + pad(26),
			[]layers.EthernetType{0x8100, 0x9100}, []uint16{1, 2}, []uint8{2, 1}, []gopacket.LayerType{ltEth, ltDot1Q, ltDot1Q, LayerTypePFC}},
		{"cnp 88a8 9100", ipMACs + "88a8 0fff 9100 0001 " + vlanCNPBody,
			[]layers.EthernetType{0x88a8, 0x9100}, []uint16{4095, 1}, []uint8{0, 0}, cnp2},
	}
}

// checkVLANFrame checks what p decoded of golden frame vf.
func checkVLANFrame(t *testing.T, p *Parser, vf vlanFrame) {
	t.Helper()
	if !slices.Equal(p.Decoded, vf.decoded) {
		t.Errorf("%s: decoded %v, want %v", vf.name, p.Decoded, vf.decoded)
	}
	if p.Dot1Q.NTags != len(vf.tpids) {
		t.Fatalf("%s: %d tags, want %d", vf.name, p.Dot1Q.NTags, len(vf.tpids))
	}
	for i, tag := range p.Dot1Q.Tags[:p.Dot1Q.NTags] {
		if tag.TPID != vf.tpids[i] || tag.ID != vf.ids[i] || tag.Priority != vf.prios[i] {
			t.Errorf("%s: tag %d: TPID %#04x ID %d PCP %d, want %#04x %d %d", vf.name, i, uint16(tag.TPID), tag.ID, tag.Priority,
				uint16(vf.tpids[i]), vf.ids[i], vf.prios[i])
		}
	}
	switch last := vf.decoded[len(vf.decoded)-1]; last {
	case LayerTypePFC:
		if p.PFC.EnableVector != 0x21 || p.PFC.Times[0] != 16 || p.PFC.Times[5] != 0xffff || p.PFC.Warnings != 0 {
			t.Errorf("%s: PFC %+v", vf.name, p.PFC)
		}
	case LayerTypeBTH:
		if !p.BTH.IsCNP() || p.BTH.DestQP != 0xd2 || !p.BTH.ICRCChecked || !p.BTH.ICRCOK {
			t.Errorf("%s: BTH destqp %#x CNP %v ICRC checked %v ok %v", vf.name, p.BTH.DestQP, p.BTH.IsCNP(), p.BTH.ICRCChecked, p.BTH.ICRCOK)
		}
	case LayerTypeBTS:
		if p.BTS.PauseUS != 20 || !p.BTS.Flow.HasQP || p.BTS.Flow.QP != 0xd2 {
			t.Errorf("%s: BTS pause %d flow %+v", vf.name, p.BTS.PauseUS, p.BTS.Flow)
		}
	}
}

// TestVLAN9100Parser: a frame whose VLAN tag has TPID 0x9100 (the
// pre-802.1ad QinQ TPID, a VLAN tag for Wireshark) decodes through its
// tags to the signal or RoCEv2 packet behind, as 0x8100 and 0x88A8 do,
// whichever of the tags it is; each tag names its TPID. Parser decoded
// the Ethernet header only, the rest unknown. A TPID that is none of the
// three (0x9200) stays a payload.
func TestVLAN9100Parser(t *testing.T) {
	p := NewParser()
	for _, vf := range vlanFrames() {
		frame := unhex(t, vf.hex)
		if err := p.Decode(frame); err != nil {
			t.Errorf("%s: %v", vf.name, err)
			continue
		}
		checkVLANFrame(t, p, vf)
		if n := testing.AllocsPerRun(50, func() { _ = p.Decode(frame) }); n != 0 {
			t.Errorf("%s: %v allocations per decode", vf.name, n)
		}
	}
	other := unhex(t, "0180c2000001 020000000001 9200 6064 "+vlanPFCBody+strings.Repeat("00", 26))
	if err := p.Decode(other); err != nil || !slices.Equal(p.Decoded, []gopacket.LayerType{ltEth}) || p.Dot1Q.NTags != 0 {
		t.Errorf("TPID 0x9200: decoded %v, %d tags, %v", p.Decoded, p.Dot1Q.NTags, err)
	}
}

// TestVLAN9100Gopacket: the registration reaches every gopacket decoder,
// not only Parser: gopacket.NewPacket, a DecodingLayerParser of
// gopacket's own Ethernet and Dot1Q, this package's Ethernet and Dot1Q,
// and a Linux cooked capture (SLL) whose protocol is 0x9100. IsVLANTPID
// names exactly the TPIDs that decode as Dot1Q.
func TestVLAN9100Gopacket(t *testing.T) {
	for _, vf := range vlanFrames() {
		frame := unhex(t, vf.hex)
		pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
		if el := pkt.ErrorLayer(); el != nil {
			t.Errorf("%s: NewPacket: %v", vf.name, el.Error())
		}
		last := vf.decoded[len(vf.decoded)-1]
		if pkt.Layer(last) == nil || len(pkt.Layers()) < len(vf.decoded) {
			t.Errorf("%s: NewPacket: %v, no %v", vf.name, pkt.Layers(), last)
		}
		var (
			eth   layers.Ethernet
			dot1q layers.Dot1Q
			ip4   layers.IPv4
			udp   layers.UDP
		)
		dlp := gopacket.NewDecodingLayerParser(layers.LayerTypeEthernet, &eth, &dot1q, &ip4, &udp)
		dlp.IgnoreUnsupported = true
		var got []gopacket.LayerType
		if err := dlp.DecodeLayers(frame, &got); err != nil || len(got) < 2 || got[1] != ltDot1Q {
			t.Errorf("%s: gopacket's DecodingLayerParser: %v %v", vf.name, got, err)
		}
	}
	for tpid := range 1 << 16 {
		et := layers.EthernetType(tpid)
		if IsVLANTPID(et) != (et.LayerType() == ltDot1Q) {
			t.Errorf("EtherType %#04x: IsVLANTPID %v, gopacket's layer %v", tpid, IsVLANTPID(et), et.LayerType())
		}
		if e := (Ethernet{Ethernet: layers.Ethernet{EthernetType: et}}); IsVLANTPID(et) && e.NextLayerType() != ltDot1Q {
			t.Errorf("Ethernet %#04x: next %v", tpid, e.NextLayerType())
		}
	}
	// A cooked capture (tcpdump -i any) of the PFC frame: the SLL header's
	// protocol is the tag's TPID.
	vf := vlanFrames()[0]
	sll := append(unhex(t, "0004 0001 0006 020000000001 0000 9100"), unhex(t, vf.hex)[14:]...)
	p := NewParser()
	if err := p.DecodeLink(layers.LinkTypeLinuxSLL, sll); err != nil {
		t.Fatal(err)
	}
	if want := []gopacket.LayerType{layers.LayerTypeLinuxSLL, ltDot1Q, LayerTypePFC}; !slices.Equal(p.Decoded, want) ||
		p.Dot1Q.NTags != 1 || p.Dot1Q.Tags[0].TPID != EthernetTypeQinQ9100 || p.Dot1Q.Tags[0].ID != 100 {
		t.Errorf("SLL: decoded %v, tags %+v", p.Decoded, p.Dot1Q.Tags[:p.Dot1Q.NTags])
	}
}

// TestVLAN9100Pcap keeps testdata/vlan9100.pcap, the frames of
// vlanFrames in order (regenerate with go test ./layers/ -run
// TestVLAN9100Pcap -update), decodes it, and checks the decode against
// tshark's, -T fields and -T json: the EtherType, every tag Wireshark
// calls vlan (0x8100 and 0x9100: vlan.id, vlan.priority, vlan.etype) or
// ieee8021ad (0x88A8), the PFC, the IPv4 and UDP headers and the BTH.
func TestVLAN9100Pcap(t *testing.T) {
	var buf bytes.Buffer
	w := pcapgo.NewWriter(&buf)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	vfs := vlanFrames()
	for i, vf := range vfs {
		frame := unhex(t, vf.hex)
		ci := gopacket.CaptureInfo{Timestamp: time.Unix(1700000000, int64(i)*1000).UTC(), CaptureLength: len(frame), Length: len(frame)}
		if err := w.WritePacket(ci, frame); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join("testdata", "vlan9100.pcap")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (regenerate with -update)", err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Errorf("%s differs from vlanFrames (regenerate with -update)", path)
	}

	// Ours, by tshark's names, as tshark -T fields prints them
	// (occurrence=a, aggregator=,).
	fields := []string{"eth.type", "vlan.id", "vlan.priority", "vlan.etype", "ieee8021ad.id", "macc.opcode", "macc.cbfc.enbv",
		"macc.cbfc.pause_time.c0", "macc.cbfc.pause_time.c5", "ip.src", "ip.dst", "udp.dstport", "infiniband.bth.opcode", "infiniband.bth.destqp"}
	r, err := pcapgo.NewReader(bytes.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	p := NewParser()
	var ours []map[string]string
	for i := 0; ; i++ {
		data, _, err := r.ReadPacketData()
		if err != nil {
			break
		}
		if err := p.Decode(data); err != nil {
			t.Errorf("frame %d: %v", i+1, err)
		}
		checkVLANFrame(t, p, vfs[i])
		row := map[string]string{"eth.type": fmt.Sprintf("0x%04x", uint16(p.Eth.EthernetType))}
		add := func(k, v string) {
			if row[k] != "" {
				v = row[k] + "," + v
			}
			row[k] = v
		}
		for _, tag := range p.Dot1Q.Tags[:p.Dot1Q.NTags] {
			if tag.TPID == layers.EthernetTypeQinQ {
				add("ieee8021ad.id", fmt.Sprint(tag.ID))
				continue
			}
			add("vlan.id", fmt.Sprint(tag.ID))
			add("vlan.priority", fmt.Sprint(tag.Priority))
			add("vlan.etype", fmt.Sprintf("0x%04x", uint16(tag.Type)))
		}
		if p.Has(LayerTypePFC) {
			row["macc.opcode"] = fmt.Sprintf("0x%04x", p.PFC.Opcode)
			row["macc.cbfc.enbv"] = fmt.Sprintf("0x%04x", p.PFC.EnableVector)
			row["macc.cbfc.pause_time.c0"] = fmt.Sprint(p.PFC.Times[0])
			row["macc.cbfc.pause_time.c5"] = fmt.Sprint(p.PFC.Times[5])
		}
		if p.Has(layers.LayerTypeIPv4) {
			row["ip.src"], row["ip.dst"] = p.IPv4.SrcIP.String(), p.IPv4.DstIP.String()
			row["udp.dstport"] = fmt.Sprint(uint16(p.UDP.DstPort))
		}
		if p.Has(LayerTypeBTH) {
			row["infiniband.bth.opcode"] = fmt.Sprint(p.BTH.Opcode)
			row["infiniband.bth.destqp"] = fmt.Sprintf("0x%06x", p.BTH.DestQP)
		}
		ours = append(ours, row)
	}
	if len(ours) != len(vfs) {
		t.Fatalf("%d frames read, want %d", len(ours), len(vfs))
	}

	bin := tsharktest.Path(t)
	lines := tsharktest.FieldLines(t, bin, path, fields, append([]string{"-n", "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=,"}, tsharkQuiet...)...)
	if len(lines) != len(vfs) {
		t.Fatalf("tshark printed %d lines for %d frames", len(lines), len(vfs))
	}
	for i, line := range lines {
		cols := strings.Split(line, "\t")
		for j, f := range fields {
			if cols[j] != ours[i][f] {
				t.Errorf("%s: %s: tshark %q, ours %q", vfs[i].name, f, cols[j], ours[i][f])
			}
		}
	}

	// -T json gives the tags (every occurrence, in order) as -T fields.
	args := append([]string{"-n", "-r", path, "-T", "json"}, tsharkQuiet...)
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatalf("tshark -T json: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		t.Fatalf("tshark -T json does not start with an array: %v %v", tok, err)
	}
	want := map[string]bool{"vlan.id": true, "vlan.priority": true, "vlan.etype": true, "ieee8021ad.id": true, "eth.type": true}
	for i := 0; dec.More(); i++ {
		vals := map[string][]string{}
		if err := walkJSON(dec, "", want, vals); err != nil {
			t.Fatalf("tshark -T json, frame %d: %v", i+1, err)
		}
		if i >= len(ours) {
			t.Fatalf("tshark -T json has more than %d frames", len(ours))
		}
		for f := range want {
			if got := strings.Join(vals[f], ","); got != ours[i][f] {
				t.Errorf("%s: -T json %s %q, ours %q", vfs[i].name, f, got, ours[i][f])
			}
		}
	}
}
