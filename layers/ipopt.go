// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"encoding/binary"
	"strconv"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// OptionFault is the first malformed option of an IPv4 header or of an
// IPv6 Hop-by-Hop or Destination Options header (WarnOption): an option
// whose length is under its minimum or runs past the options, or whose
// length octet is missing. The header's own length (IHL, Hdr Ext Len) is
// valid, so its extent is known: the layer decoded, and what follows it
// decodes, as Wireshark has it; the options are not read past this one.
type OptionFault struct {
	// Header names the header the option is in: "ipv4", "hopopts" or
	// "dstopts".
	Header string
	// Offset is the option's first octet (its type): from the start of
	// the IPv4 header, or for the IPv6 headers from the start of the IPv6
	// payload, where IPv6ExtHeader.Offset counts from.
	Offset int
	// Type is the option's type octet.
	Type uint8
	// Length is the option's length octet, -1 when the options end
	// before it.
	Length int
	// Left is how many octets the options hold from the option's type
	// octet on.
	Left int
}

// AppendText appends what is wrong and where, e.g. "ipv4 option type 192
// at offset 20: length 0, less than 2", without allocating.
func (o *OptionFault) AppendText(dst []byte) []byte {
	dst = append(dst, o.Header...)
	dst = append(dst, " option type "...)
	dst = strconv.AppendUint(dst, uint64(o.Type), 10)
	dst = append(dst, " at offset "...)
	dst = strconv.AppendInt(dst, int64(o.Offset), 10)
	dst = append(dst, ": "...)
	switch {
	case o.Length < 0:
		return append(dst, "no length octet, the options end"...)
	case o.Header == "ipv4" && o.Length < 2:
		// RFC 791 §3.1: the length counts the type and length octets.
		dst = append(dst, "length "...)
		dst = strconv.AppendInt(dst, int64(o.Length), 10)
		return append(dst, ", less than 2"...)
	}
	dst = append(dst, "length "...)
	dst = strconv.AppendInt(dst, int64(o.Length), 10)
	dst = append(dst, " runs past the header ("...)
	if o.Header != "ipv4" {
		// RFC 8200 §4.2: the length counts the option's data only.
		dst = strconv.AppendInt(dst, int64(o.Length)+2, 10)
		dst = append(dst, " octets with type and length, "...)
		dst = strconv.AppendInt(dst, int64(o.Left), 10)
		return append(dst, " left)"...)
	}
	dst = strconv.AppendInt(dst, int64(o.Left), 10)
	return append(dst, " octets left)"...)
}

// String returns AppendText's text.
func (o OptionFault) String() string { return string(o.AppendText(nil)) }

// ipv4Options walks the options of an IPv4 header (opts: its octets 20 to
// IHL×4) as gopacket's IPv4 decoder does (End of Options List ends the
// walk; the rest is padding), appending each whole option to *into when
// into is not nil. It returns the first malformed option, with ok false:
// its length octet missing, under 2 or past opts, which gopacket refuses.
func ipv4Options(opts []byte, into *[]layers.IPv4Option) (fault OptionFault, ok bool) {
	for i := 0; i < len(opts); {
		t, n := opts[i], 1
		if t > 1 { // not End of Options List nor No Operation
			if i+2 > len(opts) {
				return OptionFault{Header: "ipv4", Offset: 20 + i, Type: t, Length: -1, Left: len(opts) - i}, false
			}
			if n = int(opts[i+1]); n < 2 || i+n > len(opts) {
				return OptionFault{Header: "ipv4", Offset: 20 + i, Type: t, Length: n, Left: len(opts) - i}, false
			}
		}
		if into != nil {
			o := layers.IPv4Option{OptionType: t, OptionLength: uint8(n)}
			if n > 1 {
				o.OptionData = opts[i+2 : i+n]
			}
			*into = append(*into, o)
		}
		if t == 0 {
			break
		}
		i += n
	}
	return OptionFault{}, true
}

// decodeOptions decodes a header with options (IHL over 5, whole in
// data). Where gopacket's decoder would refuse an option (ipv4Options),
// it decodes the header as Wireshark does instead: by its IHL (its
// extent is known), with the options before the faulty one, and
// WarnOption with Option saying which and where; the payload decodes on.
// Otherwise, and for any other fault, gopacket's decoder runs. The walk
// comes first rather than after gopacket fails: gopacket's error
// allocates, and it calls the frame truncated.
func (ip *IPv4) decodeOptions(data []byte, df gopacket.DecodeFeedback) error {
	ihl := int(data[0]&0x0f) * 4
	length := int(binary.BigEndian.Uint16(data[2:]))
	if length == 0 {
		length = len(data) // gopacket's reading: a TSO packet
	}
	fault, ok := ipv4Options(data[20:ihl], nil)
	if ok || length < ihl { // valid options, or gopacket's "IP header length > IP length"
		return ip.IPv4.DecodeFromBytes(data, df)
	}
	if len(data) > length {
		data = data[:length]
	} else if len(data) < length {
		df.SetTruncated()
	}
	l := &ip.IPv4
	opts := l.Options[:0]
	ipv4Options(data[20:ihl], &opts)
	*l = layers.IPv4{Version: 4, IHL: data[0] & 0x0f, TOS: data[1], Length: uint16(min(length, 0xffff)),
		Id: binary.BigEndian.Uint16(data[4:]), TTL: data[8], Protocol: layers.IPProtocol(data[9]),
		Checksum: binary.BigEndian.Uint16(data[10:]), SrcIP: data[12:16], DstIP: data[16:20], Options: opts}
	ff := binary.BigEndian.Uint16(data[6:])
	l.Flags, l.FragOffset = layers.IPv4Flag(ff>>13), ff&0x1fff
	l.Contents, l.Payload = data[:ihl], data[ihl:]
	ip.Warnings, ip.Option = WarnOption, fault
	return nil
}
