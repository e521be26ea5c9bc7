// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opensfc/sfc/pcapio"
)

const linkDir = "../../layers/testdata/link/"

// TestLinkTypesEveryCommand: captures of `tcpdump -i any` (Linux SLL and
// SLL2) and raw IP decode in read (text, JSON, fields, a filter), stats,
// timeline, and survive -w with their link type.
func TestLinkTypesEveryCommand(t *testing.T) {
	for _, name := range []string{"sll.pcap", "sll2.pcap", "raw.pcap", "ipv4.pcap", "ipv6.pcap"} {
		file := linkDir + name
		out, errs, code := sfcdump(t, "read", file)
		if code != 0 || !strings.Contains(out, "RoCEv2 RC WRITE Only qp 0x00abcd") && !strings.Contains(out, "BTS pause 20us") {
			t.Errorf("%s: read: %d %q\n%s", name, code, errs, out)
		}
		out, _, code = sfcdump(t, "read", "-T", "fields", "-e", "udp.dport", "-e", "bth.destqp", "-e", "flow.qp", "-Y", "bth || bts", file)
		if code != 0 || !strings.Contains(out, "4791\t43981\t") && !strings.Contains(out, "1021\t\t4660") {
			t.Errorf("%s: fields: %d\n%s", name, code, out)
		}
		out, _, code = sfcdump(t, "read", "-T", "json", "-c", "1", file)
		if code != 0 || strings.HasPrefix(name, "sll") != strings.Contains(out, `"sll":{"pkttype":`) || !strings.Contains(out, `"udp":{`) {
			t.Errorf("%s: json: %d\n%s", name, code, out)
		}
		out, errs, code = sfcdump(t, "stats", file)
		if code != 0 || !strings.Contains(out, "bts") && !strings.Contains(out, "bth") && !strings.Contains(out, "RoCE") {
			t.Errorf("%s: stats: %d %q\n%s", name, code, errs, out)
		}
		svg := filepath.Join(t.TempDir(), "t.svg")
		if name != "ipv4.pcap" { // ipv4.pcap holds no signal to draw
			_, errs, code := sfcdump(t, "timeline", "-o", svg, file)
			if b, _ := os.ReadFile(svg); code != 0 || !strings.Contains(string(b), "0x001234") {
				t.Errorf("%s: timeline: %d %s", name, code, errs)
			}
		}
		w := filepath.Join(t.TempDir(), "out.pcapng")
		if _, errs, code := sfcdump(t, "read", "-w", w, file); code != 0 {
			t.Fatalf("%s: -w: %d %s", name, code, errs)
		}
		r, err := pcapio.Open(w)
		if err != nil {
			t.Fatal(err)
		}
		in, _ := pcapio.Open(file)
		if got, want := r.Interface(0).LinkType, in.Interface(0).LinkType; got != want {
			t.Errorf("%s: -w wrote link type %v, want %v", name, got, want)
		}
		r.Close()
		in.Close()
	}
}

// pcapngPFC is a pcapng with two interfaces, port25 (if_speed 25 Gb/s,
// if_tsresol 10^-9) and port0 (no speed), each with a PFC frame asking
// 0xffff quanta on priority 3; on port25 the frame's captured length (60)
// exceeds its original length (50).
func pcapngPFC(t *testing.T) string {
	le := binary.LittleEndian
	var buf []byte
	block := func(typ uint32, body []byte) {
		for len(body)%4 != 0 {
			body = append(body, 0)
		}
		buf = le.AppendUint32(buf, typ)
		buf = le.AppendUint32(buf, uint32(12+len(body)))
		buf = append(buf, body...)
		buf = le.AppendUint32(buf, uint32(12+len(body)))
	}
	opt := func(b []byte, code uint16, v []byte) []byte {
		b = le.AppendUint16(b, code)
		b = le.AppendUint16(b, uint16(len(v)))
		b = append(b, v...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		return b
	}
	shb := le.AppendUint32(nil, 0x1a2b3c4d)
	shb = append(shb, 1, 0, 0, 0)
	shb = le.AppendUint64(shb, ^uint64(0))
	block(0x0a0d0d0a, shb)
	idb := func(name string, speed uint64) {
		b := le.AppendUint16(nil, 1)
		b = le.AppendUint16(b, 0)
		b = le.AppendUint32(b, 0)
		b = opt(b, 2, []byte(name))
		b = opt(b, 9, []byte{9})
		if speed != 0 {
			b = opt(b, 8, le.AppendUint64(nil, speed))
		}
		block(1, opt(b, 0, nil))
	}
	idb("port25", 25e9)
	idb("port0", 0)
	pfc, _ := hex.DecodeString("0180c2000001020000000001880801010008000000000000ffff00000000000000000000000000000000000000000000000000000000000000000000")
	for i, orig := range []int{50, 60} {
		b := le.AppendUint32(nil, uint32(i))
		b = le.AppendUint32(b, 0)
		b = le.AppendUint32(b, uint32(1_000_000_000*(i+1)))
		b = le.AppendUint32(b, uint32(len(pfc)))
		b = le.AppendUint32(b, uint32(orig))
		block(6, append(b, pfc...))
	}
	p := filepath.Join(t.TempDir(), "pfc.pcapng")
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestIfSpeedAndSpeedFlag: PFC quanta turn into time at the interface's
// own speed (pcapng if_speed; 100G when the capture does not say), in
// JSON and fields; --speed (--link-speed) overrides it; the record whose
// caplen exceeds its origlen is flagged on its own line, and the next
// frame is read.
func TestIfSpeedAndSpeedFlag(t *testing.T) {
	file := pcapngPFC(t)
	out, errs, code := sfcdump(t, "read", "-T", "fields", "-e", "frame.number", "-e", "pfc.pause_ns_c3", file)
	if code != 0 || out != "1\t1342156\n2\t335539\n" {
		t.Errorf("if_speed: %d %q %q", code, out, errs)
	}
	for _, flag := range []string{"--speed", "--link-speed"} {
		out, _, _ = sfcdump(t, "read", "-T", "fields", "-e", "pfc.pause_ns_c3", flag, "10G", file)
		if out != "3355392\n3355392\n" {
			t.Errorf("%s 10G: %q", flag, out)
		}
		out, _, _ = sfcdump(t, "read", "-T", "fields", "-e", "pfc.pause_ns_c3", flag, "port0=10G", file)
		if out != "1342156\n3355392\n" {
			t.Errorf("%s port0=10G: %q", flag, out)
		}
	}
	out, _, _ = sfcdump(t, "stats", file)
	if !strings.Contains(out, "1342.157   25G   1342.156") || !strings.Contains(out, "335.539    100G  335.539") {
		t.Errorf("stats at the interfaces' speeds:\n%s", out)
	}
	out, _, code = sfcdump(t, "read", file)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.Contains(lines[0], "[1 warning]") || strings.Contains(lines[1], "warning") {
		t.Errorf("caplen > origlen: %d\n%s", code, out)
	}
	out, _, _ = sfcdump(t, "read", "-T", "json", "-c", "1", file)
	if !strings.Contains(out, `"warnings":["frame: captured length 60 exceeds original length 50"]`) || !strings.Contains(out, `"pause_ns_c3":1342156`) {
		t.Errorf("json: %s", out)
	}
}
