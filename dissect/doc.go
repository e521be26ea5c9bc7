// SPDX-License-Identifier: Apache-2.0

// Package dissect turns a decoded frame into named fields, the one name
// space (protocol.field, wire.md's field table) that sfcdump's display
// filter, its JSON and fields output, its statistics and the Wireshark
// dissectors share.
//
// A Frame wraps a layers.Parser and the capture metadata of one frame.
// Protos lists, in wire order, the protocols the frame holds; each Proto
// lists its Fields; Field.Values appends a field's values (most fields have
// one, Floodgate entries have one per entry, optional fields none) into a
// caller's slice, so the filter and the encoders run without allocating.
//
// Besides wire.md's protocols the registry has sll (a Linux cooked capture
// header), eth (src, dst, type), ip (version, src, dst, dscp, ecn, ttl,
// proto: IPv4's protocol field, 51 for an AH, as tshark's; for IPv6 the
// upper-layer protocol, behind any extension headers), vlan (the VLAN
// tags, one entry per tag, outer first: tpid, pcp, dei, vid, etype),
// ipv6ext (the IPv6 extension headers, one entry per header with its own
// fields), ah and esp (an IPsec AH or
// ESP header, IPv4's or among IPv6's extension headers, by Wireshark's
// names: ah.next_header, ah.length, ah.spi, ah.sequence, ah.icv, esp.spi,
// esp.sequence) and udp (sport, dport), so filters can name the outer
// headers.
// pause.pause_ns and pfc.pause_ns_c0..c7 give the pause time at the
// frame's link speed (pfc.pause_ns_cN only for a class whose enable bit is
// set: another class's time does not count; pfc.time_cN is the raw
// field). A frame cut short (CutOf) leaves out the fields past the cut:
// null in JSON; a frame of a version its layer does not know (BTS,
// postcard, CIM, BFC, Floodgate) leaves out every field but the version
// (a quote of an IP version other than 4 or 6 is the quote's error
// only: the fields before it stay).
// Floodgate entries
// are the fields fgcredit.dst / fgcredit.credits and fgpause.dst /
// fgpause.pause_us, one value per entry; JSON nests them as "entries".
// VLAN tags and IPv6 extension headers are entries too, each with the
// fields it has (a Fragment header's entry has no routing_type): JSON
// writes an object per entry under "entries", the verbose tree a subtree
// per entry ("tag 1", "header 2"), and a field's values (filters, -e) are
// every entry's that has it, in order.
//
// Names added to wire.md's table, known to LookupField (so to filters and
// -T fields) but kept out of JSON and the verbose tree (ExtraFields lists
// them):
//
//	frame.number, frame.interface, frame.len, frame.caplen    capture metadata
//	frame.time (Field.Absolute), frame.time_epoch,
//	frame.time_relative, frame.time_delta                     KindTime
//	frame.interface_name, frame.comment                       KindString (JSON: the
//	                                                          frame object's
//	                                                          interface_name and
//	                                                          comments, when present)
//	frame.malformed (bool), frame.warnings (count)            decode outcome
//	bts.quote, postcard.quote                                 KindBytes: the quote
//	cim.msdu                                                  KindBytes: the encapsulated MSDU
//	bth.payload                                               KindBytes: the RoCEv2 payload
//	udp.payload                                               KindBytes: the UDP payload
//	eth.vlan, eth.pcp                                         every VLAN tag, outer first (QinQ: two)
//
// Wireshark 4.0's names for the fields both tools decode (infiniband.bth.*,
// macc.*, ipv6.*, udp.srcport, eth.addr, ...) are known to LookupField and
// LookupProto as well; WiresharkNames lists them and what they stand for.
// ip and ip.* there are Wireshark's, IPv4's alone (ipv6.* name the IPv6
// header; ip.version is in both, as in Wireshark), so filters and -T
// fields select and print what tshark does; ours, in Protos, JSON and the
// verbose tree, are either family's (OurField).
// eth.vlan and eth.pcp are every tag's (TPID 0x8100, 0x88A8 or 0x9100),
// as our vlan.* are; Wireshark's vlan, vlan.id, vlan.priority, vlan.dei
// and vlan.etype (the EtherType after the tag) are, as tshark's, the tags
// of TPID 0x8100 and 0x9100 (an 802.1ad S-tag is its ieee8021ad), and
// LookupField and LookupProto give them for vlan, vlan.dei and
// vlan.etype, names ours has too (OurField gives ours).
//
// Byte values render as colon-separated hex (12:b7:...), as tshark does.
// PAUSE and PFC quanta (Field.Quanta) show their duration at the frame's
// link speed (Frame.LinkBPS) in the verbose tree.
package dissect
