// SPDX-License-Identifier: Apache-2.0

// Package fuzz holds the project's Go native fuzz targets and their runner
// (run.sh). The package has no code of its own: every target is in a
// _test.go file, so `go test ./fuzz` replays the seed corpora and the
// committed regression inputs (testdata/fuzz/FuzzXxx/) in a few seconds,
// and
//
//	go test ./fuzz -run='^$' -fuzz='^FuzzLayers$' -fuzztime=30s -parallel=1
//
// fuzzes one target. fuzz/run.sh fuzzes every target in turn and prints
// executions per second and new corpus entries; see RESULTS.md for the
// time each target has been fuzzed and what it found.
//
// # Targets
//
//	FuzzLayers      every layer's DecodeFromBytes (MACControl, Pause, PFC,
//	                BTH, RETH, AETH, ImmDt, DETH, CNP, CIM, BTS, Postcard,
//	                FCExp, BFC, FGCredit, FGPause) on the same bytes, plus
//	                DecodeQuote, ComputeICRC and the BFC filter helpers
//	FuzzPacket      gopacket.NewPacket from Ethernet with the package's
//	                registrations, and layers.Parser with every dissect
//	                encoder (summary, tree, JSON, every field)
//	FuzzRoundTrip   decode, serialize, decode again: the same fields
//	FuzzPcap        sfcdump's read path: pcapio (pcap, pcapng, gzip), the
//	                Parser and the encoders, frame by frame
//	FuzzFilter      the display filter: Compile on arbitrary expressions,
//	                Match on arbitrary frames
//	FuzzCase        conformance.ParseCase on arbitrary case.yaml text, then
//	                BuildModel and a few frames through the model
//	FuzzSwitch      arbitrary frames and timestamps into a reference switch
//	                with SFC (BTS or CIM signalling, cache, estimator),
//	                SFC-P, PFC (switch and receiver), BFC, Floodgate, PB-FS
//	FuzzNIC         the same into a reference NIC (SFC NIC, CIM NIC, PFC
//	                receiver, BFC, Floodgate, PB-FS sender) and its host side
//
// Seeds come from package sample (every format, and the malformed frames),
// from every capture under pcaps/ (the first 5 frames of each: the
// vectors repeat a few shapes, and every seed costs baseline time), from the
// golden frames of layers/golden_test.go, from the case.yaml files of the
// conformance vectors and from filter's tests. Inputs that crashed a target
// once are kept under testdata/fuzz/FuzzXxx/ and replayed by go test.
// Bugs found in other packages and not fixed yet have a skipped reproducer
// in known_bugs_test.go, and the targets step around them (knownXxxBug) so
// that fuzzing goes on.
//
// # What every target checks
//
// No panic, no hang (a watchdog kills an execution that runs longer than
// the target's limit, which the fuzzer records as a crasher), and bounded
// memory:
//
//   - A decoder allocates at most 8 × len(input) + 4096 octets for one
//     decode, measured with runtime.ReadMemStats around the call (fresh
//     layers for DecodeFromBytes, so that growing slices are counted; a
//     warm Parser for the Parser path). The constant covers the error
//     value and its message; the factor covers the decoded Floodgate entry
//     lists (a 32-octet entry per 8 octets of IPv4 entries).
//   - The capture reader allocates at most 16 × (decompressed input) + 2 MiB
//     (its read buffer and the gzip window; per-interface state is the part
//     that grows with the input, 13.6 × for a capture of nothing but
//     interface blocks).
//   - Parsing a case.yaml allocates at most 512 × len(input) + 1 MiB (a YAML
//     node tree; the bound catches alias expansion).
//   - A compiled display filter's Match allocates nothing once warm.
//   - A switch never holds more than its shared buffer in frames that went
//     through buffer admission; the exceptions the specification makes
//     (generated control frames, PFC headroom up to its configured size, the
//     frame being transmitted on each port) are counted separately and
//     bounded too.
//
// The model targets also check that queue depths never go negative, that
// a port never starts a frame before the previous one has left, and that
// every frame is accounted for: forwarded, queued, dropped with a counted
// reason, or consumed by a scheme.
package fuzz
