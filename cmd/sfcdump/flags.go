// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gopacket/gopacket"

	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/pcapio"
)

// DefaultLinkSpeed is the link speed assumed for an interface no
// --link-speed names: 100 Gb/s.
const DefaultLinkSpeed = 100e9

// linkSpeeds maps interfaces (by name or index) to speeds in bit/s.
type linkSpeeds struct {
	all    uint64
	byName map[string]uint64
	// flagOf names the flag that gave each byName entry, and used the
	// entries an interface asked for (unmatched reports the others).
	flagOf map[string]string
	used   map[string]bool
	// conflict is the first interface given two speeds, by name and by
	// index (conflicts).
	conflict *string
}

// unmatched returns a usage error naming the --link-speed or --speed
// entries (by interface name or index) that no interface of the inputs
// had: a typo would otherwise leave pause times at the default speed
// without a word.
func (l linkSpeeds) unmatched() error {
	if err := l.conflicts(); err != nil {
		return err
	}
	var bad []string
	for name := range l.byName {
		if !l.used[name] {
			bad = append(bad, "--"+l.flagOf[name]+" "+dissect.Escape(name)+"=...")
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return usagef("%s: no interface of the input has that name or index", strings.Join(bad, ", "))
}

// given returns the speed the flags give interface i named name: the
// --link-speed (or --speed) that names it or its index, else the one
// given for every interface; ok is false when none does.
//
// An interface named both by its name and by its index (port1=10G and
// 1=25G for interface 1, port1) takes its name's and both entries count
// as used; speeds that differ are reported by conflicts.
func (l linkSpeeds) given(i int, name string) (bps uint64, ok bool) {
	idx := strconv.Itoa(i)
	byName, okName := l.byName[name]
	byIdx, okIdx := l.byName[idx]
	if okName && okIdx && byName != byIdx && name != idx && l.conflict != nil && *l.conflict == "" {
		*l.conflict = fmt.Sprintf("--%s %s=... and --%s %s=... give interface %s (index %s) two speeds",
			l.flagOf[name], dissect.Escape(name), l.flagOf[idx], idx, dissect.Escape(name), idx)
	}
	if okName {
		l.used[name] = true
	}
	if okIdx {
		l.used[idx] = true
	}
	switch {
	case okName:
		return byName, true
	case okIdx:
		return byIdx, true
	}
	return l.all, l.all != 0
}

// conflicts returns a usage error when an interface was given two speeds,
// by its name and by its index.
func (l linkSpeeds) conflicts() error {
	if l.conflict == nil || *l.conflict == "" {
		return nil
	}
	return usagef("%s", *l.conflict)
}

// speedSpec is one --link-speed or --speed value, with the flag that gave
// it (for errors).
type speedSpec struct{ flag, val string }

// speedFlag is a repeatable flag whose values go, in the order given, to
// a list that --link-speed and --speed share.
type speedFlag struct {
	list *[]speedSpec
	name string
}

func (v *speedFlag) String() string {
	var vals []string
	for _, s := range *v.list {
		if s.flag == v.name {
			vals = append(vals, s.val)
		}
	}
	if len(vals) == 0 {
		return "" // no "(default [])" in the help
	}
	return "[" + strings.Join(vals, ",") + "]"
}

func (v *speedFlag) Set(s string) error {
	*v.list = append(*v.list, speedSpec{v.name, s})
	return nil
}

func (v *speedFlag) Type() string { return "stringArray" }

// parseLinkSpeeds reads --link-speed and --speed values: SPEED or
// IFACE=SPEED. An error names the flag and the value as given, escaped.
func parseLinkSpeeds(specs []speedSpec) (linkSpeeds, error) {
	var l linkSpeeds
	for _, spec := range specs {
		s := spec.val
		iface, sp, named := strings.Cut(s, "=")
		if !named {
			sp = iface
		}
		bps, err := parseSpeed(sp)
		if err != nil {
			return l, fmt.Errorf("--%s %s: %w", spec.flag, dissect.Escape(s), err)
		}
		if !named {
			if l.all != 0 {
				return l, fmt.Errorf("--%s %s: a speed for every interface is given twice", spec.flag, dissect.Escape(s))
			}
			l.all = bps
			continue
		}
		if iface == "" {
			return l, fmt.Errorf("--%s %s: no interface before '='", spec.flag, dissect.Escape(s))
		}
		if _, twice := l.byName[iface]; twice {
			return l, fmt.Errorf("--%s %s: interface %s is given a speed twice", spec.flag, dissect.Escape(s), dissect.Escape(iface))
		}
		if l.byName == nil {
			l.byName, l.flagOf, l.used, l.conflict = map[string]uint64{}, map[string]string{}, map[string]bool{}, new(string)
		}
		l.byName[iface], l.flagOf[iface] = bps, spec.flag
	}
	return l, nil
}

// parseSpeed reads 100G, 25G, 2.5G, 400M, 100Gb/s, 100Gbps or a number of
// bit/s, from 1 Mb/s to 1000 Tb/s (pcapio.MinLinkSpeed, MaxLinkSpeed: the
// if_speed of a capture is taken in the same range).
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
	if err != nil || !(v*mult >= 1) {
		return 0, fmt.Errorf("%q is not a link speed like 100G, 25G or 400M", s)
	}
	if v*mult > pcapio.MaxLinkSpeed {
		return 0, fmt.Errorf("%q is above 1000T, the fastest link speed taken", s)
	}
	if v*mult < pcapio.MinLinkSpeed {
		// A number without a unit is bit/s: "100" meant 100G more often
		// than 100 bit/s, at which a PAUSE lasts 93 hours.
		if mult == 1 {
			return 0, fmt.Errorf("%q is %s bit/s, below 1 Mb/s: give a unit (100G, 25G, 400M)", s, strconv.FormatFloat(v*mult, 'f', -1, 64))
		}
		return 0, fmt.Errorf("%q is below 1 Mb/s, slower than any link these frames cross", s)
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
		for _, r := range regs {
			if r.port == uint16(n) && r.lt != lt {
				return fmt.Errorf("--decode-as %s: UDP port %d is given two protocols", s, n)
			}
		}
		regs = append(regs, reg{uint16(n), lt})
	}
	for _, r := range regs {
		layers.RegisterUDPPort(r.port, r.lt)
	}
	return nil
}
