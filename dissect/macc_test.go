// SPDX-License-Identifier: Apache-2.0

package dissect

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/opensfc/sfc/layers"
)

// TestMACControlOtherOpcodes: a MAC Control frame of an opcode other than
// PAUSE and PFC (EPON's Gate, 0x0002) has macc.opcode, as tshark gives
// it, and a summary naming it (it read "ethertype 0x8808"); a PFC frame
// still has one macc.opcode, its own.
func TestMACControlOtherOpcodes(t *testing.T) {
	op, _ := LookupField("macc.opcode")
	for _, c := range []struct {
		hex     string
		opcode  uint64
		summary string
	}{
		{"0180c2000001020000000002" + "8808" + "0002" + strings.Repeat("00", 44), 0x0002, "MAC Control opcode 0x0002"},
		{"0180c2000001020000000002" + "8808" + "0102" + strings.Repeat("00", 44), 0x0102, "MAC Control opcode 0x0102"},
		{"0180c2000001020000000002" + "8808" + "0101" + "0008" + "000000000000ffff" + strings.Repeat("00", 34), 0x0101, "PFC p3=65535"},
	} {
		data, _ := hex.DecodeString(c.hex)
		p := layers.NewParser()
		f := &Frame{Number: 1, Len: len(data), CapLen: len(data), P: p, LinkBPS: 100e9}
		f.Err = p.Decode(data)
		vs := op.Values(f, nil)
		if len(vs) != 1 || vs[0].U != c.opcode {
			t.Errorf("%s: macc.opcode %+v, want one value %#x", c.hex[24:32], vs, c.opcode)
		}
		if s := string(AppendSummary(nil, f)); !strings.Contains(s, c.summary) {
			t.Errorf("%s: summary %q, want %q", c.hex[24:32], s, c.summary)
		}
	}
}
