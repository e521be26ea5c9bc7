// SPDX-License-Identifier: Apache-2.0

// Package fidelity reproduces the papers' own analysis on the project's
// reference models, so that a reader can see, claim by claim, how closely
// the models that judge a vendor's device follow the papers they come
// from (issue: "Reference models that follow the papers").
//
// Each scheme contributes a Reproducer (in a file of its own: sfc.go,
// bfc.go, floodgate.go, pbfs.go) that runs scenarios on the reference
// models of packages bts, pfc, bfc, floodgate and postcard, through the
// same device core the conformance harness uses, and returns one Claim per
// paper claim: the paper's number or formula, the value the models give,
// and whether it holds (within Claim.Tol, 10 % unless stated, or the
// paper's ordering).
//
// TestClaims asserts every claim as a subtest named after its id, and
// docs/fidelity.md is this package's table, written by
//
//	go run ./fidelity/gen
//
// A test fails when the committed table differs from what the models give
// now, so the document stays true.
package fidelity
