// SPDX-License-Identifier: Apache-2.0

package pcapio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// Writer writes Ethernet frames to a pcapng stream with named interfaces
// and per-frame comments.
type Writer struct {
	w *pcapgo.NgWriter
	// sw is what w writes to, and where the blocks pcapgo cannot write
	// go (simple packet blocks, amended interface blocks).
	sw    *switchWriter
	names []string
}

// switchWriter is what pcapgo writes to: the output, or for a moment a
// buffer, so that an interface block pcapgo wrote can be amended with
// the options pcapgo does not know (if_speed) before it goes out.
type switchWriter struct {
	out io.Writer
	buf *bytes.Buffer // non-nil while blocks are held back
}

func (s *switchWriter) Write(b []byte) (int, error) {
	if s.buf != nil {
		return s.buf.Write(b)
	}
	return s.out.Write(b)
}

// NewWriter starts a pcapng stream whose interfaces are named names (one
// interface named "port0" when names is empty). Interface i is a port id
// in conformance vectors.
func NewWriter(w io.Writer, names ...string) (*Writer, error) {
	if len(names) == 0 {
		names = []string{"port0"}
	}
	return newWriter(w, layers.LinkTypeEthernet, names)
}

// NewWriterLink is NewWriter whose first interface, named name, has link
// type lt (SupportedLink).
func NewWriterLink(w io.Writer, name string, lt layers.LinkType) (*Writer, error) {
	return newWriter(w, lt, []string{name})
}

func newWriter(w io.Writer, first layers.LinkType, names []string) (*Writer, error) {
	ifs := make([]Interface, len(names))
	for i, n := range names {
		ifs[i] = Interface{Name: n, LinkType: layers.LinkTypeEthernet}
	}
	ifs[0].LinkType = first
	return NewWriterInterfaces(w, ifs...)
}

// NewWriterInterfaces starts a pcapng stream with one interface block per
// element of ifs (at least one): its Name (if_name, none when empty),
// LinkType (SupportedLink; 0 is Ethernet), SnapLen (0: none) and Speed
// (if_speed, none when 0). Section and ID are not used: interface i of the stream is ifs[i].
// Timestamps are written in nanoseconds (if_tsresol 9).
func NewWriterInterfaces(w io.Writer, ifs ...Interface) (*Writer, error) {
	if len(ifs) == 0 {
		return nil, fmt.Errorf("pcapio: a pcapng stream needs an interface")
	}
	sw := &switchWriter{out: w}
	if ifs[0].Speed != 0 {
		sw.buf = new(bytes.Buffer)
	}
	nw, err := pcapgo.NewNgWriterInterface(sw, ngInterface(ifs[0]),
		pcapgo.NgWriterOptions{SectionInfo: pcapgo.NgSectionInfo{Application: "opensfc"}})
	if err != nil {
		return nil, err
	}
	pw := &Writer{w: nw, sw: sw, names: []string{ifs[0].Name}}
	if sw.buf != nil {
		if err := pw.release(ifs[0].Speed); err != nil {
			return nil, err
		}
	}
	for _, in := range ifs[1:] {
		if _, err := pw.AddInterfaceOf(in); err != nil {
			return nil, err
		}
	}
	return pw, nil
}

func ngInterface(in Interface) pcapgo.NgInterface {
	lt := in.LinkType
	if lt == 0 {
		lt = layers.LinkTypeEthernet
	}
	return pcapgo.NgInterface{Name: in.Name, LinkType: lt, SnapLength: in.SnapLen, TimestampResolution: 9}
}

// AddInterface adds an Ethernet interface named name and returns its id.
func (w *Writer) AddInterface(name string) (int, error) {
	return w.AddInterfaceLink(name, layers.LinkTypeEthernet)
}

// AddInterfaceLink adds an interface of link type lt (SupportedLink)
// named name and returns its id.
func (w *Writer) AddInterfaceLink(name string, lt layers.LinkType) (int, error) {
	return w.AddInterfaceOf(Interface{Name: name, LinkType: lt})
}

// AddInterfaceOf adds an interface as NewWriterInterfaces describes
// (name, link type and if_speed) and returns its id.
func (w *Writer) AddInterfaceOf(in Interface) (int, error) {
	if in.Speed != 0 {
		if err := w.w.Flush(); err != nil {
			return 0, err
		}
		w.sw.buf = new(bytes.Buffer)
	}
	id, err := w.w.AddInterface(ngInterface(in))
	if err != nil {
		w.sw.buf = nil
		return 0, err
	}
	w.names = append(w.names, in.Name)
	if in.Speed != 0 {
		if err := w.release(in.Speed); err != nil {
			return 0, err
		}
	}
	return id, nil
}

// release flushes what pcapgo holds into the switch's buffer, adds
// if_speed to the last interface block in it and writes it all out.
func (w *Writer) release(speed uint64) error {
	defer func() { w.sw.buf = nil }()
	if err := w.w.Flush(); err != nil {
		return err
	}
	b, err := addIfSpeed(w.sw.buf.Bytes(), speed)
	if err != nil {
		return err
	}
	_, err = w.sw.out.Write(b)
	return err
}

// addIfSpeed returns the little-endian pcapng blocks b (pcapgo's, ending
// with an interface description block) with an if_speed option of speed
// bit/s added to that last block, before its end of options.
func addIfSpeed(b []byte, speed uint64) ([]byte, error) {
	if len(b) < 20 {
		return nil, fmt.Errorf("pcapio: no interface block to add if_speed to")
	}
	n := int(binary.LittleEndian.Uint32(b[len(b)-4:]))
	start := len(b) - n
	if n < 20 || start < 0 || binary.LittleEndian.Uint32(b[start:]) != 1 || int(binary.LittleEndian.Uint32(b[start+4:])) != n {
		return nil, fmt.Errorf("pcapio: the last block is not an interface block")
	}
	// Options start after the block's type, length, link type, reserved
	// and snap length; find the end of options, if any.
	at, end := start+16, len(b)-4
	for at+4 <= end {
		code, l := binary.LittleEndian.Uint16(b[at:]), int(binary.LittleEndian.Uint16(b[at+2:]))
		if code == 0 {
			break
		}
		at += 4 + (l+3)&^3
	}
	if at > end {
		return nil, fmt.Errorf("pcapio: interface block options overrun the block")
	}
	opt := make([]byte, 12, 16)
	binary.LittleEndian.PutUint16(opt[0:], 8)
	binary.LittleEndian.PutUint16(opt[2:], 8)
	binary.LittleEndian.PutUint64(opt[4:], speed)
	if at == end { // no end of options: one is needed after the new one
		opt = append(opt, 0, 0, 0, 0)
	}
	out := make([]byte, 0, len(b)+len(opt))
	out = append(out, b[:at]...)
	out = append(out, opt...)
	out = append(out, b[at:]...)
	m := uint32(n + len(opt))
	binary.LittleEndian.PutUint32(out[start+4:], m)
	binary.LittleEndian.PutUint32(out[len(out)-4:], m)
	return out, nil
}

// NInterfaces returns the number of interfaces written so far.
func (w *Writer) NInterfaces() int { return len(w.names) }

// Write writes one frame on interface iface at time t, with comments. A
// zero t (a frame without a timestamp, Frame.Time) on interface 0 is
// written as a Simple Packet Block, which has none (and no comments); on
// another interface, which a simple packet block cannot name, as an
// Enhanced Packet Block at time 0 (1970-01-01).
func (w *Writer) Write(iface int, t time.Time, data []byte, origLen int, comments ...string) error {
	if origLen < len(data) {
		origLen = len(data)
	}
	if t.IsZero() {
		if iface == 0 {
			return w.writeSimple(data, origLen)
		}
		t = time.Unix(0, 0)
	}
	ci := gopacket.CaptureInfo{Timestamp: t, CaptureLength: len(data), Length: origLen, InterfaceIndex: iface}
	if len(comments) == 0 {
		return w.w.WritePacket(ci, data)
	}
	return w.w.WritePacketWithOptions(ci, data, pcapgo.NgPacketOptions{Comments: comments})
}

// writeSimple writes a Simple Packet Block (little-endian, as pcapgo
// writes the section) after pcapgo's buffered blocks.
func (w *Writer) writeSimple(data []byte, origLen int) error {
	if err := w.w.Flush(); err != nil {
		return err
	}
	pad := (4 - len(data)%4) % 4
	n := uint32(16 + len(data) + pad)
	b := make([]byte, 0, n)
	b = binary.LittleEndian.AppendUint32(b, 3)
	b = binary.LittleEndian.AppendUint32(b, n)
	b = binary.LittleEndian.AppendUint32(b, uint32(origLen))
	b = append(b, data...)
	b = append(b, make([]byte, pad)...)
	b = binary.LittleEndian.AppendUint32(b, n)
	_, err := w.sw.Write(b)
	return err
}

// Flush flushes buffered output.
func (w *Writer) Flush() error { return w.w.Flush() }
