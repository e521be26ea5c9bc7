// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"os"
	"testing"
)

// wsMadeBeforeTests records whether Wireshark's names were made by the
// time the tests start, that is by the package's initialisation.
var wsMadeBeforeTests bool

func TestMain(m *testing.M) {
	wsMadeBeforeTests = len(wsByField) > 0 || len(wsNames) > 0 || wsIP != nil
	os.Exit(m.Run())
}

// TestWiresharkNamesLazy: the package's initialisation does not make
// Wireshark's names (every sfcdump command paid for them at start-up);
// the first lookup does, and our fields got what they need from them
// before (the ends of the IP fields, their widths).
func TestWiresharkNamesLazy(t *testing.T) {
	if wsMadeBeforeTests {
		t.Fatal("Wireshark's names were made at package initialisation")
	}
	if fd, ok := OurField("ip.src"); !ok || fd.ends == nil || fd.Bits != 0 {
		t.Errorf("our ip.src: ends %v, bits %d", fd.ends, fd.Bits)
	}
	if fd, ok := OurField("ip.ttl"); !ok || fd.ends == nil || fd.Bits != 8 {
		t.Errorf("our ip.ttl: ends %v, bits %d", fd.ends, fd.Bits)
	}
	if fd, ok := OurField("udp.sport"); !ok || fd.end != 2 || fd.Bits != 16 {
		t.Errorf("our udp.sport: end %d, bits %d", fd.end, fd.Bits)
	}
	for name, want := range map[string]uint8{"ip.ttl": 8, "ipv6.hlim": 8, "udp.port": 16, "ip.len": 16, "udp.srcport": 16} {
		fd, ok := LookupField(name)
		if !ok || fd.Bits != want || fd.ends == nil && fd.end == 0 {
			t.Errorf("%s: found %v, bits %d (want %d), ends %v/%d", name, ok, fd.Bits, want, fd.ends, fd.end)
		}
	}
	if fd, _ := LookupField("ip.src"); fd == nil || fd.Family() != 4 {
		t.Error("Wireshark's ip.src is not IPv4's")
	}
	if p, ok := LookupProto("ipv6"); !ok || !p.HasBytes() {
		t.Error("ipv6 has no octets")
	}
	if p, ok := LookupProto("eth"); !ok || !p.HasBytes() {
		t.Error("eth has no octets")
	}
}
