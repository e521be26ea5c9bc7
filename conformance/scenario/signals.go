package scenario

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/opensfc/sfc/bts"
	"github.com/opensfc/sfc/cim"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
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
	return &flow{src: Host(i, g.ipv6), dst: dst, srcMAC: srcMAC, dstMAC: dstMAC, sport: uint16(49152 + n),
		qp: uint32(0x2000 + n), dscp: uint8(g.dscp), size: int(g.size.v)}
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
