// SPDX-License-Identifier: Apache-2.0

//go:build linux

package liveio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Port is an AF_PACKET socket bound to one interface, for reading and
// writing whole Ethernet frames.
type Port struct {
	f        *os.File
	rc       syscall.RawConn
	name     string
	index    int
	mtu      int
	promisc  bool
	outgoing bool
	buf      []byte
	oob      []byte

	mu    sync.Mutex
	stats Stats
	// skipped counts the frames Read took from the socket and did not
	// return (outgoing or incoming ones the port does not want).
	skipped atomic.Uint64
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// Open opens a packet socket on the interface named iface in the calling
// thread's network namespace.
func Open(iface string, o Options) (*Port, error) {
	ifi, err := net.InterfaceByName(iface)
	if err != nil {
		return nil, fmt.Errorf("interface %s: %w", iface, err)
	}
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, int(htons(unix.ETH_P_ALL)))
	if err != nil {
		return nil, fmt.Errorf("interface %s: packet socket (needs CAP_NET_RAW): %w", iface, err)
	}
	fail := func(what string, err error) (*Port, error) {
		unix.Close(fd)
		return nil, fmt.Errorf("interface %s: %s: %w", iface, what, err)
	}
	if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: ifi.Index}); err != nil {
		return fail("bind", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_AUXDATA, 1); err != nil {
		return fail("PACKET_AUXDATA", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); err != nil {
		return fail("SO_TIMESTAMPNS", err)
	}
	// Kernels before 4.20 lack it: Read then skips outgoing frames by
	// their packet type.
	if !o.Outgoing {
		_ = unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_IGNORE_OUTGOING, 1)
	}
	rb := o.RcvBuf
	if rb <= 0 {
		rb = 8 << 20
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, rb); err != nil {
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, rb)
	}
	if o.Promisc {
		mreq := unix.PacketMreq{Ifindex: int32(ifi.Index), Type: unix.PACKET_MR_PROMISC}
		if err := unix.SetsockoptPacketMreq(fd, unix.SOL_PACKET, unix.PACKET_ADD_MEMBERSHIP, &mreq); err != nil {
			return fail("promiscuous mode", err)
		}
	}
	// Frames already queued before the socket was bound to the interface
	// may come from any interface: drain them.
	drain := make([]byte, 1)
	for {
		if _, _, err := unix.Recvfrom(fd, drain, unix.MSG_DONTWAIT); err != nil {
			break
		}
	}
	f := os.NewFile(uintptr(fd), "packet:"+iface)
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("interface %s: %w", iface, err)
	}
	p := &Port{f: f, rc: rc, name: iface, index: ifi.Index, mtu: ifi.MTU, promisc: o.Promisc, outgoing: o.Outgoing,
		buf: make([]byte, 65536+4), oob: make([]byte, 256)}
	// Start the counters at zero (the kernel resets them on every read).
	_, _ = p.Stats()
	p.stats = Stats{}
	return p, nil
}

// Name returns the interface name.
func (p *Port) Name() string { return p.name }

// MTU returns the interface's MTU when it was opened: the largest frame
// Write can send is MTU + 14 octets (+ 4 with a VLAN tag).
func (p *Port) MTU() int { return p.mtu }

// MaxFrame returns the largest frame Write can send, tagged or not.
func (p *Port) MaxFrame(tagged bool) int {
	if tagged {
		return p.mtu + 18
	}
	return p.mtu + 14
}

// Write sends frame on the interface as it is (no padding, no FCS: the
// interface adds them).
func (p *Port) Write(frame []byte) error {
	if len(frame) < 14 {
		return fmt.Errorf("%s: a frame of %d octets is shorter than an Ethernet header", p.name, len(frame))
	}
	_, err := p.f.Write(frame)
	if err != nil {
		return fmt.Errorf("%s: send %d octets: %w", p.name, len(frame), err)
	}
	return nil
}

// Read blocks until a frame arrives, and returns it with its kernel
// timestamp and its VLAN tag back in place. It returns ErrClosed after
// StopReading or Close.
func (p *Port) Read() (Frame, error) {
	for {
		var n, oobn int
		var from unix.Sockaddr
		var rerr error
		buf := p.buf[4:] // room to put a stripped VLAN tag back
		err := p.rc.Read(func(fd uintptr) bool {
			n, oobn, _, from, rerr = unix.Recvmsg(int(fd), buf, p.oob, unix.MSG_TRUNC)
			return rerr != unix.EAGAIN
		})
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, os.ErrClosed) {
				return Frame{}, ErrClosed
			}
			return Frame{}, fmt.Errorf("%s: read: %w", p.name, err)
		}
		if rerr != nil {
			return Frame{}, fmt.Errorf("%s: read: %w", p.name, rerr)
		}
		if sa, ok := from.(*unix.SockaddrLinklayer); ok && (sa.Pkttype == unix.PACKET_OUTGOING) != p.outgoing {
			p.skipped.Add(1)
			continue
		}
		fr := Frame{Len: n}
		capLen := min(n, len(buf))
		var aux *unix.TpacketAuxdata
		msgs, err := unix.ParseSocketControlMessage(p.oob[:oobn])
		if err == nil {
			for _, m := range msgs {
				switch {
				case m.Header.Level == unix.SOL_PACKET && m.Header.Type == unix.PACKET_AUXDATA && len(m.Data) >= int(unsafe.Sizeof(unix.TpacketAuxdata{})):
					aux = (*unix.TpacketAuxdata)(unsafe.Pointer(&m.Data[0]))
					fr.Len = int(aux.Len)
				case m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SO_TIMESTAMPNS && len(m.Data) >= int(unsafe.Sizeof(unix.Timespec{})):
					ts := (*unix.Timespec)(unsafe.Pointer(&m.Data[0]))
					fr.Time = time.Unix(int64(ts.Sec), int64(ts.Nsec))
				}
			}
		}
		if fr.Time.IsZero() {
			fr.Time = time.Now()
		}
		start := 4
		if aux != nil && aux.Status&unix.TP_STATUS_VLAN_VALID != 0 && capLen >= 12 {
			tpid := uint16(unix.ETH_P_8021Q)
			if aux.Status&unix.TP_STATUS_VLAN_TPID_VALID != 0 && aux.Vlan_tpid != 0 {
				tpid = aux.Vlan_tpid
			}
			copy(p.buf[0:12], p.buf[4:16])
			binary.BigEndian.PutUint16(p.buf[12:], tpid)
			binary.BigEndian.PutUint16(p.buf[14:], aux.Vlan_tci)
			start = 0
			fr.Len += 4
		}
		fr.Data = p.buf[start : 4+capLen]
		return fr, nil
	}
}

// StopReading makes a blocked Read, and every later one, return
// ErrClosed; Write still works.
func (p *Port) StopReading() error { return p.f.SetReadDeadline(time.Unix(1, 0)) }

// Stats returns the port's counters since it was opened.
func (p *Port) Stats() (Stats, error) {
	var st *unix.TpacketStats
	var gerr error
	err := p.rc.Control(func(fd uintptr) {
		st, gerr = unix.GetsockoptTpacketStats(int(fd), unix.SOL_PACKET, unix.PACKET_STATISTICS)
	})
	p.mu.Lock()
	defer p.mu.Unlock()
	if err == nil {
		err = gerr
	}
	if err != nil {
		return p.stats, fmt.Errorf("%s: PACKET_STATISTICS: %w", p.name, err)
	}
	p.stats.Received += uint64(st.Packets)
	p.stats.Dropped += uint64(st.Drops)
	return p.stats, nil
}

// Unread returns how many frames the kernel has queued on the socket
// beyond taken, the number of frames Read returned that the caller has
// handled (frames Read skips are counted by the port itself). A caller
// whose readers hand frames on to another goroutine asks it to learn
// whether frames that arrived are still on their way, whatever the Go
// scheduler did with the readers. Frames queued while Open ran may make
// it undercount by those few.
func (p *Port) Unread(taken uint64) (uint64, error) {
	st, err := p.Stats()
	if err != nil {
		return 0, err
	}
	done := taken + p.skipped.Load() + st.Dropped
	if st.Received <= done {
		return 0, nil
	}
	return st.Received - done, nil
}

// Close closes the socket (and leaves promiscuous mode).
func (p *Port) Close() error { return p.f.Close() }
