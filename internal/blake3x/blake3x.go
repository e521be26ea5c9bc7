// SPDX-License-Identifier: Apache-2.0

package blake3x

import (
	"encoding/binary"
	"hash"
	"math/bits"
	"unsafe"

	"github.com/zeebo/blake3"
)

// BLAKE3's constants.
const (
	blockLen = 64
	chunkLen = 1024

	flagChunkStart = 1 << 0
	flagChunkEnd   = 1 << 1
	flagParent     = 1 << 2
	flagRoot       = 1 << 3

	// maxSubtree bounds the chunks of a subtree hashed at once (the
	// hasher's scratch of chaining values).
	maxSubtree = 256
)

var iv = [8]uint32{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}

var msgPermutation = [16]int{2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8}

// New returns a hash.Hash computing the 256-bit BLAKE3 digest: this
// package's Hasher where the CPU has AVX-512, else zeebo/blake3's.
func New() hash.Hash {
	if hasKernel {
		return newHasher(compress16)
	}
	return blake3.New()
}

// Kernel reports whether New uses the AVX-512 kernel.
func Kernel() bool { return hasKernel }

// params is the kernel's per-call input; gen.go knows its offsets.
type params struct {
	cv       [8]uint32  // the chaining value every lane starts from
	ctrLo    [16]uint32 // each lane's counter, low and high words
	ctrHi    [16]uint32
	flags    [3]uint32 // every block's, the first block's, the last block's
	blockLen uint32
}

// kernel compresses blocks blocks (at least one) in each of 16 lanes;
// lane l's start at in+offs[l], one after another; out[w*16+l] is word w
// of lane l's chaining value. Callers give fewer lanes by repeating the
// last one's offset, so that the kernel reads only what they hold.
type kernel func(in *byte, offs *[16]uint64, blocks uint64, p *params, out *[128]uint32)

// unitLen is what the kernel hashes in one call: 16 chunks.
const unitLen = 16 * chunkLen

// Hasher is a streaming BLAKE3 hash (256-bit output, unkeyed). Write
// hands the tree whole units of 16 chunks, aligned on the stream, straight
// from the caller's slice where it can, and keeps the rest in buf; Sum
// hashes buf on a copy of the tree. A unit given to the tree is never
// the root, even when nothing follows: the tree keeps a subtree as its
// two children and merges lazily, and only Sum compresses with ROOT.
type Hasher struct {
	t      tree
	buf    [unitLen]byte
	buflen int
}

func newHasher(k kernel) *Hasher {
	h := &Hasher{t: tree{k: k}}
	h.Reset()
	return h
}

// Reset implements hash.Hash.
func (h *Hasher) Reset() {
	h.t.cs = chunkState{cv: iv}
	h.t.n = 0
	h.buflen = 0
}

// Size implements hash.Hash: 32.
func (h *Hasher) Size() int { return 32 }

// BlockSize implements hash.Hash: 64.
func (h *Hasher) BlockSize() int { return blockLen }

// Write implements hash.Hash; it never fails.
func (h *Hasher) Write(p []byte) (int, error) {
	n := len(p)
	if h.buflen > 0 {
		k := copy(h.buf[h.buflen:], p)
		h.buflen += k
		p = p[k:]
		if h.buflen < unitLen {
			return n, nil
		}
		h.t.write(h.buf[:])
		h.buflen = 0
	}
	if k := len(p) / unitLen * unitLen; k > 0 {
		h.t.write(p[:k])
		p = p[k:]
	}
	h.buflen = copy(h.buf[:], p)
	return n, nil
}

// Sum implements hash.Hash: it appends the 32-octet digest of what was
// written to b, and does not change the state.
func (h *Hasher) Sum(b []byte) []byte {
	t := h.t
	t.write(h.buf[:h.buflen])
	return t.sum(b)
}

// tree is the reference implementation's Hasher: a chunk state and the
// stack of chaining values of the subtrees to its left, with the scratch
// its kernel uses.
type tree struct {
	k     kernel
	cs    chunkState
	stack [55][8]uint32 // the reference's MAX_DEPTH + 1
	n     int           // CVs on the stack
	cvs   [maxSubtree][8]uint32
	p     params
	offs  [16]uint64
	out   [128]uint32
}

// write is the reference's Hasher.update, with subtrees of two chunks and
// more hashed by the kernel.
func (h *tree) write(p []byte) {
	if h.cs.len() > 0 {
		take := min(chunkLen-h.cs.len(), len(p))
		h.cs.update(p[:take])
		p = p[take:]
		if len(p) == 0 {
			return
		}
		// The chunk is full and more follows: it is not the root.
		cv := h.cs.output().chainingValue()
		h.pushCV(&cv, h.cs.counter)
		h.cs = chunkState{cv: iv, counter: h.cs.counter + 1}
	}
	for len(p) > chunkLen {
		size := uint64(1) << (bits.Len64(uint64(len(p))) - 1)
		size = min(size, maxSubtree*chunkLen)
		for (size-1)&(h.cs.counter*chunkLen) != 0 {
			size /= 2
		}
		chunks := size / chunkLen
		if chunks <= 1 {
			cs := chunkState{cv: iv, counter: h.cs.counter}
			cs.update(p[:size])
			cv := cs.output().chainingValue()
			h.pushCV(&cv, cs.counter)
		} else {
			l, r := h.subtree(p[:size], h.cs.counter)
			h.pushCV(&l, h.cs.counter)
			h.pushCV(&r, h.cs.counter+chunks/2)
		}
		h.cs.counter += chunks
		p = p[size:]
	}
	if len(p) > 0 {
		h.cs.update(p)
		h.mergeStack(h.cs.counter)
	}
}

// subtree hashes in, a power of two of chunks (2 to maxSubtree) whose
// first has number counter, and returns the subtree root's two children.
func (h *tree) subtree(in []byte, counter uint64) (l, r [8]uint32) {
	n := len(in) / chunkLen
	p := &h.p
	p.cv = iv
	p.flags = [3]uint32{0, flagChunkStart, flagChunkEnd}
	p.blockLen = blockLen
	for i := 0; i < n; i += 16 {
		lanes := min(16, n-i)
		for l := range 16 {
			c := counter + uint64(i+min(l, lanes-1))
			p.ctrLo[l], p.ctrHi[l] = uint32(c), uint32(c>>32)
			h.offs[l] = uint64(min(l, lanes-1) * chunkLen)
		}
		h.k(&in[i*chunkLen], &h.offs, chunkLen/blockLen, p, &h.out)
		h.gather(i, lanes)
	}
	p.ctrLo, p.ctrHi = [16]uint32{}, [16]uint32{}
	p.flags = [3]uint32{flagParent, 0, 0}
	for ; n > 2; n /= 2 {
		if n <= 4 { // one or two parents: cheaper one by one
			for i := 0; i < n/2; i++ {
				h.cvs[i] = parentOutput(&h.cvs[2*i], &h.cvs[2*i+1]).chainingValue()
			}
			continue
		}
		for i := 0; i < n/2; i += 16 {
			lanes := min(16, n/2-i)
			for l := range 16 {
				h.offs[l] = uint64(min(l, lanes-1) * 2 * 32)
			}
			h.k((*byte)(unsafe.Pointer(&h.cvs[2*i])), &h.offs, 1, p, &h.out)
			h.gather(i, lanes)
		}
	}
	return h.cvs[0], h.cvs[1]
}

// gather copies the kernel's chaining values of lanes lanes to cvs[at:].
func (h *tree) gather(at, lanes int) {
	for l := 0; l < lanes; l++ {
		cv := &h.cvs[at+l]
		for w := range 8 {
			cv[w] = h.out[w*16+l]
		}
	}
}

// mergeStack merges the stack's CVs into parents until it holds one per
// one bit of total, the chunks so far (the reference's merge_cv_stack).
func (h *tree) mergeStack(total uint64) {
	for h.n > bits.OnesCount64(total) {
		cv := parentOutput(&h.stack[h.n-2], &h.stack[h.n-1]).chainingValue()
		h.n--
		h.stack[h.n-1] = cv
	}
}

// pushCV pushes the chaining value of a chunk or subtree that starts at
// chunk counter.
func (h *tree) pushCV(cv *[8]uint32, counter uint64) {
	h.mergeStack(counter)
	h.stack[h.n] = *cv
	h.n++
}

// sum appends the root's 32 octets to b (the reference's finalize).
func (h *tree) sum(b []byte) []byte {
	var o output
	if h.n == 0 {
		o = h.cs.output()
	} else {
		i := h.n
		if h.cs.len() > 0 {
			o = h.cs.output()
		} else {
			o = parentOutput(&h.stack[i-2], &h.stack[i-1])
			i -= 2
		}
		for ; i > 0; i-- {
			cv := o.chainingValue()
			o = parentOutput(&h.stack[i-1], &cv)
		}
	}
	o.flags |= flagRoot
	st := compress(&o.cv, &o.block, o.counter, o.blockLen, o.flags)
	for w := range 8 {
		b = binary.LittleEndian.AppendUint32(b, st[w])
	}
	return b
}

// chunkState is a chunk being hashed block by block.
type chunkState struct {
	cv       [8]uint32
	counter  uint64
	block    [blockLen]byte
	blockLen int
	compDone int // blocks compressed
}

func (cs *chunkState) len() int { return cs.compDone*blockLen + cs.blockLen }

func (cs *chunkState) startFlag() uint32 {
	if cs.compDone == 0 {
		return flagChunkStart
	}
	return 0
}

func (cs *chunkState) update(in []byte) {
	for len(in) > 0 {
		if cs.blockLen == blockLen {
			var m [16]uint32
			words(&m, &cs.block)
			st := compress(&cs.cv, &m, cs.counter, blockLen, cs.startFlag())
			copy(cs.cv[:], st[:8])
			cs.compDone++
			cs.block = [blockLen]byte{}
			cs.blockLen = 0
		}
		k := copy(cs.block[cs.blockLen:], in)
		cs.blockLen += k
		in = in[k:]
	}
}

func (cs *chunkState) output() output {
	o := output{cv: cs.cv, counter: cs.counter, blockLen: uint32(cs.blockLen), flags: cs.startFlag() | flagChunkEnd}
	words(&o.block, &cs.block)
	return o
}

// output is a node's last compression, before its flags say whether it
// is the root.
type output struct {
	cv       [8]uint32
	block    [16]uint32
	counter  uint64
	blockLen uint32
	flags    uint32
}

func (o output) chainingValue() [8]uint32 {
	st := compress(&o.cv, &o.block, o.counter, o.blockLen, o.flags)
	return [8]uint32(st[:8])
}

func parentOutput(l, r *[8]uint32) output {
	o := output{cv: iv, blockLen: blockLen, flags: flagParent}
	copy(o.block[:8], l[:])
	copy(o.block[8:], r[:])
	return o
}

func words(m *[16]uint32, b *[blockLen]byte) {
	for i := range m {
		m[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
}

// g is BLAKE3's quarter-round.
func g(a, b, c, d, x, y uint32) (uint32, uint32, uint32, uint32) {
	a += b + x
	d = bits.RotateLeft32(d^a, -16)
	c += d
	b = bits.RotateLeft32(b^c, -12)
	a += b + y
	d = bits.RotateLeft32(d^a, -8)
	c += d
	b = bits.RotateLeft32(b^c, -7)
	return a, b, c, d
}

// schedule[r] is round r's order of the message words.
var schedule = func() (s [7][16]uint8) {
	for i := range s[0] {
		s[0][i] = uint8(i)
	}
	for r := 1; r < 7; r++ {
		for i := range s[r] {
			s[r][i] = s[r-1][msgPermutation[i]]
		}
	}
	return s
}()

// compress is BLAKE3's compression function.
func compress(cv *[8]uint32, m *[16]uint32, counter uint64, blockLen uint32, flags uint32) [16]uint32 {
	v0, v1, v2, v3, v4, v5, v6, v7 := cv[0], cv[1], cv[2], cv[3], cv[4], cv[5], cv[6], cv[7]
	v8, v9, v10, v11 := iv[0], iv[1], iv[2], iv[3]
	v12, v13, v14, v15 := uint32(counter), uint32(counter>>32), blockLen, flags
	for r := range schedule {
		s := &schedule[r]
		v0, v4, v8, v12 = g(v0, v4, v8, v12, m[s[0]&15], m[s[1]&15])
		v1, v5, v9, v13 = g(v1, v5, v9, v13, m[s[2]&15], m[s[3]&15])
		v2, v6, v10, v14 = g(v2, v6, v10, v14, m[s[4]&15], m[s[5]&15])
		v3, v7, v11, v15 = g(v3, v7, v11, v15, m[s[6]&15], m[s[7]&15])
		v0, v5, v10, v15 = g(v0, v5, v10, v15, m[s[8]&15], m[s[9]&15])
		v1, v6, v11, v12 = g(v1, v6, v11, v12, m[s[10]&15], m[s[11]&15])
		v2, v7, v8, v13 = g(v2, v7, v8, v13, m[s[12]&15], m[s[13]&15])
		v3, v4, v9, v14 = g(v3, v4, v9, v14, m[s[14]&15], m[s[15]&15])
	}
	return [16]uint32{
		v0 ^ v8, v1 ^ v9, v2 ^ v10, v3 ^ v11, v4 ^ v12, v5 ^ v13, v6 ^ v14, v7 ^ v15,
		v8 ^ cv[0], v9 ^ cv[1], v10 ^ cv[2], v11 ^ cv[3], v12 ^ cv[4], v13 ^ cv[5], v14 ^ cv[6], v15 ^ cv[7],
	}
}

// compress16Go is the kernel's portable double, for tests on any CPU.
func compress16Go(in *byte, offs *[16]uint64, blocks uint64, p *params, out *[128]uint32) {
	for l := 0; l < 16; l++ {
		cv := p.cv
		for b := uint64(0); b < blocks; b++ {
			f := p.flags[0]
			if b == 0 {
				f |= p.flags[1]
			}
			if b == blocks-1 {
				f |= p.flags[2]
			}
			blk := (*[blockLen]byte)(unsafe.Add(unsafe.Pointer(in), offs[l]+b*blockLen))
			var m [16]uint32
			words(&m, blk)
			st := compress(&cv, &m, uint64(p.ctrLo[l])|uint64(p.ctrHi[l])<<32, p.blockLen, f)
			cv = [8]uint32(st[:8])
		}
		for w := range 8 {
			out[w*16+l] = cv[w]
		}
	}
}
