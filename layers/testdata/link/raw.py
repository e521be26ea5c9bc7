#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Raw-IP captures (LINKTYPE_RAW 101, LINKTYPE_IPV4 228, LINKTYPE_IPV6 229) of
the packets send.py sends, built with scapy 2.5: /usr/bin/python3 raw.py.
sll.pcap and sll2.pcap were captured by tcpdump 4.99 (`tcpdump -i any -y
LINUX_SLL|LINUX_SLL2 -w F 'udp and (port 4791 or port 1021)'`) while send.py
ran on the loopback interface."""
import struct
from scapy.all import IP, IPv6, UDP, Raw, wrpcap, IPv6ExtHdrHopByHop

bth = bytes.fromhex("0a40ffff0000abcd00000007") + bytes.fromhex("00000000000010000000123400000008") + b"payload!" + bytes.fromhex("01020304")
q4 = bytes.fromhex("45000040000100004011f95a0a0000010a000002c00012b7002c0000") + bytes.fromhex("0a40ffff00001234000000ff")
bts = struct.pack(">BBHIHBBI", 0x11, 0, 20, 1, 5, 3, 0, 0x1000) + q4
v4 = IP(src="127.0.0.1", dst="127.0.0.1") / UDP(sport=49152, dport=4791) / Raw(bth)
v6 = IPv6(src="::1", dst="::1") / IPv6ExtHdrHopByHop() / UDP(sport=49153, dport=1021) / Raw(bts)
wrpcap("raw.pcap", [v4, v6], linktype=101)
wrpcap("ipv4.pcap", [v4], linktype=228)
wrpcap("ipv6.pcap", [v6], linktype=229)
