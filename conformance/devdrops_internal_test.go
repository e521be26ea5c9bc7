// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"encoding/binary"
	"maps"
	"testing"
)

// TestDropScanByInterface: drops are counted per interface, numbered
// across the file (a second section's interface 0 follows the first
// section's interfaces), from isb_ifdrop and epb_dropcount, fed in
// pieces of any size.
func TestDropScanByInterface(t *testing.T) {
	le := binary.LittleEndian
	block := func(typ uint32, body []byte) []byte {
		n := uint32(12 + len(body))
		b := le.AppendUint32(nil, typ)
		b = le.AppendUint32(b, n)
		b = append(b, body...)
		return le.AppendUint32(b, n)
	}
	opt := func(code uint16, v uint64) []byte {
		b := le.AppendUint16(nil, code)
		b = le.AppendUint16(b, 8)
		b = le.AppendUint64(b, v)
		return append(b, 0, 0, 0, 0) // end of options
	}
	shb := block(0x0A0D0D0A, append(le.AppendUint32(nil, 0x1A2B3C4D), 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff))
	idb := block(1, []byte{1, 0, 0, 0, 0, 0, 0, 0})
	isb := func(iface uint32, drop uint64) []byte {
		return block(5, append(append(le.AppendUint32(nil, iface), make([]byte, 8)...), opt(5, drop)...))
	}
	epb := func(iface uint32, drop uint64) []byte {
		b := le.AppendUint32(nil, iface)
		b = append(b, make([]byte, 8)...)
		b = le.AppendUint32(b, 60)
		b = le.AppendUint32(b, 60)
		b = append(b, make([]byte, 60)...)
		return block(6, append(b, opt(4, drop)...))
	}
	plain := func(iface uint32, capLen int) []byte { // no options: passed over whole (plainEPB)
		b := le.AppendUint32(nil, iface)
		b = append(b, make([]byte, 8)...)
		b = le.AppendUint32(b, uint32(capLen))
		b = le.AppendUint32(b, uint32(capLen))
		return block(6, append(b, make([]byte, (capLen+3)&^3)...))
	}
	var file []byte
	for _, b := range [][]byte{shb, idb, idb, plain(1, 61), epb(0, 0), plain(0, 64), isb(1, 2), shb, idb, plain(0, 1), epb(0, 3), plain(0, 0), isb(0, 1), plain(0, 63)} {
		file = append(file, b...)
	}
	for _, step := range []int{1, 7, 100, len(file)} {
		var d dropScan
		for o := 0; o < len(file); o += step {
			d.Write(file[o:min(o+step, len(file))])
		}
		if want := map[int]uint64{1: 2, 2: 4}; !maps.Equal(d.ByIface, want) || d.Dropped != 6 || d.bad {
			t.Errorf("pieces of %d: by interface %v, %d in all (bad %v); want %v, 6", step, d.ByIface, d.Dropped, d.bad, want)
		}
	}
}
