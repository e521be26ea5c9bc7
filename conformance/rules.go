// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/opensfc/sfc/device"
)

// Rule is one check of device mode (conformance.md "Device mode,
// normative", rule 10): a stable id that every deviation names, the
// normative rule of conformance.md it implements, the clause of
// behaviour.md, wire.md or the IEEE standard it enforces, its tolerance,
// and the kinds of fault the mutation suite (mutation_test.go) injects to
// show the check catches them. The registry (Rules) is the one place a
// rule is defined; `sfcdump conform rules` and docs/test-plan.md are
// rendered from it.
type Rule struct {
	// ID is stable across releases: reports, CI dashboards and waivers
	// name it.
	ID string `json:"id"`
	// Normative is the rule of conformance.md "Device mode, normative"
	// (1-10) the check implements.
	Normative int `json:"normative"`
	// Clause is what the check enforces: behaviour.md, wire.md or an IEEE
	// standard, section.
	Clause string `json:"clause"`
	// Tolerance names the tolerance in force and its default ("none" when
	// the check is exact).
	Tolerance string `json:"tolerance"`
	// Check says in one sentence what passes.
	Check string `json:"check"`
	// Inconclusive marks the rules whose failure makes a vector
	// INCONCLUSIVE rather than FAIL (conformance.md rule 9).
	Inconclusive bool `json:"inconclusive,omitempty"`
	// Mutations are the kinds of fault the mutation suite injects that
	// this rule must catch (mutation_test.go implements each by name).
	Mutations []string `json:"mutations"`

	family string // applicability, see appliesTo
}

// The mutation kinds of the mutation suite, as Rule.Mutations name them.
const (
	MutValuePlus   = "value+1"       // a time-varying or counted value one unit up
	MutValueMinus  = "value-1"       // one unit down
	MutValueZero   = "value-zero"    // a non-zero value sent as 0 (crossing a pause/resume boundary)
	MutDropFirst   = "drop-first"    // the first signal of its kind dropped
	MutDropLast    = "drop-last"     // the last one dropped
	MutDropEach    = "drop-each"     // each one dropped in turn
	MutDuplicate   = "duplicate"     // a signal sent twice
	MutSwapPorts   = "swap-port"     // a signal sent on another port
	MutLate        = "late"          // shifted later by the time tolerance + 1 ns
	MutEarly       = "early"         // shifted earlier by the early tolerance + 1 ns
	MutField       = "field"         // each non-exempt field changed in turn
	MutSeq         = "seq"           // a BFC sequence number repeated or skipped
	MutCaptureCut  = "capture-cut"   // the capture cut before the reference's last signal, or its file cut mid-frame
	MutCaptureDrop = "capture-drops" // the pcapng counts frames its capture dropped
	MutDataDrop    = "data-drop"     // a data frame dropped
	MutDataDup     = "data-dup"      // a data frame duplicated
	MutDataReorder = "data-reorder"  // two frames of a flow swapped
	MutDataAlter   = "data-alter"    // a data frame's payload altered
	MutDataExtra   = "data-extra"    // a copy of a scenario flow's frame on another port
	MutICRC        = "icrc"          // an ICRC broken
	MutBeforeT0    = "before-t0"     // a signal sent before time 0, earlier than the tolerance
	MutPortSilent  = "port-silent"   // every frame of a port removed
	MutSuppress    = "suppress"      // a second signal within a reset period
	MutCreditExtra = "credit-excess" // credits above the octets received
	MutSpurious    = "spurious"      // an 802.3x PAUSE from a switch whose reference sends PFC frames only
	MutOffScheme   = "off-scheme"    // a signal of a scheme the case leaves off (PFC or PAUSE from a switch without PFC)
)

// RuleSignalOff is the id of the rule that a signal frame of a scheme the
// case leaves off breaks (a PAUSE from an SFC-only switch).
const RuleSignalOff = "SIGNAL-OFF"

// Families of rules: which schemes a rule applies to.
const (
	famBTS   = "bts"
	famCIM   = "cim"
	famPFC   = "pfc"
	famPause = "pause"
	famBFC   = "bfc"
	famFG    = "fg"
	famFGSw  = "fg-switch"
	famPBFS  = "pbfs"
	famGen   = "gen"
	famData  = "data"
	famCap   = "capture"
	famOff   = "off" // every vector: signals of the schemes it leaves off
)

const (
	tolTime  = "late ≤ tolerances.time (default 1us), early ≤ tolerances.early (default 500ns)"
	tolNone  = "none (IPv4 identification any; checksums and ICRC valid, not equal; mask: fields exempt)"
	tolPause = "a value the reference produces within the time window; tolerances.pause widens (default 0); never across pause/resume"
	tolExact = "none (exact)"
)

func sigRules(prefix, fam, proto, clause, wire string) []Rule {
	return []Rule{
		{ID: prefix + "-FIELDS", Normative: 3, family: fam, Clause: clause + "; " + wire, Tolerance: tolNone,
			Check:     "every field of every " + proto + " from the Ethernet header to the last octet equals the reference's (addresses, DSCP, TTL, ports, version, flags, reserved octets, reporter, congestion port and queue, C flag, origin, quote, VLAN)",
			Mutations: []string{MutField}},
		{ID: prefix + "-PAUSE", Normative: 4, family: fam, Clause: clause + " step 4 (pause time)", Tolerance: tolPause,
			Check:     "the pause time is one the reference gives the flow at some instant within the time window; 0 (resume) where the reference pauses is never accepted",
			Mutations: []string{MutValuePlus, MutValueMinus, MutValueZero}},
		{ID: prefix + "-FIRST", Normative: 5, family: fam, Clause: clause + " step 3", Tolerance: tolTime,
			Check:     "the first " + proto + " the reference sends to each flow (every sender under incast) is matched by one device signal; no depth slack",
			Mutations: []string{MutDropFirst}},
		{ID: prefix + "-COMPLETE", Normative: 5, family: fam, Clause: clause + " step 3 and the suppression filter", Tolerance: tolTime + "; a device's filter may use another phase: a flow it signalled in its own reset period counts",
			Check:     "every later decision of the reference to signal a flow is met by a device signal for that flow in the same reset period (any phase)",
			Mutations: []string{MutDropLast, MutDropEach}},
		{ID: prefix + "-SUPPRESS", Normative: 7, family: fam, Clause: clause + " suppression filter", Tolerance: "one filter-clearing phase for all flows (any phase); tolerances.jitter (default 0)",
			Check:     "a flow is signalled at most once per reset period",
			Mutations: []string{MutSuppress}},
		{ID: prefix + "-TIMING", Normative: 6, family: fam, Clause: clause + " step 4 (leaves at t_e)", Tolerance: tolTime,
			Check:     "a matched signal is late by at most tolerances.time and early by at most tolerances.early (one deviation `late by X` or `early by X`)",
			Mutations: []string{MutLate, MutEarly}},
		{ID: prefix + "-JUSTIFIED", Normative: 7, family: fam, Clause: clause + " step 3", Tolerance: tolTime,
			Check:     "every device " + proto + " matches a reference decision for its flow (sent or suppressed); duplicates, spurious flows, wrong ports and signals before time 0 are unjustified",
			Mutations: []string{MutDuplicate, MutSwapPorts, MutBeforeT0}},
	}
}

func pauseRules(prefix, fam, proto, clause, wire string) []Rule {
	return []Rule{
		{ID: prefix + "-FIELDS", Normative: 3, family: fam, Clause: clause + "; " + wire, Tolerance: tolNone,
			Check:     "every field of every " + proto + " frame equals the reference's: destination 01:80:c2:00:00:01, the egress port's MAC, EtherType, opcode, class-enable vector (classes not paused included), times of classes not enabled, padding",
			Mutations: []string{MutField}},
		{ID: prefix + "-XOFF", Normative: 5, family: fam, Clause: clause + " XOFF and refresh", Tolerance: tolTime,
			Check:     "every XOFF (and refresh) the reference sends is matched by one device frame for that port and priority",
			Mutations: []string{MutDropFirst, MutDropEach, MutValueZero}},
		{ID: prefix + "-XON", Normative: 5, family: fam, Clause: clause + " XON (time 0)", Tolerance: tolTime,
			Check:     "every XON the reference sends is matched by one device XON (an XOFF is never accepted for an XON, nor the reverse)",
			Mutations: []string{MutDropLast}},
		{ID: prefix + "-QUANTA", Normative: 4, family: fam, Clause: clause + " time[p] = pause quanta", Tolerance: "exact for configured quanta (rule 3); tolerances.pause widens SFC-P's, derived from a BTS pause (rule 4; converted at the port's speed)",
			Check:     "the pause quanta equal the reference's",
			Mutations: []string{MutValuePlus, MutValueMinus}},
		{ID: prefix + "-TIMING", Normative: 6, family: fam, Clause: clause, Tolerance: tolTime,
			Check:     "a matched frame is late by at most tolerances.time (one deviation `late by X`)",
			Mutations: []string{MutLate}},
		{ID: prefix + "-JUSTIFIED", Normative: 7, family: fam, Clause: clause, Tolerance: tolTime,
			Check:     "every device " + proto + " frame matches one the reference sends for that port and priority; one earlier than tolerances.early cannot be told from a spurious one",
			Mutations: justifiedMutations(prefix)},
	}
}

// justifiedMutations are the mutations a -JUSTIFIED rule of pauseRules
// must catch: PAUSE's also a PAUSE where the reference sends only PFC.
func justifiedMutations(prefix string) []string {
	m := []string{MutDuplicate, MutSwapPorts, MutBeforeT0, MutEarly}
	if prefix == "PAUSE" {
		m = append(m, MutSpurious)
	}
	return m
}

// Rules is the registry of device mode's checks, in report order.
var Rules = buildRules()

func buildRules() []Rule {
	var rs []Rule
	rs = append(rs, sigRules("SFC-BTS", famBTS, "BTS", "behaviour.md §1", "wire.md §5")...)
	rs = append(rs, Rule{ID: "SFC-BTS-DEPTH", Normative: 4, family: famBTS, Clause: "behaviour.md §1 step 4 (queue depth = qd_e); wire.md §5 offset 12",
		Tolerance: "a depth the reference reports for the flow within the time window; tolerances.queue_depth widens (default 0)",
		Check:     "the queue depth field is one the reference gives the flow at some instant within the time window",
		Mutations: []string{MutValuePlus, MutValueMinus, MutValueZero}})
	rs = append(rs, sigRules("SFC-CIM", famCIM, "CIM", "behaviour.md §5 (where §1 sends a BTS)", "wire.md §4; IEEE 802.1Qcz")...)
	rs = append(rs, pauseRules("PFC", famPFC, "PFC", "behaviour.md §4", "wire.md §2; IEEE 802.1Qbb")...)
	rs = append(rs, pauseRules("PAUSE", famPause, "PAUSE", "behaviour.md §4 (PAUSE)", "wire.md §1; IEEE 802.3 Annex 31B")...)
	rs = append(rs,
		Rule{ID: "BFC-FIELDS", Normative: 3, family: famBFC, Clause: "behaviour.md §6; wire.md §7.1", Tolerance: tolNone,
			Check: "every field of a BFC pause frame but the filter and sequence equals the reference's (addresses, EtherType, magic, subtype, version, k, L, padding)", Mutations: []string{MutField}},
		Rule{ID: "BFC-FILTER", Normative: 4, family: famBFC, Clause: "behaviour.md §6 pause and resume rules", Tolerance: "exact: the filter of the reference frame the device frame is paired with (by time, within the time window); each bit is a pause or a resume, never accepted across that boundary",
			Check: "the filter bits equal those of the reference frame on that port the device frame stands for (counts are exact)", Mutations: []string{MutValuePlus, MutValueZero}},
		Rule{ID: "BFC-SEQ", Normative: 4, family: famBFC, Clause: "wire.md §7.1 sequence", Tolerance: tolExact,
			Check: "the sequence of the frames on a link counts up by one", Mutations: []string{MutSeq}},
		Rule{ID: "BFC-COMPLETE", Normative: 5, family: famBFC, Clause: "behaviour.md §6 every τ", Tolerance: tolTime,
			Check: "every BFC pause frame the reference sends is matched by one device frame on that port", Mutations: []string{MutDropFirst, MutDropEach}},
		Rule{ID: "BFC-TIMING", Normative: 6, family: famBFC, Clause: "behaviour.md §6 every τ", Tolerance: tolTime,
			Check: "a matched frame is late by at most tolerances.time (one deviation `late by X`)", Mutations: []string{MutLate}},
		Rule{ID: "BFC-JUSTIFIED", Normative: 7, family: famBFC, Clause: "behaviour.md §6", Tolerance: tolTime,
			Check: "every device BFC frame matches one the reference sends on that port (all-zero frames once idle excepted); one earlier than tolerances.early is unjustified", Mutations: []string{MutDuplicate, MutSwapPorts, MutEarly}},
		Rule{ID: "FG-CREDIT", Normative: 4, family: famFGSw, Clause: "behaviour.md §7 downstream role; wire.md §7.2", Tolerance: tolExact,
			Check: "every credit frame matches one of the reference's on that port within the time window, entry for entry (counts are exact); none is missing", Mutations: []string{MutValuePlus, MutValueMinus, MutValueZero, MutDropEach}},
		Rule{ID: "FG-CREDIT-BOUND", Normative: 8, family: famFGSw, Clause: "behaviour.md §7 (credits count octets received)", Tolerance: tolExact,
			Check: "the credits returned on a port for a destination never exceed the data octets received there for it", Mutations: []string{MutCreditExtra}},
		Rule{ID: "FG-FIELDS", Normative: 3, family: famFG, Clause: "behaviour.md §7; wire.md §7.2, §7.3", Tolerance: tolNone,
			Check: "every field of a Floodgate frame but the count and entries (FG-CREDIT, FG-PAUSE, FG-PAUSE-TIME) equals the reference's (addresses, EtherType, magic, subtype, version, family, reserved octets (the header's and each dst-pause entry's), padding to the last octet)", Mutations: []string{MutField}},
		Rule{ID: "FG-PAUSE", Normative: 5, family: famFG, Clause: "behaviour.md §7 dst-pause", Tolerance: tolTime,
			Check: "every dst-pause the reference sends (pause ≠ 0) is matched by one device entry for that port and destination", Mutations: []string{MutDropFirst, MutValueZero}},
		Rule{ID: "FG-RESUME", Normative: 5, family: famFG, Clause: "behaviour.md §7 dst-pause resume (pause 0)", Tolerance: tolTime,
			Check: "every dst-pause resume the reference sends is matched by one device resume", Mutations: []string{MutDropLast}},
		Rule{ID: "FG-PAUSE-TIME", Normative: 4, family: famFG, Clause: "behaviour.md §7 dst-pause (pause 0xFFFF)", Tolerance: "exact; tolerances.pause widens",
			Check: "the dst-pause time equals the reference's", Mutations: []string{MutValueMinus}},
		Rule{ID: "FG-TIMING", Normative: 6, family: famFG, Clause: "behaviour.md §7", Tolerance: tolTime,
			Check: "a matched Floodgate frame is late by at most tolerances.time (one deviation `late by X`)", Mutations: []string{MutLate}},
		Rule{ID: "FG-JUSTIFIED", Normative: 7, family: famFG, Clause: "behaviour.md §7", Tolerance: tolTime,
			Check: "every device dst-pause entry or credit frame matches one the reference sends; one earlier than tolerances.early is unjustified", Mutations: []string{MutDuplicate, MutSwapPorts, MutEarly}},
		Rule{ID: "PBFS-FIELDS", Normative: 3, family: famPBFS, Clause: "behaviour.md §8; wire.md §6", Tolerance: tolNone,
			Check: "every field of a CC-postcard but the assessed octets equals the reference's (addresses, DSCP, ports, version, port, switch id, rate, window, quote)", Mutations: []string{MutField}},
		Rule{ID: "PBFS-COUNTS", Normative: 4, family: famPBFS, Clause: "behaviour.md §8 assessment", Tolerance: "exact; tolerances.queue_depth widens (default 0)",
			Check: "the assessed octets (I_p, Q^1, recent, recent marked) equal the reference's", Mutations: []string{MutValuePlus, MutValueMinus, MutValueZero}},
		Rule{ID: "PBFS-COMPLETE", Normative: 5, family: famPBFS, Clause: "behaviour.md §8", Tolerance: tolTime,
			Check: "every CC-postcard the reference sends is matched by one device postcard for that flow", Mutations: []string{MutDropFirst, MutDropLast, MutDropEach}},
		Rule{ID: "PBFS-TIMING", Normative: 6, family: famPBFS, Clause: "behaviour.md §8", Tolerance: tolTime,
			Check: "a matched postcard is late by at most tolerances.time (one deviation `late by X`)", Mutations: []string{MutLate}},
		Rule{ID: "PBFS-JUSTIFIED", Normative: 7, family: famPBFS, Clause: "behaviour.md §8", Tolerance: tolTime,
			Check: "every device postcard matches one the reference sends for that flow; one earlier than tolerances.early is unjustified", Mutations: []string{MutDuplicate, MutSwapPorts, MutEarly}},
		Rule{ID: "GEN-FIELDS", Normative: 3, family: famGen, Clause: "behaviour.md (the scheme that generates it)", Tolerance: tolNone,
			Check: "every field of another generated frame equals the reference's", Mutations: []string{MutField}},
		Rule{ID: "GEN-COMPLETE", Normative: 5, family: famGen, Clause: "behaviour.md", Tolerance: tolTime,
			Check: "every other frame the reference generates is matched by one device frame", Mutations: []string{MutDropEach}},
		Rule{ID: "GEN-TIMING", Normative: 6, family: famGen, Clause: "behaviour.md", Tolerance: tolTime,
			Check: "a matched generated frame is late by at most tolerances.time (one deviation `late by X`)", Mutations: []string{MutLate}},
		Rule{ID: "GEN-JUSTIFIED", Normative: 7, family: famGen, Clause: "behaviour.md", Tolerance: tolTime,
			Check: "every other generated device frame matches one the reference sends; one earlier than tolerances.early is unjustified", Mutations: []string{MutDuplicate, MutEarly}},
		Rule{ID: ruleSignalOff, Normative: 7, family: famOff, Clause: "conformance.md rules 2 and 7 (signals of the schemes under test); behaviour.md of the scheme the case leaves off", Tolerance: "none; an ignore: filter (vector or --ignore) names the frames a vendor accepts",
			Check: "the device sends no signal frame of a scheme the case does not enable (a PFC or PAUSE from a switch without PFC or SFC-P, a BTS or CIM without SFC, a BFC, Floodgate or CC-postcard frame without its scheme): each is unjustified, not background", Mutations: []string{MutOffScheme}},
		Rule{ID: "DATA-LOSS", Normative: 8, family: famData, Clause: "behaviour.md §0 (forwarding); §4 lossless", Tolerance: "tolerances.window (default 100us)",
			Check: "no data frame of a scenario flow the reference forwards is dropped", Mutations: []string{MutDataDrop}},
		Rule{ID: "DATA-DUP", Normative: 8, family: famData, Clause: "behaviour.md §0", Tolerance: tolExact,
			Check: "no data frame is duplicated, nor any frame the reference forwards or delivers (a CIM a NIC hands its host, a signal a switch forwards): a second copy of any of the last 16 frames matched on its port and flow, within the window, is one DATA-DUP, never background nor an alteration of the flow's next frame", Mutations: []string{MutDataDup}},
		Rule{ID: "DATA-ORDER", Normative: 8, family: famData, Clause: "behaviour.md §0 (FIFO per queue)", Tolerance: tolExact,
			Check: "no flow's frames are reordered on a port", Mutations: []string{MutDataReorder}},
		Rule{ID: "DATA-ALTERED", Normative: 8, family: famData, Clause: "behaviour.md §0", Tolerance: "TTL, ECN and MACs where the case declares them volatile",
			Check: "no data frame is altered (the differing fields are named)", Mutations: []string{MutDataAlter}},
		Rule{ID: "DATA-EXTRA", Normative: 7, family: famData, Clause: "behaviour.md §0 (forwarding table)", Tolerance: tolExact,
			Check: "no frame of a scenario flow leaves a port the reference does not send it on", Mutations: []string{MutDataExtra}},
		Rule{ID: "DATA-TIMING", Normative: 6, family: famData, Clause: "behaviour.md §0", Tolerance: "late ≤ tolerances.time (default 1us), early ≤ tolerances.early (default 500ns)",
			Check: "a data frame leaves within the time tolerances of the reference", Mutations: []string{MutLate, MutEarly}},
		Rule{ID: "DATA-ICRC", Normative: 3, family: famData, Clause: "wire.md §3.3; IBTA Annex A17", Tolerance: "valid, not equal",
			Check: "the RoCEv2 ICRC of every frame the device sends verifies", Mutations: []string{MutICRC}},
		Rule{ID: "CAP-END", Normative: 9, family: famCap, Clause: "conformance.md rule 9", Tolerance: "tolerances.time", Inconclusive: true,
			Check: "the device capture runs to the reference's last signal plus the time tolerance, and its file is whole (else INCONCLUSIVE)", Mutations: []string{MutCaptureCut}},
		Rule{ID: "CAP-DROPS", Normative: 9, family: famCap, Clause: "conformance.md rule 9; pcapng isb_ifdrop, isb_osdrop, epb_dropcount", Tolerance: tolExact, Inconclusive: true,
			Check: "neither capture says it dropped frames (else INCONCLUSIVE)", Mutations: []string{MutCaptureDrop}},
		Rule{ID: "CAP-PORTS", Normative: 9, family: famCap, Clause: "conformance.md rule 9", Tolerance: tolExact, Inconclusive: true,
			Check: "every port the reference sends on carries frames in the device capture (else INCONCLUSIVE)", Mutations: []string{MutPortSilent}},
	)
	return rs
}

var ruleByID = func() map[string]*Rule {
	m := map[string]*Rule{}
	for i := range Rules {
		if m[Rules[i].ID] != nil {
			panic("conformance: rule " + Rules[i].ID + " defined twice")
		}
		m[Rules[i].ID] = &Rules[i]
	}
	return m
}()

// LookupRule returns the rule with id, or nil.
func LookupRule(id string) *Rule { return ruleByID[id] }

// isDataRule reports whether id is one of rule 8's checks of forwarded
// frames (family DATA), which masks do not reach.
func isDataRule(id string) bool {
	r := ruleByID[id]
	return r != nil && r.family == famData
}

// explainedByDrops reports whether deviation d could come from frames
// the device capture dropped rather than from the device (conformance.md
// rule 9): a frame missing, a sequence gap, and what is judged against
// the reference frame a signal is paired with by time or flow (timing,
// values, counts), since a dropped frame shifts the pairing. What drops
// cannot explain is a frame present and wrong in itself (-FIELDS,
// DATA-ALTERED, DATA-ICRC), one that should not exist (-JUSTIFIED,
// -SUPPRESS, DATA-EXTRA, DATA-DUP), frames out of order or late though
// matched by their octets (DATA-ORDER, DATA-TIMING), credits beyond the
// data received (FG-CREDIT-BOUND), a stale or repeated BFC sequence, a
// signal's or postcard's timing, pause, depth or counts when it is paired
// with the reference's by the packet it quotes (d.definite), and the
// capture's own rules (CAP-). A capture that says
// it dropped frames on a port makes the first kind INCONCLUSIVE there;
// the second still FAILs.
func explainedByDrops(d *Deviation) bool {
	id := d.Check
	switch {
	case d.definite, strings.HasPrefix(id, "CAP-"), strings.HasSuffix(id, "-FIELDS"), strings.HasSuffix(id, "-JUSTIFIED"), strings.HasSuffix(id, "-SUPPRESS"), id == ruleSignalOff:
		return false
	}
	switch id {
	case ruleDataAltered, ruleDataICRC, ruleDataExtra, ruleDataDup, ruleDataOrder, ruleDataTiming, "FG-CREDIT-BOUND":
		return false
	}
	return true
}

// appliesTo reports whether the rule is checked for the case.
func (r *Rule) appliesTo(c *Case, m *Model) bool {
	sw := c.Role == device.RoleSwitch
	switch r.family {
	case famBTS:
		return m.SFC != nil && !c.Has(SchemeCIM)
	case famCIM:
		return m.SFC != nil && c.Has(SchemeCIM)
	case famPFC:
		return c.Has(SchemePFC) || c.Has(SchemeSFCP)
	case famPause:
		// SFC-P's signals are MAC Control frames too: a PAUSE where it
		// sends PFC stops every class (PAUSE-JUSTIFIED).
		return c.Has(SchemePFC) || c.Has(SchemeSFCP)
	case famBFC:
		return c.Has(SchemeBFC) && sw
	case famFG:
		return c.Has(SchemeFloodgate) && sw
	case famFGSw:
		return c.Has(SchemeFloodgate) && sw
	case famPBFS:
		return c.Has(SchemePBFS) && sw
	}
	return true
}

// rulesFor lists the rules a case is checked against, in registry order.
func rulesFor(c *Case, m *Model) []*Rule {
	var out []*Rule
	for i := range Rules {
		if Rules[i].appliesTo(c, m) {
			out = append(out, &Rules[i])
		}
	}
	return out
}

// RuleVectors maps each rule id to the vectors (paths relative to the
// corpus directory) whose reference output the rule checks at least one
// frame of: the vectors that exercise it. It runs device mode on every
// vector under corpus with the vector's expected output as the device
// capture.
func RuleVectors(corpus string, dirs []string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, d := range dirs {
		rep, err := CheckFiles(d+"/"+CaseFile, d+"/"+InputFile, d+"/"+ExpectedFile, Options{Sequential: true})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d, err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(d, corpus), "/")
		for _, c := range rep.Checks {
			if c.Checked > 0 {
				out[c.Name] = append(out[c.Name], rel)
			}
		}
	}
	for _, v := range out {
		sort.Strings(v)
	}
	return out, nil
}

// WriteTestPlan writes the test plan (docs/test-plan.md): every rule with
// its clause, tolerance, check, the vectors that exercise it and the
// mutations that must fail it. vectors comes from RuleVectors.
func WriteTestPlan(w io.Writer, vectors map[string][]string) error {
	var b strings.Builder
	b.WriteString(`# Device-mode test plan

<!-- Generated by ` + "`go run ./conformance/testplan`" + ` from conformance/rules.go; do not edit.
     TestTestPlanUpToDate fails when this file and the code differ. -->

Every check of ` + "`sfcdump conform check`" + ` (device mode, conformance.md "Device mode,
normative") has a stable rule id; every deviation in a report names it. For each rule: the
normative rule of conformance.md it implements (1-10), the clause of behaviour.md, wire.md or the
IEEE standard it enforces, its tolerance, what passes, the corpus vectors that exercise it (device
mode run on the vector's own expected output checks at least one frame under the rule) and the
faults the mutation suite (conformance/mutation_test.go, part of ` + "`go test ./...`" + `) injects that
must fail it. A rule marked INCONCLUSIVE makes the vector INCONCLUSIVE (exit 3), not FAIL.

The same list: ` + "`sfcdump conform rules`" + ` (` + "`-T json`" + ` for programs).

`)
	fmt.Fprintf(&b, "| id | rule | clause | tolerance | check | vectors | mutations |\n|---|---|---|---|---|---|---|\n")
	for _, r := range Rules {
		check := r.Check
		if r.Inconclusive {
			check = "INCONCLUSIVE: " + check
		}
		vs := strings.Join(vectors[r.ID], ", ")
		if vs == "" {
			vs = "(none in the corpus yet)"
		}
		fmt.Fprintf(&b, "| `%s` | %d | %s | %s | %s | %s | %s |\n", r.ID, r.Normative, md(r.Clause), md(r.Tolerance), md(check), vs, strings.Join(r.Mutations, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func md(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// TestPlan writes the test plan for the vectors under corpus (every
// directory holding a case.yaml), in their sorted order.
func TestPlan(w io.Writer, corpus string) error {
	var dirs []string
	err := filepath.WalkDir(corpus, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == CaseFile {
			dirs = append(dirs, filepath.ToSlash(filepath.Dir(p)))
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(dirs)
	vectors, err := RuleVectors(filepath.ToSlash(corpus), dirs)
	if err != nil {
		return err
	}
	return WriteTestPlan(w, vectors)
}
