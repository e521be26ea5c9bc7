// SPDX-License-Identifier: Apache-2.0

package main

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/opensfc/sfc/pcapio"
)

// TestHandleDoesNotAllocate checks the per-frame path of every output
// format: after the first pass over the sample, printing allocates nothing.
func TestHandleDoesNotAllocate(t *testing.T) {
	r, err := pcapio.Open(sampleCap)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var frames []pcapio.Frame
	for {
		fr, err := r.Next()
		if err != nil {
			break
		}
		c := *fr
		c.Data = append([]byte(nil), fr.Data...)
		c.Comments = nil
		frames = append(frames, c)
	}
	for _, o := range []outputOptions{
		{format: "text"},
		{format: "text", verbose: true, hex: true},
		{format: "json"},
		{format: "fields", fields: []string{"frame.number", "bth.destqp", "flow.src", "fgcredit.dst", "cim.sa"}},
		{format: "text", filter: "bts.pause_us > 3 || pfc || fgcredit.credits == 1078"},
	} {
		pr, err := newPrinter(io.Discard, &o, nil)
		if err != nil {
			t.Fatal(err)
		}
		src := &source{showIf: true, ifName: func(i int) string { return "port" }}
		pass := func() {
			for i := range frames {
				if err := pr.handle(src, &frames[i]); err != nil {
					t.Fatal(err)
				}
			}
		}
		pass()
		if n := testing.AllocsPerRun(20, pass); n != 0 {
			t.Errorf("%+v: %.1f allocations per pass over the sample", o, n)
		}
	}
}

// writeLog records each Write it is given.
type writeLog struct{ writes []string }

func (w *writeLog) Write(p []byte) (int, error) {
	w.writes = append(w.writes, string(p))
	return len(p), nil
}

// TestPrintDirect: print keeps the order of what it is given, small
// outputs buffered together and one of directWrite octets or more
// written in one call, straight from the caller's slice, after what the
// buffer held.
func TestPrintDirect(t *testing.T) {
	log := &writeLog{}
	pr, err := newPrinter(log, &outputOptions{format: "text"}, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("frame line\n", directWrite/11+1)
	for _, s := range []string{"a\n", "b\n", big, "c\n", big[:directWrite-1]} {
		if err := pr.print([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if err := pr.w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := []string{"a\nb\n", big, "c\n" + big[:directWrite-1]}
	if !slices.Equal(log.writes, want) {
		t.Errorf("%d writes of %d octets, want %d writes", len(log.writes), len(strings.Join(log.writes, "")), len(want))
	}
}
