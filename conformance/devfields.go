// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/layers"
)

// Rule 3 of device mode: every field of every signal frame, from the
// Ethernet header to the last octet, equals the reference's, except the
// IPv4 identification (any), checksums and the ICRC (valid, not equal),
// the fields a vector or the command line masks, and the time-varying
// values of rule 4 (which their own rules check). The comparison is of
// octets with those exempt octets cleared in both frames, so that a field
// no named check reads (a reserved octet, a VLAN id, a class-enable bit)
// cannot escape; the differences are then named with wire.md's field
// names.

// MaskFields lists the field names a `mask:` list (case.yaml or
// --mask) may name: wire.md's names of the fields of signal frames, plus
// the header fields reports name that wire.md's table does not (ip.id,
// ip.flags, ip.flow_label, eth.dei, udp.checksum: a device that sends
// none over IPv4), the reserved octets of BTS,
// postcard and BFC frames, and frame.padding (octets after the content).
var MaskFields = []string{
	"eth.dst", "eth.src", "eth.vlan", "eth.pcp", "eth.dei",
	"ip.dscp", "ip.ecn", "ip.ttl", "ip.id", "ip.flags", "ip.src", "ip.dst", "ip.flow_label",
	"udp.sport", "udp.dport", "udp.checksum",
	"bts.version", "bts.cacheable", "bts.origin", "bts.pause_us", "bts.reporter", "bts.cp_port", "bts.cp_queue", "bts.reserved", "bts.queue_depth", "bts.quote",
	"cim.da", "cim.sa", "cim.vid", "cim.msdu", "cim.pause_us", "cim.cacheable", "cim.origin", "cim.reporter",
	"postcard.switch_id", "postcard.reserved", "postcard.quote",
	"bfc.seq", "bfc.reserved",
	"frame.padding",
}

// maskSet is a set of masked field names.
type maskSet map[string]bool

// CheckMask reports the first of fields that is not one of MaskFields, for
// a caller to blame on wherever the list came from (a flag, a file).
func CheckMask(fields []string) error {
	_, err := newMaskSet(fields)
	return err
}

func newMaskSet(names []string) (maskSet, error) {
	known := map[string]bool{}
	for _, n := range MaskFields {
		known[n] = true
	}
	// Wireshark's names of the fields both tools decode stand for ours
	// (udp.srcport is udp.sport), as in display filters.
	alias := map[string]string{}
	for _, w := range dissect.WiresharkNames() {
		if w.Ours != "" && known[w.Ours] {
			alias[w.Name] = w.Ours
		}
	}
	m := maskSet{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if o, ok := alias[n]; ok && !known[n] {
			n = o
		}
		if !known[n] {
			return nil, fmt.Errorf("unknown field %q (maskable: %s)", n, strings.Join(MaskFields, ", "))
		}
		m[n] = true
	}
	return m, nil
}

func (m maskSet) list() []string {
	var out []string
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// region is a run of octets [off, off+n) with the bits of mask cleared
// (mask 0 means all bits).
type region struct {
	off, n int
	bits   byte
}

// exemptions builds, for one signal frame, the octets rule 3 does not
// compare: always the IPv4 identification and checksums, the UDP
// checksum and the ICRC; the masked fields; and the extra regions the
// caller names (time-varying values with their own rules).
type exemptions struct {
	rs []region
}

func (e *exemptions) add(off, n int) { e.rs = append(e.rs, region{off, n, 0}) }

func (e *exemptions) bits(off int, b byte) { e.rs = append(e.rs, region{off, 1, b}) }

func (e *exemptions) apply(b []byte) {
	for _, r := range e.rs {
		for i := r.off; i < r.off+r.n && i < len(b); i++ {
			if i < 0 {
				continue
			}
			if r.bits == 0 {
				b[i] = 0
			} else {
				b[i] &^= r.bits
			}
		}
	}
}

// frameExempt returns the exemptions of frame (parsed as m) for masks.
func frameExempt(e *exemptions, frame []byte, m *device.Meta, masks maskSet, cp *device.Codepoints) {
	e.rs = e.rs[:0]
	if masks["eth.dst"] {
		e.add(0, 6)
	}
	if masks["eth.src"] {
		e.add(6, 6)
	}
	if len(frame) >= 18 && device.IsVLANTPID(binary.BigEndian.Uint16(frame[12:])) {
		if masks["eth.pcp"] {
			e.bits(14, 0xe0)
		}
		if masks["eth.dei"] {
			e.bits(14, 0x10)
		}
		if masks["eth.vlan"] {
			e.bits(14, 0x0f)
			e.add(15, 1)
		}
	}
	if m.IP() {
		l3 := m.L3
		if m.IPVersion == 4 && l3+20 <= len(frame) {
			e.add(l3+4, 2)  // identification: any
			e.add(l3+10, 2) // header checksum: valid, not equal
			if masks["ip.dscp"] {
				e.bits(l3+1, 0xfc)
			}
			if masks["ip.ecn"] {
				e.bits(l3+1, 0x03)
			}
			if masks["ip.flags"] {
				e.bits(l3+6, 0xe0)
			}
			if masks["ip.ttl"] {
				e.add(l3+8, 1)
			}
			if masks["ip.src"] {
				e.add(l3+12, 4)
			}
			if masks["ip.dst"] {
				e.add(l3+16, 4)
			}
		}
		if m.IPVersion == 6 && l3+40 <= len(frame) {
			if masks["ip.dscp"] {
				e.bits(l3, 0x0f)
				e.bits(l3+1, 0xc0)
			}
			if masks["ip.ecn"] {
				e.bits(l3+1, 0x30)
			}
			if masks["ip.flow_label"] {
				e.bits(l3+1, 0x0f)
				e.add(l3+2, 2)
			}
			if masks["ip.ttl"] {
				e.add(l3+7, 1)
			}
			if masks["ip.src"] {
				e.add(l3+8, 16)
			}
			if masks["ip.dst"] {
				e.add(l3+24, 16)
			}
		}
		if m.Proto == 17 && m.L4 > 0 && m.L4+8 <= len(frame) {
			e.add(m.L4+6, 2) // UDP checksum: valid, not equal
			if masks["udp.sport"] {
				e.add(m.L4, 2)
			}
			if masks["udp.dport"] {
				e.add(m.L4+2, 2)
			}
		}
	}
	switch m.Kind {
	case device.KindBTS:
		p := m.Payload
		if masks["bts.version"] {
			e.bits(p, 0xf0)
		}
		if masks["bts.cacheable"] {
			e.bits(p, 0x01)
		}
		for _, f := range []struct {
			name   string
			off, n int
		}{{"bts.origin", 1, 1}, {"bts.pause_us", 2, 2}, {"bts.reporter", 4, 4}, {"bts.cp_port", 8, 2}, {"bts.cp_queue", 10, 1}, {"bts.reserved", 11, 1}, {"bts.queue_depth", 12, 4}} {
			if masks[f.name] {
				e.add(p+f.off, f.n)
			}
		}
		if masks["bts.quote"] {
			e.add(p+16, len(frame)-p-16)
		}
	case device.KindCIM:
		pdu := cimPDU(frame, m)
		if pdu >= 0 && pdu+17 <= len(frame) {
			if masks["cim.da"] {
				e.add(pdu+1, 6)
			}
			if masks["cim.sa"] {
				e.add(pdu+7, 6)
			}
			if masks["cim.vid"] {
				e.bits(pdu+13, 0x0f)
				e.add(pdu+14, 1)
			}
			n := int(binary.BigEndian.Uint16(frame[pdu+15:]))
			if masks["cim.msdu"] {
				e.add(pdu+17, n)
			}
			if tlv := cimPauseTLV(frame, pdu); tlv >= 0 {
				if masks["cim.pause_us"] {
					e.add(tlv+2, 2)
				}
				if masks["cim.cacheable"] {
					e.add(tlv+4, 1)
				}
				if masks["cim.origin"] {
					e.add(tlv+5, 1)
				}
				if masks["cim.reporter"] {
					e.add(tlv+6, 4)
				}
			}
		}
	case device.KindPostcard:
		p := m.Payload
		if masks["postcard.switch_id"] {
			e.add(p+4, 6)
		}
		if masks["postcard.reserved"] {
			e.bits(p, 0x0f)
			e.add(p+1, 1)
			e.add(p+10, 2)
		}
		if masks["postcard.quote"] {
			e.add(p+36, len(frame)-p-36)
		}
	case device.KindExperimental:
		if len(frame) >= m.L3+12 && frame[m.L3+2] == layers.SubtypeBFC {
			if masks["bfc.seq"] {
				e.add(m.L3+8, 4)
			}
			if masks["bfc.reserved"] {
				e.add(m.L3+5, 1)
			}
		}
	}
	if m.Kind == device.KindData && m.Proto == 17 && m.DstPort == cp.RoCEPort {
		if end := min(m.L3+m.IPLen, len(frame)); end-4 >= m.Payload+12 {
			e.add(end-4, 4) // ICRC: valid, not equal
		}
	}
	if masks["frame.padding"] {
		if end := frameEnd(frame, m); end < len(frame) {
			e.add(end, len(frame)-end)
		}
	}
}

// frameEnd is where the frame's content ends and padding begins.
func frameEnd(frame []byte, m *device.Meta) int {
	switch {
	case m.IP():
		return min(m.L3+m.IPLen, len(frame))
	case m.Kind == device.KindPFC:
		return min(m.L3+20, len(frame))
	case m.Kind == device.KindPause:
		return min(m.L3+4, len(frame))
	}
	return len(frame)
}

// cimPDU returns the offset of a CIM's PDU, or -1.
func cimPDU(frame []byte, m *device.Meta) int {
	if m.Kind != device.KindCIM {
		return -1
	}
	if m.IP() {
		return m.Payload
	}
	return m.L3
}

// cimPauseTLV returns the offset of the SFC pause TLV of the CIM whose
// PDU starts at pdu, or -1.
func cimPauseTLV(frame []byte, pdu int) int {
	if pdu+17 > len(frame) || frame[pdu]&0x02 == 0 {
		return -1
	}
	n := int(binary.BigEndian.Uint16(frame[pdu+15:]))
	i := pdu + 17 + n
	for i+2 <= len(frame) {
		t, l := frame[i], int(frame[i+1])
		if t == 0 {
			return -1
		}
		if t == 1 && i+2+l <= len(frame) && l >= 8 {
			return i
		}
		i += 2 + l
	}
	return -1
}

// fieldCmp compares signal frames under rule 3.
type fieldCmp struct {
	masks  maskSet
	cp     device.Codepoints
	ea, eb exemptions
	ba, bb []byte
	df     *differ
}

// diff returns the differing fields of ref and dev, the exempt octets of
// each (plus extra, offsets relative to each frame's own payload found by
// the callback) cleared; nil when they agree.
func (f *fieldCmp) diff(ref, dev []byte, extra func(frame []byte, m *device.Meta, e *exemptions)) []FieldDiff {
	var ma, mb device.Meta
	device.Parse(ref, &ma, &f.cp)
	device.Parse(dev, &mb, &f.cp)
	frameExempt(&f.ea, ref, &ma, f.masks, &f.cp)
	frameExempt(&f.eb, dev, &mb, f.masks, &f.cp)
	if extra != nil {
		extra(ref, &ma, &f.ea)
		extra(dev, &mb, &f.eb)
	}
	f.ba = append(f.ba[:0], ref...)
	f.bb = append(f.bb[:0], dev...)
	f.ea.apply(f.ba)
	f.eb.apply(f.bb)
	if string(f.ba) == string(f.bb) {
		return nil
	}
	if f.df == nil {
		f.df = newDiffer(f.cp)
	}
	out := f.df.diff(f.ba, f.bb, 8, volatile{})
	// The fields were compared with the exempt values cleared in both;
	// the evidence shows what each frame holds (a CIM whose TLV the
	// device left out read "expected 0": the cleared pause, not the
	// reference's).
	for i := range out {
		if a, ok := f.df.show(ref, out[i].Field); ok {
			b, _ := f.df.show(dev, out[i].Field)
			if a != b {
				out[i].Expected, out[i].Actual = a, b
			}
		}
	}
	return out
}

// checksumsValid checks the IPv4 header and UDP checksums of a device
// frame (rule 3: valid, not equal); it returns the fields that are wrong.
func checksumsValid(frame []byte, m *device.Meta) []string {
	var bad []string
	if !m.IP() {
		return nil
	}
	if m.IPVersion == 4 && m.L3+20 <= len(frame) {
		ihl := int(frame[m.L3]&0x0f) * 4
		if ihl >= 20 && m.L3+ihl <= len(frame) && onesSum(frame[m.L3:m.L3+ihl], 0) != 0xffff {
			bad = append(bad, "ip.checksum")
		}
	}
	if m.Proto == 17 && m.L4 > 0 && m.L4+8 <= len(frame) {
		sum := binary.BigEndian.Uint16(frame[m.L4+6:])
		end := min(m.L3+m.IPLen, len(frame))
		if end < m.L4+8 {
			return bad
		}
		if sum == 0 {
			if m.IPVersion == 6 {
				bad = append(bad, "udp.checksum")
			}
			return bad
		}
		udp := frame[m.L4:end]
		var acc uint32
		if m.IPVersion == 4 {
			acc = pseudo(frame[m.L3+12:m.L3+20], len(udp))
		} else {
			acc = pseudo(frame[m.L3+8:m.L3+40], len(udp))
		}
		if onesSum(udp, acc) != 0xffff {
			bad = append(bad, "udp.checksum")
		}
	}
	return bad
}

func pseudo(addrs []byte, n int) uint32 {
	var acc uint32
	for i := 0; i+1 < len(addrs); i += 2 {
		acc += uint32(binary.BigEndian.Uint16(addrs[i:]))
	}
	acc += 17
	acc += uint32(n)
	return acc
}

func onesSum(b []byte, acc uint32) uint16 {
	for i := 0; i+1 < len(b); i += 2 {
		acc += uint32(binary.BigEndian.Uint16(b[i:]))
	}
	if len(b)%2 == 1 {
		acc += uint32(b[len(b)-1]) << 8
	}
	for acc > 0xffff {
		acc = acc&0xffff + acc>>16
	}
	return uint16(acc)
}
