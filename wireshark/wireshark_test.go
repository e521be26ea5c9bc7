// SPDX-License-Identifier: Apache-2.0

package wireshark

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/internal/tsharktest"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/pcapio"
)

// tshark returns the path of tshark, skipping the test where it is missing
// unless running in CI, where a missing tshark is a failure.
func tshark(t *testing.T) string { return tsharktest.Path(t) }

// comparedProtos are the protocols the Lua dissectors define in full.
var comparedProtos = []string{"cim", "bts", "postcard", "bfc", "fgcredit", "fgpause", "flow", "cnp"}

// extraFields are single fields the dissectors add to Wireshark's own BTH.
var extraFields = []string{"bth.fecn", "bth.becn"}

func comparedFields(t *testing.T) []*dissect.Field {
	var fs []*dissect.Field
	for _, name := range comparedProtos {
		p, ok := dissect.LookupProto(name)
		if !ok {
			t.Fatalf("no protocol %s in dissect", name)
		}
		fs = append(fs, p.Fields...)
	}
	for _, name := range extraFields {
		fd, ok := dissect.LookupField(name)
		if !ok {
			t.Fatalf("no field %s in dissect", name)
		}
		fs = append(fs, fd)
	}
	return fs
}

// render gives a value as tshark -T fields prints our dissectors' fields:
// booleans 1/0, origins as their number.
func render(v dissect.Value) string {
	switch v.Kind {
	case dissect.KindBool:
		if v.U != 0 {
			return "1"
		}
		return "0"
	case dissect.KindString:
		return strconv.FormatUint(v.U, 10)
	}
	return string(dissect.AppendValue(nil, v, false))
}

// captures lists every pcapng under pcaps/.
func captures(t *testing.T) []string { return tsharktest.Captures(t, filepath.Join("..", "pcaps")) }

// TestDissectorsAgreeWithSfcdump loads sfc.lua into tshark and checks that
// for every frame of every capture in pcaps/ that decodes without error,
// tshark's value of every field of every protocol the dissectors define
// equals sfcdump's, and that frames sfcdump finds malformed get an expert
// info from the dissectors.
func TestDissectorsAgreeWithSfcdump(t *testing.T) {
	bin := tshark(t)
	fields := comparedFields(t)
	for _, capture := range captures(t) {
		t.Run(filepath.Base(filepath.Dir(capture))+"/"+filepath.Base(capture), func(t *testing.T) {
			agree(t, bin, fields, capture)
		})
	}
}

// TestDissectorsVLAN9100: behind VLAN tags of TPID 0x9100 (the
// pre-802.1ad QinQ TPID; layers/testdata/vlan9100.pcap), which Wireshark
// decodes itself before handing the EtherType to the dissectors, their
// fields (the BTS's, the CNP's) are sfcdump's, as for an untagged frame.
func TestDissectorsVLAN9100(t *testing.T) {
	agree(t, tshark(t), comparedFields(t), filepath.Join("..", "layers", "testdata", "vlan9100.pcap"))
}

// agree checks, for every frame of capture that decodes without error,
// that tshark's value of every field of fields, with sfc.lua loaded,
// equals sfcdump's, and that frames sfcdump finds malformed in one of our
// formats get an expert info from the dissectors.
func agree(t *testing.T, bin string, fields []*dissect.Field, capture string) {
	names := make([]string, len(fields))
	for i, fd := range fields {
		names[i] = fd.Name
	}
	rows := pluginFields(t, bin, capture, names)

	r, err := pcapio.Open(capture)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p := layers.NewParser()
	var vals []dissect.Value
	compared := 0
	for i := 0; ; i++ {
		fr, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(rows) {
			t.Fatalf("tshark printed %d frames, capture has more", len(rows))
		}
		cols := strings.Split(rows[i], "\t")
		if len(cols) != len(fields)+2 {
			t.Fatalf("frame %d: tshark printed %d columns, want %d", fr.Number, len(cols), len(fields)+2)
		}
		f := dissect.Frame{Number: fr.Number, P: p}
		f.Err = p.Decode(fr.Data)
		if f.Err != nil {
			if p.Failed == 0 || !isOurs(p.Failed) {
				continue
			}
			// Malformed in one of our formats: the dissectors must say so.
			if cols[1] == "" {
				t.Errorf("frame %d: sfcdump says %v; tshark shows no expert info", fr.Number, f.Err)
			}
			continue
		}
		for j, fd := range fields {
			vals = fd.Values(&f, vals[:0])
			want := make([]string, len(vals))
			for k, v := range vals {
				want[k] = render(v)
			}
			if got := cols[j+2]; got != strings.Join(want, ",") {
				t.Errorf("frame %d %s: tshark %q, sfcdump %q", fr.Number, fd.Name, got, strings.Join(want, ","))
			}
			compared++
		}
	}
	if compared == 0 {
		t.Errorf("no field compared in %s", capture)
	}
	t.Logf("%s: %d field values compared", capture, compared)
}

func isOurs(lt interface{ String() string }) bool {
	switch lt.String() {
	case "CIM", "BTS", "Postcard", "BFC", "FGCredit", "FGPause":
		return true
	}
	return false
}

func TestInstall(t *testing.T) {
	dir := t.TempDir()
	path, err := Install(filepath.Join(dir, "plugins"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, Dissector) || len(Dissector) == 0 {
		t.Fatalf("installed %s: %v (len %d)", path, err, len(got))
	}
}

// TestDissectorsQuotes: on the quotes of testdata/quotes.pcapng (AH, ESP,
// fragments, every extension header), every field sfcdump and the
// plugin both give agrees: for a quote without an L4 header (ESP, a
// fragment after the first) neither gives ports.
func TestDissectorsQuotes(t *testing.T) {
	agree(t, tshark(t), comparedFields(t), filepath.Join("testdata", "quotes.pcapng"))
}

// pluginFields runs tshark with sfc.lua on capture and returns a row per
// frame: frame.number, _ws.expert.severity, then fields, tab-separated,
// every occurrence joined by commas. A tshark that fails or cannot load
// the plugin fails the test.
func pluginFields(t *testing.T, bin, capture string, fields []string) []string {
	t.Helper()
	args := []string{"-X", "lua_script:sfc.lua", "-r", capture, "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=,",
		"-e", "frame.number", "-e", "_ws.expert.severity"}
	for _, f := range fields {
		args = append(args, "-e", f)
	}
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tshark: %v\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "Lua: Error") || strings.Contains(stderr.String(), "lua_script") {
		t.Fatalf("tshark could not load the dissectors:\n%s", stderr.String())
	}
	return strings.Split(strings.TrimRight(string(out), "\n"), "\n")
}
