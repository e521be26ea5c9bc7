// SPDX-License-Identifier: Apache-2.0

package live

import (
	"strings"
	"testing"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/device"
)

// Every scheme of emulate builds a reference device from its default case.
func TestDefaultCase(t *testing.T) {
	for _, s := range EmuSchemes {
		c, err := DefaultCase(s, []int{0, 1, 2}, "25G")
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if !c.Has(s) || len(c.Ports) != 3 || c.Ports[2].Speed != 25e9 {
			t.Errorf("%s: case %+v", s, c)
		}
		if _, err := conformance.BuildModel(c); err != nil {
			t.Errorf("%s: BuildModel: %v", s, err)
		}
	}
	for _, tc := range []struct {
		scheme string
		ids    []int
		speed  string
		want   string
	}{
		{"dcqcn", []int{0}, "100G", `--scheme "dcqcn"`},
		{"sfc", nil, "100G", "no ports"},
		{"sfc", []int{300}, "100G", "port 300"},
		{"sfc", []int{0}, "fast", "speed"},
	} {
		_, err := DefaultCase(tc.scheme, tc.ids, tc.speed)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DefaultCase(%q, %v, %q): %v, want an error with %q", tc.scheme, tc.ids, tc.speed, err, tc.want)
		}
	}
}

func TestParsePortMapAndResolve(t *testing.T) {
	c, err := DefaultCase("sfc", []int{0, 1}, "100G")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParsePortMap([]string{"0=veth0", "port1=veth1", "7=veth7"})
	if err != nil {
		t.Fatal(err)
	}
	ids, unknown, err := m.Resolve(c)
	if err != nil || ids[0] != "veth0" || ids[1] != "veth1" || len(unknown) != 1 || unknown[0] != "7" {
		t.Errorf("Resolve: %v %v %v", ids, unknown, err)
	}
	for _, bad := range [][]string{{"0"}, {"=veth0"}, {"0="}, {"0=a", "0=b"}} {
		if _, err := ParsePortMap(bad); err == nil {
			t.Errorf("ParsePortMap(%q): no error", bad)
		}
	}
	m, _ = ParsePortMap([]string{"0=veth0", "port0=veth1"})
	if _, _, err := m.Resolve(c); err == nil || !strings.Contains(err.Error(), "mapped twice") {
		t.Errorf("port given twice under two names: %v", err)
	}
	m, _ = ParsePortMap([]string{"0=veth0", "1=veth0"})
	if _, _, err := m.Resolve(c); err == nil || !strings.Contains(err.Error(), "two ports") {
		t.Errorf("interface given to two ports: %v", err)
	}
}

func TestParseFault(t *testing.T) {
	f, err := ParseFault("drop-first-bts, pause+3,drop-data-2")
	if err != nil || f.DropFirst != "bts" || f.PauseDelta != 3 || f.DropData != 2 {
		t.Errorf("ParseFault: %+v %v", f, err)
	}
	if f, err := ParseFault("pause-1"); err != nil || f.PauseDelta != -1 {
		t.Errorf("pause-1: %+v %v", f, err)
	}
	for _, bad := range []string{"drop-first-foo", "pause+0", "pause+x", "drop-data-0", "slow"} {
		if _, err := ParseFault(bad); err == nil {
			t.Errorf("ParseFault(%q): no error", bad)
		}
	}
}

// TestNICPortMapOfACorpus: the port map of a corpus run (0..4 and host)
// resolves for a NIC vector: host names its host side, and 1..4 are
// ports it does not have, not a second mapping of the host side.
func TestNICPortMapOfACorpus(t *testing.T) {
	c, err := conformance.LoadCase("../../pcaps/sfc/nic-pause-resume/case.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := ParsePortMap([]string{"0=t0", "1=t1", "2=t2", "3=t3", "4=t4", "host=t5"})
	ids, unknown, err := m.Resolve(c)
	if err != nil || ids[0] != "t0" || ids[device.HostPort] != "t5" || strings.Join(unknown, " ") != "1 2 3 4" {
		t.Errorf("Resolve: %v %v %v", ids, unknown, err)
	}
	// Without host, 1 still names the host side.
	m, _ = ParsePortMap([]string{"0=t0", "1=t1"})
	if ids, _, err := m.Resolve(c); err != nil || ids[device.HostPort] != "t1" {
		t.Errorf("Resolve without host: %v %v", ids, err)
	}
}

// TestSaveDirsDoNotCollide: two vectors of one scheme and case name in
// different folders keep their own --save sub-directories.
func TestSaveDirsDoNotCollide(t *testing.T) {
	save := t.TempDir()
	a := saveDir(save, "/x/pcaps/sfc/incast")
	b := saveDir(save, "/y/pcaps/sfc/incast")
	c := saveDir(save, "/z/sfc/incast")
	if a == b || b == c || a == c || !strings.HasPrefix(b, a) {
		t.Errorf("save dirs %q %q %q", a, b, c)
	}
}
