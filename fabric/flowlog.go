// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"sort"
)

// The finished flows' results grow with the flows of the whole run, so
// they are kept out of the heap: flowLog encodes each (varints, about 30
// octets) in a spillLog, which moves to an unlinked temporary file past
// spillAt octets. The per-flow file is written from it, and the size bins
// are computed from it in passes that hold a few counters per bin, never
// the flows:
//
//  1. the background flows' sizes, counted per distinct size (a
//     quantiles: exact up to maxExactPooled distinct sizes, then 9
//     significant bits), give the equal-count bins' upper sizes as the
//     sorted sizes would;
//  2. each group's (bin, all background flows, incast flows) count,
//     smallest and largest size and exact sum of slowdowns (big.Float,
//     rounded once: the mean does not depend on the order of the flows);
//  3. the P50, P95 and P99 of each group by radix selection on the
//     slowdown's IEEE 754 bits (order-preserving for positive floats),
//     eight bits a pass: exactly the sample of rank ⌈p·n⌉ − 1, as sorting
//     gave, in eight passes.

// maxExactSizes is the distinct background flow sizes counted exactly for
// the size bins (a variable for the tests).
var maxExactSizes = maxExactPooled

// flowLog is the finished flows' results in the order they finished.
type flowLog struct {
	spillLog
	n int
}

// add appends one result.
func (l *flowLog) add(r *FlowResult) {
	b := l.buf
	for _, v := range [...]int64{r.ID, int64(r.Src), int64(r.Dst), r.Size, r.Start, r.End, r.FCT, r.Ideal, r.Retx} {
		b = binary.AppendVarint(b, v)
	}
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(r.Slowdown))
	b = binary.AppendUvarint(b, uint64(len(r.Tag)))
	l.buf = append(b, r.Tag...)
	l.n++
	l.added()
}

// each calls fn with every result in the order added; r is reused between
// calls (its Tag is a new string only when it changes).
func (l *flowLog) each(fn func(r *FlowResult) error) error {
	if l.n == 0 {
		return nil
	}
	br := l.reader()
	var r FlowResult
	var tag bytes.Buffer
	for i := 0; i < l.n; i++ {
		var v [9]int64
		for j := range v {
			x, err := binary.ReadVarint(br)
			if err != nil {
				return flowLogErr(i, err)
			}
			v[j] = x
		}
		var sd [8]byte
		if _, err := io.ReadFull(br, sd[:]); err != nil {
			return flowLogErr(i, err)
		}
		n, err := binary.ReadUvarint(br)
		if err != nil {
			return flowLogErr(i, err)
		}
		// Grown as the octets come, so that a damaged length cannot ask
		// for more memory than the log holds.
		tag.Reset()
		if _, err := io.CopyN(&tag, br, int64(min(n, math.MaxInt64))); err != nil {
			return flowLogErr(i, err)
		}
		if b := tag.Bytes(); string(b) != r.Tag { // no allocation for the same tag
			r.Tag = tag.String()
		}
		r.ID, r.Src, r.Dst, r.Size, r.Start, r.End, r.FCT, r.Ideal, r.Retx = v[0], int(v[1]), int(v[2]), v[3], v[4], v[5], v[6], v[7], v[8]
		r.Slowdown = math.Float64frombits(binary.LittleEndian.Uint64(sd[:]))
		if err := fn(&r); err != nil {
			return err
		}
	}
	return nil
}

func flowLogErr(i int, err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("flow results: flow %d: %w", i, err)
}

// binEdges returns the equal-count bins' largest sizes: nbins bins of the
// sizes counted in q, as taking them in order from the sorted sizes gives
// (bin i ends at rank (i+1)·n/nbins, extended so that one size stays in
// one bin; a bin that would be empty is left out).
func binEdges(q *quantiles, nbins int) []int64 {
	n := q.n
	if n == 0 || nbins <= 0 {
		return nil
	}
	keys := q.ascending()
	var edges []int64
	var lo, cum int64 // ranks taken; samples of keys[:k]
	k := 0
	for i := 0; i < nbins && lo < n; i++ {
		hi := int64(i+1) * n / int64(nbins)
		if hi <= lo {
			continue
		}
		// The size at rank hi−1, and every sample of that size.
		for cum+q.counts[keys[k]] < hi {
			cum += q.counts[keys[k]]
			k++
		}
		cum += q.counts[keys[k]]
		edges = append(edges, keys[k])
		k++
		lo = cum
	}
	return edges
}

// groupStats accumulates one group's Bin over the passes.
type groupStats struct {
	n      int64
	lo, hi int64
	sum    big.Float
	nan    bool      // a NaN slowdown was summed: the mean is NaN
	ranks  [3]int64  // the ranks of P50, P95, P99
	prefix [3]uint64 // their slowdowns' bits found so far
}

var binPcts = [3]float64{0.5, 0.95, 0.99}

func (g *groupStats) add(f *FlowResult, x *big.Float) {
	if g.n == 0 {
		g.lo, g.hi = f.Size, f.Size
		g.sum.SetPrec(256) // exact: slowdowns lie in [1, 2^63)
	}
	g.n++
	g.lo, g.hi = min(g.lo, f.Size), max(g.hi, f.Size)
	if math.IsNaN(f.Slowdown) {
		g.nan = true // no transport makes one; big.Float cannot hold it
		return
	}
	g.sum.Add(&g.sum, x.SetFloat64(f.Slowdown))
}

func (g *groupStats) bin() Bin {
	b := Bin{N: int(g.n), Lo: g.lo, Hi: g.hi}
	if g.n == 0 {
		return b
	}
	s, _ := g.sum.Float64()
	b.Mean = s / float64(g.n)
	if g.nan {
		b.Mean = math.NaN()
	}
	b.P50 = math.Float64frombits(g.prefix[0])
	b.P95 = math.Float64frombits(g.prefix[1])
	b.P99 = math.Float64frombits(g.prefix[2])
	return b
}

// summarizeFlows fills r's size bins, All and Incast from the flow log.
func (r *Result) summarizeFlows(nbins int) error {
	// Pass 1: the background flows' sizes.
	sizes := quantiles{limit: maxExactSizes}
	err := r.flows.each(func(f *FlowResult) error {
		if f.Tag != "incast" {
			sizes.add(f.Size)
		}
		return nil
	})
	if err != nil {
		return err
	}
	edges := binEdges(&sizes, nbins)
	nb := len(edges)
	// Groups: the bins, then all background flows, then the incast ones.
	gs := make([]groupStats, nb+2)
	all, inc := &gs[nb], &gs[nb+1]
	groups := func(f *FlowResult) (int, int) {
		switch {
		case f.Tag == "incast":
			return nb + 1, -1
		case nb == 0:
			return nb, -1
		}
		key := f.Size
		if sizes.coarse {
			key = coarsen(key)
		}
		return sort.Search(nb, func(i int) bool { return edges[i] >= key }), nb
	}
	// Pass 2: counts, sizes and sums.
	var x big.Float
	x.SetPrec(64)
	err = r.flows.each(func(f *FlowResult) error {
		a, b := groups(f)
		gs[a].add(f, &x)
		if b >= 0 {
			gs[b].add(f, &x)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := range gs {
		for j, p := range binPcts {
			gs[i].ranks[j] = min(max(int64(math.Ceil(p*float64(gs[i].n)))-1, 0), max(gs[i].n-1, 0))
		}
	}
	// Passes 3-10: radix selection, the slowdown's bits eight at a time
	// from the top.
	hist := make([][3][256]int64, len(gs))
	for shift := 56; shift >= 0; shift -= 8 {
		clear(hist)
		count := func(g int, bits uint64) {
			for j := range binPcts {
				if bits>>(shift+8) == gs[g].prefix[j]>>(shift+8) {
					hist[g][j][bits>>shift&0xff]++
				}
			}
		}
		err = r.flows.each(func(f *FlowResult) error {
			a, b := groups(f)
			bits := math.Float64bits(f.Slowdown)
			count(a, bits)
			if b >= 0 {
				count(b, bits)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for g := range gs {
			for j := range binPcts {
				k := &gs[g].ranks[j]
				for d, c := range hist[g][j] {
					if *k < c {
						gs[g].prefix[j] |= uint64(d) << shift
						break
					}
					*k -= c
				}
			}
		}
	}
	r.Bins = make([]Bin, 0, nb) // [] in JSON when there is no background flow, not null
	for i := range nb {
		if gs[i].n > 0 {
			r.Bins = append(r.Bins, gs[i].bin())
		}
	}
	r.All = all.bin()
	r.Incast = nil
	if inc.n > 0 {
		b := inc.bin()
		r.Incast = &b
	}
	return nil
}
