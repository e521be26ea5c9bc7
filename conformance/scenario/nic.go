// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"flag"
	"fmt"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/floodgate"
	"github.com/opensfc/sfc/pfc"
)

func init() {
	register(&Scenario{Name: "nic", Summary: "a NIC whose host offers flows to remote receivers while pause signals (BTS, CIM, PFC) arrive on its wire", setup: nicSetup})
}

func nicSetup(fs *flag.FlagSet, g *common) func() (*Vector, error) {
	flows := fs.Int("flows", 2, "flows the host offers, to remote hosts 0..F-1")
	frames := fs.Int("frames", 20, "frames per flow, all offered at --offer")
	offer := durFlag(fs, "offer", "0", "time the host offers the frames")
	kind := fs.String("signal", "bts", "SFC signal format: bts, cim or cim-legacy (no SFC TLV)")
	sigs := fs.String("signals", "3us@500ns,0@2us", "SFC signals: PAUSE@TIME[:FLOW],...")
	pfcs := fs.String("pfc", "", "PFC frames for the data class: QUANTA@TIME,... (needs scheme pfc)")
	inbound := fs.Int("inbound", 2, "data frames from remote host 0 to the host, delivered to the host side")
	bfcs := fs.String("bfc", "", "BFC pause frames: SEQ:FLOW+FLOW...@TIME,... (an empty flow list clears the filter; needs scheme bfc)")
	cards := fs.String("postcards", "", "PB-FS CC-postcards about a flow: TIME[:FLOW],... (needs scheme pbfs)")
	dstp := fs.String("dstpause", "", "Floodgate dst-pause frames for a flow's destination: PAUSE@TIME[:FLOW],... (PAUSE 65535us = until resumed; needs scheme floodgate)")
	return func() (*Vector, error) {
		if *flows < 1 || *flows > 64 {
			return nil, fmt.Errorf("%w: --flows %d: want 1..64", ErrUsage, *flows)
		}
		if *frames < 0 || *inbound < 0 {
			return nil, fmt.Errorf("%w: --frames %d --inbound %d: want 0 or more", ErrUsage, *frames, *inbound)
		}
		if err := budget(float64(*flows)*float64(*frames)+float64(*inbound), "--flows × --frames and --inbound"); err != nil {
			return nil, err
		}
		specs, err := parseSignals(*sigs)
		if err != nil {
			return nil, err
		}
		def := "sfc"
		if *kind != "bts" {
			def = "cim"
		}
		d := g.doc("nic", def)
		nicMAC, torMAC := HostMAC(0), SwitchMAC(0)
		self := Host(0, g.ipv6)
		d.ports = []port{{id: 0, speed: g.speed.s, mac: nicMAC, peer: torMAC, prefixes: []string{self.String() + fmt.Sprintf("/%d", self.BitLen())}}}
		d.desc = g.desc
		if d.desc == "" {
			d.desc = fmt.Sprintf("NIC, %d flows of %d frames, %s signals %s, schemes %v", *flows, *frames, *kind, *sigs, d.schemes)
		}
		fl := make([]*flow, *flows)
		triggers := make([][]byte, *flows)
		var out []Frame
		for j := range fl {
			fl[j] = flowTo(g, 0, Remote(j, g.ipv6), nicMAC, torMAC, j)
			tf := *fl[j]
			if triggers[j], err = tf.next(); err != nil {
				return nil, err
			}
		}
		// The host offers frame k of every flow in turn.
		for k := 0; k < *frames; k++ {
			for j := range fl {
				b, err := fl[j].next()
				if err != nil {
					return nil, err
				}
				out = append(out, Frame{Port: device.HostPort, T: offer.v, Data: b, Step: fmt.Sprintf("host offers flow %d frame %d", j, k)})
			}
		}
		for k, s := range specs {
			if s.flow >= *flows {
				return nil, fmt.Errorf("%w: signal %d names flow %d of %d", ErrUsage, k, s.flow, *flows)
			}
			b, err := signalFrame(*kind, triggers[s.flow], remoteSignal(s.pauseUS, true), torMAC, nicMAC)
			if err != nil {
				return nil, err
			}
			out = append(out, Frame{Port: device.WirePort, T: s.t, Data: b, Step: fmt.Sprintf("%s pause %dus for flow %d", *kind, s.pauseUS, s.flow)})
		}
		if *pfcs != "" {
			ps, err := parseQuanta(*pfcs)
			if err != nil {
				return nil, err
			}
			prio := uint8(g.class(g.dscp))
			for _, s := range ps {
				var times [8]uint16
				times[prio] = s.quanta
				b := pfc.AppendFrame(nil, torMAC, 1<<prio, times)
				out = append(out, Frame{Port: device.WirePort, T: s.t, Data: b, Step: fmt.Sprintf("PFC priority %d, %d quanta", prio, s.quanta)})
			}
		}
		if *bfcs != "" {
			fr, err := bfcFrames(*bfcs, fl, torMAC)
			if err != nil {
				return nil, err
			}
			out = append(out, fr...)
		}
		if *cards != "" {
			fr, err := postcardFrames(*cards, triggers, torMAC, nicMAC)
			if err != nil {
				return nil, err
			}
			out = append(out, fr...)
		}
		if *dstp != "" {
			ps, err := parseSignals(*dstp)
			if err != nil {
				return nil, err
			}
			for _, p := range ps {
				if p.flow >= len(fl) {
					return nil, fmt.Errorf("%w: dst-pause names flow %d of %d", ErrUsage, p.flow, len(fl))
				}
				b, err := floodgate.AppendDstPause(nil, torMAC, fl[p.flow].dst, p.pauseUS)
				if err != nil {
					return nil, err
				}
				out = append(out, Frame{Port: device.WirePort, T: p.t, Data: b, Step: fmt.Sprintf("dst-pause %dus for flow %d's destination", p.pauseUS, p.flow)})
			}
		}
		in := flowTo(g, 0, self, torMAC, nicMAC, 100)
		in.src = Remote(0, g.ipv6)
		for k := 0; k < *inbound; k++ {
			b, err := in.next()
			if err != nil {
				return nil, err
			}
			out = append(out, Frame{Port: device.WirePort, T: int64(k) * 1000, Data: b, Step: "inbound data for the host"})
		}
		return d.finish(out)
	}
}
