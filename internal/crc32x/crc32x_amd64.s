// SPDX-License-Identifier: Apache-2.0

//go:build !purego

#include "textflag.h"

// updateAVX512: the IEEE CRC-32 (reflected, polynomial 0xEDB88320) by
// carry-less-multiply folding with 512-bit VPCLMULQDQ.
//
// Notation. A 16-octet lane of the input, read little-endian into two
// quadwords, holds the bit-reflected polynomial of its 128 message bits:
// octet 0 bit 0 is the highest power. Folding a lane by D bits replaces the
// lane X = XH*x^64 + XL (XH its first 8 octets, the low quadword) by
//
//	XH*(x^(D+32) mod P) + XL*(x^(D-32) mod P)
//
// which is congruent to X*x^D mod P and fits in 128 bits; XOR-ing it into
// the lane D bits further on leaves the CRC of the whole unchanged. A
// constant k(n) below is bitrev32(x^n mod P) << 1 (33 bits): the
// carry-less product of a reflected quadword with it is the reflected
// product already multiplied by x^32, hence the +32 and -32. A fold
// constant is a 16-octet pair, k(D+32) in the low quadword (for XH) and
// k(D-32) in the high one (for XL); VPCLMULQDQ $0x00 and $0x11 multiply
// the low and the high quadwords of the four lanes of a Z register at
// once. consts_test.go derives every constant and checks this file.
//
// The message is cut into 64-octet blocks aligned on its end, so that no
// partial block is left at the end: the first block F holds the first
// t = ((n-1) mod 64) + 1 octets (1..64) behind 64-t zero octets, which add
// nothing to a CRC. Algorithm, for n = len(p) >= 1:
//
//  1. The initial crc c (inverted by the caller) is XOR-ed into the first
//     4 octets. Those that fall past F (t < 4) form c2 = c >> 8t, XOR-ed
//     into the next block or, when there is none (n < 4), into the result
//     (they never entered the register's shifts).
//  2. F: the first 64 octets (n >= 64) or the n octets under a mask (n <
//     64; a masked load does not touch the octets masked off, though it
//     may be slow when they lie in a page that cannot be read), XOR c, are
//     moved to the end of the register by VPERMB, zeros in front.
//  3. 4 blocks or more: Z1-Z4 hold F and the next 3 blocks; each iteration
//     of the main loop folds all four by 2048 bits and XORs in the next
//     256 octets: four independent chains, 8 VPCLMULQDQ per 256 octets.
//     With k = 0..3 blocks left, Z1, Z2, Z3 are folded by (k+3)*512,
//     (k+2)*512 and (k+1)*512 bits into Z14, in parallel.
//  4. Then each remaining block (Z4, then the k blocks left; or F and the
//     1 or 2 blocks after it when there are fewer than 4) is folded to the
//     last block by its distance from it, again independently, into Z14;
//     the last block is XOR-ed in unfolded.
//  5. Z1 to X1: lanes 0, 1, 2 are folded by 384, 256 and 128 bits (one
//     multiplication pair with per-lane constants) and XOR-ed with lane 3.
//  6. Barrett reduction of X1 to 32 bits: the sequence and constants of
//     hash/crc32's ieeeCLMUL (from Linux's crc32-pclmul), in VEX form.
//
// Memory: full 64-octet loads only at p (when n >= 64) and at p+t+64j for
// j < (n-t)/64, all ending at or before p+n; for n < 64 one masked load
// of exactly n octets. Nothing before p[0] or after p[n-1] is read.
//
// Registers: AX crc then result; SI next block; BX blocks left; R11 t;
// R10 c2; DX pointer into kd; CX, R8 scratch; K1 load mask; K2 shift
// mask; Z0, Z9-Z11 fold constants; Z1-Z4 accumulators (Z1 the current
// block in steps 4-5); Z5-Z8, Z12, Z13 products; Z14 sum of folded
// blocks; Z16 c2 as a vector; Z17 VPERMB indices. Z15 is not used (Go's
// ABIInternal zero register). VZEROUPPER on return.

// kd: fold constants by j*512 bits, j = 1..6, at kd+16*(j-1). kd[4] (2048
// bits, 4 blocks) is the main loop's; kd[1] is hash/crc32's r2r1.
DATA kd<>+0(SB)/8, $0x154442bd4  // k(544)
DATA kd<>+8(SB)/8, $0x1c6e41596  // k(480)
DATA kd<>+16(SB)/8, $0x1e88ef372 // k(1056)
DATA kd<>+24(SB)/8, $0x14a7fe880 // k(992)
DATA kd<>+32(SB)/8, $0x1821d8bc0 // k(1568)
DATA kd<>+40(SB)/8, $0x12e958ac4 // k(1504)
DATA kd<>+48(SB)/8, $0x11542778a // k(2080)
DATA kd<>+56(SB)/8, $0x1322d1430 // k(2016)
DATA kd<>+64(SB)/8, $0x0e9bd5cc  // k(2592)
DATA kd<>+72(SB)/8, $0x115b87256 // k(2528)
DATA kd<>+80(SB)/8, $0x1f79525b0 // k(3104)
DATA kd<>+88(SB)/8, $0x0d31343ea // k(3040)
GLOBL kd<>(SB), RODATA|NOPTR, $96

// klanes: fold lanes 0, 1, 2 of a Z register by 384, 256, 128 bits; lane 3
// is multiplied by zero and XOR-ed in unchanged.
DATA klanes<>+0(SB)/8, $0x03db1ecdc  // k(416)
DATA klanes<>+8(SB)/8, $0x174359406  // k(352)
DATA klanes<>+16(SB)/8, $0x0f1da05aa // k(288)
DATA klanes<>+24(SB)/8, $0x15a546366 // k(224)
DATA klanes<>+32(SB)/8, $0x1751997d0 // k(160)
DATA klanes<>+40(SB)/8, $0x0ccaa009e // k(96)
DATA klanes<>+48(SB)/8, $0
DATA klanes<>+56(SB)/8, $0
GLOBL klanes<>(SB), RODATA|NOPTR, $64

// Barrett: k(96) and k(64) (hash/crc32's r4r3 high quadword and r5), the
// reflected polynomial P' (33 bits) and the reflected quotient u' =
// floor(x^64 / P) (33 bits), hash/crc32's rupoly.
DATA k96<>+0(SB)/8, $0
DATA k96<>+8(SB)/8, $0x0ccaa009e // k(96)
GLOBL k96<>(SB), RODATA|NOPTR, $16

DATA k64<>+0(SB)/8, $0x163cd6124 // k(64)
GLOBL k64<>(SB), RODATA|NOPTR, $8

DATA poly<>+0(SB)/8, $0x1db710641 // P'
DATA poly<>+8(SB)/8, $0x1f7011641 // u'
GLOBL poly<>(SB), RODATA|NOPTR, $16

// rot: rot[j] = j mod 64 for j < 128; the VPERMB indices of step 2 are
// the 64 octets at rot+t: octet i of F is octet i+t-64 of the load.
DATA rot<>+0(SB)/8, $0x0706050403020100
DATA rot<>+8(SB)/8, $0x0f0e0d0c0b0a0908
DATA rot<>+16(SB)/8, $0x1716151413121110
DATA rot<>+24(SB)/8, $0x1f1e1d1c1b1a1918
DATA rot<>+32(SB)/8, $0x2726252423222120
DATA rot<>+40(SB)/8, $0x2f2e2d2c2b2a2928
DATA rot<>+48(SB)/8, $0x3736353433323130
DATA rot<>+56(SB)/8, $0x3f3e3d3c3b3a3938
DATA rot<>+64(SB)/8, $0x0706050403020100
DATA rot<>+72(SB)/8, $0x0f0e0d0c0b0a0908
DATA rot<>+80(SB)/8, $0x1716151413121110
DATA rot<>+88(SB)/8, $0x1f1e1d1c1b1a1918
DATA rot<>+96(SB)/8, $0x2726252423222120
DATA rot<>+104(SB)/8, $0x2f2e2d2c2b2a2928
DATA rot<>+112(SB)/8, $0x3736353433323130
DATA rot<>+120(SB)/8, $0x3f3e3d3c3b3a3938
GLOBL rot<>(SB), RODATA|NOPTR, $128

// func updateAVX512(crc uint32, p []byte) uint32
// Requires: AVX512F, AVX512VL, AVX512BW, AVX512VBMI, VPCLMULQDQ,
// PCLMULQDQ, AVX. crc and the result are not inverted.
TEXT ·updateAVX512(SB), NOSPLIT, $0-36
	MOVL  crc+0(FP), AX
	MOVQ  p_base+8(FP), SI
	MOVQ  p_len+16(FP), BX
	TESTQ BX, BX
	JZ    done

	// t = ((n-1) mod 64) + 1, the octets of F.
	LEAQ -1(BX), R11
	ANDQ $63, R11
	INCQ R11

	// Step 1: c2 = c >> 8t if t < 4, else 0.
	XORL R10, R10
	CMPQ R11, $4
	JAE  step2
	MOVL AX, R10
	LEAQ (R11*8), CX
	SHRL CX, R10

step2:
	// Step 2. Z1 = first min(n, 64) octets ^ c (VMOVD zeroes the rest of Z5).
	VMOVD AX, X5
	CMPQ  BX, $64
	JB    loadmasked
	VPXORQ (SI), Z5, Z1
	JMP   shift

loadmasked:
	MOVQ            BX, CX
	MOVQ            $1, R8
	SHLQ            CX, R8
	DECQ            R8               // (1 << n) - 1
	KMOVQ           R8, K1
	VMOVDQU8.Z      (SI), K1, Z1
	VPXORQ          Z5, Z1, Z1

shift:
	// F = Z1 moved up by 64-t octets: K2 = ^0 << (64-t) (all ones for t = 64).
	MOVQ     $64, CX
	SUBQ     R11, CX
	MOVQ     $-1, R8
	SHLQ     CX, R8
	KMOVQ    R8, K2
	LEAQ     rot<>(SB), R8
	VMOVDQU8 (R8)(R11*1), Z17
	VPERMB.Z Z1, Z17, K2, Z1

	ADDQ  R11, SI
	SUBQ  R11, BX
	SHRQ  $6, BX                     // whole blocks after F
	VMOVQ R10, X16                   // c2 for the block after F
	LEAQ  kd<>(SB), DX
	CMPQ  BX, $3
	JB    small

	// Step 3.
	VPXORQ    (SI), Z16, Z2
	VMOVDQU64 64(SI), Z3
	VMOVDQU64 128(SI), Z4
	ADDQ      $192, SI
	SUBQ      $3, BX
	XORL      R10, R10
	VPXORQ    Z16, Z16, Z16
	CMPQ      BX, $4
	JB        fold3

	VBROADCASTI32X4 48(DX), Z0       // kd[4]
	PCALIGN         $32

loop256:
	VPCLMULQDQ $0x00, Z0, Z1, Z5
	VPCLMULQDQ $0x11, Z0, Z1, Z1
	VPCLMULQDQ $0x00, Z0, Z2, Z6
	VPCLMULQDQ $0x11, Z0, Z2, Z2
	VPCLMULQDQ $0x00, Z0, Z3, Z7
	VPCLMULQDQ $0x11, Z0, Z3, Z3
	VPCLMULQDQ $0x00, Z0, Z4, Z8
	VPCLMULQDQ $0x11, Z0, Z4, Z4
	VPTERNLOGD $0x96, (SI), Z5, Z1   // Z1 ^= Z5 ^ next 64 octets
	VPTERNLOGD $0x96, 64(SI), Z6, Z2
	VPTERNLOGD $0x96, 128(SI), Z7, Z3
	VPTERNLOGD $0x96, 192(SI), Z8, Z4
	ADDQ       $256, SI
	SUBQ       $4, BX
	CMPQ       BX, $4
	JAE        loop256

fold3:
	// k = BX blocks left: Z1, Z2, Z3 by kd[k+3], kd[k+2], kd[k+1].
	MOVQ            BX, CX
	SHLQ            $4, CX
	ADDQ            CX, DX           // DX = kd + 16k
	VBROADCASTI32X4 32(DX), Z9
	VBROADCASTI32X4 16(DX), Z10
	VBROADCASTI32X4 (DX), Z11
	VPCLMULQDQ      $0x00, Z9, Z1, Z5
	VPCLMULQDQ      $0x11, Z9, Z1, Z6
	VPCLMULQDQ      $0x00, Z10, Z2, Z7
	VPCLMULQDQ      $0x11, Z10, Z2, Z8
	VPCLMULQDQ      $0x00, Z11, Z3, Z12
	VPCLMULQDQ      $0x11, Z11, Z3, Z13
	VPTERNLOGD      $0x96, Z5, Z6, Z7
	VPTERNLOGD      $0x96, Z8, Z12, Z13
	VPXORQ          Z7, Z13, Z14
	VMOVDQA64       Z4, Z1
	JMP             step4

small:
	// 0, 1 or 2 blocks after F.
	VPXORQ Z14, Z14, Z14
	MOVQ   BX, CX
	SHLQ   $4, CX
	ADDQ   CX, DX                    // DX = kd + 16k

step4:
	// Z1 is BX blocks from the last; DX = kd + 16*BX.
	TESTQ           BX, BX
	JZ              step5
	VBROADCASTI32X4 -16(DX), Z0      // kd[BX]
	VPCLMULQDQ      $0x00, Z0, Z1, Z5
	VPCLMULQDQ      $0x11, Z0, Z1, Z6
	VPTERNLOGD      $0x96, Z5, Z6, Z14
	VPXORQ          (SI), Z16, Z1
	VPXORQ          Z16, Z16, Z16
	XORL            R10, R10
	ADDQ            $64, SI
	SUBQ            $16, DX
	DECQ            BX
	JMP             step4

step5:
	// X7 = lane 3 of the sum (VEXTRACTI32X4 zeroes the rest of Z7); lane 3
	// of the products is zero, and XOR-ing the four lanes of Z5 ^ Z6 ^ Z7
	// gives the 128-bit result.
	VPXORQ        Z14, Z1, Z1
	VMOVDQU64     klanes<>(SB), Z0
	VPCLMULQDQ    $0x00, Z0, Z1, Z5
	VPCLMULQDQ    $0x11, Z0, Z1, Z6
	VEXTRACTI32X4 $3, Z1, X7
	VPTERNLOGD    $0x96, Z5, Z6, Z7
	VEXTRACTI64X4 $1, Z7, Y8
	VPXORQ        Y8, Y7, Y7
	VEXTRACTI32X4 $1, Y7, X8
	VPXOR         X8, X7, X1

	// Step 6: hash/crc32's ieeeCLMUL finish. 128 -> 96 bits: the low
	// quadword times k(96), XOR the high quadword.
	VMOVDQU    k96<>(SB), X0
	VPCLMULQDQ $0x01, X1, X0, X5     // X0 high (k(96)) x X1 low
	VPSRLDQ    $8, X1, X1
	VPXOR      X5, X1, X1

	// 96 -> 64 bits: the low 32 bits times k(64), XOR the rest.
	VPCMPEQB   X3, X3, X3
	VPSRLQ     $32, X3, X3           // X3 = 0x00000000ffffffff in each quadword
	VMOVQ      k64<>(SB), X0
	VPSRLDQ    $4, X1, X2
	VPAND      X3, X1, X1
	VPCLMULQDQ $0x00, X0, X1, X1
	VPXOR      X2, X1, X1

	// Barrett: T1 = (X1 mod x^32) * u', T2 = (T1 mod x^32) * P';
	// crc = bits 32..63 of X1 ^ T2.
	VMOVDQU    poly<>(SB), X0
	VPAND      X3, X1, X2
	VPCLMULQDQ $0x10, X0, X2, X2     // X2 low x X0 high (u')
	VPAND      X3, X2, X2
	VPCLMULQDQ $0x00, X0, X2, X2     // x P'
	VPXOR      X1, X2, X1
	VPEXTRD    $1, X1, AX
	XORL       R10, AX               // c2 when no block took it
	VZEROUPPER

done:
	MOVL AX, ret+32(FP)
	RET
