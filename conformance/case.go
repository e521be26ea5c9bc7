// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"fmt"
	"math"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/filter"
)

// Case is a parsed case.yaml: the device under test and how to compare
// its output. See the package documentation for the file format.
type Case struct {
	// File is the path the case was read from (used in error messages).
	File string
	// Description is the one-line summary of the vector.
	Description string
	// Scenario is the scenario command line that made the vector's input
	// ("incast --senders 4 ..."), empty for a hand-made vector.
	Scenario string
	// Role is the kind of device: switch or NIC.
	Role device.Role
	// Schemes lists the schemes on, in the order written.
	Schemes []string
	// Epoch is the capture time that is model time 0; when HasEpoch is
	// false it is the timestamp of the first input frame.
	Epoch    time.Time
	HasEpoch bool
	// End, when positive, is the model time (ns) the replay runs to after
	// the last input; 0 means until the device is idle.
	End int64
	// Device holds the device-wide settings.
	Device DeviceSpec
	// Ports are the device's ports (a NIC has one, the wire port 0).
	Ports []PortSpec
	// Params are the scheme parameters by name (behaviour.md's names).
	Params map[string]Param
	// Tol are the tolerances; unset ones take the mode's defaults.
	Tol Tolerances
	// Volatile lists the fields exact mode does not compare.
	Volatile []string
	// Mask lists the fields device mode does not compare in signal
	// frames (conformance.md rule 3, like a PTF mask; MaskFields).
	Mask []string
	// Ignore is a display filter (wire.md field names) whose matches in
	// the device capture are background (conformance.md rule 2).
	Ignore string

	lines map[string]int // dotted key → line, for errors found later
}

// DeviceSpec is the device section of a case.
type DeviceSpec struct {
	Name             string
	Buffer           int64 // octets, 0 unlimited
	DynamicThreshold bool
	Alpha            float64
	ControlClass     int // 0 default (6); -1 means class 0
	DSCPClass        map[int]int
	Codepoints       device.Codepoints
}

// PortSpec is one port of a case.
type PortSpec struct {
	ID           int
	Speed        int64 // bit/s
	ServerFacing bool
	MAC, PeerMAC device.MAC
	Prefixes     []netip.Prefix
	// SFCP turns SFC-P on for this server-facing port (scheme sfc-p).
	SFCP bool
	// Interface, when set, is the name of the capture interface that
	// carries this port's frames (instead of interface index = port id).
	Interface string
	Queues    int
	Line      int
}

// Param is one scheme parameter as written, and its value.
type Param struct {
	Name  string
	Line  int
	Raw   string
	Int   int64 // octets, ns, bit/s or a count
	Bool  bool
	Float float64
	Ints  []int64
}

// Tolerances are the comparison tolerances of a case. A zero field with
// its Set flag false takes the default of the mode (exact: time 0;
// device: time 1 µs, pause 1 µs, queue depth 1 µs at the port's speed,
// window 100 µs).
type Tolerances struct {
	Time, Pause, QueueDepth, Window int64
	TimeSet, PauseSet, DepthSet     bool
	WindowSet                       bool
	// Jitter is the timing noise between the input capture and the
	// device's own clock, used where the device's clock matters (the
	// suppression phase); default 0.
	Jitter    int64
	JitterSet bool
	// Early is how early a device signal may be (conformance.md rule 6;
	// device mode default 500 ns).
	Early    int64
	EarlySet bool
	// MissedPeriods is how many reset periods in a row a device may leave
	// a congested flow unsignalled (Bloom filter false positives);
	// default 0.
	MissedPeriods int64
}

// Scheme names of conformance.md.
const (
	SchemeSFC       = "sfc"
	SchemeSFCCache  = "sfc-cache"
	SchemeSFCP      = "sfc-p"
	SchemeCIM       = "cim"
	SchemePFC       = "pfc"
	SchemeBFC       = "bfc"
	SchemeFloodgate = "floodgate"
	SchemePBFS      = "pbfs"
)

// AllSchemes lists every scheme name a case may use.
var AllSchemes = []string{SchemeSFC, SchemeSFCCache, SchemeSFCP, SchemeCIM, SchemePFC, SchemeBFC, SchemeFloodgate, SchemePBFS}

// VolatileFields are the field names a case may declare volatile.
var VolatileFields = []string{"eth.src", "eth.dst", "ip.id", "ip.ttl", "ip.ecn", "ip.checksum", "udp.checksum", "bth.icrc"}

// Has reports whether scheme s is on.
func (c *Case) Has(s string) bool {
	for _, x := range c.Schemes {
		if x == s {
			return true
		}
	}
	return false
}

// Port returns the port spec with id, or nil.
func (c *Case) Port(id int) *PortSpec {
	for i := range c.Ports {
		if c.Ports[i].ID == id {
			return &c.Ports[i]
		}
	}
	return nil
}

// Line returns the line of a dotted key ("params.q_th", "ports[1].speed"),
// or 0 when the case has no such key.
func (c *Case) Line(key string) int { return c.lines[key] }

// errAt builds a *CaseError for a key of c found invalid after parsing
// (a model rejecting a parameter).
func (c *Case) errAt(key, format string, args ...any) *CaseError {
	return &CaseError{File: c.File, Line: c.lines[key], Key: key, Msg: fmt.Sprintf(format, args...)}
}

// LoadCase reads and parses the case.yaml at path.
func LoadCase(path string) (*Case, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseCase(path, b)
}

var topKeys = []string{"description", "scenario", "role", "schemes", "epoch", "end", "device", "ports", "params", "tolerances", "volatile", "mask", "ignore"}

// ParseCase parses the text of a case.yaml strictly: unknown, duplicate or
// missing keys, values without units or with wrong ones, and values out of
// range are errors naming the key and its line (a CaseErrors). file names
// the text in errors.
func ParseCase(file string, text []byte) (*Case, error) {
	d := &decoder{file: file}
	c := &Case{File: file, Params: map[string]Param{}, lines: map[string]int{}}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		line := 0
		msg := err.Error()
		// yaml.v3 says "yaml: line N: ..."
		if _, after, ok := strings.Cut(msg, "line "); ok {
			if n, rest, ok := strings.Cut(after, ":"); ok {
				if v, e := strconv.Atoi(n); e == nil {
					line, msg = v, strings.TrimSpace(rest)
				}
			}
		}
		return nil, CaseErrors{{File: file, Line: line, Msg: "not valid YAML: " + msg}}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, CaseErrors{{File: file, Msg: "empty file"}}
	}
	top := d.mapping(doc.Content[0], "")
	if top == nil {
		return nil, d.errs
	}
	c.parseTop(d, top)
	top.done(topKeys...)
	c.check(d)
	if len(d.errs) > 0 {
		slices.SortStableFunc(d.errs, func(a, b *CaseError) int { return a.Line - b.Line })
		return nil, d.errs
	}
	return c, nil
}

func (c *Case) note(key string, n *yaml.Node) {
	if n != nil {
		c.lines[key] = n.Line
	}
}

func (c *Case) parseTop(d *decoder, top *mapping) {
	if n := top.must("description"); n != nil {
		c.note("description", n)
		if s, ok := d.scalar(n, "description"); ok {
			c.Description = strings.TrimSpace(s)
			switch {
			case c.Description == "":
				d.errf(n.Line, "description", "empty")
			case strings.ContainsAny(c.Description, "\n\r"):
				d.errf(n.Line, "description", "must be one line")
			}
		}
	}
	if n := top.get("scenario"); n != nil {
		if s, ok := d.scalar(n, "scenario"); ok {
			c.Scenario = s
		}
	}
	if n := top.must("role"); n != nil {
		c.note("role", n)
		if s, ok := d.scalar(n, "role"); ok {
			switch s {
			case "switch":
				c.Role = device.RoleSwitch
			case "nic":
				c.Role = device.RoleNIC
			default:
				d.errf(n.Line, "role", "%q: want switch or nic", s)
			}
		}
	}
	if n := top.must("schemes"); n != nil {
		c.note("schemes", n)
		seen := map[string]bool{}
		for _, it := range d.list(n, "schemes") {
			s, ok := d.scalar(it, "schemes")
			if !ok {
				continue
			}
			if !contains(AllSchemes, s) {
				d.errf(it.Line, "schemes", "unknown scheme %q; known: %s", s, strings.Join(AllSchemes, ", "))
				continue
			}
			if seen[s] {
				d.errf(it.Line, "schemes", "scheme %q listed twice", s)
				continue
			}
			seen[s] = true
			c.Schemes = append(c.Schemes, s)
			c.lines["schemes."+s] = it.Line
		}
	}
	if n := top.get("epoch"); n != nil {
		c.note("epoch", n)
		if s, ok := d.scalar(n, "epoch"); ok {
			t, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				d.errf(n.Line, "epoch", "%q: want an RFC 3339 time such as 2026-01-01T00:00:00Z", s)
			} else {
				c.Epoch, c.HasEpoch = t, true
			}
		}
	}
	if n := top.get("end"); n != nil {
		c.note("end", n)
		c.End, _ = d.duration(n, "end", 0, 10*device.Second) // 0: no minimum, as when absent
	}
	if n := top.get("device"); n != nil {
		c.parseDevice(d, d.mapping(n, "device"))
	}
	if n := top.must("ports"); n != nil {
		items := d.list(n, "ports")
		if n.Kind == yaml.SequenceNode && len(items) == 0 {
			d.errf(n.Line, "ports", "at least one port is needed")
		}
		for i, it := range items {
			c.parsePort(d, d.mapping(it, fmt.Sprintf("ports[%d]", i)))
		}
	}
	if n := top.get("params"); n != nil {
		c.parseParams(d, d.mapping(n, "params"))
	}
	if n := top.get("tolerances"); n != nil {
		c.parseTol(d, d.mapping(n, "tolerances"))
	}
	if n := top.get("mask"); n != nil {
		c.note("mask", n)
		for _, it := range d.list(n, "mask") {
			if s, ok := d.scalar(it, "mask"); ok {
				if _, err := newMaskSet([]string{s}); err != nil {
					d.errf(it.Line, "mask", "%v", err)
					continue
				}
				c.Mask = append(c.Mask, s)
			}
		}
	}
	if n := top.get("ignore"); n != nil {
		c.note("ignore", n)
		if s, ok := d.scalar(n, "ignore"); ok {
			if _, err := filter.Compile(s); err != nil {
				d.errf(n.Line, "ignore", "not a display filter: %v", err)
			} else {
				c.Ignore = s
			}
		}
	}
	if n := top.get("volatile"); n != nil {
		for _, it := range d.list(n, "volatile") {
			s, ok := d.scalar(it, "volatile")
			if !ok {
				continue
			}
			if !contains(VolatileFields, s) {
				d.errf(it.Line, "volatile", "unknown field %q; allowed: %s", s, strings.Join(VolatileFields, ", "))
				continue
			}
			c.Volatile = append(c.Volatile, s)
		}
	}
}

var deviceKeys = []string{"name", "buffer", "dynamic_threshold", "alpha", "control_class", "dscp_class", "bts_port", "cim_port", "postcard_port", "roce_port"}

func (c *Case) parseDevice(d *decoder, m *mapping) {
	if m == nil {
		return
	}
	if n := m.get("name"); n != nil {
		c.Device.Name, _ = d.scalar(n, "device.name")
	}
	if n := m.get("buffer"); n != nil {
		c.note("device.buffer", n)
		c.Device.Buffer, _ = d.bytes(n, "device.buffer", 0, 1<<48)
	}
	if n := m.get("dynamic_threshold"); n != nil {
		c.Device.DynamicThreshold, _ = d.boolean(n, "device.dynamic_threshold")
	}
	if n := m.get("alpha"); n != nil {
		c.note("device.alpha", n)
		c.Device.Alpha, _ = d.float(n, "device.alpha", 1.0/64, 64)
	}
	if n := m.get("control_class"); n != nil {
		c.note("device.control_class", n)
		v, ok := d.integer(n, "device.control_class", 0, 7)
		if ok {
			c.Device.ControlClass = int(v)
			if v == 0 {
				c.Device.ControlClass = -1
			}
		}
	}
	if n := m.get("dscp_class"); n != nil {
		mm := d.mapping(n, "device.dscp_class")
		if mm != nil {
			c.Device.DSCPClass = map[int]int{}
			for _, k := range mm.names() {
				key := "device.dscp_class." + k
				dscp, err := strconv.Atoi(k)
				if err != nil || dscp < 0 || dscp > 63 {
					d.errf(mm.node.Line, key, "a DSCP must be 0..63")
					mm.get(k)
					continue
				}
				if v, ok := d.integer(mm.get(k), key, 0, 7); ok {
					c.Device.DSCPClass[dscp] = int(v)
				}
			}
		}
	}
	cp := &c.Device.Codepoints
	for _, x := range []struct {
		key string
		dst *uint16
	}{{"bts_port", &cp.BTSPort}, {"cim_port", &cp.CIMPort}, {"postcard_port", &cp.PostcardPort}, {"roce_port", &cp.RoCEPort}} {
		if n := m.get(x.key); n != nil {
			v, ok := d.integer(n, "device."+x.key, 1, 65535)
			if ok {
				*x.dst = uint16(v)
			}
		}
	}
	m.done(deviceKeys...)
}

var portKeys = []string{"id", "speed", "server_facing", "mac", "peer_mac", "prefixes", "sfc_p", "interface", "queues"}

func (c *Case) parsePort(d *decoder, m *mapping) {
	if m == nil {
		return
	}
	p := PortSpec{Line: m.line(), ID: -1}
	if n := m.must("id"); n != nil {
		if v, ok := d.integer(n, m.key("id"), 0, 65534); ok {
			p.ID = int(v)
		}
	}
	if n := m.must("speed"); n != nil {
		c.note(m.key("speed"), n)
		p.Speed, _ = d.rate(n, m.key("speed"))
	}
	if n := m.get("server_facing"); n != nil {
		p.ServerFacing, _ = d.boolean(n, m.key("server_facing"))
	}
	if n := m.get("mac"); n != nil {
		p.MAC, _ = d.mac(n, m.key("mac"))
	}
	if n := m.get("peer_mac"); n != nil {
		p.PeerMAC, _ = d.mac(n, m.key("peer_mac"))
	}
	if n := m.get("prefixes"); n != nil {
		for _, it := range d.list(n, m.key("prefixes")) {
			s, ok := d.scalar(it, m.key("prefixes"))
			if !ok {
				continue
			}
			pf, err := netip.ParsePrefix(s)
			if err != nil {
				// A bare address is a host route.
				if a, e2 := netip.ParseAddr(s); e2 == nil {
					pf, err = netip.PrefixFrom(a, a.BitLen()), nil
				}
			}
			if err != nil {
				d.errf(it.Line, m.key("prefixes"), "%q: want an IP prefix such as 10.0.1.0/24", s)
				continue
			}
			p.Prefixes = append(p.Prefixes, pf)
		}
	}
	if n := m.get("sfc_p"); n != nil {
		c.note(m.key("sfc_p"), n)
		p.SFCP, _ = d.boolean(n, m.key("sfc_p"))
	}
	if n := m.get("interface"); n != nil {
		p.Interface, _ = d.scalar(n, m.key("interface"))
	}
	if n := m.get("queues"); n != nil {
		v, _ := d.integer(n, m.key("queues"), 8, 4096)
		p.Queues = int(v)
	}
	m.done(portKeys...)
	c.lines[m.path] = m.line()
	c.Ports = append(c.Ports, p)
}

var tolKeys = []string{"time", "early", "pause", "queue_depth", "window", "jitter", "missed_periods"}

func (c *Case) parseTol(d *decoder, m *mapping) {
	if m == nil {
		return
	}
	t := &c.Tol
	if n := m.get("time"); n != nil {
		t.Time, t.TimeSet = d.duration(n, "tolerances.time", 0, device.Second)
	}
	if n := m.get("early"); n != nil {
		t.Early, t.EarlySet = d.duration(n, "tolerances.early", 0, device.Second)
	}
	if n := m.get("pause"); n != nil {
		t.Pause, t.PauseSet = d.duration(n, "tolerances.pause", 0, device.Second)
	}
	if n := m.get("queue_depth"); n != nil {
		t.QueueDepth, t.DepthSet = d.bytes(n, "tolerances.queue_depth", 0, 1<<40)
	}
	if n := m.get("window"); n != nil {
		t.Window, t.WindowSet = d.duration(n, "tolerances.window", 1, device.Second)
	}
	if n := m.get("jitter"); n != nil {
		t.Jitter, t.JitterSet = d.duration(n, "tolerances.jitter", 0, device.Second)
	}
	if n := m.get("missed_periods"); n != nil {
		t.MissedPeriods, _ = d.integer(n, "tolerances.missed_periods", 0, 1000)
	}
	m.done(tolKeys...)
}

func (c *Case) parseParams(d *decoder, m *mapping) {
	if m == nil {
		return
	}
	for _, name := range m.names() {
		n := m.get(name)
		key := "params." + name
		c.note(key, n)
		spec := lookupParam(name)
		if spec == nil {
			d.errf(n.Line, key, "unknown parameter; known: %s", strings.Join(paramNames(), ", "))
			continue
		}
		p := Param{Name: name, Line: n.Line}
		ok := false
		switch spec.kind {
		case pkBytes:
			p.Int, ok = d.bytes(n, key, spec.lo, spec.hi)
		case pkDuration:
			p.Int, ok = d.duration(n, key, spec.lo, spec.hi)
		case pkRate:
			p.Int, ok = d.rate(n, key)
		case pkInt:
			p.Int, ok = d.integer(n, key, spec.lo, spec.hi)
		case pkBool:
			p.Bool, ok = d.boolean(n, key)
		case pkFloat:
			p.Float, ok = d.float(n, key, spec.flo, spec.fhi)
		case pkInts:
			for _, it := range d.list(n, key) {
				v, ok2 := d.integer(it, key, spec.lo, spec.hi)
				if ok2 {
					p.Ints = append(p.Ints, v)
				}
			}
			ok = true
		}
		if n.Kind == yaml.ScalarNode {
			p.Raw = n.Value
		}
		if ok {
			c.Params[name] = p
		}
	}
}

// check applies the rules that span keys: port ids unique, NIC shape,
// schemes valid for the role, parameters belonging to a scheme that is on.
func (c *Case) check(d *decoder) {
	seen := map[int]int{}
	for i, p := range c.Ports {
		key := fmt.Sprintf("ports[%d]", i)
		if p.ID < 0 {
			continue
		}
		if l, dup := seen[p.ID]; dup {
			d.errf(p.Line, key+".id", "port id %d already used on line %d", p.ID, l)
		}
		seen[p.ID] = p.Line
		if p.SFCP && !c.Has(SchemeSFCP) {
			d.errf(c.lines[key+".sfc_p"], key+".sfc_p", "needs scheme sfc-p")
		}
		if p.SFCP && !p.ServerFacing {
			d.errf(c.lines[key+".sfc_p"], key+".sfc_p", "SFC-P applies to server-facing ports only")
		}
		if c.Role == device.RoleSwitch && len(p.Prefixes) == 0 && len(c.Ports) > 1 {
			// Allowed (a port nothing is routed to), but worth nothing; no error.
			_ = p
		}
	}
	if c.Role == device.RoleNIC && len(c.Ports) > 0 {
		if len(c.Ports) != 1 {
			d.errf(c.Ports[1].Line, "ports", "a NIC has exactly one port (its wire side, id 0); the host side is implicit")
		} else if c.Ports[0].ID != device.WirePort && c.Ports[0].ID >= 0 {
			d.errf(c.Ports[0].Line, "ports[0].id", "a NIC's wire port has id 0")
		}
	}
	for _, s := range c.Schemes {
		if c.Role == device.RoleNIC && (s == SchemeSFCCache || s == SchemeSFCP) {
			d.errf(c.lines["schemes."+s], "schemes", "scheme %s applies to a switch, not a NIC", s)
		}
	}
	for _, name := range sortedKeys(c.Params) {
		p := c.Params[name]
		spec := lookupParam(name)
		if !spec.appliesTo(c) {
			d.errf(p.Line, "params."+name, "applies to %s; this case has role %s and schemes [%s]", spec.needs(), c.Role, strings.Join(c.Schemes, ", "))
		}
	}
}

// Scalar readers. Each reports a problem with the key and line and returns
// ok = false.

func hasUnit(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && (s[len(s)-1] < '0' || s[len(s)-1] > '9')
}

func (d *decoder) bytes(n *yaml.Node, key string, lo, hi int64) (int64, bool) {
	s, ok := d.scalar(n, key)
	if !ok {
		return 0, false
	}
	if !hasUnit(s) && s != "0" {
		d.errf(n.Line, key, "%q needs a unit: B, KB, MB, GB (powers of 10) or KiB, MiB, GiB", s)
		return 0, false
	}
	v, err := device.ParseBytes(s)
	if err != nil {
		d.errf(n.Line, key, "%q: not an octet count (units B, KB, MB, GB, KiB, MiB, GiB)", s)
		return 0, false
	}
	return d.inRange(n, key, v, lo, hi, "octets")
}

func (d *decoder) duration(n *yaml.Node, key string, lo, hi int64) (int64, bool) {
	s, ok := d.scalar(n, key)
	if !ok {
		return 0, false
	}
	if !hasUnit(s) && s != "0" {
		d.errf(n.Line, key, "%q needs a unit: ns, us, ms or s", s)
		return 0, false
	}
	v, err := device.ParseDuration(s)
	if err != nil {
		d.errf(n.Line, key, "%q: not a duration (units ns, us, ms, s)", s)
		return 0, false
	}
	return d.inRange(n, key, v, lo, hi, "ns")
}

func (d *decoder) rate(n *yaml.Node, key string) (int64, bool) {
	s, ok := d.scalar(n, key)
	if !ok {
		return 0, false
	}
	if !hasUnit(s) {
		d.errf(n.Line, key, "%q needs a unit: G, Gbps, Mbps, ...", s)
		return 0, false
	}
	v, err := device.ParseRate(s)
	if err != nil {
		d.errf(n.Line, key, "%q: not a link speed (units G, Gbps, Gb/s, Mbps, Tbps)", s)
		return 0, false
	}
	return d.inRange(n, key, v, 1_000_000, 3_200_000_000_000, "bit/s")
}

func (d *decoder) inRange(n *yaml.Node, key string, v, lo, hi int64, unit string) (int64, bool) {
	if v < lo || v > hi {
		d.errf(n.Line, key, "%s = %d %s is out of range %d..%d %s", n.Value, v, unit, lo, hi, unit)
		return 0, false
	}
	return v, true
}

func (d *decoder) integer(n *yaml.Node, key string, lo, hi int64) (int64, bool) {
	s, ok := d.scalar(n, key)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		d.errf(n.Line, key, "%q: want a whole number", s)
		return 0, false
	}
	if v < lo || v > hi {
		d.errf(n.Line, key, "%d is out of range %d..%d", v, lo, hi)
		return 0, false
	}
	return v, true
}

func (d *decoder) float(n *yaml.Node, key string, lo, hi float64) (float64, bool) {
	s, ok := d.scalar(n, key)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) {
		d.errf(n.Line, key, "%q: want a number", s)
		return 0, false
	}
	if v < lo || v > hi {
		d.errf(n.Line, key, "%g is out of range %g..%g", v, lo, hi)
		return 0, false
	}
	return v, true
}

func (d *decoder) boolean(n *yaml.Node, key string) (bool, bool) {
	s, ok := d.scalar(n, key)
	if !ok {
		return false, false
	}
	switch s {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	d.errf(n.Line, key, "%q: want true or false", s)
	return false, false
}

func (d *decoder) mac(n *yaml.Node, key string) (device.MAC, bool) {
	var m device.MAC
	s, ok := d.scalar(n, key)
	if !ok {
		return m, false
	}
	hw, err := net.ParseMAC(s)
	if err != nil || len(hw) != 6 {
		d.errf(n.Line, key, "%q: want a MAC-48 such as 02:00:00:00:00:01", s)
		return m, false
	}
	copy(m[:], hw)
	return m, true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
