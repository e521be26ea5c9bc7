package main

import (
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/opensfc/sfc/pcapio"
)

// The parallel reader: the calling goroutine reads frames into batches,
// workers decode and render whole batches, and a writer goroutine writes
// the batches' output in capture order, applying -c and -w. A fixed pool of
// batches is recycled, so memory does not grow with the capture.

const (
	batchFrames = 1024
	batchArena  = 1 << 20
)

type batchFrame struct {
	pcapio.Frame
	off, end int // Data is arena[off:end]
	outEnd   int // end of this frame's output in out
	match    bool
}

type batch struct {
	arena  []byte
	frames []batchFrame
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
		free <- &batch{arena: make([]byte, 0, batchArena), frames: make([]batchFrame, 0, batchFrames), done: make(chan struct{}, 1)}
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
	var cur *batch
	flush := func() {
		if cur != nil && len(cur.frames) > 0 {
			work <- cur
			ordered <- cur
			cur = nil
		}
	}
	for !stop.Load() {
		fr, err := r.Next()
		if err != nil {
			if err != io.EOF {
				readErr = err
			}
			break
		}
		if !pr.started {
			pr.first, pr.started = fr.Time, true
		}
		if cur != nil && (len(cur.frames) == cap(cur.frames) || len(cur.arena)+len(fr.Data) > cap(cur.arena) ||
			fr.Interface >= len(cur.view.speeds)) {
			flush()
		}
		if cur == nil {
			cur = <-free
			cur.arena, cur.frames, cur.out = cur.arena[:0], cur.frames[:0], cur.out[:0]
			cur.src = src
			// A snapshot: the source's slices only grow, by appending.
			cur.view = pr.view(src, fr.Interface)
		}
		off := len(cur.arena)
		cur.arena = append(cur.arena, fr.Data...)
		bf := batchFrame{Frame: *fr, off: off, end: len(cur.arena)}
		bf.Data = nil
		if len(fr.Comments) > 0 {
			bf.Comments = append([]string(nil), fr.Comments...)
		} else {
			bf.Comments = nil
		}
		cur.frames = append(cur.frames, bf)
	}
	flush()
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
	out := b.out[:0]
	for i := range b.frames {
		bf := &b.frames[i]
		bf.Data = b.arena[bf.off:bf.end]
		out, bf.match = fm.format(out, &b.view, &bf.Frame)
		bf.outEnd = len(out)
	}
	b.out = out
}

// emit writes b's output in order, up to -c, and its matching frames to -w.
func (pr *printer) emit(b *batch) error {
	for i := range b.frames {
		bf := &b.frames[i]
		if !bf.match {
			continue
		}
		pr.printed++
		if pr.outFile != nil {
			if err := pr.writeFrame(b.src.index, b.view.names, &bf.Frame); err != nil {
				return err
			}
		}
		if pr.done() {
			_, err := pr.w.Write(b.out[:bf.outEnd])
			return err
		}
	}
	_, err := pr.w.Write(b.out)
	return err
}
