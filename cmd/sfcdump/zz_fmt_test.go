package main

import (
	"os"
	"testing"

	"github.com/opensfc/sfc/pcapio"
)

func BenchmarkZZFormat(b *testing.B) {
	f, err := os.Open("../../bench/out/bench-100k.pcap")
	if err != nil {
		b.Skip(err)
	}
	defer f.Close()
	r, err := pcapio.NewReader("x", f)
	if err != nil {
		b.Fatal(err)
	}
	var frs []pcapio.Frame
	for i := 0; i < 16384; i++ {
		fr, err := r.Next()
		if err != nil {
			b.Fatal(err)
		}
		c := *fr
		c.Data = append([]byte(nil), fr.Data...)
		frs = append(frs, c)
	}
	o := &outputOptions{format: "text"}
	pr, err := newPrinter(os.Stdout, o, []string{"x"})
	if err != nil {
		b.Fatal(err)
	}
	fm := pr.newFormatter()
	v := view{names: []string{""}, speeds: []uint64{100e9}, outs: make([]pcapio.Interface, 1), first: frs[0].Time}
	buf := make([]byte, 0, 4<<20)
	for _, n := range []int{64, 16384} {
		b.Run(string(rune('a'+n%26))+"n", func(b *testing.B) {
			for b.Loop() {
				buf = buf[:0]
				for i := 0; i < n; i++ {
					buf, _ = fm.format(buf, &v, &frs[i])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/frame")
		})
	}
}
