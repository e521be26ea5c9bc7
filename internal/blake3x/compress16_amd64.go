// SPDX-License-Identifier: Apache-2.0

//go:build !purego

package blake3x

import "golang.org/x/sys/cpu"

//go:generate go run gen.go -out compress16_amd64.s

// hasKernel: the CPU and the OS give AVX-512 Foundation.
var hasKernel = cpu.X86.HasAVX512F

// compress16 is the AVX-512 kernel (compress16_amd64.s); see kernel.
//
//go:noescape
func compress16(in *byte, offs *[16]uint64, blocks uint64, p *params, out *[128]uint32)
