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
	var err error
	if fr.LinkType == glayers.LinkTypeEthernet || fr.LinkType == glayers.LinkTypeNull {
		err = p.Decode(fr.Data)
	} else {
		err = p.DecodeLink(fr.LinkType, fr.Data)
	}
	if err != nil && len(fr.Data) < fr.Len {
		err = cutByCapture(p, err, len(fr.Data))
	}
	return err
}

// cutByCapture: a layer whose length field points past the data
// (ErrLength), or whose quote is too short to name a flow (a BTS's,
// postcard's or CIM's quote runs to the packet's end), when its data ran
// to the end of what the capture kept, of a frame the capture cut (caplen
// < len), was cut by the capture, not lied to by the field nor sent
// short: the error becomes ErrTruncated, as tshark says "packet size
// limited during capture", with the layer's words kept.
func cutByCapture(p *layers.Parser, err error, capLen int) error {
	de, ok := err.(*layers.DecodeError)
	if !ok || de.Err != layers.ErrLength && de.Err != layers.ErrQuoteTooShort || p.FailedAt+p.FailedLen != capLen {
		return err
	}
	if de.Err == layers.ErrQuoteTooShort {
		de = &layers.DecodeError{Layer: de.Layer, Field: de.Field, Offset: de.Offset, Err: de.Err, Detail: "quote: " + de.Detail}
	}
	detail := "the capture kept " + strconv.Itoa(capLen) + " octets of the frame"
	if de.Detail != "" {
		detail = de.Detail + "; " + detail
	}
	return &layers.DecodeError{Layer: de.Layer, Field: de.Field, Offset: de.Offset, Err: layers.ErrTruncated, Detail: detail}
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
