#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Golden IPv6 extension-header frames for layers/ and device/ (issue 19 item 4).

Built with scapy 2.5 (/usr/bin/python3 gen.py > frames.txt; gen.py also writes
frames.pcap for the tshark differential test). Each line of frames.txt:

    name proto sport dport kind hex

proto: the upper-layer protocol after the extension headers; sport/dport: the
L4 ports or - when the packet has none (ESP, a non-first fragment); kind: what
the payload is (roce, bts, postcard, cim, udp, frag, esp).
"""
import struct
import sys
from scapy.all import (Ether, Dot1Q, IPv6, IPv6ExtHdrHopByHop, IPv6ExtHdrDestOpt,
                       IPv6ExtHdrRouting, IPv6ExtHdrSegmentRouting, IPv6ExtHdrFragment,
                       UDP, Raw, PadN, wrpcap)
from scapy.layers.ipsec import AH, ESP

MAC = dict(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
S, D = "fd00::1", "fd00::2"
# RoCEv2 RDMA WRITE ONLY (0x0a), DestQP 0x00abcd, PSN 7, RETH, 8 octets of payload, ICRC.
BTH = bytes.fromhex("0a40ffff0000abcd00000007") + bytes.fromhex("00000000000010000000123400000008") + b"payload!" + bytes.fromhex("01020304")
CNP = bytes.fromhex("8100ffff4000abcd00000000") + bytes(16) + bytes.fromhex("0f7de6f4")
# A quoted IPv4/UDP/BTH packet (the offending packet) for BTS and postcards.
Q4 = bytes.fromhex("45000040000100004011f95a0a0000010a000002c00012b7002c0000") + bytes.fromhex("0a40ffff00001234000000ff")
BTS = struct.pack(">BBHIHBBI", 0x10, 0, 20, 1, 5, 3, 0, 0x1000) + Q4
POSTCARD = struct.pack(">BBH6sHIIIIII", 0x10, 0, 5, bytes.fromhex("020000000009"), 0, 40000, 1000, 4096, 2048, 4096, 8) + Q4
# A quote that is itself IPv6 + Hop-by-Hop + AH + UDP/BTH (QP 0x000777).
Q6x = bytes(IPv6(src="fd00::7", dst="fd00::8", nh=0) / IPv6ExtHdrHopByHop(nh=51) /
            AH(nh=17, payloadlen=4, spi=0x100, seq=1, icv=b"\x00" * 12) /
            UDP(sport=49152, dport=4791, chksum=0) / Raw(bytes.fromhex("0a40ffff00000777000000010000")))
BTSX = BTS[:16] + Q6x
CIM = bytes([0x03]) + bytes.fromhex("020000000002020000000001") + bytes.fromhex("0064") + len(Q4).to_bytes(2, "big") + Q4 + bytes.fromhex("0108001e01000000002a") + b"\x00"

def e(*ls, vlan=False):
    p = Ether(**MAC)
    if vlan:
        p = p / Dot1Q(vlan=100, prio=3)
    for l in ls:
        p = p / l
    return p

def u(dport, payload, sport=49152):
    return UDP(sport=sport, dport=dport, chksum=0) / Raw(payload)

ip6 = lambda: IPv6(src=S, dst=D, tc=0x68, hlim=64)
hbh = lambda: IPv6ExtHdrHopByHop(options=[PadN(optdata=b"\x00\x00\x00\x00")])
dst = lambda: IPv6ExtHdrDestOpt(options=[PadN(optdata=b"\x00\x00\x00\x00")])
srh = lambda: IPv6ExtHdrSegmentRouting(addresses=["fd00::2", "fd00::9"], segleft=1)
rt0 = lambda: IPv6ExtHdrRouting(type=0, addresses=["fd00::9", "fd00::2"], segleft=2)
ah = lambda nh=17: AH(nh=nh, payloadlen=4, spi=0x1234, seq=9, icv=b"\xaa" * 12)

F = []
def add(name, proto, sport, dport, kind, pkt):
    F.append((name, proto, sport, dport, kind, pkt))

add("plain-roce", 17, 49152, 4791, "roce", e(ip6(), u(4791, BTH)))
add("hbh-roce", 17, 49152, 4791, "roce", e(ip6(), hbh(), u(4791, BTH)))
add("dstopts-roce", 17, 49152, 4791, "roce", e(ip6(), dst(), u(4791, BTH)))
add("hbh-dstopts-roce", 17, 49152, 4791, "roce", e(ip6(), hbh(), dst(), u(4791, BTH)))
add("srh-roce", 17, 49152, 4791, "roce", e(ip6(), srh(), u(4791, BTH)))
add("rt0-roce", 17, 49152, 4791, "roce", e(ip6(), rt0(), u(4791, BTH)))
add("atomic-frag-roce", 17, 49152, 4791, "roce", e(ip6(), IPv6ExtHdrFragment(offset=0, m=0, id=0x1234), u(4791, BTH)))
add("ah-roce", 17, 49152, 4791, "roce", e(ip6(), ah(), u(4791, BTH)))
add("rfc8200-order-cnp", 17, 49152, 4791, "roce",
    e(ip6(), hbh(), dst(), srh(), IPv6ExtHdrFragment(offset=0, m=0, id=7), ah(60), dst(), u(4791, CNP)))
add("vlan-hbh-roce", 17, 49152, 4791, "roce", e(ip6(), hbh(), u(4791, BTH), vlan=True))
add("first-frag-roce", 17, 49152, 4791, "frag", e(ip6(), IPv6ExtHdrFragment(offset=0, m=1, id=5), u(4791, BTH)))
# A non-first fragment whose data happens to look like UDP to 4791.
add("nonfirst-frag", 17, "-", "-", "frag", e(ip6(), IPv6ExtHdrFragment(nh=17, offset=8, m=0, id=5), Raw(bytes(u(4791, BTH)))))
add("esp", 50, "-", "-", "esp", e(ip6(), ESP(spi=0x4242, seq=1, data=bytes(u(4791, BTH)))))
add("hbh-bts", 17, 49152, 1021, "bts", e(ip6(), hbh(), u(1021, BTS)))
add("dstopts-postcard", 17, 49152, 1022, "postcard", e(ip6(), dst(), u(1022, POSTCARD)))
add("srh-cim", 17, 49152, 35234, "cim", e(ip6(), srh(), u(35234, CIM)))
add("ah-bts-quote-ext", 17, 49152, 1021, "bts", e(ip6(), ah(), u(1021, BTSX)))
add("nonfirst-frag-bts", 17, "-", "-", "frag", e(ip6(), IPv6ExtHdrFragment(nh=17, offset=100, m=1, id=6), Raw(bytes(u(1021, BTS)))))

with open(sys.argv[1] if len(sys.argv) > 1 else "/dev/stdout", "w") as out:
    for name, proto, sport, dport, kind, pkt in F:
        out.write("%s %s %s %s %s %s\n" % (name, proto, sport, dport, kind, bytes(pkt).hex()))
wrpcap(sys.argv[2] if len(sys.argv) > 2 else "frames.pcap", [f[5] for f in F])
