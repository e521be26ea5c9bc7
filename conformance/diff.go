// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/layers"
)

// volatile is the set of fields to ignore when comparing frames.
type volatile struct {
	ethSrc, ethDst, ipID, ipTTL, ipECN, ipSum, udpSum, icrc bool
	any                                                     bool
}

func newVolatile(names []string) volatile {
	var v volatile
	for _, n := range names {
		v.any = true
		switch n {
		case "eth.src":
			v.ethSrc = true
		case "eth.dst":
			v.ethDst = true
		case "ip.id":
			v.ipID = true
		case "ip.ttl":
			v.ipTTL = true
		case "ip.ecn":
			v.ipECN = true
		case "ip.checksum":
			v.ipSum = true
		case "udp.checksum":
			v.udpSum = true
		case "bth.icrc":
			v.icrc = true
		}
	}
	return v
}

// mask copies frame into buf with the volatile fields zeroed and returns
// the copy; with nothing volatile it returns frame itself.
func (v volatile) mask(buf []byte, frame []byte, cp *device.Codepoints) []byte {
	if !v.any {
		return frame
	}
	buf = append(buf[:0], frame...)
	var m device.Meta
	device.Parse(buf, &m, cp)
	if v.ethDst && len(buf) >= 6 {
		clear(buf[0:6])
	}
	if v.ethSrc && len(buf) >= 12 {
		clear(buf[6:12])
	}
	if !m.IP() {
		return buf
	}
	ip := buf[m.L3:]
	if m.IPVersion == 4 {
		if v.ipID {
			clear(ip[4:6])
		}
		if v.ipTTL {
			ip[8] = 0
		}
		if v.ipECN {
			ip[1] &^= 3
		}
		if v.ipSum {
			clear(ip[10:12])
		}
	} else {
		if v.ipTTL {
			ip[7] = 0
		}
		if v.ipECN {
			ip[1] &^= 0x30
		}
	}
	if m.Proto == 17 && m.L4 > 0 && len(buf) >= m.L4+8 {
		if v.udpSum {
			clear(buf[m.L4+6 : m.L4+8])
		}
		if v.icrc && m.DstPort == cp.RoCEPort {
			end := min(m.L3+m.IPLen, len(buf))
			if end-4 >= m.Payload+12 {
				clear(buf[end-4 : end])
			}
		}
	}
	return buf
}

// FieldDiff is one field whose value differs between two frames.
type FieldDiff struct {
	Field, Expected, Actual string
}

// differ names the fields that differ between two frames, with the
// project's field names (dissect's name space plus ip.id, ip.checksum,
// ip.len, udp.len, udp.checksum); when no named field differs it names
// the first differing octet.
type differ struct {
	pa, pb *layers.Parser
	fa, fb dissect.Frame
	va, vb []dissect.Value
	cp     device.Codepoints
}

func newDiffer(cp device.Codepoints) *differ {
	df := &differ{pa: layers.NewParser(), pb: layers.NewParser(), cp: cp.WithDefaults()}
	df.fa.P, df.fb.P = df.pa, df.pb
	return df
}

func render(vals []dissect.Value) string {
	var b []byte
	for i, v := range vals {
		if i > 0 {
			b = append(b, ',')
		}
		b = dissect.AppendValue(b, v, false)
	}
	if len(b) == 0 {
		return "(absent)"
	}
	return string(b)
}

// diff returns the differing fields of expected and actual (at most max),
// skipping fields in skip.
func (df *differ) diff(expected, actual []byte, max int, vol volatile) []FieldDiff {
	var out []FieldDiff
	df.fa.Err = df.pa.Decode(expected)
	df.fb.Err = df.pb.Decode(actual)
	for _, p := range dissect.Protos {
		if p.Name == "vlan" {
			// The tags are named eth.vlan and eth.pcp below, as masks
			// name them (extraDiffFields); vlan.vid would name them twice,
			// and unmasked.
			continue
		}
		if !p.Present(&df.fa) && !p.Present(&df.fb) {
			continue
		}
		for _, fd := range p.Fields {
			if skipField(fd.Name, vol) {
				continue
			}
			df.va = fd.Values(&df.fa, df.va[:0])
			df.vb = fd.Values(&df.fb, df.vb[:0])
			a, b := render(df.va), render(df.vb)
			if a != b {
				out = append(out, FieldDiff{fd.Name, a, b})
				if len(out) >= max {
					return out
				}
			}
		}
	}
	// Fields the protocols' lists leave out, by the names masks use: the
	// VLAN tags and the IPv6 flow label (once named only by their octet).
	for _, x := range extraDiffFields() {
		df.va = x.fd.Values(&df.fa, df.va[:0])
		df.vb = x.fd.Values(&df.fb, df.vb[:0])
		if a, b := render(df.va), render(df.vb); a != b {
			out = append(out, FieldDiff{x.name, a, b})
		}
	}
	out = append(out, df.headerDiffs(expected, actual, vol)...)
	if len(out) == 0 {
		switch {
		case len(expected) != len(actual):
			out = append(out, FieldDiff{"frame.len", fmt.Sprint(len(expected)), fmt.Sprint(len(actual))})
		default:
			for i := range expected {
				if expected[i] != actual[i] {
					out = append(out, FieldDiff{fmt.Sprintf("frame.octet[%d]", i), fmt.Sprintf("0x%02x", expected[i]), fmt.Sprintf("0x%02x", actual[i])})
					break
				}
			}
		}
	}
	if len(out) > max {
		out = out[:max]
	}
	return out
}

// show renders field name of frame (as diff does), "(absent)" when it has
// none; ok is false when name is no dissect field.
func (df *differ) show(frame []byte, name string) (string, bool) {
	// Ours first: diff names our family-blind ip.* (ip.src of an IPv6
	// packet); Wireshark's, which LookupField gives, are IPv4's.
	fd, ok := dissect.OurField(name)
	if !ok {
		fd, ok = dissect.LookupField(name)
	}
	for _, x := range extraDiffFields() {
		if x.name == name {
			fd, ok = x.fd, true
		}
	}
	if !ok {
		return "", false
	}
	df.fa.Err = df.pa.Decode(frame)
	df.va = fd.Values(&df.fa, df.va[:0])
	return render(df.va), true
}

// extraDiffFields are compared besides dissect.Protos' fields, under the
// names MaskFields gives them (the IPv4 flags and fragment offset too: a
// DF bit flipped was named only by the checksum it changed). They are
// made on first use: looking them up makes dissect's Wireshark names,
// which every sfcdump command would otherwise pay for at start-up.
var extraDiffFields = sync.OnceValue(func() []struct {
	name string
	fd   *dissect.Field
} {
	var out []struct {
		name string
		fd   *dissect.Field
	}
	for _, x := range [][2]string{{"eth.vlan", "eth.vlan"}, {"eth.pcp", "eth.pcp"}, {"ip.flow_label", "ipv6.flow"},
		{"ip.flags", "ip.flags"}, {"ip.frag_offset", "ip.frag_offset"}} {
		fd, ok := dissect.LookupField(x[1])
		if !ok {
			panic("conformance: no field " + x[1])
		}
		out = append(out, struct {
			name string
			fd   *dissect.Field
		}{x[0], fd})
	}
	return out
})

func skipField(name string, vol volatile) bool {
	switch name {
	case "eth.src":
		return vol.ethSrc
	case "eth.dst":
		return vol.ethDst
	case "ip.ttl":
		return vol.ipTTL
	case "ip.ecn":
		return vol.ipECN
	case "bth.icrc", "bth.icrc_ok":
		return vol.icrc
	}
	return false
}

// headerDiffs compares the IP and UDP header fields dissect does not name.
func (df *differ) headerDiffs(a, b []byte, vol volatile) []FieldDiff {
	var ma, mb device.Meta
	device.Parse(a, &ma, &df.cp)
	device.Parse(b, &mb, &df.cp)
	var out []FieldDiff
	u16 := func(name string, fa []byte, oa int, fb []byte, ob int) {
		if oa+2 <= len(fa) && ob+2 <= len(fb) {
			x, y := binary.BigEndian.Uint16(fa[oa:]), binary.BigEndian.Uint16(fb[ob:])
			if x != y {
				out = append(out, FieldDiff{name, fmt.Sprintf("0x%04x", x), fmt.Sprintf("0x%04x", y)})
			}
		}
	}
	if ma.IPVersion == 4 && mb.IPVersion == 4 {
		u16("ip.len", a, ma.L3+2, b, mb.L3+2)
		if !vol.ipID {
			u16("ip.id", a, ma.L3+4, b, mb.L3+4)
		}
		if !vol.ipSum {
			u16("ip.checksum", a, ma.L3+10, b, mb.L3+10)
		}
	}
	if ma.Proto == 17 && mb.Proto == 17 && ma.L4 > 0 && mb.L4 > 0 {
		u16("udp.len", a, ma.L4+4, b, mb.L4+4)
		if !vol.udpSum {
			u16("udp.checksum", a, ma.L4+6, b, mb.L4+6)
		}
	}
	return out
}

// describe gives a short description of a frame for deviations: its kind
// and, for signals and data, the flow.
func describe(frame []byte, cp *device.Codepoints) string {
	var m device.Meta
	device.Parse(frame, &m, cp)
	var b strings.Builder
	b.WriteString(m.Kind.String())
	if m.IP() {
		fmt.Fprintf(&b, " %s", m.Flow().String())
	}
	fmt.Fprintf(&b, ", %d octets", len(frame))
	return b.String()
}

func equalMasked(v volatile, ba, bb *[]byte, a, b []byte, cp *device.Codepoints) bool {
	if !v.any {
		return bytes.Equal(a, b)
	}
	x := v.mask(*ba, a, cp)
	*ba = x
	y := v.mask(*bb, b, cp)
	*bb = y
	return bytes.Equal(x, y)
}
