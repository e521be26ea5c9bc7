# SPDX-License-Identifier: Apache-2.0
import socket, struct, time
bth = bytes.fromhex("0a40ffff0000abcd00000007") + bytes.fromhex("00000000000010000000123400000008") + b"payload!" + bytes.fromhex("01020304")
q4 = bytes.fromhex("45000040000100004011f95a0a0000010a000002c00012b7002c0000") + bytes.fromhex("0a40ffff00001234000000ff")
bts = struct.pack(">BBHIHBBI", 0x11, 0, 20, 1, 5, 3, 0, 0x1000) + q4
s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s4.bind(("127.0.0.1", 49152))
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s6.bind(("::1", 49153))
for i in range(2):
    s4.sendto(bth, ("127.0.0.1", 4791))
    s6.sendto(bts, ("::1", 1021))
    time.sleep(0.05)
