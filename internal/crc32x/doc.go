// SPDX-License-Identifier: Apache-2.0

// Package crc32x computes the IEEE CRC-32 (hash/crc32's IEEE, the
// reflected polynomial 0xEDB88320) with AVX-512 VPCLMULQDQ.
//
// It exists for the RoCEv2 ICRC, which the project checks on every frame
// of a capture (frames of about 60 to 1100 octets, mostly 1 KB).
// hash/crc32 folds 64 octets per iteration with 128-bit PCLMULQDQ (from
// 1 KB on with one 512-bit register, each iteration waiting for the one
// before), hands inputs under 64 octets to slicing-by-8 and the last 1-15
// octets of any input to one table lookup per octet: 36 ns for 1 KB and
// 52 ns for 1098 octets on the bench machine (an AMD EPYC of the Zen 5
// generation), against 24 and 27 ns here.
//
// Design. Update hands every non-empty input to an assembly kernel
// (crc32x_amd64.s, whose header explains the algorithm and the registers)
// when the CPU has AVX512F, AVX512VL, AVX512BW, AVX512VBMI and VPCLMULQDQ,
// and everything else to hash/crc32.Update (other CPUs, other GOARCHes,
// -tags purego). The kernel is the carry-less-multiply folding of Intel's
// "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ" in its
// reflected form (Linux's crc32-pclmul, zlib-ng, Chromium): four 512-bit
// accumulators fold 256 octets per iteration in independent chains, and
// the blocks left are folded by their distance to the last one in
// parallel rather than one after the other. The 64-octet blocks are
// aligned on the end of the input: the first block takes the odd octets
// behind zeros (VPERMB), so there is no tail; inputs under 64 octets are
// read by one masked load. The 128 bits left are Barrett-reduced to 32 with
// hash/crc32's own final sequence and constants. The kernel reads nothing
// outside p. On the bench machine a VPCLMULQDQ, 512-bit or 128-bit, issues
// every other cycle, which bounds the kernel to 16 octets per cycle (54
// GB/s measured at 64 KiB): 1 KB takes 36 VPCLMULQDQ, 72 cycles, 20 ns at
// 3.6 GHz.
//
// consts_test.go derives every constant of the kernel and checks the
// assembly against it.
package crc32x
