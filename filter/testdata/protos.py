#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
#
# Writes protos.pcap: frames of the protocols tshark names in filters that
# sfcdump tests by presence only (tcp, icmp, icmpv6, arp, lldp, llc, stp),
# and frames that resemble them without being them, for
# TestWiresharkProtocolsTshark. Run: /usr/bin/python3 protos.py
from scapy.all import (ARP, Dot1Q, Dot3, Ether, ICMP, ICMPv6EchoRequest, ICMPv6ND_NS, IP, IPv6,
                       IPv6ExtHdrFragment, IPv6ExtHdrHopByHop, LLC, Raw, SNAP, STP, TCP, UDP, wrpcap)
from scapy.contrib.lldp import (LLDPDUChassisID, LLDPDUEndOfLLDPDU, LLDPDUPortID, LLDPDUTimeToLive)

A, B = "02:00:00:00:00:01", "02:00:00:00:00:02"
e = lambda: Ether(src=A, dst=B)
frames = [
    e() / IP(src="10.0.0.1", dst="10.0.0.2") / TCP(sport=40000, dport=80, flags="S"),
    e() / IPv6(src="fd00::1", dst="fd00::2") / TCP(sport=40000, dport=443, flags="S"),
    e() / IPv6(src="fd00::1", dst="fd00::2") / IPv6ExtHdrHopByHop() / TCP(sport=40001, dport=443, flags="S"),
    e() / Dot1Q(vlan=10) / IP(src="10.0.0.1", dst="10.0.0.2") / TCP(sport=40002, dport=22, flags="A"),
    e() / IP(src="10.0.0.1", dst="10.0.0.2") / ICMP(type=8) / Raw(b"ping"),
    e() / IPv6(src="fd00::1", dst="fd00::2") / ICMPv6EchoRequest(),
    e() / IPv6(src="fd00::1", dst="ff02::1:ff00:2") / ICMPv6ND_NS(tgt="fd00::2"),
    e() / IP(src="10.0.0.1", dst="10.0.0.2", proto=58) / Raw(b"\x80\x00\x00\x00\x00\x00\x00\x00"),
    Ether(src=A, dst="ff:ff:ff:ff:ff:ff") / ARP(psrc="10.0.0.1", pdst="10.0.0.2"),
    Ether(src=A, dst="ff:ff:ff:ff:ff:ff") / Dot1Q(vlan=20) / ARP(psrc="10.0.0.1", pdst="10.0.0.3"),
    Ether(src=A, dst="01:80:c2:00:00:0e", type=0x88CC) / LLDPDUChassisID(subtype=4, id=A) /
    LLDPDUPortID(subtype=3, id=A) / LLDPDUTimeToLive(ttl=120) / LLDPDUEndOfLLDPDU(),
    Dot3(src=A, dst="01:80:c2:00:00:00") / LLC(dsap=0x42, ssap=0x42, ctrl=3) / STP(),
    Dot3(src=A, dst=B) / LLC(dsap=0xaa, ssap=0xaa, ctrl=3) / SNAP(OUI=0, code=0x0800) / Raw(b"x" * 40),
    Dot3(src=A, dst=B) / LLC(dsap=0xf0, ssap=0xf0, ctrl=3) / Raw(b"netbios" * 6),
    # Near misses: UDP, protocol numbers elsewhere, a non-first IPv4
    # fragment of TCP, an IPv6 fragment of TCP, an EtherType 0x0842.
    e() / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=6, dport=1) / Raw(b"\x06\x01"),
    e() / IP(src="10.0.0.1", dst="10.0.0.2", proto=6, frag=100) / Raw(b"y" * 20),
    e() / IPv6(src="fd00::1", dst="fd00::2") / IPv6ExtHdrFragment(offset=10, m=0, id=9, nh=6) / Raw(b"z" * 20),
    e() / IP(src="10.0.0.1", dst="10.0.0.2", proto=17) / Raw(b"\x00\x06\x00\x01\x00\x08\x00\x00"),
    Ether(src=A, dst=B, type=0x0842) / Raw(b"\x42\x42\x03" + b"\x00" * 43),
]
wrpcap("protos.pcap", frames)
