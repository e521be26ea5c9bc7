// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Parser is a ready, allocation-free decoder for Ethernet frames carrying
// any format of this package: a gopacket.DecodingLayerParser over Ethernet,
// 802.1Q, IPv4 (and an IPsec AH or ESP), IPv6, UDP and every layer here,
// plus the checks that need more than one layer (the RoCEv2 ICRC, the
// PAUSE/PFC destination MAC). Its layers are reused frame after frame:
// copy what you keep.
//
// Its Ethernet and 802.1Q layers (this package's Ethernet and Dot1Q) name
// Pause, PFC, BFC, FGCredit and FGPause directly, so Decoded lists, say,
// Ethernet then PFC; MACControl and FCExp appear only for frames those
// layers leave to them (an opcode cut short or unknown, another magic, an
// unknown subtype).
//
// A Parser is not safe for concurrent use; make one per goroutine.
type Parser struct {
	Eth        Ethernet // goes straight to Pause, PFC, BFC, FGCredit, FGPause
	Dot1Q      Dot1Q
	IPv4       IPv4
	IPv6       IPv6
	UDP        UDP
	MACControl MACControl
	Pause      Pause
	PFC        PFC
	BTH        BTH
	CIM        CIM
	BTS        BTS
	Postcard   Postcard
	FCExp      FCExp
	BFC        BFC
	FGCredit   FGCredit
	FGPause    FGPause
	Payload    gopacket.Payload

	// Decoded lists the layer types decoded from the last frame, in order.
	Decoded []gopacket.LayerType
	// Truncated says the last frame was cut short somewhere.
	Truncated bool
	// EthPartial says the last frame ended inside its Ethernet header,
	// after both addresses (12 or 13 octets): Eth holds the addresses, its
	// EtherType is 0 and not the frame's, and Ethernet is listed in
	// Decoded (and is Failed), as an IP or UDP header cut short is.
	EthPartial bool
	// Dot1QPartial says the last frame ended inside a VLAN tag, after its
	// TCI (2 or 3 octets): the tag is the last of Dot1Q.Tags, with its
	// priority, DEI and identifier, and a Type of 0 that is not the
	// frame's; Dot1Q is listed in Decoded (and is Failed).
	Dot1QPartial bool
	// Failed is the layer type whose decoding returned the last error, or
	// gopacket.LayerTypeZero. That layer holds every field decoded before
	// the error (see Layer), so nothing already decoded is lost.
	Failed gopacket.LayerType
	// FailedAt is the offset in the frame of the failed layer's first
	// octet, and FailedLen the number of octets it was given (to the end
	// of the frame or of the enclosing length); both 0 when the frame
	// decoded. A field of the failed layer that reaches past FailedLen
	// was cut off.
	FailedAt, FailedLen int

	// The layers of the less common frames, after the others so that
	// those keep their places in memory.
	IPv6Ext IPv6Ext          // the IPv6 extension headers, when there are any
	AH      IPSecAH          // an IPv4 packet's Authentication Header (IP protocol 51)
	ESP     IPSecESP         // an IPv4 packet's (or AH's) ESP header (IP protocol 50)
	SLL     layers.LinuxSLL  // a Linux cooked capture header (DecodeLink)
	SLL2    layers.LinuxSLL2 // a Linux cooked capture v2 header (DecodeLink)

	dlp *gopacket.DecodingLayerParser
	// The parsers of the other link types (DecodeLink), sharing dlp's
	// layers; made on first use.
	dlpSLL, dlpSLL2, dlpIPv4, dlpIPv6 *gopacket.DecodingLayerParser
	dlc                               *decoders
	first                             gopacket.LayerType // dlp's first layer
	// emptyNext is the next layer type of the last layer decoded when
	// its payload was empty (the data ended there), else LayerTypeZero
	// (missingNext).
	emptyNext gopacket.LayerType
}

// NewParser returns a Parser for frames that start with an Ethernet header.
func NewParser() *Parser {
	p := &Parser{Decoded: make([]gopacket.LayerType, 0, 16), dlc: new(decoders)}
	p.IPv6.Ext = &p.IPv6Ext
	for _, d := range []gopacket.DecodingLayer{&p.Eth, &p.Dot1Q, &p.IPv4, &p.IPv6, &p.IPv6Ext, &p.UDP, &p.MACControl, &p.Pause, &p.PFC,
		&p.BTH, &p.CIM, &p.BTS, &p.Postcard, &p.FCExp, &p.BFC, &p.FGCredit, &p.FGPause, &p.Payload, sllDecoder{&p.SLL}, sll2Decoder{&p.SLL2},
		&p.AH, &p.ESP} {
		p.dlc.Put(d)
	}
	p.dlp, p.first = p.newDLP(layers.LayerTypeEthernet), layers.LayerTypeEthernet
	return p
}

func (p *Parser) newDLP(first gopacket.LayerType) *gopacket.DecodingLayerParser {
	dlp := gopacket.NewDecodingLayerParser(first)
	dlp.SetDecodingLayerContainer(p.dlc)
	dlp.IgnoreUnsupported = true
	return dlp
}

// missingNext reports a frame that ends where a layer the Parser decodes
// should begin (an EtherType of IPv4 and nothing after it, an IPv6 payload
// length of 0 with UDP next): gopacket's loop stops on empty data without
// a word, where one octet more would be a truncated header. Wireshark
// calls both malformed.
//
// The last layer's next type comes from decodeLayers (emptyNext), which
// had it when the data ran out: asking the layer again through Layer's
// switch and the interface was 2% of sfcdump read.
func (p *Parser) missingNext() error {
	next := p.emptyNext
	if next == gopacket.LayerTypePayload || next == gopacket.LayerTypeZero {
		return nil // not at the end of the data, or nothing more expected
	}
	if p.Layer(p.Decoded[len(p.Decoded)-1]) == nil {
		return nil
	}
	dl, ok := p.dlc.Decoder(next)
	if !ok {
		return nil
	}
	// The layer is named as failed but was never run: run it on nothing,
	// so that what it shows is empty rather than the previous frame's
	// (an IPv6 header with Hop-by-Hop next and nothing after it showed
	// the last frame's extension headers). Every decoder refuses empty
	// data; its own error is not the one reported.
	_ = dl.DecodeFromBytes(nil, gopacket.NilDecodeFeedback)
	return &DecodeError{Layer: strings.ToLower(next.String()), Field: "header", Offset: 0, Err: ErrTruncated,
		Detail: "the data ends where its header should begin"}
}

// decodeLayers is p.dlp.DecodeLayers(data, &p.Decoded): the same
// decoders in the same order, the same feedback (p.dlp), Decoded grown as
// each layer decodes, a stop without an error at a layer type without a
// decoder (IgnoreUnsupported) or where the data ends, and a panic
// returned as gopacket returns it. The layers of the common frames are
// called directly, not through the DecodingLayer interface and the
// container (gopacket's loop was 5 % of sfcdump read).
func (p *Parser) decodeLayers(data []byte) (err error) {
	dlp := p.dlp
	dlp.Truncated = false
	defer decodePanic(&err)
	p.Decoded = p.Decoded[:0]
	p.emptyNext = gopacket.LayerTypeZero
	typ := p.first
	for {
		var next gopacket.LayerType
		switch typ {
		case layers.LayerTypeEthernet:
			if err := p.Eth.DecodeFromBytes(data, dlp); err != nil {
				return err
			}
			next, data = p.Eth.NextLayerType(), p.Eth.LayerPayload()
		case layers.LayerTypeIPv4:
			if err := p.IPv4.DecodeFromBytes(data, dlp); err != nil {
				return err
			}
			next, data = p.IPv4.NextLayerType(), p.IPv4.LayerPayload()
		case layers.LayerTypeUDP:
			if err := p.UDP.DecodeFromBytes(data, dlp); err != nil {
				return err
			}
			next, data = p.UDP.NextLayerType(), p.UDP.LayerPayload()
		case LayerTypeBTH:
			if err := p.BTH.DecodeFromBytes(data, dlp); err != nil {
				return err
			}
			next, data = p.BTH.NextLayerType(), p.BTH.LayerPayload()
		case LayerTypePFC:
			if err := p.PFC.DecodeFromBytes(data, dlp); err != nil {
				return err
			}
			next, data = p.PFC.NextLayerType(), p.PFC.LayerPayload()
		case layers.LayerTypeIPv6:
			if err := p.IPv6.DecodeFromBytes(data, dlp); err != nil {
				return err
			}
			next, data = p.IPv6.NextLayerType(), p.IPv6.LayerPayload()
		case gopacket.LayerTypePayload: // a WRITE's or SEND's data
			p.Payload = data
			next, data = gopacket.LayerTypeZero, nil
		default:
			dec, ok := p.dlc.Decoder(typ)
			if !ok {
				return nil
			}
			if err := dec.DecodeFromBytes(data, dlp); err != nil {
				return err
			}
			next, data = dec.NextLayerType(), dec.LayerPayload()
		}
		p.Decoded = append(p.Decoded, typ)
		if len(data) == 0 {
			p.emptyNext = next
			return nil
		}
		typ = next
	}
}

// decodePanic turns a decoder's panic into the error gopacket's
// DecodingLayerParser returns for it.
func decodePanic(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("panic: %v", r)
	}
}

// Link types DecodeLink knows besides Ethernet (pcapio.SupportedLink):
// gopacket names LinuxSLL (113) and Raw (101) only.
const (
	linkSLL2 layers.LinkType = 276
	linkIPv4 layers.LinkType = 228
	linkIPv6 layers.LinkType = 229
	// linkRawDLT is DLT_RAW as most systems number it, found as the link
	// type of older pcap files (libpcap writes LINKTYPE_RAW, 101, for it;
	// Wireshark reads 12 as raw IP too).
	linkRawDLT layers.LinkType = 12
	// linkRawOpenBSD is OpenBSD's DLT_RAW (14), raw IP too (tshark).
	linkRawOpenBSD layers.LinkType = 14
)

// DecodeLink decodes one frame of link type lt: Ethernet (1) as Decode
// does, a Linux cooked capture (SLL 113, SLL2 276: what `tcpdump -i any`
// writes), or a raw IP packet (101, 12 or 14 by its version nibble, 228
// IPv4, 229 IPv6). Another link type is an error. The layers after the link header
// are decoded as behind Ethernet.
func (p *Parser) DecodeLink(lt layers.LinkType, frame []byte) error {
	var dlp **gopacket.DecodingLayerParser
	var first gopacket.LayerType
	switch lt {
	case layers.LinkTypeEthernet:
		return p.Decode(frame)
	case layers.LinkTypeLinuxSLL:
		dlp, first = &p.dlpSLL, layers.LayerTypeLinuxSLL
	case linkSLL2:
		dlp, first = &p.dlpSLL2, layers.LayerTypeLinuxSLL2
	case layers.LinkTypeRaw, linkRawDLT, linkRawOpenBSD, linkIPv4, linkIPv6:
		v := uint8(0)
		if len(frame) > 0 {
			v = frame[0] >> 4
		}
		switch {
		case v == 4 && lt != linkIPv6:
			dlp, first = &p.dlpIPv4, layers.LayerTypeIPv4
		case v == 6 && lt != linkIPv4:
			dlp, first = &p.dlpIPv6, layers.LayerTypeIPv6
		case lt == linkIPv6:
			dlp, first = &p.dlpIPv6, layers.LayerTypeIPv6 // IPv6 says it is not 6
		default:
			dlp, first = &p.dlpIPv4, layers.LayerTypeIPv4 // IPv4 says it is not 4
		}
	default:
		p.Decoded = p.Decoded[:0]
		p.Truncated, p.Failed, p.FailedAt, p.FailedLen = false, gopacket.LayerTypeZero, 0, 0
		return errAt("frame", "link type", 0, ErrLinkType, fmt.Sprintf("link type %d (%v)", uint32(lt), lt))
	}
	if *dlp == nil {
		*dlp = p.newDLP(first)
	}
	// Decode with that parser: swapped in, so that Decode, the common
	// path, makes no extra call.
	eth := p.dlp
	p.dlp, p.first = *dlp, first
	err := p.Decode(frame)
	p.dlp, p.first = eth, layers.LayerTypeEthernet
	return err
}

// Decode decodes one frame. Layers decoded before an error stay valid and
// are listed in Decoded. Protocols the Parser does not know end decoding
// without an error (their types are not listed).
func (p *Parser) Decode(frame []byte) error {
	p.Dot1Q.NTags, p.UDP.Partial, p.EthPartial, p.Dot1QPartial = 0, false, false, false
	err := p.decodeLayers(frame)
	if err == nil && len(p.Decoded) > 0 {
		err = p.missingNext()
	}
	p.Truncated = p.dlp.Truncated
	p.Failed = gopacket.LayerTypeZero
	if p.FailedLen|p.FailedAt != 0 { // a load, not two stores, in the common case
		p.FailedAt, p.FailedLen = 0, 0
	}
	if err != nil {
		p.Failed = p.first
		data := frame
		if n := len(p.Decoded); n > 0 {
			prev := p.Layer(p.Decoded[n-1])
			p.Failed = prev.NextLayerType()
			data = prev.LayerPayload()
		}
		// The payload is a slice of the frame: its start is where the
		// capacities differ.
		p.FailedLen, p.FailedAt = len(data), cap(frame)-cap(data)
		if p.FailedAt < 0 || p.FailedAt > len(frame) {
			p.FailedAt = len(frame) - len(data)
		}
		if p.Failed == layers.LayerTypeUDP && len(data) > 0 && len(data) < 8 {
			// gopacket refuses a UDP header cut short; the fields it
			// holds whole are kept (below).
			err, p.Truncated = p.UDP.partial(data, p.dlp), true
		}
		if p.Failed == layers.LayerTypeEthernet && len(data) >= 12 && len(data) < 14 {
			// So does it an Ethernet header cut after its addresses.
			err, p.Truncated, p.EthPartial = p.Eth.partial(data, p.dlp), true, true
		}
		if p.Failed == layers.LayerTypeDot1Q && len(data) >= 2 && len(data) < 4 {
			// And a VLAN tag cut after its TCI (its TPID is set below,
			// with the others').
			err, p.Truncated, p.Dot1QPartial = p.Dot1Q.partial(data, p.dlp), true, true
		}
		var de *DecodeError
		if !errors.As(err, &de) {
			// gopacket's own layers (Ethernet, IPv4, IPv6, UDP...) say
			// what is wrong but not where.
			err = &LayerError{Layer: p.Failed, At: p.FailedAt, Err: err}
		}
		// An IP or UDP header cut short keeps the fields it holds whole:
		// the layer is listed, its missing fields are past the cut
		// (dissect's field ends), as Wireshark shows them.
		switch {
		case p.Failed == layers.LayerTypeIPv4 && p.IPv4.Partial,
			p.Failed == layers.LayerTypeIPv6 && p.IPv6.Partial,
			p.Failed == layers.LayerTypeUDP && p.UDP.Partial,
			p.Failed == layers.LayerTypeEthernet && p.EthPartial,
			p.Failed == layers.LayerTypeDot1Q && p.Dot1QPartial:
			p.Decoded = append(p.Decoded, p.Failed)
		}
	}
	if p.Dot1Q.NTags > 0 {
		// Each tag's TPID is the EtherType before it: the link header's
		// for the first, the tag before's for the others.
		tp := layers.EthernetTypeDot1Q
		switch p.first {
		case layers.LayerTypeEthernet:
			tp = p.Eth.EthernetType
		case layers.LayerTypeLinuxSLL:
			tp = p.SLL.EthernetType
		case layers.LayerTypeLinuxSLL2:
			tp = p.SLL2.ProtocolType
		}
		for i := range min(p.Dot1Q.NTags, len(p.Dot1Q.Tags)) {
			t := &p.Dot1Q.Tags[i]
			t.TPID, tp = tp, t.Type
		}
	}
	var netHdr []byte
	for _, t := range p.Decoded {
		switch t {
		case layers.LayerTypeIPv4:
			netHdr = p.IPv4.Contents
		case layers.LayerTypeIPv6:
			netHdr = p.IPv6.Contents
			if p.IPv6.ext {
				// wire.md §3.3 masks the fixed header's mutable fields
				// only; Hop-by-Hop options and a routing header's
				// Segments Left change in flight too, so the ICRC is not
				// checked behind extension headers (docs/decisions.md).
				netHdr = nil
			}
		case layers.LayerTypeIPSecAH:
			// Nor behind an IPv4 AH: the IPv4 header then names AH, not
			// UDP, and counts it in its length; no spec says what the
			// ICRC covers (docs/decisions.md).
			netHdr = nil
		case LayerTypeBTH:
			if netHdr != nil {
				p.BTH.VerifyICRC(netHdr, p.UDP.Contents)
			}
		case LayerTypePause:
			// The destination check needs this frame's Ethernet (a
			// cooked capture has none).
			if p.first == layers.LayerTypeEthernet && !IsMACControlDst(p.Eth.DstMAC) {
				p.Pause.Warnings |= WarnDestMAC
			}
		case LayerTypePFC:
			if p.first == layers.LayerTypeEthernet && !IsMACControlDst(p.Eth.DstMAC) {
				p.PFC.Warnings |= WarnDestMAC
			}
		}
	}
	return err
}

// IPProtocol returns the upper-layer protocol of the last frame's IP
// packet: IPv4's Protocol, or the Next Header after an IPv4 AH or after
// the IPv6 extension headers (50 when they end in ESP); 0 when the frame
// has no IP layer. The second result is false when there is no IP layer.
// (IPv4's own Protocol field, 51 for an AH, is p.IPv4.Protocol.)
func (p *Parser) IPProtocol() (uint8, bool) {
	proto, ok := uint8(0), false
	for _, t := range p.Decoded {
		switch t {
		case layers.LayerTypeIPv4:
			proto, ok = uint8(p.IPv4.Protocol), true
		case layers.LayerTypeIPv6:
			proto, ok = uint8(p.IPv6.NextHeader), true
		case LayerTypeIPv6Ext:
			proto = p.IPv6Ext.Proto
		case layers.LayerTypeIPSecAH:
			proto = uint8(p.AH.NextHeader)
		}
	}
	if ok && p.Failed == LayerTypeIPv6Ext {
		proto = p.IPv6Ext.Proto // the header that failed
	}
	return proto, ok
}

// Has reports whether the last frame decoded a layer of type t.
func (p *Parser) Has(t gopacket.LayerType) bool {
	for _, d := range p.Decoded {
		if d == t {
			return true
		}
	}
	return false
}

// Layer returns the Parser's layer for type t, or nil when it has none.
func (p *Parser) Layer(t gopacket.LayerType) gopacket.DecodingLayer {
	switch t {
	case layers.LayerTypeEthernet:
		return &p.Eth
	case layers.LayerTypeDot1Q:
		return &p.Dot1Q
	case layers.LayerTypeIPv4:
		return &p.IPv4
	case layers.LayerTypeIPv6:
		return &p.IPv6
	case LayerTypeIPv6Ext:
		return &p.IPv6Ext
	case layers.LayerTypeIPSecAH:
		return &p.AH
	case layers.LayerTypeIPSecESP:
		return &p.ESP
	case layers.LayerTypeUDP:
		return &p.UDP
	case LayerTypeMACControl:
		return &p.MACControl
	case LayerTypePause:
		return &p.Pause
	case LayerTypePFC:
		return &p.PFC
	case LayerTypeBTH:
		return &p.BTH
	case LayerTypeCIM:
		return &p.CIM
	case LayerTypeBTS:
		return &p.BTS
	case LayerTypePostcard:
		return &p.Postcard
	case LayerTypeFCExp:
		return &p.FCExp
	case LayerTypeBFC:
		return &p.BFC
	case LayerTypeFGCredit:
		return &p.FGCredit
	case LayerTypeFGPause:
		return &p.FGPause
	case gopacket.LayerTypePayload:
		return &p.Payload
	case layers.LayerTypeLinuxSLL:
		return &p.SLL
	case layers.LayerTypeLinuxSLL2:
		return &p.SLL2
	}
	return nil
}
