// SPDX-License-Identifier: Apache-2.0

//go:build !amd64

package prefetch

import "unsafe"

func line(unsafe.Pointer) {}
