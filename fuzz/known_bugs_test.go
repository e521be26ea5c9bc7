// SPDX-License-Identifier: Apache-2.0

package fuzz

// Reproducers of bugs the fuzzers find in packages owned by others go here:
// each test skipped while its bug is open (so main stays green), naming the
// owner and the proposed fix, with the target stepping around the input
// (knownRoundTripBug, knownDeviceBug) so that fuzzing goes
// on. Once the fix lands the test moves next to its target as a regression
// test and the crashing input stays under testdata/fuzz/FuzzXxx.
//
// Found and fixed so far (RESULTS.md):
//   - Floodgate family-6 frames with IPv4-mapped destinations did not
//     serialize: TestFloodgateV4MappedRoundTrip, fixed in layers 0e153b5.
//   - The device core's femtosecond port clock wrapped after 2 h 33 min of
//     virtual time: TestDeviceClockNoOverflow, fixed in device 67b654c.
//   - Floodgate entry lists allocated up to 21 × the frame:
//     TestDecoderAllocWorstCase, fixed in layers ca32021.
//   - pcapng interface blocks allocated 58.7 × the capture through pcapgo:
//     TestCaptureAllocWorstCase, gone with pcapio's own parser (0dba9a0).
//   - A PFC switch with BFC or Floodgate holding frames for good never
//     ended Flush (the XOFF refresh re-armed forever):
//     TestSwitchFlushEndsWithHeldFrames, fixed in pfc af30f1a.
