// SPDX-License-Identifier: Apache-2.0

// Package bench holds the project's benchmarks that span packages: every
// decode path per format (gopacket.DecodingLayerParser, layers.Parser,
// gopacket.NewPacket) beside gopacket's own Ethernet+IPv4+UDP, display
// filter evaluation, the renderings (one line, JSON, fields, tree), the
// statistics collector, and the reference models that have no benchmark
// of their own (the device core, PFC, CIM signalling). The scripts in
// this directory run them with the other packages' benchmarks; see
// README.md.
//
//	go test ./bench -run '^$' -bench . -benchtime 200ms
//
// Decode, filter and render benchmarks report as ns/op the fastest of many
// blocks of 64 calls (on a shared machine the fastest block is the one
// nothing interrupted) and allocs/call. Nothing here asserts a
// time; TestDecodeAllocs asserts allocation counts.
//
// The commands: gen writes benchmark captures, floor is the raw read
// floor, compare runs sfcdump against tcpdump and tshark, overhead
// summarises many runs of the layers package's BenchmarkOverhead (the
// budget of issue #2: what our layer adds against what IPv4 adds).
package bench
