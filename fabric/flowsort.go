// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"sort"
)

// flowSortChunk is how many flows of a flows file out of start order (or
// read from a pipe) are held at once: up to it the flows are a list,
// sorted in memory; beyond it each chunk is sorted and appended, encoded,
// to a spillLog (an unlinked temporary file), and the run takes the flows
// by merging the sorted chunks. Memory is then a chunk (56 octets a flow,
// 14 MiB) and a small buffer per chunk, not the file's flows. A variable
// for the tests.
var flowSortChunk = 1 << 18

// flowMerge hands out a flows file's flows in start order, equal starts in
// file order (the flows' IDs), from sorted chunks kept in a spillLog: the
// order a stable sort of the whole file gives.
type flowMerge struct {
	log  spillLog
	runs flowRuns
}

// flowRun is one sorted chunk being read back.
type flowRun struct {
	r         *bufio.Reader
	left      int // flows of the chunk not yet decoded
	prevStart int64
	next      Flow
}

// sortFlows reads a flows file (its errors are ReadFlows's) and returns
// its flows in start order: a list when they fit one chunk, else a merge
// over sorted chunks. n, first and last are the count and the least and
// greatest start.
func sortFlows(r io.Reader, hosts int) (list []Flow, m *flowMerge, n int, first, last int64, err error) {
	fs := newFlowScanner(r, hosts)
	var chunk []Flow
	for {
		f, ok, err := fs.next()
		if err != nil {
			if m != nil {
				m.close()
			}
			return nil, nil, 0, 0, 0, err
		}
		if !ok {
			break
		}
		if n == 0 || f.Start < first {
			first = f.Start
		}
		last = max(last, f.Start)
		n++
		if len(chunk) == flowSortChunk { // and one more flow: spill
			if m == nil {
				m = &flowMerge{}
			}
			m.add(chunk)
			chunk = chunk[:0]
		}
		chunk = append(chunk, f)
	}
	if m != nil && len(chunk) > 0 {
		m.add(chunk)
	}
	if m == nil {
		// IDs grow in file order: sorting by (start, ID) is the stable sort.
		sort.Slice(chunk, func(i, j int) bool { return flowBefore(chunk[i], chunk[j]) })
		return chunk, nil, n, first, last, nil
	}
	if err := m.start(); err != nil {
		m.close()
		return nil, nil, 0, 0, 0, err
	}
	return nil, m, n, first, last, nil
}

// flowBefore orders flows by start, then by ID (their place in the file).
func flowBefore(a, b Flow) bool {
	return a.Start < b.Start || a.Start == b.Start && a.ID < b.ID
}

// add sorts chunk and appends it to the log as a run: per flow its ID,
// src, dst, size and the start's increase over the previous flow's, each
// an unsigned varint (a flows file's values are never negative).
func (m *flowMerge) add(chunk []Flow) {
	sort.Slice(chunk, func(i, j int) bool { return flowBefore(chunk[i], chunk[j]) })
	off := m.log.spilled + int64(len(m.log.buf))
	prev := int64(0)
	for _, f := range chunk {
		b := m.log.buf
		b = binary.AppendUvarint(b, uint64(f.ID))
		b = binary.AppendUvarint(b, uint64(f.Src))
		b = binary.AppendUvarint(b, uint64(f.Dst))
		b = binary.AppendUvarint(b, uint64(f.Size))
		b = binary.AppendUvarint(b, uint64(f.Start-prev))
		prev = f.Start
		m.log.buf = b
		m.log.added()
	}
	end := m.log.spilled + int64(len(m.log.buf))
	m.runs = append(m.runs, &flowRun{
		r:    bufio.NewReaderSize(io.NewSectionReader(&m.log, off, end-off), 16<<10),
		left: len(chunk),
	})
}

// start reads each run's first flow and orders the runs.
func (m *flowMerge) start() error {
	for _, r := range m.runs {
		if err := r.read(); err != nil {
			return err
		}
	}
	heap.Init(&m.runs)
	return nil
}

// read decodes the run's next flow into r.next.
func (r *flowRun) read() error {
	var v [5]uint64
	for i := range v {
		x, err := binary.ReadUvarint(r.r)
		if err != nil {
			return fmt.Errorf("flows sorted in a temporary file: reading back: %w", err)
		}
		v[i] = x
	}
	r.prevStart += int64(v[4])
	r.next = Flow{ID: int64(v[0]), Src: int(v[1]), Dst: int(v[2]), Size: int64(v[3]), Start: r.prevStart}
	r.left--
	return nil
}

// next returns the next flow in order; false at the end or on an error.
func (m *flowMerge) next() (Flow, bool, error) {
	if len(m.runs) == 0 {
		return Flow{}, false, nil
	}
	r := m.runs[0]
	f := r.next
	if r.left == 0 {
		heap.Pop(&m.runs)
		return f, true, nil
	}
	if err := r.read(); err != nil {
		return Flow{}, false, err
	}
	heap.Fix(&m.runs, 0)
	return f, true, nil
}

// close releases the temporary file.
func (m *flowMerge) close() error {
	m.runs = nil
	return m.log.close()
}

type flowRuns []*flowRun

func (h flowRuns) Len() int           { return len(h) }
func (h flowRuns) Less(i, j int) bool { return flowBefore(h[i].next, h[j].next) }
func (h flowRuns) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *flowRuns) Push(x any)        { *h = append(*h, x.(*flowRun)) }
func (h *flowRuns) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
