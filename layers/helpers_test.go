// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Addresses the test frames use.
var (
	macA = net.HardwareAddr{0x02, 0, 0, 0, 0, 0x01}
	macB = net.HardwareAddr{0x02, 0, 0, 0, 0, 0x02}
	ip4A = net.IP{10, 0, 0, 1}
	ip4B = net.IP{10, 0, 0, 2}
	ip6A = net.IP(netip.MustParseAddr("fd00::1").AsSlice())
	ip6B = net.IP(netip.MustParseAddr("fd00::2").AsSlice())
)

var (
	optsFix  = gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	optsNone = gopacket.SerializeOptions{}
)

// serialize runs gopacket.SerializeLayers and returns a copy of the bytes.
func serialize(t testing.TB, opts gopacket.SerializeOptions, ls ...gopacket.SerializableLayer) []byte {
	t.Helper()
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, opts, ls...); err != nil {
		t.Fatalf("SerializeLayers: %v", err)
	}
	return bytes.Clone(buf.Bytes())
}

// ethFor returns an Ethernet header for EtherType et.
func ethFor(dst net.HardwareAddr, et layers.EthernetType) *layers.Ethernet {
	return &layers.Ethernet{DstMAC: dst, SrcMAC: macA, EthernetType: et}
}

// udpOver returns Ethernet, IP and UDP layers (IPv4 or IPv6) ready for
// SerializeLayers with FixLengths and ComputeChecksums.
func udpOver(v6 bool, sport, dport uint16) (*layers.Ethernet, gopacket.SerializableLayer, *layers.UDP) {
	udp := &layers.UDP{SrcPort: layers.UDPPort(sport), DstPort: layers.UDPPort(dport)}
	if v6 {
		ip := &layers.IPv6{Version: 6, NextHeader: layers.IPProtocolUDP, HopLimit: 64, SrcIP: ip6A, DstIP: ip6B}
		udp.SetNetworkLayerForChecksum(ip)
		return ethFor(macB, layers.EthernetTypeIPv6), ip, udp
	}
	ip := &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: ip4A, DstIP: ip4B}
	udp.SetNetworkLayerForChecksum(ip)
	return ethFor(macB, layers.EthernetTypeIPv4), ip, udp
}

func b01(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// specFields renders a layer of this package as wire.md's field names
// (protocol.field) and values, so that golden expectations read like the
// specification's tables. Values are decimal except where noted.
func specFields(l gopacket.Layer) map[string]string {
	m := map[string]string{}
	flow := func(f Flow) {
		m["flow.src"] = f.Src.String()
		m["flow.dst"] = f.Dst.String()
		m["flow.proto"] = fmt.Sprint(f.Proto)
		m["flow.sport"] = fmt.Sprint(f.SrcPort)
		m["flow.dport"] = fmt.Sprint(f.DstPort)
		m["flow.dscp"] = fmt.Sprint(f.DSCP)
		if f.HasQP {
			m["flow.qp"] = fmt.Sprintf("0x%06x", f.QP)
		}
	}
	switch x := l.(type) {
	case *Pause:
		m["pause.opcode"] = fmt.Sprintf("0x%04x", x.Opcode)
		m["pause.quanta"] = fmt.Sprint(x.Quanta)
	case *PFC:
		m["pfc.opcode"] = fmt.Sprintf("0x%04x", x.Opcode)
		m["pfc.enable_vector"] = fmt.Sprintf("0x%04x", x.EnableVector)
		for i := 0; i < 8; i++ {
			m[fmt.Sprintf("pfc.c%d", i)] = b01(x.Enabled(i))
			m[fmt.Sprintf("pfc.time_c%d", i)] = fmt.Sprint(x.Times[i])
		}
	case *BTH:
		m["bth.opcode"] = fmt.Sprint(x.Opcode)
		m["bth.se"] = b01(x.SE)
		m["bth.m"] = b01(x.M)
		m["bth.padcnt"] = fmt.Sprint(x.PadCnt)
		m["bth.tver"] = fmt.Sprint(x.TVer)
		m["bth.pkey"] = fmt.Sprint(x.PKey)
		m["bth.fecn"] = b01(x.FECN)
		m["bth.becn"] = b01(x.BECN)
		m["bth.destqp"] = fmt.Sprintf("0x%06x", x.DestQP)
		m["bth.ackreq"] = b01(x.AckReq)
		m["bth.psn"] = fmt.Sprint(x.PSN)
		m["bth.icrc"] = fmt.Sprintf("0x%08x", x.ICRC)
		if x.ICRCChecked {
			m["bth.icrc_ok"] = b01(x.ICRCOK)
		}
		if x.HasRETH() {
			m["reth.va"] = fmt.Sprintf("0x%016x", x.RETH.VA)
			m["reth.rkey"] = fmt.Sprintf("0x%08x", x.RETH.RKey)
			m["reth.dmalen"] = fmt.Sprint(x.RETH.DMALen)
		}
		if x.HasAETH() {
			m["aeth.syndrome"] = fmt.Sprint(x.AETH.Syndrome)
			m["aeth.msn"] = fmt.Sprint(x.AETH.MSN)
		}
		if x.IsCNP() {
			m["cnp.destqp"] = fmt.Sprintf("0x%06x", x.CNP.DestQP)
		}
	case *CIM:
		m["cim.version"] = fmt.Sprint(x.Version)
		m["cim.add"] = b01(x.Add)
		m["cim.ext"] = b01(x.Ext)
		m["cim.da"] = x.DA.String()
		m["cim.sa"] = x.SA.String()
		m["cim.vid"] = fmt.Sprint(x.VID)
		m["cim.msdu_len"] = fmt.Sprint(x.MSDULen)
		if x.HasSFC {
			m["cim.pause_us"] = fmt.Sprint(x.SFC.PauseUS)
			m["cim.cacheable"] = b01(x.SFC.Cacheable)
			m["cim.origin"] = x.SFC.Origin.String()
			m["cim.reporter"] = fmt.Sprint(x.SFC.Reporter)
		}
		if fl, ok := x.Flow(); ok {
			flow(fl)
		}
	case *BTS:
		m["bts.version"] = fmt.Sprint(x.Version)
		m["bts.cacheable"] = b01(x.Cacheable)
		m["bts.origin"] = x.Origin.String()
		m["bts.pause_us"] = fmt.Sprint(x.PauseUS)
		m["bts.reporter"] = fmt.Sprint(x.Reporter)
		m["bts.cp_port"] = fmt.Sprint(x.CPPort)
		m["bts.cp_queue"] = fmt.Sprint(x.CPQueue)
		m["bts.queue_depth"] = fmt.Sprint(x.QueueDepth)
		m["bts.quote_len"] = fmt.Sprint(len(x.Quote))
		flow(x.Flow)
	case *Postcard:
		m["postcard.version"] = fmt.Sprint(x.Version)
		m["postcard.port"] = fmt.Sprint(x.Port)
		m["postcard.switch_id"] = x.SwitchID.String()
		m["postcard.rate_mbps"] = fmt.Sprint(x.RateMbps)
		m["postcard.window_ns"] = fmt.Sprint(x.WindowNS)
		m["postcard.ip_bytes"] = fmt.Sprint(x.IPBytes)
		m["postcard.q1_bytes"] = fmt.Sprint(x.Q1Bytes)
		m["postcard.recent_bytes"] = fmt.Sprint(x.RecentBytes)
		m["postcard.recent_marked_bytes"] = fmt.Sprint(x.RecentMarkedBytes)
		m["postcard.quote_len"] = fmt.Sprint(len(x.Quote))
		flow(x.Flow)
	case *BFC:
		m["bfc.version"] = fmt.Sprint(x.Version)
		m["bfc.hashes"] = fmt.Sprint(x.Hashes)
		m["bfc.filter_len"] = fmt.Sprint(x.FilterLen)
		m["bfc.seq"] = fmt.Sprint(x.Seq)
		m["bfc.bits_set"] = fmt.Sprint(x.BitsSet())
	case *FGCredit:
		m["fgcredit.version"] = fmt.Sprint(x.Version)
		m["fgcredit.family"] = fmt.Sprint(x.Family)
		m["fgcredit.count"] = fmt.Sprint(x.Count)
		var es []string
		for _, e := range x.Entries {
			es = append(es, fmt.Sprintf("{%v %d}", e.Dst, e.Credits))
		}
		m["fgcredit.entries"] = strings.Join(es, " ")
	case *FGPause:
		m["fgpause.version"] = fmt.Sprint(x.Version)
		m["fgpause.family"] = fmt.Sprint(x.Family)
		m["fgpause.count"] = fmt.Sprint(x.Count)
		var es []string
		for _, e := range x.Entries {
			es = append(es, fmt.Sprintf("{%v %d}", e.Dst, e.PauseUS))
		}
		m["fgpause.entries"] = strings.Join(es, " ")
	default:
		panic(fmt.Sprintf("specFields: %T", l))
	}
	return m
}

// diffFields lists the differences between two field maps, sorted.
func diffFields(got, want map[string]string) []string {
	var d []string
	for k, w := range want {
		if g, ok := got[k]; !ok {
			d = append(d, fmt.Sprintf("%s missing, want %q", k, w))
		} else if g != w {
			d = append(d, fmt.Sprintf("%s = %q, want %q", k, g, w))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			d = append(d, fmt.Sprintf("%s = %q unexpected", k, g))
		}
	}
	sort.Strings(d)
	return d
}

// sameLayer compares two values field by field, exported and unexported,
// treating a nil slice as equal to an empty one (a reused layer keeps its
// backing arrays). It returns the path of the first difference, or "".
func sameLayer(a, b any) string {
	return sameValue(reflect.ValueOf(a), reflect.ValueOf(b), reflect.TypeOf(a).String())
}

func sameValue(a, b reflect.Value, path string) string {
	if a.IsValid() != b.IsValid() {
		return path + ": validity"
	}
	if !a.IsValid() {
		return ""
	}
	if a.Type() != b.Type() {
		return fmt.Sprintf("%s: type %v vs %v", path, a.Type(), b.Type())
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return path + ": nil vs non-nil"
			}
			return ""
		}
		if a.Kind() == reflect.Pointer && a.Pointer() == b.Pointer() {
			return ""
		}
		return sameValue(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if d := sameValue(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: len %d vs %d", path, a.Len(), b.Len())
		}
		for i := 0; i < a.Len(); i++ {
			if d := sameValue(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Map:
		if a.Len() != b.Len() {
			return path + ": map len"
		}
		return ""
	case reflect.Bool:
		if a.Bool() != b.Bool() {
			return fmt.Sprintf("%s: %v vs %v", path, a.Bool(), b.Bool())
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if a.Int() != b.Int() {
			return fmt.Sprintf("%s: %v vs %v", path, a.Int(), b.Int())
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if a.Uint() != b.Uint() {
			return fmt.Sprintf("%s: %#x vs %#x", path, a.Uint(), b.Uint())
		}
	case reflect.String:
		if a.String() != b.String() {
			return fmt.Sprintf("%s: %q vs %q", path, a.String(), b.String())
		}
	case reflect.Func:
		if a.IsNil() != b.IsNil() {
			return path + ": func"
		}
	default:
		panic("sameValue: kind " + a.Kind().String() + " at " + path)
	}
	return ""
}

// roceOpcodes are the BTH opcodes this package defines extension headers
// for: every RC and UC operation, UD SEND ONLY (with immediate) and CNP.
var roceOpcodes = func() []uint8 {
	var ops []uint8
	for op := uint8(0x00); op <= 0x17; op++ {
		if op != 0x15 { // reserved
			ops = append(ops, op)
		}
	}
	for op := uint8(0x20); op <= 0x2b; op++ {
		ops = append(ops, op)
	}
	return append(ops, OpcodeUDSendOnly, OpcodeUDSendOnlyImm, OpcodeCNP)
}()

// roceFrame describes a RoCEv2 frame for build.
type roceFrame struct {
	v6        bool
	tos       uint8 // IPv4 TOS or IPv6 traffic class
	ttl       uint8 // 0: 64
	flowLabel uint32
	sport     uint16 // 0: 49152
	dport     uint16 // 0: 4791
	bth       BTH
	payload   []byte
}

// layers returns the layers of the frame, the BTH told its IP and UDP.
func (r roceFrame) layers() (*layers.Ethernet, gopacket.SerializableLayer, *layers.UDP, *BTH) {
	sport, dport, ttl := r.sport, r.dport, r.ttl
	if sport == 0 {
		sport = 49152
	}
	if dport == 0 {
		dport = RoCEv2Port
	}
	if ttl == 0 {
		ttl = 64
	}
	eth, ip, udp := udpOver(r.v6, sport, dport)
	switch x := ip.(type) {
	case *layers.IPv4:
		x.TOS, x.TTL = r.tos, ttl
	case *layers.IPv6:
		x.TrafficClass, x.FlowLabel, x.HopLimit = r.tos, r.flowLabel, ttl
	}
	bth := r.bth
	bth.SetNetworkLayerForICRC(ip, udp)
	return eth, ip, udp, &bth
}

// build serializes the frame with opts.
func (r roceFrame) build(t testing.TB, opts gopacket.SerializeOptions) []byte {
	t.Helper()
	eth, ip, udp, bth := r.layers()
	return serialize(t, opts, eth, ip, udp, bth, gopacket.Payload(r.payload))
}
