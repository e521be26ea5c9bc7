// SPDX-License-Identifier: Apache-2.0

package blake3x

import (
	"bytes"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/zeebo/blake3"
)

// kernels are the kernels to test: the portable double everywhere, the
// AVX-512 kernel where the CPU has it (the test says so when it has not).
func kernels(t testing.TB) map[string]kernel {
	k := map[string]kernel{"portable": compress16Go}
	if hasKernel {
		k["avx512"] = compress16
	} else {
		t.Logf("no AVX-512 here: only the portable kernel is tested")
	}
	return k
}

// input is the official test vectors' input: octet i is i mod 251.
func input(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

func want(b []byte) []byte {
	s := blake3.Sum256(b)
	return s[:]
}

// TestOfficialVectors: the first 32 octets of the official test vectors
// (BLAKE3 team, test_vectors.json) for a few lengths.
func TestOfficialVectors(t *testing.T) {
	for _, c := range []struct {
		n    int
		hash string
	}{
		{0, "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"},
		{1, "2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213"},
		{1024, "42214739f095a406f3fc83deb889744ac00df831c10daa55189b5d121c855af7"},
		{1025, "d00278ae47eb27b34faecf67b4fe263f82d5412916c1ffd97c8cb7fb814b8444"},
		{102400, "bc3e3d41a1146b069abffad3c0d44860cf664390afce4d9661f7902e7943e085"},
	} {
		for name, k := range kernels(t) {
			h := newHasher(k)
			h.Write(input(c.n))
			if got := hex.EncodeToString(h.Sum(nil)); got != c.hash {
				t.Errorf("%s: length %d: %s, want %s", name, c.n, got, c.hash)
			}
		}
	}
}

// TestLengths compares every length up to 40 chunks and more, written at
// once, with zeebo/blake3.
func TestLengths(t *testing.T) {
	in := input(300 << 10)
	lengths := []int{}
	for n := 0; n <= 40*chunkLen+1; n++ {
		if n < 3*chunkLen || n%chunkLen <= 1 || n%chunkLen == chunkLen-1 || n%97 == 0 {
			lengths = append(lengths, n)
		}
	}
	lengths = append(lengths, 64<<10, 128<<10, 128<<10+1, 256<<10-1, 256<<10, 256<<10+1, 300<<10)
	for name, k := range kernels(t) {
		for _, n := range lengths {
			h := newHasher(k)
			h.Write(in[:n])
			if got, w := h.Sum(nil), want(in[:n]); !bytes.Equal(got, w) {
				t.Fatalf("%s: length %d: %x, want %x", name, n, got, w)
			}
		}
	}
}

// TestSplits writes long inputs in random pieces (as a capture's reads
// arrive) and checks the digest after each, and that Sum leaves the state
// alone.
func TestSplits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	in := make([]byte, 3<<20)
	for i := range in {
		in[i] = byte(rng.Uint32())
	}
	for name, k := range kernels(t) {
		for round := 0; round < 8; round++ {
			h := newHasher(k)
			ref := blake3.New()
			off := 0
			for off < len(in) {
				var n int
				switch rng.IntN(4) {
				case 0:
					n = rng.IntN(100)
				case 1:
					n = rng.IntN(3 * chunkLen)
				default:
					n = rng.IntN(200 << 10)
				}
				n = min(n, len(in)-off)
				h.Write(in[off : off+n])
				ref.Write(in[off : off+n])
				off += n
				if got, w := h.Sum(nil), ref.Sum(nil); !bytes.Equal(got, w) {
					t.Fatalf("%s: round %d, after %d octets: %x, want %x", name, round, off, got, w)
				}
			}
			h.Reset()
			h.Write(in[:5000])
			if got, w := h.Sum([]byte("x")), append([]byte("x"), want(in[:5000])...); !bytes.Equal(got, w) {
				t.Fatalf("%s: after Reset: %x, want %x", name, got, w)
			}
		}
	}
}

// TestKernel compares the kernel with its portable double lane by lane,
// on chunks and on parents, with every lane count and a counter that
// carries into its high word.
func TestKernel(t *testing.T) {
	if !hasKernel {
		t.Skip("SKIP: no AVX-512 on this CPU: the kernel cannot run here (the portable double is tested above)")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	in := make([]byte, 16*chunkLen)
	for i := range in {
		in[i] = byte(rng.Uint32())
	}
	for _, blocks := range []uint64{1, 2, 16} {
		var p params
		for i := range p.cv {
			p.cv[i] = rng.Uint32()
		}
		for l := range 16 {
			c := uint64(1)<<32 - 3 + uint64(l)
			p.ctrLo[l], p.ctrHi[l] = uint32(c), uint32(c>>32)
		}
		p.flags = [3]uint32{8, 1, 2}
		p.blockLen = blockLen
		var offs [16]uint64
		for l := range offs {
			offs[l] = uint64(rng.IntN(len(in)/blockLen-int(blocks)+1) * blockLen)
		}
		var a, b [128]uint32
		compress16(&in[0], &offs, blocks, &p, &a)
		compress16Go(&in[0], &offs, blocks, &p, &b)
		if a != b {
			t.Fatalf("blocks %d: kernel %x, portable %x", blocks, a, b)
		}
	}
}

func TestNew(t *testing.T) {
	h := New()
	h.Write(input(1025))
	if got := hex.EncodeToString(h.Sum(nil)); got != "d00278ae47eb27b34faecf67b4fe263f82d5412916c1ffd97c8cb7fb814b8444" {
		t.Fatalf("New: %s", got)
	}
	if _, ok := h.(*Hasher); ok != Kernel() {
		t.Fatalf("New gave %T with Kernel() %v", h, Kernel())
	}
}

func BenchmarkWrite(b *testing.B) {
	in := make([]byte, 128<<10+333)
	for name, k := range kernels(b) {
		b.Run(name, func(b *testing.B) {
			h := newHasher(k)
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				h.Write(in)
			}
		})
	}
	b.Run("zeebo", func(b *testing.B) {
		h := blake3.New()
		b.SetBytes(int64(len(in)))
		for b.Loop() {
			h.Write(in)
		}
	})
}

// BenchmarkKernel: 16 chunks per call (gen.go's kernel alone).
func BenchmarkKernel(b *testing.B) {
	if !hasKernel {
		b.Skip("no AVX-512 on this CPU")
	}
	in := make([]byte, unitLen)
	p := params{cv: iv, blockLen: blockLen}
	var offs [16]uint64
	for l := range offs {
		offs[l] = uint64(l * chunkLen)
	}
	var out [128]uint32
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		compress16(&in[0], &offs, chunkLen/blockLen, &p, &out)
	}
}

// BenchmarkCompress: the portable compression function, one block.
func BenchmarkCompress(b *testing.B) {
	var m [16]uint32
	cv := iv
	for b.Loop() {
		s := compress(&cv, &m, 0, blockLen, 0)
		cv[0] = s[0]
	}
}

// TestGenerated: the kernel on disk is what gen.go writes.
func TestGenerated(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("SKIP: no go command in PATH: cannot regenerate the kernel to compare")
	}
	tmp := filepath.Join(t.TempDir(), "k.s")
	if out, err := exec.Command(gobin, "run", "gen.go", "-out", tmp).CombinedOutput(); err != nil {
		t.Fatalf("go run gen.go: %v\n%s", err, out)
	}
	got, err := os.ReadFile(tmp)
	if err != nil {
		t.Fatal(err)
	}
	disk, err := os.ReadFile("compress16_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, disk) {
		t.Fatal("compress16_amd64.s differs from what gen.go writes: run go generate ./internal/blake3x")
	}
}

// FuzzWrite compares the digest of any input, written in two pieces cut
// anywhere, with zeebo/blake3's, with each kernel.
func FuzzWrite(f *testing.F) {
	f.Add([]byte("abc"), uint16(1))
	f.Add(input(17*chunkLen+5), uint16(chunkLen))
	f.Add(input(40*chunkLen), uint16(16*chunkLen+1))
	f.Fuzz(func(t *testing.T, in []byte, cut uint16) {
		c := min(int(cut), len(in))
		w := want(in)
		for name, k := range kernels(t) {
			h := newHasher(k)
			h.Write(in[:c])
			h.Write(in[c:])
			if got := h.Sum(nil); !bytes.Equal(got, w) {
				t.Fatalf("%s: %x, want %x", name, got, w)
			}
		}
	})
}

// scalarSubtree is tree.subtree chunk by chunk with the portable
// compression function alone.
func scalarSubtree(in []byte, counter uint64) (l, r [8]uint32) {
	var cvs [][8]uint32
	for i := 0; i < len(in)/chunkLen; i++ {
		cs := chunkState{cv: iv, counter: counter + uint64(i)}
		cs.update(in[i*chunkLen : (i+1)*chunkLen])
		cvs = append(cvs, cs.output().chainingValue())
	}
	for len(cvs) > 2 {
		var n [][8]uint32
		for i := 0; i < len(cvs); i += 2 {
			n = append(n, parentOutput(&cvs[i], &cvs[i+1]).chainingValue())
		}
		cvs = n
	}
	return cvs[0], cvs[1]
}

// TestSubtreeHighCounter: chunk counters past 2^32 (4 TiB into a stream)
// reach the kernel's high counter words.
func TestSubtreeHighCounter(t *testing.T) {
	in := input(maxSubtree * chunkLen)
	for name, k := range kernels(t) {
		for _, c := range []uint64{1<<32 - 16, 1<<32 - 256, 1 << 32, 3<<40 - 64} {
			for _, n := range []int{2, 8, 16, 64, 256} {
				if c%uint64(n) != 0 {
					continue
				}
				tr := tree{k: k}
				l, r := tr.subtree(in[:n*chunkLen], c)
				if wl, wr := scalarSubtree(in[:n*chunkLen], c); l != wl || r != wr {
					t.Errorf("%s: counter %#x, %d chunks: children differ from the portable ones", name, c, n)
				}
			}
		}
	}
}

// TestPatterns: write patterns that land on and around unit boundaries,
// with Sum after every write.
func TestPatterns(t *testing.T) {
	in := input(1<<20 + 7)
	patterns := map[string][]int{
		"units":          {unitLen, unitLen, unitLen, 2 * unitLen, 0, unitLen},
		"empty":          {0, 0, 5, 0, unitLen - 5, 0, 0, 1},
		"octets-at-unit": {unitLen - 2, 1, 1, 1, 1, unitLen},
		"256KiB":         {256 << 10, 256 << 10, 256 << 10, 256<<10 + 7},
		"32KiB":          {32 << 10, 32 << 10, 32<<10 + 1, 32<<10 - 1},
		"chunk-steps":    {chunkLen, 15 * chunkLen, chunkLen + 1, 31*chunkLen - 1},
	}
	for name, k := range kernels(t) {
		for pn, sizes := range patterns {
			h := newHasher(k)
			off := 0
			for _, n := range sizes {
				h.Write(in[off : off+n])
				off += n
				if got, w := h.Sum(nil), want(in[:off]); !bytes.Equal(got, w) {
					t.Fatalf("%s, %s: after %d octets: %x, want %x", name, pn, off, got, w)
				}
			}
		}
	}
}

// TestParamsLayout: gen.go's offsets into params.
func TestParamsLayout(t *testing.T) {
	var p params
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"ctrLo", unsafe.Offsetof(p.ctrLo), 32},
		{"ctrHi", unsafe.Offsetof(p.ctrHi), 96},
		{"flags", unsafe.Offsetof(p.flags), 160},
		{"blockLen", unsafe.Offsetof(p.blockLen), 172},
	} {
		if c.got != c.want {
			t.Errorf("params.%s at %d, gen.go reads it at %d", c.name, c.got, c.want)
		}
	}
}
