// SPDX-License-Identifier: Apache-2.0

package device

import (
	"encoding/json"
	"io"
	"slices"
)

// Sample is a queue depth at a time.
type Sample struct {
	T     int64 `json:"t_ns"`
	Bytes int64 `json:"bytes"`
}

// PauseRecord is one interval during which a device was paused: a class
// on a port's egress (Class 0..7), or a NIC flow (Class -1, Flow set).
type PauseRecord struct {
	Port  int    `json:"port"`
	Class int    `json:"class"`
	Flow  string `json:"flow,omitempty"`
	Start int64  `json:"start_ns"`
	End   int64  `json:"end_ns"`
	Cause string `json:"cause,omitempty"`
}

// QueueRecord summarises one egress queue.
type QueueRecord struct {
	Port       int      `json:"port"`
	Queue      int      `json:"queue"`
	Depth      int64    `json:"depth"`
	Peak       int64    `json:"peak"`
	PeakAt     int64    `json:"peak_at_ns"`
	EnqFrames  int64    `json:"enq_frames"`
	EnqBytes   int64    `json:"enq_bytes"`
	DropFrames int64    `json:"drop_frames"`
	Samples    []Sample `json:"samples,omitempty"`
}

// PortRecord counts what a port received and sent.
type PortRecord struct {
	ID       int   `json:"id"`
	Speed    int64 `json:"speed_bps"`
	RxFrames int64 `json:"rx_frames"`
	RxBytes  int64 `json:"rx_bytes"`
	TxFrames int64 `json:"tx_frames"`
	TxBytes  int64 `json:"tx_bytes"`
}

// DropRecord counts frames dropped on arrival at a port for a reason.
type DropRecord struct {
	Port   int    `json:"port"`
	Reason string `json:"reason"`
	Frames int64  `json:"frames"`
	Bytes  int64  `json:"bytes"`
}

// SignalRecord counts generated frames of a kind the device sent.
type SignalRecord struct {
	Kind   string `json:"kind"`
	Frames int64  `json:"frames"`
}

// FlowRecord summarises a NIC flow, sent or received. Times are -1 when
// nothing happened.
type FlowRecord struct {
	Flow     string `json:"flow"`
	TxFrames int64  `json:"tx_frames"`
	TxBytes  int64  `json:"tx_bytes"`
	FirstTx  int64  `json:"first_tx_ns"`
	LastTx   int64  `json:"last_tx_ns"`
	RxFrames int64  `json:"rx_frames"`
	RxBytes  int64  `json:"rx_bytes"`
	FirstRx  int64  `json:"first_rx_ns"`
	LastRx   int64  `json:"last_rx_ns"`
	PauseEnd int64  `json:"pause_end_ns"`
}

// Record is what a device observed, for tests, reports and sfcdump. It is
// built on demand by Device.Record and is stable: the same run gives the
// same Record, and its JSON form is byte-identical.
type Record struct {
	Name       string         `json:"name"`
	Role       string         `json:"role"`
	Time       int64          `json:"time_ns"`
	Buffer     int64          `json:"buffer"`
	BufferUsed int64          `json:"buffer_used"`
	BufferPeak int64          `json:"buffer_peak"`
	Ports      []PortRecord   `json:"ports"`
	Queues     []QueueRecord  `json:"queues"`
	Drops      []DropRecord   `json:"drops"`
	Signals    []SignalRecord `json:"signals"`
	Pauses     []PauseRecord  `json:"pauses,omitempty"`
	Flows      []FlowRecord   `json:"flows,omitempty"`
}

// Record returns a snapshot of what the device observed so far. Queues
// appear once something was enqueued in them.
func (d *Device) Record() *Record {
	r := &Record{Name: d.name, Role: d.role.String(), Time: d.sim.now, Buffer: d.bufSize, BufferUsed: d.used, BufferPeak: d.peak,
		Ports: []PortRecord{}, Queues: []QueueRecord{}, Drops: []DropRecord{}, Signals: []SignalRecord{}}
	for _, pt := range d.ports {
		r.Ports = append(r.Ports, PortRecord{ID: pt.ID, Speed: pt.Speed, RxFrames: pt.RxFrames, RxBytes: pt.RxBytes, TxFrames: pt.TxFrames, TxBytes: pt.TxBytes})
		for qi := range pt.Queues {
			q := &pt.Queues[qi]
			if q.EnqFrames == 0 && q.DropFrames == 0 {
				continue
			}
			r.Queues = append(r.Queues, QueueRecord{Port: pt.ID, Queue: qi, Depth: q.Bytes, Peak: q.Peak, PeakAt: q.PeakAt,
				EnqFrames: q.EnqFrames, EnqBytes: q.EnqBytes, DropFrames: q.DropFrames, Samples: slices.Clone(q.samples)})
		}
	}
	for _, k := range d.dropOrder {
		c := d.drops[k]
		r.Drops = append(r.Drops, DropRecord{Port: k.port, Reason: k.reason, Frames: c[0], Bytes: c[1]})
	}
	for k := Kind(0); k <= KindMalformed; k++ {
		if n := d.signals[k]; n > 0 {
			r.Signals = append(r.Signals, SignalRecord{Kind: k.String(), Frames: n})
		}
	}
	r.Pauses = slices.Clone(d.pauses)
	for _, f := range d.Flows() {
		r.Flows = append(r.Flows, FlowRecord{Flow: f.Key.String(), TxFrames: f.TxFrames, TxBytes: f.TxBytes, FirstTx: f.FirstTx, LastTx: f.LastTx,
			RxFrames: f.RxFrames, RxBytes: f.RxBytes, FirstRx: f.FirstRx, LastRx: f.LastRx, PauseEnd: f.PauseEnd})
	}
	return r
}

// Dropped returns the frames dropped for reason (all reasons when empty).
func (r *Record) Dropped(reason string) int64 {
	var n int64
	for _, d := range r.Drops {
		if reason == "" || d.Reason == reason {
			n += d.Frames
		}
	}
	return n
}

// SignalsSent returns how many generated frames of kind were sent.
func (r *Record) SignalsSent(kind Kind) int64 {
	for _, s := range r.Signals {
		if s.Kind == kind.String() {
			return s.Frames
		}
	}
	return 0
}

// Queue returns the record of queue q of port, or a zero record.
func (r *Record) Queue(port, q int) QueueRecord {
	for _, x := range r.Queues {
		if x.Port == port && x.Queue == q {
			return x
		}
	}
	return QueueRecord{Port: port, Queue: q}
}

// WriteJSON writes the record as indented JSON.
func (r *Record) WriteJSON(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(r)
}
