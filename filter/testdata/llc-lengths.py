# SPDX-License-Identifier: Apache-2.0
# Frames of filter/testdata/llc-lengths.pcap: 802.3 lengths, 0x8870 and the 1501-1535 gap (made by the review helper, scapy).
from scapy.all import *
pk=[]
llc=LLC(dsap=0x42,ssap=0x42,ctrl=3)/STP()
pk.append(Dot3(src="02:00:00:00:00:01",dst="01:80:c2:00:00:00")/llc)  #1
b=bytes(Ether(src="02:00:00:00:00:01",dst="01:80:c2:00:00:00",type=0x8100)/Dot1Q(vlan=3,type=len(llc))/llc); pk.append(Ether(b)) #2 vlan + length
b=bytes(Ether(src="02:00:00:00:00:01",dst="01:80:c2:00:00:00",type=0x8870)/llc); pk.append(Ether(b)) #3 0x8870
b=bytes(Dot3(src="02:00:00:00:00:01",dst="01:80:c2:00:00:00",len=0)/llc); pk.append(Ether(b)) #4 len 0
b=bytes(Dot3(src="02:00:00:00:00:01",dst="01:80:c2:00:00:00")/Raw(b'\xff\xff'+b'\0'*40)); pk.append(Ether(b)) #5 novell
b=bytes(Dot3(src="02:00:00:00:00:01",dst="01:80:c2:00:00:00",len=1)/Raw(b'\x42\x42\x03'+b'\0'*40)); pk.append(Ether(b)) #6 len 1
b=bytes(Dot3(src="02:00:00:00:00:01",dst="01:80:c2:00:00:00",len=0x5ff)/Raw(b'\x42\x42\x03'+b'\0'*40)); pk.append(Ether(b)) #7 len 1535 > data
b=bytes(Ether(src="02:00:00:00:00:01",dst="01:80:c2:00:00:00",type=0x5dd)/Raw(b'\x42\x42\x03'+b'\0'*40)); pk.append(Ether(b)) #8 len 0x5dd..0x5ff gap
wrpcap('llc-lengths.pcap', pk)
