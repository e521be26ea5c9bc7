// SPDX-License-Identifier: Apache-2.0

package live

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A Sync carries the origin one way and the lag log the other, through
// files another process can read.
func TestSync(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sync")
	sy, err := OpenSync(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !sy.Origin().IsZero() {
		t.Errorf("origin before any: %v", sy.Origin())
	}
	if ev, err := sy.Lags(time.Unix(0, 0), time.Now()); err != nil || len(ev) != 0 {
		t.Errorf("lags before any: %v, %v", ev, err)
	}
	org := time.Date(2026, 11, 25, 10, 0, 0, 123456789, time.UTC)
	if err := sy.SetOrigin(org); err != nil {
		t.Fatal(err)
	}
	if got := sy.Origin(); !got.Equal(org) {
		t.Errorf("origin %v, want %v", got, org)
	}
	other, _ := OpenSync(dir) // the other process
	for i, k := range []string{LagInput, LagOutput, LagOutput} {
		other.AddLag(Lag{At: org.Add(time.Duration(i) * time.Second), Kind: k, Port: "1", Lag: time.Duration(i+1) * time.Millisecond})
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	ev, err := sy.Lags(org, org.Add(time.Second))
	if err != nil || len(ev) != 2 || ev[0].Kind != LagInput || ev[1].Lag != 2*time.Millisecond {
		t.Errorf("lags in [0 s, 1 s]: %+v, %v", ev, err)
	}
	// A line being written is not an error; a broken one is.
	f, _ := os.OpenFile(filepath.Join(dir, SyncLag), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"at":"2026-11-25T10:00:0`)
	f.Close()
	if ev, err := sy.Lags(org, org.Add(time.Hour)); err != nil || len(ev) != 3 {
		t.Errorf("with a partial last line: %d events, %v", len(ev), err)
	}
	os.WriteFile(filepath.Join(dir, SyncLag), []byte("{\n"), 0o644)
	if _, err := sy.Lags(org, org.Add(time.Hour)); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a broken line: %v", err)
	}
	os.WriteFile(filepath.Join(dir, SyncOrigin), []byte("yesterday\n"), 0o644)
	if !sy.Origin().IsZero() {
		t.Errorf("an unreadable origin gives %v, want zero", sy.Origin())
	}
}

// Any late input voids a run; an output only when it lags by more than a
// quarter of the tolerance, in vector time.
func TestLagReasons(t *testing.T) {
	const n = 1000 // dilation: 1 µs tolerance = 1 ms wall, a quarter 250 µs
	at := time.Unix(100, 0)
	for _, tc := range []struct {
		name string
		ev   []Lag
		want []string
	}{
		{"none", nil, nil},
		{"output within a quarter", []Lag{{At: at, Kind: LagOutput, Port: "2", Lag: 250 * time.Microsecond}}, nil},
		{"output past a quarter", []Lag{{At: at, Kind: LagOutput, Port: "2", Lag: 251 * time.Microsecond}, {At: at, Kind: LagOutput, Port: "3", Lag: 400 * time.Microsecond}},
			[]string{"the emulator sent 2 frames more than a quarter of the 1µs time tolerance late (worst: port 3, 400ns late in vector time, 400µs in wall-clock time)"}},
		{"a late input", []Lag{{At: at, Kind: LagInput, Port: "host", Lag: 3 * time.Microsecond}},
			[]string{"the emulator took 1 input frames late (worst: port host, 3ns late in vector time, 3µs in wall-clock time)"}},
	} {
		wantReasons(t, tc.name, lagReasons(tc.ev, n, 1000), tc.want)
	}
}

// Every frame sent must reach the emulator soon and in the order sent.
func TestDeliveryReasons(t *testing.T) {
	const n = 1000 // a quarter of the 1 µs tolerance is 250 µs of wall clock
	t0 := time.Unix(100, 0)
	ms := func(f float64) time.Time { return t0.Add(time.Duration(f * float64(time.Millisecond))) }
	sent := []sentFrame{
		{no: 1, port: 0, hash: 11, kernel: ms(0)},
		{no: 2, port: 2, hash: 22, kernel: ms(0.05)},
		{no: 3, port: 0, hash: 33, kernel: ms(1)},
	}
	name := func(id int) string { return map[int]string{0: "0", 2: "2"}[id] }
	rx := func(port string, hash uint64, at time.Time) Lag {
		return Lag{At: at, Kind: LagRx, Port: port, Hash: hash}
	}
	for _, tc := range []struct {
		name string
		ev   []Lag
		want []string
	}{
		{"not logged", nil, nil},
		{"in order", []Lag{rx("0", 99, ms(-5)), rx("0", 11, ms(0.01)), rx("2", 22, ms(0.06)), rx("0", 33, ms(1.01))}, nil},
		{"held", []Lag{rx("0", 11, ms(0.01)), rx("2", 22, ms(0.06)), rx("0", 33, ms(1.3))},
			[]string{"1 input frames reached the emulator more than a quarter of the 1µs time tolerance after they left (worst: input frame 3, 300ns in vector time"}},
		{"reordered", []Lag{rx("0", 11, ms(0.08)), rx("2", 22, ms(0.06)), rx("0", 33, ms(1.01))},
			[]string{"1 input frames reached the emulator out of the order sent (first: input frame 2 reached it 20µs before input frame 1, sent before it)"}},
	} {
		wantReasons(t, tc.name, deliveryReasons(sent, tc.ev, name, n, 1000), tc.want)
	}
}

// wantReasons checks reasons one by one against the prefixes wanted.
func wantReasons(t *testing.T, name string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %q, want %d reasons", name, got, len(want))
		return
	}
	for i := range got {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("%s: %q\nwant prefix %q", name, got[i], want[i])
		}
	}
}
