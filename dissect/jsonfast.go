// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"encoding/binary"
	"sync"
	"time"

	glayers "github.com/gopacket/gopacket/layers"
)

// The JSON of the common protocols written straight from the decoded
// layers, without the field table's getters: a getter returns each value
// as a Value (80 octets) through two closure calls, which made -T json
// four times as slow as the one-line summary. A straight writer must write
// exactly what the generic loop of AppendJSON writes from the table; it is
// used only when the protocol's fields in the table are still those it
// writes (names, kinds and order, checked at init, so a change to the
// table falls back to the generic loop rather than to different output),
// on a frame that decoded whole and was not cut. TestJSONFastMatchesTable
// compares both on every sample frame.

// jsonFast is the straight writer of one protocol: the fields it writes,
// and the writer, which appends the fields (between the braces) or
// reports false to leave the frame to the generic loop.
type jsonFast struct {
	fields []fastField
	write  func(dst []byte, f *Frame) ([]byte, bool)
}

type fastField struct {
	short string
	kind  Kind
}

func uints(shorts ...string) []fastField {
	out := make([]fastField, len(shorts))
	for i, s := range shorts {
		out[i] = fastField{s, KindUint}
	}
	return out
}

// jsonFastByProto are the straight writers by protocol name.
var jsonFastByProto = map[string]jsonFast{
	"eth": {[]fastField{{"src", KindMAC}, {"dst", KindMAC}, {"type", KindUint}}, jsonEth},
	"ip": {[]fastField{{"version", KindUint}, {"src", KindIP}, {"dst", KindIP}, {"dscp", KindUint}, {"ecn", KindUint},
		{"ttl", KindUint}, {"proto", KindUint}}, jsonIPv4},
	"udp": {uints("sport", "dport"), jsonUDP},
	"bth": {[]fastField{{"opcode", KindUint}, {"se", KindBool}, {"m", KindBool}, {"padcnt", KindUint}, {"tver", KindUint},
		{"pkey", KindUint}, {"fecn", KindBool}, {"becn", KindBool}, {"destqp", KindUint}, {"ackreq", KindBool},
		{"psn", KindUint}, {"icrc", KindUint}, {"icrc_ok", KindBool}}, jsonBTH},
	"reth": {uints("va", "rkey", "dmalen"), jsonRETH},
	"aeth": {uints("syndrome", "msn"), jsonAETH},
	"cnp":  {uints("destqp"), jsonCNP},
	"pfc":  {pfcFastFields(), jsonPFC},
}

func pfcFastFields() []fastField {
	fs := uints("opcode", "enable_vector")
	for i := 0; i < 8; i++ {
		fs = append(fs, fastField{"c" + string(rune('0'+i)), KindBool})
	}
	for i := 0; i < 8; i++ {
		fs = append(fs, fastField{"time_c" + string(rune('0'+i)), KindUint})
	}
	for i := 0; i < 8; i++ {
		fs = append(fs, fastField{"pause_ns_c" + string(rune('0'+i)), KindUint})
	}
	return fs
}

// jsonFastOf[i] is the straight writer of Protos[i], nil when it has none
// or when the table's fields are no longer the ones it writes.
var jsonFastOf []func(dst []byte, f *Frame) ([]byte, bool)

// jsonOpen[i] is `,"<name>":{` of Protos[i].
var jsonOpen []string

func init() {
	jsonFastOf = make([]func([]byte, *Frame) ([]byte, bool), len(Protos))
	jsonOpen = make([]string, len(Protos))
	for i, p := range Protos {
		jsonOpen[i] = `,"` + p.Name + `":{`
		if fast, ok := jsonFastByProto[p.Name]; ok && fast.matches(p) {
			jsonFastOf[i] = fast.write
		}
	}
}

// matches reports whether p's fields are those the writer writes.
func (j jsonFast) matches(p *Proto) bool {
	if len(p.Fields) != len(j.fields) {
		return false
	}
	for i, fd := range p.Fields {
		if fd.Short != j.fields[i].short || fd.Kind != j.fields[i].kind || fd.Entry {
			return false
		}
	}
	return true
}

func appendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}

// appendMACJSON appends a hardware address as a quoted JSON string, as
// appendJSONValue does for KindMAC.
func appendMACJSON(dst []byte, m []byte) []byte {
	dst = append(dst, '"')
	for i, c := range m {
		if i > 0 {
			dst = append(dst, ':')
		}
		dst = append(dst, hexDigits[c>>4], hexDigits[c&15])
	}
	return append(dst, '"')
}

func jsonEth(dst []byte, f *Frame) ([]byte, bool) {
	e := &f.P.Eth
	dst = append(dst, `"src":`...)
	dst = appendMACJSON(dst, e.SrcMAC)
	dst = append(dst, `,"dst":`...)
	dst = appendMACJSON(dst, e.DstMAC)
	dst = append(dst, `,"type":`...)
	return AppendUint(dst, uint64(e.EthernetType)), true
}

// jsonIPv4 writes the ip protocol of an IPv4 packet whose addresses are
// 4 octets (as gopacket decodes them); IPv6 goes to the generic loop.
func jsonIPv4(dst []byte, f *Frame) ([]byte, bool) {
	p := f.P
	if !p.Has(glayers.LayerTypeIPv4) || len(p.IPv4.SrcIP) != 4 || len(p.IPv4.DstIP) != 4 {
		return dst, false
	}
	v := &p.IPv4
	dst = append(dst, `"version":4,"src":"`...)
	dst = appendIPv4(dst, v.SrcIP)
	dst = append(dst, `","dst":"`...)
	dst = appendIPv4(dst, v.DstIP)
	dst = append(dst, `","dscp":`...)
	dst = AppendUint(dst, uint64(v.TOS>>2))
	dst = append(dst, `,"ecn":`...)
	dst = AppendUint(dst, uint64(v.TOS&3))
	dst = append(dst, `,"ttl":`...)
	dst = AppendUint(dst, uint64(v.TTL))
	dst = append(dst, `,"proto":`...)
	return AppendUint(dst, uint64(v.Protocol)), true // ipProto
}

func jsonUDP(dst []byte, f *Frame) ([]byte, bool) {
	dst = append(dst, `"sport":`...)
	dst = AppendUint(dst, uint64(f.P.UDP.SrcPort))
	dst = append(dst, `,"dport":`...)
	return AppendUint(dst, uint64(f.P.UDP.DstPort)), true
}

// Keys and booleans of the BTH written together, indexed by the booleans
// (false 0, true 1; two of them: first*2 + second).
var (
	bthSEM    = [4]string{`,"se":false,"m":false,"padcnt":`, `,"se":false,"m":true,"padcnt":`, `,"se":true,"m":false,"padcnt":`, `,"se":true,"m":true,"padcnt":`}
	bthECN    = [4]string{`,"fecn":false,"becn":false,"destqp":`, `,"fecn":false,"becn":true,"destqp":`, `,"fecn":true,"becn":false,"destqp":`, `,"fecn":true,"becn":true,"destqp":`}
	bthAck    = [2]string{`,"ackreq":false,"psn":`, `,"ackreq":true,"psn":`}
	bthICRCOK = [2]string{`,"icrc_ok":false`, `,"icrc_ok":true`}
)

func bit(v bool) int {
	if v {
		return 1
	}
	return 0
}

func jsonBTH(dst []byte, f *Frame) ([]byte, bool) {
	b := &f.P.BTH
	dst = append(dst, `"opcode":`...)
	dst = AppendUint(dst, uint64(b.Opcode))
	dst = append(dst, bthSEM[bit(b.SE)*2+bit(b.M)]...)
	dst = AppendUint(dst, uint64(b.PadCnt))
	dst = append(dst, `,"tver":`...)
	dst = AppendUint(dst, uint64(b.TVer))
	dst = append(dst, `,"pkey":`...)
	dst = AppendUint(dst, uint64(b.PKey))
	dst = append(dst, bthECN[bit(b.FECN)*2+bit(b.BECN)]...)
	dst = AppendUint(dst, uint64(b.DestQP))
	dst = append(dst, bthAck[bit(b.AckReq)]...)
	dst = AppendUint(dst, uint64(b.PSN))
	dst = append(dst, `,"icrc":`...)
	dst = AppendUint(dst, uint64(b.ICRC))
	if b.ICRCChecked {
		dst = append(dst, bthICRCOK[bit(b.ICRCOK)]...)
	}
	return dst, true
}

func jsonRETH(dst []byte, f *Frame) ([]byte, bool) {
	r := &f.P.BTH.RETH
	dst = append(dst, `"va":`...)
	dst = AppendUint(dst, r.VA)
	dst = append(dst, `,"rkey":`...)
	dst = AppendUint(dst, uint64(r.RKey))
	dst = append(dst, `,"dmalen":`...)
	return AppendUint(dst, uint64(r.DMALen)), true
}

func jsonAETH(dst []byte, f *Frame) ([]byte, bool) {
	a := &f.P.BTH.AETH
	dst = append(dst, `"syndrome":`...)
	dst = AppendUint(dst, uint64(a.Syndrome))
	dst = append(dst, `,"msn":`...)
	return AppendUint(dst, uint64(a.MSN)), true
}

func jsonCNP(dst []byte, f *Frame) ([]byte, bool) {
	dst = append(dst, `"destqp":`...)
	return AppendUint(dst, uint64(f.P.BTH.CNP.DestQP)), true
}

var (
	// pfcClasses()[v] is `,"c0":...,"c7":...` for the enable vector's low
	// octet v. Made on the first PFC frame's JSON, not at start-up (its
	// 1,400 allocations were half of sfcdump's init), in one string.
	pfcClasses = sync.OnceValue(func() *[256]string {
		var t [256]string
		var ends [256]int
		b := make([]byte, 0, 256*8*len(`,"c0":false`))
		for v := range t {
			for i := 0; i < 8; i++ {
				b = append(b, `,"c`...)
				b = append(b, byte('0'+i), '"', ':')
				b = appendBool(b, v&(1<<i) != 0)
			}
			ends[v] = len(b)
		}
		all, start := string(b), 0
		for v := range t {
			t[v], start = all[start:ends[v]], ends[v]
		}
		return &t
	})
	pfcTimeKeys  = [8]string{`,"time_c0":`, `,"time_c1":`, `,"time_c2":`, `,"time_c3":`, `,"time_c4":`, `,"time_c5":`, `,"time_c6":`, `,"time_c7":`}
	pfcPauseKeys = [8]string{`,"pause_ns_c0":`, `,"pause_ns_c1":`, `,"pause_ns_c2":`, `,"pause_ns_c3":`, `,"pause_ns_c4":`, `,"pause_ns_c5":`, `,"pause_ns_c6":`, `,"pause_ns_c7":`}
)

func jsonPFC(dst []byte, f *Frame) ([]byte, bool) {
	m := &f.P.PFC
	dst = append(dst, `"opcode":`...)
	dst = AppendUint(dst, uint64(m.Opcode))
	dst = append(dst, `,"enable_vector":`...)
	dst = AppendUint(dst, uint64(m.EnableVector))
	dst = append(dst, pfcClasses()[m.EnableVector&0xff]...)
	dst = appendPFCClasses(dst, &m.Times, &pfcTimeKeys, &pfcTimeZeros, 0)
	if f.LinkBPS == 0 {
		return dst, true
	}
	if en := uint8(m.EnableVector); en != 0xff {
		// A class whose enable bit is clear has no pause time (its key
		// is left out, as the table leaves its field out).
		for i := 0; i < 8; i++ {
			if en&(1<<i) != 0 {
				dst = append(dst, pfcPauseKeys[i]...)
				dst = AppendUint(dst, QuantaNS(uint64(m.Times[i]), f.LinkBPS))
			}
		}
		return dst, true
	}
	dst = appendPFCClasses(dst, &m.Times, &pfcPauseKeys, &pfcPauseZeros, f.LinkBPS)
	return dst, true
}

// appendPFCClasses appends each class's key and value: its time in
// quanta (bps 0) or in ns at bps. Classes not paused (time 0, the most of
// them) are their keys and 0s, a run of them in one append (zeros); 0
// quanta are 0 ns at any speed.
func appendPFCClasses(dst []byte, times *[8]uint16, keys *[8]string, zeros *[8][9]string, bps uint64) []byte {
	for i := 0; i < 8; {
		if v := uint64(times[i]); v != 0 {
			if bps != 0 {
				v = QuantaNS(v, bps)
			}
			dst = append(dst, keys[i]...)
			dst = AppendUint(dst, v)
			i++
			continue
		}
		j := i + 1
		for j < 8 && times[j] == 0 {
			j++
		}
		dst = append(dst, zeros[i][j]...)
		i = j
	}
	return dst
}

// pfcTimeZeros[i][j] and pfcPauseZeros[i][j] are pfcTimeKeys[k] and
// pfcPauseKeys[k] each followed by 0, for k from i to j-1: a run of
// classes not paused in one append (16 appends of a few octets were 11 %
// of jsonPFC's time in memmove).
var pfcTimeZeros, pfcPauseZeros = func() (t, p [8][9]string) {
	for i := 0; i < 8; i++ {
		for j := i + 1; j <= 8; j++ {
			t[i][j] = t[i][j-1] + pfcTimeKeys[j-1] + "0"
			p[i][j] = p[i][j-1] + pfcPauseKeys[j-1] + "0"
		}
	}
	return t, p
}()

// appendTime appends t as appendRFC3339Nano does, the date and clock
// copied from the last frame's when the second is the same.
func (e *Encoder) appendTime(dst []byte, t time.Time) []byte {
	sec := t.Unix()
	if e.secLen == 0 || sec != e.sec {
		u := t.UTC()
		if y := u.Year(); y < 0 || y > 9999 {
			return appendRFC3339Nano(dst, t)
		}
		b := appendRFC3339Nano(e.secBuf[:0], u.Truncate(time.Second))
		e.sec, e.secLen = sec, len(b)-1 // without the Z
	}
	dst = append(dst, e.secBuf[:e.secLen]...)
	return appendFracZ(dst, t.Nanosecond())
}

// appendRFC3339Nano appends t in UTC as t.UTC().AppendFormat(dst,
// time.RFC3339Nano) does (fraction without trailing zeros, none when
// zero), from its date and clock rather than through the layout parser.
func appendRFC3339Nano(dst []byte, t time.Time) []byte {
	t = t.UTC()
	y, mo, d := t.Date()
	if y < 0 || y > 9999 {
		return t.AppendFormat(dst, time.RFC3339Nano)
	}
	hh, mm, ss := t.Clock()
	hi, lo := &digits3[y/100], &digits3[y%100]
	dst = append(dst, hi[1], hi[2], lo[1], lo[2], '-')
	dst = append2(dst, int(mo))
	dst = append(dst, '-')
	dst = append2(dst, d)
	dst = append(dst, 'T')
	dst = append2(dst, hh)
	dst = append(dst, ':')
	dst = append2(dst, mm)
	dst = append(dst, ':')
	dst = append2(dst, ss)
	return appendFracZ(dst, t.Nanosecond())
}

// appendFracZ appends RFC3339Nano's fraction of ns (0 <= ns < 10^9):
// nothing when 0, else a dot and the digits without trailing zeros; then
// "Z".
func appendFracZ(dst []byte, ns int) []byte {
	if ns != 0 {
		dst = append(dst, '.')
		dst = AppendNanos9(dst, int64(ns))
		for dst[len(dst)-1] == '0' {
			dst = dst[:len(dst)-1]
		}
	}
	return append(dst, 'Z')
}

// append2 appends 0 <= v < 100 as two digits.
func append2(dst []byte, v int) []byte {
	x := &digits3[v]
	return append(dst, x[1], x[2])
}

// The JSON of a frame's Ethernet, IPv4 and UDP headers is the same for
// every frame of a flow, and a capture holds few flows at a time: the
// Encoder keeps it for the last flows seen (hdrMemo), keyed by every
// value jsonEth, jsonIPv4 and jsonUDP read (so a hit writes exactly what
// they would), and copies it instead of formatting two MACs, two IPv4
// addresses and eight numbers again. TestJSONHdrMemo compares both.

// hdrMemoSize is the number of flows the Encoder keeps (a power of two).
const (
	hdrMemoLog  = 4
	hdrMemoSize = 1 << hdrMemoLog
)

// hdrKey holds what the eth, ip and udp writers read: source and
// destination MAC (12 octets), EtherType (2), TOS, TTL, IP protocol,
// source and destination IPv4 address (8), UDP ports (4); 29 octets.
type hdrKey [32]byte

// hdrJSONMax bounds the JSON an entry keeps (the longest the three
// writers produce is about 220 octets; a longer one is not kept).
const hdrJSONMax = 255

// hdrMemoEntry is one flow's JSON, from `,"eth":{` through udp's closing
// brace, held in the entry itself (no slice: an Encoder copied by value
// keeps its own memo, not one shared with the original).
type hdrMemoEntry struct {
	key  hdrKey
	n    uint8 // octets of json; 0: empty
	json [hdrJSONMax]byte
}

// hdrMemoBits are the presence bits of eth, ip and udp; hdrMemoLow the
// bits up to udp's (the frame must hold no other protocol before udp);
// hdrMemoOK says that the three have straight writers.
var (
	hdrMemoBits, hdrMemoLow Presence
	hdrMemoOK               bool
	hdrEth, hdrIP, hdrUDP   int
)

func init() {
	hdrEth, hdrIP, hdrUDP = -1, -1, -1
	for i, p := range Protos {
		switch p.Name {
		case "eth":
			hdrEth = i
		case "ip":
			hdrIP = i
		case "udp":
			hdrUDP = i
		}
	}
	hdrMemoOK = hdrEth >= 0 && hdrEth < hdrIP && hdrIP < hdrUDP && hdrUDP < 63 &&
		jsonFastOf[hdrEth] != nil && jsonFastOf[hdrIP] != nil && jsonFastOf[hdrUDP] != nil
	if hdrMemoOK {
		hdrMemoBits = 1<<hdrEth | 1<<hdrIP | 1<<hdrUDP
		hdrMemoLow = 1<<(hdrUDP+1) - 1
	}
}

// hdrKeyOf returns the memo key of f's Ethernet, IPv4 and UDP headers,
// false when f is not an IPv4 frame with 6-octet MACs and 4-octet
// addresses (the others take the writers).
func hdrKeyOf(f *Frame) (k hdrKey, ok bool) {
	p := f.P
	e, v := &p.Eth, &p.IPv4
	if len(e.SrcMAC) != 6 || len(e.DstMAC) != 6 || !p.Has(glayers.LayerTypeIPv4) || len(v.SrcIP) != 4 || len(v.DstIP) != 4 {
		return k, false
	}
	copy(k[0:6], e.SrcMAC)
	copy(k[6:12], e.DstMAC)
	k[12], k[13] = byte(e.EthernetType>>8), byte(e.EthernetType)
	k[14], k[15], k[16] = v.TOS, v.TTL, byte(v.Protocol)
	copy(k[17:21], v.SrcIP)
	copy(k[21:25], v.DstIP)
	u := &p.UDP
	k[25], k[26], k[27], k[28] = byte(u.SrcPort>>8), byte(u.SrcPort), byte(u.DstPort>>8), byte(u.DstPort)
	return k, true
}

// slot returns the memo index of k.
func (k *hdrKey) slot() int {
	h := binary.LittleEndian.Uint64(k[0:]) ^ binary.LittleEndian.Uint64(k[8:])*0x9E3779B97F4A7C15 ^
		binary.LittleEndian.Uint64(k[16:])*0xC2B2AE3D27D4EB4F ^ binary.LittleEndian.Uint64(k[24:])
	h *= 0x9E3779B97F4A7C15
	return int(h >> (64 - hdrMemoLog))
}

// appendHdrs appends `,"eth":{...},"ip":{...},"udp":{...}` of f, from the
// memo when it holds f's flow; false (nothing appended) when f's headers
// are not ones it keeps.
func (e *Encoder) appendHdrs(dst []byte, f *Frame) ([]byte, bool) {
	if jsonFastOf[hdrEth] == nil || jsonFastOf[hdrIP] == nil || jsonFastOf[hdrUDP] == nil {
		return dst, false // turned off (the tests compare with the table)
	}
	k, ok := hdrKeyOf(f)
	if !ok {
		return dst, false
	}
	m := &e.hdrs[k.slot()]
	if m.n != 0 && m.key == k {
		return append(dst, m.json[:m.n]...), true
	}
	start := len(dst)
	for _, i := range [3]int{hdrEth, hdrIP, hdrUDP} {
		dst = append(dst, jsonOpen[i]...)
		if dst, ok = jsonFastOf[i](dst, f); !ok {
			return dst[:start], false
		}
		dst = append(dst, '}')
	}
	m.key, m.n = k, 0
	if n := len(dst) - start; n <= hdrJSONMax {
		m.n = uint8(copy(m.json[:], dst[start:]))
	}
	return dst, true
}
