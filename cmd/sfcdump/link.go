// SPDX-License-Identifier: Apache-2.0

package main

import (
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
	if bps, ok := s.givenSpeed(l, i); ok {
		return bps
	}
	return s.capturedSpeed(i)
}
