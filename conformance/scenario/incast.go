// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"flag"
	"fmt"
	"strings"

	"github.com/opensfc/sfc/device"
)

func init() {
	register(&Scenario{Name: "incast", Summary: "N senders on their own switch ports send bursts to one receiver, starting within a synchronization window", setup: incastSetup})
}

// lineTimes returns the arrival time of frame k of a back-to-back train
// of size-octet frames at bps starting at start: start + ceil(k × wire
// time), so trains keep exact line rate.
func lineTime(start int64, k int64, size int, bps int64) int64 {
	return start + ceilDiv(k*device.WireBits(size)*device.Second, bps)
}

func incastSetup(fs *flag.FlagSet, g *common) func() (*Vector, error) {
	senders := fs.Int("senders", 4, "number of senders (ports 0..N-1); the receiver is port N")
	flows := fs.Int("flows", 1, "flows per sender, interleaved frame by frame")
	burst := bytesFlag(fs, "burst", "64KB", "octets each flow sends")
	sync := durFlag(fs, "sync", "0", "senders start at seeded random times within this window (the first at 0)")
	recvSpeed := fs.String("recv-speed", "", "speed of the receiver's port (default --speed)")
	uplink := fs.Bool("uplink", false, "add a network-facing uplink port N+1 with the default route")
	load := fs.Float64("load", 1, "fraction of line rate each sender sends at")
	mark := fs.Int("mark", 0, "PB-FS: mark every N-th packet of each flow (TOS/traffic-class bit 0x04); 0 marks none")
	speeds := fs.String("speeds", "", "speeds of the senders' ports, comma-separated, repeated cyclically (default --speed)")
	remote := fs.Bool("remote", false, "the receiver is remote host 0 behind a network-facing uplink (port N, not server-facing: SFC's C flag clear)")
	return func() (*Vector, error) {
		n := *senders
		if n < 1 || n > 250 {
			return nil, fmt.Errorf("%w: --senders %d: want 1..250", ErrUsage, n)
		}
		if *flows < 1 || *flows > 64 {
			return nil, fmt.Errorf("%w: --flows %d: want 1..64", ErrUsage, *flows)
		}
		if !(*load > 0 && *load <= 1) { // NaN too
			return nil, fmt.Errorf("%w: --load %g: want (0, 1]", ErrUsage, *load)
		}
		size := int(g.size.v)
		if size < 64 || size > 9000 {
			return nil, fmt.Errorf("%w: --size %d: want 64..9000 octets", ErrUsage, size)
		}
		if err := budget(float64(n**flows)*framesOf(burst.v, int64(size)), "--senders × --flows × --burst / --size"); err != nil {
			return nil, err
		}
		d := g.doc("switch", "sfc")
		var sp []*qty
		for _, x := range strings.Split(*speeds, ",") {
			if x = strings.TrimSpace(x); x != "" {
				q := &qty{parse: device.ParseRate}
				if err := q.Set(x); err != nil {
					return nil, fmt.Errorf("%w: --speeds %q: %v", ErrUsage, x, err)
				}
				sp = append(sp, q)
			}
		}
		senderSpeed := func(i int) *qty {
			if len(sp) == 0 {
				return g.speed
			}
			return sp[i%len(sp)]
		}
		for i := 0; i < n; i++ {
			p := g.hostPort(i)
			p.speed = senderSpeed(i).s
			d.ports = append(d.ports, p)
		}
		rp := g.hostPort(n)
		recv := Host(n, g.ipv6)
		if *remote {
			rp = g.uplinkPort(n)
			recv = Remote(0, g.ipv6)
		}
		if *recvSpeed != "" {
			if _, err := device.ParseRate(*recvSpeed); err != nil {
				return nil, fmt.Errorf("%w: --recv-speed: %v", ErrUsage, err)
			}
			rp.speed = *recvSpeed
		}
		d.ports = append(d.ports, rp)
		if *uplink {
			d.ports = append(d.ports, g.uplinkPort(n+1))
		}
		d.desc = g.desc
		if d.desc == "" {
			d.desc = fmt.Sprintf("%d-to-1 incast, %s per flow, %d flow(s) per sender, sync window %s, schemes %v", n, burst.s, *flows, sync.s, d.schemes)
		}
		r := g.rng()
		starts := make([]int64, n)
		first := int64(-1)
		for i := range starts {
			if sync.v > 0 {
				starts[i] = r.Int64N(sync.v + 1)
			}
			if first < 0 || starts[i] < first {
				first = starts[i]
			}
		}
		frames := ceilDiv(burst.v, int64(size))
		var out []Frame
		for i := 0; i < n; i++ {
			bps := senderSpeed(i).v
			fl := make([]*flow, *flows)
			for j := range fl {
				fl[j] = g.tag(&flow{src: Host(i, g.ipv6), dst: recv, srcMAC: HostMAC(i), dstMAC: SwitchMAC(i),
					sport: uint16(49152 + i*64 + j), qp: uint32(0x1000 + i*64 + j), dscp: uint8(g.dscp), size: size})
			}
			total := frames * int64(*flows)
			for k := int64(0); k < total; k++ {
				f := fl[k%int64(*flows)]
				b, err := f.next()
				if err != nil {
					return nil, err
				}
				step := fmt.Sprintf("sender %d flow %d frame %d", i, k%int64(*flows), k/int64(*flows))
				if *mark > 0 && (k/int64(*flows)+1)%int64(*mark) == 0 {
					markPBT(b)
					step += " (PBT mark)"
				}
				t := lineTime(starts[i]-first, k, size, int64(float64(bps)**load))
				out = append(out, Frame{Port: i, T: t, Data: b, Step: step})
			}
		}
		return d.finish(out)
	}
}

// markPBT sets the PB-FS mark (TOS / traffic-class bit 0x04) of an
// Ethernet/IP frame, fixing the IPv4 header checksum. The RoCEv2 ICRC
// does not cover the TOS.
func markPBT(b []byte) {
	ip := b[14:]
	if b[12] == 0x81 && b[13] == 0x00 {
		ip = b[18:]
	}
	if ip[0]>>4 == 4 {
		ip[1] |= 0x04
		ip[10], ip[11] = 0, 0
		var sum uint32
		for i := 0; i < 20; i += 2 {
			sum += uint32(ip[i])<<8 | uint32(ip[i+1])
		}
		for sum>>16 != 0 {
			sum = sum&0xffff + sum>>16
		}
		ip[10], ip[11] = byte(^sum>>8), byte(^sum)
		return
	}
	ip[1] |= 0x04 << 4
}
