package fuzz

// Reproducers of bugs the fuzzers find in packages owned by others go here:
// each test skipped while its bug is open (so main stays green), naming the
// owner and the proposed fix, with the target stepping around the input
// (knownRoundTripBug, knownDeviceBug, knownFlushBug) so that fuzzing goes
// on. Once the fix lands the test moves next to its target as a regression
// test and the crashing input stays under testdata/fuzz/FuzzXxx.
//
// Found and fixed so far (RESULTS.md):
//   - Floodgate family-6 frames with IPv4-mapped destinations did not
//     serialize: TestFloodgateV4MappedRoundTrip, fixed in layers 0e153b5.
//   - The device core's femtosecond port clock wrapped after 2 h 33 min of
//     virtual time: TestDeviceClockNoOverflow, fixed in device 67b654c.
//   - Floodgate entry lists allocated up to 21 × the frame:
//     TestDecoderAllocWorstCase, fixed in layers ca32021.
//   - pcapng interface blocks allocated 58.7 × the capture through pcapgo:
//     TestCaptureAllocWorstCase, gone with pcapio's own parser (0dba9a0).

import (
	"net/netip"
	"testing"
	"time"

	"github.com/opensfc/sfc/bfc"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/pfc"
)

// A PFC switch whose frames another scheme holds without end (a BFC pause
// no later frame clears, a Floodgate VOQ no credit comes for) keeps its
// XOFF: the count of the ingress port stays above XON, and the refresh
// timer, a foreground timer (Device.After), re-arms every refresh period
// forever, so Device.Flush never returns. conformance accepts a case with
// schemes [pfc, bfc] or [pfc, floodgate] and calls Dev.Flush after the
// last input of a replay (exact.go), so such a vector whose capture leaves
// frames held would hang the same way (read from the code, not run).
// Found by FuzzSwitch (testdata/fuzz/FuzzSwitch/973ea4c154b2083a: SFC,
// SFC-P, PFC and Floodgate; Flush ran past 167 s of virtual time with
// nothing queued at the egress and one timer pending). Owner: pfc.
// Proposed fix: schedule the XOFF refresh with Device.AfterBackground; a
// background timer still fires while anything else keeps Flush running
// (frames draining toward XON), and lets Flush end when only held frames
// remain.
func TestKnownBugPFCRefreshKeepsFlushRunning(t *testing.T) {
	// Fixed in pfc: the refresh is a background timer.
	pfx := netip.MustParsePrefix
	nq := bfc.QueuesFor(8)
	d, err := device.NewSwitch(device.Config{Ports: []device.PortConfig{
		{ID: 0, Speed: 100 * device.Gbps, Prefixes: []netip.Prefix{pfx("10.0.0.0/24")}, Queues: nq},
		{ID: 1, Speed: 100 * device.Gbps, Prefixes: []netip.Prefix{pfx("10.2.0.0/16")}, Queues: nq},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Attach(pfc.NewSwitch(pfc.Params{XOFF: 3000, XON: 1000}), bfc.NewSwitch(bfc.Params{Queues: 8})); err != nil {
		t.Fatal(err)
	}
	// The downstream neighbour on port 1 pauses every flow, once.
	filter := make([]byte, 128)
	for i := range filter {
		filter[i] = 0xff
	}
	bf, err := bfc.AppendFrame(nil, device.MAC{2, 0, 0, 0, 0, 9}, 4, 1, filter)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Input(1, 0, bf); err != nil {
		t.Fatal(err)
	}
	// A burst of one lossless flow (DSCP 26, class 3) from port 0 toward
	// port 1: its first packet takes the never-paused queue, the rest wait.
	for i := 0; i < 10; i++ {
		fr, _ := device.BuildUDP(nil, device.UDPSpec{Src: netip.MustParseAddr("10.0.0.1"), Dst: netip.MustParseAddr("10.2.0.1"),
			DSCP: 26, SrcPort: 1000, DstPort: 2000, Len: 1000})
		if err := d.Input(0, int64(100+20*i), fr); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	go func() { d.Flush(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Errorf("Flush still running after 3 s (virtual time %d ns): the XOFF refresh timer keeps it going", d.Now())
	}
}
