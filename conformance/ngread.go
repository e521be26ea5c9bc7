package conformance

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"time"

	glayers "github.com/gopacket/gopacket/layers"

	"github.com/opensfc/sfc/pcapio"
)

// capReader is what a stream reads frames from: pcapio.Reader, or the
// faster ngReader for plain pcapng files.
type capReader interface {
	Next() (*pcapio.Frame, error)
	NInterfaces() int
	Interface(i int) pcapio.Interface
	IsPcapng() bool
	Close() error
}

// openCapture opens path with ngReader when it is an uncompressed pcapng
// file, else with pcapio (classic pcap, gzip, standard input).
func openCapture(path string) (capReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	var magic [4]byte
	if _, err := io.ReadFull(f, magic[:]); err == nil && magic == [4]byte{0x0a, 0x0d, 0x0d, 0x0a} {
		if _, err := f.Seek(0, io.SeekStart); err == nil {
			r, err := newNgReader(path, f)
			if err == nil {
				return r, nil
			}
			f.Close()
			return nil, err
		}
	}
	f.Close()
	return pcapio.Open(path)
}

// ngReader reads the pcapng blocks a capture of frames needs (section
// header, interface description, enhanced and simple packet blocks; the
// others are skipped) straight from a buffered file, without the
// per-frame work of a general reader. Frames, numbers, timestamps,
// interfaces, comments and errors are those pcapio gives.
type ngReader struct {
	name   string
	f      *os.File
	r      *bufio.Reader
	bo     binary.ByteOrder
	ifaces []ngIface
	buf    []byte
	frame  pcapio.Frame
	n      int
	hdr    [12]byte
}

type ngIface struct {
	name     string
	linkType glayers.LinkType
	pow10    bool
	res      uint8 // resolution exponent
}

var errNgFormat = errors.New("malformed pcapng")

func newNgReader(name string, f *os.File) (*ngReader, error) {
	r := &ngReader{name: name, f: f, r: bufio.NewReaderSize(f, 1<<18)}
	// The first block is a section header; read blocks until the first
	// packet so that the interfaces defined up front are known.
	if err := r.block(true); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for {
		t, err := r.peekType()
		if err != nil || t == 6 || t == 3 {
			break
		}
		if err := r.block(false); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	for i, in := range r.ifaces {
		if in.linkType != glayers.LinkTypeEthernet {
			return nil, fmt.Errorf("%s: interface %d: %w %v (want Ethernet)", name, i, pcapio.ErrLinkType, in.linkType)
		}
	}
	return r, nil
}

func (r *ngReader) peekType() (uint32, error) {
	b, err := r.r.Peek(4)
	if err != nil {
		return 0, err
	}
	if b[0] == 0x0a && b[1] == 0x0d && b[2] == 0x0d && b[3] == 0x0a {
		return 0x0a0d0d0a, nil
	}
	if r.bo == nil {
		return 0, errNgFormat
	}
	return r.bo.Uint32(b), nil
}

// block reads one block; a packet block leaves its frame in r.frame and
// returns nil with r.frame.Data set.
func (r *ngReader) block(first bool) error {
	r.frame.Data = nil
	hdr := r.hdr[:]
	if _, err := io.ReadFull(r.r, hdr[:8]); err != nil {
		return err
	}
	if hdr[0] == 0x0a && hdr[1] == 0x0d && hdr[2] == 0x0d && hdr[3] == 0x0a {
		// Section header: the byte order magic follows the length.
		if _, err := io.ReadFull(r.r, hdr[8:12]); err != nil {
			return unexpected(err)
		}
		switch binary.LittleEndian.Uint32(hdr[8:12]) {
		case 0x1a2b3c4d:
			r.bo = binary.LittleEndian
		case 0x4d3c2b1a:
			r.bo = binary.BigEndian
		default:
			return fmt.Errorf("%w: section byte-order magic %x", errNgFormat, hdr[8:12])
		}
		l := r.bo.Uint32(hdr[4:8])
		if l < 28 || l%4 != 0 || l > 1<<24 {
			return fmt.Errorf("%w: section header length %d", errNgFormat, l)
		}
		if _, err := r.r.Discard(int(l) - 12); err != nil {
			return unexpected(err)
		}
		r.ifaces = r.ifaces[:0]
		return nil
	}
	if first || r.bo == nil {
		return fmt.Errorf("%w: no section header", errNgFormat)
	}
	typ, l := r.bo.Uint32(hdr[0:4]), r.bo.Uint32(hdr[4:8])
	if l < 12 || l%4 != 0 || l > 1<<28 {
		return fmt.Errorf("%w: block length %d", errNgFormat, l)
	}
	body := int(l) - 12
	if cap(r.buf) < body+4 {
		r.buf = make([]byte, body+4, 2*(body+4))
	}
	b := r.buf[:body+4]
	if _, err := io.ReadFull(r.r, b); err != nil {
		return unexpected(err)
	}
	if r.bo.Uint32(b[body:]) != l {
		return fmt.Errorf("%w: block lengths differ (%d, %d)", errNgFormat, l, r.bo.Uint32(b[body:]))
	}
	b = b[:body]
	switch typ {
	case 1: // interface description
		if len(b) < 8 {
			return fmt.Errorf("%w: short interface block", errNgFormat)
		}
		in := ngIface{linkType: glayers.LinkType(r.bo.Uint16(b[0:2])), pow10: true, res: 6}
		r.options(b[8:], func(code uint16, v []byte) {
			switch code {
			case 2:
				in.name = string(v)
			case 9:
				if len(v) >= 1 {
					in.pow10, in.res = v[0]&0x80 == 0, v[0]&0x7f
				}
			}
		})
		if in.linkType != glayers.LinkTypeEthernet {
			return fmt.Errorf("interface %d: %w %v (want Ethernet)", len(r.ifaces), pcapio.ErrLinkType, in.linkType)
		}
		r.ifaces = append(r.ifaces, in)
	case 6: // enhanced packet
		if len(b) < 20 {
			return fmt.Errorf("%w: short packet block", errNgFormat)
		}
		id := int(r.bo.Uint32(b[0:4]))
		ts := uint64(r.bo.Uint32(b[4:8]))<<32 | uint64(r.bo.Uint32(b[8:12]))
		capLen, origLen := int(r.bo.Uint32(b[12:16])), int(r.bo.Uint32(b[16:20]))
		if capLen > len(b)-20 {
			return fmt.Errorf("%w: captured length %d past the block", errNgFormat, capLen)
		}
		if id >= len(r.ifaces) {
			return fmt.Errorf("frame names interface %d, capture has %d", id, len(r.ifaces))
		}
		r.frame.Comments = r.frame.Comments[:0]
		opt := 20 + (capLen+3)&^3
		if opt < len(b) {
			r.options(b[opt:], func(code uint16, v []byte) {
				if code == 1 {
					r.frame.Comments = append(r.frame.Comments, string(v))
				}
			})
		}
		r.n++
		r.frame.Number, r.frame.Interface, r.frame.Len = r.n, id, origLen
		r.frame.Time = time.Unix(0, r.ifaces[id].ns(ts)).UTC()
		r.frame.Data = b[20 : 20+capLen]
		return nil
	case 3: // simple packet: interface 0, no timestamp
		if len(b) < 4 || len(r.ifaces) == 0 {
			return fmt.Errorf("%w: simple packet block without an interface", errNgFormat)
		}
		orig := int(r.bo.Uint32(b[0:4]))
		capLen := min(orig, len(b)-4)
		r.n++
		r.frame.Comments = r.frame.Comments[:0]
		r.frame.Number, r.frame.Interface, r.frame.Len = r.n, 0, orig
		r.frame.Time = time.Unix(0, 0).UTC()
		r.frame.Data = b[4 : 4+capLen]
		return nil
	}
	r.frame.Data = nil
	return nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// options walks pcapng options (code, length, value padded to 4).
func (r *ngReader) options(b []byte, fn func(code uint16, v []byte)) {
	for len(b) >= 4 {
		code, l := r.bo.Uint16(b[0:2]), int(r.bo.Uint16(b[2:4]))
		if code == 0 || 4+l > len(b) {
			return
		}
		fn(code, b[4:4+l])
		b = b[min(len(b), 4+(l+3)&^3):]
	}
}

// ns converts a timestamp in the interface's units to ns.
func (in *ngIface) ns(ts uint64) int64 {
	if in.pow10 {
		switch {
		case in.res == 9:
			return int64(ts)
		case in.res < 9:
			m := uint64(1)
			for i := in.res; i < 9; i++ {
				m *= 10
			}
			return int64(ts * m)
		default:
			d := uint64(1)
			for i := uint8(9); i < in.res && i < 28; i++ {
				d *= 10
			}
			return int64(ts / d)
		}
	}
	// 2^-res seconds per unit.
	hi, lo := bits.Mul64(ts, 1_000_000_000)
	if in.res >= 64 {
		return int64(hi >> (in.res - 64))
	}
	return int64(lo>>in.res | hi<<(64-in.res))
}

// Next returns the next frame, io.EOF at the end, or a *pcapio.FrameError.
func (r *ngReader) Next() (*pcapio.Frame, error) {
	for {
		err := r.block(false)
		if err == io.EOF {
			return nil, io.EOF
		}
		if err != nil {
			return nil, &pcapio.FrameError{File: r.name, LastGood: r.n, Err: err}
		}
		if r.frame.Data != nil {
			return &r.frame, nil
		}
	}
}

func (r *ngReader) NInterfaces() int { return len(r.ifaces) }

func (r *ngReader) Interface(i int) pcapio.Interface {
	if i < 0 || i >= len(r.ifaces) {
		return pcapio.Interface{}
	}
	return pcapio.Interface{Name: r.ifaces[i].name, LinkType: r.ifaces[i].linkType}
}

func (r *ngReader) IsPcapng() bool { return true }

func (r *ngReader) Close() error { return r.f.Close() }
