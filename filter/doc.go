// Package filter is sfcdump's display filter language: Wireshark-style
// expressions over the field names of package dissect (wire.md's field
// table, plus eth, ip, udp, frame and the extra byte fields).
//
//	bts                                 protocol present
//	bts.pause_us > 10 && flow.qp == 0xd2
//	pfc.c3 && pfc.time_c3 == 0xffff     a bare boolean field tests true
//	ip.src == 10.0.0.0/24 || ip.dst == fd00::2
//	cim.sa == 02:00:00:00:00:01
//	bts.origin == cache                 origins by name or number
//	bts.quote contains 12:b7            bytes, hex with or without colons
//	bth.payload contains "hello"        or a quoted string's octets
//	!(bth || pfc) and not frame.malformed
//
// Grammar, loosest first:
//
//	expr    = and { ("||" | "or") and }
//	and     = unary { ("&&" | "and") unary }
//	unary   = ("!" | "not") unary | "(" expr ")" | test
//	test    = PROTO | FIELD | FIELD op VALUE
//	op      = "==" | "!=" | "<" | "<=" | ">" | ">=" | "contains"
//	          (also eq ne lt le gt ge)
//
// Values are read according to the field's kind: numbers in decimal or hex
// (0x..), IPv4 and IPv6 addresses or prefixes (== and != only), MAC
// addresses, true/false (or 1/0), origin names (queue, cache, estimate),
// byte strings as hex (01:02:03, 01-02-03 or 010203) or quoted text, and
// times (frame.time_epoch) as seconds with a fraction.
//
// Semantics follow Wireshark for fields with several values (Floodgate
// entries): a comparison is true when any value satisfies it, except !=,
// which is true when the field is present and no value equals the operand
// (Wireshark 3.6 and later). A comparison on a field the frame does not hold
// is false. Unlike Wireshark, a bare boolean field (bth.fecn) tests that the
// field is true; name the protocol to test presence.
//
// Compile checks the whole expression before any frame is read and returns
// a *SyntaxError with the 1-based column of the offending token. A compiled
// Filter evaluates a frame without allocating; it keeps scratch space, so
// it is not safe for concurrent use.
package filter
