// SPDX-License-Identifier: Apache-2.0

package conformance_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/device"
)

func failText(rep *conformance.Report) string {
	var b strings.Builder
	rep.WriteText(&b)
	return b.String()
}

// TestDeviceBTSLatency: a device whose pipeline latency the case declares
// (bts_latency: 3us, beyond the 1 µs time tolerance) and that sends every
// BTS 3 µs after its trigger, with the depth of the queue then, passes
// device mode. The old harness expected each signal within the time
// tolerance of its trigger's arrival and reported every one missing.
func TestDeviceBTSLatency(t *testing.T) {
	dir := filepath.Join(pcaps, "sfc", "bts-latency")
	text, err := os.ReadFile(filepath.Join(dir, conformance.CaseFile))
	if err != nil {
		t.Fatal(err)
	}
	y := strings.Replace(string(text), "bts_latency: 1us", "bts_latency: 3us", 1)
	if y == string(text) {
		t.Fatal("the vector sets no bts_latency: 1us")
	}
	c, err := conformance.ParseCase(filepath.Join(dir, conformance.CaseFile), []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(dir, "input.pcapng")
	dev := filepath.Join(t.TempDir(), "dut.pcapng")
	f, err := os.Create(dev)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conformance.Generate(c, input, f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	var fires []conformance.Firing
	if err := conformance.Decisions(c, input, 0, func(f conformance.Firing) { fires = append(fires, f) }); err != nil {
		t.Fatal(err)
	}
	sent := 0
	for _, f := range fires {
		if f.Built != f.Time+3000 {
			t.Errorf("decision %+v: built at %d, want arrival + 3us", f, f.Built)
		}
		if f.Sent {
			sent++
		}
	}
	if sent == 0 {
		t.Fatal("the reference sent no signal")
	}
	rep, err := conformance.CheckDevice(c, input, dev, conformance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != conformance.Pass {
		t.Fatalf("device mode:\n%s", failText(rep))
	}
}

// TestDeviceDepthEveryOrigin: a cache-origin BTS carries qd_e in its queue
// depth field (behaviour.md §1), so the reference's own output of the
// cache vector passes device mode with its depths checked. The old field
// rule required 0 there and failed it.
func TestDeviceDepthEveryOrigin(t *testing.T) {
	dir := filepath.Join(pcaps, "sfc-cache", "sender-tor-hit")
	rep, err := conformance.CheckFiles(filepath.Join(dir, conformance.CaseFile), filepath.Join(dir, "input.pcapng"),
		filepath.Join(dir, "expected.pcapng"), conformance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != conformance.Pass {
		t.Fatalf("device mode:\n%s", failText(rep))
	}
	for _, ch := range rep.Checks {
		if ch.Name == "SFC-BTS-DEPTH" && ch.Checked == 0 {
			t.Error("no queue depth checked on the cache-origin BTS")
		}
	}
}

// TestSFCParams: bts_latency and remote_speed reach the model (and
// estimator_rate, remote_speed's former name, still does); without them
// remote_speed is the server-facing ports' speed, not the 400G port's.
func TestSFCParams(t *testing.T) {
	base := `description: "p"
role: switch
schemes: [sfc]
ports:
  - id: 0
    speed: 100G
    server_facing: true
    prefixes: [10.0.0.0/24]
  - id: 1
    speed: 400G
    prefixes: [0.0.0.0/0]
params:
  q_tg: 100KB
`
	for _, tc := range []struct {
		extra   string
		latency int64
		remote  int64
	}{
		{"", 0, 100_000_000_000},
		{"  bts_latency: 1.5us\n  remote_speed: 25G\n", 1500, 25_000_000_000},
		{"  estimator_rate: 50G\n", 0, 50_000_000_000},
	} {
		c, err := conformance.ParseCase("case.yaml", []byte(base+tc.extra))
		if err != nil {
			t.Fatal(err)
		}
		m, err := conformance.BuildModel(c)
		if err != nil {
			t.Fatal(err)
		}
		if m.SFC.P.Latency != tc.latency || m.SFC.RemoteSpeed() != tc.remote {
			t.Errorf("%q: latency %d remote %d, want %d %d", tc.extra, m.SFC.P.Latency, m.SFC.RemoteSpeed(), tc.latency, tc.remote)
		}
	}
}

// TestSuppressionEachFlow: when each of three flows is signalled three
// times within one reset period, SFC-BTS-SUPPRESS names each flow. After
// the first breach restarted the shared phase, the others' pairs looked
// consistent with it and only one flow was reported.
func TestSuppressionEachFlow(t *testing.T) {
	vdir := filepath.Join(pcaps, "sfc/suppression-reset")
	rep, err := conformance.CheckFiles(filepath.Join(vdir, conformance.CaseFile), filepath.Join(vdir, conformance.InputFile),
		filepath.Join("testdata", "suppress", "three-flows-three-signals.pcapng"), conformance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Check("SFC-BTS-SUPPRESS")
	flows := map[string]bool{}
	if c != nil {
		for _, d := range c.Deviations {
			flows[d.Field] = true
		}
	}
	if rep.Verdict != conformance.Fail || len(flows) != 3 {
		var b strings.Builder
		rep.WriteText(&b)
		t.Errorf("want SFC-BTS-SUPPRESS for each of 3 flows, got %d:\n%s", len(flows), b.String())
	}
}

// checkDev writes c as a device capture, lets each post amend the file
// (an interface statistics block appended), and checks it in device mode
// against vector vdir's case and input.
func checkDev(t *testing.T, vdir string, c *capture, post ...func(path string)) *conformance.Report {
	t.Helper()
	path := filepath.Join(t.TempDir(), "dev.pcapng")
	c.write(t, path)
	for _, p := range post {
		p(path)
	}
	rep, err := conformance.CheckFiles(filepath.Join(vdir, conformance.CaseFile), filepath.Join(vdir, conformance.InputFile), path, conformance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestBTSWrongPortIsMissing: a BTS sent on another port than the sender's
// is unjustified there, and the reference's BTS on the sender's port is
// missing (rule 5 matches signals of the same port), as for PFC. In this
// vector the sender's port carries nothing else, so rule 9 makes the
// missing BTS not judged (INCONCLUSIVE) rather than FAIL; either way it
// is no longer counted as sent.
func TestBTSWrongPortIsMissing(t *testing.T) {
	vdir := filepath.Join(pcaps, "sfc/incast-first-bts")
	exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
	i := nth(t, exp, 0, isBTS)
	c := &capture{names: exp.names, frames: slices.Clone(exp.frames)}
	c.frames[i].iface = (c.frames[i].iface + 1) % len(exp.names)
	rep := checkDev(t, vdir, c)
	first := rep.Check("SFC-BTS-FIRST")
	just := rep.Check("SFC-BTS-JUSTIFIED")
	if rep.Verdict != conformance.Fail || just == nil || just.Verdict != conformance.Fail {
		t.Fatalf("the first BTS on another port: want SFC-BTS-JUSTIFIED to FAIL:\n%s", failText(rep))
	}
	if first == nil || first.Verdict == conformance.Pass || first.Verdict == conformance.Inconclusive && first.NotJudged == 0 {
		t.Errorf("the reference's BTS on port %s is not missing:\n%s", exp.names[exp.frames[i].iface], failText(rep))
	}
}

// TestDataAlteredNamesTagAndFlowLabel: a forwarded data frame whose VLAN
// id or IPv6 flow label changed is DATA-ALTERED naming eth.vlan or
// ip.flow_label (the names masks use), not frame.octet[N].
func TestDataAlteredNamesTagAndFlowLabel(t *testing.T) {
	for _, tc := range []struct {
		vector, field string
		change        func(b []byte, m *device.Meta)
	}{
		{"sfc/incast-vlan", "eth.vlan", func(b []byte, m *device.Meta) { b[15] ^= 0x01 }},
		{"sfc/incast-ipv6", "ip.flow_label", func(b []byte, m *device.Meta) { b[m.L3+3] ^= 0x01 }},
	} {
		vdir := filepath.Join(pcaps, tc.vector)
		exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
		c := &capture{names: exp.names, frames: slices.Clone(exp.frames)}
		i := nth(t, c, 1, func(m *device.Meta, f capFrame) bool { return m.Kind == device.KindData })
		c.frames[i].data = slices.Clone(c.frames[i].data)
		m := meta(c.frames[i].data)
		tc.change(c.frames[i].data, &m)
		rep := checkDev(t, vdir, c)
		d := rep.Check("DATA-ALTERED")
		if d == nil || d.Verdict != conformance.Fail || d.Deviations[0].Field != tc.field {
			t.Errorf("%s: want DATA-ALTERED naming %s:\n%s", tc.vector, tc.field, failText(rep))
		}
	}
}

// TestOneDeviationPerField: a signal's DSCP that is neither the configured
// one nor the reference's is one deviation of its rule, not two.
func TestOneDeviationPerField(t *testing.T) {
	vdir := filepath.Join(pcaps, "sfc/incast-first-bts")
	exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
	c := &capture{names: exp.names, frames: slices.Clone(exp.frames)}
	i := nth(t, c, 0, isBTS)
	c.frames[i].data = slices.Clone(c.frames[i].data)
	m := meta(c.frames[i].data)
	c.frames[i].data[m.L3+1] ^= 0x04 << 2 // DSCP
	fixChecksums(c.frames[i].data)
	rep := checkDev(t, vdir, c)
	f := rep.Check("SFC-BTS-FIELDS")
	n := 0
	for _, d := range f.Deviations {
		if d.Field == "ip.dscp" {
			n++
		}
	}
	if f.Verdict != conformance.Fail || n != 1 || f.Count != int64(len(f.Deviations)) {
		t.Errorf("a BTS with another DSCP: %d ip.dscp deviation(s), want 1:\n%s", n, failText(rep))
	}
}

// TestExtraPacketInSequence: a RoCEv2 packet the reference does not send
// (another PSN), forwarded in the middle of its flow, is one DATA-EXTRA;
// the flow's later frames still match (no DATA-ALTERED cascade).
func TestExtraPacketInSequence(t *testing.T) {
	vdir := filepath.Join(pcaps, "sfc/incast-first-bts")
	exp := readCapture(t, filepath.Join(vdir, conformance.ExpectedFile))
	c := &capture{names: exp.names, frames: slices.Clone(exp.frames)}
	i := nth(t, c, 3, isData)
	f := c.frames[i]
	extra := slices.Clone(f.data)
	m := meta(extra)
	extra[m.Payload+9] ^= 0x40 // the PSN, 4M off
	end := m.L3 + m.IPLen
	crc, _ := layersICRC(extra[m.L3:end])
	binary.LittleEndian.PutUint32(extra[end-4:], crc)
	c.frames = append(c.frames, capFrame{f.iface, f.t.Add(-time.Nanosecond), extra})
	rep := checkDev(t, vdir, c)
	x, alt := rep.Check("DATA-EXTRA"), rep.Check("DATA-ALTERED")
	if x == nil || x.Verdict != conformance.Fail || x.Count != 1 || alt.Verdict != conformance.Pass {
		t.Errorf("one extra packet in its flow: want one DATA-EXTRA and no DATA-ALTERED:\n%s", failText(rep))
	}
}
