#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Self-test for sfc.lua: builds frames by hand (struct only), writes a classic pcap
to a temporary directory, runs tshark with the dissectors, and checks every field
of wire.md's "Field names" table that the Lua dissectors provide, plus the expert
infos and the Decode-As / port preferences.

    python3 wireshark/selftest.py [-v] [--keep]

Exit status 0 when every check passes, 1 otherwise, 2 when tshark is missing.
The expected values below are written by hand from spec/wire.md, not computed by
the code under test.
"""
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LUA = os.path.join(HERE, "sfc.lua")

FIELDS = [
    "bts.version", "bts.cacheable", "bts.origin", "bts.pause_us", "bts.reporter",
    "bts.cp_port", "bts.cp_queue", "bts.queue_depth", "bts.quote_len",
    "postcard.version", "postcard.port", "postcard.switch_id", "postcard.rate_mbps",
    "postcard.window_ns", "postcard.ip_bytes", "postcard.q1_bytes", "postcard.recent_bytes",
    "postcard.recent_marked_bytes", "postcard.quote_len",
    "cim.version", "cim.add", "cim.ext", "cim.da", "cim.sa", "cim.vid", "cim.msdu_len",
    "cim.pause_us", "cim.cacheable", "cim.origin", "cim.reporter",
    "bfc.version", "bfc.hashes", "bfc.filter_len", "bfc.seq", "bfc.bits_set",
    "fgcredit.version", "fgcredit.family", "fgcredit.count", "fgcredit.dst", "fgcredit.credits",
    "fgpause.version", "fgpause.family", "fgpause.count", "fgpause.dst", "fgpause.pause_us",
    "flow.src", "flow.dst", "flow.proto", "flow.sport", "flow.dport", "flow.dscp", "flow.qp",
    "bth.fecn", "bth.becn", "cnp.destqp",
]
EXTRA = ["_ws.col.Protocol", "_ws.expert.message", "data.data"]


# ---------------------------------------------------------------- frame builders

def mac(s):
    return bytes.fromhex(s.replace(":", ""))


def ip4(s):
    return socket.inet_pton(socket.AF_INET, s)


def ip6(s):
    return socket.inet_pton(socket.AF_INET6, s)


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return (~s) & 0xFFFF


def ipv4(src, dst, proto, payload, tos=0, ttl=64, frag=0):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + len(payload), 0, frag, ttl, proto, 0,
                    ip4(src), ip4(dst))
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def ipv6(src, dst, nh, payload, tc=0, fl=0, hl=64):
    if nh == 17:  # UDP over IPv6 needs its checksum
        ph = ip6(src) + ip6(dst) + struct.pack("!IxxxB", len(payload), 17)
        c = csum(ph + payload[:6] + b"\0\0" + payload[8:]) or 0xFFFF
        payload = payload[:6] + struct.pack("!H", c) + payload[8:]
    return struct.pack("!IHBB16s16s", (6 << 28) | (tc << 20) | fl, len(payload), nh, hl,
                       ip6(src), ip6(dst)) + payload


def udp(sp, dp, payload):
    return struct.pack("!HHHH", sp, dp, 8 + len(payload), 0) + payload


def tcp(sp, dp):
    return struct.pack("!HHIIBBHHH", sp, dp, 1, 0, 0x50, 0x10, 1000, 0, 0)


def eth(et, payload, dst="02:00:00:00:00:02", src="02:00:00:00:00:01"):
    f = mac(dst) + mac(src) + struct.pack("!H", et) + payload
    return f + b"\0" * max(0, 60 - len(f))


def bth(op, destqp, psn=1, becn=0, fecn=0, pkey=0xFFFF):
    return struct.pack("!BBHII", op, 0, pkey, (fecn << 31) | (becn << 30) | destqp, psn)


def bts(ver=1, c=1, rflags=0, origin=0, pause=12, reporter=7, cp_port=5, cp_q=3, rsvd=0,
        depth=250000, quote=b""):
    return struct.pack("!BBHIHBBI", (ver << 4) | rflags | c, origin, pause, reporter, cp_port,
                       cp_q, rsvd, depth) + quote


def postcard(ver=1, port=9, sw="aa:bb:cc:dd:ee:ff", rate=100000, win=10000, ipb=12345,
             q1=5000, rec=60000, recm=3000, quote=b""):
    return struct.pack("!BBH6sHIIIIII", ver << 4, 0, port, mac(sw), 0, rate, win, ipb, q1,
                       rec, recm) + quote


def cim(ver=0, rb=0, e=0, add=1, da="02:00:00:00:00:0a", sa="02:00:00:00:00:0b", vrs=0,
        vid=100, msdu=b"", n=None, tlvs=b""):
    n = len(msdu) if n is None else n
    return struct.pack("!B6s6sHH", (ver << 4) | (rb << 2) | (e << 1) | add, mac(da), mac(sa),
                       (vrs << 12) | vid, n) + msdu + tlvs


def sfc_tlv(pause, flags, origin, rep):
    return struct.pack("!BBHBBI", 1, 8, pause, flags, origin, rep)


def bfc(k=4, L=128, seq=42, filt=None, ver=2):
    filt = bytes(L) if filt is None else filt
    return struct.pack("!HBBBBHI", 0x4643, 1, ver, k, 0, L, seq) + filt


def fg(subtype, fam, entries, count=None):
    b = b""
    for e in entries:
        b += e
    n = len(entries) if count is None else count
    return struct.pack("!HBBBBH", 0x4643, subtype, 1, fam, 0, n) + b


def addr(a):
    return ip6(a) if ":" in a else ip4(a)


def credit(cr, d):
    return struct.pack("!I", cr) + addr(d)


def dpause(p, d, rsvd=0):
    return struct.pack("!HH", p, rsvd) + addr(d)


# ---------------------------------------------------------------- the cases

ROCE = bth(0x0A, 0xD2, psn=77) + bytes(16) + bytes(1024) + bytes(4)      # RDMA WRITE ONLY
DATA4 = ipv4("10.0.0.1", "10.0.0.2", 17, udp(49152, 4791, ROCE), tos=26 << 2)
DATA6 = ipv6("fd00::1", "fd00::2", 6, tcp(40000, 80) + bytes(100), tc=10 << 2)
# IPv6, hop-by-hop options header (8 octets), UDP 49153 -> 4791, BTH DestQP 0xabcdef
DATA6X = ipv6("fd00::1", "fd00::2", 0,
              bytes([17, 0, 1, 4, 0, 0, 0, 0]) + udp(49153, 4791, bth(0x0A, 0xABCDEF) + bytes(20)),
              tc=(46 << 2) | 1)
ICMP4 = ipv4("10.0.0.5", "10.0.0.6", 1, bytes([8, 0, 0, 0, 0, 1, 0, 1]) + bytes(8))
FLOW4 = {"flow.src": "10.0.0.1", "flow.dst": "10.0.0.2", "flow.proto": "17",
         "flow.sport": "49152", "flow.dport": "4791", "flow.dscp": "26", "flow.qp": "210"}
FLOW4_NOQP = dict(FLOW4)
del FLOW4_NOQP["flow.qp"]
FLOW6 = {"flow.src": "fd00::1", "flow.dst": "fd00::2", "flow.proto": "6",
         "flow.sport": "40000", "flow.dport": "80", "flow.dscp": "10"}
BTS_HDR = {"bts.version": "1", "bts.cacheable": "1", "bts.origin": "0", "bts.pause_us": "12",
           "bts.reporter": "7", "bts.cp_port": "5", "bts.cp_queue": "3",
           "bts.queue_depth": "250000"}
PC_HDR = {"postcard.version": "1", "postcard.port": "9", "postcard.switch_id": "aa:bb:cc:dd:ee:ff",
          "postcard.rate_mbps": "100000", "postcard.window_ns": "10000",
          "postcard.ip_bytes": "12345", "postcard.q1_bytes": "5000",
          "postcard.recent_bytes": "60000", "postcard.recent_marked_bytes": "3000"}
CIM_HDR = {"cim.version": "0", "cim.add": "1", "cim.ext": "1", "cim.da": "02:00:00:00:00:0a",
           "cim.sa": "02:00:00:00:00:0b", "cim.vid": "100"}
HOP = "01:80:c2:00:00:0e"


def v4udp(dport, payload, sport=49152, src="10.0.0.2", dst="10.0.0.1"):
    return eth(0x0800, ipv4(src, dst, 17, udp(sport, dport, payload), tos=48 << 2))


def v6udp(dport, payload, sport=40000, src="fd00::2", dst="fd00::1"):
    return eth(0x86DD, ipv6(src, dst, 17, udp(sport, dport, payload), tc=48 << 2))


def m(*ds, **kw):
    out = {}
    for d in ds:
        out.update(d)
    out.update({k.replace("__", "."): v for k, v in kw.items()})
    return out


filt = bytearray(128)
filt[0], filt[40], filt[127] = 0x81, 0xFF, 0x01          # 2 + 8 + 1 bits set

# (name, frame, expected fields, expected expert substrings, protocol column or None)
CASES = [
    ("bts v4 quote rocev2", v4udp(1021, bts(quote=DATA4[:64])),
     m(BTS_HDR, FLOW4, bts__quote_len="64"), [], "BTS"),
    ("bts v6 outer, v6 tcp quote, cache, resume, unknown port",
     v6udp(1021, bts(c=0, origin=1, pause=0, reporter=4294967295, cp_port=0xFFFF, cp_q=0, depth=0,
                     quote=DATA6[:64])),
     m(BTS_HDR, FLOW6, bts__cacheable="0", bts__origin="1", bts__pause_us="0",
       bts__reporter="4294967295", bts__cp_port="65535", bts__cp_queue="0", bts__queue_depth="0",
       bts__quote_len="64"), [], "BTS"),
    ("bts estimate, quote without room for the bth", v4udp(1021, bts(origin=2, quote=DATA4[:30])),
     m(BTS_HDR, FLOW4_NOQP, bts__origin="2", bts__quote_len="30"), [], "BTS"),
    ("bts reserved bits", v4udp(1021, bts(rflags=0x4, rsvd=1, quote=DATA4[:64])),
     m(BTS_HDR, FLOW4, bts__quote_len="64"), ["flags 0x0E", "octet 11"], "BTS"),
    ("bts unknown version", v4udp(1021, bts(ver=2, quote=DATA4[:64])),
     {"bts.version": "2"}, ["Unknown BTS version 2"], "BTS"),
    ("bts truncated header", v4udp(1021, bts()[:10]),
     {"bts.version": "1", "bts.cacheable": "1", "bts.origin": "0", "bts.pause_us": "12",
      "bts.reporter": "7", "bts.cp_port": "5"}, ["Truncated BTS header"], "BTS"),
    ("bts quote too short", v4udp(1021, bts(quote=DATA4[:20])),
     m(BTS_HDR, bts__quote_len="20"), ["Quote too short"], "BTS"),
    ("bts quote not ip", v4udp(1021, bts(quote=b"\x30" + bytes(40))),
     m(BTS_HDR, bts__quote_len="41"), ["Quote is not IP"], "BTS"),
    ("bts without quote", v4udp(1021, bts()),
     m(BTS_HDR, bts__quote_len="0"), ["Quote too short"], "BTS"),
    ("bts on a non-default port is plain udp", v4udp(5000, bts(pause=77, quote=DATA4[:64])),
     {}, [], "UDP"),
    ("postcard v4 quote", v4udp(1022, postcard(quote=DATA4[:64]), src="10.9.9.9"),
     m(PC_HDR, FLOW4, postcard__quote_len="64"), [], "Postcard"),
    ("postcard v6 quote", v6udp(1022, postcard(quote=DATA6[:64]), sport=1, src="fd00::9"),
     m(PC_HDR, FLOW6, postcard__quote_len="64"), [], "Postcard"),
    ("cim l2 with sfc tlv, unknown tlv, end",
     eth(0x89A2, cim(e=1, msdu=DATA4[:48],
                     tlvs=sfc_tlv(300, 1, 0, 99) + bytes([7, 3, 1, 2, 3]) + b"\0")),
     m(CIM_HDR, FLOW4, cim__msdu_len="48", cim__pause_us="300", cim__cacheable="1",
       cim__origin="0", cim__reporter="99"), [], "CIM"),
    ("cim l3 v4 delete, short msdu",
     v4udp(35234, cim(add=0, vid=4095, msdu=DATA4[:30])),
     m(CIM_HDR, FLOW4_NOQP, cim__add="0", cim__ext="0", cim__vid="4095", cim__msdu_len="30"),
     ["outside 48..512"], "CIM"),
    ("cim l2 reserved bits, bad tlv length",
     eth(0x89A2, cim(e=1, rb=1, vrs=2, msdu=DATA4[:64],
                     tlvs=struct.pack("!BBHBBH", 1, 6, 1, 2, 3, 4) + b"\0")),
     m(CIM_HDR, FLOW4, cim__msdu_len="64"),
     ["octet 0 bits 3..2", "VLAN field bits 15..12", "SFC pause TLV length 6"], "CIM"),
    ("cim l2 msdu length past the data: no flow", eth(0x89A2, cim(e=1, msdu=DATA4[:40], n=600)),
     m(CIM_HDR, cim__msdu_len="600"), ["outside 48..512", "past the data"], "CIM"),
    ("cim l3 v6 with tlv", v6udp(35234, cim(e=1, msdu=DATA6[:64], tlvs=sfc_tlv(65535, 0, 2, 5))),
     m(CIM_HDR, FLOW6, cim__msdu_len="64", cim__pause_us="65535", cim__cacheable="0",
       cim__origin="2", cim__reporter="5"), [], "CIM"),
    ("cim tlv length past the data",
     v4udp(35234, cim(e=1, msdu=DATA4[:48], tlvs=bytes([1, 8, 0, 1]))),
     m(CIM_HDR, FLOW4, cim__msdu_len="48"), ["TLV length 8 past the data"], "CIM"),
    ("cim unknown version", eth(0x89A2, cim(ver=3, msdu=DATA4[:48])),
     {"cim.version": "3"}, ["Unknown CIM version 3"], "CIM"),
    ("bfc k=4 L=128", eth(0x88B5, bfc(filt=bytes(filt)), dst=HOP),
     {"bfc.version": "2", "bfc.hashes": "4", "bfc.filter_len": "128", "bfc.seq": "42",
      "bfc.bits_set": "11"}, [], "BFC"),
    ("bfc filter length past the data", eth(0x88B5, bfc(L=1024, seq=7, filt=b"\xff" * 20), dst=HOP),
     {"bfc.version": "2", "bfc.hashes": "4", "bfc.filter_len": "1024", "bfc.seq": "7"},
     ["Filter length 1024 past the data"], "BFC"),
    ("fgcredit v4", eth(0x88B5, fg(2, 4, [credit(1500, "10.0.0.2"), credit(3000000, "10.0.1.3")]),
                        dst=HOP),
     {"fgcredit.version": "1", "fgcredit.family": "4", "fgcredit.count": "2",
      "fgcredit.dst": "10.0.0.2,10.0.1.3", "fgcredit.credits": "1500,3000000"}, [], "FG-Credit"),
    ("fgcredit v6", eth(0x88B5, fg(2, 6, [credit(9000, "fd00::2")]), dst=HOP),
     {"fgcredit.version": "1", "fgcredit.family": "6", "fgcredit.count": "1",
      "fgcredit.dst": "fd00::2", "fgcredit.credits": "9000"}, [], "FG-Credit"),
    ("fgcredit count past the data", eth(0x88B5, fg(2, 6, [credit(1, "fd00::3")], count=9), dst=HOP),
     {"fgcredit.version": "1", "fgcredit.family": "6", "fgcredit.count": "9"},
     ["Count 9 past the data"],
     "FG-Credit"),
    ("fgpause v4",
     eth(0x88B5, fg(3, 4, [dpause(0xFFFF, "10.0.0.2"), dpause(0, "10.0.0.3"),
                           dpause(100, "10.0.0.4", rsvd=1)]), dst=HOP),
     {"fgpause.version": "1", "fgpause.family": "4", "fgpause.count": "3",
      "fgpause.dst": "10.0.0.2,10.0.0.3,10.0.0.4", "fgpause.pause_us": "65535,0,100"},
     ["entry octets 2-3"], "FG-DstPause"),
    ("fgpause v6", eth(0x88B5, fg(3, 6, [dpause(5, "fd00::7")]), dst=HOP),
     {"fgpause.version": "1", "fgpause.family": "6", "fgpause.count": "1",
      "fgpause.dst": "fd00::7", "fgpause.pause_us": "5"}, [], "FG-DstPause"),
    ("0x88b5 with another magic is data", eth(0x88B5, b"\x12\x34\x01\x01" + bytes(20)),
     {"data.data": "12340101" + "00" * 42},
     [], "0x88b5"),
    ("0x88b5 unknown subtype", eth(0x88B5, b"FC\x09\x01" + bytes(10)), {},
     ["Unknown subtype 9"], "SFC-L2"),
    ("cnp ipv4 (wire.md vector)", bytes.fromhex(
        "020000000002020000000001080045c0003c00000000401165ef0a0000010a000002"
        "c00012b7002800008100ffff400000d200000000000000000000000000000000000000005c763923"),
     {"bth.fecn": "0", "bth.becn": "1", "cnp.destqp": "210"}, [], "RoCE CNP"),
    ("cnp ipv6 (wire.md vector)", bytes.fromhex(
        "02000000000202000000000186dd668123450028114"
        "0fd000000000000000000000000000001fd000000000000000000000000000002"
        "c00012b70028cfa18100ffff4000abcd00000000000000000000000000000000000000000f7de6f4"),
     {"bth.fecn": "0", "bth.becn": "1", "cnp.destqp": "43981"}, [], "RoCE CNP"),
    ("rocev2 write with fecn",
     eth(0x0800, ipv4("10.0.0.1", "10.0.0.2", 17,
                      udp(49152, 4791, bth(0x0A, 0x1234, fecn=1) + bytes(16) + bytes(64) + bytes(4)))),
     {"bth.fecn": "1", "bth.becn": "0"}, [], None),
    # appended cases (frame numbers above stay fixed for the filter checks)
    ("bts v6 quote behind a hop-by-hop header, rocev2",
     v4udp(1021, bts(quote=DATA6X[:72])),
     m(BTS_HDR, bts__quote_len="72", flow__src="fd00::1", flow__dst="fd00::2", flow__proto="17",
       flow__sport="49153", flow__dport="4791", flow__dscp="46", flow__qp="11259375"), [], "BTS"),
    ("bts v6 quote cut inside the extension header", v4udp(1021, bts(quote=DATA6X[:52])),
     m(BTS_HDR, bts__quote_len="52"), ["Quote too short"], "BTS"),
    ("bts icmp quote: no ports", v4udp(1021, bts(quote=ICMP4[:64])),
     m(BTS_HDR, bts__quote_len="36", flow__src="10.0.0.5", flow__dst="10.0.0.6", flow__proto="1",
       flow__dscp="0"), [], "BTS"),
    ("bfc k=3 L=128: bad geometry", eth(0x88B5, bfc(k=3), dst=HOP),
     {"bfc.version": "2", "bfc.hashes": "3", "bfc.filter_len": "128", "bfc.seq": "42"},
     ["Filter length 128"], "BFC"),
    ("bfc k=9: bad hash count", eth(0x88B5, bfc(k=9, L=9), dst=HOP),
     {"bfc.version": "2", "bfc.hashes": "9", "bfc.filter_len": "9", "bfc.seq": "42"},
     ["Hash count 9"], "BFC"),
    ("fgpause bad family", eth(0x88B5, fg(3, 5, [dpause(5, "10.0.0.7")]), dst=HOP),
     {"fgpause.version": "1", "fgpause.family": "5", "fgpause.count": "1"},
     ["Address family 5"], "FG-DstPause"),
    ("bfc version 1: stages degenerate", eth(0x88B5, bfc(filt=bytes(filt), ver=1), dst=HOP),
     {"bfc.version": "1", "bfc.hashes": "4", "bfc.filter_len": "128", "bfc.seq": "42",
      "bfc.bits_set": "11"}, ["stages are degenerate"], "BFC"),
    ("bfc unknown version 3", eth(0x88B5, bfc(ver=3), dst=HOP),
     {"bfc.version": "3"}, ["Unknown BFC pause version 3 (expected 2)"], "BFC"),
]


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1000 + i, 0, len(fr), len(fr)))
            f.write(fr)


def tshark(args):
    p = subprocess.run(["tshark", "-X", "lua_script:" + LUA] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    errs = [l for l in p.stderr.splitlines() if l.strip() and "Running as user" not in l]
    return p.returncode, p.stdout, errs


def main():
    verbose = "-v" in sys.argv
    keep = "--keep" in sys.argv
    if not shutil.which("tshark"):
        print("tshark not found")
        return 2
    tmp = tempfile.mkdtemp(prefix="sfc-lua-")
    pcap = os.path.join(tmp, "selftest.pcap")
    write_pcap(pcap, [c[1] for c in CASES])
    failures = 0

    cols = FIELDS + EXTRA
    args = ["-r", pcap, "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,"]
    for f in cols:
        args += ["-e", f]
    rc, out, errs = tshark(args)
    if rc != 0 or errs:
        print("tshark failed (%d): %s" % (rc, "\n".join(errs)))
        return 1
    rows = out.rstrip("\n").split("\n")
    if len(rows) != len(CASES):
        print("expected %d rows, got %d" % (len(CASES), len(rows)))
        return 1
    for i, (case, row) in enumerate(zip(CASES, rows)):
        name, _, want, experts, proto = case
        got = dict(zip(cols, row.split("\t")))
        bad = []
        for f in FIELDS + [x for x in ["data.data"] if x in want]:
            w = want.get(f, "")
            if got.get(f, "") != w:
                bad.append("%s: got %r, want %r" % (f, got.get(f, ""), w))
        for e in experts:
            if e not in got["_ws.expert.message"]:
                bad.append("expert %r missing (got %r)" % (e, got["_ws.expert.message"]))
        if not experts and got["_ws.expert.message"]:
            bad.append("unexpected expert info %r" % got["_ws.expert.message"])
        if proto and got["_ws.col.Protocol"] != proto:
            bad.append("protocol column %r, want %r" % (got["_ws.col.Protocol"], proto))
        status = "FAIL" if bad else "ok"
        if bad or verbose:
            print("%-4s frame %d: %s" % (status, i + 1, name))
        for b in bad:
            print("       " + b)
        failures += bool(bad)

    # port preference and Decode As move BTS to port 5000 (frame 10)
    n = 1 + [c[0] for c in CASES].index("bts on a non-default port is plain udp")
    for extra in (["-o", "bts.udp_port:5000"], ["-d", "udp.port==5000,bts"]):
        rc, out, errs = tshark(extra + ["-r", pcap, "-Y", "frame.number==%d" % n,
                                        "-T", "fields", "-e", "bts.pause_us", "-e", "flow.qp"])
        ok = rc == 0 and not errs and out.strip() == "77\t210"
        if not ok or verbose:
            print("%-4s %s: %r %s" % ("ok" if ok else "FAIL", " ".join(extra), out.strip(), errs))
        failures += not ok
    rc, out, errs = tshark(["-o", "bts.udp_port:5000", "-r", pcap, "-Y", "bts.version", "-T",
                            "fields", "-e", "frame.number"])
    if "1" in out.split():
        print("FAIL port 1021 still decoded as BTS after the preference moved it")
        failures += 1

    # display filters on the address fields
    for flt, frames in (("flow.src == fd00::1", {2, 12, 17, 32}),
                        ("flow.ip.src == 10.0.0.0/24", {1, 3, 4, 11, 13, 14, 15, 18, 34}),
                        ("fgcredit.dst == 10.0.1.3", {22}),
                        ("fgpause.ipv6.dst == fd00::7", {26})):
        rc, out, errs = tshark(["-r", pcap, "-Y", flt, "-T", "fields", "-e", "frame.number"])
        got = {int(x) for x in out.split()}
        ok = rc == 0 and got == frames
        if not ok or verbose:
            print("%-4s filter %s: %s (want %s)" % ("ok" if ok else "FAIL", flt, sorted(got),
                                                  sorted(frames)))
        failures += not ok

    if keep:
        print("pcap kept in", pcap)
    else:
        shutil.rmtree(tmp)
    print("%d of %d cases failed" % (failures, len(CASES)) if failures else
          "all %d frames and the port/filter checks pass" % len(CASES))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
