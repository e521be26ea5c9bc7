// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/sample"
)

// The straight JSON writers write byte for byte what the generic loop
// writes from the field table, on every sample frame, with and without a
// link speed (pfc's pause_ns fields), and every writer is in use (a
// change to its protocol's fields in the table would turn it off).
func TestJSONFastMatchesTable(t *testing.T) {
	for i, p := range Protos {
		if _, ok := jsonFastByProto[p.Name]; ok && jsonFastOf[i] == nil {
			t.Errorf("%s: the straight JSON writer is off: the table's fields are not the ones it writes", p.Name)
		}
	}
	fs := frames(t)
	var e Encoder
	saved := jsonFastOf
	defer func() { jsonFastOf = saved }()
	for _, bps := range []uint64{0, 25e9, 100e9} {
		for i := range fs {
			f := fs[i]
			f.LinkBPS = bps
			f.Number = i * 999_999
			f.Interface = i % 3
			jsonFastOf = saved
			fast := string(e.AppendJSON(nil, &f))
			jsonFastOf = make([]func([]byte, *Frame) ([]byte, bool), len(Protos))
			slow := string(e.AppendJSON(nil, &f))
			if fast != slow {
				t.Errorf("frame %d (%s), %d bit/s:\nstraight %s\ntable    %s", i+1, sample.Frames()[i].Name, bps, fast, slow)
			}
		}
	}
}

// The straight writers' tables of booleans and keys: every combination of
// the BTH's flags and every PFC class-enable octet, straight and through
// the table.
func TestJSONFastFlags(t *testing.T) {
	var bthF, pfcF *Frame
	fs := frames(t)
	for i := range fs {
		f := &fs[i]
		if f.P.Has(layers.LayerTypeBTH) && bthF == nil {
			bthF = f
		}
		if f.P.Has(layers.LayerTypePFC) && pfcF == nil {
			pfcF = f
		}
	}
	var e Encoder
	saved := jsonFastOf
	defer func() { jsonFastOf = saved }()
	both := func(f *Frame, what string) {
		jsonFastOf = saved
		fast := string(e.AppendJSON(nil, f))
		jsonFastOf = make([]func([]byte, *Frame) ([]byte, bool), len(Protos))
		if slow := string(e.AppendJSON(nil, f)); fast != slow {
			t.Errorf("%s:\nstraight %s\ntable    %s", what, fast, slow)
		}
	}
	for v := 0; v < 128; v++ {
		b := &bthF.P.BTH
		b.SE, b.M, b.FECN, b.BECN, b.AckReq, b.ICRCChecked, b.ICRCOK = v&1 != 0, v&2 != 0, v&4 != 0, v&8 != 0, v&16 != 0, v&32 != 0, v&64 != 0
		both(bthF, fmt.Sprintf("bth flags %07b", v))
	}
	for v := 0; v < 1<<16; v += 255 {
		pfcF.P.PFC.EnableVector = uint16(v)
		pfcF.LinkBPS = 100e9
		both(pfcF, fmt.Sprintf("pfc enable vector %#04x", v))
	}
	// Every pattern of paused (time > 0) and not paused classes, with and
	// without a link speed (the runs of zeros in one append).
	saveTimes := pfcF.P.PFC.Times
	for v := 0; v < 256; v++ {
		for c := range pfcF.P.PFC.Times {
			pfcF.P.PFC.Times[c] = 0
			if v>>c&1 != 0 {
				pfcF.P.PFC.Times[c] = uint16(1 + c*4099)
			}
		}
		for _, bps := range []uint64{0, 25e9} {
			pfcF.LinkBPS = bps
			both(pfcF, fmt.Sprintf("pfc times %08b at %d bit/s", v, bps))
		}
	}
	pfcF.P.PFC.Times = saveTimes
}

// appendRFC3339Nano writes what time.Time.AppendFormat does with
// RFC3339Nano in UTC, for every fraction length, zones, and years outside
// four digits.
func TestAppendRFC3339Nano(t *testing.T) {
	east := time.FixedZone("east", 5*3600+30*60)
	times := []time.Time{
		{}, time.Unix(0, 0), time.Unix(0, 1), time.Unix(1, 500_000_000), time.Unix(1_767_225_600, 123_456_789),
		time.Unix(1_767_225_600, 120_000_000).In(east), time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 10, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 1000, time.UTC), sample.Start,
	}
	for ns := int64(1); ns < 1e9; ns *= 10 {
		times = append(times, time.Unix(1_700_000_000, ns), time.Unix(1_700_000_000, ns*9/10+ns))
	}
	var e Encoder
	for _, tm := range times {
		want := tm.UTC().AppendFormat(nil, time.RFC3339Nano)
		if got := appendRFC3339Nano([]byte("x"), tm); string(got) != "x"+string(want) {
			t.Errorf("%v: %s, want x%s", tm, got, want)
		}
		// The encoder keeps the last second: the same second again, the
		// next nanosecond, and the next second.
		for _, tm := range []time.Time{tm, tm, tm.Add(1), tm.Add(time.Second), tm} {
			want := tm.UTC().AppendFormat(nil, time.RFC3339Nano)
			if got := e.appendTime(nil, tm); string(got) != string(want) {
				t.Errorf("encoder, %v: %s, want %s", tm, got, want)
			}
		}
	}
}

// The Encoder's memo of the Ethernet, IPv4 and UDP headers' JSON (one
// Encoder for the whole run, as sfcdump's workers have) writes what the
// field table writes, for every IPv4 sample frame with each octet of its
// Ethernet, IP and UDP headers changed to several values, each changed
// frame followed by the original (a hit on the original's entry after a
// possible eviction).
func TestJSONHdrMemo(t *testing.T) {
	var memo Encoder
	saved := jsonFastOf
	defer func() { jsonFastOf = saved }()
	table := func(f *Frame) string {
		jsonFastOf = make([]func([]byte, *Frame) ([]byte, bool), len(Protos))
		defer func() { jsonFastOf = saved }()
		var e Encoder
		return string(e.AppendJSON(nil, f))
	}
	hits := 0
	check := func(data []byte, what string) {
		p := layers.NewParser()
		f := Frame{Number: 7, Time: sample.Start, Len: len(data), CapLen: len(data), P: p, LinkBPS: 100e9}
		f.Err = p.Decode(data)
		if k, ok := hdrKeyOf(&f); ok && f.Err == nil {
			if m := &memo.hdrs[k.slot()]; m.n != 0 && m.key == k {
				hits++
			}
		}
		if got, want := string(memo.AppendJSON(nil, &f)), table(&f); got != want {
			t.Fatalf("%s:\nmemo  %s\ntable %s", what, got, want)
		}
	}
	n := 0
	for _, sf := range sample.Frames() {
		orig := append([]byte(nil), sf.Data...)
		if len(orig) < 42 || orig[12] != 0x08 || orig[13] != 0x00 {
			continue // IPv4 over Ethernet without a tag only
		}
		n++
		check(orig, sf.Name)
		for off := 0; off < 42; off++ {
			for _, x := range []byte{0x01, 0x80, 0xff} {
				d := append([]byte(nil), orig...)
				d[off] ^= x
				check(d, fmt.Sprintf("%s, octet %d ^ %#x", sf.Name, off, x))
				check(orig, sf.Name+" again")
			}
		}
	}
	if n < 3 {
		t.Fatalf("only %d IPv4 sample frames", n)
	}
	// The longest headers' JSON (three-digit address octets and TTL,
	// five-digit ports and EtherType) fits an entry, and an Encoder copied
	// by value keeps its own entries.
	long := append([]byte(nil), sample.Frames()[0].Data...)
	for _, sf := range sample.Frames() {
		if len(sf.Data) >= 42 && sf.Data[12] == 0x08 && sf.Data[13] == 0x00 {
			long = append([]byte(nil), sf.Data...)
			break
		}
	}
	for off := 22; off < 42; off++ {
		if off != 23 && off != 24 && off != 25 {
			long[off] = 0xfe // TTL, addresses, ports (not the protocol or the checksum)
		}
	}
	check(long, "longest headers")
	p := layers.NewParser()
	f := Frame{Number: 7, Time: sample.Start, Len: len(long), CapLen: len(long), P: p, LinkBPS: 100e9}
	if f.Err = p.Decode(long); f.Err == nil {
		k, _ := hdrKeyOf(&f)
		if memo.hdrs[k.slot()].n == 0 {
			t.Errorf("the longest headers' JSON was not kept")
		}
		cp := memo
		memo.hdrs[k.slot()].json[0] = 'X'
		if got, want := string(cp.AppendJSON(nil, &f)), table(&f); got != want {
			t.Errorf("a copied Encoder:\nmemo  %s\ntable %s", got, want)
		}
	}
	if hits < 100 {
		t.Fatalf("only %d memo hits", hits)
	}
}

// The Encoder's memo of the summary's address column (one Encoder for the
// whole run) writes what AppendSummary writes: every sample frame with
// each octet of its first 42 changed to several values, each changed
// frame followed by the original (a hit after a possible eviction), and
// every sample frame cut at every length (addresses cut short, the MACs
// shown instead, nothing).
func TestSummaryAddrMemo(t *testing.T) {
	var memo Encoder
	hits := 0
	check := func(data []byte, what string) {
		p := layers.NewParser()
		f := Frame{Number: 7, Time: sample.Start, Len: len(data), CapLen: len(data), P: p, LinkBPS: 100e9}
		f.Err = p.Decode(data)
		has, _ := summaryScan(p)
		if k0, k1, ok := addrKey(p, has); ok {
			for _, e := range memo.addrs {
				if e.n != 0 && e.k0 == k0 && e.k1 == k1 {
					hits++
				}
			}
		}
		if got, want := string(memo.AppendSummary(nil, &f)), string(AppendSummary(nil, &f)); got != want {
			t.Fatalf("%s:\nmemo  %s\nplain %s", what, got, want)
		}
	}
	for _, sf := range sample.Frames() {
		orig := append([]byte(nil), sf.Data...)
		check(orig, sf.Name)
		for off := 0; off < min(42, len(orig)); off++ {
			for _, x := range []byte{0x01, 0x80, 0xff} {
				d := append([]byte(nil), orig...)
				d[off] ^= x
				check(d, fmt.Sprintf("%s, octet %d ^ %#x", sf.Name, off, x))
				check(orig, sf.Name+" again")
			}
		}
		for n := 0; n < len(orig); n++ {
			check(orig[:n:n], fmt.Sprintf("%s cut at %d", sf.Name, n))
		}
	}
	if hits < 1000 {
		t.Errorf("%d memo hits: the memo is not used", hits)
	}
	// The longest columns fit an entry: three-digit address octets, and
	// two MACs.
	long := map[string][]byte{}
	for _, sf := range sample.Frames() {
		d := append([]byte(nil), sf.Data...)
		switch {
		case len(d) >= 34 && d[12] == 0x08 && d[13] == 0x00 && long["ip"] == nil:
			for off := 26; off < 34; off++ {
				d[off] = 0xfe
			}
			long["ip"] = d
		case len(d) >= 14 && d[12] == 0x88 && d[13] == 0x08 && long["mac"] == nil:
			long["mac"] = d
		}
	}
	for what, d := range long {
		check(d, "longest "+what)
		check(d, "longest "+what+" again")
		p := layers.NewParser()
		f := Frame{Len: len(d), CapLen: len(d), P: p}
		f.Err = p.Decode(d)
		has, _ := summaryScan(p)
		k0, k1, ok := addrKey(p, has)
		if !ok {
			t.Fatalf("longest %s: no memo key", what)
		}
		found := false
		for _, e := range memo.addrs {
			found = found || e.n != 0 && e.k0 == k0 && e.k1 == k1
		}
		if !found {
			t.Errorf("longest %s: not kept", what)
		}
	}
	if len(long) != 2 {
		t.Fatalf("sample has %d of the two long columns", len(long))
	}
}

// TestPFCClasses: each of the 256 entries cut from the one string is the
// classes' JSON of its enable vector, "c0" first.
func TestPFCClasses(t *testing.T) {
	for v := 0; v < 256; v++ {
		var want strings.Builder
		for i := 0; i < 8; i++ {
			fmt.Fprintf(&want, `,"c%d":%t`, i, v&(1<<i) != 0)
		}
		if got := pfcClasses()[v]; got != want.String() {
			t.Errorf("enable vector %#02x: %s, want %s", v, got, want.String())
		}
	}
}
