// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strconv"
	"testing"

	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/sample"
)

// The hand-rolled formatters of the one-line summary against the standard
// library's.
func TestFastFormatters(t *testing.T) {
	for v := 0; v < 256; v++ {
		a := []byte{byte(v), byte(255 - v), byte(v / 3), 0}
		want := netip.AddrFrom4([4]byte(a)).String()
		if got := string(appendIPv4(nil, a)); got != want {
			t.Fatalf("appendIPv4(%v) = %q, want %q", a, got, want)
		}
	}
	for _, ns := range []int64{0, 1, 9, 10, 999, 1000, 123456789, 999999999, 100000000, 5000} {
		if got, want := string(AppendNanos9(nil, ns)), fmt.Sprintf("%09d", ns); got != want {
			t.Errorf("AppendNanos9(%d) = %q, want %q", ns, got, want)
		}
	}
	p := layers.NewParser()
	for _, fr := range append(sample.Frames(), sample.Malformed()...) {
		f := &Frame{P: p}
		f.Err = p.Decode(fr.Data)
		f.CapLen, f.Len = len(fr.Data), len(fr.Data)
		if has, n := summaryScan(p); n+lengthWarnings(f, has) != countWarnings(f) {
			t.Errorf("%s: summaryScan counts %d warnings, countWarnings %d", fr.Name, n, countWarnings(f))
		}
	}
}

// TestSummaryWarningsSign: summaryWarnings, which -T json asks whether a
// frame has warnings, is positive exactly when countWarnings is, on the
// sample and malformed frames, the IPv4 AH and IPv6 extension tables,
// every truncation of each, and each of those with the frame's length on
// the wire shorter, equal and longer (a snapped capture).
func TestSummaryWarningsSign(t *testing.T) {
	p := layers.NewParser()
	frames := append(sample.Frames(), sample.Malformed()...)
	for _, path := range []string{ah4Table, "../layers/testdata/ipv6ext/frames.txt"} {
		for _, fr := range readTable(t, path) {
			frames = append(frames, sample.Frame{Name: fr.name, Data: fr.data})
		}
	}
	n, warned := 0, 0
	for _, fr := range frames {
		for cut := len(fr.Data); cut >= 0; cut-- {
			for _, wire := range []int{cut - 1, cut, cut + 1, len(fr.Data), len(fr.Data) + 64} {
				f := &Frame{P: p}
				f.Err = p.Decode(fr.Data[:cut])
				f.CapLen, f.Len = cut, wire
				_, got := summaryWarnings(f)
				if want := countWarnings(f); (got > 0) != (want > 0) {
					t.Errorf("%s cut at %d, %d on the wire: summaryWarnings %d, countWarnings %d", fr.Name, cut, wire, got, want)
				} else if want > 0 {
					warned++
				}
				n++
			}
		}
	}
	if warned == 0 || warned == n {
		t.Fatalf("%d of %d cases warned: the test tells nothing", warned, n)
	}
}

// TestPresenceOf: PresenceOf agrees with every protocol's Present, on the
// sample frames, the malformed ones and every truncation of each.
func TestPresenceOf(t *testing.T) {
	p := layers.NewParser()
	n := 0
	frames := append(sample.Frames(), sample.Malformed()...)
	// IPv4 AH and ESP, IPv6 extension headers (AH, ESP among them): ah
	// and esp have rules of their own.
	for _, path := range []string{ah4Table, "../layers/testdata/ipv6ext/frames.txt"} {
		for _, fr := range readTable(t, path) {
			frames = append(frames, sample.Frame{Name: fr.name, Data: fr.data})
		}
	}
	for _, fr := range frames {
		for cut := len(fr.Data); cut >= 0; cut-- {
			f := &Frame{P: p}
			f.Err = p.Decode(fr.Data[:cut])
			s := PresenceOf(f)
			for i, pr := range Protos {
				if s.Has(i) != pr.Present(f) {
					t.Fatalf("%s cut at %d: %s: PresenceOf %v, Present %v", fr.Name, cut, pr.Name, s.Has(i), pr.Present(f))
				}
			}
			n++
		}
	}
	for i, r := range presenceRules {
		if r.kind == ruleCall {
			t.Errorf("%s has no presence rule", Protos[i].Name)
		}
	}
	if n < 1000 {
		t.Fatalf("only %d frames", n)
	}
}

func TestAppendUint(t *testing.T) {
	vals := []uint64{0, 1, 9, 10, 99, 100, 999, 1000, 1001, 9999, 10000, 65535, 99999, 100000, 123456789, 4294967295, 1<<64 - 1}
	// Every power of ten and its neighbours (the paths by length), and
	// random values of every length.
	for p := uint64(1); ; p *= 10 {
		vals = append(vals, p-1, p, p+1, 2*p-1, 9*p, 9*p+p-1)
		if p > (1<<64-1)/100 {
			break
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		vals = append(vals, rng.Uint64()>>rng.UintN(64))
	}
	prefix := []byte("x=")
	for _, v := range vals {
		if got, want := string(AppendUint(nil, v)), strconv.FormatUint(v, 10); got != want {
			t.Fatalf("AppendUint(%d) = %q", v, got)
		}
		if got, want := string(AppendUint(prefix[:2:2], v)), "x="+strconv.FormatUint(v, 10); got != want {
			t.Fatalf("AppendUint(x=, %d) = %q", v, got)
		}
	}
}
