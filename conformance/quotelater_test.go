// SPDX-License-Identifier: Apache-2.0

package conformance_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/device"
)

// TestQuoteLaterCopy: the input carries a second copy of the packet the
// reference's first BTS quotes (a retransmission), 5-60 µs after its last
// frame, 76 ns after the packet (within the early tolerance after the
// signal), or 624 ns before it; the reference's own output as the device
// capture must PASS. The quote named the newest copy, so the signal failed
// SFC-BTS-FIRST (and, with the quote-cause check, SFC-BTS-FIELDS); a copy
// before it made the reference's latency 624 ns, and all four BTS "early".
func TestQuoteLaterCopy(t *testing.T) {
	for _, gap := range []time.Duration{5 * time.Microsecond, 20 * time.Microsecond, 60 * time.Microsecond, -76, 624} {
		vdir := filepath.Join(pcaps, "sfc/incast-first-bts")
		dir := t.TempDir()
		in := readCapture(t, filepath.Join(vdir, conformance.InputFile))
		ex := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
		var quote []byte
		for _, f := range ex.frames {
			if meta(f.data).Kind == device.KindBTS {
				m := meta(f.data)
				quote = f.data[m.Payload+btsHeaderLen:]
				break
			}
		}
		src := -1
		for i, f := range in.frames {
			m := meta(f.data)
			if m.Kind == device.KindData && bytes.HasPrefix(f.data[m.L3:], quote[:min(len(quote), 40)]) {
				src = i
				break
			}
		}
		if src < 0 {
			t.Fatal("quoted packet not found in input")
		}
		// A gap of a µs or more: after the last frame; else -gap from the
		// quoted packet (-76: 76 ns after it; 624: 624 ns before it).
		cp := in.frames[src]
		if gap >= time.Microsecond {
			cp.t = in.frames[len(in.frames)-1].t.Add(gap)
		} else {
			cp.t = cp.t.Add(-gap)
		}
		in.frames = append(in.frames, cp)
		inPath := filepath.Join(dir, "input.pcapng")
		in.write(t, inPath)
		c, err := conformance.LoadCase(filepath.Join(vdir, conformance.CaseFile))
		if err != nil {
			t.Fatal(err)
		}
		devPath := filepath.Join(dir, "dev.pcapng")
		f, _ := os.Create(devPath)
		if _, err := conformance.Generate(c, inPath, f); err != nil {
			t.Fatal(err)
		}
		f.Close()
		rep, err := conformance.CheckFiles(filepath.Join(vdir, conformance.CaseFile), inPath, devPath, conformance.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Verdict != conformance.Pass {
			t.Errorf("gap %v: the reference as the device: %v\n%s", gap, rep.Verdict, failText(rep))
		}
	}
}

// btsHeaderLen is the BTS header before its quote (wire.md §5).
const btsHeaderLen = 16
