// SPDX-License-Identifier: Apache-2.0

package pcapio

import (
	"errors"
	"io"
)

// Positioned batch reading. ReadBatch reads the next 128 KiB of the
// capture and parses its records in one call, which its caller must
// serialise: on the 2-vCPU VM of bench/ the read's copy out of the page
// cache is a third of sfcdump read's CPU, and with it under one lock the
// lock was busy nine tenths of the time and the workers waited on it. A
// regular, uncompressed file can instead be read at known offsets: the
// file is cut into chunks of ChunkSize octets, each worker copies its
// chunk with a positioned read (pread) beside the others, and only the
// parsing, which needs the partial record at the end of the chunk before,
// runs in order:
//
//	Reserve(b)  in order, under the caller's lock: b gets the next chunk
//	b.Load()    no lock: read the chunk into b's buffer
//	Frame(b)    in Reserve's order, one at a time: b gets the chunk's frames
//
// A record cut by a chunk's end (its first part, the "carry") is copied in
// front of the next chunk, into the ChunkPad octets a batch buffer keeps
// there, so a frame's octets are contiguous and a batch's frames lie in
// its own buffer. A record longer than the pad is put together in a
// buffer of the reader's that grows as a whole read does (linear in the
// record's size). The file ends at the first chunk that comes back short:
// what a file that grows while it is read gains after that is not read.

// ChunkSize is the part of the file a positioned batch reads: 256 KiB.
// On the 2-vCPU VM of bench/, sfcdump read of 1M frames took 161 ms wall
// and 295 CPU-ms with chunks of 128 KiB, 156 and 282 with 256 KiB, about
// the same with 384 and 512 KiB, 155 and 279 with 1 MiB, 175 and 320 with
// 64 KiB (median of 11, alternating): each read has a fixed cost of some
// µs, and a larger chunk leaves the cache before it is decoded.
const ChunkSize = 256 << 10

// ChunkPad is the room a batch buffer keeps in front of its chunk for the
// carry (a record as long as a 64 KiB GRO frame).
const ChunkPad = 64 << 10

// chunkSize and chunkPad are ChunkSize and ChunkPad, which tests make
// small so that the corpus's captures cross many chunk boundaries.
var chunkSize, chunkPad = ChunkSize, ChunkPad

// errOrder is a caller's error: Frame was called out of Reserve's order.
var errOrder = errors.New("pcapio: Frame called out of Reserve's order")

// chunk is a batch's part of the file (Reserve) and what Load read of it.
type chunk struct {
	idx  int64 // the chunk's number, in Reserve's order from 0
	off  int64 // its first octet in the file
	len  int   // its length: ChunkSize, or less for small records
	n    int   // octets Load read
	err  error // Load's error other than io.EOF
	full bool  // Load read len octets (the file may go on)
}

// minChunk is the shortest chunk Reserve hands out for a limit of frames.
const minChunk = 16 << 10

// Positioned reports whether r can read batches by position (Reserve,
// Load, Frame): a regular, uncompressed file opened by Open and read
// without a tee. Otherwise ReadBatch reads them.
func (r *Reader) Positioned() bool {
	if r.count == nil || r.size <= 0 || r.compressed != "" || r.src != io.Reader(r.count) {
		return false
	}
	_, ok := r.count.r.(io.ReaderAt)
	return ok
}

// Reserve gives b the next chunk of the file: ChunkSize octets, or, when
// limit is positive, fewer where the records framed last were small, so
// that a chunk holds about limit frames (as ReadBatch's limit bounds a
// batch's frames, and with them the memory its caller spends per frame),
// never less than 16 KiB; before the first Frame, as if every record were
// a bare 16-octet header. Calls to Reserve must not overlap, nor the first
// one a call of Next or ReadBatch; after it, r reads only through
// Reserve, Load and Frame. b's buffer must hold ChunkPad + ChunkSize
// octets (SetBuffer with BatchBuffer).
func (r *Reader) Reserve(b *Batch, limit int) {
	if !r.reserving {
		// The octets read ahead when the capture was opened, and not
		// parsed, are read again with the first chunk.
		r.reserving = true
		r.nextOff = r.count.n - int64(r.end-r.pos)
		r.buf, r.pos, r.end = nil, 0, 0
	}
	size := chunkSize
	avg := r.recordSize.Load()
	if avg <= 0 {
		// Nothing framed yet: the chunks reserved before the first Frame
		// assume the smallest record (a classic pcap header alone), so
		// that they too hold at most about limit frames.
		avg = 16
	}
	if limit > 0 && int64(limit)*avg < int64(size) {
		size = max(int(int64(limit)*avg+4095)&^4095, min(minChunk, chunkSize))
	}
	b.chunk = chunk{idx: r.nextIdx, off: r.nextOff, len: size}
	r.nextIdx++
	r.nextOff += int64(size)
}

// Load reads b's chunk, which Reserve gave it, into b's buffer. Loads of
// different batches run at the same time; each reads where Reserve said,
// waiting for the disk when the page cache does not hold the chunk.
func (b *Batch) Load(r *Reader) {
	c := &b.chunk
	if cap(b.buf) < chunkPad+chunkSize {
		b.buf = make([]byte, 0, chunkPad+chunkSize)
	}
	p := b.buf[chunkPad : chunkPad+c.len]
	n, err := r.count.r.(io.ReaderAt).ReadAt(p, c.off)
	c.n, c.err, c.full = n, nil, n == len(p)
	if err != nil && err != io.EOF && !c.full {
		c.err = err
	}
}

// Frame parses into b the frames of its chunk, which Load read, and those
// the chunk ends before them completes. Frames must be called one at a
// time, in Reserve's order. It returns as ReadBatch does: io.EOF or a
// *FrameError only with no frame in b, the error of a record (or of the
// chunk's read) after b's frames with the next call. Unlike ReadBatch it
// may return no frame and no error: a chunk inside a record longer than
// it.
//
// A chunk that came back short is read again first: every chunk before
// it has been read by then, so a file that grew meanwhile (a capture being
// written) does not seem to end at the chunk's start, which need not be a
// record's.
func (r *Reader) Frame(b *Batch) error {
	b.Frames = b.Frames[:0]
	c := &b.chunk
	if c.idx != r.framed {
		return errOrder
	}
	r.framed++
	if r.err != nil {
		return r.err
	}
	if !r.ended && !c.full && c.err == nil {
		b.Load(r)
	}
	var data []byte
	carry := r.carry
	owned := false // data is r.carry's memory, which b's frames may keep
	loadErr := c.err
	switch {
	case r.ended:
		// An earlier chunk ended the file: this one is past its end.
		data, owned, loadErr = carry, true, nil
	case len(carry) <= chunkPad:
		start := chunkPad - len(carry)
		copy(b.buf[start:chunkPad], carry)
		data = b.buf[start : chunkPad+c.n : chunkPad+c.n]
	default:
		// A long record: put it together in r.carry, which grows by
		// appending, so a record of many chunks is copied about twice.
		r.carry = append(r.carry, b.buf[chunkPad:chunkPad+c.n]...)
		data, owned = r.carry, true
	}
	if !r.ended {
		r.count.n = c.off + int64(c.n)
		r.ended = !c.full
	}
	r.buf, r.pos, r.end = data, 0, len(data)
	perr := r.appendFrames(b, 0, false)
	if len(b.Frames) > 0 {
		r.recordSize.Store(int64(r.pos / len(b.Frames)))
	} else if n := r.end - r.pos; n > 0 {
		// Inside a long record: whole chunks until it ends (small ones
		// cost a read and a turn each).
		r.recordSize.Store(int64(n))
	}
	if loadErr != nil && perr == nil {
		perr = loadErr // the octets before the unreadable ones come first
	}
	left := r.buf[r.pos:r.end]
	if owned && len(b.Frames) > 0 {
		// b's frames keep the carry's memory: b holds it until it is
		// reserved again, and gives the reader the buffer its frames of
		// last time kept (dead now), as ReadBatch swaps buffers. A fresh
		// buffer each time made a capture of 1 MiB records allocate 4 MB
		// per record: 9 times the CPU of the serial read.
		r.carry, b.spare = b.spare[:0], r.carry
	}
	if owned && len(b.Frames) == 0 && r.pos == 0 {
		// Still one record's first part, in place: moving it onto itself
		// would copy a 16 MiB record once per chunk.
		r.carry = r.carry[:len(left)]
	} else {
		r.carry = append(r.carry[:0], left...)
	}
	r.buf, r.pos, r.end = r.carry, 0, len(r.carry)
	switch {
	case perr != nil:
		err := r.fail(perr)
		if len(b.Frames) == 0 {
			return err
		}
	case len(b.Frames) == 0 && r.ended:
		if len(r.carry) > 0 {
			return r.fail(io.ErrUnexpectedEOF)
		}
		return r.fail(io.EOF)
	}
	return nil
}
