// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/opensfc/sfc/pcapio"
)

// idbOpts adds an Ethernet interface named name with the options opts
// (each made with ngOpt).
func (f *ngFile) idbOpts(name string, opts ...[]byte) *ngFile {
	b := le.AppendUint16(nil, 1)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint32(b, 0)
	b = ngOpt(b, 2, []byte(name))
	for _, o := range opts {
		b = append(b, o...)
	}
	return f.block(1, ngOpt(b, 0, nil))
}

// TestIgnoredInterfaceOptions: an interface whose if_speed or if_tsresol
// is malformed (of the wrong length, a resolution too fine to use) or out
// of the range --link-speed takes is read with the option ignored, a
// warning on stderr naming the file, the interface and the option, exit
// status 0, in the first interface block as in a later one; read (serial
// and parallel) and stats show its frames with the default speed, 100G.
// Before, a malformed option refused the capture (exit status 2 in the
// first interface block, 1 after frames), and if_speed 2^64-1 made a
// PAUSE of 0xffff quanta last 0 ns, which stats counted as a resume.
func TestIgnoredInterfaceOptions(t *testing.T) {
	speed := func(bps uint64) []byte { return ngOpt(nil, 8, le.AppendUint64(nil, bps)) }
	// 0xffff quanta of 512 bit times at 100G, 25G.
	const at100, at25 = "335539", "1342156"
	for _, c := range []struct {
		name   string
		f      *ngFile
		pauses []string // pfc.pause_ns_c3 of each frame
		warns  []string
	}{
		{"if_tsresol of 0 octets", (&ngFile{}).shb().idbOpts("e", ngOpt(nil, 9, nil)).epb(0, 1, pfcFrame, 60),
			[]string{at100}, []string{`interface 0 ("e"): if_tsresol option of 0 octets, want 1: ignored, timestamps read in microseconds`}},
		{"if_speed of 2 octets", (&ngFile{}).shb().idbOpts("e", ngOpt(nil, 8, []byte{1, 2})).epb(0, 1, pfcFrame, 60),
			[]string{at100}, []string{`interface 0 ("e"): if_speed option of 2 octets, want 8: ignored, the speed is not known`}},
		{"if_speed of 2 octets, later", (&ngFile{}).shb().idbOpts("good", speed(25e9)).epb(0, 1, pfcFrame, 60).
			idbOpts("e", ngOpt(nil, 8, []byte{1, 2})).epb(1, 2, pfcFrame, 60),
			[]string{at25, at100}, []string{`interface 1 ("e"): if_speed option of 2 octets, want 8: ignored, the speed is not known`}},
		{"if_tsresol 10^-70, later", (&ngFile{}).shb().idbOpts("good").epb(0, 1, pfcFrame, 60).
			idbOpts("e", ngOpt(nil, 9, []byte{70})).epb(1, 2, pfcFrame, 60),
			[]string{at100, at100}, []string{`interface 1 ("e"): timestamp resolution 10^-70 (if_tsresol 0x46) is too high, at most 10^-19 or 2^-63 s: ignored, timestamps read in microseconds`}},
		{"if_speed 2^64-1 and 1", (&ngFile{}).shb().idbOpts("smax", speed(1<<64-1)).idbOpts("s1", speed(1)).idbOpts("s1000T", speed(1e15)).
			epb(0, 1, pfcFrame, 60).epb(1, 2, pfcFrame, 60).epb(2, 3, pfcFrame, 60),
			[]string{at100, at100, "33"}, []string{
				`interface 0 ("smax"): if_speed 18446744073709551615 bit/s is outside 1 Mb/s to 1000 Tb/s, the speeds taken: ignored, the speed is not known`,
				`interface 1 ("s1"): if_speed 1 bit/s is outside 1 Mb/s to 1000 Tb/s, the speeds taken: ignored, the speed is not known`}},
	} {
		file := c.f.write(t, "x.pcapng")
		var warns []string
		for _, w := range c.warns {
			warns = append(warns, "sfcdump: "+file+": warning: "+w+"\n")
		}
		want := ""
		for _, p := range c.pauses {
			want += p + "\n"
		}
		for _, serial := range []bool{false, true} {
			procs := runtime.GOMAXPROCS(0)
			if serial {
				runtime.GOMAXPROCS(1)
			}
			out, errs, code := sfcdump(t, "read", "-T", "fields", "-e", "pfc.pause_ns_c3", file)
			runtime.GOMAXPROCS(procs)
			if code != 0 || out != want || errs != strings.Join(warns, "") {
				t.Errorf("%s: read (serial %v): exit %d\n%s\nstderr\n%s\nwant\n%s\n%s", c.name, serial, code, out, errs, want, strings.Join(warns, ""))
			}
		}
		out, errs, code := sfcdump(t, "stats", file)
		if code != 0 || errs != strings.Join(warns, "") {
			t.Errorf("%s: stats: exit %d\nstderr\n%s", c.name, code, errs)
		}
		// Each interface's PAUSE of 0xffff quanta on priority 3 is a
		// pause, not a resume.
		rows := regexp.MustCompile(`(?m)^ +\S+ +3 +1 +\d+ +\d+ +65535 .*$`).FindAllString(out, -1)
		for _, l := range rows {
			if f := strings.Fields(l); f[3] != "1" || f[4] != "0" {
				t.Errorf("%s: stats: %q, want 1 pause, 0 resumes", c.name, l)
			}
		}
		if len(rows) != len(c.pauses) {
			t.Errorf("%s: stats: %d rows of priority 3, want %d:\n%s", c.name, len(rows), len(c.pauses), out)
		}
	}
}

// TestLinkSpeedLimitsShared: --link-speed takes speeds from
// pcapio.MinLinkSpeed to pcapio.MaxLinkSpeed, the range in which a
// capture's if_speed is taken.
func TestLinkSpeedLimitsShared(t *testing.T) {
	for _, c := range []struct {
		s  string
		ok bool
	}{{"1M", true}, {"999999", false}, {"0.999M", false}, {"1000T", true}, {"1000.001T", false}} {
		_, err := parseSpeed(c.s)
		if (err == nil) != c.ok {
			t.Errorf("--link-speed %s: %v", c.s, err)
		}
	}
	if v, _ := parseSpeed("1000T"); v != pcapio.MaxLinkSpeed {
		t.Errorf("1000T is %d, MaxLinkSpeed %d", v, uint64(pcapio.MaxLinkSpeed))
	}
	if v, _ := parseSpeed("1M"); v != pcapio.MinLinkSpeed {
		t.Errorf("1M is %d, MinLinkSpeed %d", v, uint64(pcapio.MinLinkSpeed))
	}
}

// TestWriteKeepsBinaryResolution: read -w keeps an interface's binary
// if_tsresol (2^-10 s) and its timestamps tick for tick; one finer than
// 1 ns (10^-12 s) is written in nanoseconds, as read --help says.
func TestWriteKeepsBinaryResolution(t *testing.T) {
	f := (&ngFile{}).shb().idbOpts("bin10", ngOpt(nil, 9, []byte{0x80 | 10})).idbOpts("ps", ngOpt(nil, 9, []byte{12})).
		epb(0, 1_700_000_000<<10|3, pfcFrame, 60).epb(1, 17_000_000_000_000_000_001, pfcFrame, 60)
	in := f.write(t, "in.pcapng")
	out := filepath.Join(t.TempDir(), "out.pcapng")
	if _, errs, code := sfcdump(t, "read", "-q", "-w", out, in); code != 0 {
		t.Fatalf("read -w: %d %s", code, errs)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res []byte
	var ts []uint64
	for len(b) >= 12 {
		typ, l := le.Uint32(b), int(le.Uint32(b[4:]))
		body := b[8 : l-4]
		switch typ {
		case 1:
			for o := body[8:]; len(o) >= 4; {
				code, n := le.Uint16(o), int(le.Uint16(o[2:]))
				if code == 9 && n == 1 {
					res = append(res, o[4])
				}
				o = o[min(len(o), 4+(n+3)&^3):]
			}
		case 6:
			ts = append(ts, uint64(le.Uint32(body[4:]))<<32|uint64(le.Uint32(body[8:])))
		}
		b = b[l:]
	}
	if string(res) != "\x8a\x09" || len(ts) != 2 || ts[0] != 1_700_000_000<<10|3 || ts[1] != 17_000_000_000_000_000 {
		t.Errorf("if_tsresol %x, timestamps %v; want 8a 09, [%d %d]", res, ts, uint64(1_700_000_000<<10|3), 17_000_000_000_000_000)
	}
}

// TestWarningOnItsOwnLine: a warning met mid-capture (a later interface's
// malformed if_speed), with stdout and stderr one stream (2>&1), starts a
// line of its own, serial and parallel: standard output is written in
// blocks that may end mid-line, and the warning went inside a frame's
// line. The stream less the warning is the output alone.
func TestWarningOnItsOwnLine(t *testing.T) {
	f := (&ngFile{}).shb().idbOpts("good")
	for i := range 5000 { // about 450 KB of lines: many blocks of stdout
		f.epb(0, uint64(i), pfcFrame, 60)
	}
	f.idbOpts("e", ngOpt(nil, 8, []byte{1, 2}))
	for i := range 5000 {
		f.epb(uint32(i%2), uint64(5000+i), pfcFrame, 60)
	}
	file := f.write(t, "x.pcapng")
	warn := "sfcdump: " + file + `: warning: interface 1 ("e"): if_speed option of 2 octets, want 8: ignored, the speed is not known` + "\n"
	for _, serial := range []bool{false, true} {
		procs := runtime.GOMAXPROCS(0)
		if serial {
			runtime.GOMAXPROCS(1)
		}
		var both strings.Builder
		code := run([]string{"read", "-V", file}, &both, &both)
		alone, _, _ := sfcdump(t, "read", "-V", file)
		runtime.GOMAXPROCS(procs)
		got := both.String()
		at := strings.Index(got, warn)
		switch {
		case code != 0 || at < 0:
			t.Errorf("serial %v: exit %d, no warning %q", serial, code, warn)
		case at > 0 && got[at-1] != '\n':
			t.Errorf("serial %v: the warning is inside a line: %q", serial, got[max(0, at-80):at+len(warn)])
		case got[:at]+got[at+len(warn):] != alone:
			t.Errorf("serial %v: the stream less the warning is not the output alone", serial)
		}
	}
}

// TestWarningsInFrameOrder: the warnings of frames (an epb_flags option of
// the wrong length on frames 5000, 10000, 15000 and 20000) and of a
// statistics block after the last frame come, in the parallel read as in
// the serial one, each just before the line of the frame it names, the
// statistics' after every frame; with -c, none of a frame past it. The
// parallel read had read ahead and warned of them early, past -c too.
func TestWarningsInFrameOrder(t *testing.T) {
	f := (&ngFile{}).shb().idb("e", 0)
	const n = 20000
	for i := 1; i <= n; i++ {
		b := le.AppendUint32(nil, 0)
		b = le.AppendUint32(b, 0)
		b = le.AppendUint32(b, uint32(i))
		b = le.AppendUint32(b, uint32(len(pfcFrame)))
		b = le.AppendUint32(b, 60)
		b = append(b, pfcFrame...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		if i%5000 == 0 {
			b = ngOpt(b, 2, []byte{1, 2})
		}
		f.block(6, b)
	}
	isb := le.AppendUint64(le.AppendUint32(nil, 0), 0)
	f.block(5, append(le.AppendUint16(le.AppendUint16(isb, 4), 200), 1, 2, 3, 4))
	file := f.write(t, "w.pcapng")
	frameWarn := func(i int) string {
		return fmt.Sprintf("sfcdump: %s: warning: frame %d: epb_flags option of 2 octets, want 4: ignored\n", file, i)
	}
	statsWarn := "sfcdump: " + file + `: warning: interface 0 ("e"): statistics: option 4 of 200 octets runs past the block (4 octets left): ignored, with any after it` + "\n"
	for _, serial := range []bool{false, true} {
		for _, count := range []int{0, 12000} {
			procs := runtime.GOMAXPROCS(0)
			if serial {
				runtime.GOMAXPROCS(1)
			}
			var both strings.Builder
			args := []string{"read", file}
			if count > 0 {
				args = append(args, "-c", strconv.Itoa(count))
			}
			code := run(args, &both, &both)
			runtime.GOMAXPROCS(procs)
			got := both.String()
			what := fmt.Sprintf("serial %v, -c %d", serial, count)
			if code != 0 {
				t.Fatalf("%s: exit %d", what, code)
			}
			lineAt := func(i int) int { // where frame i's line starts
				return strings.Index(got, "\n"+strconv.Itoa(i)+" ") + 1
			}
			for i := 5000; i <= n; i += 5000 {
				at := strings.Index(got, frameWarn(i))
				switch {
				case count > 0 && i > count:
					if at >= 0 {
						t.Errorf("%s: a warning of frame %d, past -c", what, i)
					}
				case at < 0:
					t.Errorf("%s: no warning of frame %d", what, i)
				case at+len(frameWarn(i)) != lineAt(i):
					t.Errorf("%s: the warning of frame %d is not just before its line: %q", what, i, got[max(0, at-100):min(len(got), at+300)])
				}
			}
			if count == 0 && !strings.HasSuffix(got, statsWarn) || count > 0 && strings.Contains(got, statsWarn) {
				t.Errorf("%s: the statistics' warning is not after the last frame (or is there past -c): %q", what, got[max(0, len(got)-300):])
			}
		}
	}
}
