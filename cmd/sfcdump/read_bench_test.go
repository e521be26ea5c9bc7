// SPDX-License-Identifier: Apache-2.0

package main

import (
	"io"
	"os"
	"strconv"
	"testing"

	"github.com/opensfc/sfc/pcapio"
)

// Benchmarks of `sfcdump read` and `sfcdump stats` on a big capture, for
// profiling the whole path (reader, batches, decode, rendering, output):
//
//	go run ./bench/gen -n 1000000 -o /tmp/b1m.pcap
//	SFC_BENCH_CAPTURE=/tmp/b1m.pcap go test ./cmd/sfcdump -run '^$' \
//	    -bench 'Read/text' -benchtime 3x -cpuprofile /tmp/read.prof
//
// They are skipped without SFC_BENCH_CAPTURE. Output goes to io.Discard.
func benchCapture(b *testing.B) string {
	p := os.Getenv("SFC_BENCH_CAPTURE")
	if p == "" {
		b.Skip("SFC_BENCH_CAPTURE is not set")
	}
	return p
}

func BenchmarkRead(b *testing.B) {
	file := benchCapture(b)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"text", []string{"read", file}},
		{"json", []string{"read", "-T", "json", file}},
		{"fields", []string{"read", "-T", "fields", "-e", "frame.number", "-e", "bth.destqp", file}},
		{"filter", []string{"read", "-Y", "bth.destqp == 0x12 || pfc.c3", file}},
		{"stats", []string{"stats", file}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if code := run(c.args, io.Discard, io.Discard); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}

// BenchmarkFormat decodes and renders one line per frame, as a worker of
// sfcdump read does, for the first frames of the capture held in memory:
// 64 frames (in the core's cache) and 16,384 (out of it); ns/frame is the
// decode and render alone, without the read, the batches or the output.
func BenchmarkFormat(b *testing.B) {
	r, err := pcapio.Open(benchCapture(b))
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var frs []pcapio.Frame
	for len(frs) < 16384 {
		fr, err := r.Next()
		if err != nil {
			break
		}
		c := *fr
		c.Data = append([]byte(nil), fr.Data...)
		frs = append(frs, c)
	}
	if len(frs) < 64 {
		b.Fatalf("only %d frames", len(frs))
	}
	pr, err := newPrinter(io.Discard, &outputOptions{format: "text"}, []string{"x"})
	if err != nil {
		b.Fatal(err)
	}
	fm := pr.newFormatter()
	v := view{names: []string{""}, speeds: []uint64{100e9}, outs: make([]pcapio.Interface, 1), first: frs[0].Time}
	buf := make([]byte, 0, 4<<20)
	for _, n := range []int{64, len(frs)} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				buf = buf[:0]
				for i := range n {
					buf, _ = fm.format(buf, &v, &frs[i])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/frame")
		})
	}
}
