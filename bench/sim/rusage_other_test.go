// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package sim

func cpuSeconds() float64 { return 0 }
