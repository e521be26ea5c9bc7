// SPDX-License-Identifier: Apache-2.0

//go:build !amd64 || purego

package crc32x

// hasKernel is false: Update leaves everything to hash/crc32.
const hasKernel = false

// updateAVX512 is never called where there is no kernel.
func updateAVX512(crc uint32, p []byte) uint32 {
	panic("crc32x: no kernel")
}
