#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Independent device captures for issue 17's "Done when", made from the spec alone.

Written by the helper "indep" from /work/shared/spec (wire.md, behaviour.md,
conformance.md) without reading the project's Go code. For each vector below the
device's correct output is computed here by hand-written models of behaviour.md
(a FIFO egress queue at line rate, an SFC ingress decision, PFC ingress counts, a
NIC's round robin with pauses), then written as a vendor's capture would be:
pcapng, one interface per port, nanosecond timestamps on the input's clock, with
background a real device sends (LLDP, ARP), frames before time 0, and merged
per-port captures. Faulty captures change one thing each; truncated ones end
early or report drops.

Run: /usr/bin/python3 conformance/testdata/independent/make.py   (from the repo root)
It reads pcaps/<vector>/input.pcapng and writes *.pcapng and manifest.tsv here.
"""
import math
import os
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
SPEED = 100e9  # every port of the vectors used here is 100G


# ---------------------------------------------------------------- pcapng I/O
def read_pcapng(path):
    """Returns (interface names, frames) with frames (ifid, t_ns, bytes)."""
    data = open(path, "rb").read()
    off, names, res, frames, bo = 0, [], [], [], "<"
    while off + 12 <= len(data):
        if data[off:off + 4] == b"\x0a\x0d\x0d\x0a":
            bo = "<" if data[off + 8:off + 12] == b"\x4d\x3c\x2b\x1a" else ">"
            names, res = [], []
        btype, blen = struct.unpack_from(bo + "II", data, off)
        body = data[off + 8:off + blen - 4]
        if btype == 1:
            name, r = None, 6
            for code, val in _opts(body[8:], bo):
                if code == 2:
                    name = val.decode()
                if code == 9:
                    r = val[0]
            names.append(name)
            res.append(r)
        elif btype == 6:
            ifid, th, tl, cl, _ = struct.unpack_from(bo + "IIIII", body, 0)
            ts = (th << 32) | tl
            t = ts * 10 ** (9 - res[ifid]) if res[ifid] <= 9 else ts // 10 ** (res[ifid] - 9)
            frames.append((ifid, t, body[20:20 + cl]))
        off += blen
    return names, frames


def _opts(b, bo):
    out, i = [], 0
    while i + 4 <= len(b):
        code, ln = struct.unpack_from(bo + "HH", b, i)
        if code == 0:
            break
        out.append((code, b[i + 4:i + 4 + ln]))
        i += 4 + ((ln + 3) & ~3)
    return out


def _opt(code, val):
    return struct.pack("<HH", code, len(val)) + val + b"\0" * ((4 - len(val) % 4) % 4)


def _block(btype, body):
    ln = 12 + len(body)
    return struct.pack("<II", btype, ln) + body + struct.pack("<I", ln)


def write_pcapng(path, names, frames, drops=None, cut=0):
    """frames: (ifid, t_ns, bytes) in the order to write. drops: {ifid: n} written as
    an Interface Statistics Block with isb_ifdrop. cut: drop this many octets from the
    end of the file (a capture cut in the middle of a record)."""
    out = _block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)
                 + _opt(4, b"indep make.py (vendor capture)") + _opt(0, b""))
    for n in names:
        out += _block(1, struct.pack("<HHI", 1, 0, 0) + _opt(2, n.encode()) + _opt(9, bytes([9]))
                      + _opt(0, b""))
    last = 0
    for ifid, t, pkt in frames:
        t = int(round(t))
        last = max(last, t)
        body = struct.pack("<IIIII", ifid, t >> 32, t & 0xFFFFFFFF, len(pkt), len(pkt))
        body += pkt + b"\0" * ((4 - len(pkt) % 4) % 4)
        out += _block(6, body)
    for ifid, n in sorted((drops or {}).items()):
        out += _block(5, struct.pack("<III", ifid, last >> 32, last & 0xFFFFFFFF)
                      + _opt(5, struct.pack("<Q", n)) + _opt(0, b""))  # isb_ifdrop
    if cut:
        out = out[:-cut]
    with open(path, "wb") as f:
        f.write(out)


# ---------------------------------------------------------------- packet helpers
def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def ipv4(src, dst, payload, tos, ttl=64, proto=17, ident=0):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + len(payload), ident, 0, ttl, proto, 0, src, dst)
    return h[:10] + struct.pack("!H", csum(h)) + h[12:] + payload


def udp(src_ip, dst_ip, sport, dport, payload):
    ln = 8 + len(payload)
    pseudo = src_ip + dst_ip + struct.pack("!BBH", 0, 17, ln)
    c = csum(pseudo + struct.pack("!HHHH", sport, dport, ln, 0) + payload) or 0xFFFF
    return struct.pack("!HHHH", sport, dport, ln, c) + payload


def icrc(frame):
    """wire.md §3.3, IPv4: CRC-32 over 8 x 0xFF, IP..pad with TOS, TTL, IP checksum,
    UDP checksum and BTH octet 4 set to ones; written least-significant octet first."""
    ip = bytearray(frame[14:-4])
    ip[1] = 0xFF
    ip[8] = 0xFF
    ip[10:12] = b"\xff\xff"
    ip[26:28] = b"\xff\xff"
    ip[28 + 4] = 0xFF
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(ip)) & 0xFFFFFFFF)


def fix_icrc(frame):
    return frame[:-4] + icrc(frame)


def tx(n):
    """behaviour.md §0: (max(n,60)+4+20)*8/speed, in ns."""
    return (max(n, 60) + 24) * 8 / SPEED * 1e9


def five_tuple(pkt):
    return pkt[26:30], pkt[30:34], pkt[23], pkt[34:36], pkt[36:38]


def dscp(pkt):
    return pkt[15] >> 2


def lldp(src):
    tlvs = (struct.pack("!H", (1 << 9) | 7) + b"\x04" + src       # chassis id: MAC
            + struct.pack("!H", (2 << 9) | 5) + b"\x05swp1"          # port id: ifname
            + struct.pack("!H", (3 << 9) | 2) + b"\x00\x78"          # TTL 120 s
            + b"\x00\x00")
    f = mac("01:80:c2:00:00:0e") + src + b"\x88\xcc" + tlvs
    return f + b"\0" * max(0, 60 - len(f))


def arp(src, sip, tip):
    body = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, src, sip, b"\0" * 6, tip)
    f = b"\xff" * 6 + src + b"\x08\x06" + body
    return f + b"\0" * (60 - len(f))


def ip4(s):
    return bytes(int(x) for x in s.split("."))


# ---------------------------------------------------------------- output set
MANIFEST = []


def emit(vector, name, verdict, rule, why, names, frames, drops=None, cut=0, merge=False):
    """Writes one capture. frames in time order; merge=True writes one file per interface
    and merges them with `mergecap -I none` (conformance/README.md §1), the way a vendor
    merges per-port captures."""
    path = os.path.join(HERE, name)
    frames = sorted(frames, key=lambda f: f[1])
    if merge:
        with tempfile.TemporaryDirectory() as d:
            parts = []
            for i, n in enumerate(names):
                p = os.path.join(d, "p%d.pcapng" % i)
                write_pcapng(p, [n], [(0, t, b) for (j, t, b) in frames if j == i])
                parts.append(p)
            subprocess.run(["mergecap", "-I", "none", "-F", "pcapng", "-w", path] + parts, check=True)
    else:
        write_pcapng(path, names, frames, drops, cut)
    MANIFEST.append((vector, name, verdict, rule, why))


class T0(int):
    """Time 0 in ns since the epoch: adding a model time (a float, ns) rounds it first,
    since a float64 cannot hold an epoch-based nanosecond time exactly."""

    def __add__(self, other):
        return int(self) + int(round(other))

    __radd__ = __add__


def vec_input(vector):
    names, frames = read_pcapng(os.path.join(ROOT, "pcaps", vector, "input.pcapng"))
    t0 = T0(min(t for _, t, _ in frames))
    return names, frames, t0


def replace_at(frames, idx, new):
    out = list(frames)
    out[idx] = new
    return out


# ---------------------------------------------------------------- NIC model (behaviour.md §0, §2, §4, §7)
def nic_schedule(offers, blocked):
    """offers: list of (t_offer, frame) in offer order. blocked(frame, t) -> time until
    which the frame may not start (or None). Round robin across flows in order of their
    first offer, at line rate. Returns [(t_start, frame)]."""
    flows, order = {}, []
    for t, f in offers:
        k = five_tuple(f)
        if k not in flows:
            flows[k] = []
            order.append(k)
        flows[k].append((t, f))
    out, t, rr = [], 0.0, 0
    pending = sum(len(v) for v in flows.values())
    while pending:
        chosen, wake = None, math.inf
        for j in range(len(order)):
            k = order[(rr + j) % len(order)]
            if not flows[k]:
                continue
            to, f = flows[k][0]
            if to > t:
                wake = min(wake, to)
                continue
            until = blocked(f, t)
            if until is not None:
                wake = min(wake, until)
                continue
            chosen = (rr + j) % len(order)
            break
        if chosen is None:
            if wake == math.inf:
                break  # the rest is held for ever
            t = wake
            continue
        _, f = flows[order[chosen]].pop(0)
        out.append((t, f))
        t += tx(len(f))
        rr = chosen + 1
        pending -= 1
    return out


def nic_vectors():
    # ---- pfc/nic-receiver: PFC priority 3, 400 quanta at 1us, time 0 at 3us.
    v = "pfc/nic-receiver"
    names, fr, t0 = vec_input(v)
    offers = [(t - t0, f) for i, t, f in fr if names[i] == "host"]
    pfcs = [(t - t0, f) for i, t, f in fr if names[i] != "host" and f[12:14] == b"\x88\x08"]
    # behaviour.md §4 receiver: paused_until[p] = now + time[p]*512/link_bps; 0 clears.
    paused = []  # (from, until) for priority 3
    for t, f in pfcs:
        q = struct.unpack("!H", f[18 + 2 * 3:20 + 2 * 3])[0]  # wire.md §2: time[n] at 4+2n after the EtherType
        if paused and paused[-1][1] > t:
            paused[-1] = (paused[-1][0], t)
        if q:
            paused.append((t, t + q * 512 / SPEED * 1e9))

    def blocked(f, t):
        if dscp(f) >> 3 != 3:
            return None
        for a, b in paused:
            if a <= t < b:
                return b
        return None

    sched = nic_schedule(offers, blocked)
    me = mac("02:00:00:00:00:00")
    base = [(0, t0 + t, f) for t, f in sched]
    bg = [(0, t0 - 40000, lldp(me)), (0, t0 + 2500, arp(me, ip4("10.0.0.1"), ip4("10.0.0.254")))]
    cnames = ["port0"]
    emit(v, "pfc-nic-receiver.clean.pcapng", "PASS", "-",
         "behaviour.md §4 receiver: paused_until[p]=now+time[p]*512/link_bps (400 q = 2.048us at 100G), "
         "time 0 clears it now; §0 NIC round robin at line rate; LLDP before t0 and ARP are background (conformance.md rules 1-2)",
         cnames, base + bg)
    # the NIC ignores the PFC: frames of priority 3 start during [1us, 3us)
    sched2 = nic_schedule(offers, lambda f, t: None)
    emit(v, "pfc-nic-receiver.ignores-pfc.pcapng", "FAIL", "DATA-TIMING",
         "behaviour.md §4: nothing new of that priority starts while paused; conformance.md rule 6/8 (frames ~2us early)",
         cnames, [(0, t0 + t, f) for t, f in sched2] + bg)
    # one data frame sent twice
    k = 5
    dup = base + [(0, base[k][1] + 45, base[k][2])]
    emit(v, "pfc-nic-receiver.dup.pcapng", "FAIL", "DATA-DUP",
         "conformance.md rule 8: no data frame of a scenario flow is duplicated", cnames, dup + bg)
    # two frames of flow 0 swapped (keep times, swap payloads)
    i0 = [j for j, (_, _, f) in enumerate(base) if f[34:36] == b"\xc0\x00"]
    a, b = i0[6], i0[7]
    sw = list(base)
    sw[a], sw[b] = (0, base[a][1], base[b][2]), (0, base[b][1], base[a][2])
    emit(v, "pfc-nic-receiver.reorder.pcapng", "FAIL", "DATA-ORDER",
         "conformance.md rule 8: no data frame is reordered within its flow", cnames, sw + bg)
    # a frame whose ICRC is broken
    bad = bytearray(base[3][2])
    bad[-1] ^= 0xFF
    emit(v, "pfc-nic-receiver.bad-icrc.pcapng", "FAIL", "DATA-ICRC",
         "conformance.md rule 3: checksums and the ICRC must be valid; wire.md §3.3",
         cnames, replace_at(base, 3, (0, base[3][1], bytes(bad))) + bg)
    # truncated: the file is cut in the middle of its last record
    emit(v, "pfc-nic-receiver.cut-mid-record.pcapng", "INCONCLUSIVE", "-",
         "conformance.md rule 9: the capture ends before the reference's last frame (file cut mid-record)",
         cnames, base, cut=700)

    # ---- sfc/nic-pause-resume: BTS pauses flow 0 for 3us at 500ns, pause 0 at 2us resumes.
    v = "sfc/nic-pause-resume"
    names, fr, t0 = vec_input(v)
    offers = [(t - t0, f) for i, t, f in fr if names[i] == "host"]
    wire = [(t - t0, f) for i, t, f in fr if names[i] != "host"]
    bts = [(t, f) for t, f in wire if f[23] == 17 and f[36:38] == b"\x03\xfd"]
    inbound = [(t, f) for t, f in wire if not (f[23] == 17 and f[36:38] == b"\x03\xfd")]
    pause_end = {}
    events = []  # (t, key, end)
    for t, f in bts:
        q = f[42 + 16:]
        key = (q[12:16], q[16:20], q[9], q[20:22], q[22:24])  # quoted 5-tuple
        events.append((t, key, t + struct.unpack("!H", f[44:46])[0] * 1000))

    def blocked_sfc(f, t, events=events):
        end = None
        for te, key, e in events:
            if te <= t and key == five_tuple(f):
                end = e  # a later signal overwrites
        return end if end is not None and t < end else None

    sched = nic_schedule(offers, blocked_sfc)
    cnames = ["port0", "host"]
    base = [(0, t0 + t, f) for t, f in sched]
    host = [(1, t0 + (t + tx(len(f))), f) for t, f in inbound]  # delivered once received
    bg = [(0, t0 - 1200000, lldp(mac("02:00:00:00:00:00")))]
    emit(v, "sfc-nic-pause-resume.clean.pcapng", "PASS", "-",
         "behaviour.md §2: pause_end[F]=now+pause; a later signal overwrites; pause 0 resumes F now; "
         "§0 round robin; host side delivered; LLDP before t0 background",
         cnames, base + host + bg)
    # ignores the resume: flow 0 held until 3.5us
    ev2 = [e for e in events if e[2] != e[0]]
    sched2 = nic_schedule(offers, lambda f, t: blocked_sfc(f, t, ev2))
    emit(v, "sfc-nic-pause-resume.ignores-resume.pcapng", "FAIL", "DATA-TIMING",
         "behaviour.md §2: pause 0 resumes F now (flow 0 frames then leave 1.5us late, past tolerances.time 1us)",
         cnames, [(0, t0 + t, f) for t, f in sched2] + host + bg)
    # a data frame altered (one payload octet), ICRC recomputed so only the content differs
    k = 10
    alt = bytearray(base[k][2])
    alt[60] ^= 0x01
    emit(v, "sfc-nic-pause-resume.altered.pcapng", "FAIL", "DATA-ALTERED",
         "conformance.md rule 8: no data frame is altered (payload octet changed, ICRC valid)",
         cnames, replace_at(base, k, (0, base[k][1], fix_icrc(bytes(alt)))) + host + bg)
    # one data frame dropped
    emit(v, "sfc-nic-pause-resume.drop.pcapng", "FAIL", "DATA-LOSS",
         "conformance.md rule 8: no data frame of a scenario flow is dropped",
         cnames, base[:k] + base[k + 1:] + host + bg)

    # ---- floodgate/nic-dst-pause: dst-pause 0xFFFF for flow 0's destination at 300ns, 0 at 1.5us.
    v = "floodgate/nic-dst-pause"
    names, fr, t0 = vec_input(v)
    offers = [(t - t0, f) for i, t, f in fr if names[i] == "host"]
    fg = [(t - t0, f) for i, t, f in fr if names[i] != "host" and f[12:14] == b"\x88\xb5"]
    dpause = []  # (t, dst, paused?)
    for t, f in fg:
        n = struct.unpack("!H", f[20:22])[0]
        for e in range(n):
            ent = f[22 + 8 * e:30 + 8 * e]
            dpause.append((t, ent[4:8], struct.unpack("!H", ent[0:2])[0]))

    def blocked_fg(f, t):
        st = None
        for te, d, p in dpause:
            if te <= t and d == f[30:34]:
                st = p
        if st:
            nxt = [te for te, d, p in dpause if te > t and d == f[30:34]]
            return min(nxt) if nxt else math.inf
        return None

    sched = nic_schedule(offers, blocked_fg)
    cnames = ["port0"]
    base = [(0, t0 + t, f) for t, f in sched]
    bg = [(0, t0 - 3000000, lldp(mac("02:00:00:00:00:00"))),
          (0, t0 + 5000, arp(mac("02:00:00:00:00:00"), ip4("10.0.0.1"), ip4("10.0.0.254")))]
    emit(v, "fg-nic-dst-pause.clean.pcapng", "PASS", "-",
         "behaviour.md §7: a NIC stops starting packets to d while paused (0xFFFF = until resumed, 0 resumes); other flow goes on",
         cnames, base + bg)
    sched2 = nic_schedule(offers, lambda f, t: None)
    emit(v, "fg-nic-dst-pause.ignores-pause.pcapng", "FAIL", "DATA-TIMING",
         "behaviour.md §7: a NIC stops starting packets to d while paused (device sends flow 0 ~1us early)",
         cnames, [(0, t0 + t, f) for t, f in sched2] + bg)


# ---------------------------------------------------------------- switch model (behaviour.md §0, §1, §4)
class Fifo:
    """One egress queue draining at line rate; frames start at max(arrival, previous end),
    forwarded from their first bit (the reference's cut-through, conformance/README.md §5)."""

    def __init__(self, hold=None):
        self.items = []  # (arrival, start, end, ingress, frame)
        self.hold = hold or []

    def push(self, t, ingress, f):
        start = max(t, self.items[-1][2] if self.items else 0.0)
        for a, b in self.hold:
            if a <= start < b:
                start = b
        self.items.append((t, start, start + tx(len(f)), ingress, f))

    def depth(self, t, upto):
        """octets enqueued (the first `upto` items) and not fully transmitted at t."""
        return sum(len(x[4]) for x in self.items[:upto] if x[2] > t)


def pause_8023x():
    v = "pfc/pause-8023x"
    names, fr, t0 = vec_input(v)
    q = None
    pauses = []
    for i, t, f in fr:
        if f[12:14] == b"\x88\x08":
            pauses.append((t - t0, struct.unpack("!H", f[16:18])[0]))
    # behaviour.md §4: PAUSE sets paused_until for all priorities; 0 clears it.
    hold = []
    for t, qn in pauses:
        if hold and hold[-1][1] > t:
            hold[-1] = (hold[-1][0], t)
        if qn:
            hold.append((t, t + qn * 512 / SPEED * 1e9))
    q = Fifo(hold)
    for i, t, f in fr:
        if f[12:14] == b"\x08\x00":
            q.push(t - t0, i, f)
    cnames = ["port0", "port1", "port2"]
    base = [(1, t0 + s, f) for _, s, _, _, f in q.items]
    bg = [(k, t0 - 2000000 - 1000 * k, lldp(mac("02:5f:00:00:00:0%d" % k))) for k in range(3)]
    bg += [(2, t0 + 4000, arp(mac("02:5f:00:00:00:02"), ip4("10.0.2.254"), ip4("10.0.2.1")))]
    emit(v, "pfc-pause-8023x.clean-merged.pcapng", "PASS", "-",
         "behaviour.md §4: PAUSE stops all priorities (2000 q = 20.48us) until time 0 at 8us; frame in progress finishes; "
         "per-port captures merged with mergecap -I none, LLDP before t0, ARP background (conformance.md rules 1-2)",
         cnames, base + bg, merge=True)
    # routed: TTL decremented, MACs rewritten (egress port MAC -> peer MAC), IP checksum fixed
    routed = []
    for ifid, t, f in base:
        g = bytearray(f)
        g[0:6] = mac("02:00:00:00:00:01")
        g[6:12] = mac("02:5f:00:00:00:01")
        g[22] -= 1
        g[24:26] = b"\0\0"
        g[24:26] = struct.pack("!H", csum(bytes(g[14:34])))
        routed.append((ifid, t, bytes(g)))
    emit(v, "pfc-pause-8023x.clean-routed.pcapng", "PASS", "-",
         "conformance.md rule 8: data may be altered as the scheme allows: TTL, ECN marking, MACs on routing "
         "(a routing device: TTL-1, MACs rewritten, IP checksum recomputed)",
         cnames, routed + bg)
    # ignores the PAUSE: frames 13-16 leave at once
    q2 = Fifo()
    for i, t, f in fr:
        if f[12:14] == b"\x08\x00":
            q2.push(t - t0, i, f)
    emit(v, "pfc-pause-8023x.ignores-pause.pcapng", "FAIL", "DATA-TIMING",
         "behaviour.md §4: PAUSE does the same for all eight priorities: nothing new starts while paused (frames ~7us early)",
         cnames, [(1, t0 + s, f) for _, s, _, _, f in q2.items] + bg)
    emit(v, "pfc-pause-8023x.drop.pcapng", "FAIL", "DATA-LOSS",
         "conformance.md rule 8: no data frame of a scenario flow is dropped (frame 14 of 16 missing)",
         cnames, base[:13] + base[14:] + bg)
    emit(v, "pfc-pause-8023x.drop-runs-on.pcapng", "FAIL", "DATA-LOSS",
         "conformance.md rule 8: no data frame is dropped; the capture runs on 150us past the last frame (an LLDP), past tolerances.window",
         cnames, base[:13] + base[14:] + bg + [(0, t0 + 150000, lldp(mac("02:5f:00:00:00:00")))])
    emit(v, "pfc-pause-8023x.ends-5us.pcapng", "INCONCLUSIVE", "-",
         "conformance.md rule 9: the capture ends (5us) before the reference's last frame (8.26us) plus the time tolerance",
         cnames, [x for x in base + bg if x[1] < t0 + 5000])
    emit(v, "pfc-pause-8023x.isb-drops.pcapng", "INCONCLUSIVE", "-",
         "conformance.md rule 9: the pcapng says frames were dropped by the capture (isb_ifdrop 3 on port1)",
         cnames, base + bg, drops={1: 3})


def sfc_incast():
    v = "sfc/incast-first-bts"
    names, fr, t0 = vec_input(v)
    Q_TH, Q_TG, REPORTER, RESET = 20000, 10000, 7, 5000
    q = Fifo()
    filt = set()
    bts = []  # (port, t, frame, meta)
    for i, t, f in fr:
        t -= t0
        qd = q.depth(t, len(q.items))  # just before this packet is enqueued
        q.push(t, i, f)
        key = (five_tuple(f), int(t // RESET))
        if qd > Q_TH and key not in filt:
            filt.add(key)
            qde = q.depth(t, len(q.items))  # at t_e = now (bts_latency 0), this packet included
            pause = math.ceil(max(0, qde - Q_TG) * 8 / SPEED * 1e9 / 1000 - 1e-12)
            bts.append((i, t, build_bts(i, f, pause, qde, REPORTER, 4, dscp(f) >> 3), dict(pause=pause, qde=qde)))
    data = [(4, t0 + s, f) for _, s, _, _, f in q.items]
    sig = [(p, t0 + t, b) for p, t, b, _ in bts]
    cnames = ["port%d" % k for k in range(5)]
    bg = [(k, t0 - 500000 - 7000 * k, lldp(mac("02:5f:00:00:00:0%d" % k))) for k in range(5)]
    bg += [(4, t0 + 300, arp(mac("02:5f:00:00:00:04"), ip4("10.0.4.254"), ip4("10.0.4.1"))),
           (0, t0 + 1500, arp(mac("02:5f:00:00:00:00"), ip4("10.0.0.254"), ip4("10.0.0.1")))]
    base = data + sig
    print("sfc/incast-first-bts BTS:", [(p, round(t), m) for p, t, _, m in bts], file=sys.stderr)
    emit(v, "sfc-incast.clean.pcapng", "PASS", "-",
         "behaviour.md §1 steps 1-4: BTS when qd > Q_th (first per 5-tuple per reset period), "
         "pause=ceil(max(0,qd_e-Q_tg)/R) us, C set (server-facing), depth=qd_e; wire.md §5; background and pre-t0 LLDP",
         cnames, base + bg)
    # merged "per interface" (mergecap -a: concatenated, interfaces out of step)
    path = "sfc-incast.clean-concat.pcapng"
    allf = sorted(base + bg, key=lambda x: (x[0], x[1]))
    write_pcapng(os.path.join(HERE, path), cnames, allf)
    MANIFEST.append((v, path, "PASS", "-",
                     "conformance.md rule 1: frames of different interfaces are merged by time (file ordered by interface, as mergecap -a)"))

    def with_bts(idx, fn):
        out = list(sig)
        p, t, b = out[idx]
        r = fn(p, t, bytearray(b))
        if r is None:
            del out[idx]
        else:
            out[idx] = r
        return data + out + bg

    def setf(off, val):
        def fn(p, t, b):
            b[42 + off:42 + off + len(val)] = val
            return (p, t, refix(bytes(b)))
        return fn

    first = 0  # the first BTS (sender 3 at ~724ns)
    emit(v, "sfc-incast.clean-values-in-window.pcapng", "PASS", "-",
         "conformance.md rule 4: a time-varying value is accepted iff the reference produces it at some instant within the "
         "time window; sender 3's BTS carries pause 2 and depth 22638, the reference's values at 755ns (31ns later), "
         "and is sent 900ns late (within tolerances.time)",
         cnames, with_bts(0, lambda p, t, b: (p, t + 900, refix(bytes(b[:44]) + struct.pack("!H", 2) + bytes(b[46:54])
                                                                + struct.pack("!I", 22638) + bytes(b[58:])))))
    emit(v, "sfc-incast.pause-plus1-outside.pcapng", "FAIL", "SFC-BTS-PAUSE",
         "behaviour.md §1 step 4 / conformance.md rule 4: pause 4us is produced at no instant "
         "(max depth 35574 gives 3us); first BTS says 4 instead of %d" % bts[first][3]["pause"],
         cnames, with_bts(first, setf(2, struct.pack("!H", 4))))
    emit(v, "sfc-incast.pause-zero.pcapng", "FAIL", "SFC-BTS-PAUSE",
         "conformance.md rule 4: a resume (0) where the reference pauses is never within tolerance",
         cnames, with_bts(1, setf(2, b"\0\0")))
    emit(v, "sfc-incast.depth-plus1.pcapng", "FAIL", "SFC-BTS-DEPTH",
         "behaviour.md §1 step 4: queue depth field = qd_e; every depth is a multiple of 1078, so qd_e+1 occurs at no instant",
         cnames, with_bts(2, setf(12, struct.pack("!I", bts[2][3]["qde"] + 1))))
    emit(v, "sfc-incast.c-flag-clear.pcapng", "FAIL", "SFC-BTS-FIELDS",
         "behaviour.md §1 step 4: C flag set when q's port is server-facing (port 4 is); wire.md §5 flags 0x1",
         cnames, with_bts(0, setf(0, b"\x10")))
    emit(v, "sfc-incast.reserved-set.pcapng", "FAIL", "SFC-BTS-FIELDS",
         "wire.md §5 offset 11 reserved: send zero; conformance.md rule 3 every field to the last octet",
         cnames, with_bts(3, setf(11, b"\x01")))
    emit(v, "sfc-incast.reporter-wrong.pcapng", "FAIL", "SFC-BTS-FIELDS",
         "case.yaml reporter: 7; wire.md §5 reporter id (no mask given)",
         cnames, with_bts(1, setf(4, struct.pack("!I", 8))))
    emit(v, "sfc-incast.dscp-wrong.pcapng", "FAIL", "SFC-BTS-FIELDS",
         "wire.md §5: DSCP = the configured high-priority class (default 48); device sends 46 (EF)",
         cnames, with_bts(2, lambda p, t, b: (p, t, refix(bytes(b[:15]) + bytes([46 << 2]) + bytes(b[16:])))))
    emit(v, "sfc-incast.missing-first.pcapng", "FAIL", "SFC-BTS-FIRST",
         "conformance.md rule 5: no depth slack, the first BTS of every sender under incast counts (sender 0's dropped)",
         cnames, with_bts(2, lambda p, t, b: None))
    emit(v, "sfc-incast.late-1200ns.pcapng", "FAIL", "SFC-BTS-TIMING",
         "conformance.md rule 6: late by at most tolerances.time (1us); a matched late signal is one deviation 'late by X'",
         cnames, with_bts(0, lambda p, t, b: (p, t + 1200, bytes(b))))
    emit(v, "sfc-incast.early-744ns.pcapng", "FAIL", "SFC-BTS-TIMING",
         "conformance.md rule 6: early by at most tolerances.early (500ns): a signal 744ns before its cause is a fault",
         cnames, with_bts(3, lambda p, t, b: (p, t - 744, bytes(b))))
    dup = list(sig) + [(sig[1][0], sig[1][1] + 30, sig[1][2])]
    emit(v, "sfc-incast.duplicate.pcapng", "FAIL", "SFC-BTS-JUSTIFIED",
         "conformance.md rule 7: an extra one (duplicate) is a deviation 'unjustified'",
         cnames, data + dup + bg)
    # the BTS for sender 1 also sent out of the receiver's port 4 (wrong port)
    wp = list(sig) + [(4, sig[1][1] + 5, sig[1][2])]
    emit(v, "sfc-incast.wrong-port-extra.pcapng", "FAIL", "SFC-BTS-JUSTIFIED",
         "conformance.md rule 7: an extra signal on a wrong port is unjustified", cnames, data + wp + bg)
    # no suppression filter: a BTS for every packet that finds qd > Q_th (behaviour.md §1 step 3
    # without the filter); one filter phase cannot explain several BTS to a flow within 1us.
    q3 = Fifo()
    every = []
    for i, t, f in fr:
        t -= t0
        qd = q3.depth(t, len(q3.items))
        q3.push(t, i, f)
        if qd > Q_TH:
            qde = q3.depth(t, len(q3.items))
            pz = math.ceil(max(0, qde - Q_TG) * 8 / SPEED * 1e9 / 1000 - 1e-12)
            every.append((i, t0 + t, build_bts(i, f, pz, qde, REPORTER, 4, dscp(f) >> 3)))
    emit(v, "sfc-incast.no-suppression.pcapng", "FAIL", "SFC-BTS-SUPPRESS",
         "behaviour.md §1 step 3: no BTS while the suppression filter holds the 5-tuple in the current reset period (5us); "
         "the device signals every packet above Q_th (%d BTS, up to 8 per flow within 0.7us: no phase explains it)" % len(every),
         cnames, data + every + bg)
    emit(v, "sfc-incast.data-drop.pcapng", "FAIL", "DATA-LOSS",
         "conformance.md rule 8 / behaviour.md §1 step 5: SFC never drops the data packet",
         cnames, data[:20] + data[21:] + sig + bg)
    two = [x for j, x in enumerate(sig) if j not in (1, 3)]
    emit(v, "sfc-incast.missing-two-first.pcapng", "FAIL", "SFC-BTS-FIRST",
         "conformance.md rule 5: no depth slack: 2 of the 4 first BTS of the incast dropped (senders 1 and 2)",
         cnames, data + two + bg)
    emit(v, "sfc-incast.port0-silent.pcapng", "INCONCLUSIVE", "-",
         "conformance.md rule 9: a needed port carried nothing (port 0, where the reference sends sender 0's BTS, has no frame at all)",
         cnames, [x for x in base + bg if x[0] != 0])
    emit(v, "sfc-incast.ends-1us.pcapng", "INCONCLUSIVE", "-",
         "conformance.md rule 9: the capture ends (1us) before the reference's last signal (794ns) plus the time tolerance (1us)",
         cnames, [x for x in base + bg if x[1] <= t0 + 1000])


def sfc_decisions(fr, t0, q_th, q_tg, reset):
    """behaviour.md §1 steps 1-4 on a single congested egress FIFO: (ingress, t, frame, pause, qd_e)."""
    q = Fifo()
    filt, out = set(), []
    for i, t, f in fr:
        t -= t0
        qd = q.depth(t, len(q.items))
        q.push(t, i, f)
        key = (five_tuple(f), int(t // reset))
        if qd > q_th and key not in filt:
            filt.add(key)
            qde = q.depth(t, len(q.items))
            pause = math.ceil(max(0, qde - q_tg) * 8 / SPEED * 1e9 / 1000 - 1e-12)
            out.append((i, t, f, pause, qde))
    return q, out


def build_cim(port, f, pause, reporter, vid=0, flags=0x01, msdu_max=512, add=1):
    """wire.md §4: L3 CIM addressed like a BTS (IP source = the offending packet's destination,
    destination = its source; DSCP 48, TTL 64, UDP sport = the offending sport, dport 35234),
    PDU version 0, E = 1, Add = 1, the offending frame's MACs and VLAN id, min(MSDU, 512) octets
    (padded to 48), then the SFC pause TLV (type 1, length 8)."""
    msdu = f[14:][:msdu_max]
    msdu += b"\0" * max(0, 48 - len(msdu))
    pdu = bytes([0x02 | add]) + f[0:6] + f[6:12] + struct.pack("!HH", vid & 0xFFF, len(msdu)) + msdu
    pdu += struct.pack("!BBHBBI", 1, 8, pause, flags, 0, reporter)
    src, dst, sport = f[30:34], f[26:30], struct.unpack("!H", f[34:36])[0]
    u = udp(src, dst, sport, 35234, pdu)
    eth = mac("02:00:00:00:00:0%d" % port) + mac("02:5f:00:00:00:0%d" % port) + b"\x08\x00"
    return eth + ipv4(src, dst, u, 48 << 2)


def cim_incast():
    v = "cim/incast-sfc-tlv"
    names, fr, t0 = vec_input(v)
    q, dec = sfc_decisions(fr, t0, 20000, 10000, 5000)
    R = 9
    data = [(4, t0 + s, f) for _, s, _, _, f in q.items]
    sig = [(i, t0 + t, build_cim(i, f, p, R)) for i, t, f, p, _ in dec]
    print("cim/incast-sfc-tlv:", [(i, round(t), p) for i, t, _, p, _ in dec], file=sys.stderr)
    cnames = ["port%d" % k for k in range(5)]
    bg = [(k, t0 - 800000 - 3000 * k, lldp(mac("02:5f:00:00:00:0%d" % k))) for k in range(5)]
    emit(v, "cim-incast.clean.pcapng", "PASS", "-",
         "behaviour.md §5: where SFC sends a BTS, an L3 CIM with Add=1, the offending frame's MACs and VLAN, its MSDU "
         "(512 octets) and the SFC pause TLV (same pause, C, origin, reporter 9); wire.md §4",
         cnames, data + sig + bg, merge=True)

    def with_sig(idx, fn):
        out = list(sig)
        r = fn(*out[idx], dec[idx])
        if r is None:
            del out[idx]
        else:
            out[idx] = r
        return data + out + bg

    emit(v, "cim-incast.pause-zero.pcapng", "FAIL", "SFC-CIM-PAUSE",
         "conformance.md rule 4: a resume (0) where the reference pauses is never within tolerance",
         cnames, with_sig(0, lambda p, t, b, d: (p, t, build_cim(p, d[2], 0, R))))
    emit(v, "cim-incast.vid-set.pcapng", "FAIL", "SFC-CIM-FIELDS",
         "behaviour.md §5 / wire.md §4.1: vlan_identifier = the offending frame's VLAN (untagged: 0); device writes 5",
         cnames, with_sig(1, lambda p, t, b, d: (p, t, build_cim(p, d[2], d[3], R, vid=5))))
    emit(v, "cim-incast.c-flag-clear.pcapng", "FAIL", "SFC-CIM-FIELDS",
         "behaviour.md §5: the TLV carries the same C flag as the BTS would (port 4 server-facing: C set)",
         cnames, with_sig(2, lambda p, t, b, d: (p, t, build_cim(p, d[2], d[3], R, flags=0))))
    emit(v, "cim-incast.msdu-64.pcapng", "FAIL", "SFC-CIM-FIELDS",
         "wire.md §4.1: builders copy min(len(MSDU), 512) octets; device copies 64 (a BTS-sized quote)",
         cnames, with_sig(3, lambda p, t, b, d: (p, t, build_cim(p, d[2], d[3], R, msdu_max=64))))
    emit(v, "cim-incast.missing-first.pcapng", "FAIL", "SFC-CIM-FIRST",
         "conformance.md rule 5: the first signal of every sender under incast counts (sender 1's CIM dropped)",
         cnames, with_sig(1, lambda p, t, b, d: None))
    emit(v, "cim-incast.late-1100ns.pcapng", "FAIL", "SFC-CIM-TIMING",
         "conformance.md rule 6: late by at most tolerances.time 1us",
         cnames, with_sig(3, lambda p, t, b, d: (p, t + 1100, b)))
    emit(v, "cim-incast.ends-700ns.pcapng", "INCONCLUSIVE", "-",
         "conformance.md rule 9: the capture ends (0.7us) before the reference's last signal (794ns) plus 1us",
         cnames, [x for x in data + sig + bg if x[1] <= t0 + 700])


def sfcp():
    v = "sfc-p/bts-to-pfc"
    names, fr, t0 = vec_input(v)
    q = Fifo()
    sig, data = [], []
    hosts = {ip4("10.0.0.0")[:3]: 0, ip4("10.0.1.0")[:3]: 1}
    for i, t, f in fr:
        t -= t0
        if f[23] == 17 and f[36:38] == b"\x03\xfd":
            # behaviour.md §3: BTS to a host behind an SFC-P port: consumed, PFC instead
            port = hosts[f[30:33]]
            pause_us = struct.unpack("!H", f[44:46])[0]
            quoted_dscp = f[58 + 1] >> 2
            prio = quoted_dscp >> 3
            quanta = min(65535, math.ceil(pause_us * 1000 * SPEED / 512 / 1e9 - 1e-9))
            sig.append((port, t, prio, quanta, pause_us))
        else:
            q.push(t, i, f)
    data = [(2, t0 + s, f) for _, s, _, _, f in q.items]
    smac = lambda p: mac("02:5f:00:00:00:0%d" % p)
    frames = [(p, t0 + t, pfc_frame(smac(p), pr, qn)) for p, t, pr, qn, _ in sig]
    print("sfc-p/bts-to-pfc:", sig, file=sys.stderr)
    cnames = ["port0", "port1", "port2"]
    bg = [(k, t0 - 100000 - 1000 * k, lldp(smac(k))) for k in range(3)]
    bg += [(2, t0 + 5500, arp(smac(2), ip4("10.0.0.254"), ip4("10.9.9.9")))]
    emit(v, "sfcp-bts-to-pfc.clean.pcapng", "PASS", "-",
         "behaviour.md §3: the ToR consumes a BTS to a local host on an SFC-P port and sends it a PFC frame: p = class of the "
         "quoted DSCP, enable bit p only, time = ceil(pause_ns*link_bps/512/1e9) (20us -> 3907, 50us -> 9766), pause 0 -> time 0",
         cnames, data + frames + bg)

    def mod(idx, fn):
        out = list(frames)
        r = fn(*out[idx], sig[idx])
        if r is None:
            del out[idx]
        else:
            out[idx] = r
        return data + out + bg

    emit(v, "sfcp-bts-to-pfc.floor-quanta.pcapng", "FAIL", "PFC-QUANTA",
         "behaviour.md §3: time[p] = ceil(...); floor gives 3906 for 20us (off by one quantum)",
         cnames, mod(0, lambda p, t, b, s: (p, t, pfc_frame(smac(p), s[2], math.floor(s[4] * 1000 * SPEED / 512 / 1e9)))))
    emit(v, "sfcp-bts-to-pfc.us-as-quanta.pcapng", "FAIL", "PFC-QUANTA",
         "behaviour.md §3: the pause is converted to quanta at the link speed; device copies 50 (µs) into the quanta field",
         cnames, mod(1, lambda p, t, b, s: (p, t, pfc_frame(smac(p), s[2], s[4]))))
    emit(v, "sfcp-bts-to-pfc.all-classes.pcapng", "FAIL", "PFC-FIELDS",
         "behaviour.md §3: enable bit p only; device enables all 8 classes with the same time",
         cnames, mod(0, lambda p, t, b, s: (p, t, pfc_frame(smac(p), s[2], s[3], enable=0xFF, times=[s[3]] * 8))))
    emit(v, "sfcp-bts-to-pfc.missing-resume.pcapng", "FAIL", "PFC-XON",
         "behaviour.md §3: pause 0 becomes time 0 (resume); the device sends nothing for the pause-0 BTS",
         cnames, mod(2, lambda p, t, b, s: None))
    emit(v, "sfcp-bts-to-pfc.bts-forwarded.pcapng", "FAIL", "SFC-BTS-JUSTIFIED",
         "behaviour.md §3: the ToR consumes the BTS; device also forwards the first BTS to host 0 (an unjustified BTS)",
         cnames, data + frames + bg + [(0, t0 + sig[0][1] + 5, [f for i, t, f in fr if f[23] == 17 and f[36:38] == b"\x03\xfd"][0])])


# ---------------------------------------------------------------- BFC (wire.md §7.1, behaviour.md §6)
BFC_POLY = [0x82F63B78, 0xEDB88320, 0xEB31D82E, 0x992C1A4C, 0xD5828281, 0xD419CC15, 0xC8DF352F, 0xD8018001]
BFC_CHECK = [0xE3069283, 0xCBF43926, 0x2D3DD0AE, 0xEEB754CC, 0xA9CC8179, 0x87315576, 0x1697D06A, 0x01206205]


def crc_s(s, data):
    c = 0xFFFFFFFF
    for b in data:
        c ^= b
        for _ in range(8):
            c = (c >> 1) ^ (BFC_POLY[s] if c & 1 else 0)
    return c ^ 0xFFFFFFFF


for _s in range(8):  # the check values of wire.md's table
    assert crc_s(_s, b"123456789") == BFC_CHECK[_s], _s


def bfc_key(f):
    return f[26:30] + f[30:34] + bytes([f[23]]) + f[34:38]


def bfc_paused(filt, k, L, f):
    key = bfc_key(f)
    per = L // k
    for s in range(k):
        b = crc_s(s, key) % (8 * per)
        if not filt[s * per + b // 8] & (0x80 >> (b % 8)):
            return False
    return True


def bfc_nic():
    v = "bfc/nic-stale-sequence"
    names, fr, t0 = vec_input(v)
    offers = [(t - t0, f) for i, t, f in fr if names[i] == "host"]
    frames = [(t - t0, f) for i, t, f in fr if names[i] != "host" and f[12:14] == b"\x88\xb5" and f[14:16] == b"FC"]

    def filters(apply_stale):
        out, last = [], None  # (t, filter bytes, k, L)
        for t, f in frames:
            k, L, seq = f[18], struct.unpack("!H", f[20:22])[0], struct.unpack("!I", f[22:26])[0]
            if last is not None and not apply_stale and ((seq - last) & 0xFFFFFFFF) >= 0x80000000:
                continue  # serial-number arithmetic: older than the last applied
            last = seq
            out.append((t, f[26:26 + L], k, L))
        return out

    def blocker(fl):
        def blocked(f, t):
            cur = None
            for te, filt, k, L in fl:
                if te <= t:
                    cur = (filt, k, L)
            if cur and bfc_paused(cur[0], cur[1], cur[2], f):
                nxt = [te for te, _, _, _ in fl if te > t]
                return min(nxt) if nxt else math.inf
            return None
        return blocked

    fl = filters(False)
    sched = nic_schedule(offers, blocker(fl))
    print("bfc/nic-stale-sequence: flow paused by frame 1:", [bfc_paused(fl[0][1], fl[0][2], fl[0][3], f) for _, f in offers[:2]],
          file=sys.stderr)
    cnames = ["port0"]
    me = mac("02:00:00:00:00:00")
    bg = [(0, t0 - 10000, lldp(me)), (0, t0 + 150000, lldp(me))]
    base = [(0, t0 + t, f) for t, f in sched]
    emit(v, "bfc-nic-stale.clean.pcapng", "PASS", "-",
         "behaviour.md §6: the upstream replaces the port's filter ignoring stale sequence numbers; a flow is paused iff its bit is "
         "set in all k stages (wire.md §7.1 CRC_s, index mod 8L/k); seq 1 after seq 2 is ignored; LLDP before t0 and 150us after",
         cnames, base + bg)
    sched2 = nic_schedule(offers, blocker(filters(True)))
    emit(v, "bfc-nic-stale.applies-stale.pcapng", "FAIL", "DATA-LOSS",
         "wire.md §7.1: a receiver ignores a frame older than the last it applied; the device applies stale seq 1 at 1.5us and "
         "holds flow 0 for ever (its remaining frames never leave; the capture runs 150us on)",
         cnames, [(0, t0 + t, f) for t, f in sched2 if t < math.inf] + bg)
    sched3 = nic_schedule(offers, lambda f, t: None)
    early = max(a - b for (a, fa), (b, fb) in zip(sorted((t, f) for t, f in sched), sorted((t, f) for t, f in sched3)))
    emit(v, "bfc-nic-stale.ignores-pause.pcapng", "FAIL", "DATA-TIMING",
         "behaviour.md §6: a queue whose head flow matches the filter is skipped; the device ignores the pause of 0.3-1us",
         cnames, [(0, t0 + t, f) for t, f in sched3] + bg)


def refix(frame):
    """recompute IPv4 header and UDP checksums of an IPv4/UDP frame."""
    b = bytearray(frame)
    b[24:26] = b"\0\0"
    b[24:26] = struct.pack("!H", csum(bytes(b[14:34])))
    b[40:42] = b"\0\0"
    ln = struct.unpack("!H", b[38:40])[0]
    c = csum(bytes(b[26:34]) + struct.pack("!BBH", 0, 17, ln) + bytes(b[34:34 + ln])) or 0xFFFF
    b[40:42] = struct.pack("!H", c)
    return bytes(b)


def build_bts(port, f, pause, depth, reporter, cp_port, cp_queue):
    """wire.md §5: to the data packet's source, from its destination, DSCP 48, TTL 64,
    UDP sport = data sport, dport 1021; version 1, C (server-facing), origin queue."""
    ip = f[14:]
    body = struct.pack("!BBHIHBBI", 0x11, 0, pause, reporter, cp_port, cp_queue, 0, depth)
    body += ip[:min(len(ip), 64)]
    src, dst, sport = f[30:34], f[26:30], struct.unpack("!H", f[34:36])[0]
    u = udp(src, dst, sport, 1021, body)
    eth = mac("02:00:00:00:00:0%d" % port) + mac("02:5f:00:00:00:0%d" % port) + b"\x08\x00"
    return eth + ipv4(src, dst, u, 48 << 2)


def pfc_frame(src, prio, quanta, enable=None, times=None):
    ev = enable if enable is not None else (1 << prio)
    t = times or [0] * 8
    t = list(t)
    t[prio] = quanta
    f = mac("01:80:c2:00:00:01") + src + b"\x88\x08" + struct.pack("!HH8H", 0x0101, ev, *t)
    return f + b"\0" * (60 - len(f))


def pfc_xoff():
    v = "pfc/xoff-refresh-xon"
    names, fr, t0 = vec_input(v)
    XOFF, XON, REFRESH, QUANTA, PRIO = 20000, 10000, 2000, 1000, 3
    q = Fifo()
    arrivals = []
    for i, t, f in fr:
        q.push(t - t0, i, f)
        arrivals.append((t - t0, i))
    # events: arrivals (count up) and ends (count down); behaviour.md §4.
    ev = [(x[0], 1, x[3], len(x[4])) for x in q.items]
    ev += [(x[2], 0, x[3], len(x[4])) for x in q.items]
    ev.sort(key=lambda e: (e[0], e[1]))
    count = {0: 0, 1: 0, 2: 0}
    state = {0: None, 1: None, 2: None}  # time of last XOFF/refresh while above xon
    out = []  # (port, t, kind)
    # process in time order, inserting refresh instants
    i = 0
    while i < len(ev):
        t, up, p, n = ev[i]
        # due refreshes before t
        for pp in range(3):
            while state[pp] is not None and state[pp] + REFRESH <= t:
                state[pp] += REFRESH
                out.append((pp, state[pp], "refresh"))
        count[p] += n if up else -n
        if up and count[p] > XOFF and state[p] is None:
            state[p] = t
            out.append((p, t, "xoff"))
        if not up and state[p] is not None and count[p] <= XON:
            state[p] = None
            out.append((p, t, "xon"))
        i += 1
    print("pfc/xoff-refresh-xon:", [(p, round(t), k) for p, t, k in out], file=sys.stderr)
    smac = lambda p: mac("02:5f:00:00:00:0%d" % p)
    sig = [(p, t0 + t, pfc_frame(smac(p), PRIO, 0 if k == "xon" else QUANTA)) for p, t, k in out]
    data = [(3, t0 + s, f) for _, s, _, _, f in q.items]
    cnames = ["port%d" % k for k in range(4)]
    bg = [(k, t0 - 1500000 - 1000 * k, lldp(smac(k))) for k in range(4)]
    bg += [(1, t0 + 3333, arp(smac(1), ip4("10.0.1.254"), ip4("10.0.1.1")))]
    emit(v, "pfc-xoff.clean.pcapng", "PASS", "-",
         "behaviour.md §4: XOFF (1000 q, class 3 only) out of the ingress port when its count > xoff 20KB, refresh every 2us "
         "while > xon, XON (time 0) once when <= xon 10KB; wire.md §2; LLDP before t0, ARP",
         cnames, data + sig + bg, merge=True)

    def mod(idx, fn):
        out2 = list(sig)
        r = fn(*out2[idx])
        if r is None:
            del out2[idx]
        else:
            out2[idx] = r
        return data + out2 + bg

    kinds = [k for _, _, k in out]
    ix_xoff0 = [j for j, (p, _, k) in enumerate(out) if k == "xoff" and p == 0][0]
    ix_xon1 = [j for j, (p, _, k) in enumerate(out) if k == "xon" and p == 1][0]
    ix_ref = [j for j, k in enumerate(kinds) if k == "refresh"][0]
    emit(v, "pfc-xoff.quanta-minus1.pcapng", "FAIL", "PFC-QUANTA",
         "behaviour.md §4 time[p] = pause quanta (case quanta 1000); 999 is off by the smallest unit; conformance.md rule 4 "
         "(quanta fixed by a parameter, not derived from a queue)",
         cnames, mod(ix_xoff0, lambda p, t, b: (p, t, pfc_frame(smac(p), PRIO, QUANTA - 1))))
    emit(v, "pfc-xoff.extra-enable-bit.pcapng", "FAIL", "PFC-FIELDS",
         "behaviour.md §4 / wire.md §2: enable bit p only; device also sets class 0's bit (time 0) -> a resume of class 0 the reference never sends",
         cnames, mod(ix_ref, lambda p, t, b: (p, t, pfc_frame(smac(p), PRIO, QUANTA, enable=0x09))))
    emit(v, "pfc-xoff.disabled-class-time.pcapng", "FAIL", "PFC-FIELDS",
         "conformance.md rule 3: every field equals the reference's; time[5] = 7 on a class not enabled (reference sends 0)",
         cnames, mod(ix_xoff0, lambda p, t, b: (p, t, pfc_frame(smac(p), PRIO, QUANTA, times=[0, 0, 0, 0, 0, 7, 0, 0]))))
    emit(v, "pfc-xoff.wrong-src-mac.pcapng", "FAIL", "PFC-FIELDS",
         "wire.md §2 / conformance.md rule 3: PFC source is the egress port's MAC; device uses the receiver port's MAC",
         cnames, mod(ix_xoff0, lambda p, t, b: (p, t, pfc_frame(smac(3), PRIO, QUANTA))))
    emit(v, "pfc-xoff.missing-first-xoff.pcapng", "FAIL", "PFC-XOFF",
         "behaviour.md §4 XOFF: when the count exceeds xoff send a PFC frame; conformance.md rule 5 missing",
         cnames, mod(ix_xoff0, lambda p, t, b: None))
    emit(v, "pfc-xoff.missing-xon.pcapng", "FAIL", "PFC-XON",
         "behaviour.md §4 XON: when the count falls to xon or below, send time[p]=0 once",
         cnames, mod(ix_xon1, lambda p, t, b: None))
    emit(v, "pfc-xoff.xoff-for-xon.pcapng", "FAIL", "PFC-XON",
         "conformance.md rule 4: XON for XOFF (or the reverse) is never within tolerance; device sends 1000 q where the reference sends 0",
         cnames, mod(ix_xon1, lambda p, t, b: (p, t, pfc_frame(smac(p), PRIO, QUANTA))))
    emit(v, "pfc-xoff.late-1500ns.pcapng", "FAIL", "PFC-TIMING",
         "conformance.md rule 6: late by at most 1us; a matched late frame is one deviation 'late by X'",
         cnames, mod(ix_xoff0, lambda p, t, b: (p, t + 1500, b)))
    extra = list(sig) + [(sig[ix_ref][0], sig[ix_ref][1] + 700, sig[ix_ref][2])]
    emit(v, "pfc-xoff.extra-refresh.pcapng", "FAIL", "PFC-JUSTIFIED",
         "conformance.md rule 7: an extra (duplicate) signal is unjustified; behaviour.md §4 refresh every 2us, not 0.7us after",
         cnames, data + extra + bg)
    emit(v, "pfc-xoff.xoff-before-t0.pcapng", "FAIL", "PFC-JUSTIFIED",
         "conformance.md rule 1: device frames before time 0 are not an error, but signal frames earlier than the tolerance "
         "are reported as unjustified (a stale XOFF on port 0 2us before t0)",
         cnames, data + sig + bg + [(0, t0 - 2000, pfc_frame(smac(0), PRIO, QUANTA))])
    emit(v, "pfc-xoff.clean-late-900ns.pcapng", "PASS", "-",
         "conformance.md rule 6: a signal may be late by at most tolerances.time (1us): every PFC frame 900ns late",
         cnames, data + [(p, t + 900, b) for p, t, b in sig] + bg)
    emit(v, "pfc-xoff.isb-drops.pcapng", "INCONCLUSIVE", "-",
         "conformance.md rule 9: the pcapng says the capture dropped frames (isb_ifdrop 1 on port3)",
         cnames, data + sig + bg, drops={3: 1})
    last = max(t for _, t, _ in sig)
    emit(v, "pfc-xoff.ends-before-xon.pcapng", "INCONCLUSIVE", "-",
         "conformance.md rule 9: the capture ends (9.0us) before the reference's last signal (XON ~%dns) plus 1us" % (last - t0),
         cnames, [x for x in data + sig + bg if x[1] < t0 + 9000])


def main():
    nic_vectors()
    pause_8023x()
    sfc_incast()
    pfc_xoff()
    cim_incast()
    sfcp()
    bfc_nic()
    with open(os.path.join(HERE, "manifest.tsv"), "w") as f:
        f.write("vector\tcapture\tverdict\trule\twhy\n")
        for row in MANIFEST:
            f.write("\t".join(row) + "\n")
    print("%d captures" % len(MANIFEST), file=sys.stderr)


if __name__ == "__main__":
    main()
