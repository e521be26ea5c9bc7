// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/pcapio"
)

// Epoch is the capture time of model time 0 in every vector a scenario
// writes.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// ErrUsage is wrapped by errors about a scenario's name or flags.
var ErrUsage = errors.New("scenario usage")

// Frame is one input frame: the port (capture interface) it arrives on,
// its arrival time in ns since the epoch, its bytes and the scenario step
// it belongs to (its pcapng comment).
type Frame struct {
	Port int
	T    int64
	Data []byte
	Step string
}

// Vector is what a scenario makes: the case (as case.yaml text and parsed)
// and the input frames in arrival order.
type Vector struct {
	CaseYAML []byte
	Case     *conformance.Case
	Frames   []Frame
}

// Scenario is a named generator of vectors.
type Scenario struct {
	Name    string
	Summary string
	// setup declares the scenario's own flags on fs and returns the
	// function that builds the vector once the flags are parsed.
	setup func(fs *flag.FlagSet, g *common) func() (*Vector, error)
}

var registry []*Scenario

func register(s *Scenario) { registry = append(registry, s) }

// List returns the scenarios, by name.
func List() []*Scenario {
	out := slices.Clone(registry)
	slices.SortFunc(out, func(a, b *Scenario) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Lookup returns the scenario called name.
func Lookup(name string) (*Scenario, bool) {
	for _, s := range registry {
		if s.Name == name {
			return s, true
		}
	}
	return nil, false
}

// Usage writes the scenario's flags and their defaults to w.
func (s *Scenario) Usage(w io.Writer) {
	fs, _, _ := s.flags()
	fs.SetOutput(w)
	fmt.Fprintf(w, "%s: %s\n\nflags:\n", s.Name, s.Summary)
	fs.PrintDefaults()
}

func (s *Scenario) flags() (*flag.FlagSet, func() (*Vector, error), *common) {
	fs := flag.NewFlagSet(s.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g := &common{name: s.Name}
	g.declare(fs)
	build := s.setup(fs, g)
	return fs, build, g
}

// Make runs the scenario called name with command-line args (its flags)
// and returns the vector. The same arguments always give the same vector.
func Make(name string, args []string) (*Vector, error) {
	s, ok := Lookup(name)
	if !ok {
		var names []string
		for _, x := range List() {
			names = append(names, x.Name)
		}
		return nil, fmt.Errorf("%w: no scenario %q; known: %s", ErrUsage, name, strings.Join(names, ", "))
	}
	fs, build, g := s.flags()
	g.args = args
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUsage, name, err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%w: %s: unexpected argument %q", ErrUsage, name, fs.Arg(0))
	}
	if err := checkCounts(fs); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUsage, name, err)
	}
	if err := g.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	v, err := build()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return v, nil
}

// countMin is the least value of each integer flag the scenarios share a
// meaning of: at least one host, sender, flow, frame and receiver; -1 is
// the "from the DSCP" default of --pcp and --prio; 0 or more for the
// rest (--mark 0 marks none, --vlan 0 is untagged, no --local frames...).
var countMin = map[string]int{"hosts": 1, "senders": 1, "flows": 1, "frames": 1, "receivers": 1, "pcp": -1, "prio": -1}

// checkCounts refuses an integer flag given below its least value
// (countMin, else 0): a negative count wrote a vector of nothing.
func checkCounts(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		g, ok := f.Value.(flag.Getter)
		if !ok || err != nil {
			return
		}
		if v, ok := g.Get().(int); ok && v < countMin[f.Name] {
			err = fmt.Errorf("--%s %d: want %d or more", f.Name, v, countMin[f.Name])
		}
	})
	return err
}

// MakeLine runs a scenario from one command line ("incast --senders 4
// --desc \"a b\""): words split at spaces, double quotes group words
// and a backslash escapes the next character inside them.
func MakeLine(line string) (*Vector, error) {
	f, err := SplitLine(line)
	if err != nil {
		return nil, err
	}
	if len(f) == 0 {
		return nil, fmt.Errorf("%w: empty scenario line", ErrUsage)
	}
	return Make(f[0], f[1:])
}

// SplitLine splits a scenario line into words as MakeLine does.
func SplitLine(line string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in, quoted := false, false
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case quoted && ch == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
		case ch == '"':
			quoted = !quoted
			in = true
		case !quoted && (ch == ' ' || ch == '\t'):
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(ch)
			in = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("%w: unbalanced quote in %q", ErrUsage, line)
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}

// JoinLine renders words as one line SplitLine splits back into them.
func JoinLine(words []string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		if w != "" && !strings.ContainsAny(w, " \t\"\\") {
			b.WriteString(w)
			continue
		}
		b.WriteByte('"')
		for j := 0; j < len(w); j++ {
			if w[j] == '"' || w[j] == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(w[j])
		}
		b.WriteByte('"')
	}
	return b.String()
}

// Write writes the vector's case.yaml and input.pcapng into dir (made if
// needed).
func (v *Vector) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, conformance.CaseFile), v.CaseYAML, 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, conformance.InputFile))
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	err = v.WriteInput(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteInput writes the input frames as pcapng, interface = port.
func (v *Vector) WriteInput(w io.Writer) error {
	pw, err := pcapio.NewWriter(w, v.Case.InterfaceNames()...)
	if err != nil {
		return err
	}
	for _, f := range v.Frames {
		var cm []string
		if f.Step != "" {
			cm = []string{f.Step}
		}
		if err := pw.Write(f.Port, Epoch.Add(time.Duration(f.T)), f.Data, len(f.Data), cm...); err != nil {
			return err
		}
	}
	return pw.Flush()
}

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, " ") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

// qty is a flag holding a quantity with a unit, kept as written.
type qty struct {
	s     string
	v     int64
	parse func(string) (int64, error)
	// max is the largest value taken (0: any), maxText how it is said.
	max     int64
	maxText string
}

func (q *qty) String() string { return q.s }
func (q *qty) Set(s string) error {
	v, err := q.parse(s)
	if err != nil {
		return err
	}
	if q.max > 0 && (v < 0 || v > q.max) {
		return fmt.Errorf("want 0 to %s", q.maxText)
	}
	q.s, q.v = s, v
	return nil
}

// Limits of a scenario's quantities: a vector is a test case, not a
// load; these keep what a mistyped flag can ask for (--burst 100GB)
// from exhausting memory. MaxFrames bounds the input frames in all.
const (
	maxBytes    = 1 << 30 // 1 GiB of one flag's octets
	maxDuration = device.Second
	// MaxFrames is the most input frames a scenario makes.
	MaxFrames = 200_000
)

func bytesFlag(fs *flag.FlagSet, name, def, usage string) *qty {
	q := &qty{parse: device.ParseBytes}
	_ = q.Set(def)
	q.max, q.maxText = maxBytes, "1GiB"
	fs.Var(q, name, usage)
	return q
}

func durFlag(fs *flag.FlagSet, name, def, usage string) *qty {
	q := &qty{parse: device.ParseDuration}
	_ = q.Set(def)
	q.max, q.maxText = maxDuration, "1s"
	fs.Var(q, name, usage)
	return q
}

// budget refuses a scenario whose flags ask for more than MaxFrames
// input frames (n, counted before any is made), naming the flags.
func budget(n float64, flags string) error {
	if n > MaxFrames {
		return fmt.Errorf("%w: %s make about %.0f input frames, more than %d: a vector is a test case (for long captures see conformance/loadbench)", ErrUsage, flags, n, MaxFrames)
	}
	return nil
}

// framesOf is how many frames of size octets carry n octets.
func framesOf(n, size int64) float64 { return math.Ceil(float64(n) / float64(max(size, 1))) }

func rateFlag(fs *flag.FlagSet, name, def, usage string) *qty {
	q := &qty{parse: device.ParseRate}
	_ = q.Set(def)
	fs.Var(q, name, usage)
	return q
}

// common holds the flags every scenario has and the case being built.
type common struct {
	name     string
	args     []string
	desc     string
	schemes  string
	params   multi
	devs     multi
	tols     multi
	volatile string
	speed    *qty
	end      *qty
	seed     uint64
	ipv6     bool
	dscp     int
	size     *qty
	// vlan, when positive, tags every data frame with this VLAN id and
	// priority code point pcp (-1: the frame's traffic class).
	vlan, pcp int
	dscpClass multi // DSCP=CLASS entries of device.dscp_class
}

func (g *common) declare(fs *flag.FlagSet) {
	fs.StringVar(&g.desc, "desc", "", "one-line description of the vector (default: made from the flags)")
	fs.StringVar(&g.schemes, "scheme", "", "schemes on, comma-separated (sfc, sfc-cache, sfc-p, cim, pfc, ...)")
	fs.Var(&g.params, "param", "scheme parameter key=value for case.yaml (repeatable), e.g. q_th=100KB")
	fs.Var(&g.devs, "device", "device key=value for case.yaml (repeatable), e.g. buffer=100KB or dynamic_threshold=true")
	fs.Var(&g.tols, "tol", "tolerance key=value for case.yaml (repeatable), e.g. time=500ns")
	fs.StringVar(&g.volatile, "volatile", "", "fields exact mode ignores, comma-separated")
	g.speed = rateFlag(fs, "speed", "100G", "link speed of every port")
	g.end = durFlag(fs, "end", "0", "run the model at least until this time (0: until idle)")
	fs.Uint64Var(&g.seed, "seed", 1, "seed of the scenario's random choices")
	fs.BoolVar(&g.ipv6, "ipv6", false, "IPv6 addresses instead of IPv4")
	fs.IntVar(&g.dscp, "dscp", 26, "DSCP of data traffic")
	g.size = bytesFlag(fs, "size", "1078B", "captured length of a data frame")
	fs.IntVar(&g.vlan, "vlan", 0, "tag data frames with this 802.1Q VLAN id (1..4094; 0: untagged)")
	fs.IntVar(&g.pcp, "pcp", -1, "802.1Q priority code point of tagged data frames (default the traffic class of --dscp)")
	fs.Var(&g.dscpClass, "dscp-class", "DSCP=CLASS entry of the device's DSCP → traffic class map, device.dscp_class (repeatable)")
}

// class returns the traffic class of DSCP dscp under the --dscp-class
// map (default DSCP >> 3, behaviour.md §0).
func (g *common) class(dscp int) int {
	for _, kv := range g.dscpClass {
		k, v, _ := strings.Cut(kv, "=")
		var a, c int
		if _, err := fmt.Sscanf(k, "%d", &a); err == nil && a == dscp {
			if _, err := fmt.Sscanf(v, "%d", &c); err == nil {
				return c
			}
		}
	}
	return dscp >> 3
}

// tag gives a flow the scenario's VLAN tag, if any.
func (g *common) tag(f *flow) *flow {
	if g.vlan > 0 {
		f.tagged, f.vid, f.pcp = true, uint16(g.vlan), uint8(g.class(g.dscp))
		if g.pcp >= 0 {
			f.pcp = uint8(g.pcp)
		}
	}
	return f
}

// check validates the common flags a scenario cannot express in a case.
func (g *common) check() error {
	if g.vlan < 0 || g.vlan > 4094 {
		return fmt.Errorf("%w: --vlan %d: want 1..4094 (0 untagged)", ErrUsage, g.vlan)
	}
	if g.pcp > 7 {
		return fmt.Errorf("%w: --pcp %d: want 0..7", ErrUsage, g.pcp)
	}
	if g.dscp < 0 || g.dscp > 63 {
		return fmt.Errorf("%w: --dscp %d: want 0..63", ErrUsage, g.dscp)
	}
	for _, kv := range g.dscpClass {
		var a, c int
		k, v, ok := strings.Cut(kv, "=")
		if _, err := fmt.Sscanf(k, "%d", &a); err != nil || !ok {
			return fmt.Errorf("%w: --dscp-class %q: want DSCP=CLASS", ErrUsage, kv)
		}
		if _, err := fmt.Sscanf(v, "%d", &c); err != nil {
			return fmt.Errorf("%w: --dscp-class %q: want DSCP=CLASS", ErrUsage, kv)
		}
	}
	for _, kv := range g.devs {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" || k == "dscp_class" {
			return fmt.Errorf("%w: --device %q: want key=value (dscp_class: use --dscp-class)", ErrUsage, kv)
		}
	}
	return nil
}

func (g *common) rng() *rand.Rand { return rand.New(rand.NewPCG(g.seed, 0x5fc)) }

// Addressing of the generated topologies: the host behind switch port i
// is 10.0.i.1 (fd00:0:0:i::1) with MAC 02:00:00:00:00:i; switch port i has
// MAC 02:5f:00:00:00:i; remote host j behind an uplink is 10.1.j.1
// (fd00:1:0:j::1).

// Host returns the address of the host behind port i.
func Host(i int, v6 bool) netip.Addr {
	if v6 {
		return netip.AddrFrom16([16]byte{0xfd, 0, 0, 0, 0, 0, byte(i >> 8), byte(i), 15: 1})
	}
	return netip.AddrFrom4([4]byte{10, 0, byte(i), 1})
}

// Remote returns the address of remote host j (behind an uplink).
func Remote(j int, v6 bool) netip.Addr {
	if v6 {
		return netip.AddrFrom16([16]byte{0xfd, 0, 0, 1, 0, 0, byte(j >> 8), byte(j), 15: 1})
	}
	return netip.AddrFrom4([4]byte{10, 1, byte(j), 1})
}

func hostPrefix(i int, v6 bool) netip.Prefix {
	if v6 {
		return netip.PrefixFrom(Host(i, true), 64).Masked()
	}
	return netip.PrefixFrom(Host(i, false), 24).Masked()
}

// HostMAC is the MAC of the host behind switch port i.
func HostMAC(i int) device.MAC { return device.MAC{2, 0, 0, 0, byte(i >> 8), byte(i)} }

// SwitchMAC is the MAC of switch port i.
func SwitchMAC(i int) device.MAC { return device.MAC{2, 0x5f, 0, 0, byte(i >> 8), byte(i)} }

// UplinkMAC is the MAC of the router behind an uplink port i.
func UplinkMAC(i int) device.MAC { return device.MAC{2, 0, 0, 0xff, byte(i >> 8), byte(i)} }

// port describes one port of a generated case.
type port struct {
	id           int
	speed        string
	serverFacing bool
	mac, peer    device.MAC
	prefixes     []string
	sfcp         bool
}

// caseDoc is a case.yaml under construction.
type caseDoc struct {
	desc, scenario, role string
	schemes              []string
	end                  string
	ports                []port
	params               [][2]string
	tols                 [][2]string
	volatile             []string
	device               [][2]string
}

func (g *common) doc(role string, defSchemes string) *caseDoc {
	d := &caseDoc{scenario: JoinLine(append([]string{g.name}, g.args...)), role: role}
	s := g.schemes
	if s == "" {
		s = defSchemes
	}
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			d.schemes = append(d.schemes, x)
		}
	}
	if g.end.v > 0 {
		d.end = g.end.s
	}
	for _, kv := range g.params {
		k, v, _ := strings.Cut(kv, "=")
		d.params = append(d.params, [2]string{k, v})
	}
	for _, kv := range g.devs {
		k, v, _ := strings.Cut(kv, "=")
		d.device = append(d.device, [2]string{k, v})
	}
	for _, kv := range g.tols {
		k, v, _ := strings.Cut(kv, "=")
		d.tols = append(d.tols, [2]string{k, v})
	}
	for _, x := range strings.Split(g.volatile, ",") {
		if x = strings.TrimSpace(x); x != "" {
			d.volatile = append(d.volatile, x)
		}
	}
	if len(g.dscpClass) > 0 {
		var m []string
		for _, kv := range g.dscpClass {
			k, v, _ := strings.Cut(kv, "=")
			m = append(m, k+": "+v)
		}
		d.device = append(d.device, [2]string{"dscp_class", "{" + strings.Join(m, ", ") + "}"})
	}
	return d
}

func (d *caseDoc) has(s string) bool { return slices.Contains(d.schemes, s) }

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// yaml renders the case.
func (d *caseDoc) yaml() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Conformance vector made by a scenario: regenerate the input with\n#   sfcdump conform scenario %s --out DIR\n", d.scenario)
	fmt.Fprintf(&b, "description: %s\n", quote(d.desc))
	fmt.Fprintf(&b, "scenario: %s\n", quote(d.scenario))
	fmt.Fprintf(&b, "role: %s\n", d.role)
	fmt.Fprintf(&b, "schemes: [%s]\n", strings.Join(d.schemes, ", "))
	fmt.Fprintf(&b, "epoch: %s\n", Epoch.Format(time.RFC3339Nano))
	if d.end != "" {
		fmt.Fprintf(&b, "end: %s\n", d.end)
	}
	if len(d.device) > 0 {
		b.WriteString("device:\n")
		for _, kv := range d.device {
			fmt.Fprintf(&b, "  %s: %s\n", kv[0], kv[1])
		}
	}
	b.WriteString("ports:\n")
	for _, p := range d.ports {
		fmt.Fprintf(&b, "  - id: %d\n    speed: %s\n", p.id, p.speed)
		if p.serverFacing {
			b.WriteString("    server_facing: true\n")
		}
		if p.mac != (device.MAC{}) {
			fmt.Fprintf(&b, "    mac: %s\n", p.mac)
		}
		if p.peer != (device.MAC{}) {
			fmt.Fprintf(&b, "    peer_mac: %s\n", p.peer)
		}
		if len(p.prefixes) > 0 {
			pf := slices.Clone(p.prefixes)
			for i, x := range pf {
				if strings.HasPrefix(x, ":") { // "::/0" is not a plain YAML scalar
					pf[i] = quote(x)
				}
			}
			fmt.Fprintf(&b, "    prefixes: [%s]\n", strings.Join(pf, ", "))
		}
		if p.sfcp {
			b.WriteString("    sfc_p: true\n")
		}
	}
	if len(d.params) > 0 {
		b.WriteString("params:\n")
		for _, kv := range d.params {
			fmt.Fprintf(&b, "  %s: %s\n", kv[0], kv[1])
		}
	}
	if len(d.tols) > 0 {
		b.WriteString("tolerances:\n")
		for _, kv := range d.tols {
			fmt.Fprintf(&b, "  %s: %s\n", kv[0], kv[1])
		}
	}
	if len(d.volatile) > 0 {
		fmt.Fprintf(&b, "volatile: [%s]\n", strings.Join(d.volatile, ", "))
	}
	return []byte(b.String())
}

// finish parses the case it built (so a scenario never writes an invalid
// one) and sorts the frames by time (stable: same-time frames keep the
// order they were made in).
func (d *caseDoc) finish(frames []Frame) (*Vector, error) {
	text := d.yaml()
	c, err := conformance.ParseCase("case.yaml", text)
	if err != nil {
		// The case is made from the flags alone: one of their values
		// (a scheme, --param, --device, --dscp-class, --tol) is wrong.
		return nil, fmt.Errorf("%w: a flag's value made an invalid case (%w)", ErrUsage, err)
	}
	slices.SortStableFunc(frames, func(a, b Frame) int {
		switch {
		case a.T < b.T:
			return -1
		case a.T > b.T:
			return 1
		}
		return 0
	})
	return &Vector{CaseYAML: text, Case: c, Frames: frames}, nil
}

// hostPort is a server-facing switch port with one host behind it.
func (g *common) hostPort(i int) port {
	return port{id: i, speed: g.speed.s, serverFacing: true, mac: SwitchMAC(i), peer: HostMAC(i),
		prefixes: []string{hostPrefix(i, g.ipv6).String()}}
}

// uplinkPort is a network-facing port with the default route.
func (g *common) uplinkPort(i int) port {
	pf := "0.0.0.0/0"
	if g.ipv6 {
		pf = "::/0"
	}
	return port{id: i, speed: g.speed.s, mac: SwitchMAC(i), peer: UplinkMAC(i), prefixes: []string{pf}}
}

// flow is one RoCEv2 flow of generated traffic.
type flow struct {
	src, dst       netip.Addr
	srcMAC, dstMAC device.MAC
	sport          uint16
	qp             uint32
	dscp           uint8
	psn            uint32
	id             uint16
	size           int
	tagged         bool // 802.1Q tag with vid and pcp
	vid            uint16
	pcp            uint8
}

// RoCEFrame builds a RoCEv2 RC SEND ONLY frame of size captured octets
// from src to dst with a valid ICRC (and, over IPv4, UDP checksum 0 as
// RoCEv2 senders do). The payload is size minus the headers, at least 0.
func RoCEFrame(srcMAC, dstMAC device.MAC, src, dst netip.Addr, dscp uint8, sport uint16, qp, psn uint32, ipID uint16, size int) ([]byte, error) {
	return roceFrame(device.UDPSpec{SrcMAC: srcMAC, DstMAC: dstMAC, Src: src, Dst: dst, DSCP: dscp, SrcPort: sport, ID: ipID}, qp, psn, size)
}

// roceFrame is RoCEFrame for a spec that may carry a VLAN tag.
func roceFrame(spec device.UDPSpec, qp, psn uint32, size int) ([]byte, error) {
	src := spec.Src
	l2 := 14
	if spec.Tagged {
		l2 = 18
	}
	hdr := l2 + 20 + 8
	if src.Is6() {
		hdr = l2 + 40 + 8
	}
	n := max(size-hdr-12-4, 0)
	pl := make([]byte, 12+n+4)
	pl[0] = 0x04 // RC SEND ONLY
	pl[1] = 0    // SE 0, M 0, PadCnt 0, TVer 0
	pl[2], pl[3] = 0xff, 0xff
	pl[5], pl[6], pl[7] = byte(qp>>16), byte(qp>>8), byte(qp)
	pl[9], pl[10], pl[11] = byte(psn>>16), byte(psn>>8), byte(psn)
	for i := 0; i < n; i++ {
		pl[12+i] = byte(i)
	}
	spec.DstPort, spec.Payload = layers.RoCEv2Port, pl
	f, err := device.BuildUDP(nil, spec)
	if err != nil {
		return nil, err
	}
	ip := f[l2:]
	if err := layers.FixICRC(ip); err != nil {
		return nil, err
	}
	if src.Is4() {
		ip[20+6], ip[20+7] = 0, 0
		return f, nil
	}
	// IPv6 needs the UDP checksum: build again with the ICRC in place.
	copy(pl[len(pl)-4:], ip[len(ip)-4:])
	spec.Payload = pl
	return device.BuildUDP(nil, spec)
}

// next returns the flow's next frame and advances PSN and IP id.
func (f *flow) next() ([]byte, error) {
	b, err := roceFrame(device.UDPSpec{SrcMAC: f.srcMAC, DstMAC: f.dstMAC, Src: f.src, Dst: f.dst, DSCP: f.dscp, SrcPort: f.sport, ID: f.id,
		Tagged: f.tagged, VID: f.vid, PCP: f.pcp}, f.qp, f.psn, f.size)
	f.psn = (f.psn + 1) & 0xffffff
	f.id++
	return b, err
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }
