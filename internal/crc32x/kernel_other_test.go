// SPDX-License-Identifier: Apache-2.0

//go:build !amd64 || purego

package crc32x

import "testing"

// TestKernelTaken: this build has no kernel (another GOARCH, or -tags
// purego); Update is hash/crc32.Update.
func TestKernelTaken(t *testing.T) {
	t.Skip("SKIPPED: NO KERNEL IN THIS BUILD (GOARCH other than amd64, or -tags purego): ONLY THE hash/crc32 FALLBACK IS TESTED")
}
