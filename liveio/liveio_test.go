// SPDX-License-Identifier: Apache-2.0

//go:build linux

package liveio_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opensfc/sfc/internal/netnstest"
	"github.com/opensfc/sfc/liveio"
	"github.com/opensfc/sfc/pcapio"
)

func frame(n int, tag []byte, seq int) []byte {
	b := []byte{0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01}
	b = append(b, tag...)
	b = append(b, 0x88, 0xb5) // local experimental EtherType
	for len(b) < n {
		b = append(b, byte(seq))
	}
	binary.BigEndian.PutUint32(b[len(b)-4:], uint32(seq))
	return b
}

// Frames cross the veth pair byte for byte, VLAN tags included: the
// kernel strips a tag into metadata on receive and Read puts it back with
// its PCP, DEI and TPID (pcapgo.EthernetHandle keeps the VID only).
func TestPortRoundTrip(t *testing.T) {
	bed := netnstest.New(t, 1)
	tx, err := bed.Open("t0", liveio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	rx, err := bed.Open("d0", liveio.Options{Promisc: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rx.Close()
	tap, err := bed.Open("t0", liveio.Options{Outgoing: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tap.Close()
	frames := [][]byte{
		frame(60, nil, 1),
		frame(1078, []byte{0x81, 0x00, 0xb0 | 0x10, 0x64}, 2),                // PCP 5, DEI 1, VID 100
		frame(64, []byte{0x88, 0xa8, 0x60, 0x0a, 0x81, 0x00, 0x20, 0x14}, 3), // QinQ
		frame(9014, nil, 4), // jumbo, MTU 9000
	}
	for _, f := range frames {
		before := time.Now()
		if err := tx.Write(f); err != nil {
			t.Fatal(err)
		}
		got, err := rx.Read()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Data, f) || got.Len != len(f) {
			t.Errorf("sent % x...\n got % x... (%d octets of %d)", f[:20], got.Data[:min(20, len(got.Data))], len(got.Data), got.Len)
		}
		if got.Time.Before(before.Add(-time.Millisecond)) || time.Since(got.Time) > 5*time.Second {
			t.Errorf("kernel timestamp %v, sent at %v", got.Time, before)
		}
		// The tap sees the frame leave, not the one the receive side reads.
		out, err := tap.Read()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Data, f) {
			t.Errorf("tap read % x..., want the frame sent", out.Data[:20])
		}
	}
	if err := tx.Write(make([]byte, 10)); err == nil || !strings.Contains(err.Error(), "shorter than an Ethernet header") {
		t.Errorf("a 10-octet frame: %v", err)
	}
	if err := tx.Write(make([]byte, 9100)); err == nil {
		t.Error("a frame over the MTU was sent")
	}
	if st, err := rx.Stats(); err != nil || st.Received != uint64(len(frames)) || st.Dropped != 0 {
		t.Errorf("stats %+v, %v; want %d received, none dropped", st, err, len(frames))
	}
	// StopReading ends a blocked Read; writing still works.
	done := make(chan error, 1)
	go func() { _, err := rx.Read(); done <- err }()
	time.Sleep(20 * time.Millisecond)
	if err := rx.StopReading(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, liveio.ErrClosed) {
			t.Errorf("Read after StopReading: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("StopReading did not end a blocked Read")
	}
	if err := rx.Write(frames[0]); err != nil {
		t.Errorf("Write after StopReading: %v", err)
	}
}

// A socket that is not read overflows: PACKET_STATISTICS counts the
// frames the kernel dropped, and Capture reports them.
func TestDropsCounted(t *testing.T) {
	bed := netnstest.New(t, 1)
	tx, err := bed.Open("t0", liveio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	rx, err := bed.Open("d0", liveio.Options{RcvBuf: 1}) // the kernel's minimum
	if err != nil {
		t.Fatal(err)
	}
	defer rx.Close()
	const n = 500
	for i := 0; i < n; i++ {
		if err := tx.Write(frame(1000, nil, i)); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	w, err := liveio.NewNgWriter(&buf, "test", []liveio.Interface{{Name: "port0", Description: "captured on d0", Speed: 25e9}})
	if err != nil {
		t.Fatal(err)
	}
	c := &liveio.Capture{Start: time.Now().Add(-time.Hour)}
	c.Run(w, []liveio.CapturePort{{Port: rx, Iface: 0}})
	time.Sleep(100 * time.Millisecond)
	res, err := c.Stop(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if r.Stats.Dropped == 0 || r.Stats.Received != n || uint64(r.Frames)+r.Stats.Dropped != n {
		t.Errorf("capture result %+v: want %d frames received, some dropped, the others written", r, n)
	}
}

// Capture merges several ports in time order into one pcapng with one
// interface block per port (if_name, if_description, if_speed) and an
// interface statistics block each; pcapio and capinfos read it back.
func TestCapturePcapng(t *testing.T) {
	bed := netnstest.New(t, 2)
	var tx, rx [2]*liveio.Port
	for i := range tx {
		var err error
		if tx[i], err = bed.Open([]string{"t0", "t1"}[i], liveio.Options{}); err != nil {
			t.Fatal(err)
		}
		defer tx[i].Close()
		if rx[i], err = bed.Open([]string{"d0", "d1"}[i], liveio.Options{Promisc: true}); err != nil {
			t.Fatal(err)
		}
		defer rx[i].Close()
	}
	path := filepath.Join(t.TempDir(), "c.pcapng")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := liveio.NewNgWriter(f, "test", []liveio.Interface{{Name: "port0", Description: "captured on d0", Speed: 100e9}, {Name: "port1", Speed: 400e9}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	// Capture time t is written as t − start + 2026-01-01.
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := &liveio.Capture{Start: start, Map: func(t time.Time) time.Time { return base.Add(t.Sub(start)) }}
	c.Run(w, []liveio.CapturePort{{Port: rx[0], Iface: 0}, {Port: rx[1], Iface: 1}})
	const n = 40
	for i := 0; i < n; i++ {
		if err := tx[i%2].Write(frame(100, nil, i)); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond)
	res, err := c.Stop(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if res[0].Frames != n/2 || res[1].Frames != n/2 {
		t.Errorf("results %+v", res)
	}
	r, err := pcapio.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var last time.Time
	for i := 0; ; i++ {
		fr, err := r.Next()
		if err != nil {
			if i != n {
				t.Errorf("read %d frames, want %d: %v", i, n, err)
			}
			break
		}
		seq := int(binary.BigEndian.Uint32(fr.Data[len(fr.Data)-4:]))
		if seq != i || fr.Interface != i%2 || fr.Time.Before(last) || fr.Time.Before(base) || fr.Time.After(base.Add(time.Minute)) {
			t.Errorf("frame %d: seq %d on interface %d at %v (previous %v)", i+1, seq, fr.Interface, fr.Time, last)
		}
		last = fr.Time
	}
	// The statistics blocks are in the frames' time scale too.
	raw, _ := os.ReadFile(path)
	isbs := 0
	for off := 0; off+12 <= len(raw); {
		typ, n := binary.LittleEndian.Uint32(raw[off:]), int(binary.LittleEndian.Uint32(raw[off+4:]))
		if n < 12 || off+n > len(raw) {
			t.Fatalf("block at %d: length %d", off, n)
		}
		if typ == 5 {
			isbs++
			ns := int64(binary.LittleEndian.Uint32(raw[off+12:]))<<32 | int64(binary.LittleEndian.Uint32(raw[off+16:]))
			if at := time.Unix(0, ns); at.Before(last) || at.After(base.Add(time.Minute)) {
				t.Errorf("statistics block at %v, the last frame at %v", at.UTC(), last.UTC())
			}
		}
		off += n
	}
	if isbs != 2 {
		t.Errorf("%d statistics blocks, want 2", isbs)
	}
	if r.Interface(0).Name != "port0" || r.Interface(1).Name != "port1" {
		t.Errorf("interfaces %q %q", r.Interface(0).Name, r.Interface(1).Name)
	}
	if capinfos, err := exec.LookPath("capinfos"); err == nil {
		out, err := exec.Command(capinfos, "-M", path).CombinedOutput()
		s := string(out)
		for _, want := range []string{"Name = port0", "Description = captured on d0", "Speed = 100000000000", "Speed = 400000000000", "Number of stat entries = 1"} {
			if err != nil || !strings.Contains(s, want) {
				t.Errorf("capinfos -M: no %q (%v):\n%s", want, err, s)
			}
		}
	} else if os.Getenv("CI") == "true" {
		t.Error("capinfos (tshark's package) is missing in CI")
	}
}

// Unread counts the frames the kernel queued that the caller has not
// taken yet: the emulator waits on it instead of on its readers' luck
// with the scheduler.
func TestPortUnread(t *testing.T) {
	bed := netnstest.New(t, 1)
	tx, err := bed.Open("t0", liveio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	rx, err := bed.Open("d0", liveio.Options{Promisc: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rx.Close()
	if n, err := rx.Unread(0); err != nil || n != 0 {
		t.Fatalf("Unread before any frame: %d, %v", n, err)
	}
	for i := 1; i <= 3; i++ {
		if err := tx.Write(frame(60, nil, i)); err != nil {
			t.Fatal(err)
		}
	}
	// veth delivers in the sender's context, but allow the softirq a moment.
	deadline := time.Now().Add(2 * time.Second)
	n, err := rx.Unread(0)
	for err == nil && n < 3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
		n, err = rx.Unread(0)
	}
	if err != nil || n != 3 {
		t.Fatalf("Unread(0) after 3 frames: %d, %v", n, err)
	}
	if _, err := rx.Read(); err != nil {
		t.Fatal(err)
	}
	for taken, want := range []uint64{3, 2, 1, 0} {
		if n, err := rx.Unread(uint64(taken)); err != nil || n != want {
			t.Errorf("Unread(%d): %d, %v; want %d", taken, n, err, want)
		}
	}
}
