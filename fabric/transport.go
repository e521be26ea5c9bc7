// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"encoding/binary"
	"fmt"
	"math"
	"net/netip"

	"github.com/opensfc/sfc/device"
)

// CC names a congestion control.
type CC string

// The congestion controls.
const (
	CCNone  CC = "none"  // line rate, no reaction
	CCDCQCN CC = "dcqcn" // DCQCN, Mellanox CX4 flavour of HPCC's simulator
	CCHPCC  CC = "hpcc"  // HPCC with INT
	// CCDCTCP: DCTCP as a rate-based RoCE CC, as the HPCC simulator models
	// it (CC_MODE 8): α per RTT from the ECN-echo fraction, one decrease
	// of rate × (1 − α/2) per RTT, additive increase per RTT otherwise.
	CCDCTCP CC = "dctcp"
	// CCTIMELY: TIMELY (Mittal et al., SIGCOMM 2015) on RTT gradients, as
	// the HPCC simulator models it (CC_MODE 7).
	CCTIMELY CC = "timely"
)

// Recovery names a loss recovery.
type Recovery string

// The loss recoveries.
const (
	// GBN: go-back-N; the receiver drops out-of-order packets and NAKs the
	// expected PSN; the sender resends from there.
	GBN Recovery = "gbn"
	// IRN: selective retransmission (Mittal et al., SIGCOMM 2018): the
	// receiver keeps out-of-order packets and NAKs each with the expected
	// PSN and its own PSN; the sender resends only the holes, and keeps at
	// most one BDP in flight.
	IRN Recovery = "irn"
)

// DCQCN holds DCQCN's parameters. Defaults: HPCC simulator run.py preset
// "dcqcn" (t_alpha 1 µs, t_dec 4 µs, t_inc 300 µs, g = 1/256, one fast
// recovery step, AI = 5 Mb/s and HAI = 50 Mb/s per 25 Gb/s of line rate,
// minimum rate 100 Mb/s).
type DCQCN struct {
	G             float64 `yaml:"g" json:"g"`
	AlphaInterval int64   `yaml:"alpha_interval" json:"alpha_interval"`
	DecInterval   int64   `yaml:"dec_interval" json:"dec_interval"`
	IncTimer      int64   `yaml:"inc_timer" json:"inc_timer"`
	FastRecovery  int     `yaml:"fast_recovery" json:"fast_recovery"`
	AI            int64   `yaml:"ai" json:"ai"`   // bit/s
	HAI           int64   `yaml:"hai" json:"hai"` // bit/s
	MinRate       int64   `yaml:"min_rate" json:"min_rate"`
	// CNPInterval: the receiver sends at most one CNP per QP per interval
	// (default the α interval, 1 µs, which gives the sender the same
	// per-interval information as the HPCC simulator's per-ACK CNP flag).
	CNPInterval int64 `yaml:"cnp_interval" json:"cnp_interval"`
}

// HPCC holds HPCC's parameters. Defaults: η = 0.95, maxStage = 5 (HPCC
// paper §5, SFC and BFC papers), W_AI as rate 10 Mb/s per 25 Gb/s of line
// rate (HPCC run.py preset "hp"); T = the fabric's largest base RTT.
type HPCC struct {
	Eta      float64 `yaml:"eta" json:"eta"`
	MaxStage int     `yaml:"max_stage" json:"max_stage"`
	AI       int64   `yaml:"ai" json:"ai"` // bit/s
}

// DCTCP holds DCTCP's parameters. Defaults: HPCC run.py preset "dctcp":
// g = 1/16, additive increase 615 Mb/s per RTT ("RTT=13us and MTU=1KB");
// the switches' ECN step K = 30 KB per 10 Gb/s is the scenario's ECN.
type DCTCP struct {
	G  float64 `yaml:"g" json:"g"`
	AI int64   `yaml:"ai" json:"ai"`
}

// TIMELY holds TIMELY's parameters. Defaults: the TIMELY paper (and the
// HPCC simulator's defaults): EWMA α = 0.875, β = 0.8, T_low 50 µs,
// T_high 500 µs, minRTT 20 µs, δ = 10 Mb/s per 10 Gb/s of line rate,
// hyper increase 5δ after 5 increases.
type TIMELY struct {
	Alpha  float64 `yaml:"alpha" json:"alpha"`
	Beta   float64 `yaml:"beta" json:"beta"`
	TLow   int64   `yaml:"t_low" json:"t_low"`
	THigh  int64   `yaml:"t_high" json:"t_high"`
	MinRTT int64   `yaml:"min_rtt" json:"min_rtt"`
	AI     int64   `yaml:"ai" json:"ai"`
	HAI    int64   `yaml:"hai" json:"hai"`
}

// TransportConfig configures every host's transport.
type TransportConfig struct {
	CC       CC       `yaml:"cc" json:"cc"`
	Recovery Recovery `yaml:"recovery" json:"recovery"`
	// Window caps the octets in flight at one BDP (line rate × base RTT);
	// DCQCN+W. HPCC always has its variable window (BDP × rate / line
	// rate), IRN a fixed BDP.
	Window bool `yaml:"window" json:"window"`
	// MTU is the payload per packet (HPCC's PACKET_PAYLOAD_SIZE 1000).
	MTU int `yaml:"mtu" json:"mtu"`
	// BaseRTT for windows and HPCC's T; default the fabric's maximum.
	BaseRTT int64 `yaml:"base_rtt" json:"base_rtt"`
	// RTOLow, RTOHigh, RTON: IRN's timeouts (RTO_low when at most N
	// packets are in flight). PB-FS §V-A: 100 µs, 3 ms, N = 3. GBN uses
	// RTOHigh.
	RTOLow  int64 `yaml:"rto_low" json:"rto_low"`
	RTOHigh int64 `yaml:"rto_high" json:"rto_high"`
	RTON    int   `yaml:"rto_n" json:"rto_n"`
	// NAKInterval: a GBN receiver repeats a NAK for the same PSN only after
	// this long (default 100 µs).
	NAKInterval int64  `yaml:"nak_interval" json:"nak_interval"`
	DCQCN       DCQCN  `yaml:"dcqcn" json:"dcqcn"`
	HPCC        HPCC   `yaml:"hpcc" json:"hpcc"`
	DCTCP       DCTCP  `yaml:"dctcp" json:"dctcp"`
	TIMELY      TIMELY `yaml:"timely" json:"timely"`
	// OnRamp adds OnRamp's flow control (Liu et al., SIGCOMM 2021), the SFC
	// paper's baseline, on top of the CC: each ACK echoes the data packet's
	// one-way delay (OWD); when it exceeds the path's base OWD plus
	// OnRampThreshold, the sender pauses the flow until now + the excess
	// (the time the queue above the threshold takes to drain). Our sources
	// give no threshold: the default is one base RTT of queueing (10 µs on
	// S-main), a choice written in docs/decisions.md.
	OnRamp          bool  `yaml:"onramp" json:"onramp,omitempty"`
	OnRampThreshold int64 `yaml:"onramp_threshold" json:"onramp_threshold,omitempty"`
}

func (c *TransportConfig) defaults(lineRate, baseRTT int64) error {
	if c.CC == "" {
		c.CC = CCNone
	}
	if c.Recovery == "" {
		c.Recovery = GBN
	}
	switch c.CC {
	case CCNone, CCDCQCN, CCHPCC, CCDCTCP, CCTIMELY:
	default:
		return &device.ParamError{Scope: "transport", Name: "cc", Value: string(c.CC), Allowed: "none, dcqcn, hpcc, dctcp, timely"}
	}
	if c.Recovery != GBN && c.Recovery != IRN {
		return &device.ParamError{Scope: "transport", Name: "recovery", Value: string(c.Recovery), Allowed: "gbn, irn"}
	}
	if c.MTU == 0 {
		c.MTU = 1000
	}
	if err := device.CheckRange("transport", "mtu", int64(c.MTU), 64, 9000, " octets"); err != nil {
		return err
	}
	if c.BaseRTT == 0 {
		c.BaseRTT = baseRTT
	}
	if c.RTOLow == 0 {
		c.RTOLow = 100 * device.Microsecond
	}
	if c.RTOHigh == 0 {
		c.RTOHigh = 3 * device.Millisecond
	}
	if c.RTON == 0 {
		c.RTON = 3
	}
	if c.OnRampThreshold == 0 {
		c.OnRampThreshold = c.BaseRTT
	}
	if c.NAKInterval == 0 {
		c.NAKInterval = 100 * device.Microsecond
	}
	per25 := float64(lineRate) / float64(25*device.Gbps)
	d := &c.DCQCN
	if d.G == 0 {
		d.G = 1.0 / 256
	}
	if d.AlphaInterval == 0 {
		d.AlphaInterval = device.Microsecond
	}
	if d.DecInterval == 0 {
		d.DecInterval = 4 * device.Microsecond
	}
	if d.IncTimer == 0 {
		d.IncTimer = 300 * device.Microsecond
	}
	if d.FastRecovery == 0 {
		d.FastRecovery = 1
	}
	if d.AI == 0 {
		d.AI = int64(5e6 * per25)
	}
	if d.HAI == 0 {
		d.HAI = int64(50e6 * per25)
	}
	if d.MinRate == 0 {
		d.MinRate = 100e6
	}
	if d.CNPInterval == 0 {
		d.CNPInterval = d.AlphaInterval
	}
	h := &c.HPCC
	if h.Eta == 0 {
		h.Eta = 0.95
	}
	if h.MaxStage == 0 {
		h.MaxStage = 5
	}
	if h.AI == 0 {
		h.AI = int64(10e6 * per25)
	}
	if c.DCTCP.G == 0 {
		c.DCTCP.G = 1.0 / 16
	}
	if c.DCTCP.AI == 0 {
		c.DCTCP.AI = 615e6
	}
	tm := &c.TIMELY
	per10 := float64(lineRate) / float64(10*device.Gbps)
	if tm.Alpha == 0 {
		tm.Alpha = 0.875
	}
	if tm.Beta == 0 {
		tm.Beta = 0.8
	}
	if tm.TLow == 0 {
		tm.TLow = 50 * device.Microsecond
	}
	if tm.THigh == 0 {
		tm.THigh = 500 * device.Microsecond
	}
	if tm.MinRTT == 0 {
		tm.MinRTT = 20 * device.Microsecond
	}
	if tm.AI == 0 {
		tm.AI = int64(10e6 * per10)
	}
	if tm.HAI == 0 {
		tm.HAI = 5 * tm.AI
	}
	return c.check(lineRate)
}

// check range-checks the transport's parameters once defaulted: a
// timeout below the base RTT's scale, a gain above 1 or a threshold
// pair out of order makes a run wrong or endless (rto_high 1 ns made
// 1.5·10^9 timeouts for 208 flows) rather than failing.
func (c *TransportConfig) check(lineRate int64) error {
	ints := []struct {
		name      string
		v, lo, hi int64
		unit      string
	}{
		{"base_rtt", c.BaseRTT, 100, MaxTime, " ns"},
		{"rto_low", c.RTOLow, device.Microsecond, MaxTime, " ns"},
		{"rto_high", c.RTOHigh, c.RTOLow, MaxTime, " ns"},
		{"rto_n", int64(c.RTON), 1, 1 << 20, " packets"},
		{"nak_interval", c.NAKInterval, 1, MaxTime, " ns"},
		{"onramp_threshold", c.OnRampThreshold, 1, MaxTime, " ns"},
		{"dcqcn.alpha_interval", c.DCQCN.AlphaInterval, 1, MaxTime, " ns"},
		{"dcqcn.dec_interval", c.DCQCN.DecInterval, 1, MaxTime, " ns"},
		{"dcqcn.inc_timer", c.DCQCN.IncTimer, 1, MaxTime, " ns"},
		{"dcqcn.cnp_interval", c.DCQCN.CNPInterval, 1, MaxTime, " ns"},
		{"dcqcn.fast_recovery", int64(c.DCQCN.FastRecovery), 1, 1000, " rounds"},
		{"dcqcn.ai", c.DCQCN.AI, 1, lineRate, " bit/s"},
		{"dcqcn.hai", c.DCQCN.HAI, 1, lineRate, " bit/s"},
		{"dcqcn.min_rate", c.DCQCN.MinRate, 1_000, lineRate, " bit/s"},
		{"hpcc.max_stage", int64(c.HPCC.MaxStage), 1, 1000, ""},
		{"hpcc.ai", c.HPCC.AI, 1, lineRate, " bit/s"},
		{"dctcp.ai", c.DCTCP.AI, 1, lineRate, " bit/s"},
		{"timely.t_low", c.TIMELY.TLow, 1, MaxTime, " ns"},
		{"timely.t_high", c.TIMELY.THigh, c.TIMELY.TLow + 1, MaxTime, " ns"},
		{"timely.min_rtt", c.TIMELY.MinRTT, 1, MaxTime, " ns"},
		{"timely.ai", c.TIMELY.AI, 1, lineRate, " bit/s"},
		{"timely.hai", c.TIMELY.HAI, 1, lineRate, " bit/s"},
	}
	for _, x := range ints {
		if err := device.CheckRange("transport", x.name, x.v, x.lo, x.hi, x.unit); err != nil {
			return err
		}
	}
	for _, x := range []struct {
		name string
		v    float64
	}{{"dcqcn.g", c.DCQCN.G}, {"hpcc.eta", c.HPCC.Eta}, {"dctcp.g", c.DCTCP.G}, {"timely.alpha", c.TIMELY.Alpha}, {"timely.beta", c.TIMELY.Beta}} {
		if !(x.v > 0 && x.v <= 1) { // NaN fails too
			return &device.ParamError{Scope: "transport", Name: x.name, Value: fmt.Sprint(x.v), Allowed: "a fraction in (0, 1]"}
		}
	}
	return nil
}

// Flow is one message of a workload: Size octets of payload from host Src
// to host Dst, offered at Start (ns).
type Flow struct {
	ID    int64  `json:"id"`
	Src   int    `json:"src"`
	Dst   int    `json:"dst"`
	Size  int64  `json:"size"`
	Start int64  `json:"start"`
	Tag   string `json:"tag,omitempty"` // "incast", "bg", ...
}

// FlowResult is a completed flow.
type FlowResult struct {
	Flow
	End      int64   // ns, the last ACK reached the sender
	FCT      int64   // End − Start
	Ideal    int64   // the FCT of the flow alone at line rate
	Slowdown float64 // max(1, FCT/Ideal)
	Retx     int64   // packets sent more than once
}

// Transport is a RoCEv2 reliable-connection transport on one NIC: the
// sender and receiver side of every flow that starts or ends at its host.
type Transport struct {
	device.NopScheme
	cfg  *TransportConfig
	net  *Net
	host *Host
	nic  *device.Device
	line float64 // bit/s
	bdp  int64
	// Done is called for each flow when its last ACK arrives.
	Done func(r FlowResult)
	snd  map[uint32]*sender
	rcv  map[rkey]*receiver
	buf  []byte

	// Counters.
	DataSent, Retx, ACKs, NAKs, CNPs, Timeouts int64
	OnRampPauses                               int64
	// DataRx counts the octets of the data frames this host received
	// (whole frames, duplicates included; not ACKs, CNPs or signals).
	DataRx int64
	pb     *pbGate
}

type rkey struct {
	src netip.Addr
	qp  uint32
}

// receiver is the responder side of a flow's queue pair. Like an RC QP it
// exists from before the first packet (Start creates it at the
// destination, standing in for connection setup) until the requester has
// seen its last ACK (finish tears it down). A receiver made on the first
// packet that arrives would have to guess whether a packet other than PSN
// 0 starts a flow whose first packets were lost or repeats a flow already
// done; acknowledging it as the latter acknowledged data the receiver
// never held, and a later arrival of PSN 0 then made a second receiver
// waiting for data the sender had stopped sending (the IRN livelock of
// sfc-fig7 at full scale).
type receiver struct {
	exp    int64
	ooo    map[int64]bool
	nakAt  int64
	nakExp int64
	cnpAt  int64
}

type sender struct {
	f         Flow
	qp        uint32
	key, ackK device.FlowKey
	hdr       []byte // Ethernet..BTH(+INT) template
	npkt      int64
	lastLen   int
	nxt, una  int64
	rp, high  int64 // IRN: retransmission pointer, highest SACKed PSN + 1
	sacked    map[int64]bool
	posted    bool
	nextTx    int64
	rate      float64
	rtoAt     int64
	rtoArmed  bool
	retx      int64
	sent      map[int64]bool // nil unless a retransmission happened
	maxSent   int64
	dc        dcqcnState
	hp        hpccState
	dt        dctcpState
	tm        timelyState
	done      bool
	fullFrame int
	baseOWD   int64
	pbAcked   bool // PB-FS phase over (first ACK seen)
}

// Timer ids of the transport.
const (
	timerRTO = iota + 10
	timerDec
)

func newTransport(n *Net, h *Host, cfg *TransportConfig) *Transport {
	t := &Transport{cfg: cfg, net: n, host: h, nic: h.NIC, snd: map[uint32]*sender{}, rcv: map[rkey]*receiver{}}
	t.line = float64(h.NIC.Ports()[0].Speed)
	t.bdp = int64(t.line * float64(cfg.BaseRTT) / 8e9)
	return t
}

// AttachTransports gives every host a Transport with cfg (defaults filled
// in) and returns the resolved configuration.
func (n *Net) AttachTransports(cfg TransportConfig, done func(FlowResult)) (*TransportConfig, error) {
	c := cfg
	if err := c.defaults(n.Topo.Host.Speed, n.MaxBaseRTT()); err != nil {
		return nil, err
	}
	for _, h := range n.Hosts {
		t := newTransport(n, h, &c)
		t.Done = done
		t.pb = h.pb
		if err := h.NIC.Attach(t); err != nil {
			return nil, err
		}
		h.Transport = t
	}
	return &c, nil
}

// Attach checks the device is a NIC.
func (t *Transport) Attach(d *device.Device) error {
	if d.Role() != device.RoleNIC {
		return &device.ParamError{Scope: "transport", Name: "device", Value: d.Role().String(), Allowed: "a NIC"}
	}
	return nil
}

// InFlight returns the number of flows this host is sending.
func (t *Transport) InFlight() int { return len(t.snd) }

func (t *Transport) intOn() bool { return t.cfg.CC == CCHPCC }

// frameLen is the captured length of a data frame with n payload octets.
func (t *Transport) frameLen(n int) int {
	l := hdrLen + bthLen + n + icrcLen
	if t.intOn() {
		l += intLen
	}
	if t.tsOn() {
		l += tsLen
	}
	return l
}

func (t *Transport) tsOn() bool { return t.cfg.CC == CCTIMELY || t.cfg.OnRamp }

// wireNs is the time a frame of n captured octets occupies a link of bps.
func wireNs(n int, bps float64) float64 { return float64((max(n, 60)+24)*8) * 1e9 / bps }

// Ideal returns the FCT of a flow alone on the fabric at line rate: its
// packets back to back, the last one's first bit reaching the receiver
// after the path's propagation delay, and its ACK coming back.
func (t *Transport) Ideal(f Flow) int64 {
	d, _ := t.net.PathDelay(f.Src, f.Dst)
	npkt := (f.Size + int64(t.cfg.MTU) - 1) / int64(t.cfg.MTU)
	return 2*d + int64(math.Ceil(float64(npkt-1)*wireNs(t.frameLen(t.cfg.MTU), t.line)))
}

// Start begins flow f now (its source must be this host).
func (t *Transport) Start(f Flow) error {
	if f.Src != t.host.ID || f.Dst == f.Src || f.Dst < 0 || f.Dst >= len(t.net.Hosts) {
		return fmt.Errorf("transport: flow %d from host %d to %d started on host %d", f.ID, f.Src, f.Dst, t.host.ID)
	}
	if f.Size <= 0 {
		return fmt.Errorf("transport: flow %d has size %d", f.ID, f.Size)
	}
	qp := uint32(f.ID) & 0xffffff
	if t.snd[qp] != nil {
		return fmt.Errorf("transport: flow %d: QP %#x already in use on host %d", f.ID, qp, t.host.ID)
	}
	dst := t.net.Hosts[f.Dst]
	mtu := int64(t.cfg.MTU)
	s := &sender{f: f, qp: qp, npkt: (f.Size + mtu - 1) / mtu, rate: t.line}
	s.lastLen = int(f.Size - (s.npkt-1)*mtu)
	s.fullFrame = t.frameLen(t.cfg.MTU)
	sport := uint16(49152 + f.ID%16384)
	pt := t.nic.Ports()[0]
	hdr, err := device.BuildUDP(make([]byte, 0, s.fullFrame), device.UDPSpec{SrcMAC: pt.MAC, DstMAC: pt.PeerMAC,
		Src: t.host.Addr, Dst: dst.Addr, DSCP: dscpData, ECN: ectECN, SrcPort: sport, DstPort: device.RoCEv2Port,
		Len: hdrLen + bthLen})
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint16(hdr[40:], 0) // RoCEv2: UDP checksum 0
	flags := byte(0)
	if t.intOn() {
		flags = intFlag
		hdr = append(hdr, make([]byte, intLen)...)
	}
	if t.tsOn() {
		flags |= tsFlag
		hdr = append(hdr, make([]byte, tsLen)...)
	}
	putBTH(hdr[hdrLen:], opSendOnly, flags, qp, false, 0)
	s.hdr = hdr
	s.key = device.FlowKey{Src: t.host.Addr, Dst: dst.Addr, Proto: 17, SrcPort: sport, DstPort: device.RoCEv2Port, QP: qp, HasQP: true}
	s.ackK = device.FlowKey{Src: dst.Addr, Dst: t.host.Addr, Proto: 17, SrcPort: sport, DstPort: device.RoCEv2Port, QP: qp, HasQP: true}
	s.dc.init(t)
	s.hp.init(t)
	s.dt.alpha = 1
	s.baseOWD, _ = t.net.PathDelay(f.Src, f.Dst)
	s.tm.cur = t.line
	t.snd[qp] = s
	dst.Transport.rcv[rkey{t.host.Addr, qp}] = &receiver{nakAt: math.MinInt64 / 2, cnpAt: math.MinInt64 / 2, nakExp: -1}
	if t.pb != nil {
		t.pb.start(s.key, f.Size)
	}
	t.trySend(s)
	return nil
}

// window returns the octets s may have in flight (0: no limit).
func (t *Transport) window(s *sender) int64 {
	switch {
	case t.cfg.CC == CCHPCC:
		return max(int64(float64(t.bdp)*s.rate/t.line), int64(t.cfg.MTU))
	case t.cfg.Window || t.cfg.Recovery == IRN || t.cfg.CC == CCDCTCP:
		return t.bdp
	}
	return 0
}

func (t *Transport) trySend(s *sender) {
	if s.posted || s.done {
		return
	}
	psn := int64(-1)
	if s.rp < s.high {
		for s.rp < s.high && (s.rp < s.una || s.sacked[s.rp]) {
			s.rp++
		}
		if s.rp < s.high {
			psn = s.rp
			s.rp++
		}
	}
	if psn < 0 && s.nxt < s.npkt {
		if w := t.window(s); w == 0 || (s.nxt-s.una)*int64(t.cfg.MTU) < w {
			psn = s.nxt
			s.nxt++
		}
	}
	if psn < 0 {
		return
	}
	t.post(s, psn)
}

func (t *Transport) post(s *sender, psn int64) {
	n := t.cfg.MTU
	if psn == s.npkt-1 {
		n = s.lastLen
	}
	fl := t.frameLen(n)
	if cap(t.buf) < fl {
		t.buf = make([]byte, fl)
	}
	b := t.buf[:fl]
	copy(b, s.hdr)
	op := byte(opSendMiddle)
	switch {
	case s.npkt == 1:
		op = opSendOnly
	case psn == 0:
		op = opSendFirst
	case psn == s.npkt-1:
		op = opSendLast
	}
	bth := b[hdrLen:]
	bth[0] = op
	bth[8] = 0
	if psn == s.npkt-1 {
		bth[8] = 0x80
	}
	bth[9], bth[10], bth[11] = byte(psn>>16), byte(psn>>8), byte(psn)
	writeIPv4Len(b)
	if psn < s.maxSent || s.sent != nil && s.sent[psn] {
		s.retx++
		t.Retx++
	}
	s.maxSent = max(s.maxSent, psn+1)
	t.DataSent++
	s.posted = true
	if _, err := t.nic.Offer(b); err != nil {
		panic(err) // the transport only runs on NICs (Attach checks)
	}
	if !s.rtoArmed {
		t.armRTO(s)
	}
}

func (t *Transport) rto(s *sender) int64 {
	if t.cfg.Recovery == IRN && s.nxt-s.una <= int64(t.cfg.RTON) {
		return t.cfg.RTOLow
	}
	return t.cfg.RTOHigh
}

func (t *Transport) armRTO(s *sender) {
	s.rtoAt = t.nic.Now() + t.rto(s)
	s.rtoArmed = true
	t.nic.After(s.rtoAt-t.nic.Now(), t, timerRTO, int64(s.qp))
}

// FlowBlockedUntil paces a flow's posted packet at its rate.
func (t *Transport) FlowBlockedUntil(d *device.Device, f *device.Flow) int64 {
	if s := t.snd[f.Key.QP]; s != nil && s.key == f.Key {
		return s.nextTx
	}
	return 0
}

// OnDequeue: a posted data packet starts; post the next one.
func (t *Transport) OnDequeue(d *device.Device, p *device.Packet) {
	if p.Flow == nil || p.Generated {
		return
	}
	s := t.snd[p.Flow.Key.QP]
	if s == nil || s.key != p.Flow.Key {
		return
	}
	s.posted = false
	if t.tsOn() {
		off := p.Meta.Payload + bthLen
		if t.intOn() {
			off += intLen
		}
		binary.BigEndian.PutUint64(p.Data[off:], uint64(p.TxStart))
	}
	s.dc.catchUp(t, s, d.Now())
	if s.rate < t.line {
		s.nextTx = p.TxStart + int64(wireNs(len(p.Data), s.rate))
	} else {
		s.nextTx = 0
	}
	t.trySend(s)
}

// OnTimer runs the RTO and DCQCN's rate-decrease check.
func (t *Transport) OnTimer(d *device.Device, id int, arg int64) {
	s := t.snd[uint32(arg)]
	if s == nil {
		return
	}
	now := d.Now()
	switch id {
	case timerRTO:
		if s.una >= s.maxSent && !s.posted {
			s.rtoArmed = false
			return
		}
		if now < s.rtoAt {
			d.After(s.rtoAt-now, t, timerRTO, arg)
			return
		}
		t.Timeouts++
		t.goBack(s, s.una)
		if t.cfg.Recovery == IRN {
			s.high = max(s.high, s.maxSent)
		}
		t.armRTO(s)
		t.trySend(s)
	case timerDec:
		s.dc.decrease(t, s, now)
	}
}

// goBack makes the sender resend from psn (GBN) or resend the holes from
// psn (IRN).
func (t *Transport) goBack(s *sender, psn int64) {
	if s.sent == nil {
		s.sent = map[int64]bool{}
	}
	if t.cfg.Recovery == IRN {
		s.rp = max(psn, s.una)
		return
	}
	if psn < s.nxt {
		s.nxt = psn
	}
}

// OnReceive handles RoCEv2 frames for this host: data (acknowledge),
// ACK/NAK and CNP (sender side).
func (t *Transport) OnReceive(d *device.Device, p *device.Packet) device.Verdict {
	m := &p.Meta
	if m.DstPort != device.RoCEv2Port || m.Payload == 0 || len(p.Data) < m.Payload+bthLen {
		return device.Pass
	}
	bth := p.Data[m.Payload:]
	switch op := bth[0]; {
	case op <= opSendOnly:
		t.onData(d, p, bth)
	case op == opAck:
		t.onAck(d, p, bth)
	case op == opCNP:
		t.CNPs++
		if s := t.snd[m.QP]; s != nil {
			s.dc.onCNP(t, s, d.Now())
		}
	default:
		return device.Pass
	}
	d.Free(p)
	return device.Take
}

func (t *Transport) onData(d *device.Device, p *device.Packet, bth []byte) {
	m := &p.Meta
	k := rkey{m.Src, m.QP}
	t.DataRx += int64(len(p.Data))
	r := t.rcv[k]
	psnRaw := getPSN(bth)
	if r == nil {
		// The queue pair is gone: its sender has had the last ACK and this
		// is a late copy (a retransmission that crossed that ACK). An RC
		// responder drops it; nobody waits for an answer.
		d.ForgetFlow(m.Flow())
		return
	}
	now := d.Now()
	if m.ECN == 3 && t.cfg.CC == CCDCQCN && now-r.cnpAt >= t.cfg.DCQCN.CNPInterval {
		r.cnpAt = now
		t.sendCtl(d, p, opCNP, 0, 0, 0, false)
	}
	psn := unwrapPSN(psnRaw, r.exp)
	switch {
	case psn == r.exp:
		r.exp++
		if r.ooo != nil {
			for r.ooo[r.exp] {
				delete(r.ooo, r.exp)
				r.exp++
			}
		}
		t.sendCtl(d, p, opAck, 0, r.exp-1, 0, true)
	case psn > r.exp:
		if t.cfg.Recovery == IRN {
			if r.ooo == nil {
				r.ooo = map[int64]bool{}
			}
			r.ooo[psn] = true
			t.NAKs++
			t.sendCtl(d, p, opAck, nakSeq, r.exp, psn, true)
			return
		}
		if r.nakExp != r.exp || now-r.nakAt >= t.cfg.NAKInterval {
			r.nakExp, r.nakAt = r.exp, now
			t.NAKs++
			t.sendCtl(d, p, opAck, nakSeq, r.exp, 0, false)
		}
	default:
		t.sendCtl(d, p, opAck, 0, r.exp-1, 0, false)
	}
}

// sendCtl sends an ACK/NAK (op opAck, syndrome) or a CNP for data frame p
// back to its sender; withINT copies p's INT block into the ACK.
func (t *Transport) sendCtl(d *device.Device, p *device.Packet, op byte, syn byte, psn, msn int64, withINT bool) {
	m := &p.Meta
	pl := m.Payload
	var ext [intLen + 2*tsLen]byte
	in := ext[:0]
	var extFlags byte
	off := pl + bthLen
	if p.Data[pl+4]&intFlag != 0 && len(p.Data) >= off+intLen {
		if withINT {
			in = append(in, p.Data[off:off+intLen]...)
			extFlags |= intFlag
		}
		off += intLen
	}
	if op == opAck && p.Data[pl+4]&tsFlag != 0 && len(p.Data) >= off+tsLen {
		// Echo the send time and add the arrival time (OnRamp's OWD).
		in = append(in, p.Data[off:off+tsLen]...)
		in = binary.BigEndian.AppendUint64(in, uint64(d.Now()))
		extFlags |= tsFlag
	}
	n := hdrLen + bthLen + aethLen + len(in) + icrcLen
	if op == opCNP {
		n = hdrLen + bthLen + 16 + icrcLen
	}
	if cap(t.buf) < n {
		t.buf = make([]byte, n)
	}
	b := t.buf[:n]
	clear(b)
	pt := d.Ports()[0]
	copy(b[0:6], pt.PeerMAC[:])
	copy(b[6:12], pt.MAC[:])
	b[12], b[13] = 0x08, 0x00
	ip := b[14:34]
	ip[0] = 0x45
	ip[1] = dscpCtl << 2
	ip[8], ip[9] = 64, 17
	s4, d4 := m.Dst.As4(), m.Src.As4()
	copy(ip[12:16], s4[:])
	copy(ip[16:20], d4[:])
	binary.BigEndian.PutUint16(b[34:], m.SrcPort)
	binary.BigEndian.PutUint16(b[36:], device.RoCEv2Port)
	writeIPv4Len(b)
	bth := b[hdrLen:]
	flags := byte(0)
	if op == opCNP {
		flags = 0x40 // BECN
	} else if m.ECN == 3 {
		flags = 0x40 // ECN echo for ECN-based CCs
	}
	flags |= extFlags
	putBTH(bth, op, flags, m.QP, false, psn)
	if op == opAck {
		a := bth[bthLen:]
		a[0] = syn
		a[1], a[2], a[3] = byte(msn>>16), byte(msn>>8), byte(msn)
		copy(a[aethLen:], in)
		t.ACKs++
	}
	_ = d.Send(device.WirePort, b)
}

func (t *Transport) onAck(d *device.Device, p *device.Packet, bth []byte) {
	m := &p.Meta
	s := t.snd[m.QP]
	if s == nil || len(bth) < bthLen+aethLen {
		return
	}
	now := d.Now()
	aeth := bth[bthLen:]
	progress := false
	if t.pb != nil && !s.pbAcked {
		s.pbAcked = true
		t.seedRate(s, t.pb.ack(s.key))
	}
	if aeth[0] == nakSeq {
		e := unwrapPSN(getPSN(bth), s.una)
		if e > s.una {
			s.una, progress = e, true
		}
		if t.cfg.Recovery == IRN {
			sk := unwrapPSN(int64(aeth[1])<<16|int64(aeth[2])<<8|int64(aeth[3]), s.una)
			if s.sacked == nil {
				s.sacked = map[int64]bool{}
			}
			s.sacked[sk] = true
			if s.rp < s.una || s.rp >= s.high && s.high <= s.una {
				s.rp = s.una
			}
			s.high = max(s.high, sk+1)
			if s.sent == nil {
				s.sent = map[int64]bool{}
			}
		} else {
			t.goBack(s, e)
		}
	} else {
		a := unwrapPSN(getPSN(bth), s.una)
		if a+1 > s.una {
			s.una, progress = a+1, true
		}
	}
	if s.sacked != nil && progress {
		for k := range s.sacked {
			if k < s.una {
				delete(s.sacked, k)
			}
		}
	}
	if progress {
		s.rtoAt = now + t.rto(s)
	}
	off := bthLen + aethLen
	if bth[4]&intFlag != 0 && len(bth) >= off+intLen {
		if t.cfg.CC == CCHPCC {
			var hs [intHops]hop
			nh := readHops(bth[off:], &hs)
			s.hp.onAck(t, s, hs[:nh])
		}
		off += intLen
	}
	ece := bth[4]&0x40 != 0
	if t.cfg.CC == CCDCTCP && aeth[0] != nakSeq {
		s.dt.onAck(t, s, ece)
	}
	if bth[4]&tsFlag != 0 && len(bth) >= off+2*tsLen && aeth[0] != nakSeq {
		sent := int64(binary.BigEndian.Uint64(bth[off:]))
		if t.cfg.CC == CCTIMELY {
			s.tm.onAck(t, s, now-sent)
		}
		if t.cfg.OnRamp {
			owd := int64(binary.BigEndian.Uint64(bth[off+tsLen:])) - sent
			if ex := owd - s.baseOWD - t.cfg.OnRampThreshold; ex > 0 {
				if f := d.Flow(s.key, false); f != nil && now+ex > f.PauseEnd {
					_ = d.PauseFlow(s.key, now+ex, "onramp")
					t.OnRampPauses++
				}
			}
		}
	}
	if s.una >= s.npkt {
		t.finish(s, now)
		return
	}
	t.trySend(s)
}

func (t *Transport) finish(s *sender, now int64) {
	s.done = true
	delete(t.snd, s.qp)
	if t.pb != nil {
		t.pb.forget(s.key)
	}
	t.nic.ForgetFlow(s.key)
	t.nic.ForgetFlow(s.ackK)
	// Tear the queue pair down at the destination too (see receiver).
	dst := t.net.Hosts[s.f.Dst]
	delete(dst.Transport.rcv, rkey{t.host.Addr, s.qp})
	dst.NIC.ForgetFlow(s.key)
	if t.Done != nil {
		ideal := t.Ideal(s.f)
		fct := now - s.f.Start
		r := FlowResult{Flow: s.f, End: now, FCT: fct, Ideal: ideal, Slowdown: max(1, float64(fct)/float64(max(ideal, 1))), Retx: s.retx}
		t.Done(r)
	}
}
