#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""sll-ipoib.pcap and sll2-ipoib.pcap: the frames of sll.pcap and sll2.pcap
with the Linux cooked header of an IPoIB interface, as `tcpdump -i any`
writes it on a host with InfiniBand ports: link-layer address type 32
(ARPHRD_INFINIBAND), address length 20 (an IPoIB hardware address), of
which the header's 8-octet address field holds the first 8. Run with
/usr/bin/python3 ipoib.py in this directory (no scapy needed)."""
import struct

ADDR = bytes.fromhex("800000480fe80000")  # the first 8 of a 20-octet IPoIB address


def rewrite(src, dst, link):
    with open(src, "rb") as f:
        b = f.read()
    out = bytearray(b[:24])
    off = 24
    while off + 16 <= len(b):
        sec, usec, incl, orig = struct.unpack("<IIII", b[off:off + 16])
        frame = bytearray(b[off + 16:off + 16 + incl])
        if link == 113:  # packet type, ARPHRD, address length, address, protocol
            frame[2:4] = struct.pack(">H", 32)
            frame[4:6] = struct.pack(">H", 20)
            frame[6:14] = ADDR
        else:  # protocol, reserved, ifindex, ARPHRD, packet type, address length, address
            frame[8:10] = struct.pack(">H", 32)
            frame[11] = 20
            frame[12:20] = ADDR
        out += struct.pack("<IIII", sec, usec, incl, orig) + frame
        off += 16 + incl
    with open(dst, "wb") as f:
        f.write(out)


rewrite("sll.pcap", "sll-ipoib.pcap", 113)
rewrite("sll2.pcap", "sll2-ipoib.pcap", 276)
