// SPDX-License-Identifier: Apache-2.0

package pcapio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// shbVersion returns a pcapng of one frame whose section header says
// version major.minor.
func shbVersion(major, minor uint16) []byte {
	w := (&ng{}).shb().idb("p", 1, 0).epb(0, 1, frameData(1, 60), 60)
	binary.LittleEndian.PutUint16(w.buf[12:], major)
	binary.LittleEndian.PutUint16(w.buf[14:], minor)
	return w.buf
}

// TestSectionHeaderVersion: a section header of version 1.2, which some
// writers put for the format of 1.0, is read as 1.0 is (libpcap, tshark
// and tcpdump read both); other versions are refused (TestReaderErrors).
func TestSectionHeaderVersion(t *testing.T) {
	for _, v := range [][2]uint16{{1, 0}, {1, 2}} {
		g := readAllNext(shbVersion(v[0], v[1]), nil)
		if g.open != nil || g.err != nil || len(g.frames) != 1 {
			t.Errorf("version %d.%d: %d frames, %v %v", v[0], v[1], len(g.frames), g.open, g.err)
		}
	}
	// 1.2 in a second section too.
	w := (&ng{}).shb().idb("p", 1, 0).epb(0, 1, frameData(1, 60), 60)
	w.buf = append(w.buf, shbVersion(1, 2)...)
	if g := readAllNext(w.buf, nil); g.err != nil || len(g.frames) != 2 {
		t.Errorf("version 1.2 in section 2: %d frames, %v", len(g.frames), g.err)
	}
}

// readWarned reads data with Next (batch false) or ReadBatch, collecting
// its warnings (OnWarning, set after NewReader read the first interface).
func readWarned(data []byte, batch bool) (g got, warns []string) {
	r, err := NewReader("x", bytes.NewReader(data))
	if err != nil {
		return got{open: err}, nil
	}
	r.OnWarning(func(err error) { warns = append(warns, err.Error()) })
	var bs [2]Batch
	for i := 0; ; i++ {
		if !batch {
			fr, err := r.Next()
			if err != nil {
				if err != io.EOF {
					g.err = err
				}
				break
			}
			g.frames = append(g.frames, copyFrame(fr))
			continue
		}
		b := &bs[i%2]
		if err := r.ReadBatch(b, 1); err != nil {
			if err != io.EOF {
				g.err = err
			}
			break
		}
		for j := range b.Frames {
			g.frames = append(g.frames, copyFrame(&b.Frames[j]))
		}
	}
	for i := 0; i < r.NInterfaces(); i++ {
		g.ifaces = append(g.ifaces, r.Interface(i))
	}
	return g, warns
}

// TestIgnoredInterfaceOptions: an interface's if_speed or if_tsresol that
// is malformed (of the wrong length) or that cannot be used (a resolution
// finer than 10^-19 or 2^-63 s), in the first interface block or a later
// one, is ignored with a warning that names the interface and the option,
// as tshark ignores it, and the frames are read: the speed not known, the
// timestamps in microseconds. An if_speed outside MinLinkSpeed to
// MaxLinkSpeed is taken as not known too (at 2^64-1 bit/s a PAUSE took no
// time, at 1 bit/s a year). Before, each refused the capture (exit status
// 2 in the first interface block, 1 in a later one).
func TestIgnoredInterfaceOptions(t *testing.T) {
	o := (&ng{}).opt
	speed := func(bps uint64) []byte { return o(nil, 8, binary.LittleEndian.AppendUint64(nil, bps)) }
	res := func(v ...byte) []byte { return o(nil, 9, v) }
	const ts = 1_700_000_000_123_456 // µs
	at := time.Unix(1_700_000_000, 123_456_000).UTC()
	// one is a capture of one interface with opts and a frame; later the
	// same interface after one good interface and its frame.
	one := func(opts ...[]byte) []byte {
		return (&ng{}).shb().idb("e", 1, 0, opts...).epb(0, ts, frameData(1, 60), 60).buf
	}
	later := func(opts ...[]byte) []byte {
		return (&ng{}).shb().idb("good", 1, 0, speed(25e9)).epb(0, ts, frameData(1, 60), 60).
			idb("e", 1, 0, opts...).epb(1, ts, frameData(2, 60), 60).buf
	}
	nextSection := (&ng{}).shb().idb("good", 1, 0).epb(0, ts, frameData(1, 60), 60).
		shb().idb("", 1, 0, res(0x3f)).epb(0, ts, frameData(2, 60), 60).buf
	for _, c := range []struct {
		name  string
		data  []byte
		speed uint64 // of the last interface
		res   int64  // its Resolution
		warns []string
	}{
		{"if_tsresol of 0 octets", one(res()), 0, 1000,
			[]string{`interface 0 ("e"): if_tsresol option of 0 octets, want 1: ignored, timestamps read in microseconds`}},
		{"if_tsresol of 2 octets, later", later(res(9, 9)), 0, 1000,
			[]string{`interface 1 ("e"): if_tsresol option of 2 octets, want 1: ignored, timestamps read in microseconds`}},
		{"if_speed of 2 octets", one(o(nil, 8, []byte{1, 2})), 0, 1000,
			[]string{`interface 0 ("e"): if_speed option of 2 octets, want 8: ignored, the speed is not known`}},
		{"if_speed of 4 octets, later", later(o(nil, 8, []byte{1, 2, 3, 4})), 0, 1000,
			[]string{`interface 1 ("e"): if_speed option of 4 octets, want 8: ignored, the speed is not known`}},
		{"10^-70", one(res(70)), 0, 1000,
			[]string{`interface 0 ("e"): timestamp resolution 10^-70 (if_tsresol 0x46) is too high, at most 10^-19 or 2^-63 s: ignored, timestamps read in microseconds`}},
		{"10^-20", one(res(20)), 0, 1000,
			[]string{`interface 0 ("e"): timestamp resolution 10^-20 (if_tsresol 0x14) is too high, at most 10^-19 or 2^-63 s: ignored, timestamps read in microseconds`}},
		{"2^-64, later", later(res(0x80 | 64)), 0, 1000,
			[]string{`interface 1 ("e"): timestamp resolution 2^-64 (if_tsresol 0xc0) is too high, at most 10^-19 or 2^-63 s: ignored, timestamps read in microseconds`}},
		{"10^-63 in section 2, unnamed", nextSection, 0, 1000,
			[]string{`interface 0 of section 1: timestamp resolution 10^-63 (if_tsresol 0x3f) is too high, at most 10^-19 or 2^-63 s: ignored, timestamps read in microseconds`}},
		{"if_speed 2^64-1", one(speed(1<<64 - 1)), 0, 1000,
			[]string{`interface 0 ("e"): if_speed 18446744073709551615 bit/s is outside 1 Mb/s to 1000 Tb/s, the speeds taken: ignored, the speed is not known`}},
		{"if_speed 1, later", later(speed(1)), 0, 1000,
			[]string{`interface 1 ("e"): if_speed 1 bit/s is outside 1 Mb/s to 1000 Tb/s, the speeds taken: ignored, the speed is not known`}},
		{"if_speed 999999", one(speed(999_999)), 0, 1000,
			[]string{`interface 0 ("e"): if_speed 999999 bit/s is outside 1 Mb/s to 1000 Tb/s, the speeds taken: ignored, the speed is not known`}},
		{"if_speed 1000T+1", one(speed(1e15 + 1)), 0, 1000,
			[]string{`interface 0 ("e"): if_speed 1000000000000001 bit/s is outside 1 Mb/s to 1000 Tb/s, the speeds taken: ignored, the speed is not known`}},
		{"both", one(o(nil, 8, nil), res()), 0, 1000, []string{
			`interface 0 ("e"): if_speed option of 0 octets, want 8: ignored, the speed is not known`,
			`interface 0 ("e"): if_tsresol option of 0 octets, want 1: ignored, timestamps read in microseconds`}},
		// The name is the capture's: quoted with Go's escapes, so that a
		// line break in it does not start a line of its own.
		{"a name with a line break", (&ng{}).shb().idb("e\nsfcdump: fake\x1b[31m", 1, 0, o(nil, 8, []byte{1, 2})).epb(0, ts, frameData(1, 60), 60).buf, 0, 1000,
			[]string{`interface 0 ("e\nsfcdump: fake\x1b[31m"): if_speed option of 2 octets, want 8: ignored, the speed is not known`}},
		// Not warned of.
		{"if_speed 0", one(speed(0)), 0, 1000, nil},
		{"if_speed 1M", one(speed(1e6)), 1e6, 1000, nil},
		{"if_speed 1000T", one(speed(1e15)), 1e15, 1000, nil},
		{"10^-19", one(res(19)), 0, 1, nil},
	} {
		for _, batch := range []bool{false, true} {
			g, warns := readWarned(c.data, batch)
			if g.open != nil || g.err != nil {
				t.Errorf("%s (batch %v): %v %v", c.name, batch, g.open, g.err)
				continue
			}
			if !slices.Equal(warns, c.warns) {
				t.Errorf("%s (batch %v): warnings\n%q\nwant\n%q", c.name, batch, warns, c.warns)
			}
			last := g.ifaces[len(g.ifaces)-1]
			if len(g.frames) == 0 || last.Speed != c.speed || last.Resolution != c.res {
				t.Errorf("%s (batch %v): %d frames, speed %d, resolution %d; want %d, %d", c.name, batch, len(g.frames), last.Speed, last.Resolution, c.speed, c.res)
				continue
			}
			if fr := g.frames[len(g.frames)-1]; c.res == 1000 && !fr.Time.Equal(at) {
				t.Errorf("%s (batch %v): time %v, want %v", c.name, batch, fr.Time, at)
			}
		}
	}
}

// TestWarningsBounded: a capture of many interfaces each with a bad
// option gives MaxWarnings warnings and one more saying so, not one per
// interface; without OnWarning they are kept for it, as many.
func TestWarningsBounded(t *testing.T) {
	w := (&ng{}).shb()
	for i := 0; i < 3*MaxWarnings; i++ {
		w.idb(fmt.Sprint("p", i), 1, 0, w.opt(nil, 8, []byte{1}))
	}
	w.epb(0, 1, frameData(1, 60), 60)
	r, err := NewReader("x", bytes.NewReader(w.buf))
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := r.Next(); err != nil {
			break
		}
	}
	var warns []string
	r.OnWarning(func(err error) { warns = append(warns, err.Error()) })
	if len(warns) != MaxWarnings+1 || !strings.HasPrefix(warns[0], `interface 0 ("p0"): if_speed option`) ||
		warns[MaxWarnings] != fmt.Sprintf("more warnings than %d: the others are not given", MaxWarnings) {
		t.Errorf("%d warnings: %q", len(warns), warns)
	}
}

// TestMalformedBlockOptions: an option that runs past its block (in a
// section header, a packet block, interface statistics) ends the block's
// options, those before it kept, and an epb_flags or epb_dropcount of the
// wrong length is ignored: each with a warning naming where, the frames
// read (by Next and ReadBatch). They were dropped without a word.
func TestMalformedBlockOptions(t *testing.T) {
	for _, be := range []bool{false, true} {
		w := &ng{be: be}
		bo := w.bo()
		// bad is an option header that says 200 octets, with 4 after it.
		bad := func(code uint16) []byte {
			return append(bo.AppendUint16(bo.AppendUint16(nil, code), 200), 1, 2, 3, 4)
		}
		shb := bo.AppendUint32(nil, 0x1a2b3c4d)
		shb = bo.AppendUint16(bo.AppendUint16(shb, 1), 0)
		shb = bo.AppendUint64(shb, ^uint64(0))
		shb = append(w.opt(shb, 2, []byte("hw")), bad(3)...)
		w.block(0x0a0d0d0a, shb)
		w.idb("e", 1, 0)
		epb := func(ts uint64, opts ...[]byte) {
			b := bo.AppendUint32(nil, 0)
			b = bo.AppendUint32(b, uint32(ts>>32))
			b = bo.AppendUint32(b, uint32(ts))
			data := frameData(int(ts), 60)
			b = bo.AppendUint32(bo.AppendUint32(b, 60), 60)
			b = append(b, data...)
			for _, o := range opts {
				b = append(b, o...)
			}
			w.block(6, b)
		}
		epb(1, w.opt(nil, 1, []byte("kept")), bad(1))
		epb(2, w.opt(nil, 2, []byte{1, 2}), w.opt(nil, 1, []byte("after flags")))
		epb(3, w.opt(nil, 4, []byte{1, 2, 3, 4}))
		isb := bo.AppendUint32(nil, 0)
		isb = bo.AppendUint64(isb, 0)
		isb = append(w.opt(isb, 4, bo.AppendUint64(nil, 7)), bad(5)...)
		w.block(5, isb)
		epb(4)
		want := []string{
			`section header: option 3 of 200 octets runs past the block (4 octets left): ignored, with any after it`,
			`frame 1: option 1 of 200 octets runs past the block (4 octets left): ignored, with any after it`,
			`frame 2: epb_flags option of 2 octets, want 4: ignored`,
			`frame 3: epb_dropcount option of 4 octets, want 8: ignored`,
			`interface 0 ("e"): statistics: option 5 of 200 octets runs past the block (4 octets left): ignored, with any after it`,
		}
		for _, batch := range []bool{false, true} {
			g, warns := readWarned(w.buf, batch)
			what := fmt.Sprintf("big-endian %v, batch %v", be, batch)
			if g.open != nil || g.err != nil || len(g.frames) != 4 {
				t.Fatalf("%s: %d frames, %v %v", what, len(g.frames), g.open, g.err)
			}
			if !slices.Equal(warns, want) {
				t.Errorf("%s: warnings\n%s\nwant\n%s", what, strings.Join(warns, "\n"), strings.Join(want, "\n"))
			}
			if c := g.frames[0].Comments; !slices.Equal(c, []string{"kept"}) {
				t.Errorf("%s: frame 1's comments %q, want the one before the bad option", what, c)
			}
			if c := g.frames[1].Comments; g.frames[1].HasFlags || !slices.Equal(c, []string{"after flags"}) {
				t.Errorf("%s: frame 2: flags %v, comments %q", what, g.frames[1].HasFlags, c)
			}
			if g.frames[2].HasDropCount {
				t.Errorf("%s: frame 3 has a drop count", what)
			}
		}
	}
}
