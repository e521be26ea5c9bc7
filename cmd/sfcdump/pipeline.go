// SPDX-License-Identifier: Apache-2.0

package main

import (
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/opensfc/sfc/pcapio"
)

// The parallel reader: each worker reads a batch of frames, numbers it,
// and decodes and renders it; the worker that renders the batch next in
// capture order writes its output and that of the rendered batches
// waiting after it, applying -c and -w. A fixed pool of batches is
// recycled, so memory does not grow with the capture.
//
// A regular, uncompressed file is read by position (pcapio's Reserve,
// Load and Frame): a worker reserves the next 256 KiB chunk under the read
// lock, copies it out of the page cache beside the other workers, then
// waits for its turn to parse the chunk's records (which need the end of
// the chunk before) and decodes them. The copy, a third of the CPU, no
// longer queues behind a lock: with the read under the lock, the lock was
// busy nine tenths of the time. There is one worker per CPU. On the
// 2-vCPU VM of bench/, sfcdump read of 1M frames: 161 ms wall and 302
// CPU-ms under the lock with three workers; 156 and 282 ms by position
// with two (three: 205 and 389, the third worker's spinning took the core
// of the one whose turn it was); with another process holding a core,
// 331 against 308 ms.
//
// Any other source (gzip, zstd) is read under the lock with ReadBatch,
// the frames of one read left in the buffer they were read into, with one
// worker more than GOMAXPROCS so that a worker spinning for the lock
// yields to one that decodes.
//
// Either way the reads of a regular file that the page cache serves are
// raw system calls (pcapio's fileReader), so the scheduler does not hand a
// reading worker's P to another thread in the middle of a read; and the
// worker that read a batch decodes it: the read's copy left the frames in
// that core's cache. (A reader goroutine handing batches to workers made
// every first touch of a frame a transfer between cores: 15% more CPU.) A
// worker waiting for the lock, or for its turn, spins, yielding to the
// other workers, before it sleeps: waking a sleeping worker took longer
// than the wait, which left a core idle.

// batchFrames bounds the frames of a batch read by ReadBatch (a batch is
// otherwise one read of the capture, 128 KiB: ~2000 frames of 64 octets),
// and so its output; by position, a chunk is cut to about that many frames
// of the size framed last (pcapio's Reserve).
const batchFrames = 2048

type batch struct {
	rb     pcapio.Batch
	warns  []batchWarn // the capture's warnings met reading it (warnInLine)
	outEnd []int       // end of frame i's output in out
	match  []bool      // frame i passed the filter
	out    []byte
	view   view
	src    *source
	seq    int // the batch's number in capture order
}

// The batches' buffers (the capture's octets and the output) are one
// region outside the Go heap, backed by transparent huge pages where Linux
// gives them (mapMemory), kept from one read to the next (arenas). On
// the 2-vCPU VM of bench/ a first touch of a small page cost 15-25 µs,
// and fresh heap memory takes one per 4 KiB: the batches' 1 MiB of read
// buffers and, for -T json, 2 MiB of output grown by doubling were 2,400
// of the run's 3,600 page faults, and the output's growth alone started a
// GC cycle that scanned (and faulted in) the 5 MB of gopacket's tables.
// From huge pages it is a few faults of 2 MiB. A batch whose output
// outgrows its part of the region grows it on the heap, as before.

// outRoom is the room for a batch's output in the region: 256 KiB for
// one line or a few fields per frame (a 256 KiB chunk of the 1M-frame
// capture of bench/ writes 30 KiB as one line per frame; one of 64-octet
// frames, 3,300 of them, 240 KiB), 512 KiB for JSON (300 KiB there), the
// tree and hex dumps.
func (pr *printer) outRoom() int {
	if pr.o.format == "json" || pr.o.verbose || pr.o.hex {
		return 512 << 10
	}
	return 256 << 10
}

// arenas holds the regions of the reads that ended, for the next ones (a
// region is never unmapped: a reader may keep one of its buffers).
var arenas struct {
	mu   sync.Mutex
	free [][]byte
}

// takeArena returns a region of n octets, nil where there is none.
func takeArena(n int) []byte {
	arenas.mu.Lock()
	defer arenas.mu.Unlock()
	for i, a := range arenas.free {
		if len(a) == n {
			arenas.free = append(arenas.free[:i], arenas.free[i+1:]...)
			return a
		}
	}
	return mapMemory(n)
}

// putArena keeps a region for another read.
func putArena(a []byte) {
	if a == nil {
		return
	}
	arenas.mu.Lock()
	arenas.free = append(arenas.free, a)
	arenas.mu.Unlock()
}

// parallelism returns how many workers to run (0: read serially).
func parallelism() int {
	n := runtime.GOMAXPROCS(0)
	if n < 2 {
		return 0
	}
	return n + 1
}

// spinTries bounds the yields of a worker waiting for the read lock
// before it sleeps (each is ~0.1-0.2 µs when no other goroutine runs).
// A thousand (0.1-0.2 ms at most) outlast the read of a batch under the
// lock (~25 µs for 128 KiB), so a worker seldom sleeps: on the 2-vCPU VM
// of bench/ a futex sleep and wake-up cost more than the spin. With 100,
// the one-line read of 1M frames took 0.177 s wall and 0.315 CPU-s
// (median of 5, perf stat, alternating), with 1,000 0.166 s and 0.303
// CPU-s, with 10,000 no better (bench/README.md, eleventh session).
const spinTries = 1000

// spin calls ok until it reports true, yielding to the other goroutines
// between calls, at most spinTries times; false: the caller should sleep.
func spin(ok func() bool) bool {
	for i := 0; i < spinTries; i++ {
		if ok() {
			return true
		}
		runtime.Gosched()
	}
	return ok()
}

// waitTurn returns when framed reaches seq: it spins, then sleeps on cond
// (whose lock guards framed's changes).
func waitTurn(framed *atomic.Int64, cond *sync.Cond, seq int64) {
	turn := func() bool { return framed.Load() == seq }
	if spin(turn) {
		return
	}
	cond.L.Lock()
	for !turn() {
		cond.Wait()
	}
	cond.L.Unlock()
}

// lockSpinning locks mu, spinning first (see the parallel reader).
func lockSpinning(mu *sync.Mutex) {
	if !spin(mu.TryLock) {
		mu.Lock()
	}
}

// readParallel reads r through pr with n workers. It returns the read
// error (nil at the end of the capture) or the output error.
//
// There is no writer goroutine: the worker that renders the batch next in
// capture order writes it, and those after it that are rendered already.
// A writer goroutine slept waiting for nearly every batch and was woken by
// the worker that rendered it: with two cores, a futex call and a context
// switch per batch.
func (pr *printer) readParallel(src *source, r *pcapio.Reader) error {
	positioned := r.Positioned()
	n := parallelism()
	if positioned {
		// One worker per CPU that can run one: a worker more than that
		// spins for its turn on the core of the one whose turn it is.
		n = min(runtime.GOMAXPROCS(0), runtime.NumCPU())
	}
	pool := 2*n + 2
	free := &batchStack{}
	free.cond.L = &free.mu
	room := pcapio.BatchBuffer + pr.outRoom() // a batch's part of the region
	arena := takeArena(pool * room)
	defer putArena(arena)
	// framesCap is the capacity a batch's frames slice is made with on
	// its first use, by position: about batchFrames, as Reserve cuts a
	// chunk, or as many as the file can hold (a record is 16 octets or
	// more). Grown from nothing by appending, the slices of the batches
	// were 200 of the 1M-frame read's 1,000 page faults, each 15-25 us on
	// the VM of bench/; fresh from the OS, a large slice is not cleared,
	// so only the pages of the frames stored are touched. Made for every
	// batch up front, they made a read of 400 small files three times as
	// slow. Other sources grow them as they go.
	framesCap := 0
	if _, size := r.Progress(); positioned && size > 0 {
		framesCap = int(min(batchFrames, size/16+1))
	}
	for i := 0; i < pool; i++ {
		b := &batch{}
		if arena != nil {
			m := arena[i*room : (i+1)*room : (i+1)*room]
			b.rb.SetBuffer(m[:pcapio.BatchBuffer:pcapio.BatchBuffer])
			b.out = m[pcapio.BatchBuffer:pcapio.BatchBuffer]
		}
		free.push(b)
	}
	var (
		stop    atomic.Bool
		mu      sync.Mutex  // reading r (by position: reserving), seq
		seq     int         // the number of the next batch read (or reserved)
		readErr error       // set by the batch that meets it, read after wg.Wait
		ended   atomic.Bool // the capture ended, or could not be read on

		outMu   sync.Mutex // the fields below, and writing the output
		pending = make([]*batch, pool)
		nextOut int // the number of the next batch to write
		outErr  error
		wg      sync.WaitGroup
	)
	// number sets up b, read (ReadBatch) or framed (Frame) as the batch
	// after the last one, for rendering: the capture's first time, the
	// time of the frame before it, the interfaces it names.
	number := func(b *batch) {
		frames := b.rb.Frames
		for i := 0; i < len(frames) && !pr.started; i++ {
			if !frames[i].Time.IsZero() { // the first frame with a time
				pr.first, pr.started = frames[i].Time, true
			}
		}
		last := 0
		for i := range frames {
			last = max(last, frames[i].Interface)
		}
		b.src = src
		// A snapshot: the source's slices only grow, by appending.
		b.view = pr.view(src, last)
		b.view.prev = pr.prev
		for i := len(frames) - 1; i >= 0; i-- {
			if !frames[i].Time.IsZero() {
				pr.prev = frames[i].Time
				break
			}
		}
	}
	// end frees b, which met the capture's end or err, and ends the read;
	// the warnings met reading it (a statistics block after the last
	// frame) are reported after every frame.
	var tailWarns []error
	end := func(b *batch, err error) *batch {
		for _, w := range b.warns {
			tailWarns = append(tailWarns, w.err)
		}
		free.push(b)
		if err != io.EOF {
			readErr = err
		}
		ended.Store(true)
		return nil
	}
	// next reads the next batch, or returns nil at the end (of the capture,
	// or of the output).
	next := func() *batch {
		lockSpinning(&mu)
		defer mu.Unlock()
		if ended.Load() || stop.Load() {
			return nil
		}
		b := free.pop()
		if err := pr.readWarned(b, func(rb *pcapio.Batch) error { return r.ReadBatch(rb, batchFrames) }); err != nil {
			return end(b, err)
		}
		number(b)
		b.seq = seq
		seq++
		return b
	}
	if positioned {
		// The batch's chunk of the file is reserved under the lock, read
		// outside it, and framed in the order reserved (pcapio's
		// positioned reading): the copies out of the page cache run on
		// every core at once.
		var (
			framed   atomic.Int64 // the number of the next batch to frame
			turnMu   sync.Mutex
			turnCond = sync.NewCond(&turnMu)
		)
		next = func() *batch {
			lockSpinning(&mu)
			if ended.Load() || stop.Load() {
				mu.Unlock()
				return nil
			}
			b := free.pop()
			if b.rb.Frames == nil && framesCap > 0 {
				b.rb.Frames = make([]pcapio.Frame, 0, framesCap)
			}
			b.seq = seq
			seq++
			r.Reserve(&b.rb, batchFrames)
			mu.Unlock()
			b.rb.Load(r)
			waitTurn(&framed, turnCond, int64(b.seq))
			defer func() {
				turnMu.Lock()
				framed.Add(1)
				turnMu.Unlock()
				turnCond.Broadcast()
			}()
			if ended.Load() || stop.Load() {
				free.push(b)
				return nil
			}
			if err := pr.readWarned(b, r.Frame); err != nil {
				return end(b, err)
			}
			number(b)
			return b
		}
	}
	// done queues b for output, and writes it and the batches after it
	// that are waiting when it is the next in order. At most pool batches
	// exist, so batch numbers modulo pool tell the waiting ones apart.
	done := func(b *batch) {
		outMu.Lock()
		defer outMu.Unlock()
		pending[b.seq%pool] = b
		for {
			i := nextOut % pool
			b := pending[i]
			if b == nil || b.seq != nextOut {
				return
			}
			pending[i] = nil
			nextOut++
			if outErr == nil && !stop.Load() {
				outErr = pr.emit(b)
				if outErr != nil || pr.done() {
					stop.Store(true)
				}
			}
			free.push(b)
		}
	}
	for i := 0; i < n; i++ {
		fm := pr.newFormatter()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := next(); b != nil; b = next() {
				if testBeforeRender != nil {
					testBeforeRender(b.seq)
				}
				fm.render(b)
				done(b)
			}
		}()
	}
	wg.Wait()
	if outErr != nil {
		return outErr
	}
	if stop.Load() {
		// -c was reached (or the read interrupted) before the batch that
		// met readErr was written: the serial path never reads that far.
		return nil
	}
	for _, w := range tailWarns {
		pr.reportWarning(src.name, w)
	}
	return readErr
}

// render decodes and renders every frame of b.
func (fm *formatter) render(b *batch) {
	frames := b.rb.Frames
	if cap(b.match) < len(frames) {
		b.match, b.outEnd = make([]bool, len(frames)), make([]int, len(frames))
	}
	b.match, b.outEnd = b.match[:len(frames)], b.outEnd[:len(frames)]
	out := b.out[:0]
	v := b.view
	for i := range frames {
		out, b.match[i] = fm.format(out, &v, &frames[i])
		b.outEnd[i] = len(out)
		if !frames[i].Time.IsZero() {
			v.prev = frames[i].Time
		}
	}
	b.out = out
}

// emit writes b's output in order, up to -c, and its matching frames to
// -w; each warning met reading b goes on a line of its own where the
// serial read gives it, before the frame it was met reading (at), after
// the output of the frames before. A batch read ahead and never written
// (past -c) gives none.
func (pr *printer) emit(b *batch) error {
	written, w := 0, 0 // octets of b.out written; the next warning
	// warnBefore writes the warnings met before frame i, after the
	// output of the frames before it.
	warnBefore := func(i int) error {
		for ; w < len(b.warns) && b.warns[w].at <= i; w++ {
			if i > 0 && b.outEnd[i-1] > written {
				if err := pr.print(b.out[written:b.outEnd[i-1]]); err != nil {
					return err
				}
				written = b.outEnd[i-1]
			}
			pr.reportWarning(b.src.name, b.warns[w].err)
		}
		return nil
	}
	for i := range b.rb.Frames {
		if w < len(b.warns) {
			if err := warnBefore(i); err != nil {
				return err
			}
		}
		if !b.match[i] {
			continue
		}
		pr.printed++
		if pr.outFile != nil {
			if err := pr.writeFrame(b.src, &b.view, &b.rb.Frames[i]); err != nil {
				return err
			}
		}
		if pr.done() {
			return pr.print(b.out[written:b.outEnd[i]])
		}
	}
	if err := warnBefore(len(b.rb.Frames)); err != nil {
		return err
	}
	return pr.print(b.out[written:])
}

// readWarned reads into b with read (ReadBatch, or Frame by position),
// which the caller runs under the read lock or its turn: the capture's
// warnings met meanwhile are kept with b (warnInLine), for emit.
func (pr *printer) readWarned(b *batch, read func(*pcapio.Batch) error) error {
	b.warns = b.warns[:0]
	pr.warnTo = b
	defer func() { pr.warnTo = nil }()
	return read(&b.rb)
}

// batchWarn is a warning met reading a batch, before its frame at (the
// frame being read: len(Frames) when the warning came after the last).
type batchWarn struct {
	at  int
	err error
}

// batchStack holds the free batches. The batch freed last is taken
// first: its buffers were touched last, so they are the likeliest still in
// cache when the next read copies into one (a queue cycled through all
// of them: 0.14 against 0.115 s of system time for the 1M-frame capture,
// the floor's 0.11).
type batchStack struct {
	mu   sync.Mutex
	cond sync.Cond
	s    []*batch
}

// testBeforeRender, when set by a test, is called by a worker with the
// number of the batch it is about to render.
var testBeforeRender func(seq int)

// push returns b to the stack.
func (st *batchStack) push(b *batch) {
	st.mu.Lock()
	st.s = append(st.s, b)
	st.mu.Unlock()
	st.cond.Signal()
}

// pop takes the batch pushed last, waiting for one when there is none.
func (st *batchStack) pop() *batch {
	st.mu.Lock()
	for len(st.s) == 0 {
		st.cond.Wait()
	}
	b := st.s[len(st.s)-1]
	st.s = st.s[:len(st.s)-1]
	st.mu.Unlock()
	return b
}
