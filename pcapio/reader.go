// SPDX-License-Identifier: Apache-2.0

package pcapio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gopacket/gopacket/layers"
	"github.com/klauspost/compress/zstd"
)

// Sentinel errors.
var (
	// ErrFormat: the file is neither pcap nor pcapng (nor gzip or zstd of either).
	ErrFormat = errors.New("not a pcap or pcapng capture")
	// ErrLinkType: a classic pcap's link type is not one SupportedLink
	// accepts (a pcapng interface of another link type is read, its
	// frames carrying it in Frame.LinkType).
	ErrLinkType = errors.New("unsupported link type")
)

// Link types beyond gopacket's constants: LINKTYPE_LINUX_SLL2 and the raw
// IPv4 and IPv6 link types of tcpdump.org's list.
const (
	LinkTypeLinuxSLL2 layers.LinkType = 276
	LinkTypeIPv4      layers.LinkType = 228
	LinkTypeIPv6      layers.LinkType = 229
	// LinkTypeRawDLT is DLT_RAW's number on most systems (12), the link
	// type of some older pcap files: raw IP, as LINKTYPE_RAW (101).
	LinkTypeRawDLT layers.LinkType = 12
	// LinkTypeRawOpenBSD is OpenBSD's DLT_RAW (14), which its pcap files
	// carry as their link type: raw IP as well (tshark reads it so).
	LinkTypeRawOpenBSD layers.LinkType = 14
)

// SupportedLink reports whether frames of link type lt can be read and
// decoded: Ethernet (1), Linux cooked captures SLL (113) and SLL2 (276),
// what `tcpdump -i any` writes, and raw IP (101, DLT_RAW's 12 and
// OpenBSD's 14, with IPv4 228 and IPv6 229). layers.Parser.DecodeLink
// decodes each.
func SupportedLink(lt layers.LinkType) bool {
	switch lt {
	case layers.LinkTypeEthernet, layers.LinkTypeLinuxSLL, LinkTypeLinuxSLL2, layers.LinkTypeRaw, LinkTypeRawDLT, LinkTypeRawOpenBSD, LinkTypeIPv4, LinkTypeIPv6:
		return true
	}
	return false
}

// ErrCapLen: a record's captured length exceeds its original length. The
// frame is read (its Data as captured) and flagged in Frame.Warn; reading
// goes on.
var ErrCapLen = errors.New("captured length exceeds original length")

// Frame is one captured frame. Data is only valid until the next call to
// Reader.Next (for a frame of a Batch: until the batch is read into again).
type Frame struct {
	Number int // 1-based, across the whole capture
	// Time is when the frame was captured, in UTC; the zero time.Time
	// (Time.IsZero) when the record has no timestamp: a pcapng simple
	// packet block. (A timestamp never gives the zero time: that is
	// January 1 of year 1.)
	Time time.Time
	// Interface is the frame's interface numbered across the whole file:
	// the interfaces of a pcapng file's sections one after the other, in
	// the order of their description blocks (as Wireshark numbers them),
	// so that Reader.Interface(Interface) names this frame's interface
	// however many sections were read since. In a file of one section it
	// is the pcapng interface id; Interface.Section and Interface.ID give
	// the section and the id within it. 0 for classic pcap.
	Interface int
	Len       int // original length on the wire
	Data      []byte
	Comments  []string
	// LinkType is the link type of the frame's interface: what Data
	// starts with (SupportedLink lists them).
	LinkType layers.LinkType
	// Direction is what a pcapng enhanced packet block's epb_flags say of
	// the frame relative to the capturing interface: 1 inbound (received
	// by it), 2 outbound (sent by it), 0 not said (classic pcap too).
	Direction uint8
	// Flags is the whole epb_flags word (direction, reception type, FCS
	// length, link-layer errors), 0 when the block has none.
	Flags uint32
	// DropCount is the block's epb_dropcount: frames lost between the
	// previous frame of the interface and this one; 0 when it says none.
	DropCount uint64
	// HasFlags and HasDropCount say that the block carries epb_flags and
	// epb_dropcount, also when they are 0 (a drop count of 0 says that
	// nothing was lost; none says nothing): WriteFrame writes them back
	// as they were.
	HasFlags, HasDropCount bool
	// Warn is a problem with the record that did not stop reading, or
	// nil: ErrCapLen (wrapped, with the lengths).
	Warn error
}

// FrameError is a read error after LastGood good frames of File.
type FrameError struct {
	File     string
	LastGood int
	Err      error
	// Compressed names the compression the capture was read through
	// ("gzip", "zstd"), "" for none: a capture error in a compressed
	// input is often damage to the compressed stream, and Error says so.
	Compressed string
}

// Error renders "file: after frame N (the last good one): what", or for
// damage a decompressor found ("gzip: invalid checksum") that its
// checksum covers frames already read, which may be damaged too.
func (e *FrameError) Error() string {
	var d *decompressError
	switch {
	case errors.As(e.Err, &d) && e.LastGood == 0:
		return fmt.Sprintf("%s: before the first frame: the %s stream is damaged: %s", e.File, d.kind, d.what())
	case errors.As(e.Err, &d):
		return fmt.Sprintf("%s: after frame %d: the %s stream is damaged: %s (its checksums are checked at the end of each %s, so frames read before this may be damaged too)",
			e.File, e.LastGood, d.kind, d.what(), d.unit)
	case e.LastGood == 0:
		return fmt.Sprintf("%s: before the first frame: %v%s", e.File, e.Err, e.hint())
	}
	return fmt.Sprintf("%s: after frame %d (the last good one): %v%s", e.File, e.LastGood, e.Err, e.hint())
}

// hint is what Error adds to a capture error in a compressed input: the
// decompressor checks its checksum only at the end of a member or frame,
// so damage in the middle reaches the capture parser as nonsense first.
func (e *FrameError) hint() string {
	if e.Compressed == "" || errors.Is(e.Err, io.ErrUnexpectedEOF) {
		return ""
	}
	return fmt.Sprintf(" (the capture is %s-compressed: damage to the compressed stream reads like this; `%s -t %s` checks it)",
		e.Compressed, e.Compressed, e.File)
}

// decompressError is an error of the gzip or zstd decompressor under a
// capture (not of the capture's own structure).
type decompressError struct {
	kind, unit string // "gzip", "member"; "zstd", "frame"
	err        error
}

func (e *decompressError) Error() string { return e.kind + ": " + e.what() }

// what is the decompressor's error without its own "gzip: " prefix, and
// with the window limit when the window is what is too large.
func (e *decompressError) what() string {
	s := strings.TrimPrefix(e.err.Error(), e.kind+": ")
	if errors.Is(e.err, zstd.ErrWindowSizeExceeded) {
		s += " (sfcdump decodes zstd windows up to 128 MiB)"
	}
	return s
}
func (e *decompressError) Unwrap() error { return e.err }

// decompressed tags the errors of a decompressor other than io.EOF.
type decompressed struct {
	r          io.Reader
	kind, unit string
}

func (d *decompressed) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err != nil && err != io.EOF {
		err = &decompressError{kind: d.kind, unit: d.unit, err: err}
	}
	return n, err
}

// Unwrap returns the underlying error.
func (e *FrameError) Unwrap() error { return e.Err }

// Interface describes a capture interface (a port, in conformance vectors).
type Interface struct {
	Name     string
	LinkType layers.LinkType
	// Speed is the interface's speed in bit/s from the pcapng if_speed
	// option, 0 when the capture does not say (classic pcap never does)
	// or says a speed outside MinLinkSpeed to MaxLinkSpeed (OnWarning).
	Speed uint64
	// SnapLen is the interface's snap length (the most octets of a frame
	// the capture keeps), 0 for none.
	SnapLen uint32
	// Section is the 0-based pcapng section the interface belongs to,
	// and ID its interface id within that section (what the section's
	// packet blocks name it by); both 0 for classic pcap.
	Section, ID int
	// Resolution is the interface's timestamp unit in nanoseconds,
	// rounded up: 1 for nanoseconds or finer, 1000 for microseconds (the
	// pcapng default and classic pcap's usual magic), 976563 for 2^-10 s
	// (Writer writes each of these back as the same resolution). A frame
	// stamped t was captured at some instant in [t, t + Resolution).
	Resolution int64
	// FCSLen is the number of frame check sequence octets at the end of
	// each frame, from the pcapng if_fcslen option; -1 when the capture
	// does not say (then, as Wireshark assumes, the frames carry none).
	FCSLen int
	// Comment (if_comment; several joined by newlines), Description
	// (if_description), Filter (if_filter, when a libpcap filter string)
	// and OS (if_os) are what the capture says of the interface, empty
	// when it says nothing. Writer writes them back.
	Comment, Description, Filter, OS string
	// Comments are the interface's comment options one by one, in order,
	// empty ones included (nil when it has none): Writer writes them
	// back as they were while Comment is still what they join to.
	Comments []string
}

// The reader parses records in place in one buffer that it fills with
// large reads straight from the source: no bufio layer, no copy of a
// frame out of the buffer. A frame's Data is a slice of the buffer. When a
// record runs past the end of the buffer, the unparsed tail moves to the
// front (or, for a record longer than the buffer, the buffer doubles; it
// only grows while full of octets actually read, so a length field cannot
// make it allocate more than twice the input).
const (
	// readStart is the size of the read buffer Next reads in: 128 KiB,
	// as a batch's. Each read(2) has a fixed cost besides the copy (about
	// 6 µs on the VM of bench/), and device mode, which reads two
	// captures through Next and hashes them as it reads, took 2-4 % less
	// CPU than with 64 KiB (256 KiB: no better, and the octets leave the
	// cache before they are hashed and parsed).
	readStart = 128 << 10
	// readChunk is the size of a batch's buffer: 128 KiB measured faster
	// than 32, 64, 256 KiB and 1 MiB for sfcdump read (the read copies
	// into a buffer that is still in cache when a worker decodes it).
	readChunk = 128 << 10
	// maxSnap is the capture length classic pcap accepts whatever the
	// file's snap length says (libpcap's MAXIMUM_SNAPLEN, as pcapgo).
	maxSnap = 262144
	// maxBlock bounds a pcapng block (Wireshark reads up to 16 MiB).
	maxBlock = 1 << 28
	// maxFrame bounds a frame's captured length in either format, whatever
	// the snap length says (a classic pcap's may be 0xFFFFFFFF): 16 MiB,
	// 64 times the largest frame tshark reads (262144 octets) and beyond
	// any GRO or BIG TCP frame, so that the memory a reader holds for a
	// frame is bounded by it and not by a header's claim.
	maxFrame = 1 << 24
	// maxPacketBlock bounds a pcapng packet block: a frame of maxFrame
	// and 1 MiB of options. It is refused before it is read.
	maxPacketBlock = maxFrame + 1<<20
)

// errMore says the buffer does not hold the next record whole and the
// caller asked not to read.
var errMore = errors.New("pcapio: need more input")

// Reader streams frames from one capture: classic pcap (either byte
// order, micro- or nanosecond) or pcapng (any number of sections and
// interfaces, either byte order, any timestamp resolution), possibly
// gzip- or zstd-compressed.
type Reader struct {
	name   string
	closer io.Closer
	zstd   *zstd.Decoder // a zstd input's decoder, closed by Close
	// compressed is "gzip" or "zstd" for a compressed input, else "".
	compressed string
	src        io.Reader
	count      *countingReader
	size       int64

	buf      []byte // buf[pos:end] is read and not parsed yet
	pos, end int
	onRead   func() // called before each read of src (OnRead)
	rerr     error  // the error that ended reading src (io.EOF at its end)
	err      error  // the *FrameError returned, returned again after

	ng      bool
	be      bool // big-endian (the pcap header, the pcapng section)
	section bool // a pcapng section header was read
	// classic pcap
	fracNS  uint32 // nanoseconds per unit of the fraction field
	recHdr  int    // octets of a record header: 16, or 24 in modified pcap
	snaplen uint32
	link    layers.LinkType
	fcslen  int // from the link type field's high bits; -1 when not said
	// pcapng: the interfaces of every section read so far, numbered
	// across the file (Frame.Interface); the current section's are
	// ifaces[secBase:], and sections counts the section headers read.
	ifaces   []ngIface
	secBase  int
	sections int
	shb      SectionInfo // the first section's
	// metaLeft is what is left of MetadataBudget, metaDropped what was
	// not kept beyond it (keep).
	metaLeft    int
	metaDropped int64
	// warnings are the warnings met before OnWarning set onWarn, and
	// nwarn counts them all (warn).
	warnings []error
	onWarn   func(error)
	nwarn    int

	n     int
	frame Frame

	// Positioned reading (parallel.go): the next chunk's number and
	// offset (Reserve), the next chunk to parse (Frame), the partial
	// record at the end of the chunks parsed, and whether a chunk came
	// back short (the file ended there).
	reserving       bool
	nextIdx, framed int64
	nextOff         int64
	carry           []byte
	ended           bool
	// recordSize is the mean octets per frame of the chunk framed last
	// (Frame writes it, Reserve reads it: atomic).
	recordSize atomic.Int64
}

// ifaceMeta is what an interface block says of its interface that
// changes nothing a frame reads as: kept for Writer to copy, apart so that
// a capture of many bare interface blocks costs no more.
type ifaceMeta struct {
	comment, desc, filter, os string
	comments                  []string
}

// setMeta returns in's ifaceMeta, made when it has none.
func (in *ngIface) setMeta() *ifaceMeta {
	if in.meta == nil {
		in.meta = new(ifaceMeta)
	}
	return in.meta
}

// ngIface is a pcapng interface and how to turn its timestamps into time:
// seconds = ts/div + off, nanoseconds = ts%div * 10^9 / div.
type ngIface struct {
	name    string
	meta    *ifaceMeta // nil when the block says none of it
	speed   uint64
	section int // 0-based
	id      int // within the section
	link    layers.LinkType
	snaplen uint32
	div     uint64
	off     uint64
	fcslen  int
	stats   *InterfaceStats // the last statistics block, nil for none
}

// Open opens path ("-" for standard input), detecting pcap, pcapng, gzip and zstd.
func Open(path string) (*Reader, error) {
	var f io.ReadCloser
	var size int64 // a regular file's
	cr := &countingReader{}
	if path == "-" {
		f = io.NopCloser(os.Stdin)
		cr.r = f
		path = "<stdin>"
	} else {
		fi, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		regular := false
		if st, err := fi.Stat(); err == nil && st.Mode().IsRegular() {
			regular, size = true, st.Size()
		}
		f, cr.r = fi, newFileReader(fi, regular)
	}
	r, err := NewReader(path, cr)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	r.count = cr
	r.size = size
	return r, nil
}

// openError is the error of a capture whose first octets could not be
// read: its decompressor's, or ErrFormat.
func openError(name string, err error) error {
	var d *decompressError
	if errors.As(err, &d) {
		return fmt.Errorf("%s: %w", name, err)
	}
	return fmt.Errorf("%s: %w (%v)", name, ErrFormat, err)
}

// NewReader reads a capture from src; name is used in errors.
func NewReader(name string, src io.Reader) (*Reader, error) { return NewReaderTee(name, src, nil) }

// NewReaderTee is NewReader that also writes to tee every octet of the
// capture itself as it is read, after gzip or zstd decompression, so that
// a caller can scan what the reader skips (pcapng statistics blocks, for
// one) in the file's own format whether or not it was compressed.
func NewReaderTee(name string, src io.Reader, tee io.Writer) (*Reader, error) {
	r := &Reader{name: name, src: src, buf: make([]byte, readStart), metaLeft: MetadataBudget}
	if err := r.fill(4); err != nil {
		return nil, fmt.Errorf("%s: %w (%v)", name, ErrFormat, err)
	}
	if m := r.buf[r.pos:]; m[0] == 0x1f && m[1] == 0x8b {
		// gzip: decompress from the first octet, those read included.
		head := bytes.Clone(r.buf[r.pos:r.end])
		gz, err := newGzipStream(bufio.NewReaderSize(io.MultiReader(bytes.NewReader(head), src), 1<<16))
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("%s: gzip: the header is damaged or cut short (%w); `gzip -t %s` checks the file", name, err, name)
		}
		r.compressed = "gzip"
		r.src, r.pos, r.end, r.rerr = &decompressed{gz, "gzip", "member"}, 0, 0, nil
		if err := r.fill(4); err != nil {
			return nil, openError(name, err)
		}
	} else if m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd || m[0]&0xf0 == 0x50 && m[1] == 0x2a && m[2] == 0x4d && m[3] == 0x18 {
		// (A skippable frame, magic 0x184D2A5?, may come first: pzstd
		// and seekable zstd write one. RFC 8878 §3.1.2.)
		// zstd (RFC 8878), decoded as a stream in this goroutine, with a
		// window of at most 128 MiB (zstd's own default limit is 8 MiB
		// unless --long): memory stays bounded.
		head := bytes.Clone(r.buf[r.pos:r.end])
		zr, err := zstd.NewReader(io.MultiReader(bytes.NewReader(head), src),
			zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(128<<20), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, fmt.Errorf("%s: zstd: %w", name, err)
		}
		r.zstd = zr
		r.compressed = "zstd"
		r.src, r.pos, r.end, r.rerr = &decompressed{zr, "zstd", "frame"}, 0, 0, nil
		if err := r.fill(4); err != nil {
			zr.Close()
			return nil, openError(name, err)
		}
	}
	if tee != nil {
		if _, err := tee.Write(r.buf[r.pos:r.end]); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		r.src = io.TeeReader(r.src, tee)
	}
	var err error
	switch m := r.buf[r.pos:]; {
	case m[0] == 0x0a && m[1] == 0x0d && m[2] == 0x0d && m[3] == 0x0a:
		err = r.openPcapng()
	case isPcapMagic(m):
		err = r.openPcap()
	default:
		return nil, fmt.Errorf("%s: %w (magic %x)", name, ErrFormat, m[:4])
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return r, nil
}

func isPcapMagic(m []byte) bool {
	switch uint32(m[0])<<24 | uint32(m[1])<<16 | uint32(m[2])<<8 | uint32(m[3]) {
	case 0xa1b2c3d4, 0xd4c3b2a1, 0xa1b23c4d, 0x4d3cb2a1, 0xa1b2cd34, 0x34cdb2a1:
		return true
	}
	return false
}

// openPcap reads the classic pcap file header.
func (r *Reader) openPcap() error {
	if err := r.fill(24); err != nil {
		if err = unexpected(err); err == io.ErrUnexpectedEOF {
			return fmt.Errorf("the pcap file header is cut short (%d of its 24 octets): %w", r.end-r.pos, err)
		}
		return err
	}
	h := r.buf[r.pos : r.pos+24]
	r.recHdr = 16
	switch binary.LittleEndian.Uint32(h) {
	case 0xa1b2c3d4:
		r.be, r.fracNS = false, 1000
	case 0xd4c3b2a1:
		r.be, r.fracNS = true, 1000
	case 0xa1b23c4d:
		r.be, r.fracNS = false, 1
	case 0x4d3cb2a1:
		r.be, r.fracNS = true, 1
	case 0xa1b2cd34:
		// Kuznetsov's modified pcap (tcpdump's old Linux patch; Wireshark
		// reads it): each record header has 8 more octets (interface
		// index, protocol, packet type), skipped.
		r.be, r.fracNS, r.recHdr = false, 1000, 24
	default: // 0x34cdb2a1
		r.be, r.fracNS, r.recHdr = true, 1000, 24
	}
	if v := r.u16(h[4:]); v != 2 {
		return fmt.Errorf("unknown major version %d", v)
	}
	// 2.4 since libpcap 0.4; 2.2 and 2.3 are older libpcaps' and read the
	// same (libpcap and Wireshark read them; 2.3's that swapped the two
	// lengths show as a captured length past the original, flagged).
	if v := r.u16(h[6:]); v < 2 || v > 4 {
		return fmt.Errorf("unknown minor version %d", v)
	}
	r.snaplen = r.u32(h[16:])
	// The link type is the field's low 16 bits. Above them the pcap
	// format (and libpcap's LT_FCS_LENGTH_PRESENT, LT_FCS_LENGTH) keeps
	// bits 16-25 reserved, bit 26 saying that bits 28-31 give the frames'
	// FCS length in 16-bit units; as libpcap and Wireshark do, the
	// reserved bits are not held against the file.
	raw := r.u32(h[20:])
	r.link, r.fcslen = layers.LinkType(raw&0xffff), -1
	if raw&0x04000000 != 0 {
		r.fcslen = int(raw>>28) * 2
	}
	r.pos += 24
	if !SupportedLink(r.link) {
		name := r.link.String()
		if strings.HasPrefix(name, "Unknown") {
			name = "number " + strconv.FormatUint(uint64(raw&0xffff), 10)
		}
		return fmt.Errorf("interface 0: %w %s (want Ethernet, Linux SLL or SLL2, or raw IP)", ErrLinkType, name)
	}
	return nil
}

// openPcapng reads the section header and the blocks up to the first
// interface description.
func (r *Reader) openPcapng() error {
	r.ng = true
	for len(r.ifaces) == 0 {
		err := r.ngRecord(&r.frame, true, true)
		if err == errInterface {
			break
		}
		if err == io.EOF {
			return nil // a section without interfaces or frames
		}
		if err != nil {
			return err
		}
		// A frame before any interface is an error of ngRecord.
	}
	return nil
}

// errInterface stops openPcapng at the first interface description.
var errInterface = errors.New("pcapio: interface")

// countingReader counts the octets read from the file, for progress.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Progress returns how many octets of the file have been read and the
// file's size (0 when unknown: standard input, a pipe, or a Reader made by
// NewReader). For a gzip file both count compressed octets.
func (r *Reader) Progress() (read, size int64) {
	if r.count == nil {
		return 0, 0
	}
	return r.count.n, r.size
}

// OnRead sets fn to be called before each read of the capture's source,
// when the frames read so far have all been returned and the next read
// may wait: a program reading a pipe flushes its output there, so that
// what the writer sent is shown while the writer pauses (tcpdump -l).
func (r *Reader) OnRead(fn func()) { r.onRead = fn }

// Name returns the name the reader was opened with.
func (r *Reader) Name() string { return r.name }

// NInterfaces returns the number of interfaces read so far, of every
// pcapng section (1 for classic pcap): Interface takes 0 to NInterfaces-1.
func (r *Reader) NInterfaces() int {
	if r.ng {
		return len(r.ifaces)
	}
	return 1
}

// Interface returns interface i, numbered across the file as
// Frame.Interface; the zero Interface when there is no interface i (yet).
func (r *Reader) Interface(i int) Interface {
	if !r.ng {
		return Interface{LinkType: r.link, SnapLen: r.snaplen, Resolution: int64(max(r.fracNS, 1)), FCSLen: r.fcslen}
	}
	if i < 0 || i >= len(r.ifaces) {
		return Interface{}
	}
	in := &r.ifaces[i]
	res := int64(1)
	if in.div < 1e9 {
		res = int64((1e9 + in.div - 1) / in.div)
	}
	out := Interface{Name: in.name, LinkType: in.link, Speed: in.speed, SnapLen: in.snaplen, Section: in.section, ID: in.id,
		Resolution: res, FCSLen: in.fcslen}
	if m := in.meta; m != nil {
		out.Comment, out.Description, out.Filter, out.OS = m.comment, m.desc, m.filter, m.os
		out.Comments = m.comments
	}
	return out
}

// The link speeds an interface's if_speed is taken at: 1 Mb/s to 1000
// Tb/s, what sfcdump's --link-speed takes. Outside them (2^64-1, 1 bit/s:
// a writer's mistake) Interface.Speed is 0, not known, with a warning.
const (
	MinLinkSpeed = 1e6
	MaxLinkSpeed = 1e15
)

// linkSpeedRange says MinLinkSpeed to MaxLinkSpeed in words.
const linkSpeedRange = "1 Mb/s to 1000 Tb/s, the speeds taken"

// MaxWarnings bounds the warnings a Reader gives of one capture (OnWarning):
// past it one more says that the others are not given.
const MaxWarnings = 20

// OnWarning sets fn to be called with each warning of the capture: a
// problem that did not stop reading it, such as an interface's if_speed
// or if_tsresol option that is malformed or out of range and was
// ignored (the interface's speed is then not known, its timestamps in
// microseconds, as tshark reads them). Each names the interface and the
// option. fn is called at once with the warnings met so far (opening the
// capture reads its first interface), then from Next or ReadBatch as
// they are met. Without OnWarning the first MaxWarnings are kept for it.
func (r *Reader) OnWarning(fn func(error)) {
	r.onWarn = fn
	for _, w := range r.warnings {
		fn(w)
	}
	r.warnings = nil
}

// warn gives warning err to OnWarning's function, or keeps it for it;
// past MaxWarnings, one more says the rest are not given.
func (r *Reader) warn(err error) {
	r.nwarn++
	switch {
	case r.nwarn == MaxWarnings+1:
		err = fmt.Errorf("more warnings than %d: the others are not given", MaxWarnings)
	case r.nwarn > MaxWarnings:
		return
	}
	if r.onWarn != nil {
		r.onWarn(err)
	} else {
		r.warnings = append(r.warnings, err)
	}
}

// MetadataBudget bounds the octets of the strings a Reader keeps of a
// capture's metadata, whatever the capture: interface names, comments,
// descriptions, filters and OSes, statistics and section comments (a
// gzip of 1 MB could otherwise hold 2 GB of comments, all kept). What is
// past it is cut, and counted by MetadataDropped.
const MetadataBudget = 16 << 20

// keep returns the part of metadata string v the budget still holds.
func (r *Reader) keep(v []byte) []byte {
	n := min(len(v), r.metaLeft)
	r.metaLeft -= n
	r.metaDropped += int64(len(v) - n)
	return v[:n]
}

// MetadataDropped returns how many octets of metadata strings (names,
// comments, descriptions...) the Reader did not keep because the
// capture's exceeded MetadataBudget; 0 for any real capture.
func (r *Reader) MetadataDropped() int64 { return r.metaDropped }

// Section returns what the first pcapng section header says of the
// capture (the zero SectionInfo for classic pcap).
func (r *Reader) Section() SectionInfo { return r.shb }

// sectionInfo reads a section header's options b. They describe and
// change nothing a frame reads as: an option cut short ends them, with
// what came before kept and a warning (OnWarning), not an error.
func (r *Reader) sectionInfo(b []byte) SectionInfo {
	var s SectionInfo
	var comment comments
	err := r.options(b, func(code uint16, v []byte) {
		switch code {
		case 1:
			r.addComment(&comment, v)
		case 2:
			s.Hardware = string(r.keep(v))
		case 3:
			s.OS = string(r.keep(v))
		case 4:
			s.Application = string(r.keep(v))
		}
	})
	if err != nil {
		r.warnOptionsCut("section header", err)
	}
	s.Comment, s.Comments = comment.joined(), comment.list()
	return s
}

// comments gathers a block's comment options, each of them (empty ones
// too) in order: Writer writes them back one by one, as they were.
type comments []string

// addComment appends comment option v to c within the metadata budget
// (keep); a comment past the budget is left out. Each one kept is charged
// a string header more than its octets (a block of millions of empty
// comments holds memory too), and, from a block's second one on, its
// octets twice: joined copies them all.
func (r *Reader) addComment(c *comments, v []byte) {
	const header = 16
	if r.metaLeft < header {
		r.metaDropped += int64(len(v))
		return
	}
	r.metaLeft -= header
	if len(*c) == 1 {
		r.metaLeft -= min(r.metaLeft, len((*c)[0]))
	}
	kept := r.keep(v)
	if len(*c) > 0 {
		r.metaLeft -= min(r.metaLeft, len(kept))
	}
	*c = append(*c, string(kept))
}

// joined returns the comments joined by newlines, the empty ones before
// the first that is not left out; one comment is itself, not a copy.
func (c comments) joined() string {
	if len(c) == 1 {
		return c[0]
	}
	var b strings.Builder
	for _, v := range c {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(v)
	}
	return b.String()
}

// list returns the comments, nil when there are none.
func (c comments) list() []string {
	if len(c) == 0 {
		return nil
	}
	return c
}

// ts64 reads a pcapng timestamp: its high 32 bits, then its low 32 bits,
// each in the section's byte order.
func (r *Reader) ts64(b []byte) uint64 { return uint64(r.u32(b))<<32 | uint64(r.u32(b[4:])) }

// InterfaceStats is what a pcapng interface statistics block says of
// its interface: the counters the capturing program kept, which say
// whether the capture is complete (device mode reads the drops).
type InterfaceStats struct {
	// Time is the block's timestamp.
	Time time.Time
	// Comment is the block's comment (several joined by newlines).
	Comment string
	// Comments are the block's comment options one by one, in order,
	// empty ones included (nil when it has none): Writer writes them
	// back as they were while Comment is still what they join to.
	Comments []string
	// Start and End are isb_starttime and isb_endtime, zero when absent.
	Start, End time.Time
	// Received (isb_ifrecv), Dropped (isb_ifdrop), FilterAccept
	// (isb_filteraccept), OSDropped (isb_osdrop) and Delivered
	// (isb_usrdeliv) are the counters, each meaningful only when its bit
	// (StatsReceived...) is set in Has.
	Received, Dropped, FilterAccept, OSDropped, Delivered uint64
	// Has says which counters the block has.
	Has StatsCounters
}

// StatsCounters are the counters an interface statistics block has.
type StatsCounters uint8

// The counters of InterfaceStats.
const (
	StatsReceived StatsCounters = 1 << iota
	StatsDropped
	StatsFilterAccept
	StatsOSDropped
	StatsDelivered
)

// Stats returns the last interface statistics block read for interface
// i (numbered as Frame.Interface) and true, or false when none was read.
// Statistics blocks usually come last: all of them are read once Next
// returned io.EOF.
func (r *Reader) Stats(i int) (InterfaceStats, bool) {
	if !r.ng || i < 0 || i >= len(r.ifaces) || r.ifaces[i].stats == nil {
		return InterfaceStats{}, false
	}
	return *r.ifaces[i].stats, true
}

// interfaceStats keeps the interface statistics block body as its
// interface's last. A block that names no interface of the section, or
// is cut short, changes nothing a frame reads as and is passed over; an
// option that runs past the block ends its options, with a warning.
func (r *Reader) interfaceStats(body []byte) {
	if len(body) < 12 {
		return
	}
	id := int(r.u32(body))
	if id >= len(r.ifaces)-r.secBase {
		return
	}
	in := &r.ifaces[r.secBase+id]
	st := InterfaceStats{Time: in.time(r.ts64(body[4:]))}
	var comment comments
	err := r.options(body[12:], func(code uint16, v []byte) {
		switch l := len(v); {
		case code == 1:
			r.addComment(&comment, v)
		case code == 2 && l == 8:
			st.Start = in.time(r.ts64(v))
		case code == 3 && l == 8:
			st.End = in.time(r.ts64(v))
		case code >= 4 && code <= 8 && l == 8:
			c := [...]*uint64{&st.Received, &st.Dropped, &st.FilterAccept, &st.OSDropped, &st.Delivered}
			*c[code-4] = r.u64(v)
			st.Has |= 1 << (code - 4)
		}
	})
	if err != nil {
		r.warnOptionsCut(in.named()+": statistics", err)
	}
	st.Comment, st.Comments = comment.joined(), comment.list()
	if in.stats == nil {
		in.stats = new(InterfaceStats)
	}
	*in.stats = st
}

// Frames returns the number of frames read so far (all of them once Next
// or ReadBatch returned io.EOF).
func (r *Reader) Frames() int { return r.n }

// IsPcapng reports whether the capture is pcapng.
func (r *Reader) IsPcapng() bool { return r.ng }

// Next returns the next frame, io.EOF at the end, or a *FrameError. The
// frame and its Data are reused by the next call.
func (r *Reader) Next() (*Frame, error) {
	if r.err != nil {
		return nil, r.err
	}
	if err := r.record(&r.frame, true); err != nil {
		return nil, r.fail(err)
	}
	return &r.frame, nil
}

// fail turns a parse error into what Next and ReadBatch return, and keeps
// it for the calls after.
func (r *Reader) fail(err error) error {
	if err == io.ErrUnexpectedEOF && r.count != nil && r.compressed == "" {
		// Where the record cut short starts: what was read of the file
		// less what is still unparsed.
		err = fmt.Errorf("the record at octet %d is cut short: %w", r.count.n-int64(r.end-r.pos), err)
	}
	if err != io.EOF {
		err = &FrameError{File: r.name, LastGood: r.n, Err: err, Compressed: r.compressed}
	}
	r.err = err
	return err
}

// Batch holds frames read in one go by ReadBatch, or by Reserve, Load and
// Frame. Their Data point into a buffer the batch owns (or, for a record
// longer than ChunkPad read by position, one the reader gave up to it), so
// they stay valid while the reader reads on, until the batch is passed to
// ReadBatch or Reserve again. A batch is reused: its buffer and its
// frames' comment slices are recycled.
type Batch struct {
	Frames []Frame
	buf    []byte
	chunk  chunk  // the part of the file Reserve gave it (parallel.go)
	spare  []byte // a record longer than ChunkPad put together (parallel.go)
}

// BatchBuffer is the size of the buffer a Batch reads into (its frames'
// Data are slices of it): what SetBuffer wants. ReadBatch reads up to
// 128 KiB into it; a positioned read (Load) reads ChunkSize octets after
// ChunkPad octets kept for the end of the chunk before.
const BatchBuffer = ChunkPad + ChunkSize

// SetBuffer gives b a buffer of its own of at least BatchBuffer octets
// (a shorter one is not used), so that a caller can place its batches'
// buffers in memory of its choosing (sfcdump read: one region outside the
// Go heap, backed by huge pages). ReadBatch hands b's buffer to the reader
// to read the frames after b's into, and b takes the reader's: buffers
// move between the reader and the batches, so the memory must outlive
// the reader and every batch.
func (b *Batch) SetBuffer(p []byte) { b.buf = p[:0] }

// ReadBatch reads into b the frames that follow, up to limit of them (0: no
// limit): those the reader holds, after a read from the source only when
// it holds none whole, so a batch is about one read (128 KiB) of frames
// and is not held back waiting for a slow pipe. It returns io.EOF, or a
// *FrameError, only with no frame in b: frames read before an error come
// first, the error with the next call. b takes over the reader's buffer
// (and the reader b's): nothing is copied but a partial record.
func (r *Reader) ReadBatch(b *Batch, limit int) error {
	b.Frames = b.Frames[:0]
	if r.err != nil {
		return r.err
	}
	if err := r.appendFrames(b, limit, true); err != nil {
		err = r.fail(err)
		if len(b.Frames) == 0 {
			return err
		}
	}
	// Hand the buffer over with the frames; keep the unparsed tail.
	tail := r.buf[r.pos:r.end]
	nb := b.buf[:min(cap(b.buf), readChunk)]
	if len(nb) < readChunk || len(nb) < 2*len(tail) {
		nb = make([]byte, max(readChunk, 2*len(tail)))
	}
	b.buf = r.buf
	r.buf = nb
	r.pos, r.end = 0, copy(nb, tail)
	return nil
}

// appendFrames parses records into b.Frames, up to limit frames (0: no
// limit), reading from the source for the first one only when refill. It
// stops at the first record the buffer does not hold whole, returning
// nil, or at a record's error, which it returns for the caller to fail.
func (r *Reader) appendFrames(b *Batch, limit int, refill bool) error {
	for limit <= 0 || len(b.Frames) < limit {
		n := len(b.Frames)
		if n < cap(b.Frames) {
			b.Frames = b.Frames[:n+1]
		} else {
			b.Frames = append(b.Frames, Frame{})
		}
		if err := r.record(&b.Frames[n], refill && n == 0); err != nil {
			b.Frames = b.Frames[:n]
			if err == errMore {
				return nil
			}
			return err
		}
	}
	return nil
}

// record parses the next frame into fr. With refill false it returns
// errMore rather than read (or move the buffer's contents).
func (r *Reader) record(fr *Frame, refill bool) error {
	if r.ng {
		return r.ngRecord(fr, refill, false)
	}
	return r.pcapRecord(fr, refill)
}

// fill makes the buffer hold at least need unparsed octets, reading from
// the source. It returns io.EOF when the source ends with nothing left
// unparsed, io.ErrUnexpectedEOF when it ends in the middle of a record.
func (r *Reader) fill(need int) error {
	if r.end-r.pos >= need {
		return nil
	}
	if r.pos > 0 && (r.pos+need > len(r.buf) || len(r.buf)-r.end < len(r.buf)/4) {
		r.end = copy(r.buf, r.buf[r.pos:r.end])
		r.pos = 0
	}
	for r.end-r.pos < need {
		if r.rerr != nil {
			if r.rerr == io.EOF {
				if r.end == r.pos {
					return io.EOF
				}
				return io.ErrUnexpectedEOF
			}
			return r.rerr
		}
		if r.end == len(r.buf) {
			if r.pos > 0 {
				r.end = copy(r.buf, r.buf[r.pos:r.end])
			} else {
				// Full of one record's octets: double (see readChunk).
				nb := make([]byte, 2*len(r.buf))
				r.end = copy(nb, r.buf[:r.end])
				r.buf = nb
			}
			r.pos = 0
		}
		if r.onRead != nil {
			r.onRead()
		}
		n, err := r.src.Read(r.buf[r.end:])
		r.end += n
		if err != nil {
			r.rerr = err
		} else if n == 0 {
			r.rerr = io.ErrNoProgress
		}
	}
	return nil
}

func (r *Reader) u16(b []byte) uint16 {
	if r.be {
		return binary.BigEndian.Uint16(b)
	}
	return binary.LittleEndian.Uint16(b)
}

func (r *Reader) u32(b []byte) uint32 {
	if r.be {
		return binary.BigEndian.Uint32(b)
	}
	return binary.LittleEndian.Uint32(b)
}

func (r *Reader) u64(b []byte) uint64 {
	if r.be {
		return binary.BigEndian.Uint64(b)
	}
	return binary.LittleEndian.Uint64(b)
}

// unexpected turns io.EOF (the source ended between records) into
// io.ErrUnexpectedEOF, for reads that are inside a record or a header.
func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// pcapRecord parses a classic pcap record.
func (r *Reader) pcapRecord(fr *Frame, refill bool) error {
	hl := r.recHdr
	if r.end-r.pos < hl {
		if !refill {
			return errMore
		}
		if err := r.fill(hl); err != nil {
			return err
		}
	}
	h := r.buf[r.pos : r.pos+16 : r.pos+16]
	capLen, origLen := r.u32(h[8:]), r.u32(h[12:])
	if capLen > maxFrame {
		return fmt.Errorf("capture length %d: more than %d octets, the most a frame may hold", capLen, maxFrame)
	}
	if capLen > max(r.snaplen, maxSnap) {
		return fmt.Errorf("capture length exceeds snap length: %d > %d", capLen, r.snaplen)
	}
	size := hl + int(capLen)
	if r.end-r.pos < size {
		if !refill {
			return errMore
		}
		if err := r.fill(size); err != nil {
			return unexpected(err)
		}
		h = r.buf[r.pos : r.pos+16 : r.pos+16]
	}
	// The fraction is multiplied in 32 bits, as pcapgo does.
	fr.Time = time.Unix(int64(r.u32(h)), int64(r.u32(h[4:])*r.fracNS)).UTC()
	fr.Len = int(origLen)
	fr.Interface = 0
	fr.Data = r.buf[r.pos+hl : r.pos+size : r.pos+size]
	fr.clearOptions()
	fr.LinkType = r.link
	fr.Warn = nil
	if capLen > origLen {
		fr.Warn = capLenError(capLen, origLen)
	}
	r.pos += size
	r.n++
	fr.Number = r.n
	return nil
}

// ngRecord parses pcapng blocks up to the next frame. In openPcapng
// (opening) it returns errInterface after the first interface.
func (r *Reader) ngRecord(fr *Frame, refill, opening bool) error {
	for {
		if r.end-r.pos < 12 {
			if !refill {
				return errMore
			}
			if err := r.fill(12); err != nil {
				return err
			}
		}
		h := r.buf[r.pos : r.pos+12]
		if h[0] == 0x0a && h[1] == 0x0d && h[2] == 0x0d && h[3] == 0x0a {
			switch binary.LittleEndian.Uint32(h[8:]) {
			case 0x1a2b3c4d:
				r.be, r.section = false, true
			case 0x4d3c2b1a:
				r.be, r.section = true, true
			default:
				return errors.New("wrong byte order value in section header")
			}
		} else if !r.section {
			return fmt.Errorf("%w: no section header", ErrFormat)
		}
		typ, l := r.u32(h), r.u32(h[4:])
		switch {
		case l < 12:
			return fmt.Errorf("pcapng block of type %#x: length %d, less than a block's 12 octets", typ, l)
		case l%4 != 0:
			return fmt.Errorf("pcapng block of type %#x: length %d, not a multiple of 4", typ, l)
		case l > maxBlock:
			return fmt.Errorf("pcapng block of type %#x: length %d, more than %d octets", typ, l, maxBlock)
		case (typ == 6 || typ == 2 || typ == 3) && l > maxPacketBlock:
			return fmt.Errorf("pcapng packet block: length %d, more than %d octets (a frame of at most %d and its options)", l, maxPacketBlock, maxFrame)
		}
		size := int(l)
		if r.end-r.pos < size {
			if !refill {
				return errMore
			}
			if err := r.fill(size); err != nil {
				return unexpected(err)
			}
		}
		blk := r.buf[r.pos : r.pos+size : r.pos+size]
		if t := r.u32(blk[size-4:]); t != l {
			return fmt.Errorf("pcapng block of type %#x: length %d, trailing length %d", typ, l, t)
		}
		body := blk[8 : size-4]
		switch typ {
		case 0x0a0d0d0a: // section header
			if len(body) < 16 {
				return fmt.Errorf("pcapng section header: length %d", l)
			}
			// 1.0, and 1.2, which libpcap and Wireshark read as the same
			// format (some writers put it there).
			if maj, mnr := r.u16(body[4:]), r.u16(body[6:]); maj != 1 || mnr != 0 && mnr != 2 {
				return fmt.Errorf("unknown pcapng version in section header (%d.%d)", maj, mnr)
			}
			// A new section numbers its interfaces from 0 again; the
			// earlier sections' stay, so that a frame's Interface keeps
			// naming its own (file-wide numbers, Frame.Interface).
			r.secBase = len(r.ifaces)
			r.sections++
			if r.sections == 1 {
				r.shb = r.sectionInfo(body[16:])
			}
		case 1: // interface description
			if err := r.ngInterface(body); err != nil {
				return err
			}
			if opening {
				r.pos += size
				return errInterface
			}
		case 6, 2: // enhanced packet, (obsolete) packet
			if len(body) < 20 {
				return fmt.Errorf("pcapng packet block: length %d", l)
			}
			id := int(r.u32(body))
			if typ == 2 {
				id = int(r.u16(body))
			}
			if n := len(r.ifaces) - r.secBase; id >= n {
				if r.sections > 1 {
					return fmt.Errorf("frame names interface %d, section %d has %d", id, r.sections-1, n)
				}
				return fmt.Errorf("frame names interface %d, capture has %d", id, n)
			}
			id += r.secBase
			capLen := r.u32(body[12:])
			if int64(capLen) > int64(len(body)-20) {
				return fmt.Errorf("pcapng packet block: captured length %d past the block's end (%d octets)", capLen, len(body)-20)
			}
			in := &r.ifaces[id]
			fr.Time = in.time(r.ts64(body[4:]))
			fr.Len = int(r.u32(body[16:]))
			fr.Interface = id
			fr.LinkType = in.link
			fr.Warn = nil
			if capLen > uint32(fr.Len) {
				fr.Warn = capLenError(capLen, uint32(fr.Len))
			}
			end := 20 + int(capLen)
			fr.Data = body[20:end:end]
			fr.clearOptions()
			if typ == 6 {
				if opt := 20 + (int(capLen)+3)&^3; opt < len(body) {
					r.packetOptions(fr, body[opt:])
				}
			}
			r.pos += size
			r.n++
			fr.Number = r.n
			return nil
		case 5: // interface statistics: the last of each interface is kept
			r.interfaceStats(body)
		case 3: // simple packet: interface 0, no timestamp
			if len(body) < 4 {
				return fmt.Errorf("pcapng simple packet block: length %d", l)
			}
			if len(r.ifaces) == r.secBase {
				return fmt.Errorf("simple packet block in section %d, which has no interface", r.sections-1)
			}
			in := &r.ifaces[r.secBase]
			orig := r.u32(body)
			capLen := min(orig, uint32(len(body)-4))
			if s := in.snaplen; s != 0 && capLen > s {
				capLen = s
			}
			fr.Time = time.Time{}
			fr.Len = int(orig)
			fr.Interface = r.secBase
			fr.LinkType = in.link
			fr.Warn = nil
			fr.Data = body[4 : 4+capLen : 4+capLen]
			fr.clearOptions()
			r.pos += size
			r.n++
			fr.Number = r.n
			return nil
		}
		r.pos += size
	}
}

// MaxInterfaces bounds the interfaces of one pcapng capture (every
// section's together): what a reader and sfcdump keep per interface
// (speeds, how -w writes it; a few hundred octets, and its strings, which
// MetadataBudget bounds in all) then stays bounded whatever the capture. Real captures have a handful; mergecap
// of a hundred files, a thousand.
const MaxInterfaces = 1 << 16

// ngInterface adds the interface an interface description block describes.
func (r *Reader) ngInterface(body []byte) error {
	if len(body) < 8 {
		return fmt.Errorf("pcapng interface description: length %d", len(body)+12)
	}
	if len(r.ifaces) >= MaxInterfaces {
		return fmt.Errorf("pcapng interface description: more than %d interfaces in the capture (pcapio.MaxInterfaces)", MaxInterfaces)
	}
	in := ngIface{link: layers.LinkType(r.u16(body)), snaplen: r.u32(body[4:]),
		section: r.sections - 1, id: len(r.ifaces) - r.secBase, fcslen: -1}
	res := uint8(6)
	var comment comments
	// The options that change how every frame of the interface reads (its
	// times, FCS) must be whole: one cut short, or one running past the
	// block, is an error (as tshark's), not a silent default. A malformed
	// if_speed or if_tsresol is passed over with a warning, as tshark
	// passes over them: the speed is then unknown, the resolution the
	// default (microseconds).
	var bad error
	want := func(name string, v []byte, n int) bool {
		if len(v) != n && bad == nil {
			bad = fmt.Errorf("%s: %s option of %d octets, want %d", in.what(), name, len(v), n)
		}
		return len(v) == n
	}
	// warns are the warnings of the block, one per option code at most
	// (warned, bit code): a block of a million bad options is one.
	var warns []string
	var warned uint16
	ignore := func(code uint16, name string, v []byte, n int, then string) bool {
		if len(v) != n && warned&(1<<code) == 0 {
			warned |= 1 << code
			warns = append(warns, fmt.Sprintf("%s option of %d octets, want %d: ignored, %s", name, len(v), n, then))
		}
		return len(v) == n
	}
	if err := r.options(body[8:], func(code uint16, v []byte) {
		switch code {
		case 1: // opt_comment
			r.addComment(&comment, v)
		case 2: // if_name
			in.name = string(r.keep(v))
		case 3: // if_description
			in.setMeta().desc = string(r.keep(v))
		case 11: // if_filter: a libpcap filter string when its first octet is 0
			if len(v) > 0 && v[0] == 0 {
				in.setMeta().filter = string(r.keep(v[1:]))
			}
		case 12: // if_os
			in.setMeta().os = string(r.keep(v))
		case 8: // if_speed, bit/s
			if ignore(code, "if_speed", v, 8, "the speed is not known") {
				in.speed = r.u64(v)
			}
		case 9: // if_tsresol: 0 is 10^0, whole seconds; only its
			// absence means the default, microseconds
			if ignore(code, "if_tsresol", v, 1, "timestamps read in microseconds") {
				res = v[0]
			}
		case 13: // if_fcslen, octets
			if want("if_fcslen", v, 1) {
				in.fcslen = int(v[0])
			}
		case 14: // if_tsoffset
			if want("if_tsoffset", v, 8) {
				in.off = r.u64(v)
			}
		}
	}); err != nil {
		return fmt.Errorf("%s: %w", in.what(), err)
	}
	if bad != nil {
		return bad
	}
	if len(comment) > 0 {
		m := in.setMeta()
		m.comment, m.comments = comment.joined(), comment
	}
	// 10^-19 and 2^-63 s are the finest whose units per second fit the
	// 64 bits the conversion divides by (libpcap refuses finer ones too).
	if base, exp := 10, res&0x7f; res&0x80 == 0 && exp > 19 || exp > 63 {
		if res&0x80 != 0 {
			base = 2
		}
		warns = append(warns, fmt.Sprintf("timestamp resolution %d^-%d (if_tsresol %#02x) is too high, at most 10^-19 or 2^-63 s: ignored, timestamps read in microseconds",
			base, exp, res))
		res = 6
	}
	// An if_speed outside the speeds a link has (MinLinkSpeed to
	// MaxLinkSpeed) is a mistake: at 2^64-1 bit/s a PAUSE would last no
	// time, at 1 bit/s a year. It is taken as unknown, as 0 is.
	if in.speed != 0 && (in.speed < MinLinkSpeed || in.speed > MaxLinkSpeed) {
		warns = append(warns, fmt.Sprintf("if_speed %d bit/s is outside %s: ignored, the speed is not known", in.speed, linkSpeedRange))
		in.speed = 0
	}
	for _, w := range warns {
		r.warn(fmt.Errorf("%s: %s", in.named(), w))
	}
	if res&0x80 != 0 {
		in.div = 1 << (res & 0x7f)
	} else {
		in.div = 1
		for i := uint8(0); i < res; i++ {
			in.div *= 10
		}
	}
	// An interface of another link type is kept, its frames read with
	// their LinkType for the caller to decode or not: a pcapng that mixes
	// an Ethernet port with, say, a USB or 802.11 interface still gives
	// the Ethernet frames (tshark shows the others undecoded). A classic
	// pcap has one link type, and is refused when it is not supported.
	r.ifaces = append(r.ifaces, in)
	return nil
}

// named is what, with the interface's name (if_name) when it has one.
func (in *ngIface) named() string {
	if in.name == "" {
		return in.what()
	}
	// Quoted with Go's escapes: the name is the capture's, and a line
	// break in it would start a line of its own in the warning.
	return in.what() + " (" + strconv.Quote(in.name) + ")"
}

// what names the interface in errors: "interface N", with the section
// after the first.
func (in *ngIface) what() string {
	if in.section == 0 {
		return fmt.Sprintf("interface %d", in.id)
	}
	return fmt.Sprintf("interface %d of section %d", in.id, in.section)
}

// time converts a timestamp of the interface (the common micro- and
// nanosecond resolutions divide by constants).
func (in *ngIface) time(ts uint64) time.Time {
	var sec, ns uint64
	switch in.div {
	case 1e6:
		sec, ns = ts/1e6, ts%1e6*1000
	case 1e9:
		sec, ns = ts/1e9, ts%1e9
	default:
		// Exactly, for any resolution (2^-10 s is not a whole number of
		// nanoseconds: pcapgo's rounded factor drifts by up to 0.05 %).
		sec = ts / in.div
		hi, lo := bits.Mul64(ts%in.div, 1e9)
		ns, _ = bits.Div64(hi, lo, in.div)
	}
	return time.Unix(int64(sec+in.off), int64(ns)).UTC()
}

// options calls fn with each option of a pcapng block's options up to
// the end-of-options option; an option that runs past the block is an
// error.
func (r *Reader) options(b []byte, fn func(code uint16, v []byte)) error {
	for len(b) >= 4 {
		code, l := r.u16(b), int(r.u16(b[2:]))
		if code == 0 {
			return nil
		}
		if 4+l > len(b) {
			return errPastBlock(code, l, len(b)-4)
		}
		fn(code, b[4:4+l])
		b = b[min(len(b), 4+(l+3)&^3):]
	}
	return nil
}

// errPastBlock is the error of option code of l octets that runs past
// its block, which has left octets after the option's header.
func errPastBlock(code uint16, l, left int) error {
	return fmt.Errorf("option %d of %d octets runs past the block (%d octets left)", code, l, left)
}

// warnOptionsCut warns that the options of where (a frame, the section
// header, an interface's statistics) end at err, an option past the
// block: those before it are kept, it and any after it are not.
func (r *Reader) warnOptionsCut(where string, err error) {
	r.warn(fmt.Errorf("%s: %w: ignored, with any after it", where, err))
}

// clearOptions sets fr's packet-block options to none (a record that
// carries none, before its own are read).
func (fr *Frame) clearOptions() {
	fr.Comments, fr.Direction, fr.Flags, fr.DropCount, fr.HasFlags, fr.HasDropCount = fr.Comments[:0], 0, 0, 0, false, false
}

// packetOptions appends the comments (opt_comment) of a packet block's
// options b to fr's and sets its epb_flags (and the direction in them)
// and epb_dropcount, with HasFlags and HasDropCount, from b.
//
// An option that runs past the block ends them, and an epb_flags or
// epb_dropcount of the wrong length is ignored, each with a warning
// naming the frame (OnWarning): the frame is read, as tshark reads it.
func (r *Reader) packetOptions(fr *Frame, b []byte) {
	for len(b) >= 4 {
		code, l := r.u16(b), int(r.u16(b[2:]))
		if code == 0 {
			break
		}
		if 4+l > len(b) {
			r.warnOptionsCut("frame "+strconv.Itoa(r.n+1), errPastBlock(code, l, len(b)-4))
			break
		}
		switch {
		case code == 1:
			fr.Comments = append(fr.Comments, string(b[4:4+l]))
		case code == 2 && l == 4:
			fr.Flags, fr.HasFlags = r.u32(b[4:]), true
			fr.Direction = uint8(fr.Flags & 3)
		case code == 2:
			r.warn(fmt.Errorf("frame %d: epb_flags option of %d octets, want 4: ignored", r.n+1, l))
		case code == 4 && l == 8:
			fr.DropCount, fr.HasDropCount = r.u64(b[4:]), true
		case code == 4:
			r.warn(fmt.Errorf("frame %d: epb_dropcount option of %d octets, want 8: ignored", r.n+1, l))
		}
		b = b[min(len(b), 4+(l+3)&^3):]
	}
}

// Close closes the underlying file.
func (r *Reader) Close() error {
	if r.zstd != nil {
		r.zstd.Close()
	}
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}

// capLenError is the Warn of a record whose captured length exceeds its
// original length.
func capLenError(capLen, origLen uint32) error {
	return fmt.Errorf("%w: %d > %d", ErrCapLen, capLen, origLen)
}
