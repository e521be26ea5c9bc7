// SPDX-License-Identifier: Apache-2.0

package liveio_test

import (
	"bytes"
	"fmt"
	"time"

	"github.com/opensfc/sfc/liveio"
	"github.com/opensfc/sfc/pcapio"
)

// NgWriter writes one interface block per port, with its speed.
func ExampleNgWriter() {
	var buf bytes.Buffer
	w, err := liveio.NewNgWriter(&buf, "example", []liveio.Interface{
		{Name: "port0", Description: "captured on eth1", Speed: 100e9},
		{Name: "port1", Description: "captured on eth2", Speed: 100e9},
	})
	if err != nil {
		panic(err)
	}
	frame := make([]byte, 60)
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	_ = w.WritePacket(1, t, frame, len(frame), liveio.DirInbound, "")
	_ = w.WriteStats(1, t, 1, 0)
	_ = w.Flush()

	r, err := pcapio.NewReader("example", &buf)
	if err != nil {
		panic(err)
	}
	fr, err := r.Next()
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Interface(0).Name, r.Interface(1).Name, fr.Interface, len(fr.Data), fr.Time.UTC())
	// Output: port0 port1 1 60 2026-01-01 00:00:00 +0000 UTC
}
