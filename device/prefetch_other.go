// SPDX-License-Identifier: Apache-2.0

//go:build !amd64

package device

import "unsafe"

// prefetch does nothing where the project has no prefetch instruction.
func prefetch(unsafe.Pointer) {}
