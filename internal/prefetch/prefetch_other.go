// SPDX-License-Identifier: Apache-2.0

//go:build !amd64

package prefetch

import "unsafe"

// Line does nothing where the project has no prefetch instruction.
func Line(unsafe.Pointer) {}

func lines(unsafe.Pointer, uintptr) {}
