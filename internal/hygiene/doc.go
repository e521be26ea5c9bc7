// SPDX-License-Identifier: Apache-2.0

// Package hygiene holds the repository's own checks that are not about any
// one package: every source file carries its SPDX license identifier
// (Apache-2.0, the LICENSE at the root). It has no code; its test walks the
// module.
package hygiene
