// SPDX-License-Identifier: Apache-2.0

// Package sample builds the sample captures shipped in pcaps/: one frame of
// every format of wire.md (IPv4 and IPv6 where the format allows), and a
// capture of malformed frames, all encoded through the layers package. `go
// run ./sample/gen` rewrites pcaps/sample.pcapng and pcaps/malformed.pcapng;
// a test checks the shipped files match what this package builds.
package sample
