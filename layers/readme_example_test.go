// SPDX-License-Identifier: Apache-2.0

package layers_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	sfclayers "github.com/opensfc/sfc/layers"
)

// The BTS golden frame of wire.md §5 (layers/golden_test.go): origin
// queue, 100 µs, about 10.0.0.1:49152 > 10.0.0.2:4791, QP 0x000123.
var btsFrame = mustHex(`020000000001 020000000002 0800
	45c0006c 00000000 4011 65bf 0a000002 0a000001
	c000 03fd 0058 57a1
	11 00 0064 0000002a 0005 03 00 0001e848
	45 68 043c 0001 4000 40 11 0000 0a000001 0a000002
	c000 12b7 0428 0000
	0a 00 ffff 00 000123 80 000001
	00007f0000001000 00000001 00000400
	0000000000000000`)

// The library example of README.md, whose Go blocks must appear here line
// for line (TestReadmeExamples), so that they compile and print what the
// README says.
func Example_readme() {
	frame := btsFrame
	pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
	if bts, ok := pkt.Layer(sfclayers.LayerTypeBTS).(*sfclayers.BTS); ok {
		fmt.Println(bts.PauseUS, bts.Origin, bts.Flow) // 100 queue 10.0.0.1:49152 > 10.0.0.2:4791 proto 17 dscp 26 qp 0x000123
	}

	frame = cnpFrame
	p := sfclayers.NewParser()
	if err := p.Decode(frame); err == nil && p.Has(sfclayers.LayerTypeBTH) {
		fmt.Println(p.BTH.DestQP, p.BTH.ICRCOK)
	}
	// Output:
	// 100 queue 10.0.0.1:49152 > 10.0.0.2:4791 proto 17 dscp 26 qp 0x000123
	// 210 true
}

// TestReadmeExamples checks that every Go block of README.md appears, line
// for line (indentation aside), in this file, where Example_readme runs
// it.
func TestReadmeExamples(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("readme_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := func(s string) string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, l)
			}
		}
		return "\n" + strings.Join(out, "\n") + "\n"
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	if len(blocks) == 0 {
		t.Fatal("README.md has no Go block")
	}
	body := lines(string(src))
	for _, b := range blocks {
		if !strings.Contains(body, lines(b[1])) {
			t.Errorf("README.md's block\n%s\nis not in readme_example_test.go, where Example_readme would run it", b[1])
		}
	}
}
