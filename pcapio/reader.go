package pcapio

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// Sentinel errors.
var (
	// ErrFormat: the file is neither pcap nor pcapng (nor gzip of either).
	ErrFormat = errors.New("not a pcap or pcapng capture")
	// ErrLinkType: the capture's link type is not Ethernet.
	ErrLinkType = errors.New("unsupported link type")
)

// Frame is one captured frame. Data is only valid until the next call to
// Reader.Next.
type Frame struct {
	Number    int // 1-based, across the whole capture
	Time      time.Time
	Interface int // pcapng interface id; 0 for classic pcap
	Len       int // original length on the wire
	Data      []byte
	Comments  []string
}

// FrameError is a read error after LastGood good frames of File.
type FrameError struct {
	File     string
	LastGood int
	Err      error
}

func (e *FrameError) Error() string {
	return fmt.Sprintf("%s: after frame %d (the last good one): %v", e.File, e.LastGood, e.Err)
}

// Unwrap returns the underlying error.
func (e *FrameError) Unwrap() error { return e.Err }

// Interface describes a capture interface (a port, in conformance vectors).
type Interface struct {
	Name     string
	LinkType layers.LinkType
}

// Reader streams frames from one capture.
type Reader struct {
	name   string
	closer io.Closer
	count  *countingReader
	size   int64
	ng     *pcapgo.NgReader
	pc     *pcapgo.Reader
	n      int
	frame  Frame
	// checked counts the interfaces whose link type has been checked.
	checked int
}

// Open opens path ("-" for standard input), detecting pcap, pcapng and gzip.
func Open(path string) (*Reader, error) {
	var f io.ReadCloser
	if path == "-" {
		f = io.NopCloser(os.Stdin)
		path = "<stdin>"
	} else {
		var err error
		if f, err = os.Open(path); err != nil {
			return nil, err
		}
	}
	cr := &countingReader{r: f}
	r, err := NewReader(path, cr)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	r.count = cr
	if fi, ok := f.(*os.File); ok {
		if st, err := fi.Stat(); err == nil && st.Mode().IsRegular() {
			r.size = st.Size()
		}
	}
	return r, nil
}

// NewReader reads a capture from r; name is used in errors.
func NewReader(name string, r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	magic, err := br.Peek(4)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (%v)", name, ErrFormat, err)
	}
	if magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: gzip: %w", name, err)
		}
		br = bufio.NewReaderSize(gz, 1<<16)
		if magic, err = br.Peek(4); err != nil {
			return nil, fmt.Errorf("%s: %w (%v)", name, ErrFormat, err)
		}
	}
	rd := &Reader{name: name}
	switch {
	case magic[0] == 0x0a && magic[1] == 0x0d && magic[2] == 0x0d && magic[3] == 0x0a:
		rd.ng, err = pcapgo.NewNgReader(br, pcapgo.NgReaderOptions{})
	case isPcapMagic(magic):
		rd.pc, err = pcapgo.NewReader(br)
	default:
		return nil, fmt.Errorf("%s: %w (magic %x)", name, ErrFormat, magic)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for i := 0; i < rd.NInterfaces(); i++ {
		if lt := rd.Interface(i).LinkType; lt != layers.LinkTypeEthernet {
			return nil, fmt.Errorf("%s: interface %d: %w %v (want Ethernet)", name, i, ErrLinkType, lt)
		}
	}
	rd.checked = rd.NInterfaces()
	return rd, nil
}

func isPcapMagic(m []byte) bool {
	switch uint32(m[0])<<24 | uint32(m[1])<<16 | uint32(m[2])<<8 | uint32(m[3]) {
	case 0xa1b2c3d4, 0xd4c3b2a1, 0xa1b23c4d, 0x4d3cb2a1:
		return true
	}
	return false
}

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

// Name returns the name the reader was opened with.
func (r *Reader) Name() string { return r.name }

// NInterfaces returns the number of interfaces (1 for classic pcap).
func (r *Reader) NInterfaces() int {
	if r.ng != nil {
		return r.ng.NInterfaces()
	}
	return 1
}

// Interface returns interface i.
func (r *Reader) Interface(i int) Interface {
	if r.ng != nil {
		in, err := r.ng.Interface(i)
		if err != nil {
			return Interface{}
		}
		return Interface{Name: in.Name, LinkType: in.LinkType}
	}
	return Interface{LinkType: r.pc.LinkType()}
}

// IsPcapng reports whether the capture is pcapng.
func (r *Reader) IsPcapng() bool { return r.ng != nil }

// Next returns the next frame, io.EOF at the end, or a *FrameError. The
// frame and its Data are reused by the next call.
func (r *Reader) Next() (*Frame, error) {
	var (
		data []byte
		ci   gopacket.CaptureInfo
		err  error
	)
	r.frame.Comments = r.frame.Comments[:0]
	if r.ng != nil {
		var opts pcapgo.NgPacketOptions
		data, ci, opts, err = r.ng.ZeroCopyReadPacketDataWithOptions()
		r.frame.Comments = append(r.frame.Comments, opts.Comments...)
	} else {
		data, ci, err = r.pc.ZeroCopyReadPacketData()
	}
	if err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		return nil, &FrameError{File: r.name, LastGood: r.n, Err: err}
	}
	if r.ng != nil && ci.InterfaceIndex >= r.ng.NInterfaces() {
		// pcapgo reads interfaces as they come; a frame that names one
		// that does not exist is a broken capture.
		return nil, &FrameError{File: r.name, LastGood: r.n, Err: fmt.Errorf("frame names interface %d, capture has %d", ci.InterfaceIndex, r.ng.NInterfaces())}
	}
	if r.ng != nil && r.ng.NInterfaces() > r.checked {
		// An interface block after the first frames: check it too.
		for ; r.checked < r.ng.NInterfaces(); r.checked++ {
			if lt := r.Interface(r.checked).LinkType; lt != layers.LinkTypeEthernet {
				return nil, &FrameError{File: r.name, LastGood: r.n, Err: fmt.Errorf("interface %d: %w %v (want Ethernet)", r.checked, ErrLinkType, lt)}
			}
		}
	}
	r.n++
	r.frame.Number = r.n
	r.frame.Time = ci.Timestamp
	r.frame.Interface = ci.InterfaceIndex
	r.frame.Len = ci.Length
	r.frame.Data = data
	return &r.frame, nil
}

// Close closes the underlying file.
func (r *Reader) Close() error {
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}
