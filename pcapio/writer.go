// SPDX-License-Identifier: Apache-2.0

package pcapio

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"strings"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// Writer writes frames to a pcapng stream (one little-endian section)
// with named interfaces, per-frame comments and flags, in the octets
// pcapgo's NgWriter writes for what both write, and beyond it: if_speed,
// if_fcslen, timestamps in each interface's own resolution (decimal or
// binary, from 1 s to 1 ns; a finer one in nanoseconds), and comments
// longer than an option holds.
type Writer struct {
	out *bufio.Writer
	ifs []wiface
	blk []byte // scratch space for a block's header and options
}

// wiface is what the Writer keeps of an interface: its name and the
// units per second of its timestamps (tsResolution).
type wiface struct {
	name string
	div  uint64
}

// SectionInfo is what a pcapng section header block says of the capture
// (its shb_comment, shb_hardware, shb_os and shb_userappl options); the
// zero SectionInfo when it says nothing or the capture is classic pcap.
type SectionInfo struct {
	// Comment is the section's comment; several are joined by newlines.
	Comment string
	// Comments are the section's comment options one by one, in order,
	// empty ones included (nil when it has none). Writer writes them as
	// they are while Comment is what they join to (a Reader's
	// SectionInfo), else Comment.
	Comments []string
	// Hardware, OS and Application describe the machine and the program
	// that wrote the capture.
	Hardware, OS, Application string
}

// DefaultApplication is the shb_userappl a Writer writes when its
// SectionInfo names no application.
const DefaultApplication = "opensfc"

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
// element of ifs (at least one), as AddInterfaceOf writes them, and a
// section header naming DefaultApplication.
func NewWriterInterfaces(w io.Writer, ifs ...Interface) (*Writer, error) {
	return NewWriterSection(w, SectionInfo{}, ifs...)
}

// NewWriterSection is NewWriterInterfaces with a section header that
// says what sec says (DefaultApplication when it names no application):
// a capture copied keeps the section's comment and origin.
func NewWriterSection(w io.Writer, sec SectionInfo, ifs ...Interface) (*Writer, error) {
	if len(ifs) == 0 {
		return nil, fmt.Errorf("pcapio: a pcapng stream needs an interface")
	}
	if sec.Application == "" {
		sec.Application = DefaultApplication
	}
	for _, v := range []string{sec.Hardware, sec.OS, sec.Application} {
		if len(v) > maxOption {
			return nil, fmt.Errorf("pcapio: a section header option of %d octets, more than an option holds (%d)", len(v), maxOption)
		}
	}
	pw := &Writer{out: bufio.NewWriterSize(w, 64<<10)}
	// The section header, its options in pcapgo's order.
	var o options
	o.add(4, sec.Application)
	o.comments(sec.Comments, sec.Comment)
	o.add(2, sec.Hardware)
	o.add(3, sec.OS)
	b := binary.LittleEndian.AppendUint32(nil, 0x0a0d0d0a)
	b = binary.LittleEndian.AppendUint32(b, 0) // length, below
	b = binary.LittleEndian.AppendUint32(b, 0x1a2b3c4d)
	b = binary.LittleEndian.AppendUint16(b, 1)
	b = binary.LittleEndian.AppendUint16(b, 0)
	b = binary.LittleEndian.AppendUint64(b, ^uint64(0)) // section length unknown
	if _, err := pw.out.Write(o.block(b)); err != nil {
		return nil, err
	}
	for _, in := range ifs {
		if _, err := pw.AddInterfaceOf(in); err != nil {
			return nil, err
		}
	}
	return pw, nil
}

// options are a block's options as they are written.
type options struct{ b []byte }

// add appends option code with value v, left out when v is empty.
func (o *options) add(code uint16, v string) {
	if v != "" {
		o.raw(code, v)
	}
}

// raw appends option code with value v, padded to 4 octets; a value
// longer than an option holds is cut at 65,535 octets (only comments
// can be: comment splits them first).
func (o *options) raw(code uint16, v string) {
	v = v[:min(len(v), maxOption)]
	o.b = binary.LittleEndian.AppendUint16(o.b, code)
	o.b = binary.LittleEndian.AppendUint16(o.b, uint16(len(v)))
	o.b = append(o.b, v...)
	o.b = append(o.b, 0, 0, 0, 0)[:len(o.b)+(4-len(v)&3)&3]
}

// comment appends comment c (opt_comment), none when empty; one longer
// than an option holds is written as several, split at its last newline
// before the limit (where Reader joined several), else at the limit.
func (o *options) comment(c string) {
	for len(c) > maxOption {
		cut := strings.LastIndexByte(c[:maxOption+1], '\n')
		next := cut + 1
		if cut <= 0 {
			cut, next = maxOption, maxOption
		}
		o.raw(1, c[:cut])
		c = c[next:]
	}
	o.add(1, c)
}

// comments appends a block's comments: each of list as its own option,
// empty ones too, when list is what a Reader read and joined to c
// (comments.joined); else comment c, which a program may have set alone
// or changed after reading.
func (o *options) comments(list []string, c string) {
	if len(list) == 0 || comments(list).joined() != c {
		o.comment(c)
		return
	}
	for _, v := range list {
		if len(v) > maxOption {
			o.comment(v) // not from a Reader: an option holds no more
			continue
		}
		o.raw(1, v)
	}
}

// block returns the block whose type, length and fixed fields are hdr
// (the length's place a 0) with the options and their end (when there
// are any) and the trailing length.
func (o *options) block(hdr []byte) []byte {
	b := append(hdr, o.b...)
	if len(o.b) > 0 {
		b = append(b, 0, 0, 0, 0)
	}
	n := uint32(len(b) + 4)
	binary.LittleEndian.PutUint32(b[4:], n)
	return binary.LittleEndian.AppendUint32(b, n)
}

// maxOption is the most octets a pcapng option's value holds.
const maxOption = 0xFFFF

// tsResolution returns the if_tsresol a Writer writes for an interface
// of resolution res (Interface.Resolution) and its units per second: the
// same resolution when it is one from 1 s to 1 ns, a power of ten (res
// 10^k) or of two (res 10^9/2^n rounded up, as a Reader gives it: 976563
// for 2^-10 s), so that a copy keeps each timestamp as the capture had it
// (a Reader's times are exact for these; Writer.stamp finds the tick
// back); else nanoseconds, the finest a time.Time holds.
func tsResolution(res int64) (tsresol uint8, div uint64) {
	u, e := int64(1), uint8(9)
	for u < res && e > 0 {
		u, e = u*10, e-1
	}
	if u == res {
		return e, uint64(1e9 / u)
	}
	for n := uint8(1); n < 30; n++ { // 2^-30 s is less than 1 ns
		if int64((uint64(1e9)+1<<n-1)>>n) == res {
			return 0x80 | n, 1 << n
		}
	}
	return 9, 1e9
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

// AddInterfaceOf adds an interface and returns its id. The block says
// what in says: its Name, Comment, Description, Filter (a libpcap filter
// string) and OS (each left out when empty); LinkType, as it is (0 is
// LINKTYPE_NULL, BSD loopback, as a Reader gives it: an Ethernet interface
// says layers.LinkTypeEthernet); SnapLen (0: none); Speed (if_speed, none when 0); FCSLen
// (if_fcslen, none when 0 or less); and Resolution (if_tsresol: the same
// when a power of ten or of two from 1 s to 1 ns (a binary one as a
// Reader gives it, 10^9/2^n ns rounded up), else nanoseconds, also for 0
// and for a resolution finer than 1 ns, whose Resolution is 1).
// Section and ID are not used: interface i of the stream is the i-th
// added.
func (w *Writer) AddInterfaceOf(in Interface) (int, error) {
	if in.FCSLen > 0xFF {
		return 0, fmt.Errorf("pcapio: if_fcslen %d, more than an octet holds", in.FCSLen)
	}
	for _, v := range []string{in.Name, in.Description, in.OS, in.Filter + "x"} {
		if len(v) > maxOption {
			return 0, fmt.Errorf("pcapio: interface %q: an option of %d octets, more than an option holds (%d)", in.Name, len(v), maxOption)
		}
	}
	lt := in.LinkType
	tsresol, div := tsResolution(in.Resolution)
	// The options in pcapgo's order, then those it does not write.
	var o options
	o.add(2, in.Name)
	o.comments(in.Comments, in.Comment)
	o.add(3, in.Description)
	if in.Filter != "" {
		o.raw(11, "\x00"+in.Filter) // a libpcap filter string
	}
	o.add(12, in.OS)
	o.raw(9, string([]byte{tsresol}))
	if in.Speed != 0 {
		o.raw(8, string(binary.LittleEndian.AppendUint64(nil, in.Speed)))
	}
	if in.FCSLen > 0 {
		o.raw(13, string([]byte{byte(in.FCSLen)}))
	}
	b := binary.LittleEndian.AppendUint32(w.blk[:0], 1)
	b = binary.LittleEndian.AppendUint32(b, 0) // length, below
	b = binary.LittleEndian.AppendUint16(b, uint16(lt))
	b = binary.LittleEndian.AppendUint16(b, 0)
	b = binary.LittleEndian.AppendUint32(b, in.SnapLen)
	b = o.block(b)
	w.blk = b[:0]
	if _, err := w.out.Write(b); err != nil {
		return 0, err
	}
	w.ifs = append(w.ifs, wiface{name: in.Name, div: div})
	return len(w.ifs) - 1, nil
}

// NInterfaces returns the number of interfaces written so far.
func (w *Writer) NInterfaces() int { return len(w.ifs) }

// PacketOptions are the options of a packet block WriteOptions writes.
type PacketOptions struct {
	// Comments are the frame's comments (opt_comment), in order.
	Comments []string
	// Flags is the epb_flags word (Frame.Flags); none is written when 0
	// unless HasFlags.
	Flags uint32
	// DropCount is the epb_dropcount (Frame.DropCount); none when 0
	// unless HasDropCount.
	DropCount uint64
	// HasFlags and HasDropCount write epb_flags and epb_dropcount even
	// when 0 (Frame.HasFlags, Frame.HasDropCount).
	HasFlags, HasDropCount bool
}

// Write writes one frame on interface iface at time t, with comments. A
// zero t (a frame without a timestamp, Frame.Time) on interface 0 is
// written as a Simple Packet Block, which has none (and no comments); on
// another interface, which a simple packet block cannot name, as an
// Enhanced Packet Block at time 0 (1970-01-01).
func (w *Writer) Write(iface int, t time.Time, data []byte, origLen int, comments ...string) error {
	return w.WriteOptions(iface, t, data, origLen, PacketOptions{Comments: comments})
}

// WriteFrame writes fr on interface iface: its time, data, original
// length, comments, flags and drop count (each as the frame's block
// carried it, a 0 too).
func (w *Writer) WriteFrame(iface int, fr *Frame) error {
	return w.WriteOptions(iface, fr.Time, fr.Data, fr.Len, PacketOptions{Comments: fr.Comments, Flags: fr.Flags, DropCount: fr.DropCount,
		HasFlags: fr.HasFlags, HasDropCount: fr.HasDropCount})
}

// WriteOptions is Write with the packet block's options: a zero t on
// interface 0 with no options is a Simple Packet Block, else an Enhanced
// Packet Block (at time 0 when t is zero). The timestamp is in the
// interface's resolution, rounded down; a time before 1970, or one
// beyond what 64 bits of that resolution count, is an error (nothing is
// written).
func (w *Writer) WriteOptions(iface int, t time.Time, data []byte, origLen int, opt PacketOptions) error {
	if origLen < len(data) {
		origLen = len(data)
	}
	if iface < 0 || iface >= len(w.ifs) {
		return fmt.Errorf("pcapio: interface %d: the stream has %d", iface, len(w.ifs))
	}
	if len(data) > maxFrame {
		return fmt.Errorf("pcapio: a frame of %d octets, more than %d", len(data), maxFrame)
	}
	if t.IsZero() {
		if iface == 0 && len(opt.Comments) == 0 && opt.Flags == 0 && opt.DropCount == 0 && !opt.HasFlags && !opt.HasDropCount {
			return w.writeSimple(data, origLen)
		}
		t = time.Unix(0, 0)
	}
	ts, err := w.stamp(iface, t)
	if err != nil {
		return err
	}
	// The block as pcapgo writes it: header, data padded to 4 octets,
	// the options (comments, then flags) and an end of options when
	// there are any, then the length again.
	o := options{b: w.blk[:0]}
	for _, c := range opt.Comments {
		if c == "" {
			o.raw(1, c) // kept: pcapgo writes an empty comment too
		} else {
			o.comment(c)
		}
	}
	if opt.Flags != 0 || opt.HasFlags {
		o.raw(2, string(binary.LittleEndian.AppendUint32(nil, opt.Flags)))
	}
	if opt.DropCount != 0 || opt.HasDropCount {
		o.raw(4, string(binary.LittleEndian.AppendUint64(nil, opt.DropCount)))
	}
	optLen := len(o.b)
	if optLen != 0 {
		optLen += 4
	}
	pad := (4 - len(data)&3) & 3
	n := uint32(32 + len(data) + pad + optLen)
	var h [28]byte
	binary.LittleEndian.PutUint32(h[0:], 6)
	binary.LittleEndian.PutUint32(h[4:], n)
	binary.LittleEndian.PutUint32(h[8:], uint32(iface))
	binary.LittleEndian.PutUint32(h[12:], uint32(ts>>32))
	binary.LittleEndian.PutUint32(h[16:], uint32(ts))
	binary.LittleEndian.PutUint32(h[20:], uint32(len(data)))
	binary.LittleEndian.PutUint32(h[24:], uint32(origLen))
	if _, err := w.out.Write(h[:]); err != nil {
		return err
	}
	if _, err := w.out.Write(data); err != nil {
		return err
	}
	var zero [4]byte
	if _, err := w.out.Write(zero[:pad]); err != nil {
		return err
	}
	if optLen != 0 {
		o.b = append(o.b, 0, 0, 0, 0)
	}
	o.b = binary.LittleEndian.AppendUint32(o.b, n)
	w.blk = o.b[:0]
	_, err = w.out.Write(o.b)
	return err
}

// stamp returns t as a timestamp of interface iface: units of its
// resolution since 1970, rounded down, to the last unit that a Reader
// reads back (exactly, to the nanosecond below) as at most t: the unit t
// was read from when t is a Reader's time of an interface of the same
// resolution (2^-10 s is not a whole number of nanoseconds: the unit
// 3/1024 s reads as 2929687 ns, and 2929687 ns is 2.99999... units); an
// error for a time before 1970 or beyond 64 bits of units.
func (w *Writer) stamp(iface int, t time.Time) (uint64, error) {
	sec := t.Unix()
	if sec < 0 {
		return 0, fmt.Errorf("pcapio: time %s is before 1970, which pcapng cannot say", t.UTC().Format(time.RFC3339Nano))
	}
	div := w.ifs[iface].div
	// The units of the fraction: the most n with n*10^9/div < ns+1, that
	// is (ns+1)*div/10^9 rounded up, less 1 (div is at most 10^9: the
	// product is at most 10^18).
	frac := ((uint64(t.Nanosecond())+1)*div - 1) / 1e9
	hi, ts := bits.Mul64(uint64(sec), div)
	ts, carry := bits.Add64(ts, frac, 0)
	if hi != 0 || carry != 0 {
		return 0, fmt.Errorf("pcapio: time %s is beyond what a pcapng timestamp counts", t.UTC().Format(time.RFC3339Nano))
	}
	return ts, nil
}

// WriteStats writes an interface statistics block for interface iface
// saying what st says (Reader.Stats): its time, comment, start and end
// times (left out when zero) and the counters st.Has names.
func (w *Writer) WriteStats(iface int, st InterfaceStats) error {
	if iface < 0 || iface >= len(w.ifs) {
		return fmt.Errorf("pcapio: interface %d: the stream has %d", iface, len(w.ifs))
	}
	ts, err := w.stamp(iface, st.Time)
	if err != nil {
		return err
	}
	var o options
	o.comments(st.Comments, st.Comment)
	for i, at := range []time.Time{st.Start, st.End} {
		if at.IsZero() {
			continue
		}
		v, err := w.stamp(iface, at)
		if err != nil {
			return err
		}
		o.raw(uint16(2+i), string(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, uint32(v>>32)), uint32(v))))
	}
	for i, v := range []uint64{st.Received, st.Dropped, st.FilterAccept, st.OSDropped, st.Delivered} {
		if st.Has&(1<<i) != 0 {
			o.raw(uint16(4+i), string(binary.LittleEndian.AppendUint64(nil, v)))
		}
	}
	b := binary.LittleEndian.AppendUint32(w.blk[:0], 5)
	b = binary.LittleEndian.AppendUint32(b, 0) // length, below
	b = binary.LittleEndian.AppendUint32(b, uint32(iface))
	b = binary.LittleEndian.AppendUint32(b, uint32(ts>>32))
	b = binary.LittleEndian.AppendUint32(b, uint32(ts))
	b = o.block(b)
	w.blk = b[:0]
	_, err = w.out.Write(b)
	return err
}

// writeSimple writes a Simple Packet Block (little-endian, as pcapgo
// writes the section).
func (w *Writer) writeSimple(data []byte, origLen int) error {
	pad := (4 - len(data)%4) % 4
	n := uint32(16 + len(data) + pad)
	b := w.blk[:0]
	b = binary.LittleEndian.AppendUint32(b, 3)
	b = binary.LittleEndian.AppendUint32(b, n)
	b = binary.LittleEndian.AppendUint32(b, uint32(origLen))
	if _, err := w.out.Write(b); err != nil {
		return err
	}
	if _, err := w.out.Write(data); err != nil {
		return err
	}
	b = append(b[:0], 0, 0, 0, 0)[:pad]
	b = binary.LittleEndian.AppendUint32(b, n)
	w.blk = b[:0]
	_, err := w.out.Write(b)
	return err
}

// Flush flushes buffered output.
func (w *Writer) Flush() error { return w.out.Flush() }
