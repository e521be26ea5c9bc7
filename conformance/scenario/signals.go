// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/opensfc/sfc/bfc"
	"github.com/opensfc/sfc/bts"
	"github.com/opensfc/sfc/cim"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/postcard"
)

// sigSpec is one signal a scenario injects: a pause time (µs) at a time,
// about flow number Flow.
type sigSpec struct {
	pauseUS uint16
	t       int64
	flow    int
}

// parseSignals reads "PAUSE@TIME[:FLOW],..." such as "20us@5us,0@30us:1".
func parseSignals(s string) ([]sigSpec, error) {
	var out []sigSpec
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		p, rest, ok := strings.Cut(item, "@")
		if !ok {
			return nil, fmt.Errorf("%w: signal %q: want PAUSE@TIME[:FLOW]", ErrUsage, item)
		}
		at, fl, _ := strings.Cut(rest, ":")
		var sp sigSpec
		pv, err := device.ParseDuration(p)
		if p == "0" {
			pv, err = 0, nil
		}
		if err != nil || pv%1000 != 0 || pv/1000 > 0xFFFF {
			return nil, fmt.Errorf("%w: signal %q: pause must be whole µs up to 65535us", ErrUsage, item)
		}
		sp.pauseUS = uint16(pv / 1000)
		if sp.t, err = device.ParseDuration(at); err != nil {
			return nil, fmt.Errorf("%w: signal %q: %v", ErrUsage, item, err)
		}
		if fl != "" {
			if _, err := fmt.Sscanf(fl, "%d", &sp.flow); err != nil || sp.flow < 0 {
				return nil, fmt.Errorf("%w: signal %q: bad flow number", ErrUsage, item)
			}
		}
		out = append(out, sp)
	}
	return out, nil
}

// signalFrame builds the SFC signal (kind bts, cim or cim-legacy) a
// congested remote switch would send about trigger (an Ethernet frame of
// the flow), addressed with the given MACs.
func signalFrame(kind string, trigger []byte, sig bts.Signal, src, dst device.MAC) ([]byte, error) {
	switch kind {
	case "bts":
		return bts.Build(nil, trigger, sig, bts.BuildOptions{SrcMAC: src, DstMAC: dst})
	case "cim":
		return cim.Build(nil, trigger, &sig, cim.Options{SrcMAC: src, DstMAC: dst})
	case "cim-legacy":
		return cim.Build(nil, trigger, nil, cim.Options{SrcMAC: src, DstMAC: dst})
	}
	return nil, fmt.Errorf("%w: --signal %q: want bts, cim or cim-legacy", ErrUsage, kind)
}

// remoteSignal is the signal a remote congestion point sends.
func remoteSignal(pauseUS uint16, cacheable bool) bts.Signal {
	return bts.Signal{PauseUS: pauseUS, Cacheable: cacheable, Origin: layers.OriginQueue, Reporter: 0x0A0B0C0D,
		CPPort: 7, CPQueue: 3, QueueDepth: 300000}
}

// flowTo makes a flow from the host behind port i toward dst.
func flowTo(g *common, i int, dst netip.Addr, srcMAC, dstMAC device.MAC, n int) *flow {
	return g.tag(&flow{src: Host(i, g.ipv6), dst: dst, srcMAC: srcMAC, dstMAC: dstMAC, sport: uint16(49152 + n),
		qp: uint32(0x2000 + n), dscp: uint8(g.dscp), size: int(g.size.v)})
}

// quantaSpec is a PAUSE or PFC frame to inject: quanta at a time.
type quantaSpec struct {
	quanta uint16
	t      int64
}

// parseQuanta reads "QUANTA@TIME,..." such as "65535@2us,0@20us".
func parseQuanta(s string) ([]quantaSpec, error) {
	var out []quantaSpec
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		q, at, ok := strings.Cut(item, "@")
		var sp quantaSpec
		var v int
		if _, err := fmt.Sscanf(q, "%d", &v); !ok || err != nil || v < 0 || v > 0xFFFF {
			return nil, fmt.Errorf("%w: pause frame %q: want QUANTA@TIME with quanta 0..65535", ErrUsage, item)
		}
		sp.quanta = uint16(v)
		t, err := device.ParseDuration(at)
		if err != nil {
			return nil, fmt.Errorf("%w: pause frame %q: %v", ErrUsage, item, err)
		}
		sp.t = t
		out = append(out, sp)
	}
	return out, nil
}

// bfcFrames builds BFC pause frames (default k = 4, L = 128) from
// "SEQ:FLOW+FLOW@TIME,...": the filter has the bits of the listed flows.
func bfcFrames(spec string, fl []*flow, src device.MAC) ([]Frame, error) {
	var out []Frame
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		head, at, ok := strings.Cut(item, "@")
		seqS, flows, ok2 := strings.Cut(head, ":")
		seq, err := strconv.ParseUint(seqS, 10, 32)
		if !ok || !ok2 || err != nil {
			return nil, fmt.Errorf("%w: BFC frame %q: want SEQ:FLOW+FLOW@TIME", ErrUsage, item)
		}
		t, err := device.ParseDuration(at)
		if err != nil {
			return nil, fmt.Errorf("%w: BFC frame %q: %v", ErrUsage, item, err)
		}
		filter := make([]byte, bfc.DefaultFilterLen)
		var names []string
		for _, f := range strings.Split(flows, "+") {
			if f == "" {
				continue
			}
			j, err := strconv.Atoi(f)
			if err != nil || j < 0 || j >= len(fl) {
				return nil, fmt.Errorf("%w: BFC frame %q: no flow %q", ErrUsage, item, f)
			}
			k := fl[j]
			key := device.FlowKey{Src: k.src, Dst: k.dst, Proto: 17, SrcPort: k.sport, DstPort: layers.RoCEv2Port}
			h := bfc.Hashes(key)
			for s := 0; s < bfc.DefaultHashes; s++ {
				layers.SetFilterBit(layers.BFCVersion, filter, bfc.DefaultHashes, &h, s)
			}
			names = append(names, f)
		}
		b, err := bfc.AppendFrame(nil, src, bfc.DefaultHashes, uint32(seq), filter)
		if err != nil {
			return nil, err
		}
		out = append(out, Frame{Port: device.WirePort, T: t, Data: b, Step: fmt.Sprintf("BFC pause seq %d pausing flows [%s]", seq, strings.Join(names, " "))})
	}
	return out, nil
}

// postcardFrames builds CC-postcards about flows' packets from
// "TIME[:FLOW],...": a congested assessment of a 100 Gb/s port.
func postcardFrames(spec string, triggers [][]byte, torMAC, nicMAC device.MAC) ([]Frame, error) {
	var out []Frame
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		at, fs, _ := strings.Cut(item, ":")
		t, err := device.ParseDuration(at)
		if err != nil {
			return nil, fmt.Errorf("%w: postcard %q: %v", ErrUsage, item, err)
		}
		j := 0
		if fs != "" {
			if j, err = strconv.Atoi(fs); err != nil || j < 0 || j >= len(triggers) {
				return nil, fmt.Errorf("%w: postcard %q: no flow %q", ErrUsage, item, fs)
			}
		}
		a := postcard.Assessment{RateMbps: 100000, WindowNS: 25000, IP: 900000, Q1: 60000, Recent: 18000, RecentMarked: 3000}
		sw := device.MAC{2, 0x5f, 0, 0, 0x10, 0x01}
		src := netip.AddrFrom4([4]byte{169, 254, 0x10, 0x01})
		if triggers[j][14]>>4 == 6 {
			src = netip.MustParseAddr("fe80::5f:ff:fe00:1001")
		}
		b, err := postcard.Build(nil, triggers[j], a, postcard.BuildOptions{SrcMAC: torMAC, DstMAC: nicMAC, Src: src, SwitchID: sw, Port: 3})
		if err != nil {
			return nil, err
		}
		out = append(out, Frame{Port: device.WirePort, T: t, Data: b, Step: fmt.Sprintf("CC-postcard about flow %d (I_p 900000, Q1 60000)", j)})
	}
	return out, nil
}
