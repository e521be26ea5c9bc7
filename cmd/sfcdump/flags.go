// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gopacket/gopacket"

	"github.com/opensfc/sfc/layers"
)

// DefaultLinkSpeed is the link speed assumed for an interface no
// --link-speed names: 100 Gb/s.
const DefaultLinkSpeed = 100e9

// linkSpeeds maps interfaces (by name or index) to speeds in bit/s.
type linkSpeeds struct {
	all    uint64
	byName map[string]uint64
}

// of returns the speed of interface i named name.
func (l linkSpeeds) of(i int, name string) uint64 {
	if s, ok := l.byName[name]; ok {
		return s
	}
	if s, ok := l.byName[strconv.Itoa(i)]; ok {
		return s
	}
	if l.all != 0 {
		return l.all
	}
	return DefaultLinkSpeed
}

// parseLinkSpeeds reads --link-speed values: SPEED or IFACE=SPEED.
func parseLinkSpeeds(specs []string) (linkSpeeds, error) {
	var l linkSpeeds
	for _, s := range specs {
		iface, sp, named := strings.Cut(s, "=")
		if !named {
			sp = iface
		}
		bps, err := parseSpeed(sp)
		if err != nil {
			return l, fmt.Errorf("--link-speed %s: %w", s, err)
		}
		if !named {
			l.all = bps
			continue
		}
		if iface == "" {
			return l, fmt.Errorf("--link-speed %s: no interface before '='", s)
		}
		if l.byName == nil {
			l.byName = map[string]uint64{}
		}
		l.byName[iface] = bps
	}
	return l, nil
}

// parseSpeed reads 100G, 25G, 2.5G, 400M, 100Gb/s, 100Gbps or a number of
// bit/s.
func parseSpeed(s string) (uint64, error) {
	t := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(s, "/s"), "ps"), "b")
	mult := 1.0
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'k', 'K':
			mult, t = 1e3, t[:n-1]
		case 'm', 'M':
			mult, t = 1e6, t[:n-1]
		case 'g', 'G':
			mult, t = 1e9, t[:n-1]
		case 't', 'T':
			mult, t = 1e12, t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	// !(v*mult >= 1) also refuses NaN, which compares false with anything.
	if err != nil || !(v*mult >= 1) || v*mult > 1e15 {
		return 0, fmt.Errorf("%q is not a link speed like 100G, 25G or 400M", s)
	}
	return uint64(v*mult + 0.5), nil
}

// decodeAsProtos are the protocols --decode-as accepts.
var decodeAsProtos = map[string]gopacket.LayerType{
	"bts": layers.LayerTypeBTS, "postcard": layers.LayerTypePostcard,
	"cim": layers.LayerTypeCIM, "bth": layers.LayerTypeBTH, "roce": layers.LayerTypeBTH,
}

// applyDecodeAs registers each udp.port==N:PROTO (or tshark's
// udp.port==N,PROTO) with the layers package.
func applyDecodeAs(specs []string) error {
	type reg struct {
		port uint16
		lt   gopacket.LayerType
	}
	var regs []reg
	for _, s := range specs {
		sel, proto, ok := strings.Cut(s, ":")
		if !ok {
			sel, proto, ok = strings.Cut(s, ",")
		}
		port, found := strings.CutPrefix(strings.ReplaceAll(sel, " ", ""), "udp.port==")
		if !ok || !found {
			return fmt.Errorf("--decode-as %s: want udp.port==N:PROTO", s)
		}
		n, err := strconv.ParseUint(port, 10, 16)
		if err != nil || n == 0 {
			return fmt.Errorf("--decode-as %s: %q is not a UDP port", s, port)
		}
		lt, ok := decodeAsProtos[strings.ToLower(strings.TrimSpace(proto))]
		if !ok {
			return fmt.Errorf("--decode-as %s: unknown protocol %q (bts, postcard, cim, bth or roce)", s, proto)
		}
		regs = append(regs, reg{uint16(n), lt})
	}
	for _, r := range regs {
		layers.RegisterUDPPort(r.port, r.lt)
	}
	return nil
}
