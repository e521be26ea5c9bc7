// SPDX-License-Identifier: Apache-2.0

package main

import (
	"strconv"

	glayers "github.com/gopacket/gopacket/layers"

	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/pcapio"
)

// decodeFrame decodes fr by its interface's link type (Ethernet, Linux
// SLL or SLL2, raw IP: pcapio.SupportedLink). A frame that names none (a
// live capture's) is Ethernet.
func decodeFrame(p *layers.Parser, fr *pcapio.Frame) error {
	if fr.LinkType == glayers.LinkTypeEthernet || fr.LinkType == glayers.LinkTypeNull {
		return p.Decode(fr.Data)
	}
	return p.DecodeLink(fr.LinkType, fr.Data)
}

// speedOf returns the speed of interface i named name in bit/s: the
// --link-speed (or --speed) that names it, else the one given for every
// interface, else the capture's own (pcapng if_speed, captured; 0 when
// absent), else DefaultLinkSpeed.
func (l linkSpeeds) speedOf(i int, name string, captured uint64) uint64 {
	if _, ok := l.byName[name]; ok || l.all != 0 || captured == 0 {
		return l.of(i, name)
	}
	if _, ok := l.byName[strconv.Itoa(i)]; ok {
		return l.of(i, name)
	}
	return captured
}

// capturedSpeed returns src's interface i's speed from the capture (0
// when it does not say).
func (s *source) capturedSpeed(i int) uint64 {
	if s.ifSpeed == nil {
		return 0
	}
	return s.ifSpeed(i)
}

// knownSpeed returns the speed of src's interface i that a -w capture
// records as its if_speed: the one --link-speed (or --speed) gives it,
// else the capture's own; 0 (none written) when neither says, rather than
// DefaultLinkSpeed, which is an assumption.
func (s *source) knownSpeed(l linkSpeeds, i int) uint64 {
	name := s.ifaceName(i)
	_, byRaw := l.byName[s.raw[i]]
	_, byName := l.byName[name]
	_, byIndex := l.byName[strconv.Itoa(i)]
	if l.all != 0 || byName || byIndex || (byRaw && s.raw[i] != "") {
		return s.speedOf(l, i)
	}
	return s.capturedSpeed(i)
}
