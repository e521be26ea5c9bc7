// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"strings"

	"github.com/opensfc/sfc/device"
)

type paramKind uint8

const (
	pkBytes paramKind = iota
	pkDuration
	pkRate
	pkInt
	pkBool
	pkFloat
	pkInts
)

// paramSpec is one parameter a case may set: its name (behaviour.md's),
// the kind of value, its range, and the schemes and role it applies to.
type paramSpec struct {
	name     string
	kind     paramKind
	lo, hi   int64
	flo, fhi float64
	schemes  []string // any of these must be on
	role     int      // -1 any, else device.Role
	doc      string
}

// ParamDoc describes a parameter for the documentation and `sfcdump
// conform params`.
type ParamDoc struct {
	Name    string
	Unit    string
	Schemes string
	Role    string
	Doc     string
}

var anyRole = -1

var sfcSwitch = []string{SchemeSFC, SchemeSFCCache, SchemeCIM}

var paramTable = []paramSpec{
	// SFC switch, behaviour.md §1.
	{name: "q_th", kind: pkBytes, lo: 0, hi: 0xFFFFFFFF, schemes: sfcSwitch, role: int(device.RoleSwitch), doc: "queue trigger Q_th (default 2 × BDP of the egress port)"},
	{name: "q_tg", kind: pkBytes, lo: 0, hi: 0xFFFFFFFF, schemes: sfcSwitch, role: int(device.RoleSwitch), doc: "queue target Q_tg (default 1 × BDP)"},
	{name: "base_rtt", kind: pkDuration, lo: 100, hi: device.Second, schemes: []string{SchemeSFC, SchemeSFCCache, SchemeCIM, SchemePFC}, role: int(device.RoleSwitch), doc: "base RTT the BDP is counted over (default 10us)"},
	{name: "reset", kind: pkDuration, lo: 1, hi: device.Second, schemes: sfcSwitch, role: int(device.RoleSwitch), doc: "suppression filter reset period (default base_rtt / 2)"},
	{name: "estimator", kind: pkBool, schemes: sfcSwitch, role: int(device.RoleSwitch), doc: "incast estimator on (default false)"},
	{name: "estimator_window", kind: pkDuration, lo: 8, hi: device.Second, schemes: sfcSwitch, role: int(device.RoleSwitch), doc: "incast estimator window τ (default base_rtt)"},
	{name: "remote_speed", kind: pkRate, schemes: sfcSwitch, role: int(device.RoleSwitch), doc: "receiver port speed R_remote the incast estimator drains at (default the speed of the server-facing ports, the lowest when they differ)"},
	{name: "estimator_rate", kind: pkRate, schemes: sfcSwitch, role: int(device.RoleSwitch), doc: "former name of remote_speed (deprecated)"},
	{name: "bts_latency", kind: pkDuration, lo: 0, hi: device.Second, schemes: sfcSwitch, role: int(device.RoleSwitch), doc: "BTS pipeline latency: a signal decided at t is built and leaves at t + bts_latency, from the depth then (default 0)"},
	{name: "bts_dscp", kind: pkInt, lo: 0, hi: 63, schemes: sfcSwitch, role: int(device.RoleSwitch), doc: "DSCP of generated signals (default 48)"},
	{name: "reporter", kind: pkInt, lo: 0, hi: 0xFFFFFFFF, schemes: sfcSwitch, role: int(device.RoleSwitch), doc: "reporter id written into signals (default 0)"},
	// CIM signalling, behaviour.md §5.
	{name: "cim_tlv", kind: pkBool, schemes: []string{SchemeCIM}, role: int(device.RoleSwitch), doc: "send the SFC pause TLV in CIMs (default true; false sends plain 802.1Qcz CIMs)"},
	{name: "cim_l2", kind: pkBool, schemes: []string{SchemeCIM}, role: int(device.RoleSwitch), doc: "send L2 CIMs (EtherType 0x89A2) instead of L3 (default false)"},
	// PFC, behaviour.md §4.
	{name: "xoff", kind: pkBytes, lo: 0, hi: 1 << 40, schemes: []string{SchemePFC}, role: int(device.RoleSwitch), doc: "static XOFF threshold per (ingress port, priority) (default 1 × BDP)"},
	{name: "xon", kind: pkBytes, lo: 0, hi: 1 << 40, schemes: []string{SchemePFC}, role: int(device.RoleSwitch), doc: "XON threshold (default xoff − 2 × mtu)"},
	{name: "mtu", kind: pkBytes, lo: 64, hi: 65535, schemes: []string{SchemePFC, SchemePBFS}, role: int(device.RoleSwitch), doc: "MTU: of the PFC XON default (default 1500B) and the full-size frame of PB-FS T_Δ = Δ × mtu / sender_rate (default 1078B)"},
	{name: "quanta", kind: pkInt, lo: 1, hi: 0xFFFF, schemes: []string{SchemePFC}, role: int(device.RoleSwitch), doc: "pause time of an XOFF frame in quanta (default 65535)"},
	{name: "refresh", kind: pkDuration, lo: 1, hi: device.Second, schemes: []string{SchemePFC}, role: int(device.RoleSwitch), doc: "XOFF refresh period (default half the pause duration)"},
	{name: "headroom", kind: pkBytes, lo: 0, hi: 1 << 40, schemes: []string{SchemePFC}, role: int(device.RoleSwitch), doc: "octets accepted after XOFF before dropping (default 3 × BDP)"},
	{name: "dynamic", kind: pkBool, schemes: []string{SchemePFC}, role: int(device.RoleSwitch), doc: "dynamic XOFF = alpha_pfc × free buffer (default false; needs device.buffer)"},
	{name: "alpha_pfc", kind: pkFloat, flo: 1.0 / 1024, fhi: 64, schemes: []string{SchemePFC}, role: int(device.RoleSwitch), doc: "α of the dynamic XOFF (default 1/8)"},
	{name: "priorities", kind: pkInts, lo: 0, hi: 7, schemes: []string{SchemePFC}, role: int(device.RoleSwitch), doc: "lossless priorities (default all but the control class)"},
	// BFC, behaviour.md §6.
	{name: "n_q", kind: pkInt, lo: 1, hi: 4087, schemes: []string{SchemeBFC}, role: int(device.RoleSwitch), doc: "physical queues per egress port N_q (default 32)"},
	{name: "hrtt", kind: pkDuration, lo: 10, hi: device.Second, schemes: []string{SchemeBFC}, role: int(device.RoleSwitch), doc: "hop RTT HRTT (default 2us)"},
	{name: "tau", kind: pkDuration, lo: 1, hi: device.Second, schemes: []string{SchemeBFC, SchemeFloodgate}, role: int(device.RoleSwitch), doc: "BFC pause-frame period (default hrtt / 2) or Floodgate credit period (default 10us)"},
	{name: "filter_len", kind: pkBytes, lo: 1, hi: 1024, schemes: []string{SchemeBFC}, role: int(device.RoleSwitch), doc: "BFC filter length L (default 128B, a multiple of k)"},
	{name: "k", kind: pkInt, lo: 1, hi: 8, schemes: []string{SchemeBFC}, role: int(device.RoleSwitch), doc: "BFC filter stages (hashes) k (default 4)"},
	{name: "always_send", kind: pkBool, schemes: []string{SchemeBFC}, role: int(device.RoleSwitch), doc: "BFC pause frames every tau for ever, not only while active (default false)"},
	// Floodgate, behaviour.md §7.
	{name: "m", kind: pkFloat, flo: 1e-6, fhi: 64, schemes: []string{SchemeFloodgate}, role: int(device.RoleSwitch), doc: "window multiplier m of the next-hop BDP: W = m × BDP_nextHop + C_out × tau (default 1)"},
	{name: "next_hop_rtt", kind: pkDuration, lo: 1, hi: device.Second, schemes: []string{SchemeFloodgate}, role: int(device.RoleSwitch), doc: "RTT of the next-hop BDP (default 1.2us)"},
	{name: "bdp", kind: pkBytes, lo: 0, hi: 1 << 40, schemes: []string{SchemeFloodgate}, role: int(device.RoleSwitch), doc: "next-hop BDP for every port (default port speed × next_hop_rtt)"},
	{name: "dst_pause", kind: pkBytes, lo: 1, hi: 1 << 40, schemes: []string{SchemeFloodgate}, role: int(device.RoleSwitch), doc: "VOQ threshold of dst-pause (default 1.5 × the largest link BDP)"},
	{name: "delay_credit", kind: pkBytes, lo: 1, hi: 1 << 40, schemes: []string{SchemeFloodgate}, role: int(device.RoleSwitch), doc: "delay-credit threshold (default 1.5 × the largest link BDP)"},
	{name: "max_frame", kind: pkBytes, lo: 64, hi: 9216, schemes: []string{SchemeFloodgate}, role: int(device.RoleSwitch), doc: "largest credit frame (default 1500B)"},
	// PB-FS, behaviour.md §8.
	{name: "n", kind: pkInt, lo: 1, hi: 64, schemes: []string{SchemePBFS}, role: int(device.RoleSwitch), doc: "slots N of the PB-FS history (default 8)"},
	{name: "sender_rate", kind: pkRate, schemes: []string{SchemePBFS}, role: int(device.RoleSwitch), doc: "senders' line rate R_s of PB-FS T_Δ = Δ × mtu / sender_rate (default the speed of the server-facing ports, the lowest when they differ)"},
	{name: "dc_rtt", kind: pkDuration, lo: 1, hi: device.Second, schemes: []string{SchemePBFS}, role: anyRole, doc: "DC_RTT (default 25us)"},
	{name: "delta", kind: pkInt, lo: 1, hi: 1024, schemes: []string{SchemePBFS}, role: anyRole, doc: "Δ, the marking interval (default 6)"},
	{name: "mark_mask", kind: pkInt, lo: 1, hi: 255, schemes: []string{SchemePBFS}, role: anyRole, doc: "TOS / traffic-class bits of a PBT mark (default 0x04)"},
	{name: "mu", kind: pkFloat, flo: 1e-6, fhi: 1, schemes: []string{SchemePBFS}, role: int(device.RoleNIC), doc: "μ of the sender's reaction (default 0.95)"},
	{name: "i_min", kind: pkBytes, lo: 1, hi: 1 << 40, schemes: []string{SchemePBFS}, role: int(device.RoleNIC), doc: "I_min (default 20 % of the max BDP)"},
	{name: "ack_after", kind: pkDuration, lo: 1, hi: device.Second, schemes: []string{SchemePBFS}, role: int(device.RoleNIC), doc: "when a flow's first rate-updating ACK is taken to arrive (default dc_rtt)"},
}

func lookupParam(name string) *paramSpec {
	for i := range paramTable {
		if paramTable[i].name == name {
			return &paramTable[i]
		}
	}
	return nil
}

func paramNames() []string {
	out := make([]string, len(paramTable))
	for i, p := range paramTable {
		out[i] = p.name
	}
	return out
}

func (p *paramSpec) appliesTo(c *Case) bool {
	if p.role != anyRole && device.Role(p.role) != c.Role {
		return false
	}
	for _, s := range p.schemes {
		if c.Has(s) {
			return true
		}
	}
	return false
}

func (p *paramSpec) needs() string {
	r := "any role"
	if p.role != anyRole {
		r = "role " + device.Role(p.role).String()
	}
	return r + " with scheme " + strings.Join(p.schemes, " or ")
}

// Params lists every parameter a case.yaml may set, for documentation.
func Params() []ParamDoc {
	var out []ParamDoc
	units := map[paramKind]string{pkBytes: "octets (B, KB, KiB, ...)", pkDuration: "time (ns, us, ms, s)", pkRate: "bit/s (G, Gbps, Mbps)",
		pkInt: "integer", pkBool: "true/false", pkFloat: "number", pkInts: "list of integers"}
	for _, p := range paramTable {
		r := "any"
		if p.role != anyRole {
			r = device.Role(p.role).String()
		}
		out = append(out, ParamDoc{Name: p.name, Unit: units[p.kind], Schemes: strings.Join(p.schemes, ", "), Role: r, Doc: p.doc})
	}
	return out
}
