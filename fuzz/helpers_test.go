// SPDX-License-Identifier: Apache-2.0

package fuzz

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	glayers "github.com/gopacket/gopacket/layers"

	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/pcapio"
	"github.com/opensfc/sfc/sample"
)

// maxInput caps the inputs the decoder targets look at. Frames are at most
// 64 KiB (a jumbo frame is 9 KiB); longer inputs only slow the fuzzer down.
const maxInput = 1 << 16

// ---- hang watchdog ----

// The watchdog turns a hang into a crash the fuzzer records: an execution
// that runs longer than its limit panics the worker process, with every
// goroutine's stack, and Go's fuzzer saves the input under
// testdata/fuzz/FuzzXxx. A timer per execution would allocate inside the
// measured region; one goroutine polling an atomic does not.
var (
	wdOnce  sync.Once
	wdStart atomic.Int64 // unix ns the current execution started, 0 when idle
	wdLimit atomic.Int64 // ns
	wdName  atomic.Value // string
)

// watch marks the start of an execution of target name with a time limit;
// call the returned function when it ends.
func watch(name string, limit time.Duration) func() {
	wdOnce.Do(func() {
		go func() {
			for range time.Tick(100 * time.Millisecond) {
				s := wdStart.Load()
				if s == 0 {
					continue
				}
				if el := time.Now().UnixNano() - s; el > wdLimit.Load() {
					buf := make([]byte, 1<<20)
					n := runtime.Stack(buf, true)
					fmt.Fprintf(os.Stderr, "%s\n", buf[:n])
					panic(fmt.Sprintf("hang: %s ran for %v (limit %v)", wdName.Load(), time.Duration(el), time.Duration(wdLimit.Load())))
				}
			}
		}()
	})
	wdName.Store(name)
	wdLimit.Store(int64(limit))
	wdStart.Store(time.Now().UnixNano())
	return func() { wdStart.Store(0) }
}

// ---- allocation bound ----

// allocated returns the octets the heap allocated while fn ran. The world
// is stopped twice, so measure calls, not loops.
func allocated(fn func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// decodeBound is what one decode of n input octets may allocate (doc.go).
func decodeBound(n int) uint64 { return 8*uint64(n) + 4096 }

// checkAlloc fails t when fn allocates more than bound octets. When the
// first measurement (try 0) exceeds the bound it measures again (try 1), so
// that the fuzzer's own goroutines allocating at the same moment do not make
// a flaky failure: only an input that allocates too much twice is reported.
// fn must do the same work on both tries (fresh layers each time).
func checkAlloc(t *testing.T, what string, n int, bound uint64, fn func(try int)) {
	got := allocated(func() { fn(0) })
	if got <= bound {
		return
	}
	if again := allocated(func() { fn(1) }); again <= bound {
		return
	} else if again < got {
		got = again
	}
	t.Fatalf("%s allocated %d octets for %d octets of input (bound %d)", what, got, n, bound)
}

// ---- seeds ----

// ourPanic returns the stack of a panic that NewPacket recovered from in
// this project's code while decoding pkt, or "". NewPacket turns a panic
// into a DecodeFailure whose Dump is the stack and whose error text does
// not say panic. A panic raised in gopacket's own layers is not ours to
// fix here: it goes to known_bugs_test.go when the fuzzer finds one.
func ourPanic(pkt gopacket.Packet) string {
	df, ok := pkt.ErrorLayer().(*gopacket.DecodeFailure)
	if !ok {
		return ""
	}
	if stack := df.Dump(); stackIsOurs(stack) {
		return stack
	}
	return ""
}

// stackIsOurs reports whether the panic of a goroutine stack (as
// debug.Stack prints it) was raised in this project's code: walking the
// calls from the "panic(" line outwards, a function of ours comes before
// any of gopacket's. The runtime's and the standard library's in between
// (a bounds check, an inlined binary.BigEndian.Uint32) are passed over.
func stackIsOurs(stack string) bool {
	after := false
	for _, line := range strings.Split(stack, "\n") {
		switch {
		case strings.HasPrefix(line, "\t") || line == "":
		case strings.HasPrefix(line, "panic("):
			after = true
		case !after:
		case strings.HasPrefix(line, "github.com/opensfc/sfc/"):
			return true
		case strings.HasPrefix(line, "github.com/gopacket/"):
			return false
		}
	}
	return false
}

func unhex(s string) []byte {
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		panic(err)
	}
	return b
}

// goldenFrames are the hand-written frames of layers/golden_test.go
// (wire.md's tables, octet by octet), Ethernet onward, copied here because
// test files of another package cannot be imported.
var goldenFrames = []string{
	// CNP IPv4 and IPv6 (wire.md §3.3).
	`020000000002 020000000001 0800 45c0003c00000000401165ef0a0000010a000002
	c00012b700280000 8100ffff400000d200000000 00000000000000000000000000000000 5c763923`,
	`020000000002 020000000001 86dd
	66812345 0028 11 40 fd000000000000000000000000000001 fd000000000000000000000000000002
	c00012b70028cfa1 8100ffff4000abcd00000000 00000000000000000000000000000000 0f7de6f4`,
	// PAUSE.
	`0180c2000001 020000000001 8808 0001 1234
	000000000000000000000000000000000000000000 000000000000000000000000000000000000000000`,
	// PFC.
	`0180c2000001 020000000001 8808
	0101 0021 0010 0000 0000 0003 0000 ffff 0000 0000
	0000000000000000000000000000000000000000000000000000`,
	// L2 CIM with the SFC TLV.
	`020000000001 020000000009 89a2
	03 020000000002 020000000001 0064 0030
	45 68 043c 0001 4000 40 11 0000 0a000001 0a000002
	c000 12b7 0428 0000 0a 00 ffff 00 000123 80 000001 00007f0000001000
	01 08 0064 01 00 0000002a`,
	// L3 CIM.
	`020000000001 020000000009 0800
	45c00067 00000000 4011 65c4 0a000002 0a000001
	c000 89a2 0053 b2cc
	03 020000000002 020000000001 0064 0030
	45 68 043c 0001 4000 40 11 0000 0a000001 0a000002
	c000 12b7 0428 0000 0a 00 ffff 00 000123 80 000001 00007f0000001000
	01 08 0064 01 00 0000002a`,
	// BTS.
	`020000000001 020000000002 0800
	45c0006c 00000000 4011 65bf 0a000002 0a000001
	c000 03fd 0058 57a1
	11 00 0064 0000002a 0005 03 00 0001e848
	45 68 043c 0001 4000 40 11 0000 0a000001 0a000002
	c000 12b7 0428 0000 0a 00 ffff 00 000123 80 000001
	00007f0000001000 00000001 00000400 0000000000000000`,
	// Postcard over IPv6.
	`020000000001 020000000003 86dd
	6c000000 006c 11 40 fd000000000000000000000000000010 fd000000000000000000000000000001
	c001 03fe 006c ead0
	10 00 0007 020000aabbcc 0000 000186a0 000061a8 0004c4b4 0000c350 00002710 000003e8
	60400000 0418 11 40 fd000000000000000000000000000001 fd000000000000000000000000000002
	c002 12b7 0418 0000 04 00 ffff 00 000456 00 000007 deadbeef`,
	// BFC.
	`0180c200000e 020000000001 88b5
	4643 01 01 04 00 0010 00000007
	80000000 00010000 00000000 00000010
	000000000000000000000000000000000000`,
	// Floodgate credit, IPv4.
	`0180c200000e 020000000001 88b5
	4643 02 01 04 00 0002 0000ea60 0a000001 00000400 0a000002
	00000000000000000000000000000000000000000000`,
	// Floodgate dst-pause, IPv6.
	`0180c200000e 020000000001 88b5
	4643 03 01 06 00 0002
	ffff 0000 fd000000000000000000000000000001
	0000 0000 fd000000000000000000000000000002`,
}

var (
	seedOnce   sync.Once
	seedFrames [][]byte
)

// frames returns every seed frame, Ethernet onward: the sample and
// malformed captures of package sample (the same bytes as
// pcaps/*.pcapng), every frame of every capture under pcaps/ (conformance
// vectors included, as they land), and the golden frames.
func frames() [][]byte {
	seedOnce.Do(func() {
		seen := map[string]bool{}
		add := func(b []byte) {
			if len(b) > 0 && !seen[string(b)] {
				seen[string(b)] = true
				seedFrames = append(seedFrames, append([]byte(nil), b...))
			}
		}
		for _, f := range sample.Frames() {
			add(f.Data)
		}
		for _, f := range sample.Malformed() {
			add(f.Data)
		}
		for _, h := range goldenFrames {
			add(unhex(h))
		}
		for _, path := range captures() {
			r, err := pcapio.Open(path)
			if err != nil {
				continue
			}
			for n := 0; n < 5; n++ {
				fr, err := r.Next()
				if err != nil {
					break
				}
				add(fr.Data)
			}
			r.Close()
		}
		// The IPv6 extension-header goldens (scapy-built) and the IPv4 AH
		// and ESP ones.
		for _, dir := range []string{"ipv6ext", "ipv4ah"} {
			if b, err := os.ReadFile(filepath.Join("..", "layers", "testdata", dir, "frames.txt")); err == nil {
				for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
					if w := strings.Fields(line); len(w) == 6 {
						add(unhex(w[5]))
					}
				}
			}
		}
	})
	return seedFrames
}

// captures lists the capture files under pcaps/.
func captures() []string {
	var out []string
	filepath.WalkDir(filepath.Join("..", "pcaps"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".pcapng") || strings.HasSuffix(path, ".pcap") || strings.HasSuffix(path, ".gz")) {
			out = append(out, path)
		}
		return nil
	})
	return out
}

// layerBodies returns, for every seed frame, the octets each of our layers
// decodes from: the MAC Control body, the CIM PDU, the 0x88B5 body, the
// UDP payload of RoCEv2, BTS, postcard and L3 CIM datagrams; and the IP
// packets (quotes).
func layerBodies() [][]byte {
	var out [][]byte
	seen := map[string]bool{}
	add := func(b []byte) {
		if len(b) > 0 && !seen[string(b)] {
			seen[string(b)] = true
			out = append(out, b)
		}
	}
	p := layers.NewParser()
	for _, f := range frames() {
		p.Decode(f)
		if len(p.Eth.Payload) > 0 {
			add(p.Eth.Payload)
		}
		if p.Has(glayers.LayerTypeDot1Q) {
			add(p.Dot1Q.Payload)
		}
		if p.Has(glayers.LayerTypeIPv4) {
			add(append(append([]byte(nil), p.IPv4.Contents...), p.IPv4.Payload...))
		}
		if p.Has(glayers.LayerTypeIPv6) {
			add(append(append([]byte(nil), p.IPv6.Contents...), p.IPv6.Payload...))
		}
		if p.Has(glayers.LayerTypeUDP) {
			add(p.UDP.Payload)
		}
	}
	return out
}

// mustNotPanicLayers lists a fresh instance of every decoding layer of
// package layers, in a fixed order.
func freshLayers() []gopacket.DecodingLayer {
	return []gopacket.DecodingLayer{
		&layers.MACControl{}, &layers.Pause{}, &layers.PFC{}, &layers.BTH{}, &layers.RETH{}, &layers.AETH{},
		&layers.ImmDt{}, &layers.DETH{}, &layers.CNP{}, &layers.CIM{}, &layers.BTS{}, &layers.Postcard{},
		&layers.FCExp{}, &layers.BFC{}, &layers.FGCredit{}, &layers.FGPause{},
	}
}

func TestSeedsPresent(t *testing.T) {
	if n := len(frames()); n < 30 {
		t.Fatalf("only %d seed frames", n)
	}
	if n := len(layerBodies()); n < 20 {
		t.Fatalf("only %d layer bodies", n)
	}
}

func TestStackIsOurs(t *testing.T) {
	const head = "goroutine 1 [running]:\nruntime/debug.Stack()\n\t/usr/local/go/src/runtime/debug/stack.go:26 +0x5e\n" +
		"github.com/gopacket/gopacket.(*packet).recoverDecodeError(0xc000120000)\n\t/root/go/pkg/mod/github.com/gopacket/gopacket@v1.7.7/packet.go:266 +0x85\n" +
		"panic({0x6d0a40?, 0xc000016150?})\n\t/usr/local/go/src/runtime/panic.go:792 +0x132\n"
	const tail = "github.com/gopacket/gopacket.DecodeFunc.Decode(...)\n\t/root/go/pkg/mod/github.com/gopacket/gopacket@v1.7.7/decode.go:27\n" +
		"github.com/gopacket/gopacket.(*packet).NextDecoder(0xc000120000, {0x7a1b20, 0x9b4e60})\n\t/root/go/pkg/mod/github.com/gopacket/gopacket@v1.7.7/packet.go:683 +0x19d\n"
	for _, c := range []struct {
		name, frames string
		want         bool
	}{
		{"index out of range in ours", "runtime.goPanicIndex(0x5, 0x3)\n\t/usr/local/go/src/runtime/panic.go:115 +0x74\n" +
			"github.com/opensfc/sfc/layers.decodeBTH({0xc00001c0e4, 0x3, 0x3}, {0x7a5f40, 0xc000120000})\n\t/work/main/layers/roce.go:680 +0x1bd\n", true},
		{"inlined binary.BigEndian in ours", "runtime.goPanicSliceB(...)\n\t/usr/local/go/src/runtime/panic.go:153\n" +
			"encoding/binary.bigEndian.Uint32(...)\n\t/usr/local/go/src/encoding/binary/binary.go:176\n" +
			"github.com/opensfc/sfc/layers.(*BTS).DecodeFromBytes(0xc00011e000, {0xc00001c0e4, 0x1, 0x1}, {0x7a5f40, 0xc000120000})\n\t/work/main/layers/bts.go:120 +0x2f1\n", true},
		{"gopacket's own layer", "runtime.goPanicIndex(0x5, 0x3)\n\t/usr/local/go/src/runtime/panic.go:115 +0x74\n" +
			"github.com/gopacket/gopacket/layers.(*SIP).DecodeFromBytes(0xc00011e000, {0xc00001c0e4, 0x3, 0x3}, {0x7a5f40, 0xc000120000})\n\t/root/go/pkg/mod/github.com/gopacket/gopacket@v1.7.7/layers/sip.go:250 +0x1bd\n" +
			"github.com/opensfc/sfc/layers.decodeBTH({0xc00001c0e4, 0x3, 0x3}, {0x7a5f40, 0xc000120000})\n\t/work/main/layers/roce.go:700 +0x1bd\n", false},
		{"no panic line", "github.com/opensfc/sfc/layers.decodeBTH(...)\n\t/work/main/layers/roce.go:680\n", false},
	} {
		stack := head + c.frames + tail
		if c.name == "no panic line" {
			stack = c.frames
		}
		if got := stackIsOurs(stack); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
