// SPDX-License-Identifier: Apache-2.0

//go:build !amd64 || purego

package blake3x

// hasKernel is false: New returns zeebo/blake3's hasher.
var hasKernel = false

// compress16 is the portable double where there is no kernel.
var compress16 = compress16Go
