// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/pcapio"
)

func init() {
	register(&Scenario{Name: "two-switch", Summary: "two SFC switches joined by a link: the receiver-side ToR's signals reach the sender-side ToR (writes one of the two vectors)", setup: twoSwitchSetup})
}

// The two-switch topology. The sender-side ToR S has hosts 10.0.i.1 on
// ports 0..H-1 and its uplink on port H. The receiver-side ToR R has local
// senders 10.1.j.1 on ports 0..L-1, the receiver 10.1.L.1 on port L and
// its uplink on port L+1; the two uplinks are one link with a propagation
// delay. Every host sends a burst to the receiver: R's receiver port is
// the incast bottleneck, and R's BTS to S's hosts cross the link to S.
//
// The device core models one switch per vector, so the scenario makes
// the pair in a chain: (1) S's model with its hosts' traffic gives what S
// sends on its uplink; (2) that, delayed by the link, and R's local
// senders are R's input, and R's model gives R's signals on its uplink;
// (3) those, delayed by the link, join S's hosts' traffic as S's input.
// The chain is exact because nothing S does with R's signals changes what
// S sends on its uplink: SFC never drops or delays data, and the signals
// S makes itself (cache hits) go to its hosts. The conformance tests check
// that S's expected output on its uplink is R's input on its own.

// RMAC is the MAC of port i of the receiver-side ToR of the two-switch
// scenario.
func RMAC(i int) device.MAC { return device.MAC{2, 0x5f, 0, 1, byte(i >> 8), byte(i)} }

// RHostMAC is the MAC of the host behind port i of the receiver-side ToR.
func RHostMAC(i int) device.MAC { return device.MAC{2, 0, 0, 1, byte(i >> 8), byte(i)} }

func twoSwitchSetup(fs *flag.FlagSet, g *common) func() (*Vector, error) {
	which := fs.String("switch", "sender", "which switch's vector to write: sender (the sender-side ToR, schemes --scheme, default sfc-cache) or receiver (the receiver-side ToR, scheme sfc)")
	hosts := fs.Int("hosts", 2, "hosts of the sender-side ToR (ports 0..H-1; its uplink is port H)")
	senders := fs.Int("senders", 2, "local senders of the receiver-side ToR (ports 0..L-1; the receiver is port L, the uplink L+1)")
	burst := bytesFlag(fs, "burst", "48KB", "octets every host sends to the receiver")
	delay := durFlag(fs, "link-delay", "1us", "propagation delay of the link between the two uplinks")
	upSpeed := rateFlag(fs, "uplink-speed", "400G", "speed of the link between the switches")
	return func() (*Vector, error) {
		h, l := *hosts, *senders
		if h < 1 || h > 64 || l < 0 || l > 64 {
			return nil, fmt.Errorf("%w: --hosts %d --senders %d: want 1..64 and 0..64", ErrUsage, h, l)
		}
		if *which != "sender" && *which != "receiver" {
			return nil, fmt.Errorf("%w: --switch %q: want sender or receiver", ErrUsage, *which)
		}
		if g.schemes != "" && *which == "receiver" {
			return nil, fmt.Errorf("%w: --scheme applies to the sender-side ToR; the receiver-side ToR runs sfc", ErrUsage)
		}
		size := int(g.size.v)
		frames := ceilDiv(burst.v, int64(size))
		if err := budget(float64(h+l)*framesOf(burst.v, int64(size)), "(--hosts + --senders) × --burst / --size"); err != nil {
			return nil, err
		}
		recv := Remote(l, g.ipv6)
		defRoute := "0.0.0.0/0"
		if g.ipv6 {
			defRoute = "::/0"
		}

		// The sender-side ToR and its hosts' traffic.
		sd := g.doc("switch", "sfc-cache")
		for i := 0; i < h; i++ {
			sd.ports = append(sd.ports, g.hostPort(i))
		}
		sd.ports = append(sd.ports, port{id: h, speed: upSpeed.s, mac: SwitchMAC(h), peer: RMAC(l + 1), prefixes: []string{defRoute}})
		var sIn []Frame
		for i := 0; i < h; i++ {
			f := flowTo(g, i, recv, HostMAC(i), SwitchMAC(i), i)
			for k := int64(0); k < frames; k++ {
				b, err := f.next()
				if err != nil {
					return nil, err
				}
				sIn = append(sIn, Frame{Port: i, T: lineTime(int64(i)*100, k, size, g.speed.v), Data: b, Step: fmt.Sprintf("host %d to the receiver behind the other switch", i)})
			}
		}

		// The receiver-side ToR.
		rg := *g
		rg.schemes = "sfc"
		rd := rg.doc("switch", "sfc")
		for j := 0; j <= l; j++ {
			rd.ports = append(rd.ports, port{id: j, speed: g.speed.s, serverFacing: true, mac: RMAC(j), peer: RHostMAC(j),
				prefixes: []string{remotePrefix(j, g.ipv6).String()}})
		}
		rd.ports = append(rd.ports, port{id: l + 1, speed: upSpeed.s, mac: RMAC(l + 1), peer: SwitchMAC(h), prefixes: []string{defRoute}})
		var rIn []Frame
		for j := 0; j < l; j++ {
			f := g.tag(&flow{src: Remote(j, g.ipv6), dst: recv, srcMAC: RHostMAC(j), dstMAC: RMAC(j), sport: uint16(50000 + j),
				qp: uint32(0x4000 + j), dscp: uint8(g.dscp), size: size})
			for k := int64(0); k < frames; k++ {
				b, err := f.next()
				if err != nil {
					return nil, err
				}
				rIn = append(rIn, Frame{Port: j, T: lineTime(int64(j)*100, k, size, g.speed.v), Data: b, Step: fmt.Sprintf("local sender %d to the receiver", j)})
			}
		}

		// (1) What S sends on its uplink.
		sd.desc = "two-switch: sender-side ToR"
		sv, err := sd.finish(append([]Frame(nil), sIn...))
		if err != nil {
			return nil, err
		}
		sOut, err := runModel(sv)
		if err != nil {
			return nil, fmt.Errorf("the sender-side ToR's model: %w", err)
		}
		for _, f := range sOut {
			if f.Port == h {
				rIn = append(rIn, Frame{Port: l + 1, T: f.T + delay.v, Data: f.Data, Step: "from the sender-side ToR's uplink"})
			}
		}
		rd.desc = g.desc
		if rd.desc == "" || *which == "sender" {
			rd.desc = fmt.Sprintf("two-switch: receiver-side ToR, %d local senders and %d remote hosts to one receiver", l, h)
		}
		rv, err := rd.finish(rIn)
		if err != nil {
			return nil, err
		}
		if *which == "receiver" {
			return rv, nil
		}

		// (2) R's signals on its uplink, (3) into S.
		rOut, err := runModel(rv)
		if err != nil {
			return nil, fmt.Errorf("the receiver-side ToR's model: %w", err)
		}
		// (With the default Q_th, 2 × BDP, the default incast is too small
		// for the receiver-side ToR to signal: nothing crosses.)
		for _, f := range rOut {
			if f.Port == l+1 {
				sIn = append(sIn, Frame{Port: h, T: f.T + delay.v, Data: f.Data, Step: "from the receiver-side ToR's uplink"})
			}
		}
		sd.desc = g.desc
		if sd.desc == "" {
			sd.desc = fmt.Sprintf("two-switch: sender-side ToR, %d hosts, signals from the receiver-side ToR, schemes %v", h, sd.schemes)
		}
		return sd.finish(sIn)
	}
}

// remotePrefix is the prefix of remote host j (Remote).
func remotePrefix(j int, v6 bool) netip.Prefix {
	if v6 {
		return netip.PrefixFrom(Remote(j, true), 64).Masked()
	}
	return netip.PrefixFrom(Remote(j, false), 24).Masked()
}

// runModel replays a vector's input through the reference model of its
// case and returns every frame the model sends (port = egress port, T =
// time its first bit leaves, ns since Epoch).
func runModel(v *Vector) ([]Frame, error) {
	tmp, err := os.CreateTemp("", "sfc-scenario-*.pcapng")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	err = v.WriteInput(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if _, err := conformance.Generate(v.Case, tmp.Name(), &out); err != nil {
		return nil, err
	}
	r, err := pcapio.NewReader("model output", &out)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var frames []Frame
	for {
		f, err := r.Next()
		if err == io.EOF {
			return frames, nil
		}
		if err != nil {
			return nil, err
		}
		frames = append(frames, Frame{Port: f.Interface, T: f.Time.Sub(Epoch).Nanoseconds(), Data: bytes.Clone(f.Data)})
	}
}
