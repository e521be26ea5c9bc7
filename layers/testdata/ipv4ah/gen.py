#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Golden IPv4 frames with an IPsec AH (RFC 4302) or ESP (RFC 4303) header.

Built by hand with struct, no scapy (whose AH layer mangles the UDP header
behind it): /usr/bin/python3 gen.py frames.txt frames.pcap. Each line of
frames.txt, as in ../ipv6ext/frames.txt:

    name proto sport dport kind hex

proto: the upper-layer protocol behind AH (50 for ESP; device.Parse walks a
first fragment's AH too, layers.Parser decodes no fragment past IPv4);
sport/dport: the L4 ports, or - when the packet has none (ESP); kind: what the payload is (roce,
bts, postcard, cim, tcp, frag, esp). frames.pcap holds the same frames for
the tshark differential tests (layers, dissect, filter).
"""
import struct
import sys

MAC = bytes.fromhex("020000000002" "020000000001")
S, D = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])

# RoCEv2 RDMA WRITE ONLY (0x0a), DestQP 0x00abcd, PSN 7, RETH, 8 octets of payload, ICRC.
BTH = bytes.fromhex("0a40ffff0000abcd00000007") + bytes.fromhex("00000000000010000000123400000008") + b"payload!" + bytes.fromhex("01020304")
CNP = bytes.fromhex("8100ffff4000abcd00000000") + bytes(16) + bytes.fromhex("0f7de6f4")
# A quoted IPv4/UDP/BTH packet (the offending packet) for BTS, postcards and CIM.
Q4 = bytes.fromhex("45000040000100004011f95a0a0000010a000002c00012b7002c0000") + bytes.fromhex("0a40ffff00001234000000ff")
BTS = struct.pack(">BBHIHBBI", 0x10, 0, 20, 1, 5, 3, 0, 0x1000) + Q4
POSTCARD = struct.pack(">BBH6sHIIIIII", 0x10, 0, 5, bytes.fromhex("020000000009"), 0, 40000, 1000, 4096, 2048, 4096, 8) + Q4
CIM = bytes([0x03]) + bytes.fromhex("020000000002020000000001") + bytes.fromhex("0064") + len(Q4).to_bytes(2, "big") + Q4 + bytes.fromhex("0108001e01000000002a") + b"\x00"


def csum(b):
    s = sum(struct.unpack(">%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ipv4(proto, payload, tos=0x68, flags=0, src=S, dst=D):
    h = struct.pack(">BBHHHBBH4s4s", 0x45, tos, 20 + len(payload), 1, flags, 64, proto, 0, src, dst)
    h = h[:10] + struct.pack(">H", csum(h)) + h[12:]
    return h + payload


def ah(nh, payload, spi=0x1234, seq=9, icv=b"\xaa" * 12):
    # Payload length: the AH's length in 4-octet units, less 2 (RFC 4302 §2.2).
    return struct.pack(">BBHII", nh, (12 + len(icv)) // 4 - 2, 0, spi, seq) + icv + payload


def esp(payload, spi=0x4242, seq=1):
    return struct.pack(">II", spi, seq) + payload


def udp(dport, payload, sport=49152):
    return struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload


def tcp(dport, sport=49152):
    return struct.pack(">HHIIBBHHH", sport, dport, 1, 0, 5 << 4, 0x02, 0xffff, 0, 0)


def eth(l3, et=0x0800, vlan=None):
    tag = b"" if vlan is None else struct.pack(">HH", 0x8100, vlan)
    return MAC + tag + struct.pack(">H", et) + l3


# A quote that is itself IPv4 + AH + UDP/BTH (QP 0x000777).
Q4AH = ipv4(51, ah(17, udp(4791, bytes.fromhex("0a40ffff00000777000000010000")), spi=0x100, seq=1, icv=bytes(12)), tos=0)
BTSAH = BTS[:16] + Q4AH

F = []


def add(name, proto, sport, dport, kind, frame):
    F.append((name, proto, sport, dport, kind, frame))


add("ah-roce", 17, 49152, 4791, "roce", eth(ipv4(51, ah(17, udp(4791, BTH)))))
add("ah-cnp", 17, 49152, 4791, "roce", eth(ipv4(51, ah(17, udp(4791, CNP), spi=0xdeadbeef, seq=0xffffffff))))
add("ah-icv16-roce", 17, 49152, 4791, "roce", eth(ipv4(51, ah(17, udp(4791, BTH), icv=b"\x55" * 16))))
add("vlan-ah-roce", 17, 49152, 4791, "roce", eth(ipv4(51, ah(17, udp(4791, BTH))), vlan=(3 << 13) | 100))
add("ah-bts", 17, 49152, 1021, "bts", eth(ipv4(51, ah(17, udp(1021, BTS)))))
add("ah-postcard", 17, 49152, 1022, "postcard", eth(ipv4(51, ah(17, udp(1022, POSTCARD)))))
add("ah-cim", 17, 49152, 35234, "cim", eth(ipv4(51, ah(17, udp(35234, CIM)))))
add("ah-bts-quote-ah", 17, 49152, 1021, "bts", eth(ipv4(51, ah(17, udp(1021, BTSAH)))))
add("ah-tcp", 6, 49152, 443, "tcp", eth(ipv4(51, ah(6, tcp(443)))))
# A first fragment (MF set): AH and UDP are there, but no fragment is
# RoCEv2 or a signal.
add("first-frag-ah-roce", 17, 49152, 4791, "frag", eth(ipv4(51, ah(17, udp(4791, BTH)), flags=0x2000)))
add("esp", 50, "-", "-", "esp", eth(ipv4(50, esp(udp(4791, BTH)))))
add("ah-esp", 50, "-", "-", "esp", eth(ipv4(51, ah(50, esp(udp(4791, BTH))))))

with open(sys.argv[1] if len(sys.argv) > 1 else "/dev/stdout", "w") as out:
    for name, proto, sport, dport, kind, frame in F:
        out.write("%s %s %s %s %s %s\n" % (name, proto, sport, dport, kind, frame.hex()))

# A little-endian pcap, Ethernet, microsecond timestamps one second apart.
with open(sys.argv[2] if len(sys.argv) > 2 else "frames.pcap", "wb") as out:
    out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i, f in enumerate(F):
        out.write(struct.pack("<IIII", 1700000000 + i, 0, len(f[5]), len(f[5])) + f[5])
