// SPDX-License-Identifier: Apache-2.0

//go:build !purego

package crc32x

import "golang.org/x/sys/cpu"

// hasKernel: the CPU and the OS give what updateAVX512 uses.
var hasKernel = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512BW &&
	cpu.X86.HasAVX512VBMI && cpu.X86.HasAVX512VPCLMULQDQ && cpu.X86.HasPCLMULQDQ && cpu.X86.HasAVX

// updateAVX512 returns the CRC (not inverted on entry or exit) of p
// continued from crc (crc32x_amd64.s).
//
//go:noescape
func updateAVX512(crc uint32, p []byte) uint32
