// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"math"
)

// dcqcnState is DCQCN's reaction point as the HPCC simulator models the
// Mellanox CX4 NIC (rdma-hw.cc: cnp_received_mlx, UpdateAlphaMlx,
// CheckRateDecreaseMlx, RateIncEventTimerMlx). Its periodic timers are
// evaluated lazily: α ticks every AlphaInterval from the first CNP, the
// decrease check every DecInterval (1 ns after an α tick), the increase
// timer every IncTimer from the last decrease. Only a decrease check with
// a CNP pending is an event; the rest is caught up when the rate is read,
// so an idle or uncongested flow costs no timer events, with the same
// arithmetic as per-tick updates.
type dcqcnState struct {
	on          bool
	first       bool
	target      float64
	alpha       float64
	t0          int64 // first CNP
	alphaTick   int64 // ticks applied since t0
	cnpFlag     bool  // a CNP since the last α tick
	decFlag     bool  // a CNP since the last decrease check
	decPending  bool
	incNext     int64
	stage       int
	Decreases   int64
	cnpReceived int64
}

func (c *dcqcnState) init(t *Transport) {
	c.on = t.cfg.CC == CCDCQCN
	c.first, c.alpha, c.target, c.incNext = true, 1, t.line, math.MaxInt64
}

func (c *dcqcnState) alphaTo(t *Transport, now int64) {
	if c.first {
		return
	}
	k := (now - c.t0) / t.cfg.DCQCN.AlphaInterval
	n := k - c.alphaTick
	if n <= 0 {
		return
	}
	g := t.cfg.DCQCN.G
	if c.cnpFlag {
		c.alpha = (1-g)*c.alpha + g
	} else {
		c.alpha *= 1 - g
	}
	if n > 1 {
		c.alpha *= math.Pow(1-g, float64(n-1))
	}
	c.cnpFlag = false
	c.alphaTick = k
}

// catchUp applies the rate-increase events due by now.
func (c *dcqcnState) catchUp(t *Transport, s *sender, now int64) {
	if !c.on {
		return
	}
	p := &t.cfg.DCQCN
	for c.incNext <= now {
		switch {
		case c.stage < p.FastRecovery:
		case c.stage == p.FastRecovery:
			c.target = min(c.target+float64(p.AI), t.line)
		default:
			c.target = min(c.target+float64(p.HAI), t.line)
		}
		s.rate = s.rate/2 + c.target/2
		c.stage++
		c.incNext += p.IncTimer
		if s.rate >= t.line-1 && c.target >= t.line {
			s.rate, c.incNext = t.line, math.MaxInt64
		}
	}
}

func (c *dcqcnState) onCNP(t *Transport, s *sender, now int64) {
	if !c.on {
		return
	}
	c.cnpReceived++
	c.catchUp(t, s, now)
	c.decFlag = true
	if c.first {
		c.first = false
		c.t0, c.alphaTick, c.alpha, c.cnpFlag = now, 0, 1, false
		c.target = s.rate
	} else {
		c.alphaTo(t, now)
		c.cnpFlag = true
	}
	if !c.decPending {
		// Checks run at t0 + 1 ns + k × DecInterval, k ≥ 1.
		dec := t.cfg.DCQCN.DecInterval
		base := c.t0 + 1
		k := (now-base)/dec + 1
		c.decPending = true
		t.nic.After(base+k*dec-now, t, timerDec, int64(s.qp))
	}
}

func (c *dcqcnState) decrease(t *Transport, s *sender, now int64) {
	c.decPending = false
	if !c.decFlag {
		return
	}
	c.catchUp(t, s, now)
	c.alphaTo(t, now)
	if c.stage != 0 { // CLAMP_TARGET_RATE 0: clamp only after an increase
		c.target = s.rate
	}
	s.rate = max(float64(t.cfg.DCQCN.MinRate), s.rate*(1-c.alpha/2))
	c.stage = 0
	c.decFlag = false
	c.incNext = now + t.cfg.DCQCN.IncTimer
	c.Decreases++
}

// hpccState is HPCC's sender (HPCC paper Algorithm 1; rdma-hw.cc
// UpdateRateHp, single-rate variant): per ACK, U is the largest hop
// utilisation txRate/B + min(qlen, qlen')/(B × T), smoothed over T; the
// reference rate W_c/T is multiplied by η/U (or grown by W_AI while U < η,
// for at most maxStage rounds) once per RTT, and the sending rate follows
// every ACK (fast reaction) from that reference.
type hpccState struct {
	on       bool
	cur      float64 // reference rate
	u        float64
	stage    int
	lastSeq  int64
	hops     [intHops]hop
	nh       int
	haveHops bool
}

func (h *hpccState) init(t *Transport) {
	h.on = t.cfg.CC == CCHPCC
	h.cur, h.u = t.line, 1
}

func (h *hpccState) onAck(t *Transport, s *sender, hs []hop) {
	if !h.on {
		return
	}
	if !h.haveHops {
		h.haveHops = true
		h.lastSeq = s.nxt
		h.nh = copy(h.hops[:], hs)
		return
	}
	p := &t.cfg.HPCC
	T := float64(t.cfg.BaseRTT)
	fast := s.una <= h.lastSeq
	var U float64
	var dt int64
	updated := false
	for i := 0; i < len(hs) && i < h.nh; i++ {
		tau := wrapDiff(hs[i].time, h.hops[i].time, 24)
		if tau == 0 {
			continue
		}
		updated = true
		bytes := wrapDiff(hs[i].bytes>>7, h.hops[i].bytes>>7, 20) << 7
		B := float64(hs[i].speed)
		txRate := float64(bytes) * 8e9 / float64(tau)
		u := txRate/B + float64(min(hs[i].qlen, h.hops[i].qlen))*8e9/(B*T)
		if u > U {
			U, dt = u, tau
		}
	}
	h.nh = copy(h.hops[:], hs)
	if !updated {
		return
	}
	if float64(dt) > T {
		dt = int64(T)
	}
	h.u = (h.u*(T-float64(dt)) + U*float64(dt)) / T
	maxc := h.u / p.Eta
	var rate float64
	stage := 0
	if maxc >= 1 || h.stage >= p.MaxStage {
		rate = h.cur/maxc + float64(p.AI)
	} else {
		rate = h.cur + float64(p.AI)
		stage = h.stage + 1
	}
	rate = min(max(rate, 100e6), t.line)
	if !fast {
		h.cur, h.stage, h.lastSeq = rate, stage, s.nxt
	}
	s.rate = rate
}

// dctcpState is DCTCP as the HPCC simulator's rate-based RoCE model
// (rdma-hw.cc HandleAckDctcp).
type dctcpState struct {
	alpha    float64
	lastSeq  int64
	started  bool
	ecnCnt   int64
	batch    int64
	cwr      bool
	highSeq  int64
	Decrease int64
}

func (c *dctcpState) onAck(t *Transport, s *sender, ece bool) {
	p := &t.cfg.DCTCP
	if ece {
		c.ecnCnt++
	}
	newBatch := false
	if s.una > c.lastSeq || !c.started {
		newBatch = true
		if !c.started {
			c.started = true
			c.batch = s.nxt + 1
		} else {
			frac := min(1, float64(c.ecnCnt)/float64(max(c.batch, 1)))
			c.alpha = (1-p.G)*c.alpha + p.G*frac
			c.batch = s.nxt - s.una + 1
		}
		c.lastSeq, c.ecnCnt = s.nxt, 0
	}
	if c.cwr && s.una > c.highSeq {
		c.cwr = false
	}
	if ece && !c.cwr {
		c.cwr, c.highSeq = true, s.nxt
		s.rate = max(100e6, s.rate*(1-c.alpha/2))
		c.Decrease++
	}
	if !c.cwr && newBatch {
		s.rate = min(t.line, s.rate+float64(p.AI))
	}
}

// timelyState is TIMELY as the HPCC simulator models it (rdma-hw.cc
// UpdateRateTimely): once per RTT of feedback, the RTT gradient (EWMA α,
// normalised by minRTT) decides: below T_low or a gradient ≤ 0 increases
// by δ (5δ after 5 increases), above T_high cuts by β(1 − T_high/RTT), a
// positive gradient cuts by β × gradient.
type timelyState struct {
	cur     float64
	lastSeq int64
	started bool
	lastRTT int64
	rttDiff float64
	stage   int
}

func (c *timelyState) onAck(t *Transport, s *sender, rtt int64) {
	p := &t.cfg.TIMELY
	full := s.una > c.lastSeq
	if !full {
		return
	}
	if c.started {
		nd := float64(rtt - c.lastRTT)
		diff := (1-p.Alpha)*c.rttDiff + p.Alpha*nd
		grad := diff / float64(p.MinRTT)
		inc, f := false, 0.0
		switch {
		case rtt < p.TLow:
			inc = true
		case rtt > p.THigh:
			f = 1 - p.Beta*(1-float64(p.THigh)/float64(rtt))
		case grad <= 0:
			inc = true
		default:
			f = max(0, 1-p.Beta*grad)
		}
		if inc {
			ai := float64(p.AI)
			if c.stage >= 5 {
				ai = float64(p.HAI)
			}
			s.rate = min(t.line, c.cur+ai)
			c.stage++
		} else {
			s.rate = max(100e6, c.cur*f)
			c.stage = 0
		}
		c.cur, c.rttDiff = s.rate, diff
	}
	c.started = true
	c.lastSeq, c.lastRTT = s.nxt, rtt
}
