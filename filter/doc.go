// SPDX-License-Identifier: Apache-2.0

// Package filter is sfcdump's display filter language: Wireshark 4.0's
// syntax over the field names of package dissect (wire.md's field table,
// plus eth, ip, udp, frame and the extra byte fields) and over Wireshark's
// own names for the fields both tools decode (dissect.WiresharkNames:
// infiniband.bth.*, macc.*, ipv6.*, udp.srcport, eth.addr, ...).
//
//	bts                                 protocol present
//	bts.pause_us > 10 && flow.qp == 0xd2
//	pfc.c3 && pfc.time_c3 == 0xffff     a bare boolean field of ours tests true
//	ip.src == 10.0.0.0/24 || ip.dst == fd00::2
//	cim.sa == 02:00:00:00:00:01
//	bts.origin == cache                 origins by name or number
//	bts.quote contains 12:b7            bytes, hex with or without colons
//	bth.payload contains "hello"        or a quoted string's octets
//	!(bth || pfc) and not frame.malformed
//
// and, as a tshark user writes them:
//
//	udp.dstport in {4791, 1000..1100}   sets, with ranges (also 1000 .. 1100)
//	udp.dstport not in {4791}
//	infiniband.bth.destqp == 0xd2 && !ipv6
//	macc.cbfc.enbv.c3 == 1 && macc.cbfc.pause_time.c3 > 0
//	eth.src[0:3] == 02:00:00            slices: [i:n] [i-j] [i] [:n] [i:] [-1] [0:1,5] [0 : 3]
//	frame[12:2] == 88:08                protocol slices: frame, eth, ip, ipv6, udp
//	udp contains 12:b7                  a bare protocol: its header and what it carries
//	eth.type & 0x0f00 == 0x0600         bit tests: a bare "field & mask" tests non-zero
//	eth.dst[0] & 1                      on octets too (slices, byte strings, MACs)
//	ip.src & 0.0.0.255 == 0.0.0.1       and on addresses
//	udp.payload matches "hel+o"         regular expressions (also ~), on octets, ignoring case
//	frame.interface_name > "port0"      text in order, and in set ranges {"port0".."port1"}
//	frame.time_delta < -0.5             times are signed
//	any udp.port == 4791                quantifiers: any, all (all ip.addr in {10.0.0.0/8})
//	count(vlan) == 2                    count() of a protocol: one per tag of TPID 0x8100 or 0x9100
//	!tcp && !arp                        tshark's tcp, icmp, icmpv6, arp, lldp, llc, stp: presence only
//	ip.addr !== 10.0.0.1                any_ne (also ~=); === is all_eq
//	udp.srcport == udp.dstport          a field against another
//	count(fgcredit.dst) >= 2            functions: count() and len()
//	len(udp.payload) > 40
//
// Grammar, loosest first:
//
//	expr    = and { ("||" | "or") and }
//	and     = unary { ("&&" | "and") unary }
//	unary   = ("!" | "not") unary | "(" expr ")" | test | ("any" | "all") comparison
//	test    = PROTO | operand [ op value | ["not"] "in" set ]
//	          | ("len" | "count") "(" FIELD ")" [ "&" NUMBER ] ( op value | ["not"] "in" set )
//	          | "count" "(" PROTO ")" ( op value | ["not"] "in" set )
//	comparison = a test with op value or ["not"] "in" set
//	operand = (FIELD | PROTO) [ slice ] [ ("&" | "bitwise_and") mask ]
//	mask    = a value of the operand's kind: a number, octets, an address
//	slice   = "[" range { "," range } "]"
//	set     = "{" element { [","] element } "}"     element = value | value ".." value
//	          (spaces around ".." or none, as in Wireshark 4.0)
//	value   = literal | FIELD [ slice ]
//	op      = "==" | "!=" | "===" | "!==" | "~=" | "<" | "<=" | ">" | ">="
//	          | "contains" | "matches" | "~"
//	          (also eq ne any_eq all_ne all_eq any_ne lt le gt ge)
//
// && binds tighter than ||, as in Wireshark 4.0. Values are read according
// to the operand's kind: numbers in decimal, hex (0x..), octal (0..) or
// binary (0b..) (a negative number, which an unsigned field never holds,
// compares with nothing: == < > in are false, != and === true, as in
// tshark 4.0; a number larger than the field holds, by tshark's type
// for a name tshark knows, is an error), IPv4 and IPv6 addresses or
// prefixes (== and != only),
// MAC addresses, true/false (or 1/0), origin names (queue, cache,
// estimate), byte strings as hex (01:02:03, 01-02-03 or 010203; 0x81 for
// one octet; digits are hex, so a slice == 10 is the octet 0x10) or quoted
// text, and times (frame.time_epoch, frame.time_delta) as seconds with a
// fraction, signed; frame.time takes a date and time as Wireshark 4.0 does
// ("2026-01-01 00:00:00", "Jan 1, 2026 00:00:00.5", "2026-01-01T00:00:00Z"),
// in local time unless it says UTC (Z, an offset), as tshark reads it. A slice is a byte string. Quoted strings take
// Wireshark 4.0's escapes (\xH, \xHH, \N to \NNN octal, \uHHHH,
// \UHHHHHHHH, \n, \", \\, ...) and refuse any other ("\d": write "\\d");
// r"..." is raw. Regular expressions are Go's (RE2: no backreferences or
// lookaround) matched against the value's octets, so "\xb7" matches the
// octet 0xb7 as Wireshark's PCRE2 does, and, as in Wireshark, ignore the
// case of ASCII letters unless the pattern says (?-i); contains and ==
// are case-sensitive.
//
// Semantics follow Wireshark for fields with several values (Floodgate
// entries, eth.addr, udp.port): == and the other comparisons are true when
// any value satisfies them; != (all_ne) when the field is present and no
// value equals the operand (Wireshark 3.6 and later); === (all_eq) when it
// is present and every value does; !== (any_ne) when some value does not.
// "in" is true when some value is in the set; "not in" is its negation.
// The quantifiers any and all make a comparison true when some value, or
// every value, satisfies it (all udp.port != 4791: no port is 4791). A
// comparison on a field the frame does not hold is false. Unlike
// Wireshark, a bare boolean field named by our name (bth.fecn) tests that
// the field is true; named by its Wireshark name (infiniband.bth.se) it
// tests presence, as in Wireshark. ip and every ip.* name are Wireshark's,
// IPv4's alone (dissect.LookupField): an IPv6 packet has no ip, ip.src,
// ip.ttl or ip.proto (write ipv6, ipv6.src, ipv6.hlim, ipv6.nxt, or ip ||
// ipv6 for either family); ip.version is in both, as in Wireshark
// (docs/interop.md lists the differences). Addresses of the two families
// are not ordered (ipv6.src > 10.0.1.0 is false).
//
// A mask on octets keeps the shorter of the two lengths, as in Wireshark
// (eth.dst[0:2] & 0x01 == 0x01 holds for a group address); an IPv4 mask
// leaves out IPv6 addresses, and an IPv6 one IPv4 addresses.
//
// Not implemented from Wireshark 4.0's language (each is a syntax error
// naming the column): arithmetic (+ - * / %), a field as a bit mask
// (udp.srcport & udp.dstport), a slice of a slice (eth.src[0:4][1:2]),
// functions other than len() and count(),
// the layer operator (ip.src#2), character literals ('a'), floating-point
// values and the ":"-prefixed literal. tshark 4.0 compares a masked IPv6
// address wrongly (ipv6.src & ::ff == ::3 holds for fd00::2); sfcdump
// compares the masked address.
//
// Compile checks the whole expression before any frame is read and returns
// a *SyntaxError with the 1-based column of the offending token and what
// was expected there. A compiled Filter evaluates a frame without
// allocating; it keeps scratch space, so it is not safe for concurrent
// use.
package filter
