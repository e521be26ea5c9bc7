-- SPDX-License-Identifier: Apache-2.0

-- sfc.lua -- Wireshark dissectors for the formats of github.com/opensfc/sfc that
-- Wireshark does not decode by itself.  Contract: spec/wire.md ("Field names").
--
--   cim       IEEE 802.1Qcz Congestion Isolation Message, L2 (EtherType 0x89A2) and
--             L3 (UDP port 35234), with the SFC pause extension TLV (type 1)
--   bts       SFC Back-to-Sender (UDP port 1021)
--   postcard  PB-FS CC-postcard (UDP port 1022)
--   bfc       BFC pause            } EtherType 0x88B5 behind magic 0x4643 ("FC");
--   fgcredit  Floodgate credit     } frames with another magic are left to the
--   fgpause   Floodgate dst-pause  } data dissector
--   flow      the flow quoted by a bts, postcard or cim (5-tuple, dscp, RoCEv2 qp)
--   bth, cnp  FECN/BECN bits and the CNP DestQP, added after Wireshark's own
--             InfiniBand/RoCEv2 dissector (a postdissector reading infiniband.bth)
--
-- Load:    tshark -X lua_script:wireshark/sfc.lua ...
-- Install: copy this file to ~/.local/lib/wireshark/plugins/ (see README.md).
--
-- Written for Wireshark 4.0 (Lua 5.2); no Wireshark-version-specific API beyond
-- what 3.x/4.x all provide.  Every number is big-endian on the wire and shown in
-- decimal; booleans are FT_BOOLEAN (tshark 4.0 prints them as 1/0 in -T fields).

local SFC_PLUGIN_VERSION = "0.1.0"

-- Loaded twice (plugin folder and -X lua_script:)?  The first copy wins; a second
-- registration of the same protocols would be a load error.
if rawget(_G, "OPENSFC_SFC_LUA_LOADED") then return end
rawset(_G, "OPENSFC_SFC_LUA_LOADED", SFC_PLUGIN_VERSION)

if set_plugin_info then
    set_plugin_info({
        version = SFC_PLUGIN_VERSION,
        description = "SFC, 802.1Qcz CIM, BFC, Floodgate, PB-FS and RoCEv2 CNP dissectors",
        repository = "https://github.com/opensfc/sfc",
    })
end

---------------------------------------------------------------------------
-- Small helpers
---------------------------------------------------------------------------

local band, rshift
if bit32 then
    band, rshift = bit32.band, bit32.rshift
elseif bit then
    band, rshift = bit.band, bit.rshift
else -- Lua 5.3+ without compat libraries
    band = load("return function(a, b) return a & b end")()
    rshift = load("return function(a, n) return a >> n end")()
end

-- number of set bits per octet value
local POPCOUNT = {}
for v = 0, 255 do
    local n, x = 0, v
    while x > 0 do
        n = n + (x % 2)
        x = math.floor(x / 2)
    end
    POPCOUNT[v] = n
end

local function count_bits(tvb, off, len)
    local n = 0
    for i = off, off + len - 1 do
        n = n + POPCOUNT[tvb(i, 1):uint()]
    end
    return n
end

-- true when tvb holds n octets from off
local function fits(tvb, off, n)
    return off + n <= tvb:len()
end

local function nonzero(tvb, off, n)
    for i = off, off + n - 1 do
        if tvb(i, 1):uint() ~= 0 then return true end
    end
    return false
end

local ORIGIN_VALS = { [0] = "queue", [1] = "cache", [2] = "estimate" }

local IPPROTO_VALS = {
    [1] = "ICMP", [2] = "IGMP", [4] = "IPv4", [6] = "TCP", [17] = "UDP", [33] = "DCCP",
    [41] = "IPv6", [47] = "GRE", [50] = "ESP", [51] = "AH", [58] = "ICMPv6",
    [132] = "SCTP", [136] = "UDP-Lite",
}

-- IP protocols that carry 16-bit source and destination ports in their first 4 octets
local PORTED = { [6] = true, [17] = true, [33] = true, [132] = true, [136] = true }

local ROCEV2_PORT = 4791

local function origin_name(v)
    return ORIGIN_VALS[v] or ("unknown(" .. v .. ")")
end

---------------------------------------------------------------------------
-- flow: the quoted packet (BTS, CC-postcard quote; CIM encapsulated MSDU)
---------------------------------------------------------------------------

local p_flow = Proto("flow", "SFC Quoted Flow")

-- Addresses that may be IPv4 or IPv6 (flow.src, flow.dst, fgcredit.dst, fgpause.dst)
-- are FT_STRING fields holding the standard text form ("10.0.0.1", "fd00::1"), each
-- with a hidden typed twin (flow.ip.src FT_IPV4 / flow.ipv6.src FT_IPV6, ...) for
-- subnet filters.  One abbreviation registered as both FT_IPv4 and FT_IPv6 would
-- print right in -T fields but breaks display filters: tshark 4.0 parses the
-- literal for one of the two types only and then compares mismatched values.
local ff = {
    src   = ProtoField.string("flow.src", "Source"),
    dst   = ProtoField.string("flow.dst", "Destination"),
    src4  = ProtoField.ipv4("flow.ip.src", "Source (IPv4)"),
    dst4  = ProtoField.ipv4("flow.ip.dst", "Destination (IPv4)"),
    src6  = ProtoField.ipv6("flow.ipv6.src", "Source (IPv6)"),
    dst6  = ProtoField.ipv6("flow.ipv6.dst", "Destination (IPv6)"),
    proto = ProtoField.uint8("flow.proto", "Protocol", base.DEC, IPPROTO_VALS),
    sport = ProtoField.uint16("flow.sport", "Source port", base.DEC),
    dport = ProtoField.uint16("flow.dport", "Destination port", base.DEC),
    dscp  = ProtoField.uint8("flow.dscp", "DSCP", base.DEC),
    qp    = ProtoField.uint24("flow.qp", "RoCEv2 DestQP", base.DEC),
}
p_flow.fields = { ff.src, ff.dst, ff.src4, ff.dst4, ff.src6, ff.dst6, ff.proto, ff.sport,
                  ff.dport, ff.dscp, ff.qp }

-- Adds an IPv4 or IPv6 address at r as the string field fs (standard text) plus the
-- hidden typed field f4 or f6.  Returns the text.
local function add_addr(t, fs, f4, f6, r)
    local text
    if r:len() == 4 then
        text = tostring(r:ipv4())
        t:add(fs, r, text)
        t:add(f4, r):set_hidden()
    else
        text = tostring(r:ipv6())
        t:add(fs, r, text)
        t:add(f6, r):set_hidden()
    end
    return text
end

local fe = {
    short = ProtoExpert.new("flow.quote_too_short", "Quote too short to name the flow",
                            expert.group.MALFORMED, expert.severity.WARN),
    not_ip = ProtoExpert.new("flow.quote_not_ip", "Quote is not an IPv4 or IPv6 packet",
                             expert.group.MALFORMED, expert.severity.WARN),
}
p_flow.experts = { fe.short, fe.not_ip }

-- The quote walk of layers.DecodeQuote (decodeQuoteChecked, skipIPv6Ext), rule for
-- rule.  IPv6 extension headers of (len + 1) * 8 octets: hop-by-hop, routing,
-- destination options, mobility, HIP, shim6, experimental.  The fragment header is
-- 8 octets; AH (RFC 4302) is (len + 2) * 4 octets, after IPv4 as after IPv6.
local IPV6_EXT = { [0] = true, [43] = true, [60] = true, [135] = true, [139] = true,
                   [140] = true, [253] = true, [254] = true }
local IPV6_FRAG, IP_ESP, IP_AH = 44, 50, 51
-- layers.MaxIPv6ExtHeaders: the most extension headers (or IPv4 AH headers) walked;
-- one more is an error.
local IP_MAX_EXT = 10

-- Decodes the quoted IP packet at tvb[off, off+len) under tree.  Returns a one-line
-- summary, or nil when the quote does not name a flow.  Flow fields are all or
-- nothing: a quote needs the whole IP header (IPv6 extension headers, an IPv4 AH
-- included) plus 8 octets of L4 header.  Two exceptions name a flow without ports
-- and need no L4 header: behind ESP (flow.proto 50), and a fragment after the first
-- (offset not 0; flow.proto is the protocol the fragment header, or IPv4 header,
-- names).  Same rules as the Go layers.DecodeQuote.
local function dissect_flow(tvb, off, len, pinfo, tree)
    if len <= 0 then
        tree:add_proto_expert_info(fe.short, "Quote too short to name the flow (empty)")
        return nil
    end
    local q = tvb(off, len)
    local ver = rshift(tvb(off, 1):uint(), 4)
    -- hlen: offset of the L4 header; proto_off: offset of the octet naming its
    -- protocol; ports: false when the quote holds no L4 header (ESP, later fragment)
    local hlen, proto, proto_off, src, dst
    local ports, note = true, nil
    if ver == 4 then
        if len < 20 then
            tree:add_tvb_expert_info(fe.short, q, "Quote too short: " .. len ..
                                     " octets, an IPv4 header needs 20")
            return nil
        end
        hlen = band(tvb(off, 1):uint(), 0x0F) * 4
        if hlen < 20 then
            tree:add_tvb_expert_info(fe.not_ip, q, "Quoted IPv4 header length " .. hlen ..
                                     " is below 20")
            return nil
        end
        proto_off = 9
        if band(tvb(off + 6, 2):uint(), 0x1FFF) ~= 0 then
            ports, note = false, "fragment"     -- not the first: no L4 header
        else
            local n = 0
            while tvb(off + proto_off, 1):uint() == IP_AH do
                if n == IP_MAX_EXT then
                    tree:add_tvb_expert_info(fe.not_ip, q, "Quoted IPv4 packet has more than " ..
                                             IP_MAX_EXT .. " AH headers")
                    return nil
                end
                if len < hlen + 2 then
                    tree:add_tvb_expert_info(fe.short, q, "Quote too short: IPv4 AH header cut")
                    return nil
                end
                local l = (tvb(off + hlen + 1, 1):uint() + 2) * 4
                if l < 12 then
                    tree:add_tvb_expert_info(fe.not_ip, q, "Quoted IPv4 AH of " .. l ..
                                             " octets, less than its 12 fixed ones")
                    return nil
                end
                proto_off, hlen = hlen, hlen + l
                n = n + 1
            end
            if tvb(off + proto_off, 1):uint() == IP_ESP then
                ports, note = false, "encrypted"
            end
        end
    elseif ver == 6 then
        if len < 40 then
            tree:add_tvb_expert_info(fe.short, q, "Quote too short: " .. len ..
                                     " octets, an IPv6 header needs 40")
            return nil
        end
        proto_off, hlen = 6, 40
        local n = 0
        while true do
            local nh = tvb(off + proto_off, 1):uint()
            if not (IPV6_EXT[nh] or nh == IPV6_FRAG or nh == IP_AH or nh == IP_ESP) then
                break
            end
            if n == IP_MAX_EXT then
                tree:add_tvb_expert_info(fe.not_ip, q, "Quoted IPv6 packet has more than " ..
                                         IP_MAX_EXT .. " extension headers")
                return nil
            end
            if nh == IP_ESP then
                ports, note = false, "encrypted"
                break
            elseif nh == IPV6_FRAG then
                if len < hlen + 8 then
                    tree:add_tvb_expert_info(fe.short, q, "Quote too short: IPv6 fragment header cut")
                    return nil
                end
                local later = band(tvb(off + hlen + 2, 2):uint(), 0xFFF8) ~= 0
                proto_off, hlen = hlen, hlen + 8
                if later then
                    ports, note = false, "fragment"   -- not the first: no L4 header
                    break
                end
            else
                if len < hlen + 2 then
                    tree:add_tvb_expert_info(fe.short, q, "Quote too short: IPv6 extension header cut")
                    return nil
                end
                local l = tvb(off + hlen + 1, 1):uint()
                if nh == IP_AH then l = (l + 2) * 4 else l = (l + 1) * 8 end
                if nh == IP_AH and l < 12 then
                    tree:add_tvb_expert_info(fe.not_ip, q, "Quoted IPv6 AH of " .. l ..
                                             " octets, less than its 12 fixed ones")
                    return nil
                end
                proto_off, hlen = hlen, hlen + l
            end
            n = n + 1
        end
    else
        tree:add_tvb_expert_info(fe.not_ip, q, "Quote is not IP (version " .. ver .. ")")
        return nil
    end
    proto = tvb(off + proto_off, 1):uint()
    if ports and len < hlen + 8 then
        tree:add_tvb_expert_info(fe.short, q, "Quote too short: " .. len .. " octets, need " ..
                                 (hlen + 8) .. " (IP header + 8 octets of L4 header)")
        return nil
    end

    local ft = tree:add(p_flow, q)
    local sport, dport, qp, dscp
    if ver == 4 then
        src = add_addr(ft, ff.src, ff.src4, ff.src6, tvb(off + 12, 4))
        dst = add_addr(ft, ff.dst, ff.dst4, ff.dst6, tvb(off + 16, 4))
        dscp = rshift(tvb(off + 1, 1):uint(), 2)            -- TOS bits 7..2
        ft:add(ff.dscp, tvb(off + 1, 1), dscp)
    else
        src = "[" .. add_addr(ft, ff.src, ff.src4, ff.src6, tvb(off + 8, 16)) .. "]"
        dst = "[" .. add_addr(ft, ff.dst, ff.dst4, ff.dst6, tvb(off + 24, 16)) .. "]"
        dscp = rshift(band(tvb(off, 2):uint(), 0x0FC0), 6)  -- traffic class bits 7..2
        ft:add(ff.dscp, tvb(off, 2), dscp)
    end
    ft:add(ff.proto, tvb(off + proto_off, 1))
    local l4 = off + hlen
    if ports and PORTED[proto] then
        ft:add(ff.sport, tvb(l4, 2))
        ft:add(ff.dport, tvb(l4 + 2, 2))
        sport, dport = tvb(l4, 2):uint(), tvb(l4 + 2, 2):uint()
        if proto == 17 and dport == ROCEV2_PORT and len >= hlen + 8 + 12 then
            ft:add(ff.qp, tvb(l4 + 8 + 5, 3))
            qp = tvb(l4 + 8 + 5, 3):uint()
        end
    end

    local pname = IPPROTO_VALS[proto] or ("proto " .. proto)
    local s
    if sport then
        s = src .. ":" .. sport .. " -> " .. dst .. ":" .. dport .. " " .. pname
    else
        s = src .. " -> " .. dst .. " " .. pname
    end
    if note then s = s .. " (" .. note .. ")" end
    s = s .. " dscp " .. dscp
    if qp then s = s .. " qp " .. qp end
    ft:set_text("Quoted flow: " .. s)
    return s
end

---------------------------------------------------------------------------
-- Expert infos shared in shape by every protocol below
---------------------------------------------------------------------------

local function std_experts(name)
    return {
        reserved = ProtoExpert.new(name .. ".reserved_nonzero", "Reserved bits are not zero",
                                   expert.group.PROTOCOL, expert.severity.WARN),
        version = ProtoExpert.new(name .. ".unknown_version", "Unknown version",
                                  expert.group.MALFORMED, expert.severity.WARN),
        truncated = ProtoExpert.new(name .. ".truncated", "Truncated: length past the data",
                                    expert.group.MALFORMED, expert.severity.ERROR),
    }
end

local function list_experts(e)
    local l = {}
    for _, v in pairs(e) do l[#l + 1] = v end
    return l
end

local function check_reserved(t, e, tvb, off, n, what)
    if nonzero(tvb, off, n) then
        t:add_tvb_expert_info(e.reserved, tvb(off, n), "Reserved bits are not zero: " .. what)
    end
end

local function check_reserved_bits(t, e, tvb, off, n, mask, what)
    if band(tvb(off, n):uint(), mask) ~= 0 then
        t:add_tvb_expert_info(e.reserved, tvb(off, n), "Reserved bits are not zero: " .. what)
    end
end

---------------------------------------------------------------------------
-- bts: Back-to-Sender (wire.md section 5)
---------------------------------------------------------------------------

local p_bts = Proto("bts", "SFC Back-to-Sender")

local fb = {
    version     = ProtoField.uint8("bts.version", "Version", base.DEC, nil, 0xF0),
    cacheable   = ProtoField.bool("bts.cacheable", "Cacheable (C)", 8, nil, 0x01),
    flags_rsvd  = ProtoField.uint8("bts.flags_reserved", "Reserved flags", base.HEX, nil, 0x0E),
    origin      = ProtoField.uint8("bts.origin", "Origin", base.DEC, ORIGIN_VALS),
    pause_us    = ProtoField.uint16("bts.pause_us", "Pause time (us)", base.DEC),
    reporter    = ProtoField.uint32("bts.reporter", "Reporter id", base.DEC),
    cp_port     = ProtoField.uint16("bts.cp_port", "Congestion port", base.DEC),
    cp_queue    = ProtoField.uint8("bts.cp_queue", "Congestion queue", base.DEC),
    reserved    = ProtoField.uint8("bts.reserved", "Reserved", base.HEX),
    queue_depth = ProtoField.uint32("bts.queue_depth", "Queue depth (octets)", base.DEC),
    quote_len   = ProtoField.uint16("bts.quote_len", "Quote length", base.DEC),
    quote       = ProtoField.bytes("bts.quote", "Quote"),
}
p_bts.fields = { fb.version, fb.cacheable, fb.flags_rsvd, fb.origin, fb.pause_us,
                 fb.reporter, fb.cp_port, fb.cp_queue, fb.reserved, fb.queue_depth,
                 fb.quote_len, fb.quote }
local eb = std_experts("bts")
p_bts.experts = list_experts(eb)

local function add_pause(t, field, r)
    local it = t:add(field, r)
    if r:uint() == 0 then it:append_text(" (resume)") end
    return it
end

function p_bts.dissector(tvb, pinfo, tree)
    local len = tvb:len()
    if len == 0 then return 0 end
    pinfo.cols.protocol = "BTS"
    local t = tree:add(p_bts, tvb())
    t:add(fb.version, tvb(0, 1))
    local ver = rshift(tvb(0, 1):uint(), 4)
    if ver ~= 1 then
        t:add_tvb_expert_info(eb.version, tvb(0, 1), "Unknown BTS version " .. ver .. " (expected 1)")
        pinfo.cols.info = "BTS, unknown version " .. ver
        return len
    end
    t:add(fb.cacheable, tvb(0, 1))
    t:add(fb.flags_rsvd, tvb(0, 1))
    check_reserved_bits(t, eb, tvb, 0, 1, 0x0E, "flags 0x0E")
    local fields = {
        { fb.origin, 1, 1 }, { fb.pause_us, 2, 2 }, { fb.reporter, 4, 4 },
        { fb.cp_port, 8, 2 }, { fb.cp_queue, 10, 1 }, { fb.reserved, 11, 1 },
        { fb.queue_depth, 12, 4 },
    }
    for _, f in ipairs(fields) do
        if not fits(tvb, f[2], f[3]) then
            t:add_proto_expert_info(eb.truncated, "Truncated BTS header: " .. len ..
                                    " octets, the header needs 16")
            pinfo.cols.info = "BTS, truncated"
            return len
        end
        local it
        if f[1] == fb.pause_us then
            it = add_pause(t, f[1], tvb(f[2], f[3]))
        else
            it = t:add(f[1], tvb(f[2], f[3]))
        end
        if f[1] == fb.cp_port and tvb(8, 2):uint() == 0xFFFF then it:append_text(" (unknown)") end
    end
    check_reserved(t, eb, tvb, 11, 1, "octet 11")

    local origin = tvb(1, 1):uint()
    local info = "BTS " .. origin_name(origin) .. " pause " .. tvb(2, 2):uint() .. "us"
    if band(tvb(0, 1):uint(), 0x01) ~= 0 then info = info .. " C" end
    info = info .. " reporter " .. tvb(4, 4):uint()

    local qlen = len - 16
    if qlen > 0 then
        t:add(fb.quote_len, tvb(16, qlen), qlen):set_generated()
        t:add(fb.quote, tvb(16, qlen))
    else
        t:add(fb.quote_len, qlen):set_generated()
    end
    local s = dissect_flow(tvb, 16, qlen, pinfo, t)
    if s then info = info .. ", flow " .. s end
    pinfo.cols.info = info
    return len
end

---------------------------------------------------------------------------
-- postcard: CC-postcard, PB-FS (wire.md section 6)
---------------------------------------------------------------------------

local p_pc = Proto("postcard", "PB-FS CC-Postcard")

local fp = {
    version       = ProtoField.uint8("postcard.version", "Version", base.DEC, nil, 0xF0),
    rsvd_bits     = ProtoField.uint8("postcard.reserved_bits", "Reserved", base.HEX, nil, 0x0F),
    reserved1     = ProtoField.uint8("postcard.reserved1", "Reserved", base.HEX),
    port          = ProtoField.uint16("postcard.port", "Egress port", base.DEC),
    switch_id     = ProtoField.ether("postcard.switch_id", "Switch id"),
    reserved2     = ProtoField.uint16("postcard.reserved2", "Reserved", base.HEX),
    rate_mbps     = ProtoField.uint32("postcard.rate_mbps", "Port rate (Mb/s)", base.DEC),
    window_ns     = ProtoField.uint32("postcard.window_ns", "DC_RTT (ns)", base.DEC),
    ip_bytes      = ProtoField.uint32("postcard.ip_bytes", "I_p (octets)", base.DEC),
    q1_bytes      = ProtoField.uint32("postcard.q1_bytes", "Q^1 (octets)", base.DEC),
    recent_bytes  = ProtoField.uint32("postcard.recent_bytes", "recentBytes (octets)", base.DEC),
    recent_marked = ProtoField.uint32("postcard.recent_marked_bytes", "recentMarkedBytes (octets)", base.DEC),
    quote_len     = ProtoField.uint16("postcard.quote_len", "Quote length", base.DEC),
    quote         = ProtoField.bytes("postcard.quote", "Quote"),
}
p_pc.fields = { fp.version, fp.rsvd_bits, fp.reserved1, fp.port, fp.switch_id, fp.reserved2,
                fp.rate_mbps, fp.window_ns, fp.ip_bytes, fp.q1_bytes, fp.recent_bytes,
                fp.recent_marked, fp.quote_len, fp.quote }
local ep = std_experts("postcard")
p_pc.experts = list_experts(ep)

function p_pc.dissector(tvb, pinfo, tree)
    local len = tvb:len()
    if len == 0 then return 0 end
    pinfo.cols.protocol = "Postcard"
    local t = tree:add(p_pc, tvb())
    t:add(fp.version, tvb(0, 1))
    local ver = rshift(tvb(0, 1):uint(), 4)
    if ver ~= 1 then
        t:add_tvb_expert_info(ep.version, tvb(0, 1), "Unknown CC-postcard version " .. ver .. " (expected 1)")
        pinfo.cols.info = "CC-postcard, unknown version " .. ver
        return len
    end
    t:add(fp.rsvd_bits, tvb(0, 1))
    check_reserved_bits(t, ep, tvb, 0, 1, 0x0F, "octet 0 low bits")
    local fields = {
        { fp.reserved1, 1, 1 }, { fp.port, 2, 2 }, { fp.switch_id, 4, 6 }, { fp.reserved2, 10, 2 },
        { fp.rate_mbps, 12, 4 }, { fp.window_ns, 16, 4 }, { fp.ip_bytes, 20, 4 },
        { fp.q1_bytes, 24, 4 }, { fp.recent_bytes, 28, 4 }, { fp.recent_marked, 32, 4 },
    }
    for _, f in ipairs(fields) do
        if not fits(tvb, f[2], f[3]) then
            t:add_proto_expert_info(ep.truncated, "Truncated CC-postcard header: " .. len ..
                                    " octets, the header needs 36")
            pinfo.cols.info = "CC-postcard, truncated"
            return len
        end
        t:add(f[1], tvb(f[2], f[3]))
    end
    check_reserved(t, ep, tvb, 1, 1, "octet 1")
    check_reserved(t, ep, tvb, 10, 2, "octets 10-11")

    local info = "CC-postcard switch " .. tostring(tvb(4, 6):ether()) .. " port " .. tvb(2, 2):uint() ..
                 " I_p " .. tvb(20, 4):uint() .. " Q1 " .. tvb(24, 4):uint()
    local qlen = len - 36
    if qlen > 0 then
        t:add(fp.quote_len, tvb(36, qlen), qlen):set_generated()
        t:add(fp.quote, tvb(36, qlen))
    else
        t:add(fp.quote_len, qlen):set_generated()
    end
    local s = dissect_flow(tvb, 36, qlen, pinfo, t)
    if s then info = info .. ", flow " .. s end
    pinfo.cols.info = info
    return len
end

---------------------------------------------------------------------------
-- cim: IEEE 802.1Qcz Congestion Isolation Message + SFC pause TLV (wire.md section 4)
---------------------------------------------------------------------------

local p_cim = Proto("cim", "IEEE 802.1Qcz Congestion Isolation Message")

local TLV_VALS = { [0] = "End", [1] = "SFC pause" }

local fc = {
    version    = ProtoField.uint8("cim.version", "Version", base.DEC, nil, 0xF0),
    rsvd_bits  = ProtoField.uint8("cim.reserved_bits", "Reserved", base.HEX, nil, 0x0C),
    ext        = ProtoField.bool("cim.ext", "Extensions (E)", 8, nil, 0x02),
    add        = ProtoField.bool("cim.add", "Add/Del", 8, { "Add (isolate the flow)", "Delete" }, 0x01),
    da         = ProtoField.ether("cim.da", "Destination address"),
    sa         = ProtoField.ether("cim.sa", "Source address"),
    vid_rsvd   = ProtoField.uint16("cim.vid_reserved", "Reserved", base.HEX, nil, 0xF000),
    vid        = ProtoField.uint16("cim.vid", "VLAN identifier", base.DEC, nil, 0x0FFF),
    msdu_len   = ProtoField.uint16("cim.msdu_len", "Encapsulated MSDU length", base.DEC),
    msdu       = ProtoField.bytes("cim.msdu", "Encapsulated MSDU"),
    tlv        = ProtoField.none("cim.tlv", "Extension TLV"),
    tlv_type   = ProtoField.uint8("cim.tlv.type", "Type", base.DEC, TLV_VALS),
    tlv_len    = ProtoField.uint8("cim.tlv.len", "Length", base.DEC),
    tlv_value  = ProtoField.bytes("cim.tlv.value", "Value"),
    pause_us   = ProtoField.uint16("cim.pause_us", "Pause time (us)", base.DEC),
    tlv_flags  = ProtoField.uint8("cim.tlv.flags", "Flags", base.HEX),
    cacheable  = ProtoField.bool("cim.cacheable", "Cacheable (C)", 8, nil, 0x01),
    origin     = ProtoField.uint8("cim.origin", "Origin", base.DEC, ORIGIN_VALS),
    reporter   = ProtoField.uint32("cim.reporter", "Reporter id", base.DEC),
    padding    = ProtoField.bytes("cim.padding", "Padding"),
}
p_cim.fields = { fc.version, fc.rsvd_bits, fc.ext, fc.add, fc.da, fc.sa, fc.vid_rsvd, fc.vid,
                 fc.msdu_len, fc.msdu, fc.tlv, fc.tlv_type, fc.tlv_len, fc.tlv_value,
                 fc.pause_us, fc.tlv_flags, fc.cacheable, fc.origin, fc.reporter, fc.padding }
local ec = std_experts("cim")
ec.msdu_range = ProtoExpert.new("cim.msdu_len_out_of_range", "Encapsulated MSDU length outside 48..512",
                                expert.group.PROTOCOL, expert.severity.WARN)
ec.tlv_len = ProtoExpert.new("cim.bad_tlv_len", "Bad extension TLV length",
                             expert.group.MALFORMED, expert.severity.ERROR)
p_cim.experts = list_experts(ec)

local CIM_HDR = 17

-- Extension TLVs from off to the end of the PDU.  Returns an info suffix.
local function dissect_cim_tlvs(tvb, off, pinfo, t)
    local len = tvb:len()
    local info = ""
    while off < len do
        local typ = tvb(off, 1):uint()
        if typ == 0 then
            local tt = t:add(fc.tlv, tvb(off, 1))
            tt:add(fc.tlv_type, tvb(off, 1))
            tt:set_text("Extension TLV: End")
            off = off + 1
            break
        end
        if not fits(tvb, off, 2) then
            local tt = t:add(fc.tlv, tvb(off, 1))
            tt:add(fc.tlv_type, tvb(off, 1))
            tt:add_proto_expert_info(ec.truncated, "TLV header past the end of the data")
            return info
        end
        local vlen = tvb(off + 1, 1):uint()
        local avail = len - off - 2
        local tt = t:add(fc.tlv, tvb(off, math.min(2 + vlen, len - off)))
        tt:add(fc.tlv_type, tvb(off, 1))
        tt:add(fc.tlv_len, tvb(off + 1, 1))
        tt:set_text("Extension TLV: " .. (TLV_VALS[typ] or ("type " .. typ)) .. ", length " .. vlen)
        if vlen > avail then
            tt:add_tvb_expert_info(ec.truncated, tvb(off + 1, 1), "TLV length " .. vlen ..
                                   " past the data (" .. avail .. " octets left)")
            if avail > 0 then tt:add(fc.tlv_value, tvb(off + 2, avail)) end
            return info
        end
        local v = off + 2
        if typ == 1 then
            if vlen ~= 8 then
                -- malformed: the TLVs after it are not trusted either
                tt:add_tvb_expert_info(ec.tlv_len, tvb(off + 1, 1), "SFC pause TLV length " .. vlen ..
                                       ", expected 8")
                if vlen > 0 then tt:add(fc.tlv_value, tvb(v, vlen)) end
                return info
            else
                add_pause(tt, fc.pause_us, tvb(v, 2))
                local fl = tt:add(fc.tlv_flags, tvb(v + 2, 1))
                fl:add(fc.cacheable, tvb(v + 2, 1))
                check_reserved_bits(tt, ec, tvb, v + 2, 1, 0xFE, "SFC pause TLV flags 0xFE")
                tt:add(fc.origin, tvb(v + 3, 1))
                tt:add(fc.reporter, tvb(v + 4, 4))
                local origin = tvb(v + 3, 1):uint()
                info = info .. ", SFC pause " .. tvb(v, 2):uint() .. "us " .. origin_name(origin)
                if band(tvb(v + 2, 1):uint(), 0x01) ~= 0 then info = info .. " C" end
                info = info .. " reporter " .. tvb(v + 4, 4):uint()
                tt:append_text(": pause " .. tvb(v, 2):uint() .. "us, " .. origin_name(origin))
            end
        elseif vlen > 0 then
            tt:add(fc.tlv_value, tvb(v, vlen))
        end
        off = v + vlen
    end
    if off < len then
        t:add(fc.padding, tvb(off, len - off))
    end
    return info
end

function p_cim.dissector(tvb, pinfo, tree)
    local len = tvb:len()
    if len == 0 then return 0 end
    pinfo.cols.protocol = "CIM"
    local t = tree:add(p_cim, tvb())
    t:add(fc.version, tvb(0, 1))
    local b0 = tvb(0, 1):uint()
    local ver = rshift(b0, 4)
    if ver ~= 0 then
        t:add_tvb_expert_info(ec.version, tvb(0, 1), "Unknown CIM version " .. ver .. " (expected 0)")
        pinfo.cols.info = "CIM, unknown version " .. ver
        return len
    end
    t:add(fc.rsvd_bits, tvb(0, 1))
    check_reserved_bits(t, ec, tvb, 0, 1, 0x0C, "octet 0 bits 3..2")
    t:add(fc.ext, tvb(0, 1))
    t:add(fc.add, tvb(0, 1))
    local fields = {
        { fc.da, 1, 6 }, { fc.sa, 7, 6 }, { fc.vid_rsvd, 13, 2 }, { fc.vid, 13, 2 },
        { fc.msdu_len, 15, 2 },
    }
    for _, f in ipairs(fields) do
        if not fits(tvb, f[2], f[3]) then
            t:add_proto_expert_info(ec.truncated, "Truncated CIM header: " .. len ..
                                    " octets, the header needs 17")
            pinfo.cols.info = "CIM, truncated"
            return len
        end
        t:add(f[1], tvb(f[2], f[3]))
    end
    check_reserved_bits(t, ec, tvb, 13, 2, 0xF000, "VLAN field bits 15..12")

    local add = band(b0, 0x01) ~= 0
    local ext = band(b0, 0x02) ~= 0
    local n = tvb(15, 2):uint()
    local info = "CIM " .. (add and "add" or "delete") .. " " .. tostring(tvb(7, 6):ether()) ..
                 " -> " .. tostring(tvb(1, 6):ether()) .. " vid " .. band(tvb(13, 2):uint(), 0x0FFF)
    if n < 48 or n > 512 then
        t:add_tvb_expert_info(ec.msdu_range, tvb(15, 2), "Encapsulated MSDU length " .. n ..
                              " outside 48..512")
    end
    local avail = len - CIM_HDR
    if n > avail then
        -- the MSDU runs past the data: neither its flow nor the TLVs can be placed
        t:add_tvb_expert_info(ec.truncated, tvb(15, 2), "Encapsulated MSDU length " .. n ..
                              " past the data (" .. avail .. " octets left)")
        if avail > 0 then t:add(fc.msdu, tvb(CIM_HDR, avail)) end
        pinfo.cols.info = info .. ", truncated"
        return len
    end
    if n > 0 then t:add(fc.msdu, tvb(CIM_HDR, n)) end
    local s = dissect_flow(tvb, CIM_HDR, n, pinfo, t)
    if s then info = info .. ", flow " .. s end
    local off = CIM_HDR + n
    if ext then
        info = info .. dissect_cim_tlvs(tvb, off, pinfo, t)
    elseif off < len then
        t:add(fc.padding, tvb(off, len - off))
    end
    pinfo.cols.info = info
    return len
end

---------------------------------------------------------------------------
-- EtherType 0x88B5 family: bfc, fgcredit, fgpause (wire.md section 7)
---------------------------------------------------------------------------

local SFC_MAGIC = 0x4643
local SUBTYPE_VALS = { [1] = "BFC pause", [2] = "Floodgate credit", [3] = "Floodgate dst-pause" }

-- one protocol per subtype; each shows the common header under its own name
local function common_fields(name)
    return {
        magic   = ProtoField.uint16(name .. ".magic", "Magic", base.HEX),
        subtype = ProtoField.uint8(name .. ".subtype", "Subtype", base.DEC, SUBTYPE_VALS),
        version = ProtoField.uint8(name .. ".version", "Version", base.DEC),
    }
end

-- Adds magic, subtype, version.  Returns false (after flagging) when the version is
-- unknown, so the caller stops.  want is the version encoders write (1 unless
-- given); version 1 is always known (BFC pause: the caller flags it).
local function dissect_common(tvb, pinfo, t, f, e, label, want)
    want = want or 1
    t:add(f.magic, tvb(0, 2))
    t:add(f.subtype, tvb(2, 1))
    t:add(f.version, tvb(3, 1))
    local ver = tvb(3, 1):uint()
    if ver ~= want and ver ~= 1 then
        t:add_tvb_expert_info(e.version, tvb(3, 1), "Unknown " .. label .. " version " .. ver ..
                              " (expected " .. want .. ")")
        pinfo.cols.info = label .. ", unknown version " .. ver
        return false
    end
    return true
end

-- BFC pause --------------------------------------------------------------

local p_bfc = Proto("bfc", "BFC Pause")
local fbf = common_fields("bfc")
fbf.hashes         = ProtoField.uint8("bfc.hashes", "Hash count k", base.DEC)
fbf.reserved       = ProtoField.uint8("bfc.reserved", "Reserved", base.HEX)
fbf.filter_len     = ProtoField.uint16("bfc.filter_len", "Filter length (octets)", base.DEC)
fbf.seq            = ProtoField.uint32("bfc.seq", "Sequence", base.DEC)
fbf.filter         = ProtoField.bytes("bfc.filter", "Filter")
fbf.bits_set       = ProtoField.uint32("bfc.bits_set", "Bits set", base.DEC)
fbf.stage          = ProtoField.bytes("bfc.stage", "Stage")
fbf.stage_bits_set = ProtoField.uint32("bfc.stage_bits_set", "Stage bits set", base.DEC)
fbf.padding        = ProtoField.bytes("bfc.padding", "Padding")
p_bfc.fields = { fbf.magic, fbf.subtype, fbf.version, fbf.hashes, fbf.reserved, fbf.filter_len,
                 fbf.seq, fbf.filter, fbf.bits_set, fbf.stage, fbf.stage_bits_set, fbf.padding }
local ebf = std_experts("bfc")
ebf.hashes = ProtoExpert.new("bfc.bad_hashes", "Hash count outside 1..8",
                             expert.group.MALFORMED, expert.severity.WARN)
ebf.filter_len = ProtoExpert.new("bfc.bad_filter_len", "Filter length zero, not a multiple of k or above 1024",
                                 expert.group.MALFORMED, expert.severity.WARN)
-- Version 2 (wire.md 7.1) hashes stage s with its own CRC; version 1 hashed
-- CRC-32C(VFID || s) in every stage, which differ by a constant XOR.
ebf.version1 = ProtoExpert.new("bfc.version1", "Version 1: stages are degenerate",
                               expert.group.PROTOCOL, expert.severity.NOTE)
p_bfc.experts = list_experts(ebf)

function p_bfc.dissector(tvb, pinfo, tree)
    local len = tvb:len()
    pinfo.cols.protocol = "BFC"
    local t = tree:add(p_bfc, tvb())
    if not dissect_common(tvb, pinfo, t, fbf, ebf, "BFC pause", 2) then return len end
    if tvb(3, 1):uint() == 1 then
        t:add_tvb_expert_info(ebf.version1, tvb(3, 1), "BFC pause version 1: its stages are " ..
                              "degenerate (all hashed from the VFID with CRC-32C)")
    end
    if not fits(tvb, 0, 12) then
        t:add_proto_expert_info(ebf.truncated, "Truncated BFC pause header: " .. len ..
                                " octets, the header needs 12")
        pinfo.cols.info = "BFC pause, truncated"
        return len
    end
    t:add(fbf.hashes, tvb(4, 1))
    t:add(fbf.reserved, tvb(5, 1))
    t:add(fbf.filter_len, tvb(6, 2))
    t:add(fbf.seq, tvb(8, 4))
    check_reserved(t, ebf, tvb, 5, 1, "octet 5")
    local k = tvb(4, 1):uint()
    local L = tvb(6, 2):uint()
    -- As the Go decoder: a bad geometry or a filter past the data leaves the
    -- filter undecoded (no bfc.bits_set).
    local info = "BFC pause seq " .. tvb(8, 4):uint() .. " k " .. k .. " L " .. L
    local bad = false
    if k < 1 or k > 8 then
        t:add_tvb_expert_info(ebf.hashes, tvb(4, 1), "Hash count " .. k .. " outside 1..8")
        bad = true
    elseif L == 0 or L % k ~= 0 or L > 1024 then
        t:add_tvb_expert_info(ebf.filter_len, tvb(6, 2), "Filter length " .. L ..
                              ": want a positive multiple of k = " .. k .. ", at most 1024")
        bad = true
    end
    local avail = len - 12
    if not bad and L > avail then
        t:add_tvb_expert_info(ebf.truncated, tvb(6, 2), "Filter length " .. L ..
                              " past the data (" .. avail .. " octets left)")
        bad = true
    end
    if bad then
        if avail > 0 then t:add(fbf.filter, tvb(12, math.min(L, avail))) end
        pinfo.cols.info = info .. ", malformed"
        return len
    end
    local bits = count_bits(tvb, 12, L)
    local fi = t:add(fbf.filter, tvb(12, L))
    t:add(fbf.bits_set, tvb(12, L), bits):set_generated()
    local sl = L / k
    for s = 0, k - 1 do
        local sb = count_bits(tvb, 12 + s * sl, sl)
        local st = fi:add(fbf.stage, tvb(12 + s * sl, sl))
        st:set_text("Stage " .. s .. ": " .. sb .. " of " .. (8 * sl) .. " bits set")
        st:add(fbf.stage_bits_set, tvb(12 + s * sl, sl), sb):set_generated()
    end
    if 12 + L < len then
        t:add(fbf.padding, tvb(12 + L, len - 12 - L))
    end
    pinfo.cols.info = info .. ", " .. bits .. " bits set"
    return len
end

-- Floodgate credit and dst-pause -------------------------------------------

local p_fgc = Proto("fgcredit", "Floodgate Credit")
local ffc = common_fields("fgcredit")
ffc.family   = ProtoField.uint8("fgcredit.family", "Address family", base.DEC)
ffc.reserved = ProtoField.uint8("fgcredit.reserved", "Reserved", base.HEX)
ffc.count    = ProtoField.uint16("fgcredit.count", "Count", base.DEC)
ffc.entry    = ProtoField.none("fgcredit.entry", "Entry")
ffc.credits  = ProtoField.uint32("fgcredit.credits", "Credits (octets)", base.DEC)
ffc.dst      = ProtoField.string("fgcredit.dst", "Destination")
ffc.dst4     = ProtoField.ipv4("fgcredit.ip.dst", "Destination (IPv4)")
ffc.dst6     = ProtoField.ipv6("fgcredit.ipv6.dst", "Destination (IPv6)")
ffc.padding  = ProtoField.bytes("fgcredit.padding", "Padding")
p_fgc.fields = { ffc.magic, ffc.subtype, ffc.version, ffc.family, ffc.reserved, ffc.count,
                 ffc.entry, ffc.credits, ffc.dst, ffc.dst4, ffc.dst6, ffc.padding }
local efc = std_experts("fgcredit")
efc.family = ProtoExpert.new("fgcredit.bad_family", "Address family is neither 4 nor 6",
                             expert.group.MALFORMED, expert.severity.ERROR)
p_fgc.experts = list_experts(efc)

local p_fgp = Proto("fgpause", "Floodgate Dst-Pause")
local ffp = common_fields("fgpause")
ffp.family     = ProtoField.uint8("fgpause.family", "Address family", base.DEC)
ffp.reserved   = ProtoField.uint8("fgpause.reserved", "Reserved", base.HEX)
ffp.count      = ProtoField.uint16("fgpause.count", "Count", base.DEC)
ffp.entry      = ProtoField.none("fgpause.entry", "Entry")
ffp.pause_us   = ProtoField.uint16("fgpause.pause_us", "Pause time (us)", base.DEC)
ffp.entry_rsvd = ProtoField.uint16("fgpause.entry_reserved", "Reserved", base.HEX)
ffp.dst        = ProtoField.string("fgpause.dst", "Destination")
ffp.dst4       = ProtoField.ipv4("fgpause.ip.dst", "Destination (IPv4)")
ffp.dst6       = ProtoField.ipv6("fgpause.ipv6.dst", "Destination (IPv6)")
ffp.padding    = ProtoField.bytes("fgpause.padding", "Padding")
p_fgp.fields = { ffp.magic, ffp.subtype, ffp.version, ffp.family, ffp.reserved, ffp.count,
                 ffp.entry, ffp.pause_us, ffp.entry_rsvd, ffp.dst, ffp.dst4, ffp.dst6,
                 ffp.padding }
local efp = std_experts("fgpause")
efp.family = ProtoExpert.new("fgpause.bad_family", "Address family is neither 4 nor 6",
                             expert.group.MALFORMED, expert.severity.ERROR)
p_fgp.experts = list_experts(efp)

-- shared by credit (pause = false) and dst-pause (pause = true)
local function dissect_fg(tvb, pinfo, tree, proto, f, e, label, pause)
    local len = tvb:len()
    pinfo.cols.protocol = pause and "FG-DstPause" or "FG-Credit"
    local t = tree:add(proto, tvb())
    if not dissect_common(tvb, pinfo, t, f, e, label) then return len end
    if not fits(tvb, 0, 8) then
        t:add_proto_expert_info(e.truncated, "Truncated " .. label .. " header: " .. len ..
                                " octets, the header needs 8")
        pinfo.cols.info = label .. ", truncated"
        return len
    end
    t:add(f.family, tvb(4, 1))
    t:add(f.reserved, tvb(5, 1))
    t:add(f.count, tvb(6, 2))
    check_reserved(t, e, tvb, 5, 1, "octet 5")
    local fam = tvb(4, 1):uint()
    local n = tvb(6, 2):uint()
    if fam ~= 4 and fam ~= 6 then
        t:add_tvb_expert_info(e.family, tvb(4, 1), "Address family " .. fam .. " is neither 4 nor 6")
        pinfo.cols.info = label .. ", bad address family " .. fam
        return len
    end
    local A = (fam == 4) and 4 or 16
    local esz = 4 + A
    local off = 8
    local shown = {}
    if not fits(tvb, off, n * esz) then
        -- all or nothing, as the Go decoder: a count past the data names no entry
        t:add_tvb_expert_info(e.truncated, tvb(6, 2), "Count " .. n .. " past the data: " ..
                              (n * esz) .. " octets of entries needed, " .. (len - off) .. " follow")
        pinfo.cols.info = label .. ", " .. n .. " entries, truncated"
        return len
    end
    for i = 0, n - 1 do
        local et = t:add(f.entry, tvb(off, esz))
        local dst = add_addr(et, f.dst, f.dst4, f.dst6, tvb(off + 4, A))
        local v
        if pause then
            add_pause(et, f.pause_us, tvb(off, 2))
            et:add(f.entry_rsvd, tvb(off + 2, 2))
            check_reserved(et, e, tvb, off + 2, 2, "entry octets 2-3")
            v = tvb(off, 2):uint()
            local vs = (v == 0xFFFF) and "until resumed" or (v == 0 and "resume" or (v .. "us"))
            et:set_text("Entry " .. i .. ": " .. dst .. " pause " .. vs)
            shown[#shown + 1] = dst .. " " .. vs
        else
            et:add(f.credits, tvb(off, 4))
            v = tvb(off, 4):uint()
            et:set_text("Entry " .. i .. ": " .. dst .. " credits " .. v)
            shown[#shown + 1] = dst .. " " .. v
        end
        off = off + esz
    end
    if off < len then
        t:add(f.padding, tvb(off, len - off))
    end
    pinfo.cols.info = label .. ", " .. n .. (n == 1 and " entry" or " entries") ..
                      (#shown > 0 and (": " .. table.concat(shown, ", ")) or "")
    return len
end

function p_fgc.dissector(tvb, pinfo, tree)
    return dissect_fg(tvb, pinfo, tree, p_fgc, ffc, efc, "Floodgate credit", false)
end

function p_fgp.dissector(tvb, pinfo, tree)
    return dissect_fg(tvb, pinfo, tree, p_fgp, ffp, efp, "Floodgate dst-pause", true)
end

-- dispatcher on EtherType 0x88B5 --------------------------------------------

local p_l2 = Proto("sfcl2", "SFC Experimental L2 (EtherType 0x88B5)")
local fl2 = common_fields("sfcl2")
fl2.data = ProtoField.bytes("sfcl2.data", "Data")
p_l2.fields = { fl2.magic, fl2.subtype, fl2.version, fl2.data }
local el2 = {
    subtype = ProtoExpert.new("sfcl2.unknown_subtype", "Unknown subtype",
                              expert.group.UNDECODED, expert.severity.WARN),
    truncated = ProtoExpert.new("sfcl2.truncated", "Truncated: length past the data",
                                expert.group.MALFORMED, expert.severity.ERROR),
}
p_l2.experts = { el2.subtype, el2.truncated }

-- subtype -> protocol; other plugins may add subtypes here
local subtype_table = DissectorTable.new("sfcl2.subtype", "SFC experimental L2 subtype",
                                         ftypes.UINT8, base.DEC, p_l2)
subtype_table:add(1, p_bfc)
subtype_table:add(2, p_fgc)
subtype_table:add(3, p_fgp)

function p_l2.dissector(tvb, pinfo, tree)
    local len = tvb:len()
    if len < 2 or tvb(0, 2):uint() ~= SFC_MAGIC then
        return 0 -- not ours: the EtherType dissector hands it to "data"
    end
    if len < 4 then
        pinfo.cols.protocol = "SFC-L2"
        local t = tree:add(p_l2, tvb())
        t:add(fl2.magic, tvb(0, 2))
        t:add_proto_expert_info(el2.truncated, "Truncated common header: " .. len ..
                                " octets, it needs 4")
        return len
    end
    local st = tvb(2, 1):uint()
    local d = subtype_table:get_dissector(st)
    if d then return d:call(tvb, pinfo, tree) end
    pinfo.cols.protocol = "SFC-L2"
    pinfo.cols.info = "SFC experimental L2, unknown subtype " .. st
    local t = tree:add(p_l2, tvb())
    t:add(fl2.magic, tvb(0, 2))
    t:add_tvb_expert_info(el2.subtype, tvb(2, 1), "Unknown subtype " .. st)
    t:add(fl2.subtype, tvb(2, 1))
    t:add(fl2.version, tvb(3, 1))
    if len > 4 then t:add(fl2.data, tvb(4, len - 4)) end
    return len
end

---------------------------------------------------------------------------
-- bth / cnp: FECN, BECN and CNP DestQP on top of Wireshark's InfiniBand BTH
---------------------------------------------------------------------------

local p_bth = Proto("bth", "RoCEv2 BTH congestion bits")
local fbt = {
    fecn = ProtoField.bool("bth.fecn", "FECN", 8, nil, 0x80),
    becn = ProtoField.bool("bth.becn", "BECN", 8, nil, 0x40),
}
p_bth.fields = { fbt.fecn, fbt.becn }

local p_cnp = Proto("cnp", "RoCEv2 Congestion Notification Packet")
local fcn = {
    destqp = ProtoField.uint24("cnp.destqp", "DestQP", base.DEC),
}
p_cnp.fields = { fcn.destqp }

local CNP_OPCODE = 0x81
local ib_bth = Field.new("infiniband.bth")

function p_bth.dissector(tvb, pinfo, tree)
    local bths = { ib_bth() }
    for _, fi in ipairs(bths) do
        local r = fi.range
        if r and r:len() >= 12 then
            local o4 = r(4, 1)
            local bt = tree:add(p_bth, r)
            bt:add(fbt.fecn, o4)
            bt:add(fbt.becn, o4)
            local v = o4:uint()
            local fl = {}
            if band(v, 0x80) ~= 0 then fl[#fl + 1] = "FECN" end
            if band(v, 0x40) ~= 0 then fl[#fl + 1] = "BECN" end
            bt:append_text(": " .. (#fl > 0 and table.concat(fl, " ") or "none set"))
            if r(0, 1):uint() == CNP_OPCODE then
                local ct = tree:add(p_cnp, r)
                ct:add(fcn.destqp, r(5, 3))
                ct:append_text(", DestQP " .. r(5, 3):uint())
                pinfo.cols.protocol = "RoCE CNP"
                pinfo.cols.info = "CNP DestQP " .. r(5, 3):uint() ..
                                  (band(v, 0x40) ~= 0 and " BECN" or "")
            end
        end
    end
end

register_postdissector(p_bth)

---------------------------------------------------------------------------
-- Registration and preferences (UDP ports re-register when changed)
---------------------------------------------------------------------------

local udp_table = DissectorTable.get("udp.port")
local eth_table = DissectorTable.get("ethertype")

eth_table:add(0x89A2, p_cim)
eth_table:add(0x88B5, p_l2)

local function port_pref(proto, default, what)
    local current = default
    proto.prefs.udp_port = Pref.uint("UDP port", default,
        what .. " UDP destination port (default " .. default .. "); 0 disables it")
    udp_table:add(default, proto)
    udp_table:add_for_decode_as(proto)
    proto.prefs_changed = function()
        local want = proto.prefs.udp_port
        if want ~= current then
            if current ~= 0 then udp_table:remove(current, proto) end
            if want ~= 0 then udp_table:add(want, proto) end
            current = want
        end
    end
end

port_pref(p_cim, 35234, "L3 CIM")
port_pref(p_bts, 1021, "BTS")
port_pref(p_pc, 1022, "CC-postcard")
