// SPDX-License-Identifier: Apache-2.0

package filter_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/filter"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/sample"
)

// decoded returns the sample capture's frames decoded, each with its own
// parser (so they can be kept), numbered from 1.
func decoded(t testing.TB, frames []sample.Frame) []*dissect.Frame {
	t.Helper()
	var out []*dissect.Frame
	for i, sf := range frames {
		p := layers.NewParser()
		f := &dissect.Frame{Number: i + 1, Time: sample.Start.Add(time.Duration(i) * time.Microsecond),
			Interface: sf.Interface, Len: len(sf.Data), CapLen: len(sf.Data), P: p}
		f.Err = p.Decode(sf.Data)
		out = append(out, f)
	}
	return out
}

// The sample capture (sample.Frames): 1 PAUSE, 2 PFC (p3 65535, p5 0),
// 3 WRITE v4 qp d2, 4 WRITE-imm v6 qp abcd, 5 ACK v6, 6 SEND v4 FECN,
// 7 CNP v4, 8 CNP v6, 9 BTS v4 queue C 20us, 10 BTS v6 cache 12us,
// 11 BTS v4 resume estimate, 12 CIM L2, 13 CIM v4, 14 CIM v6 no TLV,
// 15 postcard v4, 16 postcard v6, 17 BFC, 18 FG credit v4 (2 entries),
// 19 FG credit v6, 20 FG dst-pause v4, 21 FG dst-pause v6.
var valid = []struct {
	expr string
	want string // matching frame numbers
}{
	{"bts", "9 10 11"},
	{"pfc", "2"},
	{"pause || pfc", "1 2"},
	{"pause or pfc", "1 2"},
	{"bts.pause_us > 10", "9 10"},
	{"bts.pause_us >= 12 && bts.pause_us <= 12", "10"},
	{"bts.pause_us == 0", "11"},
	{"bts.pause_us != 0", "9 10"},
	{"bts.pause_us < 0x14", "10 11"},
	{"bts.pause_us gt 12 and bts.cacheable", "9"},
	{"bts.origin == cache", "10"},
	{"bts.origin == 2", "11"},
	{`bts.origin == "queue"`, "9"},
	{"bts.origin != queue", "10 11"},
	{"cim.origin == queue", "12 13"},
	{"cim", "12 13 14"},
	{"cim.pause_us", "12 13"},
	{"!cim.pause_us && cim", "14"},
	{"cim.add == true && cim.vid == 100", "12"},
	{"cim.sa == 02:00:00:00:00:01", "12 13 14"},
	{"cim.da == 02-00-00-00-00-02 && cim.vid == 5", "14"},
	{"eth.dst == 01:80:c2:00:00:01", "1 2"},
	{"eth.src > 02:00:00:00:00:01", "1 2 12 17 18 19 20 21"},
	{"ip.src == 10.0.0.1", "3 6"},
	{"ip.src == 10.0.0.0/24 && bth", "3 6 7"},
	{"ipv6.dst == fd00::1", "5 8 10 14 16"},
	{"ip.version == 6 && udp.dport == 1022", "16"},
	{"flow.qp == 0xd2", "9 11 12 13 15"},
	{"flow.src == fd00::1 && bts", "10"},
	{"flow.dport == 4791 && !bts && !cim", "15 16"},
	{"bth.destqp == 0xd2 && !cnp", "3 6"},
	{"cnp.destqp == 0xabcd", "8"},
	{"cnp", "7 8"},
	{"bth.fecn", "6"},
	{"bth.becn == 1", "7 8"},
	{"bth.icrc_ok == false", ""},
	{"bth.icrc_ok", "3 4 5 6 7 8"},
	{"reth.dmalen >= 30", "3 4"},
	{"aeth.syndrome == 0x1f", "5"},
	{"pfc.c3 && pfc.time_c3 == 65535", "2"},
	{"pfc.c5 && pfc.time_c5 == 0", "2"},
	{"pfc.c0", ""},
	{"pfc.enable_vector == 0x28", "2"},
	{"pause.quanta == 0xffff", "1"},
	{"fgcredit.dst == 10.0.1.7", "18"},
	{"fgcredit.credits == 1078", "18"},
	{"fgcredit.credits != 1078", "19"},
	{"fgcredit.count == 2", "18"},
	{"fgpause.pause_us == 65535", "20"},
	{"fgpause.dst == fd00::2", "21"},
	{"bfc.seq == 42 && bfc.bits_set > 0", "17"},
	{"postcard.switch_id == 02:00:00:00:ff:01 && ip.version == 4", "15"},
	{"postcard.rate_mbps == 100000", "15 16"},
	{"bts.quote contains 12:b7", "9 10 11"},
	{"bts.quote contains 0a000001", "9 11"},
	{`bth.payload contains "hello"`, "6"},
	{"bth.payload contains ab:ab:ab", "3"},
	{"cim.msdu contains 00:00:d2", "12 13"},
	{"udp.payload contains 12b7", "9 10 11 13 14 15 16"},
	{"bts.origin contains cac", "10"},
	{"frame.number <= 3", "1 2 3"},
	{"frame.interface == 0", "3 4 6"},
	{"frame.len == 60 && eth.type == 0x8808", "1 2"},
	{"frame.time_epoch >= 1767225600.000019", "20 21"},
	{"frame.malformed", ""},
	{"!frame.malformed && frame.number == 1", "1"},
	{"((bts)) && !(bts.origin == queue || bts.origin == cache)", "11"},
	{"not bth and not (eth.type == 0x8808 or eth.type == 0x88b5) and !bts && !postcard && !cim", ""},
	{"eth.vlan", ""},
	// Wireshark 4.0's syntax and names; the frames are those tshark 4.0
	// selects from pcaps/sample.pcapng (the same frames).
	{"udp.dstport in {4791, 1022}", "3 4 5 6 7 8 15 16"},
	{"udp.dstport in {4791 1022}", "3 4 5 6 7 8 15 16"},
	{"udp.dstport in {4000..5000}", "3 4 5 6 7 8"},
	{"pfc.time_c3 in {1 .. 65535}", "2"}, // spaces around .., as Wireshark 4.0 allows
	{"pfc.time_c3 in {1 ..65535}", "2"},
	{"pfc.time_c3 in {1.. 65535}", "2"},
	{"udp.dstport in {1022, 4000 .. 5000}", "3 4 5 6 7 8 15 16"},
	{"ip.src in {10.0.0.1 .. 10.0.0.5} || ipv6.src == fd00::1", "3 4 6 7 9 11 13"},
	{"udp.dstport not in {4791}", "1 2 9 10 11 12 13 14 15 16 17 18 19 20 21"},
	{"bts.origin in {queue, estimate}", "9 11"},
	{"ip.src in {10.0.0.1..10.0.0.5}", "3 6 7 9 11 13"},
	// ip.src is IPv4's, as in Wireshark: an IPv6 packet has none, and
	// an IPv6 literal is refused (invalid, below).
	// Character constants, as Wireshark 4.0's: a number ('@' is 64), one
	// octet against octets.
	{"ip.ttl == '@'", "3 6 7 9 11 13 15"},
	{`ip.ttl == '\x40' && ip.ttl == '\100'`, "3 6 7 9 11 13 15"},
	{"udp.payload contains 'h'", "6 9 11 13 15"},
	{"ip.src > 10.0.0.1", "7 9 11 13 15"},
	{"ip.src != 10.0.0.0/16 && ip", ""},
	{"ip.src in {10.0.0.1 .. 10.0.0.5, 10.0.0.9}", "3 6 7 9 11 13"},
	{"ipv6.src >= ::", "4 5 8 10 14 16"},
	{"eth.src[0:3] == 02:00:00", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21"},
	{"eth.src[-1] == 01", "3 4 5 6 7 8 9 10 11 13 14 15 16"},
	{"eth.src[-1] == 1", "3 4 5 6 7 8 9 10 11 13 14 15 16"},
	{"eth.src[4:] == 00:01", "3 4 5 6 7 8 9 10 11 13 14 15 16"},
	{"eth.src[:1] == 02 && eth.src[1-2] == 00:00", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21"},
	{"eth.src[0:1,5] == 02:01", "3 4 5 6 7 8 9 10 11 13 14 15 16"},
	{"eth.src[5:1] > 01", "1 2 12 17 18 19 20 21"},
	{"eth.src[6:1] == 00", ""},
	{"eth.src[0 : 2] == 02:00 && eth.src[4 - 5] == 00:01 && eth.src[-2 :] == 00:01", "3 4 5 6 7 8 9 10 11 13 14 15 16"},
	// Byte strings as tshark 4.0 reads them: 0xHH is one octet, a lone
	// digit is one octet, four digits are two, and digits are hex.
	{"udp.payload[0] == 0x81", "7 8"},
	{"udp.payload[0] == 0X81 && udp.payload[0:2] == 81:00", "7 8"},
	{"udp.payload[0:2] == 0x81", ""},
	{"udp.payload[0] contains 0x81", "7 8"},
	{"eth.dst[0] == 0x01", "1 2 17 18 19 20 21"},
	{"udp.payload[0] == 10", "10 11 15 16"},
	{"frame[12:2] == 888", "1 2"},
	{"frame[12:3] == 88080", "1"},
	{"frame[12:2] == 88-8 && frame[12:4] == 8808.0001", "1"},
	{"eth.type & 0x0f00 == 0x0600", "4 5 8 10 14 16"},
	{"eth.type bitwise_and 0x0800", "1 2 3 6 7 9 11 12 13 15 17 18 19 20 21"},
	{"frame[12:2] == 88:08", "1 2"},
	{"eth[12:2] == 88:b5", "17 18 19 20 21"},
	{"udp[2:2] == 12:b7", "3 4 5 6 7 8"},
	{"ip.addr == 10.0.0.1", "3 6 7 9 11 13 15"},
	{"ip.addr != 10.0.0.1", ""},
	{"ip.addr all_ne 10.0.0.1", ""},
	{"ip.addr !== 10.0.0.1", "3 6 7 9 11 13 15"},
	{"ip.addr any_ne 10.0.0.1", "3 6 7 9 11 13 15"},
	{"ip.addr ~= 10.0.0.1", "3 6 7 9 11 13 15"},
	{"ip.addr === 10.0.0.1", ""},
	{"ip.addr any_eq 10.0.0.1", "3 6 7 9 11 13 15"},
	{"ipv6.src == fd00::/16", "4 5 8 10 14 16"},
	{"ipv6", "4 5 8 10 14 16"},
	{"ipv6.nxt == 17", "4 5 8 10 14 16"},
	{"eth.src contains 00:01", "3 4 5 6 7 8 9 10 11 13 14 15 16"},
	{`udp.payload matches "(?i)HELLO"`, "6"},
	{`udp.payload ~ "hel+o"`, "6"},
	{`frame matches "\x88\x08"`, "1 2"},
	{`frame matches r"\x88\x08"`, "1 2"},
	{`frame contains "hello"`, "6"},
	{`bts.origin matches "^ca"`, "10"},
	{"udp.srcport == udp.dstport", ""},
	{"udp.srcport != udp.dstport && ip.version == 6", "4 5 8 10 14 16"},
	{"udp.dstport == 011267", "3 4 5 6 7 8"},
	{"udp.dstport == 0b1001010110111", "3 4 5 6 7 8"},
	{"infiniband.bth.destqp == 0xd2", "3 6 7"},
	{"infiniband.bth.se", "3 4 5 6 7 8"},
	{"bth.se", ""},
	{"infiniband.reth", "3 4"},
	{"infiniband.aeth.syndrome == 0x1f", "5"},
	{"infiniband.invariant.crc", "3 4 5 6 7 8"},
	{"macc.opcode == 0x0101", "2"},
	{"macc.cbfc.enbv.c3 == 1", "2"},
	{"macc.cbfc.enbv.c0", "2"},
	{"macc.pause_time == 0xffff", "1"},
	{"macc", "1 2"},
	{"vlan", ""},
	{"frame.cap_len == 60", "1 2 18 19 20 21"},
	{"eth.addr == 01:80:c2:00:00:01", "1 2"},
	{"udp.port == 1022", "15 16"},
	{"ip.flags.df == 0 && ip.hdr_len == 20", "3 6 7 9 11 13 15"},
	{"ip.len >= 100", "3 9 11 13 15"},
	{"udp.length > 100", "3 13 14 15 16"},
	{"fgcredit.credits === 1078", ""},
	{"fgcredit.credits !== 1078", "18 19"},
	{"fgcredit.credits & 0x400", "18"},
	// Bit tests on octets and addresses, as tshark 4.0: octets & octets
	// keeps the shorter length; a bare test is true when a bit is set.
	{"eth.dst[0] & 1", "1 2 17 18 19 20 21"},
	{"eth.dst[0] & 0x01 == 0x01", "1 2 17 18 19 20 21"},
	{"eth.dst[0] bitwise_and 1 == 0", "3 4 5 6 7 8 9 10 11 12 13 14 15 16"},
	{"eth.dst[0:2] & 0x01 == 0x01", "1 2 17 18 19 20 21"},
	{"eth.dst[0:2] & 01:ff == 01", ""},
	{"eth.dst[0:2] & 01:ff == 01:80", "1 2 17 18 19 20 21"},
	{"eth.src[0:1,5] & 00:01", "3 4 5 6 7 8 9 10 11 13 14 15 16"},
	{"frame[12:2] & 80:00 == 80:00", "1 2 4 5 8 10 12 14 16 17 18 19 20 21"},
	{"eth.dst & 01:00:00:00:00:00", "1 2 17 18 19 20 21"},
	{"eth.dst & 01:00:00:00:00:00 == 01:00:00:00:00:00", "1 2 17 18 19 20 21"},
	{"udp.payload & 0x80 == 80", "7 8"},
	{"udp.payload[0:2] & ff:00 == 81:00", "7 8"},
	{"ip.src & 0.0.0.255 == 0.0.0.1", "3 6 15"}, // an IPv4 mask leaves out IPv6 addresses
	{"ip.src & 0.0.0.255 > 0.0.0.1", "7 9 11 13"},
	{"ipv6.src & ::ff == ::1", "4 16"},
	{"ipv6.src & ::ff00", ""},
	{"count(ip.addr) == 2", "3 6 7 9 11 13 15"},
	{"!count(ip.addr) == 2", "1 2 4 5 8 10 12 14 16 17 18 19 20 21"},
	{"count(infiniband.bth.destqp) == 0", ""},
	{"count(fgcredit.dst) == 2", "18"},
	{"count(fgcredit.dst) in {1, 3}", "19"},
	{"len(frame) > 100", "3 4 9 10 11 12 13 14 15 16 17"},
	{"len(ip.src) == 4", "3 6 7 9 11 13 15"},
	{"len(udp.payload) & 1", "13 14"},
	// matches is case-insensitive, as in Wireshark 4.0 (PCRE2's
	// CASELESS); (?-i) turns it off; contains stays case-sensitive.
	{`udp.payload matches "HELLO"`, "6"},
	{`udp.payload ~ "HeL+o"`, "6"},
	{`udp.payload matches "(?-i)HELLO"`, ""},
	{`udp.payload contains "HELLO"`, ""},
	{`bts.origin matches "^CA"`, "10"},
	// tshark 4.0's escapes: one to three octal digits, one or two hex.
	{`udp.payload contains "hell\157"`, "6"},
	{`udp.payload contains "\150ello"`, "6"},
	{`udp.payload contains "\x68ello"`, "6"},
	{`udp.payload contains "\x6"`, "15 16"},
	{`udp.payload contains "\1"`, "4 9 10 11 13 14 15 16"},
	// A negative number for an unsigned field: tshark 4.0 compares
	// nothing with it (== < > in false; != and === true when present).
	{"udp.dstport == -1", ""},
	{"udp.dstport != -1", "3 4 5 6 7 8 9 10 11 13 14 15 16"},
	{"udp.dstport === -1", "3 4 5 6 7 8 9 10 11 13 14 15 16"},
	{"udp.dstport !== -1", ""},
	{"udp.dstport > -1", ""},
	{"udp.dstport < -1", ""},
	{"udp.dstport in {-1, 4791}", "3 4 5 6 7 8"},
	{"udp.dstport in {-5..5000}", ""},
	{"udp.dstport not in {-1}", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21"},
	{"udp.dstport >= -0", "3 4 5 6 7 8 9 10 11 13 14 15 16"},
	{"count(ip.addr) != -0x2", "3 6 7 9 11 13 15"},
	// The width of tshark's type, not the field's bits: padcnt is an
	// FT_UINT8 of 2 bits.
	{"infiniband.bth.padcnt in {0..4}", "3 4 5 6 7 8"},
	{"ip.version == 200", ""},
	// Quantifiers, as tshark 4.0.
	{"any udp.port == 4791", "3 4 5 6 7 8"},
	{"all udp.port == 4791", ""},
	{"all udp.port != 4791", "9 10 11 13 14 15 16"},
	{"any udp.port != 4791", "3 4 5 6 7 8 9 10 11 13 14 15 16"},
	{"all udp.port ~= 4791", "9 10 11 13 14 15 16"},
	{"all udp.port > 1000", "3 4 5 6 7 8 9 10 11 13 14 15 16"},
	{"all ip.addr in {10.0.0.0/24}", "3 6 7 9 11 13"},
	{"any ip.addr in {10.0.0.1..10.0.0.2}", "3 6 7 9 11 13 15"},
	{"all ip.addr == ip.src", ""},
	{"any ip.addr == ip.src", "3 6 7 9 11 13 15"},
	{"all len(udp.payload) > 40", "3 4 9 10 11 13 14 15 16"},
	{"not all udp.port > 1000", "1 2 12 17 18 19 20 21"},
	{"all udp.port not in {1}", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21"},
	{"any udp.port not in {4791}", "1 2 9 10 11 12 13 14 15 16 17 18 19 20 21"},
	// count() of a protocol.
	{"count(udp) == 1", "3 4 5 6 7 8 9 10 11 13 14 15 16"},
	{"count(vlan) == 1", ""},
	{"count(bts) >= 1", "9 10 11"},
}

func matching(t *testing.T, f *filter.Filter, frames []*dissect.Frame) string {
	var got []string
	for _, fr := range frames {
		if f.Match(fr) {
			got = append(got, fmt.Sprint(fr.Number))
		}
	}
	return strings.Join(got, " ")
}

// wantMatches checks that expr compiles and matches exactly the frames
// want numbers (space-separated).
func wantMatches(t *testing.T, frames []*dissect.Frame, expr, want string) {
	t.Helper()
	f, err := filter.Compile(expr)
	if err != nil {
		t.Errorf("%s: %v", expr, err)
		return
	}
	if got := matching(t, f, frames); got != want {
		t.Errorf("%s: matches frames [%s], want [%s]", expr, got, want)
	}
}

func TestValid(t *testing.T) {
	frames := decoded(t, sample.Frames())
	for _, tc := range valid {
		wantMatches(t, frames, tc.expr, tc.want)
	}
}

// TestMalformed checks that a filter sees the fields decoded before a
// frame's error, and frame.malformed.
func TestMalformed(t *testing.T) {
	frames := decoded(t, sample.Malformed())
	for _, tc := range []struct{ expr, want string }{
		{"frame.malformed", "1 2 3 4 5 8"},
		{"frame.warnings > 0", "6 7 8 9"}, // 8: its IPv4 and UDP lengths count more than it holds
		{"bfc.version == 1", "9"},
		{"bth.icrc_ok == false", "6"},
		{"bts.pause_us == 5", "1"},
	} {
		f := filter.MustCompile(tc.expr)
		if got := matching(t, f, frames); got != tc.want {
			t.Errorf("%s: matches [%s], want [%s]", tc.expr, got, tc.want)
		}
	}
}

var invalid = []struct {
	expr string
	col  int
	msg  string
}{
	{"", 1, "empty filter"},
	{"   ", 4, "empty filter"},
	{"bts.pausus > 3", 1, `unknown field "bts.pausus"`},
	{"btx", 1, `unknown field or protocol "btx"`},
	{"bts.pause_us > ", 16, "expected a value"},
	{"bts.pause_us > abc", 16, "not a number"},
	{"bts.pause_us = 3", 14, "write =="},
	{"bts & pfc", 5, "write &&"},
	{"bts.pause_us & 1 & 2", 18, "unexpected \"&\""},
	{"bts && ", 8, "expression ends"},
	{"(bts || pfc", 1, "never closed"},
	{"bts || pfc)", 11, "no ( to close"},
	{"bts pfc", 5, "unexpected \"pfc\""},
	{"bts == 1", 1, "is a protocol"},
	{"ip.src == 10.0.0.300", 11, "not an IPv4 or IPv6 address"},
	{"ip.src == 10.0.0.0/33", 11, "prefix"},
	{"ip.src < 10.0.0.0/8", 8, "cannot be applied"},
	{"cim.sa == 02:00:00:00:00", 11, "not a MAC address"},
	{"bth.fecn == yes", 13, "not true, false"},
	{"bth.fecn > 0", 10, "cannot be applied"},
	{"bts.origin == nowhere", 15, "queue, cache, estimate"},
	{"bts.pause_us contains 01", 14, "cannot be applied"},
	{"bts.quote contains 1:2", 20, "two hex digits"},
	{"bts.quote contains xyz", 20, "not a byte string"},
	{"udp.payload[0] == 0x8", 19, "not a byte string"}, // 0x takes two digits,
	{"frame[12:2] == 0x8808", 16, "not a byte string"}, // for one octet only
	{"frame[12:4] == 8808:0001", 16, "two hex digits"}, // between colons, as tshark
	{"bts.origin > queue", 12, "cannot be applied"},
	{`bth.payload contains "abc`, 22, "unterminated string"},
	{"bts.pause_us == 1 && $", 22, "unexpected character"},
	{"frame.time_epoch > yesterday", 20, "seconds since the epoch"},
	{"&& bts", 1, "expected a field or protocol"},
	{"(bts pfc)", 6, "expected ) or an operator"},
	{"bts.pause_us == ==", 17, "expected a value"},
	{"udp.dstport in 4791", 16, "expected { after in"},
	{"udp.dstport in {}", 17, "empty set"},
	{"udp.dstport in {4791,", 16, "never closed"},
	{"udp.dstport in {4791, abc}", 23, `udp.dstport is a number field; "abc" is not a number`},
	{"udp.dstport in {5..x}", 17, `range "5..x"`},
	{"udp.dstport in {5 .. x}", 17, `range "5..x"`},
	{"udp.dstport in {5 .. }", 17, "a value on each side"},
	{"udp.dstport in {.. 5}", 17, "a value on each side"},
	{"bts.origin in {queue..cache}", 16, "cannot hold a range"},
	{"ip.src in {10.0.0.0/8..10.0.0.9}", 12, "not prefixes"},
	{"udp.dstport in {, 1}", 17, "expected a value"},
	{"udp.dstport in {1 ==}", 19, "expected a value, , or }"},
	{"ipv6 in {1}", 1, "is a protocol"},
	{"frame.number not 1", 14, "unexpected \"not\""},
	{"udp.dstport[0] == 12", 12, "cannot be sliced"},
	{"eth.src[0:0] == 02", 9, "positive number"},
	{"eth.src[a] == 02", 9, "not a slice range"},
	{"eth.src[2-1] == 02", 9, "from <= to"},
	{"eth.src[0:3 == 02", 13, "expected , or ]"},
	{"eth.src[0 5] == 02", 11, "expected , or ]"}, // as tshark: "0 5" is not a range
	{"eth.src[0:3", 8, "never closed"},
	{"eth.src[] == 1", 9, "expected a slice range"},
	{"eth.src[70000] == 1", 9, "not a slice range"},
	{"bts[0:2] == 01:02", 4, "does not keep"},
	{"eth.src & 0x80", 11, "not a MAC address"},
	{"bth.fecn & 1", 10, "needs a number, octets or an address"},
	{"ip.src & 10.0.0.0/8", 10, "not a prefix"},
	{`udp.payload & "A"`, 15, "expected a bit mask"},
	{"udp.payload & 0x8", 15, "not a byte string"},
	{"udp.dstport & x", 15, "bit mask"},
	{"udp.dstport &", 14, "bit mask"},
	{"udp.payload matches hello", 21, "in quotes"},
	{`udp.payload matches "("`, 21, "bad regular expression"},
	{`udp.dstport matches "x"`, 13, "cannot be applied to udp.dstport"},
	{"udp.dstport contains 01", 13, "cannot be applied"},
	{`ip.src ~ "10"`, 8, "an address field"},
	{"udp.dstport == eth.src", 16, "cannot compare udp.dstport"},
	{"ip.src > 10.0.0.0/8", 8, "with a prefix"},
	{`udp.payload contains "\xg"`, 23, `\x is not a valid character escape sequence`},
	{`udp.payload contains "\400"`, 23, `\400 is larger than 255`},
	{`udp.payload contains "\777"`, 23, `\777 is larger than 255`},
	{`frame.interface_name contains "Port\d"`, 36, `\d is not a valid character escape sequence`},
	{`udp.payload matches "\d+"`, 22, `\d is not a valid character escape sequence`},
	{`udp.payload contains "\e"`, 23, `\e is not a valid`},
	{`udp.payload contains "\u0041"`, 23, `\u0041 is not a valid universal character name`},
	{`udp.payload contains "\u12"`, 23, `\u12 is not a valid universal character name`},
	{`udp.payload contains "\ud800"`, 23, `\ud800 is not a valid universal character name`},
	{`udp.payload contains "\U00110000"`, 23, `is not a valid universal character name`},
	// Numbers too big for the field, as tshark 4.0 refuses them.
	{"frame.len == 0xFFFFFFFFFFFFFFFF", 14, `"0xFFFFFFFFFFFFFFFF" too big for frame.len, maximum 4294967295`},
	{"frame.number == 4294967296", 17, "maximum 4294967295"},
	{"frame.cap_len in {1..4294967296}", 19, "too big for frame.cap_len, maximum 4294967295"},
	{"frame.len == 18446744073709551616", 14, `"18446744073709551616" causes an integer overflow`},
	{"count(ip.addr) == 4294967296", 19, "too big for count(ip.addr), maximum 4294967295"},
	{"len(udp.payload) & 1 == 4294967296", 25, "maximum 4294967295"},
	{"udp.dstport & 0x10000", 15, `"0x10000" too big for udp.dstport, maximum 65535`},
	{"udp.dstport & 0xff == 70000", 23, `"70000" too big for udp.dstport`},
	{"udp.dstport != -70000", 16, `"70000" too big for udp.dstport, maximum 65535`},
	{"infiniband.bth.padcnt == 256", 26, "maximum 255 (8 bits)"},
	{"ipv6.flow == 0x1000000", 14, "maximum 16777215"},
	{"ipv6.tclass == 0x100000000", 16, "maximum 4294967295"},
	{"frame.time_delta < -0.0000200001", 20, "a time in seconds"},
	{"frame.time_delta == -.5", 21, "a time in seconds"},
	// Quantifiers take a comparison.
	{"all udp.port", 1, "all takes a comparison"},
	{"any udp", 1, "any takes a comparison"},
	{"any udp.port & 1", 1, "any takes a comparison"},
	{"bts.origin in {cache..queue}", 16, "cannot hold a range"},
	{"cim.origin <= queue", 12, "cannot be applied"},
	{"udp.dstport | 1", 13, "write ||"},
	{"udp.dstport === ", 17, "expected a value after ==="},
	{"infiniband.bth.foo == 1", 1, "infiniband.bth.destqp"},
	{"macc == 1", 1, "macc.opcode"},
	{"udp.dstport == 4791.0", 16, "not a number"},
	{"count(ip.addr)", 1, "cannot be tested alone"},
	{"count(ip.addr) && ip", 1, "cannot be tested alone"},
	{"len(udp.srcport) == 2", 5, "len() takes a field of octets"},
	{"upper(bts.origin) == QUEUE", 1, "unknown function"},
	{"len(bts) == 2", 5, "is a protocol"},
	{"len(eth.src[0:2]) == 2", 12, "expected ) after len(eth.src"},
	{"len() == 1", 5, "expected a field in len()"},
	{"count(nothing.here) == 1", 7, "unknown field"},
	{strings.Repeat("(", 300) + "bts" + strings.Repeat(")", 300), 257, "nests deeper"},
	{strings.Repeat("!", 300) + "bts", 257, "nests deeper"},
	// A number the field cannot hold, as tshark refuses it.
	{"udp.dstport == 70000", 16, `"70000" too big for udp.dstport, maximum 65535`},
	{"infiniband.bth.destqp == 0x1000000", 26, "maximum 16777215 (24 bits)"},
	{"udp.srcport in {1 70000}", 19, `"70000" too big`},
	{"eth.vlan == 4096", 13, "maximum 4095 (12 bits)"},
	// An address of the other family, as tshark refuses it: Wireshark's
	// ip.* is IPv4's, ipv6.* IPv6's (ours, in JSON, holds either).
	{"ip.src == fd00::1", 11, `ip.src is an IPv4 field (Wireshark's ip; IPv6 is ipv6.*): "fd00::1" is not an IPv4 address`},
	{"ip.src == ::ffff:10.0.0.1", 11, `"::ffff:10.0.0.1" is not an IPv4 address`},
	{"ip.dst == fd00::/8", 11, `"fd00::/8" is not an IPv4 prefix`},
	{"ip.addr in {10.0.0.1 fd00::1}", 22, `ip.addr is an IPv4 field`},
	{"ip.src & ffff:: == 10.0.0.0", 10, `"ffff::" is not an IPv4 address`},
	{"ipv6.src == 10.0.0.1", 13, `ipv6.src is an IPv6 field (IPv4 is ip.*): "10.0.0.1" is not an IPv6 address`},
	{"ipv6.addr == 10.0.0.0/8", 14, `"10.0.0.0/8" is not an IPv6 prefix`},
	{"ip.ttl == 'ab'", 11, "character constant 'ab' is not one octet"},
	{"ip.ttl == 'a", 11, "unterminated character constant"},
	{`ip.ttl == '\q'`, 12, `\q is not a valid character escape sequence`},
	{"ip.dst == fd00::1", 11, `is not an IPv4 address`},
	{"ip.src != fd00::/16 && ip", 11, `is not an IPv4 prefix`},
	{"ip.src < fd00::", 10, `is not an IPv4 address`},
	{"ip.src >= ::", 11, `is not an IPv4 address`},
	{"ip.src in {10.0.0.1 .. fd00::ffff}", 12, `"fd00::ffff" is not an IPv4 address`},
	{"ip.src in {10.0.0.1 .. 10.0.0.5, fd00::1}", 34, `"fd00::1" is not an IPv4 address`},
}

func TestInvalid(t *testing.T) {
	for _, tc := range invalid {
		f, err := filter.Compile(tc.expr)
		if err == nil {
			t.Errorf("%q compiled to %v; want an error", tc.expr, f)
			continue
		}
		var se *filter.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: error %T %v is not a *SyntaxError", tc.expr, err, err)
			continue
		}
		if se.Column() != tc.col || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("%q: column %d %q, want column %d containing %q", tc.expr, se.Column(), se.Msg, tc.col, tc.msg)
		}
		if !strings.Contains(se.Error(), fmt.Sprintf("column %d", tc.col)) || !strings.HasSuffix(se.Caret(), "^") {
			t.Errorf("%q: bad rendering %q / %q", tc.expr, se.Error(), se.Caret())
		}
	}
}

// TestEmpty: a filter of only spaces, tabs and line ends is no filter to
// tshark (-Y " " shows every frame), which callers learn from Empty;
// Compile refuses it (TestInvalid) and anything else is not empty.
func TestEmpty(t *testing.T) {
	for expr, want := range map[string]bool{
		"": true, " ": true, "\t": true, " \n\t ": true,
		"bts": false, " bts ": false, "()": false, `"`: false, "\"\"": false, "!": false,
	} {
		if got := filter.Empty(expr); got != want {
			t.Errorf("Empty(%q) = %v, want %v", expr, got, want)
		}
		if _, err := filter.Compile(expr); want && err == nil {
			t.Errorf("Compile(%q) takes an empty filter", expr)
		}
	}
}

func TestMatchDoesNotAllocate(t *testing.T) {
	frames := decoded(t, sample.Frames())
	f := filter.MustCompile("(bts.pause_us > 10 && flow.src == 10.0.0.0/8) || fgcredit.credits == 1078 || bts.quote contains 12:b7 || cim.sa == 02:00:00:00:00:01 || bts.origin == cache")
	noAllocs(t, f, frames)
	// Wireshark's syntax: sets, slices, masks, regular expressions,
	// field-to-field comparisons, protocol slices.
	ws := filter.MustCompile(`udp.dstport in {4791, 1000..1100} && eth.src[0:1,5] == 02:01 || ip.addr !== 10.0.0.1 || ` +
		`frame[12:2] == 88:08 || udp.payload matches "(?i)hel+o" || eth.type & 0x0f00 == 0x0600 || udp.srcport == udp.dstport || ` +
		`ip.src[-1] == 01 || ipv6.src in {fd00::/16} || fgcredit.credits === 1078 || eth.dst[0] & 1 == 1 || ` +
		`udp.payload & 80:00 || eth.dst[0:1,5] & 0x01 || eth.dst & 01:00:00:00:00:00 || ip.src & 255.255.0.0 == 10.0.0.0 || ipv6.src & ::ff`)
	noAllocs(t, ws, frames)
}

// noAllocs checks that f matches frames without allocating once its
// scratch space has grown (a first pass grows it).
func noAllocs(t *testing.T, f *filter.Filter, frames []*dissect.Frame) {
	t.Helper()
	for _, fr := range frames {
		f.Match(fr)
	}
	if allocs := testing.AllocsPerRun(100, func() {
		for _, fr := range frames {
			f.Match(fr)
		}
	}); allocs != 0 {
		t.Errorf("Match of %s allocates %.1f times per capture", f, allocs)
	}
}

func BenchmarkMatch(b *testing.B) {
	frames := decoded(b, sample.Frames())
	f := filter.MustCompile("bts.pause_us > 10 && flow.src == 10.0.0.0/8 || bth.destqp == 0xd2")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		f.Match(frames[i%len(frames)])
	}
}

// TestCaretUnderTheToken: the caret stands under the token as a terminal
// shows the escaped expression: after UTF-8 letters (one cell each) and
// escaped control bytes (as wide as their escapes), on the token's line.
func TestCaretUnderTheToken(t *testing.T) {
	for _, c := range []struct{ expr, want, msg string }{
		{"pfc && ü", "pfc && ü\n       ^", `unexpected character 'ü'`},
		{"bts.origin == \"é\" && ün", "bts.origin == \"é\" && ün\n                     ^", `unexpected character 'ü'`},
		{"bts.origin == \"\x1b[31mq\" && bad\x1b[2J", "bts.origin == \"\\x1b[31mq\" && bad\\x1b[2J\n                                ^", `'\x1b'`},
		{"pfc\n&& bad", "&& bad\n   ^", `unknown field or protocol "bad"`},
		// A long line is cut 60 octets each side of the token.
		{strings.Repeat("bts && ", 100) + "nosuch" + strings.Repeat(" && bts", 100),
			"…" + strings.Repeat("bts && ", 9)[3:] + "nosuch" + strings.Repeat(" && bts", 9)[:60-6] + "…\n" + strings.Repeat(" ", 61) + "^",
			`unknown field or protocol "nosuch"`},
		{strings.Repeat("(", 300) + "bts" + strings.Repeat(")", 300),
			"…" + strings.Repeat("(", 104) + "bts" + strings.Repeat(")", 13) + "…\n" + strings.Repeat(" ", 61) + "^", "nests deeper than 256 levels"},
		// ... at a letter's first octet, the caret as many cells on.
		{`frame.comment == "` + strings.Repeat("é", 41) + `" && bad`, "…" + strings.Repeat("é", 27) + `" && bad` + "\n" + strings.Repeat(" ", 33) + "^", `"bad"`},
	} {
		_, err := filter.Compile(c.expr)
		var se *filter.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: %v, want a syntax error", c.expr, err)
			continue
		}
		if got := se.Caret(); got != c.want || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: %v\n%s\nwant\n%s", c.expr, err, got, c.want)
		}
	}
}

// namedAndTimed returns the sample frames on interfaces port0, port1,
// Port1 and PORT2 in turn, each a microsecond after the one before but
// frame 5, 20 microseconds before it (captures joined with mergecap -a go
// back in time where they meet).
func namedAndTimed(t *testing.T) []*dissect.Frame {
	frames := decoded(t, sample.Frames())
	names := []string{"port0", "port1", "Port1", "PORT2"}
	for i, fr := range frames {
		fr.IfName = names[i%len(names)]
		fr.Start = sample.Start
		if i > 0 {
			fr.Prev = fr.Time.Add(-time.Microsecond)
		}
	}
	frames[4].Prev = frames[4].Time.Add(20 * time.Microsecond)
	return frames
}

// TestNamesAndTimes: text as tshark 4.0 compares it (matches without
// case, contains with it, order, ranges of text) and signed times.
func TestNamesAndTimes(t *testing.T) {
	frames := namedAndTimed(t)
	for _, tc := range []struct{ expr, want string }{
		{`frame.interface_name matches "PORT1"`, "2 3 6 7 10 11 14 15 18 19"},
		{`frame.interface_name ~ "^port[12]$"`, "2 3 4 6 7 8 10 11 12 14 15 16 18 19 20"},
		{`frame.interface_name matches "(?-i)Port1"`, "3 7 11 15 19"},
		{`frame.interface_name matches "(?-i:P)ORT"`, "3 4 7 8 11 12 15 16 19 20"},
		{`frame.interface_name contains "Port"`, "3 7 11 15 19"},
		{`frame.interface_name == "Port\61"`, "3 7 11 15 19"},
		{`frame.interface_name contains "\x50"`, "3 4 7 8 11 12 15 16 19 20"},
		{`frame.interface_name > "port0"`, "2 6 10 14 18"},
		{`frame.interface_name <= "Port1"`, "3 4 7 8 11 12 15 16 19 20"},
		{`frame.interface_name in {"PORT2".."port0"}`, "1 3 4 5 7 8 9 11 12 13 15 16 17 19 20 21"},
		{`frame.interface_name in {"port0" .. "port1", PORT2}`, "1 2 4 5 6 8 9 10 12 13 14 16 17 18 20 21"},
		{`frame.interface_name in {Port1..port0}`, "1 3 5 7 9 11 13 15 17 19 21"},
		{`frame.interface_name == frame.interface_name`, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21"},
		{"frame.time_delta < 0", "5"},
		{"frame.time_delta > 1000000", ""},
		{"frame.time_delta == -0.000020", "5"},
		{"frame.time_delta == -0.00002", "5"},
		{"frame.time_delta < -1", ""},
		{"frame.time_delta in {-1 .. -0.00001}", "5"},
		{"frame.time_delta in {-1..0}", "1 5"},
		{"frame.time_delta == -0", "1"},
		{"frame.time_delta > -0.00001 && frame.time_delta < 0.000002", "1 2 3 4 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21"},
		{"frame.time_relative > -1 && frame.time_relative <= 0.000001", "1 2"},
		{"frame.time_epoch > -1 && frame.number == 1", "1"},
		{"all frame.time_delta >= 0", "1 2 3 4 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21"},
	} {
		wantMatches(t, frames, tc.expr, tc.want)
	}
	// Matching text reads its octets into scratch space, without
	// allocating once grown.
	f := filter.MustCompile(`frame.interface_name matches "port1" || frame.interface_name > "port0" || any udp.port == 4791 || count(udp) == 1`)
	noAllocs(t, f, frames)
}
