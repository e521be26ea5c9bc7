// SPDX-License-Identifier: Apache-2.0

package main

import (
	"io"
	"os"
	"testing"
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
