// SPDX-License-Identifier: Apache-2.0

package liveio

import (
	"errors"
	"time"
)

// Options set up a Port.
type Options struct {
	// Promisc puts the interface in promiscuous mode while the port is
	// open (frames to other MACs are read too).
	Promisc bool
	// RcvBuf is the socket receive buffer in octets (0: 8 MiB). A larger
	// buffer rides out longer stalls of the reader before the kernel
	// drops frames (Stats().Dropped).
	RcvBuf int
	// Outgoing makes Read return the frames the host sends on the
	// interface (other sockets' sends, with the kernel's transmit
	// timestamp) instead of the frames it receives.
	Outgoing bool
}

// Frame is one frame read from a Port. Data is valid until the next Read.
type Frame struct {
	Data []byte
	// Len is the frame's length on the wire (more than len(Data) when the
	// frame did not fit the read buffer).
	Len int
	// Time is the kernel's receive timestamp (CLOCK_REALTIME).
	Time time.Time
}

// Stats are a port's counters since it was opened.
type Stats struct {
	// Received counts the frames the kernel passed to the socket
	// (PACKET_STATISTICS tp_packets, dropped ones included).
	Received uint64 `json:"received"`
	// Dropped counts the frames the kernel dropped because the socket's
	// buffer was full (tp_drops): the capture is incomplete.
	Dropped uint64 `json:"dropped"`
}

// ErrClosed is returned by Read after Close or StopReading.
var ErrClosed = errors.New("liveio: port closed")
