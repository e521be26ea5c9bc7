// SPDX-License-Identifier: Apache-2.0

package pcapio

import (
	"encoding/binary"
	"io"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// Writer writes Ethernet frames to a pcapng stream with named interfaces
// and per-frame comments.
type Writer struct {
	w     *pcapgo.NgWriter
	out   io.Writer // what w writes to, for the blocks pcapgo cannot write
	names []string
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
	nw, err := pcapgo.NewNgWriterInterface(w, pcapgo.NgInterface{
		Name: names[0], LinkType: first, SnapLength: 0, TimestampResolution: 9,
	}, pcapgo.NgWriterOptions{SectionInfo: pcapgo.NgSectionInfo{Application: "opensfc"}})
	if err != nil {
		return nil, err
	}
	for _, n := range names[1:] {
		if _, err := nw.AddInterface(pcapgo.NgInterface{Name: n, LinkType: layers.LinkTypeEthernet, TimestampResolution: 9}); err != nil {
			return nil, err
		}
	}
	return &Writer{w: nw, out: w, names: names}, nil
}

// AddInterface adds an Ethernet interface named name and returns its id.
func (w *Writer) AddInterface(name string) (int, error) {
	return w.AddInterfaceLink(name, layers.LinkTypeEthernet)
}

// AddInterfaceLink adds an interface of link type lt (SupportedLink)
// named name and returns its id.
func (w *Writer) AddInterfaceLink(name string, lt layers.LinkType) (int, error) {
	id, err := w.w.AddInterface(pcapgo.NgInterface{Name: name, LinkType: lt, TimestampResolution: 9})
	if err != nil {
		return 0, err
	}
	w.names = append(w.names, name)
	return id, nil
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
	_, err := w.out.Write(b)
	return err
}

// Flush flushes buffered output.
func (w *Writer) Flush() error { return w.w.Flush() }
