// SPDX-License-Identifier: Apache-2.0

// Package scenario generates the inputs of conformance vectors: incast
// with a synchronization window, pause storms, flow mixes, sender-side ToR
// and NIC signal sequences, malformed frames. Each scenario is a named
// generator with flags; the same flags always give the same bytes, and a
// vector's case.yaml records the scenario line that made it.
package scenario
