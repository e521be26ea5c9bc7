// SPDX-License-Identifier: Apache-2.0

package conformance

// ring is a queue of values numbered from 0 in a power-of-two slice, so
// that a window of frames or packets is neither allocated nor collected
// one by one: value n, for n in [head, tail), is buf[n % len(buf)].
// Numbers stay valid when it grows.
type ring[T any] struct {
	buf        []T
	head, tail uint64
}

// at returns value n's slot.
func (r *ring[T]) at(n uint64) *T { return &r.buf[n&uint64(len(r.buf)-1)] }

// push makes room for one more value and returns its number; its slot
// holds whatever the ring left there. A full ring doubles (at least
// minSize, a power of two), each value moved to its new slot.
func (r *ring[T]) push(minSize int) uint64 {
	if r.tail-r.head == uint64(len(r.buf)) {
		nb := make([]T, max(minSize, 2*len(r.buf)))
		for n := r.head; n < r.tail; n++ {
			nb[n&uint64(len(nb)-1)] = *r.at(n)
		}
		r.buf = nb
	}
	r.tail++
	return r.tail - 1
}
