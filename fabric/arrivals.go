// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"container/heap"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sort"
)

// Arrivals is a workload's flows in start order, made as they are taken
// rather than all before the run, so that a run's memory follows the flows
// in flight and not the flows of the whole run.
//
// The flows and their order are exactly what generating them all at once
// would give: the draws come from one PCG generator, host by host (all of
// host 0's background flows, then host 1's, ...), then the incasts, and the
// flows are numbered in (start, order of generation). A first pass runs the
// generator through every draw once, keeping only where each host's draws
// begin (a cursor of about 150 octets a host) and the counts; Next then replays each host's
// draws from there as the run reaches them, and the incasts as their start
// comes. A flows file whose starts never go back (HPCC's are written so)
// is checked whole on a first reading, then read again line by line as
// the run takes its flows; explicit flows are a list, sorted (stable) and
// handed out from it, and so is a flows file out of order (or read from a
// pipe) of up to flowSortChunk flows; a longer one is sorted in chunks
// kept in a temporary file and merged as the run takes them.
type Arrivals struct {
	n           int
	taken       int
	first, last int64
	list        []Flow       // explicit flows or an unsorted flows file, in start order
	file        *os.File     // a flows file in start order, read as taken
	scan        *flowScanner // over file
	merge       *flowMerge   // a long flows file out of order, sorted in chunks
	err         error
	bg          bgHeap
	inc         *incastGen
	a2a         a2aGen
}

// Len returns the number of flows in all.
func (a *Arrivals) Len() int { return a.n }

// First returns the first flow's start (0 when there is none).
func (a *Arrivals) First() int64 { return a.first }

// Last returns the last flow's start (0 when there is none).
func (a *Arrivals) Last() int64 { return a.last }

// Next returns the next flow in start order, its ID the number of flows
// returned before it; false when every flow has been returned.
func (a *Arrivals) Next() (Flow, bool) {
	if a.scan != nil {
		f, ok, err := a.scan.next()
		if err == nil && ok && a.taken >= a.n {
			err = fmt.Errorf("more flows than on the first reading")
		}
		if err != nil || !ok {
			if err == nil && a.taken != a.n {
				err = fmt.Errorf("%d flows, %d on the first reading", a.taken, a.n)
			}
			if err != nil {
				a.err = fmt.Errorf("workload: flows_file %s changed while the run read it: %w", a.file.Name(), err)
			}
			a.Close()
			return Flow{}, false
		}
		a.taken++
		return f, true
	}
	if a.merge != nil {
		f, ok, err := a.merge.next()
		if err != nil {
			a.err = fmt.Errorf("workload: flows_file: %w", err)
		}
		if !ok || err != nil {
			a.Close()
			return Flow{}, false
		}
		a.taken++
		return f, true
	}
	if a.list != nil {
		if a.taken >= len(a.list) {
			return Flow{}, false
		}
		f := a.list[a.taken]
		a.taken++
		return f, true
	}
	// The sources in the order their flows were generated: background,
	// incast, all-to-all; at equal starts the earlier source first.
	src := -1
	var best Flow
	if len(a.bg) > 0 {
		src, best = 0, a.bg[0].next
	}
	if a.inc != nil {
		if f, ok := a.inc.peek(); ok && (src < 0 || f.Start < best.Start) {
			src, best = 1, f
		}
	}
	if f, ok := a.a2a.peek(); ok && (src < 0 || f.Start < best.Start) {
		src, best = 2, f
	}
	switch src {
	case 0:
		c := a.bg[0]
		if c.advance() {
			heap.Fix(&a.bg, 0)
		} else {
			heap.Pop(&a.bg)
		}
	case 1:
		a.inc.pop()
	case 2:
		a.a2a.pop()
	default:
		return Flow{}, false
	}
	best.ID = int64(a.taken)
	a.taken++
	return best, true
}

// Err returns what stopped Next early: a flows file that changed between
// the first reading and the run's.
func (a *Arrivals) Err() error { return a.err }

// Close releases the flows file a stream reads, if any (Next closes it
// after the last flow).
func (a *Arrivals) Close() error {
	if a.merge != nil {
		err := a.merge.close()
		a.merge = nil
		if a.n != a.taken && a.err == nil {
			a.err = fmt.Errorf("workload: closed after %d of %d flows", a.taken, a.n)
		}
		return err
	}
	if a.file == nil {
		return nil
	}
	err := a.file.Close()
	a.file, a.scan = nil, nil
	if a.n != a.taken && a.err == nil {
		a.err = fmt.Errorf("workload: closed after %d of %d flows", a.taken, a.n)
	}
	return err
}

// Arrivals returns the workload's flows as a stream in start order, the
// same flows Generate returns, for hosts hosts whose links run at bps. It
// calls Check first; the errors are Generate's.
func (w *Workload) Arrivals(hosts int, bps int64, seed uint64) (*Arrivals, error) {
	if err := w.Check(hosts, bps); err != nil {
		return nil, err
	}
	a := &Arrivals{}
	if len(w.Flows) == 0 && w.FlowsFile != "" {
		if err := w.streamFile(a, hosts); err != nil {
			return nil, err
		}
		return a, nil
	}
	if len(w.Flows) > 0 {
		flows, err := w.listed(hosts)
		if err != nil {
			return nil, err
		}
		a.setList(flows)
		return a, nil
	}
	pcg := rand.NewPCG(seed, 0xda3e39cb94b95bdb)
	rng := rand.New(pcg)
	a.first = -1
	seen := func(start int64) {
		if a.first < 0 || start < a.first {
			a.first = start
		}
		a.last = max(a.last, start)
	}
	if w.Load > 0 {
		if w.CDF == "" {
			return nil, &ScenarioError{Key: "workload.cdf", Msg: fmt.Sprintf("missing: workload.load %g needs a size distribution", w.Load)}
		}
		c, err := LoadCDF(w.CDF)
		if err != nil {
			return nil, err
		}
		if w.Load > 1 || hosts < 2 {
			return nil, &ScenarioError{Key: "workload.load", Msg: fmt.Sprintf("%g: background load needs at least 2 hosts, the fabric has %d", w.Load, hosts)}
		}
		gap := c.Mean() * 8 / (float64(bps) * w.Load) * 1e9 // ns, mean per host
		for h := 0; h < hosts; h++ {
			cur := &bgCursor{host: h, hosts: hosts, gap: gap, dur: float64(w.Duration), cdf: c, pcg: *pcg}
			// The first pass: the same draws as the cursor's, without
			// making the flows.
			t := rng.ExpFloat64() * gap
			for t < float64(w.Duration) {
				rng.IntN(hosts - 1)
				rng.Float64()
				if a.n >= MaxFlows {
					return nil, errTooMany
				}
				a.n++
				seen(int64(t))
				t += rng.ExpFloat64() * gap
			}
			if cur.start() {
				a.bg = append(a.bg, cur)
			}
		}
		heap.Init(&a.bg)
	}
	if w.Degree > 0 {
		g, err := newIncastGen(w, hosts, bps, pcg, &a.n, seen)
		if err != nil {
			return nil, err
		}
		a.inc = g
	}
	if w.AllToAllSize > 0 {
		a.a2a = a2aGen{hosts: hosts, size: w.AllToAllSize, d: 1}
		if hosts > 1 {
			a.n += hosts * (hosts - 1)
			seen(0)
		}
	}
	a.first = max(a.first, 0)
	return a, nil
}

// setList makes a hand out flows, already checked and in start order.
func (a *Arrivals) setList(flows []Flow) {
	a.list, a.n = flows, len(flows)
	if a.list == nil {
		a.list = []Flow{} // non-nil: Next reads the list, not the generators
	}
	if len(flows) > 0 {
		a.first, a.last = flows[0].Start, flows[len(flows)-1].Start
	}
}

// listed returns the workload's explicit flows, checked and in start order
// (stable: equal starts keep their order).
func (w *Workload) listed(hosts int) ([]Flow, error) {
	if len(w.Flows) > 0 {
		flows := make([]Flow, len(w.Flows))
		copy(flows, w.Flows)
		for i, f := range flows {
			if f.Src < 0 || f.Dst < 0 || f.Src >= hosts || f.Dst >= hosts || f.Src == f.Dst || f.Size <= 0 || f.Size > MaxSize || f.Start < 0 {
				return nil, fmt.Errorf("workload: flow %d (%d → %d, %d octets at %d ns) is not a flow between two of hosts 0..%d", i, f.Src, f.Dst, f.Size, f.Start, hosts-1)
			}
		}
		sort.SliceStable(flows, func(i, j int) bool { return flows[i].Start < flows[j].Start })
		return flows, nil
	}
	return nil, nil
}

// streamFile reads the workload's flows file once, checking every flow and
// counting them; if their starts never go back, a is set to read the same
// open file again as the run takes them (the memory of a line, not of the
// flows). A file out of order is read again and sorted (sortFlows), and a
// file that is not a regular file (a pipe, a FIFO) is read once, sorted.
func (w *Workload) streamFile(a *Arrivals, hosts int) error {
	f, err := os.Open(w.FlowsFile)
	if err != nil {
		return inputErrorf("workload: flows_file: %v", err)
	}
	defer func() {
		if a.file != f {
			f.Close()
		}
	}()
	sorted := func() error {
		list, m, n, first, last, err := sortFlows(f, hosts)
		if err != nil {
			return fmt.Errorf("workload: flows_file %s: %w", w.FlowsFile, err)
		}
		*a = Arrivals{}
		if m == nil {
			a.setList(list)
			return nil
		}
		a.merge, a.n, a.first, a.last = m, n, first, last
		return nil
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return sorted() // a pipe or a FIFO is read once
	}
	fs := newFlowScanner(f, hosts)
	inOrder := true
	for {
		fl, ok, err := fs.next()
		if err != nil {
			return fmt.Errorf("workload: flows_file %s: %w", w.FlowsFile, err)
		}
		if !ok {
			break
		}
		if a.n == 0 {
			a.first = fl.Start
		}
		inOrder = inOrder && fl.Start >= a.last
		a.last = max(a.last, fl.Start)
		a.n++
	}
	// The same open file again from its start: a file renamed or
	// replaced meanwhile is not read.
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return inputErrorf("workload: flows_file: %v", err)
	}
	if !inOrder {
		return sorted()
	}
	a.file, a.scan = f, newFlowScanner(f, hosts)
	return nil
}

// bgCursor replays one host's background draws: the gaps between its
// flows, each flow's destination and size.
type bgCursor struct {
	host, hosts int
	gap, dur    float64
	cdf         *CDF
	pcg         rand.PCG // at the cursor's next draw
	rng         *rand.Rand
	t           float64
	next        Flow
}

// start makes the host's first flow; false if it has none.
func (c *bgCursor) start() bool {
	c.rng = rand.New(&c.pcg)
	c.t = c.rng.ExpFloat64() * c.gap
	return c.make()
}

// advance makes the host's next flow; false if it has no more.
func (c *bgCursor) advance() bool {
	c.t += c.rng.ExpFloat64() * c.gap
	return c.make()
}

func (c *bgCursor) make() bool {
	if c.t >= c.dur {
		return false
	}
	d := c.rng.IntN(c.hosts - 1)
	if d >= c.host {
		d++
	}
	c.next = Flow{Src: c.host, Dst: d, Size: c.cdf.Sample(c.rng.Float64()), Start: int64(c.t), Tag: "bg"}
	return true
}

// bgHeap orders the hosts' cursors by their next flow's start, then host
// (the order of generation).
type bgHeap []*bgCursor

func (h bgHeap) Len() int { return len(h) }
func (h bgHeap) Less(i, j int) bool {
	if h[i].next.Start != h[j].next.Start {
		return h[i].next.Start < h[j].next.Start
	}
	return h[i].host < h[j].host
}
func (h bgHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *bgHeap) Push(x any)   { *h = append(*h, x.(*bgCursor)) }
func (h *bgHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// incastGen makes the incasts one at a time. Their start times were
// drawn first, all of them, then each incast's receiver, senders and
// jitter: t0s replays the first draws from a copy of the generator taken
// before them, draws the second from a copy taken after. An incast's
// flows wait in a heap until no later incast can start before them.
type incastGen struct {
	w           *Workload
	hosts       int
	t0s         t0Seq
	draws       *rand.Rand
	nextT0      float64 // the next incast's start
	made, count int     // incasts made, incasts in all
	pending     incastHeap
	seq         int64
}

// t0Seq is the incasts' start times in the order generated: drawn
// (IncastLoad) or every IncastEvery.
type t0Seq struct {
	r     *rand.Rand // nil: every IncastEvery
	gap   float64
	every int64
	t     float64
	i     int
}

func (s *t0Seq) next() float64 {
	switch {
	case s.r == nil:
		s.t = float64(int64(s.i) * s.every)
	case s.i == 0:
		s.t = s.r.ExpFloat64() * s.gap
	default:
		s.t += s.r.ExpFloat64() * s.gap
	}
	s.i++
	return s.t
}

func newIncastGen(w *Workload, hosts int, bps int64, pcg *rand.PCG, n *int, seen func(int64)) (*incastGen, error) {
	// Each fault named by its key (a ScenarioError: exit 2, with the
	// line when the scenario came from a file).
	switch {
	case w.Size <= 0:
		return nil, &ScenarioError{Key: "workload.size", Msg: fmt.Sprintf("%d: an incast (degree %d) needs a flow size of at least 1 octet", w.Size, w.Degree)}
	case w.Degree >= hosts:
		return nil, &ScenarioError{Key: "workload.degree", Msg: fmt.Sprintf("%d senders need more hosts than the fabric's %d (one receives)", w.Degree, hosts)}
	case w.Remote && w.Rack > 0 && w.Degree > hosts-w.Rack:
		return nil, &ScenarioError{Key: "workload.degree", Msg: fmt.Sprintf("%d remote senders need more hosts outside the receiver's rack than %d", w.Degree, hosts-w.Rack)}
	case w.Receiver != nil && *w.Receiver >= hosts:
		return nil, &ScenarioError{Key: "workload.receiver", Msg: fmt.Sprintf("host %d: the fabric has hosts 0..%d", *w.Receiver, hosts-1)}
	}
	g := &incastGen{w: w, hosts: hosts}
	rng := rand.New(pcg)
	seq := t0Seq{every: w.IncastEvery}
	startsAt := *pcg
	if w.IncastLoad > 0 {
		seq.gap = float64(w.Degree*int(w.Size)) * 8 / (float64(bps) * float64(hosts) * w.IncastLoad) * 1e9
		for t := rng.ExpFloat64() * seq.gap; t < float64(w.Duration); t += rng.ExpFloat64() * seq.gap {
			if g.count >= MaxFlows {
				return nil, errTooMany
			}
			g.count++
		}
	} else {
		g.count = max(w.Incasts, 1)
	}
	drawsAt := *pcg
	// The first pass over the incasts' draws (rng goes on from drawsAt):
	// the flows they make and the latest start.
	first := seq
	if w.IncastLoad > 0 {
		sp := startsAt
		first.r = rand.New(&sp)
	}
	for i := 0; i < g.count; i++ {
		if err := g.make(rng, first.next(), func(f Flow) error {
			if *n >= MaxFlows {
				return errTooMany
			}
			*n++
			seen(f.Start)
			return nil
		}); err != nil {
			return nil, err
		}
	}
	g.t0s = seq
	if w.IncastLoad > 0 {
		sp := startsAt
		g.t0s.r = rand.New(&sp)
	}
	g.draws = rand.New(&drawsAt)
	if g.count > 0 {
		g.nextT0 = g.t0s.next()
	}
	return g, nil
}

// peek returns the incast flow that comes next in start order, making the
// incasts that could start before it.
func (g *incastGen) peek() (Flow, bool) {
	for g.made < g.count && (len(g.pending) == 0 || int64(g.nextT0) < g.pending[0].f.Start) {
		_ = g.make(g.draws, g.nextT0, func(f Flow) error {
			heap.Push(&g.pending, incastFlow{f: f, seq: g.seq})
			g.seq++
			return nil
		})
		g.made++
		if g.made < g.count {
			g.nextT0 = g.t0s.next()
		}
	}
	if len(g.pending) == 0 {
		return Flow{}, false
	}
	return g.pending[0].f, true
}

func (g *incastGen) pop() { heap.Pop(&g.pending) }

// make draws one incast starting at t0 from rng and hands its flows to
// emit in the order generated.
func (g *incastGen) make(rng *rand.Rand, t0 float64, emit func(Flow) error) error {
	w := g.w
	r := rng.IntN(g.hosts)
	if w.Receiver != nil && *w.Receiver >= 0 {
		r = *w.Receiver
	}
	perm := rng.Perm(g.hosts)
	k := 0
	for _, s := range perm {
		if s == r || k == w.Degree || w.Remote && w.Rack > 0 && s/w.Rack == r/w.Rack {
			continue
		}
		k++
		st := t0
		if w.Sync > 0 {
			st += rng.Float64() * float64(w.Sync)
		}
		for q := 0; q < max(w.QPs, 1); q++ {
			if err := emit(Flow{Src: s, Dst: r, Size: w.Size, Start: int64(st), Tag: "incast"}); err != nil {
				return err
			}
		}
	}
	return nil
}

// incastFlow is a made incast flow waiting for its start, seq its place
// in the order generated.
type incastFlow struct {
	f   Flow
	seq int64
}

type incastHeap []incastFlow

func (h incastHeap) Len() int { return len(h) }
func (h incastHeap) Less(i, j int) bool {
	if h[i].f.Start != h[j].f.Start {
		return h[i].f.Start < h[j].f.Start
	}
	return h[i].seq < h[j].seq
}
func (h incastHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *incastHeap) Push(x any)   { *h = append(*h, x.(incastFlow)) }
func (h *incastHeap) Pop() any {
	old := *h
	f := old[len(old)-1]
	*h = old[:len(old)-1]
	return f
}

// a2aGen makes the all-to-all flows, every pair at time 0, sources in
// order and for each its destinations in order.
type a2aGen struct {
	hosts, s, d int
	size        int64
}

func (g *a2aGen) peek() (Flow, bool) {
	if g.size <= 0 || g.s >= g.hosts || g.hosts < 2 {
		return Flow{}, false
	}
	return Flow{Src: g.s, Dst: g.d, Size: g.size, Tag: "a2a"}, true
}

func (g *a2aGen) pop() {
	g.d++
	if g.d == g.s {
		g.d++
	}
	if g.d >= g.hosts {
		g.s++
		g.d = 0
	}
}
