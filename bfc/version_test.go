// SPDX-License-Identifier: Apache-2.0

package bfc

import (
	"testing"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

// filterFor returns a filter (k = 4, L = 128) whose bits pause the flows
// as a frame of the given version indexes its stages.
func filterFor(version uint8, flows ...device.FlowKey) []byte {
	f := make([]byte, 128)
	for _, k := range flows {
		h := Hashes(k)
		for st := 0; st < 4; st++ {
			layers.SetFilterBit(version, f, 4, &h, st)
		}
	}
	return f
}

// frameV builds a BFC pause frame of the given version (AppendFrame writes
// version 2; version 1 is patched into the common header).
func frameV(t *testing.T, version uint8, seq uint32, filter []byte) []byte {
	t.Helper()
	b, err := AppendFrame(nil, device.MAC{}, 4, seq, filter)
	if err != nil {
		t.Fatal(err)
	}
	if b[14+3] != layers.BFCVersion {
		t.Fatalf("AppendFrame wrote version %d", b[14+3])
	}
	b[14+3] = version
	return b
}

// TestVersion1Frames: a receiver applies a version 1 frame as version 1,
// its stages indexed by CRC-32C(VFID ‖ s) as its sender set them, so it
// pauses the flows its sender paused (docs/decisions.md). Read with the
// version 2 hashes the same bits would pause other flows: the flow the v1
// sender paused goes on, which is what the test checks does not happen.
func TestVersion1Frames(t *testing.T) {
	a, b := key(hostA, recv, 1), key(hostA, recv, 2)
	v1 := filterFor(layers.BFCVersion1, a)
	v2 := filterFor(layers.BFCVersion, a)
	// The two encodings of one pause differ, and neither pauses b.
	ha, hb := Hashes(a), Hashes(b)
	if string(v1) == string(v2) || layers.FilterMatches(layers.BFCVersion, v1, 4, &ha) ||
		layers.FilterMatches(layers.BFCVersion1, v1, 4, &hb) {
		t.Fatal("the version 1 filter of flow a reads the same as version 2, or pauses b")
	}

	// NIC.
	nic := NewNIC()
	n, err := device.NewNIC(device.Config{Name: "h", Ports: []device.PortConfig{{ID: 0, Speed: 100 * device.Gbps}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Attach(nic); err != nil {
		t.Fatal(err)
	}
	input(t, n, 0, 0, frameV(t, layers.BFCVersion1, 1, v1))
	if !nic.Paused(a) || nic.Paused(b) || nic.V1Frames != 1 || nic.FramesApplied != 1 {
		t.Errorf("NIC after a version 1 frame pausing a: a paused %v, b paused %v, %d v1 frames", nic.Paused(a), nic.Paused(b), nic.V1Frames)
	}
	// The same bits in a version 2 frame are read with the version 2 hashes.
	input(t, n, 0, 10, frameV(t, layers.BFCVersion, 2, v1))
	if nic.Paused(a) || nic.V1Frames != 1 {
		t.Errorf("NIC: version 1 bits in a version 2 frame still pause a")
	}

	// Switch: a physical queue whose head flow a version 1 frame pauses is
	// skipped; the other flow's queue is served.
	d, s, outs := tor(t, Params{})
	input(t, d, 2, 0, frameV(t, layers.BFCVersion1, 5, v1))
	for k := 0; k < 3; k++ {
		input(t, d, 0, 10, frame(t, hostA, recv, 1, 1000))
		input(t, d, 0, 10, frame(t, hostA, recv, 2, 1000))
	}
	d.AdvanceTo(5000)
	var na, nb int
	for _, o := range *outs {
		if o.Port == 2 && o.Kind == device.KindData {
			switch o.Frame[0x23] {
			case 1:
				na++
			case 2:
				nb++
			}
		}
	}
	if na != 1 || nb != 3 || s.V1Frames != 1 {
		t.Errorf("switch after a version 1 frame pausing a: %d frames of a (want only its first, through the high-priority queue), %d of b, %d v1 frames", na, nb, s.V1Frames)
	}
}
