// SPDX-License-Identifier: Apache-2.0

package device

// Verdict is a hook's decision about a frame.
type Verdict uint8

const (
	// Pass lets the frame go on along the normal path.
	Pass Verdict = iota
	// Drop makes the device discard the frame and count it under
	// Packet.DropReason (or "scheme" when that is empty).
	Drop
	// Take hands the frame to the scheme: the device forgets it. The scheme
	// later calls Device.Release to put it back on the path (a hold, as a
	// Floodgate VOQ does), Device.Enqueue to queue it directly, or
	// Device.Free when it consumed it (a BTS a NIC acted on).
	Take
)

// Scheme is a flow-control scheme plugged into a Device. The device calls
// its hooks, in the order the schemes were attached, at these points:
//
//   - OnControl: a frame of a signal kind (Kind.Signal) arrived on a port,
//     before anything else looks at it. Pass lets the next scheme see it,
//     then a switch forwards it like data if it is IP (a BTS passing
//     through) and drops it otherwise; a NIC drops unconsumed non-IP signals.
//   - OnIngress: a frame to forward arrived on a switch port; OutPort,
//     Class and Queue are set from the forwarding table and the DSCP map.
//     A scheme may change OutPort or Queue, drop, or take the frame.
//     Mark Packet.Reserved here to admit it outside the shared buffer (PFC
//     headroom).
//   - OnEnqueue: the frame passed buffer admission and is about to join
//     egress queue (OutPort, Queue); a scheme may still change Queue, drop
//     or take it (a scheme that takes a frame here owns its buffer space).
//   - OnDequeue: the frame starts transmission (TxStart is set). A scheme
//     may rewrite the frame's bytes here, in place (PB-FS marks packets so);
//     the device sends them as they are after the last OnDequeue.
//   - OnDepart: its last bit has left; it no longer occupies the buffer.
//     Its bytes are still the ones sent, but read-only: on a link whose
//     delay exceeds the frame's transmission time they already belong to
//     the frame the peer will receive (they are handed over, not copied).
//   - OnTimer: a timer set with Device.After fired.
//
// Embed NopScheme to implement only some hooks.
type Scheme interface {
	// Attach is called once by Device.Attach; it validates the scheme's
	// parameters against the device and sets defaults that depend on it.
	Attach(d *Device) error
	OnControl(d *Device, p *Packet) Verdict
	OnIngress(d *Device, p *Packet) Verdict
	OnEnqueue(d *Device, p *Packet) Verdict
	OnDequeue(d *Device, p *Packet)
	OnDepart(d *Device, p *Packet)
	OnTimer(d *Device, id int, arg int64)
}

// Picker lets a scheme choose which egress queue of a switch port sends
// next (BFC skipping paused flows, Floodgate, a different arbitration).
// Pick returns a queue index of port.Queues, or -1 when nothing may start
// now, together with the earliest time something might (0 when unknown:
// the scheme then calls Device.Kick when that changes). The first attached
// scheme that implements Picker is used; without one the device serves
// the control class first, then round-robin across the other queues,
// skipping a queue whose head frame's class is paused.
type Picker interface {
	Pick(d *Device, port *Port) (queue int, wake int64)
}

// FlowGate lets a scheme hold back a NIC flow (a Floodgate dst-pause, a BFC
// filter): FlowBlockedUntil returns the time until which f may not start a
// frame, or 0 when it may; math.MaxInt64 holds it until the scheme calls
// Kick on the NIC's wire port. The NIC asks every attached FlowGate.
type FlowGate interface {
	FlowBlockedUntil(d *Device, f *Flow) int64
}

// Receiver lets a scheme on a NIC see what the NIC delivers to its host:
// OnReceive runs, in attach order, for every IP frame that arrived on the
// wire port and that no OnControl hook consumed, after the flow's receive
// counters were updated and before the output callback. A transport's
// receive side uses it to acknowledge data and to act on ACKs, NACKs and
// CNPs. Pass delivers the frame to the host (the output callback), Take
// consumes it (the scheme calls Device.Free), Drop discards it under
// Packet.DropReason. The scheme may call Send and Offer from the hook.
type Receiver interface {
	OnReceive(d *Device, p *Packet) Verdict
}

// NopScheme implements every Scheme hook as a no-op that passes frames.
type NopScheme struct{}

// Attach does nothing.
func (NopScheme) Attach(*Device) error { return nil }

// OnControl passes.
func (NopScheme) OnControl(*Device, *Packet) Verdict { return Pass }

// OnIngress passes.
func (NopScheme) OnIngress(*Device, *Packet) Verdict { return Pass }

// OnEnqueue passes.
func (NopScheme) OnEnqueue(*Device, *Packet) Verdict { return Pass }

// OnDequeue does nothing.
func (NopScheme) OnDequeue(*Device, *Packet) {}

// OnDepart does nothing.
func (NopScheme) OnDepart(*Device, *Packet) {}

// OnTimer does nothing.
func (NopScheme) OnTimer(*Device, int, int64) {}
