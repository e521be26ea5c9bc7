// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestParseLine(t *testing.T) {
	for _, c := range []struct {
		line string
		want run
		ok   bool
	}{
		{"BenchmarkOverhead/roce-write-1k-ipv4-2   \t 123456\t 18.25 ns/op\t 18.25 full-ns\t 9.09 ipv4-ns\t 8.61 ours-ns\t 0.947 x-ipv4",
			run{"roce-write-1k-ipv4", 8.61, 9.09, 0.947}, true},
		{"BenchmarkOverhead/pause 10 1 ns/op 1 full-ns 9.5 ipv4-ns 4.2 ours-ns 0.44 x-ipv4", run{"pause", 4.2, 9.5, 0.44}, true},
		{"BenchmarkOverhead/cim-l2-2 10 1 ns/op 1 full-ns 9.5 ipv4-ns", run{}, false}, // no ours-ns
		{"BenchmarkOverhead/cim-l2-2 10 x ns/op", run{}, false},
		{"BenchmarkLayer/bts-2 10 9 ns/op 8 ipv4-ns 9 layer-ns 1.1 x-ipv4", run{}, false},
		{"PASS", run{}, false},
		{"", run{}, false},
	} {
		got, ok := parseLine(c.line)
		if ok != c.ok || got != c.want {
			t.Errorf("parseLine(%q) = %+v, %v; want %+v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		in := append([]float64(nil), c.v...)
		if got := median(c.v); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.v, got, c.want)
		}
		for i := range in {
			if in[i] != c.v[i] {
				t.Fatalf("median reordered its input: %v", c.v)
			}
		}
	}
}

func TestBootstrap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	if lo, hi := bootstrap([]float64{2, 2, 2}, 100, rng); lo != 2 || hi != 2 {
		t.Errorf("constant sample: [%v, %v], want [2, 2]", lo, hi)
	}
	v := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	lo, hi := bootstrap(v, 2000, rng)
	if !(lo < 6 && hi > 6 && lo >= 1 && hi <= 11) {
		t.Errorf("1..11: [%v, %v] should hold the median 6 within the sample's range", lo, hi)
	}
}

func TestInterval(t *testing.T) {
	seq := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(i)
		}
		return v
	}
	for _, c := range []struct {
		n      int
		lo, hi float64
	}{{1, 0, 0}, {39, 0, 38}, {40, 1, 38}, {100, 2, 97}, {2000, 50, 1949}} {
		if lo, hi := interval(seq(c.n)); lo != c.lo || hi != c.hi {
			t.Errorf("%d values: [%v, %v], want [%v, %v]", c.n, lo, hi, c.lo, c.hi)
		}
	}
	if lo, hi := bootstrap(seq(11), 0, rand.New(rand.NewPCG(3, 3))); lo != 0 || hi != 0 {
		t.Errorf("0 resamples: [%v, %v], want [0, 0]", lo, hi)
	}
}

func TestSummariseQuiet(t *testing.T) {
	runs := []run{
		{"a", 9, 10, 0.9}, {"b", 5, 10, 0.5},
		{"a", 15, 12, 1.25}, // IPv4 1.2x the fastest: not quiet
		{"a", 9.5, 10.5, 0.905},
	}
	ss := summarise(runs, 1.10, 200, 1)
	if len(ss) != 2 || ss[0].format != "a" || ss[1].format != "b" {
		t.Fatalf("formats %+v, want a then b", ss)
	}
	a := ss[0]
	if a.runs != 3 || a.quiet != 2 {
		t.Errorf("a: %d runs, %d quiet; want 3, 2", a.runs, a.quiet)
	}
	if a.ratio != 0.905 || math.Abs(a.quietRatio-0.9025) > 1e-9 {
		t.Errorf("a: ratio %v, quiet ratio %v", a.ratio, a.quietRatio)
	}
	if a.diff != -1 || a.qDiff != -1 {
		t.Errorf("a: ours-ipv4 %v, quiet %v; want -1, -1", a.diff, a.qDiff)
	}
	var b bytes.Buffer
	write(&b, ss, 1.10)
	if !strings.Contains(b.String(), "| a | 3 | 9.50 | 10.50 | 0.91 | -1.00") {
		t.Errorf("table:\n%s", b.String())
	}
}
