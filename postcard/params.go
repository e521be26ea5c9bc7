// SPDX-License-Identifier: Apache-2.0

package postcard

import (
	"errors"
	"fmt"
	"math"
	"net/netip"

	"github.com/opensfc/sfc/device"
)

// Defaults of behaviour.md §8, and of this model where §8 gives none.
const (
	DefaultSlots = 8                       // N
	DefaultDCRTT = 25 * device.Microsecond // DC_RTT
	DefaultDelta = 6                       // Δ
	// DefaultMTU is the MTU of T_Δ = Δ × MTU / R_s in octets: the
	// full-size frame of a 1,024-octet RoCEv2 payload (behaviour.md §8).
	DefaultMTU = 1078
	// DefaultMarkMask is the PBT mark: the lowest DSCP bit of the IPv4 TOS
	// or IPv6 traffic class (wire.md §6).
	DefaultMarkMask = 0x04
	// DefaultDSCP is the DSCP of CC-postcards (the high-priority class, as
	// BTS).
	DefaultDSCP = 48
	// DefaultMu is μ of the sender's reaction.
	DefaultMu = 0.95
	// MinRate is the lowest rate a postcard can set, 1 Mb/s.
	MinRate = 1_000_000
)

// Sentinel errors.
var (
	// ErrNotPostcard: the frame is not a CC-postcard (IP/UDP to the
	// postcard port).
	ErrNotPostcard = errors.New("not a CC-postcard")
	// ErrTrigger: the marked frame is not an IP packet a postcard can quote.
	ErrTrigger = errors.New("marked frame cannot be quoted")
)

// SwitchParams configures a PB-FS switch (behaviour.md §8). Zero values
// take the defaults.
type SwitchParams struct {
	// Slots is N: default 8, 1..64.
	Slots int
	// DCRTT is DC_RTT in ns: default 25 µs, 2N ns..1 s; a slot lasts
	// DC_RTT / (2N) (1,562.5 ns by default).
	DCRTT int64
	// Delta is Δ: default 6, 1..1024.
	Delta int
	// MTU is `mtu`, the full-size frame of T_Δ = Δ × MTU / R_s in
	// captured octets: default 1078, 64..9216.
	MTU int64
	// SenderRate is `sender_rate`, R_s: the line rate in bit/s of the
	// senders whose Δ full-size packets T_Δ spans. Default: the speed of
	// this switch's server-facing ports (the lowest when they differ; each
	// output port's own speed when the switch has none).
	SenderRate int64
	// MarkMask is the TOS / traffic-class bits of a PBT mark: default 0x04.
	MarkMask uint8
	// SwitchID is the switch id of the postcards: default the MAC of the
	// device's first port.
	SwitchID device.MAC
	// Addr4 and Addr6 are the IP sources of postcards to IPv4 and IPv6
	// senders: default 169.254.S4.S5 and fe80::S0S1:S2ff:feS3:S4S5 from the
	// switch id S (S0 with the universal/local bit flipped).
	Addr4, Addr6 netip.Addr
	// DSCP of postcards: default 48 (DSCPZero selects 0). Port is the UDP
	// destination port: default the device's postcard code point (1022).
	DSCP     uint8
	DSCPZero bool   // use DSCP 0
	Port     uint16 // UDP destination port of postcards
}

func (p *SwitchParams) resolve(d *device.Device) error {
	if p.Slots == 0 {
		p.Slots = DefaultSlots
	}
	if p.DCRTT == 0 {
		p.DCRTT = DefaultDCRTT
	}
	if p.Delta == 0 {
		p.Delta = DefaultDelta
	}
	if p.MTU == 0 {
		p.MTU = DefaultMTU
	}
	if p.MarkMask == 0 {
		p.MarkMask = DefaultMarkMask
	}
	if p.DSCP == 0 && !p.DSCPZero {
		p.DSCP = DefaultDSCP
	}
	if p.Port == 0 {
		p.Port = d.Codepoints().PostcardPort
	}
	for _, e := range []error{
		device.CheckRange("pbfs", "n", int64(p.Slots), 1, 64, " slots"),
		device.CheckRange("pbfs", "dc_rtt", p.DCRTT, 2*int64(p.Slots), device.Second, " ns (at least 2N)"),
		device.CheckRange("pbfs", "delta", int64(p.Delta), 1, 1024, ""),
		device.CheckRange("pbfs", "mtu", p.MTU, 64, 9216, " octets"),
		device.CheckRange("pbfs", "sender_rate", p.SenderRate, 0, 25_600_000_000_000, " bit/s"),
		device.CheckRange("pbfs", "dscp", int64(p.DSCP), 0, 63, ""),
	} {
		if e != nil {
			return e
		}
	}
	if p.DCRTT > math.MaxUint32 {
		return device.CheckRange("pbfs", "dc_rtt", p.DCRTT, 2*int64(p.Slots), math.MaxUint32, " ns (a postcard carries 32 bits)")
	}
	if p.SenderRate != 0 && p.SenderRate < MinRate {
		return device.CheckRange("pbfs", "sender_rate", p.SenderRate, MinRate, 25_600_000_000_000, " bit/s")
	}
	if p.SwitchID == (device.MAC{}) {
		p.SwitchID = d.Ports()[0].MAC
	}
	s := p.SwitchID
	if !p.Addr4.IsValid() {
		p.Addr4 = netip.AddrFrom4([4]byte{169, 254, s[4], s[5]})
	}
	if !p.Addr6.IsValid() {
		p.Addr6 = netip.AddrFrom16([16]byte{0xfe, 0x80, 0, 0, 0, 0, 0, 0, s[0] ^ 2, s[1], s[2], 0xff, 0xfe, s[3], s[4], s[5]})
	}
	if !p.Addr4.Is4() {
		return &device.ParamError{Scope: "pbfs", Name: "addr4", Value: p.Addr4.String(), Allowed: "an IPv4 address"}
	}
	if !p.Addr6.Is6() || p.Addr6.Is4In6() {
		return &device.ParamError{Scope: "pbfs", Name: "addr6", Value: p.Addr6.String(), Allowed: "an IPv6 address"}
	}
	return nil
}

// SenderParams configures a PB-FS sender (behaviour.md §8). Zero values
// take the defaults.
type SenderParams struct {
	// Delta is Δ: default 6, 1..1024.
	Delta int
	// DCRTT is DC_RTT in ns: default 25 µs, 1 ns..1 s.
	DCRTT int64
	// Tau is τ of the flow-size rule (flows of at least MaxRate × τ octets
	// are marked): default DCRTT / 2, 0..1 s.
	Tau int64
	// MaxRate is the line rate of fast start in bit/s: default the NIC's
	// wire port speed.
	MaxRate int64
	// Mu is μ: default 0.95, 0 < μ ≤ 1 (used to a millionth).
	Mu float64
	// IMin is I_min in octets: default 20 % of the max BDP, MaxRate ×
	// DCRTT; 1..2^40.
	IMin int64
	// AckAfter is when, after a flow's first frame, its first
	// rate-updating ACK arrives (the model has no transport): default
	// DCRTT; NoAck makes postcards count for the whole flow.
	AckAfter int64
	NoAck    bool // no ACK: postcards count for the whole flow
	// MarkMask is the TOS / traffic-class bits of a PBT mark: default 0x04.
	MarkMask uint8
}

func (p *SenderParams) resolve(d *device.Device) error {
	if p.Delta == 0 {
		p.Delta = DefaultDelta
	}
	if p.DCRTT == 0 {
		p.DCRTT = DefaultDCRTT
	}
	if err := device.CheckRange("pbfs", "dc_rtt", p.DCRTT, 1, device.Second, " ns"); err != nil {
		return err
	}
	if p.Tau == 0 {
		p.Tau = p.DCRTT / 2
	}
	if p.MaxRate == 0 {
		p.MaxRate = d.Ports()[0].Speed
	}
	if p.Mu == 0 {
		p.Mu = DefaultMu
	}
	if !(p.Mu > 0 && p.Mu <= 1) {
		return &device.ParamError{Scope: "pbfs", Name: "mu", Value: fmt.Sprint(p.Mu), Allowed: "0 < mu <= 1"}
	}
	if err := device.CheckRange("pbfs", "max_rate", p.MaxRate, MinRate, 3_200_000_000_000, " bit/s"); err != nil {
		return err
	}
	if p.IMin == 0 {
		p.IMin = max(device.MulDiv(p.MaxRate, p.DCRTT, 8*device.Second)/5, 1)
	}
	if p.AckAfter == 0 {
		p.AckAfter = p.DCRTT
	}
	if p.MarkMask == 0 {
		p.MarkMask = DefaultMarkMask
	}
	for _, e := range []error{
		device.CheckRange("pbfs", "delta", int64(p.Delta), 1, 1024, ""),
		device.CheckRange("pbfs", "tau", p.Tau, 0, device.Second, " ns"),
		device.CheckRange("pbfs", "i_min", p.IMin, 1, 1<<40, " octets"),
		device.CheckRange("pbfs", "ack_after", p.AckAfter, 1, device.Second, " ns"),
	} {
		if e != nil {
			return e
		}
	}
	return nil
}
