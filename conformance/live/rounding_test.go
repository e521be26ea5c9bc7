// SPDX-License-Identifier: Apache-2.0

package live

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/liveio"
	"github.com/opensfc/sfc/pcapio"
)

// A FAIL that goes away when the reference replays the input as the
// emulator received it is INCONCLUSIVE (its verdict rests on where the
// host's delivery delay fell against the nanosecond); a FAIL that stays
// stands, and so does one where no frame moved.
func TestRounding(t *testing.T) {
	dir := "../../pcaps/sfc/incast-first-bts"
	c, err := conformance.LoadCase(filepath.Join(dir, conformance.CaseFile))
	if err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(dir, "input.pcapng")
	work := t.TempDir()
	// The device sent exactly what the reference sends for the input at
	// its own times.
	f, err := os.Create(filepath.Join(work, "device.pcapng"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conformance.Generate(c, input, f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r, err := pcapio.Open(input)
	if err != nil {
		t.Fatal(err)
	}
	var frames []sentFrame
	for {
		fr, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, sentFrame{no: fr.Number, port: portOfIface(c, r, fr.Interface), hash: hashFrame(fr.Data), planned: fr.Time})
	}
	r.Close()
	names := c.InterfaceNames()
	ifs := make([]liveio.Interface, len(names))
	for i, nm := range names {
		ifs[i] = liveio.Interface{Name: nm}
	}
	ident := func(w time.Time) time.Time { return w }
	const shift = 50 * time.Microsecond
	for _, tc := range []struct {
		name     string
		tx, rx   time.Duration // after the vector's time
		inconcl  bool
		sentFail bool
	}{
		{"left late, received on time", shift, 0, true, true},
		{"left and received late", shift, shift, false, true},
		{"left and received late, moved", shift, shift + time.Nanosecond, false, true},
		{"on time", 0, 0, false, false},
	} {
		sent := append([]sentFrame(nil), frames...)
		for i := range sent {
			sent[i].kernel = sent[i].planned.Add(tc.tx)
			sent[i].rx = sent[i].planned.Add(tc.rx)
		}
		// The input as sent: the judged one.
		in := filepath.Join(work, "input.pcapng")
		g, err := os.Create(in)
		if err != nil {
			t.Fatal(err)
		}
		w, err := liveio.NewNgWriter(g, "test", ifs)
		if err != nil {
			t.Fatal(err)
		}
		if err := writeSent(input, w, sent, ident, 1, false); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		g.Close()
		dev, err := judge(c, in, filepath.Join(work, "device.pcapng"), conformance.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := dev.Verdict == conformance.Fail; got != tc.sentFail {
			t.Fatalf("%s: the input as sent judges %s", tc.name, dev.Verdict)
		}
		why, err := rounding(c, input, work, "test", ifs, sent, ident, 1, conformance.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := why != ""; got != tc.inconcl {
			t.Errorf("%s: rounding says %q, want a reason: %v", tc.name, why, tc.inconcl)
		}
		if why != "" && !strings.Contains(why, "input frame 1 left at") {
			t.Errorf("%s: reason %q names no frame", tc.name, why)
		}
	}
}
