// SPDX-License-Identifier: Apache-2.0

package filter_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/filter"
	"github.com/opensfc/sfc/internal/tsharktest"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/pcapio"
)

// frameTimeFilters compare frame.time with absolute times as Wireshark
// 4.0 writes them; the sample frames are 1 µs apart from 2026-01-01
// 00:00:00 UTC.
var frameTimeFilters = []string{
	`frame.time >= "2026-01-01 00:00:00.000005"`,
	`frame.time > "Jan 1, 2026 00:00:00.000002"`,
	`frame.time == "Jan  1, 2026 00:00:00.000001000"`,
	`frame.time < "jan 01, 2026 0:0:0.000003"`,
	`frame.time <= "2026-01-01T00:00:00.000004"`,
	`frame.time > "2026-01-01"`,
	`frame.time >= "2026-01-01 00:00"`,
	`frame.time == "2026-01-01 00:00:00.000001 UTC"`,
	`frame.time >= "2026-01-01 00:00:00.000010UTC"`,
	`frame.time >= "2026-01-01T00:00:00.000010Z"`,
	`frame.time < "2026-01-01T01:00:00.000003+01:00"`,
	`frame.time != "Dec 31, 2025 19:00:00.000000"`,
	`frame.time >= "2025-12-31 19:00:00.000007"`,
	`frame.time in {"2026-01-01 00:00:00.000001", "2026-01-01 00:00:00.000003".."2026-01-01 00:00:00.000005"}`,
}

// TestFrameTimeTshark: frame.time, in -T fields and filters, as tshark
// 4.0 has it (it was refused as an unknown field). tshark reads and prints
// it in local time: run with TZ=UTC, the filters select the frames
// tshark selects and -T fields prints tshark's text; run with TZ in New
// York, the times without a zone move five hours, in both.
func TestFrameTimeTshark(t *testing.T) {
	bin := tsharktest.Path(t)
	path := filepath.Join("..", "pcaps", "sample.pcapng")
	frames := readFrames(t, path)
	ny, err := time.LoadLocation("America/New_York")
	zones := []struct {
		tz  string
		loc *time.Location
	}{{"UTC", time.UTC}}
	if err == nil {
		zones = append(zones, struct {
			tz  string
			loc *time.Location
		}{"America/New_York", ny})
	} else {
		t.Logf("no zone America/New_York (%v): local time checked in UTC only", err)
	}
	saved := time.Local
	defer func() { time.Local = saved }()
	for _, z := range zones {
		time.Local = z.loc
		theirs := parallel(frameTimeFilters, func(expr string) string {
			cmd := exec.Command(bin, "-n", "-r", path, "-Y", expr, "-T", "fields", "-e", "frame.number")
			cmd.Env = append(os.Environ(), "TZ="+z.tz)
			out, err := cmd.Output()
			if err != nil {
				return "tshark: " + err.Error()
			}
			return string(out)
		})
		for i, expr := range frameTimeFilters {
			out := theirs[i]
			ours, err := selected(expr, frames)
			if err != nil {
				t.Errorf("TZ=%s %s: %v", z.tz, expr, err)
				continue
			}
			if got, want := strings.Join(ours, " "), strings.Join(strings.Fields(out), " "); got != want {
				t.Errorf("TZ=%s %s:\n sfcdump %s\n tshark  %s", z.tz, expr, got, want)
			}
		}
		cmd := exec.Command(bin, "-n", "-r", path, "-T", "fields", "-e", "frame.time")
		cmd.Env = append(os.Environ(), "TZ="+z.tz)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		fd, _ := dissect.LookupField("frame.time")
		st, ok := dissect.TsharkStyleOf("frame.time")
		if !ok || !st.AbsTime {
			t.Fatalf("frame.time: style %+v %v", st, ok)
		}
		for i, fr := range frames {
			vs := fd.Values(fr, nil)
			if len(vs) != 1 || i >= len(want) {
				t.Fatalf("frame %d: %v", i+1, vs)
			}
			if got := string(dissect.AppendTshark(nil, vs[0], st)); got != want[i] {
				t.Errorf("TZ=%s frame %d: frame.time %q, tshark %q", z.tz, i+1, got, want[i])
			}
		}
	}
	for _, bad := range []string{`frame.time >= "Jan 1, 2026 00:00"`, `frame.time > "2026/01/01 00:00:00"`, `frame.time > "2026-01-01 00:00:00 utc"`,
		`frame.time > "January 1, 2026 00:00:00"`, `frame.time > 1767225600`, `frame.time > "Jan 1, 2026 00:00:00."`,
		`frame.time > "2026-01-01 00:00:00.0000101234 UTC"`} {
		if _, err := filter.Compile(bad); err == nil {
			t.Errorf("%s compiles; tshark refuses it", bad)
		}
	}
}

// readFrames decodes every frame of the capture at path.
func readFrames(t *testing.T, path string) []*dissect.Frame {
	r, err := pcapio.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var frames []*dissect.Frame
	for {
		fr, err := r.Next()
		if err == io.EOF {
			return frames
		}
		if err != nil {
			t.Fatal(err)
		}
		data := append([]byte(nil), fr.Data...)
		p := layers.NewParser()
		df := &dissect.Frame{Number: len(frames) + 1, Time: fr.Time, Len: max(fr.Len, len(data)), CapLen: len(data), P: p}
		df.Err = p.Decode(data)
		frames = append(frames, df)
	}
}
