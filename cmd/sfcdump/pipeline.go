package main

import (
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/opensfc/sfc/pcapio"
)

// The parallel reader: the calling goroutine reads batches of frames
// (pcapio.ReadBatch: the frames of one read, left in the buffer they were
// read into), workers decode and render whole batches, and a writer
// goroutine writes the batches' output in capture order, applying -c and
// -w. A fixed pool of batches is recycled, so memory does not grow with
// the capture.

// batchFrames bounds the frames of a batch (a batch is otherwise one read
// of the capture, 128 KiB: ~2000 frames of 64 octets), and so its output.
const batchFrames = 2048

type batch struct {
	rb     pcapio.Batch
	outEnd []int  // end of frame i's output in out
	match  []bool // frame i passed the filter
	out    []byte
	view   view
	src    *source
	done   chan struct{}
}

// parallelism returns how many workers to run (0: read serially).
func parallelism() int {
	n := runtime.GOMAXPROCS(0)
	if n < 2 {
		return 0
	}
	return n
}

// readParallel reads r through pr with n workers. It returns the read
// error (nil at the end of the capture) or the output error.
func (pr *printer) readParallel(src *source, r *pcapio.Reader, n int) error {
	free := make(chan *batch, 2*n+2)
	for i := 0; i < cap(free); i++ {
		free <- &batch{done: make(chan struct{}, 1)}
	}
	work := make(chan *batch, cap(free))
	ordered := make(chan *batch, cap(free))
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		fm := pr.newFormatter()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				fm.render(b)
				b.done <- struct{}{}
			}
		}()
	}
	var stop atomic.Bool
	writeErr := make(chan error, 1)
	go func() {
		var err error
		for b := range ordered {
			<-b.done
			if err == nil && !stop.Load() {
				err = pr.emit(b)
				if err != nil || pr.done() {
					stop.Store(true)
				}
			}
			free <- b
		}
		writeErr <- err
	}()

	var readErr error
	for !stop.Load() {
		b := <-free
		if err := r.ReadBatch(&b.rb, batchFrames); err != nil {
			free <- b
			if err != io.EOF {
				readErr = err
			}
			break
		}
		frames := b.rb.Frames
		if !pr.started {
			pr.first, pr.started = frames[0].Time, true
		}
		last := 0
		for i := range frames {
			last = max(last, frames[i].Interface)
		}
		b.src = src
		// A snapshot: the source's slices only grow, by appending.
		b.view = pr.view(src, last)
		work <- b
		ordered <- b
	}
	close(work)
	close(ordered)
	wg.Wait()
	if err := <-writeErr; err != nil {
		return err
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
	for i := range frames {
		out, b.match[i] = fm.format(out, &b.view, &frames[i])
		b.outEnd[i] = len(out)
	}
	b.out = out
}

// emit writes b's output in order, up to -c, and its matching frames to -w.
func (pr *printer) emit(b *batch) error {
	for i := range b.rb.Frames {
		if !b.match[i] {
			continue
		}
		pr.printed++
		if pr.outFile != nil {
			if err := pr.writeFrame(b.src.index, b.view.names, &b.rb.Frames[i]); err != nil {
				return err
			}
		}
		if pr.done() {
			_, err := pr.w.Write(b.out[:b.outEnd[i]])
			return err
		}
	}
	_, err := pr.w.Write(b.out)
	return err
}
