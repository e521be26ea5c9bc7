// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"strings"
	"testing"
)

// TestPFCPauseOnlyEnabled: a class's time counts only where its enable bit
// is set (wire.md §2), so pfc.pause_ns_cN is absent (left out of JSON, the
// verbose tree and filters) for a class whose bit is clear, whatever its
// time field holds; pfc.time_cN stays the raw field, as tshark shows it.
// Before, the frame below (/tmp/hard/pfcodd.pcap frame 1: priority 3
// enabled, 65535 quanta; priority 0 disabled, 100) had "pause_ns_c0":512.
// The straight JSON writer and the table agree.
func TestPFCPauseOnlyEnabled(t *testing.T) {
	data := mustHex(t, "0180c2000001 020000000002 8808 0101 0008 0064 0000 0000 ffff 0000 0000 0000 0000"+strings.Repeat("00", 26))
	f := decodeFrame(data, len(data), 100e9)
	if f.Err != nil {
		t.Fatal(f.Err)
	}
	var e Encoder
	js := string(e.AppendJSON(nil, f))
	if !strings.Contains(js, `"time_c0":100,`) || !strings.Contains(js, `"time_c7":0,"pause_ns_c3":335539}`) {
		t.Errorf("JSON %s\nwant time_c0 100 and pause_ns_c3 alone", js)
	}
	saved := jsonFastOf
	jsonFastOf = make([]func([]byte, *Frame) ([]byte, bool), len(Protos))
	slow := string(e.AppendJSON(nil, f))
	jsonFastOf = saved
	if slow != js {
		t.Errorf("straight %s\ntable    %s", js, slow)
	}
	tree := string(e.AppendTree(nil, f))
	if strings.Contains(tree, "pfc.pause_ns_c0") || !strings.Contains(tree, "pfc.pause_ns_c3: 335539\n") || !strings.Contains(tree, "pfc.time_c0: 100\n") ||
		!strings.Contains(tree, "pfc.time_c3: 65535 (335.539 us at 100G)\n") { // a disabled class's time asks for no pause
		t.Errorf("tree:\n%s", tree)
	}
	for c, want := range map[string]int{"0": 0, "1": 0, "3": 1, "7": 0} {
		fd, _ := LookupField("pfc.pause_ns_c" + c)
		if v := fd.Values(f, nil); len(v) != want {
			t.Errorf("pfc.pause_ns_c%s = %v, want %d values", c, v, want)
		}
		fd, _ = LookupField("pfc.time_c" + c)
		if v := fd.Values(f, nil); len(v) != 1 {
			t.Errorf("pfc.time_c%s = %v, want the raw field", c, v)
		}
	}
}
