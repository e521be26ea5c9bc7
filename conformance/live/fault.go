// SPDX-License-Identifier: Apache-2.0

package live

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/device"
)

// Fault is a defect the emulator injects into what it sends, so that
// tests can show live conformance catching a faulty device. Parse one
// with ParseFault.
type Fault struct {
	// DropFirst drops the first generated frame of this kind ("bts",
	// "pfc", ...; "signal" for any kind).
	DropFirst string
	// PauseDelta is added to the pause value of every BTS (µs) and every
	// PFC or PAUSE frame (each enabled class, quanta) the device sends.
	PauseDelta int
	// DropData drops the n-th forwarded data frame (1-based; 0: none).
	DropData int

	dropped  bool
	dataSeen int
	applied  []string
}

// Faults lists the faults ParseFault knows, for help texts.
const Faults = "drop-first-KIND (KIND: bts, cim, pfc, pause, postcard, experimental, signal), pause+N, pause-N, drop-data-N"

// ParseFault parses a comma-separated list of faults (Faults).
func ParseFault(s string) (*Fault, error) {
	f := &Fault{}
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		switch {
		case strings.HasPrefix(p, "drop-first-"):
			k := strings.TrimPrefix(p, "drop-first-")
			if k != "signal" && !kindByName(k) {
				return nil, fmt.Errorf("fault %q: unknown kind %q", p, k)
			}
			f.DropFirst = k
		case strings.HasPrefix(p, "pause+") || strings.HasPrefix(p, "pause-"):
			v, err := strconv.Atoi(p[len("pause"):])
			if err != nil || v == 0 {
				return nil, fmt.Errorf("fault %q: want pause+N or pause-N with N > 0", p)
			}
			f.PauseDelta = v
		case strings.HasPrefix(p, "drop-data-"):
			v, err := strconv.Atoi(strings.TrimPrefix(p, "drop-data-"))
			if err != nil || v < 1 {
				return nil, fmt.Errorf("fault %q: want drop-data-N with N ≥ 1", p)
			}
			f.DropData = v
		default:
			return nil, fmt.Errorf("unknown fault %q (known: %s)", p, Faults)
		}
	}
	return f, nil
}

func kindByName(s string) bool {
	for k := device.KindPause; k <= device.KindExperimental; k++ {
		if k.String() == s {
			return true
		}
	}
	return false
}

// apply returns the frame to send instead of out (buf holds a copy of
// it) and whether to send anything.
func (f *Fault) apply(out device.Out, buf []byte, c *conformance.Case) ([]byte, bool) {
	if out.Generated && !f.dropped && f.DropFirst != "" && (f.DropFirst == "signal" || out.Kind.String() == f.DropFirst) {
		f.dropped = true
		f.applied = append(f.applied, fmt.Sprintf("dropped the first %s (port %d, model time %d ns)", out.Kind, out.Port, out.Time))
		return nil, false
	}
	if !out.Generated && out.Kind == device.KindData && f.DropData > 0 {
		f.dataSeen++
		if f.dataSeen == f.DropData {
			f.applied = append(f.applied, fmt.Sprintf("dropped data frame %d (port %d, model time %d ns)", f.dataSeen, out.Port, out.Time))
			return nil, false
		}
	}
	if f.PauseDelta != 0 && out.Generated {
		var m device.Meta
		cp := c.Device.Codepoints.WithDefaults()
		device.Parse(buf, &m, &cp)
		switch {
		case m.Kind == device.KindBTS && m.Payload > 0 && m.Payload+4 <= len(buf):
			v := addClamp(binary.BigEndian.Uint16(buf[m.Payload+2:]), f.PauseDelta)
			binary.BigEndian.PutUint16(buf[m.Payload+2:], v)
			fixUDPChecksum(buf, &m)
			f.note("BTS pause_us")
		case (m.Kind == device.KindPFC) && m.L3+20 <= len(buf):
			en := binary.BigEndian.Uint16(buf[m.L3+2:])
			for i := 0; i < 8; i++ {
				if en&(1<<i) != 0 {
					o := m.L3 + 4 + 2*i
					binary.BigEndian.PutUint16(buf[o:], addClamp(binary.BigEndian.Uint16(buf[o:]), f.PauseDelta))
				}
			}
			f.note("PFC quanta")
		case m.Kind == device.KindPause && m.L3+4 <= len(buf):
			o := m.L3 + 2
			binary.BigEndian.PutUint16(buf[o:], addClamp(binary.BigEndian.Uint16(buf[o:]), f.PauseDelta))
			f.note("PAUSE quanta")
		}
	}
	return buf, true
}

func (f *Fault) note(what string) {
	s := fmt.Sprintf("%s %+d on every signal", what, f.PauseDelta)
	for _, a := range f.applied {
		if a == s {
			return
		}
	}
	f.applied = append(f.applied, s)
}

func addClamp(v uint16, d int) uint16 {
	return uint16(min(0xFFFF, max(0, int(v)+d)))
}

// fixUDPChecksum recomputes the UDP checksum of a parsed frame (left
// alone when IPv4 says none, 0).
func fixUDPChecksum(b []byte, m *device.Meta) {
	if m.L4 == 0 || m.L4+8 > len(b) || m.Proto != 17 {
		return
	}
	ul := int(binary.BigEndian.Uint16(b[m.L4+4:]))
	if ul < 8 || m.L4+ul > len(b) {
		return
	}
	if m.IPVersion == 4 && binary.BigEndian.Uint16(b[m.L4+6:]) == 0 {
		return
	}
	binary.BigEndian.PutUint16(b[m.L4+6:], 0)
	var sum uint32
	add := func(p []byte) {
		for i := 0; i+1 < len(p); i += 2 {
			sum += uint32(binary.BigEndian.Uint16(p[i:]))
		}
		if len(p)%2 == 1 {
			sum += uint32(p[len(p)-1]) << 8
		}
	}
	src, dst := m.Src.AsSlice(), m.Dst.AsSlice()
	add(src)
	add(dst)
	sum += 17 + uint32(ul)
	add(b[m.L4 : m.L4+ul])
	for sum>>16 != 0 {
		sum = sum&0xFFFF + sum>>16
	}
	cs := ^uint16(sum)
	if cs == 0 {
		cs = 0xFFFF
	}
	binary.BigEndian.PutUint16(b[m.L4+6:], cs)
}
