// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"errors"

	"github.com/gopacket/gopacket"
	glayers "github.com/gopacket/gopacket/layers"

	"github.com/opensfc/sfc/layers"
)

// Cut describes a frame cut short: the data ended inside a layer (the
// layer's decode reported it truncated), or the capture kept fewer octets
// than the frame had on the wire (caplen < len).
type Cut struct {
	// At is the offset in the frame of the first octet missing. When a
	// layer ran out of data it is where that layer's data ended (the
	// failed layer's offset plus the octets it was given), whichever
	// field the end falls in: the captured length when the capture cut
	// the frame, the end of the enclosing length (UDP, IP) when that
	// length left the layer short of its fixed header. Else, for a frame
	// the capture kept part of, it is the captured length.
	At int
	// Layer is the layer whose data ended (gopacket.LayerTypeZero when no
	// layer did), and Have the octets it was given: its fields that reach
	// past Have are absent.
	Layer gopacket.LayerType
	Have  int
	// Bogus says a length field, not the capture, ended the layer (an
	// IPv4 header length under 20 octets): its fields past Have are
	// absent as well, but the frame is whole, so it is not marked
	// truncated.
	Bogus bool
	// Short says a layer ran out of octets in a frame the capture kept
	// whole (its captured length is its length on the wire): a runt,
	// malformed, not cut by the capture. Its fields past Have are absent
	// as well, but it is not marked truncated; its error reads "frame
	// too short" where the layer says "truncated" (tshark: "Malformed
	// Packet", not "Packet size limited during capture").
	Short bool
	// UpperUnknown says the cut fell in an IPv6 packet's extension
	// headers (or right before them): its upper-layer protocol is not
	// known, and ip.proto and ipv6.nxt are absent (upperUnknown).
	UpperUnknown bool
}

// Truncated reports whether the capture cut the frame: it is marked
// "truncated at octet At" (JSON "truncated": At). A Bogus or Short cut is
// not: the frame is whole as captured.
func (c *Cut) Truncated() bool { return !c.Bogus && !c.Short }

// CutOf reports whether f was cut short, and where. Fields cut off are
// absent: Field.Values gives none, JSON writes null, the verbose tree
// leaves them out.
func CutOf(f *Frame) (Cut, bool) {
	c, ok := cutOf(f)
	if ok && f.P != nil {
		c.UpperUnknown = upperUnknown(f.P)
	}
	return c, ok
}

func cutOf(f *Frame) (Cut, bool) {
	if f.Err != nil && f.P != nil {
		p := f.P
		// Our layers return a *DecodeError as is. (errors.As makes its
		// target escape: an allocation per malformed frame in a filter.)
		de, isDE := f.Err.(*layers.DecodeError)
		// Our layers say ErrTruncated (a length field that points past the
		// data is ErrLength: the frame is whole, the field lies);
		// gopacket's say it through the decode feedback.
		if isDE && errors.Is(de.Err, layers.ErrTruncated) || !isDE && p.Truncated {
			// The first missing octet is the one after the last the
			// layer was given, not the first octet of the field the cut
			// falls in (de.Offset): a PFC cut at caplen 25 lacks octet
			// 25, not 24, where its time_c3 starts.
			return Cut{At: p.FailedAt + p.FailedLen, Layer: p.Failed, Have: p.FailedLen, Short: f.CapLen >= f.Len}, true
		}
		if isDE && p.Failed == glayers.LayerTypeIPv4 && p.IPv4.Partial && errors.Is(de.Err, layers.ErrBadValue) {
			// A bogus header length: the octets it was given are all
			// there, but only the first (version, IHL) is believed.
			n := len(p.IPv4.Contents)
			if f.CapLen < f.Len {
				// The capture cut it too: marked truncated where it did.
				return Cut{At: f.CapLen, Layer: p.Failed, Have: n}, true
			}
			return Cut{At: p.FailedAt + n, Layer: p.Failed, Have: n, Bogus: true}, true
		}
	}
	if f.CapLen < f.Len {
		return Cut{At: f.CapLen}, true
	}
	return Cut{}, false
}

// cutOff reports whether field fd of f lies past the cut c.
func (fd *Field) cutOff(c *Cut) bool {
	if fd.upper && c.UpperUnknown {
		return true
	}
	if fd.tail && c.Truncated() {
		// The packet's end (the ICRC, the quoted packet's length) was
		// not captured, whichever layer the cut fell in: a BTH cut in
		// its RETH would read an ICRC from the payload's octets.
		return true
	}
	if c.Layer == gopacket.LayerTypeZero {
		// The capture kept part of the frame (caplen < len): the fields
		// at the packet's end were not captured.
		return fd.tail
	}
	if e, ok := fd.ends[c.Layer]; ok {
		return e > c.Have
	}
	return fd.end > 0 && c.Layer == fd.layer && fd.end > c.Have
}

// setIPEnds gives the IP and UDP fields where they end in each header
// (layers.IPv4, IPv6 and UDP keep the fields a cut header holds whole):
// the field get returns for each name, if any. fields.go's init calls it
// with ourField, then initWireshark with wsOwnField (ip.src is both) and
// last set, which panics on a name that is neither.
func setIPEnds(get func(name string) *Field, last bool) {
	v4, v6, udp := glayers.LayerTypeIPv4, glayers.LayerTypeIPv6, glayers.LayerTypeUDP
	field := func(name string) *Field {
		fd := get(name)
		if fd == nil && last && ourField(name) == nil {
			panic("dissect: setIPEnds: no field " + name)
		}
		return fd
	}
	for name, e := range map[string][2]int{ // IPv4 end, IPv6 end (0: not a field of it)
		"ip.version": {1, 1}, "ip.src": {16, 24}, "ip.dst": {20, 40}, "ip.dscp": {2, 2}, "ip.ecn": {2, 2},
		"ip.ttl": {9, 8}, "ip.proto": {10, 7},
		"ip.hdr_len": {1, 0}, "ip.addr": {20, 0}, "ip.dsfield": {2, 0}, "ip.dsfield.dscp": {2, 0}, "ip.dsfield.ecn": {2, 0},
		"ip.len": {4, 0}, "ip.id": {6, 0}, "ip.flags": {8, 0}, "ip.flags.rb": {8, 0}, "ip.flags.df": {8, 0}, "ip.flags.mf": {8, 0},
		"ip.frag_offset": {8, 0}, "ip.checksum": {12, 0},
		"ipv6.version": {0, 1}, "ipv6.src": {0, 24}, "ipv6.dst": {0, 40}, "ipv6.addr": {0, 40}, "ipv6.tclass": {0, 2},
		"ipv6.tclass.dscp": {0, 2}, "ipv6.tclass.ecn": {0, 2}, "ipv6.flow": {0, 4}, "ipv6.plen": {0, 6}, "ipv6.nxt": {0, 7}, "ipv6.hlim": {0, 8},
	} {
		if fd := field(name); fd != nil {
			fd.ends = map[gopacket.LayerType]int{}
			if e[0] > 0 {
				fd.ends[v4] = e[0]
			}
			if e[1] > 0 {
				fd.ends[v6] = e[1]
			}
		}
	}
	for name, e := range map[string]int{"udp.sport": 2, "udp.dport": 4, "udp.port": 4, "udp.length": 6, "udp.checksum": 8} {
		if fd := field(name); fd != nil {
			fd.layer, fd.end = udp, e
		}
	}
}

// ourField returns our field of the name, nil if there is none.
func ourField(name string) *Field { return byName[name] }

// initFieldEnds gives the fields of the fixed headers the layer they are
// in and the octet of that layer they end at: a cut before it leaves the
// field out. The BTH's ICRC is the last 4 octets of at least 16. Called
// by fields.go's init, once the fields are registered.
func initFieldEnds() {
	set := func(lt gopacket.LayerType, ends map[string]int) {
		for name, end := range ends {
			fd, ok := byName[name]
			if !ok {
				panic("dissect: initFieldEnds: no field " + name)
			}
			fd.layer, fd.end = lt, end
		}
	}
	set(glayers.LayerTypeEthernet, map[string]int{"eth.dst": 6, "eth.src": 12, "eth.type": 14})
	set(layers.LayerTypePause, map[string]int{"pause.opcode": 2, "pause.quanta": 4, "pause.pause_ns": 4})
	pfc := map[string]int{"pfc.opcode": 2, "pfc.enable_vector": 4}
	for i := 0; i < 8; i++ {
		c := string(rune('0' + i))
		pfc["pfc.c"+c] = 4
		pfc["pfc.time_c"+c] = 6 + 2*i
		pfc["pfc.pause_ns_c"+c] = 6 + 2*i
	}
	set(layers.LayerTypePFC, pfc)
	// The quote runs to the packet's end: cut by the capture, its length
	// on the wire is unknown.
	for _, name := range []string{"bth.icrc", "bth.icrc_ok", "bts.quote_len", "postcard.quote_len"} {
		byName[name].tail = true
	}
	set(layers.LayerTypeBTH, map[string]int{"bth.opcode": 1, "bth.se": 2, "bth.m": 2, "bth.padcnt": 2, "bth.tver": 2,
		"bth.pkey": 4, "bth.fecn": 5, "bth.becn": 5, "bth.destqp": 8, "bth.ackreq": 9, "bth.psn": 12,
		"bth.icrc": 16, "bth.icrc_ok": 16, "reth.va": 20, "reth.rkey": 24, "reth.dmalen": 28,
		"aeth.syndrome": 13, "aeth.msn": 16, "cnp.destqp": 8})
	set(layers.LayerTypeBTS, map[string]int{"bts.version": 1, "bts.cacheable": 1, "bts.origin": 2, "bts.pause_us": 4,
		"bts.reporter": 8, "bts.cp_port": 10, "bts.cp_queue": 11, "bts.queue_depth": 16, "bts.quote_len": 16})
	set(layers.LayerTypePostcard, map[string]int{"postcard.version": 1, "postcard.port": 4, "postcard.switch_id": 10,
		"postcard.rate_mbps": 16, "postcard.window_ns": 20, "postcard.ip_bytes": 24, "postcard.q1_bytes": 28,
		"postcard.recent_bytes": 32, "postcard.recent_marked_bytes": 36, "postcard.quote_len": 36})
	// bits_set counts the whole filter: any cut in the layer leaves it out
	// (a frame snapped after its filter keeps it: the getter asks for a
	// whole filter).
	set(layers.LayerTypeBFC, map[string]int{"bfc.version": 4, "bfc.hashes": 5, "bfc.filter_len": 8, "bfc.seq": 12, "bfc.bits_set": 1 << 30})
	set(layers.LayerTypeFGCredit, map[string]int{"fgcredit.version": 4, "fgcredit.family": 5, "fgcredit.count": 8})
	set(layers.LayerTypeFGPause, map[string]int{"fgpause.version": 4, "fgpause.family": 5, "fgpause.count": 8})
	set(layers.LayerTypeCIM, map[string]int{"cim.version": 1, "cim.add": 1, "cim.ext": 1, "cim.da": 7, "cim.sa": 13,
		"cim.vid": 15, "cim.msdu_len": 17})
	// An IPv4 AH or ESP cut short keeps the fields it holds whole
	// (layers.IPSecAH.Partial); the ICV needs the whole header.
	set(glayers.LayerTypeIPSecAH, map[string]int{"ah.next_header": 1, "ah.length": 2, "ah.spi": 8, "ah.sequence": 12,
		"ah.icv": 1 << 30})
	set(glayers.LayerTypeIPSecESP, map[string]int{"esp.spi": 4, "esp.sequence": 8})
}

// errShort is the word for ErrTruncated in a frame the capture kept whole
// (Cut.Short).
var errShort = errors.New("frame too short")

// ShownError is f's decode error as it is shown: a layer that ran out of
// octets in a frame the capture kept whole says "frame too short"
// (malformed, a runt) where it said "truncated", which is kept for a
// frame the capture cut (caplen < len); the layer's words (need N octets,
// have M) stay. Nil when f has no error.
func ShownError(f *Frame) error {
	if de, ok := f.Err.(*layers.DecodeError); ok && de.Err == layers.ErrTruncated && f.CapLen >= f.Len {
		short := *de
		short.Err = errShort
		return &short
	}
	return f.Err
}

// errorText is f's decode error as shown (ShownError).
func errorText(f *Frame) string { return ShownError(f).Error() }
