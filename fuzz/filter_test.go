// SPDX-License-Identifier: Apache-2.0

package fuzz

import (
	"errors"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/filter"
	"github.com/opensfc/sfc/layers"
)

// maxExpr caps filter expressions: they come from a user's command line,
// and the parser is recursive, so a 4 KiB expression already nests deeper
// than any real one.
const maxExpr = 4 << 10

// filterSeeds are the examples of filter/doc.go and the expressions of
// filter's tests and of its tshark differential (read from the source, so
// new ones are picked up).
func filterSeeds() []string {
	seeds := []string{
		"bts", "bts.pause_us > 10 && flow.qp == 0xd2", "pfc.c3 && pfc.time_c3 == 0xffff",
		"ip.src == 10.0.0.0/24 || ip.dst == fd00::2", "cim.sa == 02:00:00:00:00:01", "bts.origin == cache",
		"bts.quote contains 12:b7", `bth.payload contains "hello"`, "!(bth || pfc) and not frame.malformed",
		"fgcredit.credits > 1000 && fgcredit.dst == 10.0.0.2", "frame.time_epoch >= 1767225600.000001",
		"bfc.seq != 42 || bfc.bits_set ge 4", "(", "bts.pause_us ==", `"unterminated`,
		"udp.dstport in {4791, 1000..1100}", "eth.src[0:1,5] == 02:01", "eth.type & 0x0f00 == 0x0600",
		`frame matches "\\x88\\x08"`, "ip.addr !== 10.0.0.1", "udp.srcport == udp.dstport", "eth.src[", "x in {",
	}
	if src, err := os.ReadFile("../filter/filter_test.go"); err == nil {
		for _, m := range regexp.MustCompile("\\{\"((?:[^\"\\\\]|\\\\.)*)\",").FindAllStringSubmatch(string(src), -1) {
			if s, err := strconv.Unquote(`"` + m[1] + `"`); err == nil {
				seeds = append(seeds, s)
			}
		}
	}
	// The differential filters, in Wireshark's syntax and names.
	if src, err := os.ReadFile("../filter/tshark_test.go"); err == nil {
		for _, m := range regexp.MustCompile("(?m)^\t(\"(?:[^\"\\\\]|\\\\.)*\"),$").FindAllStringSubmatch(string(src), -1) {
			if s, err := strconv.Unquote(m[1]); err == nil {
				seeds = append(seeds, s)
			}
		}
	}
	return seeds
}

// FuzzFilter compiles arbitrary display filters and evaluates them on
// arbitrary frames: no panic; a compile error is a *filter.SyntaxError
// pointing inside the expression; evaluation does not allocate once the
// filter's scratch space is warm, is deterministic, and !(expr) is its
// negation.
func FuzzFilter(f *testing.F) {
	fr := frames()
	for i, s := range filterSeeds() {
		f.Add(s, fr[i%len(fr)])
	}
	p := layers.NewParser()
	f.Fuzz(func(t *testing.T, expr string, frame []byte) {
		if len(expr) > maxExpr || len(frame) > maxInput {
			return
		}
		defer watch("FuzzFilter", 2*time.Second)()
		flt, err := filter.Compile(expr)
		if err != nil {
			var se *filter.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Compile(%q): %T %v, want a *filter.SyntaxError", expr, err, err)
			}
			if se.Pos < 0 || se.Pos > len(expr) {
				t.Fatalf("Compile(%q): error at offset %d of %d: %v", expr, se.Pos, len(expr), se)
			}
			_ = se.Caret()
			return
		}
		if flt.String() != expr {
			t.Fatalf("String() = %q, want %q", flt.String(), expr)
		}
		_ = flt.Fields()
		df := dissect.Frame{Number: 1, Time: time.Unix(1767225600, 1000), Len: len(frame), CapLen: len(frame), P: p}
		df.Err = p.Decode(frame)
		first := flt.Match(&df)
		var second bool
		checkAlloc(t, "Match", 0, 0, func(int) { second = flt.Match(&df) })
		if first != second {
			t.Fatalf("%q: Match gave %v then %v on the same frame", expr, first, second)
		}
		neg, err := filter.Compile("!(" + expr + ")")
		if err != nil {
			t.Fatalf("%q compiles but !(%s) does not: %v", expr, expr, err)
		}
		if neg.Match(&df) == first {
			t.Fatalf("%q and its negation both match %v on frame %x", expr, first, frame)
		}
	})
}
