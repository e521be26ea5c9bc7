// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"slices"
)

// The samples a run takes every SampleEvery (buffer per switch, BFC
// queues, receive rates) grow with simulated time, not with the flows in
// flight. They are kept in two forms whose memory does not grow with the
// run's length:
//
//   - quantiles counts each distinct value, for the percentiles: exact
//     while a set of samples takes at most maxExact distinct values (a
//     switch's buffer; maxExactPooled for the pooled sets), then
//     each value rounded down to 9 significant bits (at most 0.4 % low),
//     which bounds the distinct values to a few thousand whatever the run;
//   - seriesLog keeps the per-switch buffer over time (buffer.csv, the
//     figures' series, the plots) delta-encoded, and moves it to an
//     unlinked temporary file once it passes spillAt octets in memory
//     (1 MiB; about 1-2 octets a sample).

// maxExact is the distinct values a quantiles keeps exactly, unless its
// limit says otherwise (one per switch: kept small); a variable for the
// tests.
var maxExact = 8192

const (
	// maxExactPooled is the limit of the run's single pooled sets (BFC
	// queues, receive windows): a few MB at most, exact for every
	// figure at full scale.
	maxExactPooled = 1 << 17
	// coarseBits is the significant bits a value keeps once its
	// quantiles is coarse: relative error below 2^-(coarseBits-1).
	coarseBits = 9
)

// spillAt is the octets of encoded samples a seriesLog keeps in memory
// before it writes them to its temporary file (a variable for the tests).
var spillAt = 1 << 20

// quantiles counts non-negative integer samples for order statistics.
type quantiles struct {
	n      int64
	zero   int64           // samples of value 0: most of an idle buffer's
	counts map[int64]int64 // value (or its coarse floor) → samples
	coarse bool
	sorted []int64 // keys in order, made by rank, cleared by add
	limit  int     // distinct values kept exactly; 0 means maxExact
}

func (q *quantiles) exactLimit() int {
	if q.limit > 0 {
		return q.limit
	}
	return maxExact
}

// coarsen rounds v down to coarseBits significant bits.
func coarsen(v int64) int64 {
	if v < 1<<coarseBits {
		return v
	}
	e := bits.Len64(uint64(v)) - coarseBits
	return v >> e << e
}

func (q *quantiles) add(v int64) {
	q.n++
	if v == 0 {
		q.zero++
		return
	}
	if q.counts == nil {
		q.counts = make(map[int64]int64)
	}
	if q.coarse && v > 0 {
		v = coarsen(v)
	}
	q.counts[v]++
	q.sorted = nil
	if !q.coarse && len(q.counts) > q.exactLimit() {
		q.toCoarse()
	}
}

// toCoarse rounds every value kept so far.
func (q *quantiles) toCoarse() {
	q.coarse = true
	c := make(map[int64]int64, len(q.counts)/4)
	for v, k := range q.counts {
		if v > 0 {
			v = coarsen(v)
		}
		c[v] += k
	}
	q.counts, q.sorted = c, nil
}

// rank returns the k-th smallest sample (from 0; k is clamped to the
// samples), 0 when there is none.
func (q *quantiles) rank(k int64) int64 {
	if q.n == 0 {
		return 0
	}
	k = min(max(k, 0), q.n-1) // as percentile() clamps its index
	q.ascending()
	// Values below zero (none in practice) come before the zeros.
	i := 0
	for ; i < len(q.sorted) && q.sorted[i] < 0; i++ {
		if k < q.counts[q.sorted[i]] {
			return q.sorted[i]
		}
		k -= q.counts[q.sorted[i]]
	}
	if k < q.zero {
		return 0
	}
	k -= q.zero
	for ; i < len(q.sorted); i++ {
		if k < q.counts[q.sorted[i]] {
			return q.sorted[i]
		}
		k -= q.counts[q.sorted[i]]
	}
	return q.sorted[len(q.sorted)-1]
}

// ascending returns the distinct values counted (0 apart, in q.zero) in
// increasing order; the slice is q's until the next add.
func (q *quantiles) ascending() []int64 {
	if q.sorted == nil {
		q.sorted = make([]int64, 0, len(q.counts))
		for v := range q.counts {
			q.sorted = append(q.sorted, v)
		}
		slices.Sort(q.sorted)
	}
	return q.sorted
}

// percentile is the p-th percentile as percentile() takes it from a
// sorted slice: the sample of rank ⌈p·n⌉ − 1.
func (q *quantiles) percentile(p float64) int64 {
	if q.n == 0 {
		return 0
	}
	return q.rank(int64(math.Ceil(p*float64(q.n))) - 1)
}

// spillLog is an append-only run of octets kept in memory up to spillAt
// and then in a temporary file removed from its directory as soon as it is
// made (the space returns when the log is closed, or collected). Where no
// temporary file can be had the octets stay in memory: nothing is lost,
// only the bound.
type spillLog struct {
	buf     []byte
	f       *os.File
	spilled int64
	noSpill bool // the temporary file could not be made or written
}

// added is called after each append to buf.
func (s *spillLog) added() {
	if len(s.buf) >= spillAt && !s.noSpill {
		s.spill()
	}
}

// spill moves the octets in memory to the temporary file.
func (s *spillLog) spill() {
	if s.f == nil {
		f, err := os.CreateTemp("", "sfcsim-spill-*")
		if err != nil {
			s.noSpill = true
			return
		}
		_ = os.Remove(f.Name()) // unlinked: gone with the process
		s.f = f
	}
	n, err := s.f.WriteAt(s.buf, s.spilled)
	s.spilled += int64(n)
	if err != nil {
		// Keep what did not reach the file in memory, and the rest there.
		s.buf = s.buf[:copy(s.buf, s.buf[n:])]
		s.noSpill = true
		return
	}
	s.buf = s.buf[:0]
}

// reader reads every octet appended so far, from the start.
func (s *spillLog) reader() *bufio.Reader {
	var r io.Reader = bytes.NewReader(s.buf)
	if s.spilled > 0 {
		r = io.MultiReader(io.NewSectionReader(s.f, 0, s.spilled), r)
	}
	return bufio.NewReaderSize(r, 64<<10)
}

// ReadAt reads the log's octets at off: those in the temporary file, then
// those in memory (io.ReaderAt; no append may run meanwhile).
func (s *spillLog) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	if off < s.spilled {
		k, err := s.f.ReadAt(p[:min(int64(len(p)), s.spilled-off)], off)
		n, off = k, off+int64(k)
		if err != nil {
			return n, err
		}
	}
	if n < len(p) {
		i := off - s.spilled
		if i < int64(len(s.buf)) {
			n += copy(p[n:], s.buf[i:])
		}
		if n < len(p) {
			return n, io.EOF
		}
	}
	return n, nil
}

// close releases the temporary file, if any; the log is empty after.
func (s *spillLog) close() error {
	var err error
	if s.f != nil {
		err = s.f.Close()
	}
	*s = spillLog{}
	return err
}

// seriesLog is rows of one value per switch, one row per sample time,
// delta-encoded (zigzag varints) in a spillLog.
type seriesLog struct {
	spillLog
	width int
	rows  int64
	prev  []int64
}

func newSeriesLog(width int) *seriesLog {
	return &seriesLog{width: width, prev: make([]int64, width)}
}

// add appends one row (len(row) == width).
func (s *seriesLog) add(row []int64) {
	for i, v := range row {
		s.buf = binary.AppendVarint(s.buf, v-s.prev[i])
		s.prev[i] = v
	}
	s.rows++
	s.added()
}

// close releases the temporary file, if any; the log is empty after.
func (s *seriesLog) close() error {
	if s == nil {
		return nil
	}
	err := s.spillLog.close()
	*s = seriesLog{width: s.width}
	return err
}

// each calls fn with every row in order (row k sampled at k·SampleEvery);
// row is reused between calls.
func (s *seriesLog) each(fn func(k int64, row []int64) error) error {
	if s == nil || s.rows == 0 {
		return nil
	}
	br := s.reader()
	row := make([]int64, s.width)
	clear(row)
	for k := int64(0); k < s.rows; k++ {
		for i := range row {
			d, err := binary.ReadVarint(br)
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = io.ErrUnexpectedEOF
				}
				return fmt.Errorf("buffer samples: row %d: %w", k, err)
			}
			row[i] += d
		}
		if err := fn(k, row); err != nil {
			return err
		}
	}
	return nil
}
