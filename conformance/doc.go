// Package conformance replays conformance vectors through the reference
// models and compares the result with an expected capture (exact mode), or
// compares a capture of a vendor's device with the reference (device
// mode). See conformance.md in the specification and README.md here.
package conformance
