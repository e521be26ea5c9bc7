// SPDX-License-Identifier: Apache-2.0

package pcapio

// The reader pcapio had before its own parser: pcapgo behind a
// bufio.Reader, kept as the oracle of the differential tests.

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/pcapgo"
)

// Reader streams frames from one capture.
type oracle struct {
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
	// pcapgo numbers interfaces per section; pcapio across the file.
	// prev holds the interfaces of the sections before the current one
	// (a section is new when pcapgo's count of interfaces drops, which
	// holds for the corpus), seen pcapgo's count at the last frame.
	prev []Interface
	seen int
	last []Interface // the current section's interfaces at the last frame
}

// Open opens path ("-" for standard input), detecting pcap, pcapng and gzip.
func openOracle(path string) (*oracle, error) {
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
	r, err := newOracle(path, cr)
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
func newOracle(name string, r io.Reader) (*oracle, error) {
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
	rd := &oracle{name: name}
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
		if lt := rd.Interface(i).LinkType; !SupportedLink(lt) {
			return nil, fmt.Errorf("%s: interface %d: %w %v (want Ethernet)", name, i, ErrLinkType, lt)
		}
	}
	rd.checked = rd.NInterfaces()
	return rd, nil
}

// Progress returns how many octets of the file have been read and the
// file's size (0 when unknown: standard input, a pipe, or a Reader made by
// NewReader). For a gzip file both count compressed octets.
func (r *oracle) Progress() (read, size int64) {
	if r.count == nil {
		return 0, 0
	}
	return r.count.n, r.size
}

// Name returns the name the reader was opened with.
func (r *oracle) Name() string { return r.name }

// NInterfaces returns the number of interfaces (1 for classic pcap).
func (r *oracle) NInterfaces() int {
	if r.ng != nil {
		return len(r.prev) + r.ng.NInterfaces()
	}
	return 1
}

// Interface returns interface i.
func (r *oracle) Interface(i int) Interface {
	if r.ng != nil {
		if i < len(r.prev) {
			return r.prev[i]
		}
		id := i - len(r.prev)
		in, err := r.ng.Interface(id)
		if err != nil {
			return Interface{}
		}
		sec := 0
		if len(r.prev) > 0 {
			sec = r.prev[len(r.prev)-1].Section + 1
		}
		return Interface{Name: in.Name, LinkType: in.LinkType, SnapLen: in.SnapLength, Section: sec, ID: id,
			Resolution: resolutionNS(in.TimestampResolution.ToTimestampResolution()), FCSLen: -1}
	}
	return Interface{LinkType: r.pc.LinkType(), SnapLen: r.pc.Snaplen(), Resolution: resolutionNS(r.pc.Resolution()), FCSLen: -1}
}

// resolutionNS is gopacket's resolution as nanoseconds per unit, rounded
// up (1 at nanoseconds or finer).
func resolutionNS(res gopacket.TimestampResolution) int64 {
	div := 1.0 // units per second
	for i := 0; i < -res.Exponent; i++ {
		div *= float64(res.Base)
	}
	return max(1, int64(math.Ceil(1e9/div)))
}

// IsPcapng reports whether the capture is pcapng.
func (r *oracle) IsPcapng() bool { return r.ng != nil }

// Next returns the next frame, io.EOF at the end, or a *FrameError. The
// frame and its Data are reused by the next call.
func (r *oracle) Next() (*Frame, error) {
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
	if r.ng != nil && r.ng.NInterfaces() < r.seen {
		// A new section: keep the last one's interfaces.
		r.prev = append(r.prev, r.last...)
	}
	if r.ng != nil {
		r.seen = r.ng.NInterfaces()
		r.last = r.last[:0]
		for id := 0; id < r.seen; id++ {
			r.last = append(r.last, r.Interface(len(r.prev)+id))
		}
	}
	if r.ng != nil && ci.InterfaceIndex >= r.ng.NInterfaces() {
		// pcapgo reads interfaces as they come; a frame that names one
		// that does not exist is a broken capture.
		return nil, &FrameError{File: r.name, LastGood: r.n, Err: fmt.Errorf("frame names interface %d, capture has %d", ci.InterfaceIndex, r.ng.NInterfaces())}
	}
	if r.ng != nil && r.ng.NInterfaces() > r.checked {
		// An interface block after the first frames: check it too.
		for ; r.checked < r.ng.NInterfaces(); r.checked++ {
			if lt := r.Interface(r.checked).LinkType; !SupportedLink(lt) {
				return nil, &FrameError{File: r.name, LastGood: r.n, Err: fmt.Errorf("interface %d: %w %v (want Ethernet)", r.checked, ErrLinkType, lt)}
			}
		}
	}
	r.n++
	r.frame.Number = r.n
	r.frame.Time = ci.Timestamp
	if r.ng != nil {
		// pcapgo converts a binary resolution (2^-n s) with a rounded
		// factor, 10^9 / 2^n in integers; pcapio converts exactly. Undo
		// pcapgo's rounding to compare.
		if in, err := r.ng.Interface(ci.InterfaceIndex); err == nil && in.TimestampResolution.Binary() {
			div := uint64(1) << in.TimestampResolution.Exponent()
			if div < 1e9 {
				units := uint64(ci.Timestamp.Nanosecond()) / (1e9 / div)
				r.frame.Time = time.Unix(ci.Timestamp.Unix(), int64(units*1e9/div)).UTC()
			}
		}
	}
	r.frame.Interface = len(r.prev) + ci.InterfaceIndex
	r.frame.Len = ci.Length
	r.frame.Data = data
	r.frame.LinkType = r.Interface(r.frame.Interface).LinkType
	return &r.frame, nil
}

// Close closes the underlying file.
func (r *oracle) Close() error {
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}
