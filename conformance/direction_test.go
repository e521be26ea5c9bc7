// SPDX-License-Identifier: Apache-2.0

package conformance_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/opensfc/sfc/conformance"
)

// TestInboundFramesNamed: a device capture taken on the device's own
// ports in both directions (its output flagged outbound, its input
// inbound, as tcpdump on the device writes epb_flags) FAILs: the input
// frames are frames the device did not send, and the spec has the capture
// hold what the device sends. Each such deviation says the capture flags
// the frame inbound and how to keep only the output (probe round 5 found
// a bare DATA-EXTRA that did not say why).
func TestInboundFramesNamed(t *testing.T) {
	vdir := filepath.Join(pcaps, "sfc/incast-first-bts")
	in := readCapture(t, filepath.Join(vdir, conformance.InputFile))
	ex := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
	type fr struct {
		f   capFrame
		dir pcapgo.NgEpbFlag
	}
	var all []fr
	for _, f := range ex.frames {
		all = append(all, fr{f, pcapgo.NgEpbFlagDirectionOutbound})
	}
	for _, f := range in.frames {
		f.iface = slices.Index(ex.names, in.names[f.iface])
		all = append(all, fr{f, pcapgo.NgEpbFlagDirectionInbound})
	}
	slices.SortStableFunc(all, func(a, b fr) int { return a.f.t.Compare(b.f.t) })
	path := filepath.Join(t.TempDir(), "both.pcapng")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pcapgo.NewNgWriterInterface(out, pcapgo.NgInterface{Name: ex.names[0], LinkType: layers.LinkTypeEthernet, SnapLength: 65535, TimestampResolution: 9}, pcapgo.NgWriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range ex.names[1:] {
		if _, err := w.AddInterface(pcapgo.NgInterface{Name: n, LinkType: layers.LinkTypeEthernet, SnapLength: 65535, TimestampResolution: 9}); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range all {
		ci := gopacket.CaptureInfo{Timestamp: a.f.t, CaptureLength: len(a.f.data), Length: len(a.f.data), InterfaceIndex: a.f.iface}
		if err := w.WritePacketWithOptions(ci, a.f.data, pcapgo.NgPacketOptions{Flags: &pcapgo.NgEpbFlags{Direction: a.dir}}); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	out.Close()
	// A capture the tester took on its own ports (conform live) has every
	// device frame inbound: the same FAIL, without the hint.
	for _, tester := range []bool{false, true} {
		rep, err := conformance.CheckFiles(filepath.Join(vdir, conformance.CaseFile), filepath.Join(vdir, conformance.InputFile), path,
			conformance.Options{TesterCapture: tester})
		if err != nil {
			t.Fatal(err)
		}
		named := 0
		for _, c := range rep.Checks {
			for _, d := range c.Deviations {
				if strings.Contains(d.Detail, "flags this frame inbound") {
					named++
				}
			}
		}
		if rep.Verdict != conformance.Fail || (named == 0) != tester {
			t.Errorf("both directions captured, tester capture %v: want FAIL with the inbound frames named unless the tester took it, got %v (%d named):\n%s",
				tester, rep.Verdict, named, failText(rep))
		}
	}
}
