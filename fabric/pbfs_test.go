// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"testing"

	"github.com/opensfc/sfc/device"
)

// TestPBFSOnFabric: with PB-FS on, switches send postcards, most of them
// from the destination's ToR, the NICs' PB-FS phases all end (every flow
// got its first ACK), and short flows finish sooner than without PB-FS
// under the same load (the PB-FS paper's Fig. 5 ordering).
func TestPBFSOnFabric(t *testing.T) {
	sc := pbScenario(false, 3, CCDCQCN, true)
	sc.Workload.Duration = 400 * device.Microsecond
	on, err := Run(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	sc.PBFS.On = false
	off, err := Run(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if on.Completed != on.Flows || off.Completed != off.Flows {
		t.Fatalf("flows unfinished: %d/%d with PB-FS, %d/%d without", on.Completed, on.Flows, off.Completed, off.Flows)
	}
	if on.PBFS == nil || on.PBFS.Postcards == 0 || on.PBFS.DstToRShare <= 0.5 || off.PBFS != nil {
		t.Fatalf("postcards: with %+v, without %+v", on.PBFS, off.PBFS)
	}
	if on.MaxBuffer >= off.MaxBuffer {
		t.Errorf("max buffer %d with PB-FS, %d without", on.MaxBuffer, off.MaxBuffer)
	}
}

// TestPBGatePhase: the gate paces and marks a flow only between its start
// and its first ACK, and forgets it then.
func TestPBGatePhase(t *testing.T) {
	g := newPBGate(25 * device.Microsecond)
	k := device.FlowKey{SrcPort: 1, DstPort: 4791, Proto: 17}
	g.start(k, 1_000_000)
	if !g.phase[k] {
		t.Fatal("flow not in its PB-FS phase after start")
	}
	if r := g.ack(k); r != 0 || g.phase[k] {
		t.Errorf("ack: rate %d, phase %v", r, g.phase[k])
	}
	if r := g.ack(k); r != 0 {
		t.Errorf("second ack: rate %d", r)
	}
	g.start(k, 10)
	g.forget(k)
	if len(g.phase) != 0 {
		t.Errorf("%d flows left", len(g.phase))
	}
}
