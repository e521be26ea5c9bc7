// SPDX-License-Identifier: Apache-2.0

package device

import (
	"math/bits"
	"sort"
)

// evQueue orders a Sim's pending events by time and, at equal times, by
// the order they were scheduled in, which is what makes every run with
// the same inputs identical.
//
// A simulation never goes back in time, so the queue is a radix heap (a
// monotone priority queue): every key at or after last, the time of the
// last event taken, sits in the bucket of the highest bit in which it
// differs from last; bucket 0 holds the keys at last itself, first in,
// first out. Taking the next event reads bucket 0; when it is empty the
// lowest non-empty bucket is spread over the buckets below it, around its
// earliest key. A key moves down at most 64 times in its life and the
// moves read memory in order, where a binary heap of a few thousand events
// pays a cache miss at each of a dozen levels for every event.
//
// Keys at one time stay in the order they were scheduled: they always
// share a bucket, enter it in scheduling order (pushed one by one, or
// spread from a higher bucket keeping their order, which happens only
// when bucket 0 is empty), and bucket 0 is read in order.
//
// An event may be scheduled before last (a device fed a frame at a time
// the queue has already looked past, after NextEvent or RunUntil): such
// keys go to a small 4-ary min-heap on (time, scheduling order), past,
// which is always taken first since its keys are all before last.
type evQueue struct {
	last uint64     // ordered time (see ord) at or before every key in b
	b    [65][]hkey // b[0]: keys at last, read from head; b[i]: keys whose highest bit differing from last is i-1
	head int
	occ  uint64 // bit i-1 set while b[i] holds keys (i ≥ 1)
	n    int    // keys in b
	past []hkey // 4-ary min-heap of keys before last
	seq  uint64 // next scheduling order number, at most slotMask (see renumber)
}

// hkey is one queued event: its time and its order key, the scheduling
// order number in the high 32 bits and the event's slot in Sim.ev in the
// low 32. Order numbers are unique among the keys in past, so (t, k)
// orders them by time and then by scheduling order.
type hkey struct {
	t int64
	k uint64
}

const slotMask = 1<<32 - 1

func (a *hkey) slot() uint32 { return uint32(a.k & slotMask) }

// before is 1 when a runs before b, else 0: (t, k) < (t, k) as one
// 128-bit subtraction, so that sifting picks a child without a branch to
// mispredict.
func (a *hkey) before(b *hkey) int {
	_, c := bits.Sub64(a.k, b.k, 0)
	_, c = bits.Sub64(ord(a.t), ord(b.t), c)
	return int(c)
}

// ord maps a time to an unsigned value in the same order (the sign bit
// flipped).
func ord(t int64) uint64 { return uint64(t) ^ 1<<63 }

func (q *evQueue) len() int { return q.n + len(q.past) }

func (q *evQueue) push(t int64, slot uint32) {
	if q.seq > slotMask {
		q.renumber()
	}
	x := hkey{t: t, k: q.seq<<32 | uint64(slot)}
	q.seq++
	u := ord(t)
	if u < q.last {
		heapPush(&q.past, x)
		return
	}
	q.add(u, x)
	q.n++
}

func (q *evQueue) add(u uint64, x hkey) {
	i := 64 - bits.LeadingZeros64(u^q.last)
	q.b[i] = append(q.b[i], x)
	if i > 0 {
		q.occ |= 1 << (i - 1)
	}
}

// peek returns the time of the next event; the queue must not be empty.
func (q *evQueue) peek() int64 {
	if len(q.past) > 0 {
		return q.past[0].t
	}
	if q.head == len(q.b[0]) {
		q.refill()
	}
	return q.b[0][q.head].t
}

// pop takes the next event and returns its slot; the queue must not be
// empty.
func (q *evQueue) pop() uint32 {
	if len(q.past) > 0 {
		x := heapPop(&q.past)
		return x.slot()
	}
	if q.head == len(q.b[0]) {
		q.refill()
	}
	x := q.b[0][q.head]
	q.head++
	q.n--
	if q.head == len(q.b[0]) {
		q.b[0] = q.b[0][:0]
		q.head = 0
	}
	return x.slot()
}

// soon returns the next few keys to be taken without taking them (none
// when finding them would take work), for prefetching.
func (q *evQueue) soon() []hkey {
	if len(q.past) > 0 {
		return q.past[:1]
	}
	return q.b[0][q.head:min(q.head+2, len(q.b[0]))]
}

// refill moves last to the earliest key of the lowest non-empty bucket
// and spreads that bucket over the ones below; bucket 0 must be empty and
// b must hold a key.
func (q *evQueue) refill() {
	q.b[0] = q.b[0][:0]
	q.head = 0
	i := bits.TrailingZeros64(q.occ) + 1
	bi := q.b[i]
	m := ord(bi[0].t)
	for j := 1; j < len(bi); j++ {
		m = min(m, ord(bi[j].t))
	}
	q.last = m
	for _, x := range bi {
		q.add(ord(x.t), x)
	}
	clear(bi)
	q.b[i] = bi[:0]
	q.occ &^= 1 << (i - 1)
}

// renumber gives the keys in past the order numbers 0, 1, ... in the
// order they hold, once 1<<32 events have been scheduled: their relative
// order is kept, so past stays a heap. Keys in b are ordered by time and
// their place in a bucket, never by number.
func (q *evQueue) renumber() {
	idx := make([]int, len(q.past))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return q.past[idx[a]].k < q.past[idx[b]].k })
	for n, i := range idx {
		q.past[i].k = uint64(n)<<32 | q.past[i].k&slotMask
	}
	q.seq = uint64(len(idx))
}

// heapPush adds x to the 4-ary min-heap h.
func heapPush(h *[]hkey, x hkey) {
	*h = append(*h, hkey{})
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 4
		if x.before(&a[p]) == 0 {
			break
		}
		a[i] = a[p]
		i = p
	}
	a[i] = x
}

// heapPop removes and returns the least key of the non-empty 4-ary
// min-heap h.
func heapPop(h *[]hkey) hkey {
	a := *h
	top := a[0]
	n := len(a) - 1
	last := a[n]
	a = a[:n]
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for j := c + 1; j < min(c+4, n); j++ {
			m += (j - m) * a[j].before(&a[m])
		}
		if a[m].before(&last) == 0 {
			break
		}
		a[i] = a[m]
		i = m
	}
	if n > 0 {
		a[i] = last
	}
	*h = a
	return top
}
