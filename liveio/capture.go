// SPDX-License-Identifier: Apache-2.0

package liveio

import (
	"container/heap"
	"errors"
	"fmt"
	"sync"
	"time"
)

// CapturePort is one port of a Capture: the port to read and the pcapng
// interface its frames go to.
type CapturePort struct {
	Port  *Port
	Iface int
}

// CaptureResult is what a Capture saw on one port.
type CaptureResult struct {
	Iface int    `json:"iface"`
	Name  string `json:"interface"`
	// Frames counts the frames written to the capture; Before those
	// read before the capture's start instant (not written).
	Frames int64 `json:"frames"`
	Before int64 `json:"before_start,omitempty"`
	// Stats are the kernel's counters: Dropped > 0 means the capture
	// missed frames.
	Stats Stats `json:"kernel"`
	// Err is the error that ended reading early, if any.
	Err string `json:"error,omitempty"`
}

// Capture reads several ports at once and writes their frames to one
// pcapng stream in time order. Frames read before Start are dropped;
// Map turns a kernel timestamp into the timestamp written.
type Capture struct {
	// Start: frames received before it are counted, not written.
	Start time.Time
	// Map turns a receive time into the time written (nil: unchanged).
	Map func(time.Time) time.Time
	// Horizon is how long frames are held to merge the ports in time
	// order (default 100 ms; memory grows with the frame rate times it): a port's reader that stalls longer than
	// that can make its frames go out of order, which Stop reports.
	Horizon time.Duration

	w       *NgWriter
	ports   []CapturePort
	res     []CaptureResult
	ch      chan capFrame
	readers sync.WaitGroup
	done    chan error
}

type capFrame struct {
	idx  int
	t    time.Time // kernel time
	len  int
	data []byte
}

type frameHeap []capFrame

func (h frameHeap) Len() int           { return len(h) }
func (h frameHeap) Less(i, j int) bool { return h[i].t.Before(h[j].t) }
func (h frameHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *frameHeap) Push(x any)        { *h = append(*h, x.(capFrame)) }
func (h *frameHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Run starts reading every port into w (whose interface blocks the
// caller wrote). Call Stop to end.
func (c *Capture) Run(w *NgWriter, ports []CapturePort) {
	c.w, c.ports = w, ports
	if c.Horizon <= 0 {
		c.Horizon = 100 * time.Millisecond
	}
	c.res = make([]CaptureResult, len(ports))
	c.ch = make(chan capFrame, 4096)
	c.done = make(chan error, 1)
	for i, p := range ports {
		c.res[i] = CaptureResult{Iface: p.Iface, Name: p.Port.Name()}
		c.readers.Add(1)
		go c.read(i)
	}
	go c.write()
}

func (c *Capture) read(i int) {
	defer c.readers.Done()
	p := c.ports[i].Port
	for {
		fr, err := p.Read()
		if err != nil {
			if !errors.Is(err, ErrClosed) {
				c.res[i].Err = err.Error()
			}
			return
		}
		c.ch <- capFrame{idx: i, t: fr.Time, len: fr.Len, data: append([]byte(nil), fr.Data...)}
	}
}

func (c *Capture) write() {
	var h frameHeap
	var last time.Time
	var werr error
	emit := func(f capFrame) {
		r := &c.res[f.idx]
		if f.t.Before(c.Start) {
			r.Before++
			return
		}
		if f.t.Before(last) && werr == nil {
			werr = fmt.Errorf("%s: a frame received at %s came after the merge horizon (%s) had passed it", r.Name, f.t.Format(time.StampMicro), c.Horizon)
		}
		last = f.t
		t := f.t
		if c.Map != nil {
			t = c.Map(t)
		}
		if err := c.w.WritePacket(c.ports[f.idx].Iface, t, f.data, f.len, DirInbound, ""); err != nil && werr == nil {
			werr = err
		}
		r.Frames++
	}
	for f := range c.ch {
		heap.Push(&h, f)
		for h.Len() > 0 && f.t.Sub(h[0].t) > c.Horizon {
			emit(heap.Pop(&h).(capFrame))
		}
	}
	for h.Len() > 0 {
		emit(heap.Pop(&h).(capFrame))
	}
	c.done <- werr
}

// Stop ends reading, writes what is held and one statistics block per
// port at end (a receive time, mapped like the frames'), and returns what each
// port saw. The error is a write error or frames out of order.
func (c *Capture) Stop(end time.Time) ([]CaptureResult, error) {
	for _, p := range c.ports {
		_ = p.Port.StopReading()
	}
	c.readers.Wait()
	close(c.ch)
	err := <-c.done
	at := end
	if c.Map != nil {
		at = c.Map(end)
	}
	for i, p := range c.ports {
		st, serr := p.Port.Stats()
		c.res[i].Stats = st
		if serr != nil && err == nil {
			err = serr
		}
		if werr := c.w.WriteStats(p.Iface, at, st.Received, st.Dropped); werr != nil && err == nil {
			err = werr
		}
	}
	if ferr := c.w.Flush(); ferr != nil && err == nil {
		err = ferr
	}
	return c.res, err
}
