// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"fmt"

	"github.com/opensfc/sfc/bfc"
	"github.com/opensfc/sfc/bts"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/floodgate"
	"github.com/opensfc/sfc/pfc"
	"github.com/opensfc/sfc/postcard"
)

// FC names the flow control of a run.
type FC string

// The flow controls.
const (
	FCNone FC = "none" // lossy: drops at the buffer limits, recovery by the transport
	FCPFC  FC = "pfc"  // 802.1Qbb PFC on every switch (package pfc)
	FCSFC  FC = "sfc"  // SFC on the ToRs and SFC NICs (package bts)
	// FCSFCP: SFC on the ToRs with SFC-P (behaviour.md §3): the sender's
	// ToR turns each BTS for a local host into a PFC frame; NICs only obey
	// PFC (package bts SFCP, package pfc Receiver).
	FCSFCP FC = "sfcp"
	// FCFloodgate: Floodgate on every switch (per-destination windows,
	// VOQs, credits, dst-pause) and its NIC side (package floodgate), with
	// PFC on as in the Floodgate paper's lossless setting.
	FCFloodgate FC = "floodgate"
)

// SFCConfig are the SFC switch parameters of a run (package bts Params):
// the SFC paper runs SFC on the ToRs only, trigger 2 × BDP, target 1 × BDP,
// reset half a base RTT, with the pause cache.
type SFCConfig struct {
	Cache     bool  `yaml:"cache" json:"cache"`
	Estimator bool  `yaml:"estimator" json:"estimator"`
	BaseRTT   int64 `yaml:"base_rtt" json:"base_rtt,omitempty"`
	QTh       int64 `yaml:"q_th" json:"q_th,omitempty"`
	QTg       int64 `yaml:"q_tg" json:"q_tg,omitempty"`
	// AllSwitches runs SFC on every switch, not only the ToRs.
	AllSwitches bool `yaml:"all_switches" json:"all_switches,omitempty"`
	// PFC keeps 802.1Qbb PFC on every switch under SFC as the lossless
	// backstop of a RoCE fabric (the SFC-P testbed's setting).
	PFC bool `yaml:"pfc" json:"pfc,omitempty"`
}

// Setup attaches the switch side of a run: ECMP on every switch with
// uplinks, the egress scheme (ECN marking and INT), and the flow control.
type Setup struct {
	FC  FC
	ECN *ECN
	INT bool
	SFC SFCConfig
	PFC pfc.Params
	// Floodgate parameters (package floodgate; zero: its defaults).
	Floodgate floodgate.Params
	FGSw      []*floodgate.Switch
	// BFC parameters (package bfc; zero: its defaults) under FCBFC, the
	// switches, and the VFIDs seen and those that collided.
	BFC                  bfc.Params
	BFCSw                []*bfc.Switch
	BFCSeen, BFCCollided map[uint32]bool
	Seed                 uint64
	// PBFS turns PB-FS on (package postcard): switches assess and send
	// postcards, NICs fast-start and adopt the postcards' rate.
	PBFS   PBFSConfig
	PBFSSw []*postcard.Switch
	// ECMPByDst hashes on the destination only (see ECMP.ByDst); always so
	// under Floodgate.
	ECMPByDst bool
	SFCSw     []*bts.Switch // filled by Apply
	PFCSw     []*pfc.Switch
}

// Apply attaches the schemes to every device of n.
func (s *Setup) Apply(n *Net) error {
	if e := s.ECN; e != nil {
		// RED marks with probability Pmax × (depth − Kmin)/(Kmax − Kmin).
		if err := device.CheckRange("ecn", "kmin", e.Kmin, 0, 1<<40, " octets"); err != nil {
			return err
		}
		if err := device.CheckRange("ecn", "kmax", e.Kmax, e.Kmin, 1<<40, " octets"); err != nil {
			return err
		}
		if !(e.Pmax > 0 && e.Pmax <= 1) {
			return &device.ParamError{Scope: "ecn", Name: "pmax", Value: fmt.Sprint(e.Pmax), Allowed: "a probability in (0, 1]"}
		}
	}
	for i, sw := range n.Switches {
		d := sw.Dev
		var schemes []device.Scheme
		if len(sw.Up) > 1 { // first: the schemes after it see the real egress port
			schemes = append(schemes, &ECMP{Group: sw.Up, Salt: uint32(s.Seed) ^ uint32(i)*0x9e3779b9, ByDst: s.FC == FCFloodgate || s.ECMPByDst})
		}
		if (s.FC == FCSFC || s.FC == FCSFCP) && (sw.Tier == 0 || s.SFC.AllSwitches) {
			b := bts.NewSwitch(bts.Params{Cache: s.SFC.Cache, Estimator: s.SFC.Estimator, BaseRTT: s.SFC.BaseRTT,
				QTh: s.SFC.QTh, QTg: s.SFC.QTg, Reporter: uint32(i + 1)})
			s.SFCSw = append(s.SFCSw, b)
			schemes = append(schemes, b)
			if s.FC == FCSFCP && sw.Tier == 0 { // after the Switch, so its cache sees the BTS first
				schemes = append(schemes, &bts.SFCP{})
			}
		}
		if s.FC == FCFloodgate {
			f := floodgate.NewSwitch(s.Floodgate)
			s.FGSw = append(s.FGSw, f)
			schemes = append(schemes, f)
		}
		if s.PBFS.On {
			ps := postcard.NewSwitch(postcard.SwitchParams{DCRTT: s.PBFS.DCRTT})
			s.PBFSSw = append(s.PBFSSw, ps)
			schemes = append(schemes, ps)
		}
		if s.FC == FCBFC {
			b := bfc.NewSwitch(s.BFC)
			s.BFCSw = append(s.BFCSw, b)
			if s.BFCSeen == nil {
				s.BFCSeen, s.BFCCollided = map[uint32]bool{}, map[uint32]bool{}
			}
			nq := s.BFC.Queues
			if nq == 0 {
				nq = bfc.DefaultQueues
			}
			schemes = append(schemes, b, newCollisions(nq, s.BFCSeen, s.BFCCollided))
		}
		if s.FC == FCPFC || s.FC == FCFloodgate || s.FC == FCBFC || s.FC != FCNone && s.SFC.PFC {
			p := pfc.NewSwitch(s.PFC)
			s.PFCSw = append(s.PFCSw, p)
			schemes = append(schemes, &pfc.Receiver{}, p)
		}
		if s.ECN != nil || s.INT {
			schemes = append(schemes, NewEgress(s.ECN, s.INT, s.Seed^uint64(i+1)*0x2545f4914f6cdd1d))
		}
		if err := d.Attach(schemes...); err != nil {
			return err
		}
	}
	for _, h := range n.Hosts {
		if s.PBFS.On {
			h.pb = newPBGate(s.PBFS.DCRTT)
			if err := h.NIC.Attach(h.pb); err != nil {
				return err
			}
		}
		switch s.FC {
		case FCSFC:
			if err := h.NIC.Attach(bts.NewNIC()); err != nil {
				return err
			}
		case FCPFC, FCSFCP:
			if err := h.NIC.Attach(&pfc.Receiver{}); err != nil {
				return err
			}
		case FCFloodgate:
			if err := h.NIC.Attach(&pfc.Receiver{}, floodgate.NewNIC()); err != nil {
				return err
			}
		case FCBFC:
			if err := h.NIC.Attach(&pfc.Receiver{}, bfc.NewNIC()); err != nil {
				return err
			}
		}
		if s.FC == FCSFC && s.SFC.PFC {
			if err := h.NIC.Attach(&pfc.Receiver{}); err != nil {
				return err
			}
		}
	}
	return nil
}
