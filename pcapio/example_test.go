// SPDX-License-Identifier: Apache-2.0

package pcapio_test

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/opensfc/sfc/pcapio"
	"github.com/opensfc/sfc/sample"
)

// Write a two-port pcapng with comments, then stream it back frame by
// frame, as sfcdump and the conformance harness do.
func Example() {
	var buf bytes.Buffer
	w, err := pcapio.NewWriter(&buf, "port0", "port1")
	if err != nil {
		panic(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, f := range sample.Frames()[:3] {
		if err := w.Write(f.Interface, t0.Add(time.Duration(i)*time.Microsecond), f.Data, len(f.Data), f.Name); err != nil {
			panic(err)
		}
	}
	if err := w.Flush(); err != nil {
		panic(err)
	}

	r, err := pcapio.NewReader("example.pcapng", &buf)
	if err != nil {
		panic(err)
	}
	for {
		f, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		fmt.Println(f.Number, r.Interface(f.Interface).Name, len(f.Data), f.Comments[0])
	}
	// Output:
	// 1 port1 60 802.3x PAUSE, 65535 quanta
	// 2 port1 60 802.1Qbb PFC: priority 3 paused 65535 quanta, priority 5 resumed
	// 3 port0 138 RoCEv2 RC RDMA WRITE Only with RETH, IPv4
}
