#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Independent reference for BFC pause frame version 2 (wire.md section 7.1).

Computes the eight stage CRCs bit by bit from the NORMAL polynomials of the
wire.md table (reflected here by bit reversal), checks each against its check
value of "123456789", and prints the BFC pause body (common header on) that
pauses the flows below with k = 4, L = 128, sequence 42, as hex, one line.
layers/bfchash_test.go runs it (TestBFCGoldenV2Python) and holds its output
as the golden frame.
"""
import ipaddress
import struct
import sys

# (normal polynomial, check value) of stage s = 0..7
TABLE = [
    (0x1EDC6F41, 0xE3069283),
    (0x04C11DB7, 0xCBF43926),
    (0x741B8CD7, 0x2D3DD0AE),
    (0x32583499, 0xEEB754CC),
    (0x814141AB, 0xA9CC8179),
    (0xA833982B, 0x87315576),
    (0xF4ACFB13, 0x1697D06A),
    (0x8001801B, 0x01206205),
]


def reflect32(x):
    return int("{:032b}".format(x)[::-1], 2)


def crc(stage, data):
    poly = reflect32(TABLE[stage][0])
    c = 0xFFFFFFFF
    for byte in data:
        c ^= byte
        for _ in range(8):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
    return c ^ 0xFFFFFFFF


def key(src, dst, proto, sport, dport):
    return (ipaddress.ip_address(src).packed + ipaddress.ip_address(dst).packed +
            struct.pack("!BHH", proto, sport, dport))


FLOWS = [
    key("10.0.0.1", "10.0.0.2", 17, 49152, 4791),
    key("fd00::1", "fd00::2", 17, 49153, 4791),
]


def main():
    for s, (_, check) in enumerate(TABLE):
        got = crc(s, b"123456789")
        if got != check:
            sys.exit("stage %d: check value %08x, want %08x" % (s, got, check))
    k, L, seq = 4, 128, 42
    m = 8 * L // k
    filt = bytearray(L)
    for f in FLOWS:
        for s in range(k):
            i = crc(s, f) % m
            filt[s * (L // k) + i // 8] |= 0x80 >> (i % 8)
    body = struct.pack("!HBBBBHI", 0x4643, 1, 2, k, 0, L, seq) + bytes(filt)
    print(body.hex())


if __name__ == "__main__":
    main()
