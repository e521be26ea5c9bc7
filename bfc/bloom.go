// SPDX-License-Identifier: Apache-2.0

package bfc

import (
	"encoding/binary"
	"math"
	"math/rand/v2"

	"github.com/opensfc/sfc/layers"
)

// FalsePositives measures how often a BFC pause filter of l octets and k
// stages, its stages indexed as a frame of the given version defines them
// (layers.StageIndex), pauses a flow it was not built for. For each of
// sets sets of n random flows (random IPv4 addresses and UDP ports, from a
// PCG seeded with seed) it builds the filter, then asks probes random flows
// whether the filter pauses them. It returns the matches and the probes
// asked; the rate is hits/asked. A geometry layers.SetFilterBit rejects
// asks nothing.
//
// Each probe hashes stage s only when stages 0..s-1 matched, so a probe
// costs about one CRC: rates near 1e-6 need 10^8 probes for a tight
// estimate, about two seconds.
func FalsePositives(version uint8, l, k, n, sets, probes int, seed uint64) (hits, asked int64) {
	if k < 1 || k > layers.BFCMaxHashes || l < k || l%k != 0 || l > layers.BFCMaxFilterLen {
		return 0, 0
	}
	rng := rand.New(rand.NewPCG(seed, 0xbfc))
	filter := make([]byte, l)
	stage := l / k
	var key [13]byte
	randomKey := func() {
		binary.BigEndian.PutUint64(key[0:], rng.Uint64()) // src and dst IPv4
		key[8] = 17
		binary.BigEndian.PutUint32(key[9:], rng.Uint32()) // src and dst ports
	}
	for set := 0; set < sets; set++ {
		clear(filter)
		for i := 0; i < n; i++ {
			randomKey()
			var h layers.BFCHashes
			for s := range h {
				h[s] = layers.BFCHash(s, key[:])
			}
			for s := 0; s < k; s++ {
				layers.SetFilterBit(version, filter, k, &h, s)
			}
		}
		for p := 0; p < probes; p++ {
			randomKey()
			var h layers.BFCHashes
			hit := true
			for s := 0; s < k && hit; s++ {
				if version == layers.BFCVersion1 {
					h[0] = layers.BFCHash(0, key[:]) // version 1 hashes the VFID only
				} else {
					h[s] = layers.BFCHash(s, key[:])
				}
				i := layers.StageIndex(version, &h, s, l, k)
				hit = filter[s*stage+int(i/8)]&(0x80>>(i%8)) != 0
			}
			if hit {
				hits++
			}
		}
	}
	return hits, int64(sets) * int64(probes)
}

// BloomFalsePositive is the false-positive rate of k independent stages of
// m_s = 8·l/k bits each holding n flows: (1 − e^(−n/m_s))^k, which is the
// textbook (1 − e^(−kn/M))^k with M = 8·l, the filter's bits in all.
func BloomFalsePositive(n, k, l int) float64 {
	if k < 1 || l < k {
		return math.NaN()
	}
	ms := float64(8*l) / float64(k)
	return math.Pow(1-math.Exp(-float64(n)/ms), float64(k))
}
