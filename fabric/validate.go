// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"fmt"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"

	"github.com/opensfc/sfc/device"
	"gopkg.in/yaml.v3"
)

// Limits of a scenario's values (docs/decisions.md, "Scenario value
// ranges"). They keep a run's memory, time and output bounded: the
// simulator takes one buffer sample per switch per SampleEvery (held in
// bounded memory, samples.go, but each a row of NAME.buffer.csv and a
// step of the run), and makes every flow it runs.
const (
	// MinSampleEvery is the shortest buffer sampling period, 1 µs.
	MinSampleEvery = device.Microsecond
	// MaxSamples bounds the samples per switch over the run (duration
	// plus drain, divided by the sampling period).
	MaxSamples = 10_000_000
	// MaxTotalSamples bounds the buffer samples of all switches together
	// (1-2 octets each in the samples' temporary file, and a cell of
	// NAME.buffer.csv).
	MaxTotalSamples = 50_000_000
	// MaxTime bounds every time (duration, drain, periods): 100 s.
	MaxTime = 100 * 1000 * device.Millisecond
	// MaxSize bounds a flow size: 1 TB.
	MaxSize = 1 << 40
	// MaxBins bounds the number of size bins.
	MaxBins = 1000
	// MaxInFlight bounds the flows started and not finished at once: a
	// flow in flight holds its NIC and transport state, about 6 KB, so
	// 262,144 of them (a 512-host all-to-all) take about 1.6 GB. A
	// workload that starts more at one instant is refused before the run
	// (Workload.Check); a run that comes to hold more stops with an error.
	MaxInFlight = 1 << 18
)

// ScenarioError is a scenario value out of range. File and Line are set
// when the scenario came from a file (LoadScenario). It wraps
// device.ErrParam.
type ScenarioError struct {
	File string
	Line int
	Key  string // dotted path, as in the YAML: "workload.load"
	Msg  string
}

func (e *ScenarioError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteString(":" + strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Key + ": " + e.Msg)
	return b.String()
}

// Unwrap returns device.ErrParam.
func (e *ScenarioError) Unwrap() error { return device.ErrParam }

// linkKey reports whether path is a link's speed or delay
// (topology.host.delay, ...).
func linkKey(path string) bool {
	tier, key, ok := strings.Cut(strings.TrimPrefix(path, "topology."), ".")
	return ok && strings.HasPrefix(path, "topology.") && (tier == "host" || tier == "up" || tier == "core") && (key == "delay" || key == "speed")
}

// negativeOK are the numeric keys where a negative value means something.
var negativeOK = map[string]bool{
	"workload.receiver": true, // -1: a random receiver
}

// checkNodes rejects, anywhere in a parsed scenario, a number that is
// NaN, infinite or negative (except the keys of negativeOK), with its
// line. It covers the nested parameter blocks (pfc, bfc, transport, …)
// whose fields are not listed one by one in Validate.
func checkNodes(n *yaml.Node, path string) error {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if err := checkNodes(c, path); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if path != "" {
				k = path + "." + k
			}
			if err := checkNodes(n.Content[i+1], k); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if err := checkNodes(c, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		var f float64
		switch n.ShortTag() {
		case "!!float":
			if err := n.Decode(&f); err != nil {
				return nil // the typed decode reports it
			}
		case "!!int":
			if strings.HasPrefix(strings.TrimSpace(n.Value), "-") {
				f = -1
			}
		default:
			return nil
		}
		if f == 0 && n.ShortTag() == "!!int" && strings.Trim(n.Value, "+-0") == "" && linkKey(path) {
			// A link's 0 means "not given" to the topology, which takes
			// the default: say so rather than run with 1 µs.
			return &ScenarioError{Line: n.Line, Key: path, Msg: "0 would be taken as not given (the default: the tier below's value, 100 Gb/s and 1 µs for host): leave the key out, or give at least 1"}
		}
		switch {
		case math.IsNaN(f) || math.IsInf(f, 0):
			return &ScenarioError{Line: n.Line, Key: path, Msg: n.Value + " is not a finite number"}
		case math.Abs(f) >= 1<<63:
			// Beyond every key's range; and the YAML decoder turns such a
			// number into an integer that wrapped (2^64 as seed 2^63).
			return &ScenarioError{Line: n.Line, Key: path, Msg: n.Value + " is out of range"}
		case f < 0 && !negativeOK[path]:
			return &ScenarioError{Line: n.Line, Key: path, Msg: n.Value + " is negative"}
		}
	}
	return nil
}

// checkWhole rejects a fractional number where the scenario's field of
// type t holds a whole number, naming its line and key.
func checkWhole(n *yaml.Node, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if err := checkWhole(c, t, path); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		if t.Kind() != reflect.Struct {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			ft, ok := yamlField(t, k)
			if !ok {
				continue // the decoder names unknown keys
			}
			key := k
			if path != "" {
				key = path + "." + k
			}
			if err := checkWhole(n.Content[i+1], ft, key); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return nil
		}
		for i, c := range n.Content {
			if err := checkWhole(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			if n.ShortTag() != "!!float" {
				return nil
			}
			var f float64
			if n.Decode(&f) == nil && f != math.Trunc(f) {
				return &ScenarioError{Line: n.Line, Key: path, Msg: n.Value + " is not a whole number"}
			}
		}
	}
	return nil
}

// yamlField returns the type of struct t's field that YAML key k names
// (its yaml tag, or its lowercased name), looking into inlined fields.
func yamlField(t reflect.Type, k string) (reflect.Type, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			if ft, ok := yamlField(f.Type, k); ok {
				return ft, true
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		if name == k {
			return f.Type, true
		}
	}
	return nil, false
}

// Locate gives a *ScenarioError that names no file (one Run found, such
// as an incast degree beyond the fabric's hosts) the scenario file path
// and the line of its key there; other errors come back as they are.
func Locate(path string, err error) error {
	var root yaml.Node
	line := func(key string) int {
		if root.Kind == 0 {
			if data, rerr := os.ReadFile(path); rerr != nil || yaml.Unmarshal(data, &root) != nil {
				return 0
			}
		}
		return lineOf(&root, key)
	}
	switch e := err.(type) {
	case *ScenarioError:
		if e.File != "" {
			return err
		}
		c := *e
		c.File, c.Line = path, line(c.Key)
		return &c
	case *device.ParamError:
		// A parameter a model or the topology refused (transport cc,
		// topology kind, ecn kmax...): its key is scope.name or name.
		for _, k := range []string{e.Scope + "." + e.Name, e.Name} {
			if n := line(k); n > 0 {
				return fmt.Errorf("%s:%d: %w", path, n, err)
			}
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	return err
}

// lineOf returns the line of the value at a dotted key path, or 0.
func lineOf(n *yaml.Node, path string) int {
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, k := range strings.Split(path, ".") {
		if n.Kind != yaml.MappingNode {
			return 0
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		if next == nil {
			return 0
		}
		n = next
	}
	return n.Line
}

func rangeErr(key string, v any, allowed string) error {
	return &ScenarioError{Key: key, Msg: fmt.Sprintf("%v out of range (allowed %s)", v, allowed)}
}

func checkInt(key string, v, lo, hi int64, unit string) error {
	if v < lo || v > hi {
		return rangeErr(key, strconv.FormatInt(v, 10)+unit, fmt.Sprintf("%d..%d%s", lo, hi, unit))
	}
	return nil
}

func checkFrac(key string, v float64) error {
	if math.IsNaN(v) || v < 0 || v > 1 {
		return rangeErr(key, v, "0..1")
	}
	return nil
}

// Validate checks the scenario's own values (not those of the topology
// and the schemes, which Build and Setup check): NaN, infinite, negative
// or huge values are a *ScenarioError naming the key. Run calls it.
func (s *Scenario) Validate() error {
	w := &s.Workload
	for _, c := range []struct {
		key    string
		v      int64
		lo, hi int64
		unit   string
	}{
		{"drain", s.Drain, 0, MaxTime, " ns"},
		{"bins", int64(s.Bins), 0, MaxBins, ""},
		{"workload.duration", w.Duration, 0, MaxTime, " ns"},
		{"workload.sync", w.Sync, 0, MaxTime, " ns"},
		{"workload.incast_every", w.IncastEvery, 0, MaxTime, " ns"},
		{"workload.size", w.Size, 0, MaxSize, " octets"},
		{"workload.all_to_all_size", w.AllToAllSize, 0, MaxSize, " octets"},
		{"workload.degree", int64(w.Degree), 0, MaxFlows, ""},
		{"workload.incasts", int64(w.Incasts), 0, MaxFlows, ""},
		{"workload.qps", int64(w.QPs), 0, MaxFlows, ""},
		{"sfc.base_rtt", s.SFC.BaseRTT, 0, MaxTime, " ns"},
		{"pbfs.dc_rtt", s.PBFS.DCRTT, 0, MaxTime, " ns"},
		{"transport.base_rtt", s.Transport.BaseRTT, 0, MaxTime, " ns"},
		{"transport.rto_low", s.Transport.RTOLow, 0, MaxTime, " ns"},
		{"transport.rto_high", s.Transport.RTOHigh, 0, MaxTime, " ns"},
		{"transport.nak_interval", s.Transport.NAKInterval, 0, MaxTime, " ns"},
	} {
		if err := checkInt(c.key, c.v, c.lo, c.hi, c.unit); err != nil {
			return err
		}
	}
	if s.SampleEvery != 0 {
		if err := checkInt("sample_every", s.SampleEvery, MinSampleEvery, MaxTime, " ns"); err != nil {
			return err
		}
	}
	if w.Receiver != nil && *w.Receiver < -1 {
		return rangeErr("workload.receiver", *w.Receiver, "-1 (random) or a host index")
	}
	if err := checkFrac("workload.load", w.Load); err != nil {
		return err
	}
	if err := checkFrac("workload.incast_load", w.IncastLoad); err != nil {
		return err
	}
	// An incast's keys without its degree made no flow, silently.
	if w.Degree == 0 {
		for _, k := range []struct {
			key string
			set bool
		}{{"workload.incasts", w.Incasts > 0}, {"workload.incast_every", w.IncastEvery > 0}, {"workload.incast_load", w.IncastLoad > 0}, {"workload.sync", w.Sync > 0}, {"workload.qps", w.QPs > 0}} {
			if k.set {
				return &ScenarioError{Key: k.key, Msg: "an incast key without workload.degree (the senders per incast): no incast would be made"}
			}
		}
	}
	// Samples per switch: one per period from 0 to the last arrival plus
	// the drain (the defaults as Run sets them).
	every, drain := s.SampleEvery, s.Drain
	if every == 0 {
		every = 10 * device.Microsecond
	}
	if drain == 0 {
		drain = 100 * device.Millisecond
	}
	span := w.Duration + drain
	if w.Incasts > 1 {
		span = max(span, int64(w.Incasts-1)*w.IncastEvery+w.Sync+drain)
	}
	// The switches as the topology's keys count them (before the fabric
	// is built: a fat-tree of k 64 took seconds and most of a GB to
	// build before this check refused it); Run checks again once built.
	_, switches := s.Topology.size()
	if err := checkSamples(span, every, max(switches, 1)); err != nil {
		return err
	}
	if len(w.Flows) == 0 && w.FlowsFile == "" && w.Load > 0 {
		if w.CDF == "" {
			return &ScenarioError{Key: "workload.cdf", Msg: fmt.Sprintf("missing: workload.load %g needs a size distribution", w.Load)}
		}
		if _, err := LoadCDF(w.CDF); err != nil {
			return &ScenarioError{Key: "workload.cdf", Msg: err.Error()}
		}
	}
	if n := int64(max(w.Incasts, 1)) * int64(w.Degree) * int64(max(w.QPs, 1)); w.IncastLoad == 0 && n > MaxFlows {
		return &ScenarioError{Key: "workload.incasts", Msg: fmt.Sprintf("incasts × degree × qps = %d flows (at most %d)", n, MaxFlows)}
	}
	return nil
}

// checkSamples bounds the buffer samples a run takes over span ns from
// time 0 to the last arrival plus the drain: span/every per switch, and
// over all switches. Validate checks a generated workload's span per
// switch; Run checks again once the flows are known (flows files and
// inline flows, whose last start Validate cannot see) and the switches
// counted.
func checkSamples(span, every int64, switches int) error {
	per := span / every
	if per > MaxSamples {
		return &ScenarioError{Key: "sample_every", Msg: fmt.Sprintf("%d ns gives %d buffer samples per switch over %d ns of arrivals and drain (at most %d): a longer sample_every, or arrivals that end earlier", every, per, span, MaxSamples)}
	}
	if total := per * int64(switches); total > MaxTotalSamples {
		return &ScenarioError{Key: "sample_every", Msg: fmt.Sprintf("%d ns gives %d buffer samples over %d switches and %d ns of arrivals and drain (at most %d in all): a longer sample_every", every, total, switches, span, MaxTotalSamples)}
	}
	return nil
}

// checkFlowCount estimates the flows the workload would generate on a
// fabric of hosts hosts at bps and refuses more than MaxFlows, before
// generating them, naming the scenario key (Workload.Check, which
// Generate calls, bounds the same estimates for programs that generate a
// workload themselves).
func (s *Scenario) checkFlowCount(hosts int, bps int64) error {
	w := &s.Workload
	if len(w.Flows) > 0 || w.FlowsFile != "" || bps <= 0 {
		return nil
	}
	var est float64
	if w.Load > 0 {
		c, err := LoadCDF(w.CDF)
		if err != nil {
			return &ScenarioError{Key: "workload.cdf", Msg: err.Error()}
		}
		if m := c.Mean(); m > 0 {
			est += w.backgroundFlows(hosts, bps, m)
		}
		if est > MaxFlows {
			return &ScenarioError{Key: "workload.duration", Msg: fmt.Sprintf("about %.3g background flows at load %g over %d ns (at most %d)", est, w.Load, w.Duration, MaxFlows)}
		}
	}
	if w.Degree > 0 && w.IncastLoad > 0 && w.Size > 0 {
		est += w.incastLoadFlows(hosts, bps)
		if est > MaxFlows {
			return &ScenarioError{Key: "workload.incast_load", Msg: fmt.Sprintf("about %.3g flows over %d ns (at most %d)", est, w.Duration, MaxFlows)}
		}
	}
	if w.AllToAllSize > 0 && float64(hosts)*float64(hosts) > MaxFlows {
		return &ScenarioError{Key: "workload.all_to_all_size", Msg: fmt.Sprintf("%d hosts make %d all-to-all flows (at most %d)", hosts, hosts*hosts, MaxFlows)}
	}
	return nil
}

// InputFiles returns the files the scenario reads besides itself: a
// workload.cdf that is not a built-in name and workload.flows_file.
// Outputs are checked against them (atomicfile.CheckNotInput).
func (s *Scenario) InputFiles() []string {
	var in []string
	if c := s.Workload.CDF; c != "" {
		if _, ok := builtinCDF[strings.ToLower(c)]; !ok {
			in = append(in, c)
		}
	}
	if s.Workload.FlowsFile != "" {
		in = append(in, s.Workload.FlowsFile)
	}
	return in
}
