// SPDX-License-Identifier: Apache-2.0

package conformance

import "encoding/binary"

// dropScan walks the blocks of a pcapng capture as its octets are read
// (an io.Writer beside the reader) and adds up what the capture says it
// dropped: the interface statistics' isb_ifdrop and isb_osdrop, and the
// enhanced packet blocks' epb_dropcount (conformance.md rule 9: such a
// capture cannot show that nothing is missing). It holds one block's
// header and options at a time, never frame data.
type dropScan struct {
	be      bool   // byte order (from the section header)
	ok      bool   // a pcapng section header was seen
	hdr     []byte // the block's first octets, up to what is parsed
	want    int    // octets of hdr wanted before the next decision
	skip    int    // octets to pass over
	opts    []byte // options being collected
	optsLen int
	kind    uint32
	blen    int
	bad     bool // the structure did not parse: stop
	Dropped uint64
	// ByIface counts the drops of each interface, numbered across the
	// file as pcapio numbers them (the interface blocks of earlier
	// sections first).
	ByIface map[int]uint64
	nIDB    int // interface blocks seen
	base    int // interface blocks before the current section
	iface   int // the interface of the block being read (ISB, EPB)
}

func (d *dropScan) add(n uint64) {
	if n == 0 {
		return
	}
	d.Dropped += n
	if d.ByIface == nil {
		d.ByIface = map[int]uint64{}
	}
	d.ByIface[d.iface] += n
}

func (d *dropScan) u32(b []byte) uint32 {
	if d.be {
		return binary.BigEndian.Uint32(b)
	}
	return binary.LittleEndian.Uint32(b)
}

func (d *dropScan) u16(b []byte) uint16 {
	if d.be {
		return binary.BigEndian.Uint16(b)
	}
	return binary.LittleEndian.Uint16(b)
}

func (d *dropScan) u64(b []byte) uint64 {
	if d.be {
		return binary.BigEndian.Uint64(b)
	}
	return binary.LittleEndian.Uint64(b)
}

// Write consumes octets of the capture in order.
func (d *dropScan) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && !d.bad {
		if d.skip > 0 {
			k := min(d.skip, len(p))
			d.skip -= k
			p = p[k:]
			continue
		}
		if d.optsLen > 0 {
			k := min(d.optsLen-len(d.opts), len(p))
			d.opts = append(d.opts, p[:k]...)
			p = p[k:]
			if len(d.opts) == d.optsLen {
				d.options(d.opts)
				d.opts, d.optsLen = d.opts[:0], 0
				d.skip = 4 // trailing block length
			}
			continue
		}
		if d.want == 0 {
			if k := d.plainEPB(p); k > 0 {
				p = p[k:]
				continue
			}
			d.want, d.hdr = 12, d.hdr[:0]
		}
		k := min(d.want-len(d.hdr), len(p))
		d.hdr = append(d.hdr, p[:k]...)
		p = p[k:]
		if len(d.hdr) < d.want {
			continue
		}
		d.step()
	}
	return n, nil
}

// plainEPB returns the length of the enhanced packet block p starts
// with when p holds all of it and it has no options (nothing to count:
// the usual block, passed over at once); else 0, and the block is taken
// octet group by octet group (step).
func (d *dropScan) plainEPB(p []byte) int {
	if !d.ok || len(p) < 32 || d.u32(p[0:4]) != 6 {
		return 0
	}
	blen := int(d.u32(p[4:8]))
	if blen < 32 || blen%4 != 0 || blen > len(p) {
		return 0
	}
	data := (int(d.u32(p[20:24])) + 3) &^ 3
	if blen-12-20-data != 0 {
		return 0
	}
	return blen
}

// step decides what to do with the block whose first len(hdr) octets are
// known.
func (d *dropScan) step() {
	h := d.hdr
	if len(h) == 12 {
		kind := binary.LittleEndian.Uint32(h[0:4])
		if kind == 0x0A0D0D0A {
			switch binary.LittleEndian.Uint32(h[8:12]) {
			case 0x1A2B3C4D:
				d.be = false
			case 0x4D3C2B1A:
				d.be = true
			default:
				d.bad = true
				return
			}
			d.ok = true
			d.base = d.nIDB // a new section numbers its interfaces from 0
		}
		if !d.ok {
			d.bad = true
			return
		}
		d.kind, d.blen = d.u32(h[0:4]), int(d.u32(h[4:8]))
		if d.blen < 12 || d.blen%4 != 0 {
			d.bad = true
			return
		}
		switch d.kind {
		case 1: // interface description
			d.nIDB++
		case 5: // interface statistics: id, timestamp, then options
			if d.blen >= 24 {
				d.want = 20
				return
			}
		case 6: // enhanced packet: id, timestamp, lengths, data, options
			if d.blen >= 32 {
				d.want = 28
				return
			}
		}
		d.want, d.skip = 0, d.blen-12
		return
	}
	body := d.blen - 12 // between the two length fields
	d.iface = d.base + int(d.u32(h[8:12]))
	switch d.kind {
	case 5:
		d.optsLen = body - 12
	case 6:
		capLen := int(d.u32(h[20:24]))
		data := (capLen + 3) &^ 3
		d.optsLen = body - 20 - data
		if d.optsLen < 0 {
			d.bad = true
			return
		}
		d.skip = data
		if d.optsLen == 0 {
			d.skip += 4
		}
	}
	d.want = 0
	if d.optsLen == 0 && d.kind == 5 {
		d.skip = 4
	}
}

func (d *dropScan) options(b []byte) {
	for len(b) >= 4 {
		code, l := d.u16(b[0:2]), int(d.u16(b[2:4]))
		if code == 0 || 4+l > len(b) {
			return
		}
		v := b[4 : 4+l]
		switch {
		case d.kind == 5 && (code == 5 || code == 7) && l == 8:
			d.add(d.u64(v))
		case d.kind == 6 && code == 4 && l == 8:
			d.add(d.u64(v))
		}
		b = b[4+(l+3)&^3:]
	}
}
