// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"errors"
	"fmt"
	"strings"

	"github.com/opensfc/sfc/bfc"
	"github.com/opensfc/sfc/bts"
	"github.com/opensfc/sfc/cim"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/floodgate"
	"github.com/opensfc/sfc/pfc"
	"github.com/opensfc/sfc/postcard"
)

// Model is the reference device a case describes, built from the
// reference models (device plus the scheme packages) and ready for replay.
type Model struct {
	Case *Case
	Dev  *device.Device
	// SFC is the SFC switch scheme when one is attached (sfc, sfc-cache or
	// cim on a switch).
	SFC *bts.Switch
	// PFC is the PFC switch scheme when pfc is on a switch.
	PFC *pfc.Switch

	obs *sfcObserver
}

// Firing is what the reference SFC switch decided for one data packet
// that met, or came near (within the depth tolerance), the signalling
// rule of behaviour.md §1: whether the rule fired, and then whether the
// switch sent a signal or suppressed it because the flow was already in
// the suppression filter. The decision is taken at Time from Depth; the
// signal is built at Built = Time + bts_latency from DepthE.
type Firing struct {
	Time    int64 // arrival of the data packet, ns
	Built   int64 // t_e, when the signal is built and leaves, ns
	Flow    device.FlowKey
	InPort  int
	OutPort int
	Depth   int64  // qd, the queue depth just before the packet
	DepthE  int64  // qd_e, the depth at Built with the packet: the signal's queue depth field
	QTh     int64  // Q_th of the egress port
	CacheNs int64  // pause-cache time left for the packet's (dst, DSCP)
	PauseUS uint16 // the pause the rule gives
	Fired   bool   // the rule fired: a signal was sent or suppressed
	Sent    bool
	ToPFC   bool // the signal is for a host behind an SFC-P port: SFC-P sends PFC instead
}

// sfcObserver wraps the SFC switch to see its decisions, sent or
// suppressed, without changing them. A signal sent is reported when it is
// built (Switch.OnBuilt), with the pause and depth it carries; a decision
// that sent nothing is reported at once, with the pause and depth a signal
// built at bts_latency 0 would carry.
type sfcObserver struct {
	*bts.Switch
	fire func(Firing)
	near int64 // also report packets with depth above Q_th − near
	dev  *device.Device
}

func (o *sfcObserver) OnIngress(d *device.Device, p *device.Packet) device.Verdict {
	if o.fire == nil || p.Meta.Kind != device.KindData {
		return o.Switch.OnIngress(d, p)
	}
	pt := d.Port(p.OutPort)
	var qd int64
	if pt != nil && p.Queue >= 0 && p.Queue < len(pt.Queues) {
		qd = pt.Queues[p.Queue].Bytes
	}
	var cacheNs int64
	if o.P.Cache {
		cacheNs = o.CacheTime(d.Now(), p.Meta.Dst, p.Meta.DSCP)
	}
	fired0, sup := o.Fired, o.Suppressed
	v := o.Switch.OnIngress(d, p)
	fired := o.Fired != fired0
	if pt == nil || fired && o.Suppressed == sup {
		return v // sent: reported by built
	}
	qth, qtg := o.Thresholds(d, pt.ID)
	if fired || qd > qth-o.near || cacheNs > 0 {
		qde := qd + int64(len(p.Data))
		o.fire(Firing{Time: d.Now(), Built: d.Now() + o.P.Latency, Flow: p.Meta.Flow(), InPort: p.InPort, OutPort: pt.ID, Depth: qd,
			DepthE: qde, QTh: qth, CacheNs: cacheNs, PauseUS: bts.PauseUS(cacheNs-o.P.Latency, qde, qtg, pt.Speed), Fired: fired,
			ToPFC: o.ToSFCP(d, p.Meta.Src)})
	}
	return v
}

// built reports a signal the switch built.
func (o *sfcObserver) built(b bts.Built) {
	if o.fire == nil {
		return
	}
	qth, _ := o.Thresholds(o.dev, b.OutPort)
	o.fire(Firing{Time: b.Arrival, Built: b.At, Flow: b.Flow, InPort: b.InPort, OutPort: b.OutPort, Depth: b.QD, DepthE: b.QDE,
		QTh: qth, CacheNs: b.CacheNs, PauseUS: b.Signal.PauseUS, Fired: true, Sent: true, ToPFC: b.ToPFC})
}

// BuildModel builds the reference device of c with its schemes attached.
// A parameter a model rejects is reported as a *CaseError naming the key
// and line in case.yaml.
func BuildModel(c *Case) (*Model, error) {
	cfg := device.Config{Name: c.Device.Name, Buffer: c.Device.Buffer, DynamicThreshold: c.Device.DynamicThreshold,
		Alpha: c.Device.Alpha, ControlClass: c.Device.ControlClass, Codepoints: c.Device.Codepoints}
	if cfg.Name == "" {
		cfg.Name = "dut"
	}
	if c.Device.DSCPClass != nil {
		cfg.DSCPClass = make([]uint8, 64)
		for i := range cfg.DSCPClass {
			cfg.DSCPClass[i] = uint8(i >> 3)
		}
		for k, v := range c.Device.DSCPClass {
			cfg.DSCPClass[k] = uint8(v)
		}
	}
	for _, p := range c.Ports {
		q := p.Queues
		if q == 0 && c.Has(SchemeBFC) && c.Role == device.RoleSwitch {
			q = bfc.QueuesFor(bfcParams(c).Queues)
		}
		cfg.Ports = append(cfg.Ports, device.PortConfig{ID: p.ID, Speed: p.Speed, ServerFacing: p.ServerFacing, MAC: p.MAC,
			PeerMAC: p.PeerMAC, Prefixes: p.Prefixes, Queues: q})
	}
	var d *device.Device
	var err error
	if c.Role == device.RoleNIC {
		d, err = device.NewNIC(cfg)
	} else {
		d, err = device.NewSwitch(cfg)
	}
	if err != nil {
		return nil, c.modelError(err)
	}
	m := &Model{Case: c, Dev: d}
	schemes, err := m.schemes()
	if err != nil {
		return nil, err
	}
	for _, s := range schemes {
		if err := d.Attach(s); err != nil {
			return nil, c.modelError(err)
		}
	}
	return m, nil
}

func (m *Model) schemes() ([]device.Scheme, error) {
	c := m.Case
	var out []device.Scheme
	useCIM := c.Has(SchemeCIM)
	if c.Role == device.RoleNIC {
		switch {
		case useCIM:
			out = append(out, cim.NewNIC())
		case c.Has(SchemeSFC):
			out = append(out, bts.NewNIC())
		}
		if c.Has(SchemePFC) {
			out = append(out, &pfc.Receiver{})
		}
		if c.Has(SchemeBFC) {
			out = append(out, bfc.NewNIC())
		}
		if c.Has(SchemeFloodgate) {
			out = append(out, floodgate.NewNIC())
		}
		if c.Has(SchemePBFS) {
			p := postcard.SenderParams{Delta: int(c.intParam("delta")), DCRTT: c.intParam("dc_rtt"), Mu: c.Params["mu"].Float,
				IMin: c.intParam("i_min"), AckAfter: c.intParam("ack_after"), MarkMask: uint8(c.intParam("mark_mask"))}
			out = append(out, postcard.NewSender(p))
		}
		return out, nil
	}
	if c.Has(SchemeSFC) || c.Has(SchemeSFCCache) || useCIM {
		p := bts.Params{Cache: c.Has(SchemeSFCCache), Port: c.Device.Codepoints.BTSPort}
		if v, ok := c.Params["q_th"]; ok {
			p.QTh = v.Int
		}
		if v, ok := c.Params["q_tg"]; ok {
			p.QTg = v.Int
		}
		if v, ok := c.Params["base_rtt"]; ok {
			p.BaseRTT = v.Int
		}
		if v, ok := c.Params["reset"]; ok {
			p.Reset = v.Int
		}
		if v, ok := c.Params["estimator"]; ok {
			p.Estimator = v.Bool
		}
		if v, ok := c.Params["estimator_window"]; ok {
			p.EstimatorWindow = v.Int
		}
		if v, ok := c.Params["estimator_rate"]; ok {
			p.RemoteSpeed = v.Int
		}
		if v, ok := c.Params["remote_speed"]; ok {
			p.RemoteSpeed = v.Int
		}
		if v, ok := c.Params["bts_latency"]; ok {
			p.Latency = v.Int
		}
		if v, ok := c.Params["bts_dscp"]; ok {
			p.DSCP = uint8(v.Int)
			p.DSCPZero = v.Int == 0
		}
		if v, ok := c.Params["reporter"]; ok {
			p.Reporter = uint32(v.Int)
		}
		var sw *bts.Switch
		if useCIM {
			o := cim.Options{Port: c.Device.Codepoints.CIMPort, DSCP: p.DSCP, DSCPZero: p.DSCPZero}
			if v, ok := c.Params["cim_l2"]; ok {
				o.L2 = v.Bool
			}
			sw = cim.NewSwitch(p, o)
			if v, ok := c.Params["cim_tlv"]; ok && !v.Bool {
				sw.Emit = legacyCIMEmitter(o)
			}
		} else {
			sw = bts.NewSwitch(p)
		}
		m.SFC = sw
		m.obs = &sfcObserver{Switch: sw, dev: m.Dev}
		sw.OnBuilt = m.obs.built
		out = append(out, m.obs)
	}
	if c.Has(SchemeSFCP) {
		var ports []int
		for _, p := range c.Ports {
			if p.SFCP {
				ports = append(ports, p.ID)
			}
		}
		if useCIM {
			out = append(out, cim.NewSFCP(ports...))
		} else {
			out = append(out, &bts.SFCP{Ports: ports})
		}
	}
	if c.Has(SchemePFC) {
		p := pfc.Params{}
		if v, ok := c.Params["xoff"]; ok {
			p.XOFF = v.Int
		}
		if v, ok := c.Params["xon"]; ok {
			p.XON = v.Int
		}
		if v, ok := c.Params["mtu"]; ok {
			p.MTU = v.Int
		}
		if v, ok := c.Params["quanta"]; ok {
			p.Quanta = uint16(v.Int)
		}
		if v, ok := c.Params["refresh"]; ok {
			p.Refresh = v.Int
		}
		if v, ok := c.Params["headroom"]; ok {
			p.Headroom = v.Int
		}
		if v, ok := c.Params["dynamic"]; ok {
			p.Dynamic = v.Bool
		}
		if v, ok := c.Params["alpha_pfc"]; ok {
			p.AlphaPFC = v.Float
		}
		if v, ok := c.Params["base_rtt"]; ok {
			p.BaseRTT = v.Int
		}
		if v, ok := c.Params["priorities"]; ok {
			for _, x := range v.Ints {
				p.Priorities |= 1 << x
			}
		}
		m.PFC = pfc.NewSwitch(p)
		out = append(out, m.PFC, &pfc.Receiver{})
	}
	if c.Has(SchemeBFC) {
		out = append(out, bfc.NewSwitch(bfcParams(c)))
	}
	if c.Has(SchemeFloodgate) {
		p := floodgate.Params{M: c.Params["m"].Float, NextHopRTT: c.intParam("next_hop_rtt"), BDP: c.intParam("bdp"),
			Tau: c.intParam("tau"), DstPause: c.intParam("dst_pause"), DelayCredit: c.intParam("delay_credit"), MaxFrame: int(c.intParam("max_frame"))}
		out = append(out, floodgate.NewSwitch(p))
	}
	if c.Has(SchemePBFS) {
		p := postcard.SwitchParams{Slots: int(c.intParam("n")), DCRTT: c.intParam("dc_rtt"), Delta: int(c.intParam("delta")),
			MTU: c.intParam("mtu"), SenderRate: c.intParam("sender_rate"), MarkMask: uint8(c.intParam("mark_mask"))}
		out = append(out, postcard.NewSwitch(p))
	}
	return out, nil
}

func (c *Case) intParam(name string) int64 { return c.Params[name].Int }

func bfcParams(c *Case) bfc.Params {
	return bfc.Params{Queues: int(c.intParam("n_q")), HopRTT: c.intParam("hrtt"), Tau: c.intParam("tau"),
		FilterLen: int(c.intParam("filter_len")), Hashes: int(c.intParam("k")), AlwaysSend: c.Params["always_send"].Bool}
}

// legacyCIMEmitter sends plain 802.1Qcz CIMs (no SFC pause TLV) where SFC
// would send a BTS: cim.Emitter without the TLV.
func legacyCIMEmitter(o cim.Options) bts.Emitter {
	return func(d *device.Device, out *device.Port, trigger *device.Packet, s bts.Signal) ([]byte, error) {
		oo := o
		oo.SrcMAC, oo.DstMAC = out.MAC, out.PeerMAC
		if oo.Port == 0 {
			oo.Port = d.Codepoints().CIMPort
		}
		return cim.Build(nil, trigger.Data, nil, oo)
	}
}

// modelError turns a model's *device.ParamError into a *CaseError at the
// key of case.yaml it comes from, when that can be told.
func (c *Case) modelError(err error) error {
	var pe *device.ParamError
	if !errors.As(err, &pe) {
		return &CaseError{File: c.File, Msg: err.Error()}
	}
	name := pe.Name
	switch name {
	case "dscp":
		name = "bts_dscp"
	case "l":
		name = "filter_len"
	}
	key := "params." + name
	if _, ok := c.lines[key]; !ok && name == "q_tg" {
		key = "params.q_th" // the default Q_tg is above the Q_th set
	}
	if _, ok := c.lines[key]; !ok {
		key = ""
		switch {
		case strings.HasPrefix(pe.Name, "port ") && strings.HasSuffix(pe.Name, " speed"):
			var id int
			fmt.Sscanf(pe.Name, "port %d speed", &id)
			for i, p := range c.Ports {
				if p.ID == id {
					key = fmt.Sprintf("ports[%d].speed", i)
				}
			}
		case pe.Scope == "device":
			if _, ok := c.lines["device."+pe.Name]; ok {
				key = "device." + pe.Name
			}
		}
	}
	msg := fmt.Sprintf("%s = %s: allowed %s (%s model)", pe.Name, pe.Value, pe.Allowed, pe.Scope)
	return &CaseError{File: c.File, Line: c.lines[key], Key: key, Msg: msg}
}
