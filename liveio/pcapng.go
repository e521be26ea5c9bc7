// SPDX-License-Identifier: Apache-2.0

package liveio

import (
	"bufio"
	"encoding/binary"
	"io"
	"time"
)

// Interface describes one pcapng interface block.
type Interface struct {
	Name        string // if_name: the port's name in the case ("port0", "host", swp1)
	Description string // if_description: e.g. the host interface it was captured on
	Speed       int64  // if_speed in bit/s (0: not written)
}

// Direction of a frame (epb_flags bits 0-1).
type Direction uint32

// Directions.
const (
	DirUnknown  Direction = 0
	DirInbound  Direction = 1
	DirOutbound Direction = 2
)

// NgWriter writes a pcapng stream: a section header, interface blocks
// with if_name, if_description, if_speed and if_tsresol (ns), enhanced
// packet blocks and interface statistics blocks. Call Flush at the end.
type NgWriter struct {
	w   *bufio.Writer
	buf []byte
}

const (
	blockSHB = 0x0A0D0D0A
	blockIDB = 0x00000001
	blockISB = 0x00000005
	blockEPB = 0x00000006
)

// NewNgWriter writes the section header (shb_userappl = app) and one
// interface block per element of ifs; interface i of the stream is ifs[i].
func NewNgWriter(w io.Writer, app string, ifs []Interface) (*NgWriter, error) {
	nw := &NgWriter{w: bufio.NewWriterSize(w, 64<<10)}
	b := nw.begin()
	b = binary.LittleEndian.AppendUint32(b, 0x1A2B3C4D)
	b = binary.LittleEndian.AppendUint16(b, 1)
	b = binary.LittleEndian.AppendUint16(b, 0)
	b = binary.LittleEndian.AppendUint64(b, ^uint64(0))
	b = option(b, 4, []byte(app))
	if err := nw.end(b, blockSHB); err != nil {
		return nil, err
	}
	for _, i := range ifs {
		b := nw.begin()
		b = binary.LittleEndian.AppendUint16(b, 1) // LINKTYPE_ETHERNET
		b = binary.LittleEndian.AppendUint16(b, 0)
		b = binary.LittleEndian.AppendUint32(b, 0) // no snap length
		b = option(b, 2, []byte(i.Name))
		if i.Description != "" {
			b = option(b, 3, []byte(i.Description))
		}
		if i.Speed > 0 {
			b = option(b, 8, binary.LittleEndian.AppendUint64(nil, uint64(i.Speed)))
		}
		b = option(b, 9, []byte{9})
		if err := nw.end(b, blockIDB); err != nil {
			return nil, err
		}
	}
	return nw, nil
}

func (nw *NgWriter) begin() []byte { return append(nw.buf[:0], 0, 0, 0, 0, 0, 0, 0, 0) }

func option(b []byte, code uint16, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = binary.LittleEndian.AppendUint16(b, code)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(v)))
	b = append(b, v...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// end closes the options, fills in the block's type and lengths and
// writes it.
func (nw *NgWriter) end(b []byte, typ uint32) error {
	b = append(b, 0, 0, 0, 0) // opt_endofopt
	n := uint32(len(b) + 4)
	binary.LittleEndian.PutUint32(b[0:], typ)
	binary.LittleEndian.PutUint32(b[4:], n)
	b = binary.LittleEndian.AppendUint32(b, n)
	nw.buf = b
	_, err := nw.w.Write(b)
	return err
}

func appendTime(b []byte, t time.Time) []byte {
	ns := uint64(t.UnixNano())
	b = binary.LittleEndian.AppendUint32(b, uint32(ns>>32))
	return binary.LittleEndian.AppendUint32(b, uint32(ns))
}

// WritePacket writes an enhanced packet block: data seen at t on
// interface iface, origLen octets long on the wire, with a direction flag
// (unless DirUnknown) and an optional comment.
func (nw *NgWriter) WritePacket(iface int, t time.Time, data []byte, origLen int, dir Direction, comment string) error {
	origLen = max(origLen, len(data))
	b := nw.begin()
	b = binary.LittleEndian.AppendUint32(b, uint32(iface))
	b = appendTime(b, t)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	b = binary.LittleEndian.AppendUint32(b, uint32(origLen))
	b = append(b, data...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	if comment != "" {
		b = option(b, 1, []byte(comment))
	}
	if dir != DirUnknown {
		b = option(b, 2, binary.LittleEndian.AppendUint32(nil, uint32(dir)))
	}
	return nw.end(b, blockEPB)
}

// WriteStats writes an interface statistics block for iface at t:
// isb_ifrecv and isb_ifdrop (the frames the capture lost).
func (nw *NgWriter) WriteStats(iface int, t time.Time, recv, drop uint64) error {
	b := nw.begin()
	b = binary.LittleEndian.AppendUint32(b, uint32(iface))
	b = appendTime(b, t)
	b = option(b, 4, binary.LittleEndian.AppendUint64(nil, recv))
	b = option(b, 5, binary.LittleEndian.AppendUint64(nil, drop))
	return nw.end(b, blockISB)
}

// Flush writes out what is buffered.
func (nw *NgWriter) Flush() error { return nw.w.Flush() }
