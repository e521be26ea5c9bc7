// SPDX-License-Identifier: Apache-2.0

// Package pcapio opens packet captures for the project's tools: classic
// pcap (micro- or nanosecond, either byte order, and Kuznetsov's modified
// pcap) and pcapng (with per-frame interfaces and comments), gzip- or zstd-compressed
// or not, from a file or standard input, as one streaming Reader. It reads
// frames one at a time into a reused buffer, so memory does not grow with
// the length of the capture. Next reads one frame, ReadBatch the frames
// of one read into a batch of the caller's; a regular uncompressed file
// can also be read by position (Reserve, Batch.Load, Frame: parallel.go),
// so that several goroutines copy their parts of it at once and only the
// parsing of the records runs in order.
//
// Link types: Ethernet, Linux cooked captures (SLL, SLL2: what tcpdump -i
// any writes) and raw IP (SupportedLink); each Frame names its interface's.
// Interfaces carry the pcapng if_speed (Interface.Speed) and their own
// if_tsresol, decimal or binary, converted exactly; a malformed or
// out-of-range one is ignored with a warning (Reader.OnWarning), as
// tshark ignores it. A record whose
// captured length exceeds its original length is read and flagged
// (Frame.Warn), not the end of the capture.
//
// Errors name the file and the frame: a truncated capture returns every
// frame before the cut and then a *FrameError that says which frame number
// was the last good one. A gzip or zstd stream found damaged says after
// which frame, and that its checksum covers the frames read before.
package pcapio
