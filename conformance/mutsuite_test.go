// SPDX-License-Identifier: Apache-2.0

package conformance_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/opensfc/sfc/bts"
	"github.com/opensfc/sfc/cim"
	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
)

// The mutation suite of device mode (issue 17 item 5): for every corpus
// vector, the reference's own output is perturbed as a faulty device
// would (each kind of conformance.Rule.Mutations) and must FAIL naming the
// rule, and perturbed as a correct device may (in-tolerance shifts,
// background frames, frames before time 0, interfaces out of step,
// ignored and masked fields) and must PASS. The kill rate per rule is
// logged (go test -v -run TestMutationSuite); it must be 100 % with no
// false alarm.

const (
	mTol   = 1000 * time.Nanosecond // tolerances.time default
	mEarly = 500 * time.Nanosecond  // tolerances.early default
)

// sigFam is the family of a frame of an expected capture.
type sigFam string

const (
	famSFC      sigFam = "sfc"
	famPFC      sigFam = "pfc"
	famPAUSE    sigFam = "pause"
	famBFC      sigFam = "bfc"
	famCredit   sigFam = "credit"
	famDstPause sigFam = "dstpause"
	famPostcard sigFam = "postcard"
	famData     sigFam = "data"
	famNone     sigFam = ""
)

type vecInfo struct {
	dir      string
	c        *conformance.Case
	in, exp  *capture
	fam      []sigFam // per expected frame
	prefix   string   // SFC-BTS or SFC-CIM
	fires    []conformance.Firing
	hasFires bool
}

func famOf(v *vecInfo, f capFrame) sigFam {
	m := meta(f.data)
	switch m.Kind {
	case device.KindBTS, device.KindCIM:
		if !v.c.Has(conformance.SchemeSFC) && !v.c.Has(conformance.SchemeSFCCache) && !v.c.Has(conformance.SchemeCIM) || v.c.Role == device.RoleNIC {
			return famNone
		}
		if forwarded(v, f) {
			return famNone
		}
		return famSFC
	case device.KindPFC:
		return famPFC
	case device.KindPause:
		return famPAUSE
	case device.KindPostcard:
		if v.c.Role == device.RoleNIC {
			return famNone
		}
		return famPostcard
	case device.KindExperimental:
		if v.c.Role == device.RoleNIC {
			return famNone
		}
		switch f.data[m.L3+2] {
		case layers.SubtypeBFC:
			return famBFC
		case layers.SubtypeFGCredit:
			return famCredit
		case layers.SubtypeFGPause:
			return famDstPause
		}
	case device.KindData:
		return famData
	}
	return famNone
}

// forwarded reports whether a signal of an expected capture is one the
// device forwards (it entered the device too), not one it generated.
func forwarded(v *vecInfo, f capFrame) bool {
	m := meta(f.data)
	ip := m.IPPacket(f.data)
	if ip == nil {
		return false
	}
	key := func(b []byte) string {
		x := append([]byte(nil), b...)
		if len(x) >= 20 && x[0]>>4 == 4 {
			x[8], x[10], x[11] = 0, 0, 0
		}
		return string(x)
	}
	k := key(ip)
	for _, in := range v.in.frames {
		im := meta(in.data)
		if ip2 := im.IPPacket(in.data); ip2 != nil && len(ip2) == len(ip) && key(ip2) == k {
			return true
		}
	}
	return false
}

func loadVec(t *testing.T, dir string) *vecInfo {
	t.Helper()
	cv := loadCov(t, dir)
	c := cv.c
	v := &vecInfo{dir: dir, c: c, in: cv.in, exp: cv.exp}
	v.prefix = "SFC-BTS"
	if c.Has(conformance.SchemeCIM) {
		v.prefix = "SFC-CIM"
	}
	for _, f := range v.exp.frames {
		v.fam = append(v.fam, famOf(v, f))
	}
	if c.Role == device.RoleSwitch && (c.Has(conformance.SchemeSFC) || c.Has(conformance.SchemeSFCCache) || c.Has(conformance.SchemeCIM)) {
		v.hasFires = true
		if err := conformance.Decisions(c, filepath.Join(dir, conformance.InputFile), 0, func(f conformance.Firing) { v.fires = append(v.fires, f) }); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

func (c *capture) clone() *capture {
	n := &capture{names: c.names}
	for _, f := range c.frames {
		n.frames = append(n.frames, capFrame{f.iface, f.t, append([]byte(nil), f.data...)})
	}
	return n
}

// withEnd adds an LLDP frame on every interface 1 ms after the last
// frame: the capture evidently covers the test and every port (a real
// capture runs on).
func withEnd(c *capture) {
	last := c.frames[len(c.frames)-1].t
	for i := range c.names {
		c.frames = append(c.frames, capFrame{i, last.Add(time.Millisecond), lldpFrame()})
	}
}

// mutation is one perturbation of a vector's expected output: the rule it
// must fail ("" for must pass), how, and options for the check.
type mutation struct {
	rule, kind, what string
	dev              *capture
	opt              conformance.Options
	unsorted         bool
	post             func(t *testing.T, path string) // changes the written file
}

// pauseVal reads the value rule 4 checks of a BTS or CIM: pause time, and
// the queue depth of a queue-origin BTS (-1 otherwise).
func sfcVals(b []byte) (bts.Signal, bool) {
	m := meta(b)
	if m.Kind == device.KindBTS {
		s, err := bts.Decode(b, 0)
		return s, err == nil
	}
	s, err := cim.ToSignal(b, 0)
	return s, err == nil
}

// refValues lists the pause times and depths the reference gives the
// congestion port within the time window of a signal at t (rule 4): the
// oracle that says whether a changed value is a fault at all.
func (v *vecInfo) refValues(t time.Time, cp int) (pauses map[uint16]bool, depths map[int64]bool) {
	pauses, depths = map[uint16]bool{}, map[int64]bool{}
	mt := t.Sub(v.epoch()).Nanoseconds()
	lo, hi := mt-int64(mTol)-int64(2*mTol), mt+int64(mEarly)+int64(2*mTol)
	for _, f := range v.fires {
		if f.Time >= lo && f.Time <= hi && (f.OutPort == cp || cp == int(layers.CPPortUnknown) || v.prefix == "SFC-CIM") {
			pauses[f.PauseUS], depths[f.Depth] = true, true
		}
	}
	for i, f := range v.exp.frames {
		if v.fam[i] != famSFC {
			continue
		}
		d := f.t.Sub(t)
		if d < -3*mTol || d > 3*mTol {
			continue
		}
		if s, ok := sfcVals(f.data); ok {
			pauses[s.PauseUS], depths[int64(s.QueueDepth)] = true, true
		}
	}
	return pauses, depths
}

// idx lists the expected frames of a family.
func (v *vecInfo) idx(f sigFam) []int {
	var out []int
	for i, x := range v.fam {
		if x == f {
			out = append(out, i)
		}
	}
	return out
}

// sample keeps at most n of v, spread evenly, always the first and last.
func sample(v []int, n int) []int {
	if len(v) <= n {
		return v
	}
	out := []int{}
	for i := 0; i < n; i++ {
		out = append(out, v[i*(len(v)-1)/(n-1)])
	}
	return slices.Compact(out)
}

// isolated reports whether no other frame of frame i's family is on its
// interface within before ahead of it or after behind it (so that a shift
// cannot be mistaken for a neighbour's time).
func (v *vecInfo) isolated(i int, before, after time.Duration) bool {
	f := v.exp.frames[i]
	for j, g := range v.exp.frames {
		if j == i || v.fam[j] != v.fam[i] || g.iface != f.iface {
			continue
		}
		if d := g.t.Sub(f.t); d >= 0 && d < after || d <= 0 && -d < before {
			return false
		}
	}
	return true
}

func famPrefix(v *vecInfo, f sigFam) string {
	switch f {
	case famSFC:
		return v.prefix
	case famPFC:
		return "PFC"
	case famPAUSE:
		return "PAUSE"
	case famBFC:
		return "BFC"
	case famCredit, famDstPause:
		return "FG"
	case famPostcard:
		return "PBFS"
	}
	return "DATA"
}

// pauseTimes returns a PFC or PAUSE frame's (offset, value) of each
// enabled class.
func pauseTimes(b []byte) [][2]int {
	m := meta(b)
	if m.Kind == device.KindPause {
		return [][2]int{{m.L3 + 2, int(binary.BigEndian.Uint16(b[m.L3+2:]))}}
	}
	en := binary.BigEndian.Uint16(b[m.L3+2:])
	var out [][2]int
	for c := 0; c < 8; c++ {
		if en&(1<<c) != 0 {
			o := m.L3 + 4 + 2*c
			out = append(out, [2]int{o, int(binary.BigEndian.Uint16(b[o:]))})
		}
	}
	return out
}

// completeRule names the rule a dropped frame i must fail.
func (v *vecInfo) completeRule(i int) string {
	f := v.exp.frames[i]
	switch v.fam[i] {
	case famSFC:
		s, _ := sfcVals(f.data)
		key := s.FlowKey().FiveTuple()
		for j := 0; j < i; j++ {
			if v.fam[j] == famSFC {
				if s2, ok := sfcVals(v.exp.frames[j].data); ok && s2.FlowKey().FiveTuple() == key {
					return v.prefix + "-COMPLETE"
				}
			}
		}
		return v.prefix + "-FIRST"
	case famPFC, famPAUSE:
		ts := pauseTimes(f.data)
		if ts[0][1] == 0 {
			return famPrefix(v, v.fam[i]) + "-XON"
		}
		return famPrefix(v, v.fam[i]) + "-XOFF"
	case famBFC:
		return "BFC-COMPLETE"
	case famCredit:
		return "FG-CREDIT"
	case famDstPause:
		m := meta(f.data)
		if binary.BigEndian.Uint16(f.data[m.L3+8:]) == 0 {
			return "FG-RESUME"
		}
		return "FG-PAUSE"
	case famPostcard:
		return "PBFS-COMPLETE"
	}
	return "DATA-LOSS"
}

// secondSignal adds to c two signals like expected frame i for two later
// packets of its flow, all three within less than a reset period, ones the
// reference decided to signal and suppressed: three signals of a flow
// need two filter clearings in less than a period, a fault whatever the
// device's phase (two could be explained by a clearing between them).
func (v *vecInfo) secondSignal(c *capture, i int) (*capture, bool) {
	orig := v.exp.frames[i]
	s, ok := sfcVals(orig.data)
	if !ok {
		return nil, false
	}
	key := s.FlowKey()
	epoch := v.epoch()
	// The arrival of the packet the signal quotes.
	var a time.Time
	found := false
	for _, in := range v.in.frames {
		m := meta(in.data)
		if ip := m.IPPacket(in.data); len(ip) >= 20 && len(s.Quote) >= 20 && string(ip[12:20]) == string(s.Quote[12:20]) && m.Flow() == key && in.t.After(a) && !in.t.After(orig.t) {
			a, found = in.t, true
		}
	}
	if !found {
		return nil, false
	}
	lat := orig.t.Sub(a)
	added := 0
	for _, f := range v.fires {
		at := epoch.Add(time.Duration(f.Time))
		if !f.Fired || f.Sent || f.Flow != key || !at.After(a.Add(10*time.Nanosecond)) || at.Sub(a) >= v.reset()-mTol {
			continue
		}
		for _, in := range v.in.frames {
			if !in.t.Equal(at) {
				continue
			}
			if im := meta(in.data); im.Flow() != key {
				continue
			}
			sig := s
			sig.PauseUS, sig.QueueDepth = f.PauseUS, uint32(f.Depth)
			nb, err := rebuildSFC(orig.data, in.data, sig)
			if err != nil {
				return nil, false
			}
			c.frames = append(c.frames, capFrame{orig.iface, at.Add(lat), nb})
			added++
			if added == 2 {
				return c, true
			}
		}
	}
	return nil, false
}

// quoteUncaused replaces SFC frame i by the same signal quoting the
// latest earlier packet of its flow for which the reference reports no
// decision (it found the queue below Q_th).
func (v *vecInfo) quoteUncaused(c *capture, i int) (*capture, bool) {
	orig := v.exp.frames[i]
	s, ok := sfcVals(orig.data)
	if !ok {
		return nil, false
	}
	key := s.FlowKey()
	epoch := v.epoch()
	reported := map[time.Time]bool{}
	for _, f := range v.fires {
		reported[epoch.Add(time.Duration(f.Time))] = true
	}
	for j := len(v.in.frames) - 1; j >= 0; j-- {
		in := v.in.frames[j]
		if !in.t.Before(orig.t) || orig.t.Sub(in.t) > 20*time.Microsecond || reported[in.t] {
			continue
		}
		if im := meta(in.data); im.Flow() != key {
			continue
		}
		nb, err := rebuildSFC(orig.data, in.data, s)
		if err != nil || len(nb) != len(orig.data) {
			continue // another quote length would fail on its length too
		}
		c.frames[i].data = nb
		return c, true
	}
	return nil, false
}

// epoch is the instant the reference's times count from: the case's
// epoch, else the first input frame.
func (v *vecInfo) epoch() time.Time {
	if v.c.HasEpoch {
		return v.c.Epoch
	}
	return v.in.frames[0].t
}

// rebuildSFC builds a signal of orig's kind (BTS, or CIM in orig's form)
// carrying s for the data frame trigger, with orig's MAC addresses.
func rebuildSFC(orig, trigger []byte, s bts.Signal) ([]byte, error) {
	src, dst := device.MAC(orig[6:12]), device.MAC(orig[0:6])
	if m := meta(orig); m.Kind != device.KindBTS {
		return cim.Build(nil, trigger, &s, cim.Options{SrcMAC: src, DstMAC: dst, L2: !m.IP()})
	}
	return bts.Build(nil, trigger, s, bts.BuildOptions{SrcMAC: src, DstMAC: dst})
}

// reset is the case's suppression reset period.
func (v *vecInfo) reset() time.Duration {
	if p, ok := v.c.Params["reset"]; ok {
		return time.Duration(p.Int)
	} else if p, ok := v.c.Params["base_rtt"]; ok {
		return time.Duration(p.Int / 2)
	}
	return 5 * time.Microsecond
}

// sfcDropExplained reports whether dropping SFC signal i may be allowed:
// the device signalled the flow less than a reset period before, so some
// other suppression phase might explain it (the suite does not count
// such a drop; one a whole period or more after the flow's last signal is
// a fault whatever the phase).
func (v *vecInfo) sfcDropExplained(i int) bool {
	reset := v.reset()
	s, _ := sfcVals(v.exp.frames[i].data)
	key := s.FlowKey().FiveTuple()
	t := v.exp.frames[i].t
	for j, f := range v.exp.frames {
		if j == i || v.fam[j] != famSFC || f.t.After(t) || t.Sub(f.t) >= reset {
			continue
		}
		if s2, ok := sfcVals(f.data); ok && s2.FlowKey().FiveTuple() == key {
			return true
		}
	}
	return false
}

// exemptOctets lists the octets of signal frame b that rule 3 does not
// compare or that define its kind (a change there makes another frame):
// identification, checksums, lengths, time-varying values, counts.
func exemptOctets(fam sigFam, b []byte) map[int]bool {
	m := meta(b)
	ex := map[int]bool{}
	span := func(o, n int) {
		for i := o; i < o+n; i++ {
			ex[i] = true
		}
	}
	span(12, 2) // EtherType
	if m.Tagged {
		span(16, 2)
	}
	if m.IP() {
		if m.IPVersion == 4 {
			span(m.L3, 1)   // version, IHL
			span(m.L3+2, 4) // length, identification
			span(m.L3+9, 3) // protocol, checksum
			span(m.L3+6, 2) // flags, fragment offset
		} else {
			span(m.L3, 1)
			span(m.L3+4, 3) // payload length, next header
		}
		span(m.L4+2, 6) // UDP destination port, length, checksum
	}
	p := m.Payload
	switch fam {
	case famSFC:
		if m.Kind == device.KindBTS {
			span(p+2, 2)
			span(p+12, 4)
			span(p, 1) // version and C: version changes make no BTS
			span(p+16, len(b)-p-16)
		} else {
			pdu := p
			if !m.IP() {
				pdu = m.L3
			}
			span(pdu, 1)
			span(pdu+15, 2) // MSDU length
			n := int(binary.BigEndian.Uint16(b[pdu+15:]))
			span(pdu+17, n)                   // the MSDU: a quote, its own check
			span(pdu+17+n, len(b)-(pdu+17+n)) // TLVs: pause time and structure
			span(pdu+17+n+4, 0)
		}
	case famPFC, famPAUSE:
		span(m.L3, 2) // opcode
		for _, x := range pauseTimes(b) {
			span(x[0], 2)
		}
		if fam == famPFC {
			span(m.L3+3, 1) // which classes: a change makes other items
		}
	case famBFC:
		span(m.L3, 4)
		span(m.L3+4, 1) // k: the frame no longer decodes as the configured
		span(m.L3+6, 2)
		span(m.L3+8, len(b)-m.L3-8)
	case famCredit, famDstPause:
		span(m.L3, 5)   // magic, subtype, version, family: another frame
		span(m.L3+6, 2) // count: FG-CREDIT, FG-PAUSE
		a := 4
		if b[m.L3+4] == 6 {
			a = 16
		}
		n := int(binary.BigEndian.Uint16(b[m.L3+6:]))
		for i, o := 0, m.L3+8; i < n && o+4+a <= len(b); i, o = i+1, o+4+a {
			if fam == famCredit {
				span(o, 4+a) // credits and destination: FG-CREDIT
			} else {
				span(o, 2)   // pause time: FG-PAUSE-TIME
				span(o+4, a) // destination: FG-PAUSE, FG-RESUME
			}
		}
		// The dst-pause entries' reserved octets and the padding are
		// FG-FIELDS' (rule 3: to the last octet).
	case famPostcard:
		span(p, 1)
		span(p+20, 16)
		span(p+36, len(b)-p-36)
	}
	return ex
}

// mutations builds every mutation and perturbation of a vector.
func (v *vecInfo) mutations(t *testing.T) []mutation {
	var out []mutation
	base := func() *capture { c := v.exp.clone(); withEnd(c); return c }
	add := func(rule, kind, what string, c *capture) {
		out = append(out, mutation{rule: rule, kind: kind, what: what, dev: c})
	}
	t0 := v.in.frames[0].t
	for _, fam := range []sigFam{famSFC, famPFC, famPAUSE, famBFC, famCredit, famDstPause, famPostcard} {
		all := v.idx(fam)
		if len(all) == 0 {
			continue
		}
		pre := famPrefix(v, fam)
		// Drops: first, last, each (sampled).
		for n, i := range sample(all, 6) {
			kind := conformance.MutDropEach
			switch {
			case n == 0:
				kind = conformance.MutDropFirst
			case i == all[len(all)-1]:
				kind = conformance.MutDropLast
			}
			if fam == famSFC && v.sfcDropExplained(i) {
				continue
			}
			if fam == famBFC && allZeroBFC(v.exp.frames[i].data) {
				continue // the literal ticker's all-zero frames may come and go
			}
			c := base()
			c.frames = slices.Delete(c.frames, i, i+1)
			add(v.completeRule(i), kind, fmt.Sprintf("drop %s frame %d", fam, i), c)
		}
		first := all[0]
		if fam == famBFC {
			// An all-zero frame may come and go (the literal ticker).
			for _, i := range all {
				if !allZeroBFC(v.exp.frames[i].data) {
					first = i
					break
				}
			}
		}
		// Duplicate, swap port, before time 0.
		{
			c := base()
			f := c.frames[first]
			c.frames = append(c.frames, capFrame{f.iface, f.t.Add(10 * time.Nanosecond), append([]byte(nil), f.data...)})
			add(pre+"-JUSTIFIED", conformance.MutDuplicate, "duplicate the first "+string(fam), c)
		}
		if len(v.exp.names) > 1 {
			c := base()
			c.frames[first].iface = (c.frames[first].iface + 1) % len(v.exp.names)
			if v.c.Role == device.RoleNIC && v.exp.names[c.frames[first].iface] == "host" {
				c.frames[first].iface = (c.frames[first].iface + 1) % len(v.exp.names)
			}
			if c.frames[first].iface != v.exp.frames[first].iface {
				add(pre+"-JUSTIFIED", conformance.MutSwapPorts, "the first "+string(fam)+" on another port", c)
			}
		}
		{
			c := base()
			f := c.frames[first]
			c.frames = append(c.frames, capFrame{f.iface, t0.Add(-time.Millisecond), append([]byte(nil), f.data...)})
			add(pre+"-JUSTIFIED", conformance.MutBeforeT0, "a copy of the first "+string(fam)+" 1ms before time 0", c)
		}
		// Late and early by the tolerance + 1 ns, and exactly at each
		// boundary (must pass): frames with no neighbour of their family
		// on their port on that side (else the shift only swaps two
		// identical frames).
		lateN, earlyN := 0, 0
		for _, i := range all {
			if lateN < 3 && v.isolated(i, 0, 2*(mTol+mEarly)) {
				lateN++
				c := base()
				c.frames[i].t = c.frames[i].t.Add(mTol + time.Nanosecond)
				add(pre+"-TIMING", conformance.MutLate, fmt.Sprintf("%s frame %d late by 1.001us", fam, i), c)
				c = base()
				c.frames[i].t = c.frames[i].t.Add(mTol)
				add("", "in-tolerance", fmt.Sprintf("%s frame %d late by 1us", fam, i), c)
			}
			if earlyN < 3 && v.isolated(i, 2*(mTol+mEarly), 0) && !(fam == famBFC && allZeroBFC(v.exp.frames[i].data)) {
				earlyN++
				c := base()
				c.frames[i].t = c.frames[i].t.Add(-mEarly - time.Nanosecond)
				rule := pre + "-JUSTIFIED"
				if fam == famSFC {
					rule = pre + "-TIMING"
				}
				add(rule, conformance.MutEarly, fmt.Sprintf("%s frame %d early by 501ns", fam, i), c)
				c = base()
				c.frames[i].t = c.frames[i].t.Add(-mEarly)
				add("", "in-tolerance", fmt.Sprintf("%s frame %d early by 500ns", fam, i), c)
			}
		}
		// Two signals of a flow leaving swapped, each within the
		// tolerance: no order is asked (rule 6).
		if fam == famSFC {
			if c, i, j, ok := v.swapInTol(base(), all); ok {
				add("", "in-tolerance", fmt.Sprintf("sfc frame %d leaves after frame %d of its flow, within the tolerance", i, j), c)
			}
		}
		// Values.
		for _, i := range sample(all, 4) {
			out = append(out, v.valueMutations(fam, i, base)...)
		}
		// Every field in turn (the first frame of the family).
		for _, i := range []int{first} {
			ex := exemptOctets(fam, v.exp.frames[i].data)
			for o := range v.exp.frames[i].data {
				if ex[o] {
					continue
				}
				c := base()
				c.frames[i].data[o] ^= 0x01
				fixChecksums(c.frames[i].data)
				add(pre+"-FIELDS", conformance.MutField, fmt.Sprintf("%s frame %d octet %d", fam, i, o), c)
			}
			// An IPv4 signal with UDP checksum 0 ("none", RFC 768) where
			// the reference computes one.
			if m := meta(v.exp.frames[i].data); m.IPVersion == 4 && m.Proto == 17 && m.L4 > 0 && !forwarded(v, v.exp.frames[i]) {
				c := base()
				c.frames[i].data[m.L4+6], c.frames[i].data[m.L4+7] = 0, 0
				add(pre+"-FIELDS", conformance.MutField, fmt.Sprintf("%s frame %d UDP checksum 0 (none)", fam, i), c)
				// ... which a vendor accepts by masking the checksum.
				c = base()
				c.frames[i].data[m.L4+6], c.frames[i].data[m.L4+7] = 0, 0
				out = append(out, mutation{kind: "masked", what: fmt.Sprintf("%s frame %d UDP checksum 0, udp.checksum masked", fam, i), dev: c, opt: conformance.Options{Mask: []string{"udp.checksum"}}})
			}
		}
	}
	if v.hasFires {
		// A signal quoting an earlier packet of its flow, one that found
		// the queue below Q_th (no phase of any filter explains it), at
		// the reference signal's time and with its values.
		for _, i := range v.idx(famSFC) {
			if c, ok := v.quoteUncaused(base(), i); ok {
				add(v.prefix+"-FIELDS", conformance.MutField, fmt.Sprintf("sfc frame %d quotes a packet that found the queue below Q_th", i), c)
				break
			}
		}
		for _, i := range v.idx(famSFC) {
			if c, ok := v.secondSignal(base(), i); ok {
				add(v.prefix+"-SUPPRESS", conformance.MutSuppress, fmt.Sprintf("a second signal for the flow of frame %d within its reset period", i), c)
				break
			}
		}
	}
	// A switch that sends an 802.3x PAUSE (every class stopped) beside
	// the PFC frames of its reference (PFC or SFC-P).
	if v.c.Role == device.RoleSwitch {
		for _, i := range v.idx(famPFC) {
			f := v.exp.frames[i]
			if meta(f.data).Kind != device.KindPFC {
				continue
			}
			p := make([]byte, 60)
			copy(p, []byte{0x01, 0x80, 0xc2, 0, 0, 0x01})
			copy(p[6:12], f.data[6:12])
			copy(p[12:], []byte{0x88, 0x08, 0x00, 0x01, 0xff, 0xff})
			c := base()
			c.frames = append(c.frames, capFrame{f.iface, f.t.Add(10 * time.Nanosecond), p})
			add("PAUSE-JUSTIFIED", conformance.MutSpurious, fmt.Sprintf("an 802.3x PAUSE after PFC frame %d", i), c)
			break
		}
	}
	// A signal of a scheme the case leaves off: an 802.3x PAUSE of
	// 0xFFFF (every class stopped for 335 µs at 100G) from a device
	// without PFC or SFC-P must FAIL SIGNAL-OFF (it was background), and
	// pass once the vector's ignore filter names it (rule 2's ignore:).
	if !v.c.Has(conformance.SchemePFC) && !v.c.Has(conformance.SchemeSFCP) {
		for _, f := range v.exp.frames {
			if v.c.Role == device.RoleNIC && v.exp.names[f.iface] == "host" {
				continue
			}
			p := make([]byte, 60)
			copy(p, []byte{0x01, 0x80, 0xc2, 0, 0, 0x01})
			copy(p[6:12], f.data[6:12])
			copy(p[12:], []byte{0x88, 0x08, 0x00, 0x01, 0xff, 0xff})
			c := base()
			c.frames = append(c.frames, capFrame{f.iface, f.t.Add(10 * time.Nanosecond), p})
			add(conformance.RuleSignalOff, conformance.MutOffScheme, "an 802.3x PAUSE 0xffff from a device without PFC", c)
			q := append([]byte(nil), p...)
			q[14], q[15] = 0x01, 0x01 // PFC opcode 0x0101, class 0 enabled, time 0xffff
			q[16], q[17], q[18] = 0x00, 0x01, 0xff
			q[19] = 0xff
			c = base()
			c.frames = append(c.frames, capFrame{f.iface, f.t.Add(10 * time.Nanosecond), q})
			add(conformance.RuleSignalOff, conformance.MutOffScheme, "a PFC XOFF of class 0 from a device without PFC", c)
			c = base()
			c.frames = append(c.frames, capFrame{f.iface, f.t.Add(10 * time.Nanosecond), append([]byte(nil), p...)})
			out = append(out, mutation{kind: "ignored", what: "an 802.3x PAUSE the ignore filter names, from a device without PFC", dev: c, opt: conformance.Options{Ignore: "eth.type == 0x8808"}})
			break
		}
	}
	out = append(out, v.dataMutations(base)...)
	out = append(out, v.captureMutations(base)...)
	return out
}

func allZeroBFC(b []byte) bool {
	m := meta(b)
	for _, x := range b[m.L3+12:] {
		if x != 0 {
			return false
		}
	}
	return true
}

func (v *vecInfo) valueMutations(fam sigFam, i int, base func() *capture) []mutation {
	var out []mutation
	add := func(rule, kind, what string, c *capture) {
		fixChecksums(c.frames[len(c.frames)-1].data)
		for j := range c.frames {
			fixChecksums(c.frames[j].data)
		}
		out = append(out, mutation{rule: rule, kind: kind, what: what, dev: c})
	}
	f := v.exp.frames[i]
	m := meta(f.data)
	u16 := func(o int, fn func(x int) int, rule, kind string) {
		x := int(binary.BigEndian.Uint16(f.data[o:]))
		y := fn(x)
		if y < 0 || y > 0xffff || y == x {
			return
		}
		c := base()
		binary.BigEndian.PutUint16(c.frames[i].data[o:], uint16(y))
		add(rule, kind, fmt.Sprintf("%s frame %d value %d → %d", fam, i, x, y), c)
	}
	u32 := func(o int, fn func(x int64) int64, rule, kind string) {
		x := int64(binary.BigEndian.Uint32(f.data[o:]))
		y := fn(x)
		if y < 0 || y > 0xffffffff || y == x {
			return
		}
		c := base()
		binary.BigEndian.PutUint32(c.frames[i].data[o:], uint32(y))
		add(rule, kind, fmt.Sprintf("%s frame %d value %d → %d", fam, i, x, y), c)
	}
	kinds := []struct {
		kind string
		f16  func(int) int
		f32  func(int64) int64
	}{
		{conformance.MutValuePlus, func(x int) int { return x + 1 }, func(x int64) int64 { return x + 1 }},
		{conformance.MutValueMinus, func(x int) int { return x - 1 }, func(x int64) int64 { return x - 1 }},
		{conformance.MutValueZero, func(int) int { return 0 }, func(int64) int64 { return 0 }},
	}
	switch fam {
	case famSFC:
		s, _ := sfcVals(f.data)
		pauses, depths := v.refValues(f.t, int(s.CPPort))
		po := -1
		if m.Kind == device.KindBTS {
			po = m.Payload + 2
		} else {
			pdu := m.Payload
			if !m.IP() {
				pdu = m.L3
			}
			if tlv := cimTLV(f.data, pdu); tlv >= 0 {
				po = tlv + 2
			}
		}
		for _, k := range kinds {
			if po >= 0 {
				// A resume for a pause crosses the boundary of the very
				// decision the frame stands for: it fails whatever values
				// the reference gave within the window (rule 4).
				crossing := k.kind == conformance.MutValueZero && s.PauseUS != 0
				if y := k.f16(int(s.PauseUS)); y >= 0 && y <= 0xffff && (!pauses[uint16(y)] || crossing) {
					u16(po, k.f16, v.prefix+"-PAUSE", k.kind)
				}
			}
			if m.Kind == device.KindBTS && s.Origin == layers.OriginQueue {
				if y := k.f32(int64(s.QueueDepth)); y >= 0 && !depths[y] {
					u32(m.Payload+12, k.f32, "SFC-BTS-DEPTH", k.kind)
				}
			}
		}
		// A resume where the reference pauses, with the pause time
		// masked: the mask exempts the value, not the boundary (rule 4).
		if po >= 0 && s.PauseUS != 0 && !pauses[0] {
			c := base()
			binary.BigEndian.PutUint16(c.frames[i].data[po:], 0)
			fixChecksums(c.frames[i].data)
			field := "bts.pause_us"
			if m.Kind == device.KindCIM {
				field = "cim.pause_us"
			}
			out = append(out, mutation{rule: v.prefix + "-PAUSE", kind: conformance.MutValueZero,
				what: fmt.Sprintf("%s frame %d pause %d → 0, %s masked", fam, i, s.PauseUS, field), dev: c, opt: conformance.Options{Mask: []string{field}}})
		}
	case famPFC, famPAUSE:
		pre := famPrefix(v, fam)
		for _, x := range pauseTimes(f.data) {
			if x[1] == 0 {
				continue
			}
			u16(x[0], kinds[0].f16, pre+"-QUANTA", kinds[0].kind)
			u16(x[0], kinds[1].f16, pre+"-QUANTA", kinds[1].kind)
			u16(x[0], kinds[2].f16, pre+"-XOFF", kinds[2].kind)
			break
		}
	case famBFC:
		fo := m.L3 + 12
		bits := f.data[fo:]
		for b := range bits {
			if bits[b] != 0xff {
				c := base()
				c.frames[i].data[fo+b] |= ^bits[b] & -^bits[b]
				add("BFC-FILTER", conformance.MutValuePlus, fmt.Sprintf("bfc frame %d one more bit", i), c)
				break
			}
		}
		if !allZeroBFC(f.data) {
			c := base()
			clear(c.frames[i].data[fo:])
			add("BFC-FILTER", conformance.MutValueZero, fmt.Sprintf("bfc frame %d filter cleared", i), c)
		}
		c := base()
		binary.BigEndian.PutUint32(c.frames[i].data[m.L3+8:], binary.BigEndian.Uint32(f.data[m.L3+8:])-1)
		add("BFC-SEQ", conformance.MutSeq, fmt.Sprintf("bfc frame %d sequence repeated", i), c)
	case famCredit:
		if binary.BigEndian.Uint16(f.data[m.L3+6:]) > 0 {
			for _, k := range kinds {
				u32(m.L3+8, k.f32, "FG-CREDIT", k.kind)
			}
			u32(m.L3+8, func(x int64) int64 { return x + 1_000_000 }, "FG-CREDIT-BOUND", conformance.MutCreditExtra)
		}
	case famDstPause:
		if binary.BigEndian.Uint16(f.data[m.L3+6:]) > 0 {
			if binary.BigEndian.Uint16(f.data[m.L3+8:]) != 0 {
				u16(m.L3+8, kinds[1].f16, "FG-PAUSE-TIME", kinds[1].kind)
				u16(m.L3+8, kinds[2].f16, "FG-PAUSE", kinds[2].kind)
			}
		}
	case famPostcard:
		for _, k := range kinds {
			u32(m.Payload+20, k.f32, "PBFS-COUNTS", k.kind)
		}
	}
	return out
}

// cimTLV finds the SFC pause TLV of a CIM whose PDU starts at pdu.
func cimTLV(b []byte, pdu int) int {
	if pdu+17 > len(b) || b[pdu]&0x02 == 0 {
		return -1
	}
	i := pdu + 17 + int(binary.BigEndian.Uint16(b[pdu+15:]))
	for i+2 <= len(b) && b[i] != 0 {
		if b[i] == 1 {
			return i
		}
		i += 2 + int(b[i+1])
	}
	return -1
}

func (v *vecInfo) dataMutations(base func() *capture) []mutation {
	var out []mutation
	add := func(rule, kind, what string, c *capture) {
		out = append(out, mutation{rule: rule, kind: kind, what: what, dev: c})
	}
	// A signal the device delivers (a NIC to its host) or forwards (a
	// switch) is a frame of the reference's too: a second copy of it is
	// a duplicate, not background (rule 8).
	for i, f := range v.exp.frames {
		m := meta(f.data)
		if v.fam[i] != famNone || m.Kind == device.KindData || m.Kind == device.KindOther {
			continue
		}
		host := v.c.Role == device.RoleNIC && v.exp.names[f.iface] == "host"
		if !host && !(v.c.Role == device.RoleSwitch && forwarded(v, f)) {
			continue
		}
		c := base()
		c.frames = append(c.frames, capFrame{f.iface, f.t.Add(time.Nanosecond), append([]byte(nil), f.data...)})
		add("DATA-DUP", conformance.MutDataDup, fmt.Sprintf("duplicate delivered %s frame %d on port %s", m.Kind, i, v.exp.names[f.iface]), c)
		break
	}
	// A NIC that hands its host a signal of the wire the reference
	// consumes (a BTS, a CIM with the SFC extension). Postcards, BFC and
	// Floodgate frames on the host port fail their -JUSTIFIED rules.
	if host := slices.Index(v.exp.names, "host"); v.c.Role == device.RoleNIC && host >= 0 {
		for _, f := range v.in.frames {
			m := meta(f.data)
			if v.in.names[f.iface] == "host" || (m.Kind != device.KindBTS && m.Kind != device.KindCIM) ||
				slices.ContainsFunc(v.exp.frames, func(e capFrame) bool { return e.iface == host && bytes.Equal(e.data, f.data) }) {
				continue
			}
			c := base()
			c.frames = append(c.frames, capFrame{host, f.t.Add(10 * time.Nanosecond), append([]byte(nil), f.data...)})
			add("DATA-EXTRA", conformance.MutDataExtra, fmt.Sprintf("the %s the reference consumes handed to the host", m.Kind), c)
			break
		}
	}
	all := v.idx(famData)
	if v.c.Role == device.RoleNIC {
		// A NIC's data frames are its own host's: check those on the wire.
		var wire []int
		for _, i := range all {
			if v.exp.names[v.exp.frames[i].iface] != "host" {
				wire = append(wire, i)
			}
		}
		all = wire
	}
	if len(all) < 3 {
		return out
	}
	for _, i := range sample(all[1:len(all)-1], 3) {
		f := v.exp.frames[i]
		m := meta(f.data)
		c := base()
		c.frames = slices.Delete(c.frames, i, i+1)
		add("DATA-LOSS", conformance.MutDataDrop, fmt.Sprintf("drop data frame %d", i), c)
		c = base()
		c.frames = append(c.frames, capFrame{f.iface, f.t.Add(10 * time.Nanosecond), append([]byte(nil), f.data...)})
		add("DATA-DUP", conformance.MutDataDup, fmt.Sprintf("duplicate data frame %d", i), c)
		// A copy of it after the flow's next frame on its port: a
		// duplicate of an older frame, not the flow's latest.
		if j := nextOfFlow(v.exp, i); j >= 0 {
			c = base()
			c.frames = append(c.frames, capFrame{f.iface, v.exp.frames[j].t.Add(10 * time.Nanosecond), append([]byte(nil), f.data...)})
			add("DATA-DUP", conformance.MutDataDup, fmt.Sprintf("duplicate data frame %d after frame %d of its flow", i, j), c)
		}
		if m.Proto == 17 && m.Payload > 0 && m.Payload+14 < min(m.L3+m.IPLen, len(f.data)) {
			c = base()
			c.frames[i].data[m.Payload+13] ^= 0x40
			if m.DstPort == 4791 {
				end := m.L3 + m.IPLen
				crc, _ := layersICRC(c.frames[i].data[m.L3:end])
				binary.LittleEndian.PutUint32(c.frames[i].data[end-4:], crc)
			}
			add("DATA-ALTERED", conformance.MutDataAlter, fmt.Sprintf("alter data frame %d", i), c)
		}
		// Masks are for signal frames (rule 3): the same field of a
		// forwarded data frame, changed with that field masked, is still
		// altered (rule 8).
		c = base()
		c.frames[i].data[6] ^= 0x04
		out = append(out, mutation{rule: "DATA-ALTERED", kind: conformance.MutDataAlter, what: fmt.Sprintf("data frame %d source MAC changed, eth.src masked", i),
			dev: c, opt: conformance.Options{Mask: []string{"eth.src"}}})
		if m.L3 > 0 && m.L3+2 <= len(f.data) {
			c = base()
			if f.data[m.L3]>>4 == 4 {
				c.frames[i].data[m.L3+1] ^= 0x04 // DSCP's low bit
			} else {
				c.frames[i].data[m.L3+1] ^= 0x40 // the traffic class's DSCP low bit
			}
			fixChecksums(c.frames[i].data)
			out = append(out, mutation{rule: "DATA-ALTERED", kind: conformance.MutDataAlter, what: fmt.Sprintf("data frame %d DSCP changed, ip.dscp masked", i),
				dev: c, opt: conformance.Options{Mask: []string{"ip.dscp"}}})
		}
		if m.Proto == 17 && m.DstPort == 4791 {
			c = base()
			c.frames[i].data[min(m.L3+m.IPLen, len(f.data))-1] ^= 0x5a
			add("DATA-ICRC", conformance.MutICRC, fmt.Sprintf("break the ICRC of data frame %d", i), c)
		}
		if len(v.exp.names) > 1 && v.c.Role == device.RoleSwitch {
			c = base()
			other := (f.iface + 1) % len(v.exp.names)
			c.frames = append(c.frames, capFrame{other, f.t, append([]byte(nil), f.data...)})
			add("DATA-EXTRA", conformance.MutDataExtra, fmt.Sprintf("copy data frame %d to port %d", i, other), c)
		}
		// The next frame of the flow on the port, for a reorder.
		for j := i + 1; j < len(v.exp.frames); j++ {
			g := v.exp.frames[j]
			gm := meta(g.data)
			if v.fam[j] == famData && g.iface == f.iface && gm.Flow() == m.Flow() && string(g.data) != string(f.data) {
				c = base()
				c.frames[i].data, c.frames[j].data = c.frames[j].data, c.frames[i].data
				add("DATA-ORDER", conformance.MutDataReorder, fmt.Sprintf("swap data frames %d and %d", i, j), c)
				break
			}
		}
		c = base()
		c.frames[i].t = c.frames[i].t.Add(mTol + time.Nanosecond)
		add("DATA-TIMING", conformance.MutLate, fmt.Sprintf("data frame %d late by 1.001us", i), c)
		c = base()
		c.frames[i].t = c.frames[i].t.Add(-mEarly - time.Nanosecond)
		add("DATA-TIMING", conformance.MutEarly, fmt.Sprintf("data frame %d early by 501ns", i), c)
	}
	return out
}

// captureMutations cut the capture before the last signal (INCONCLUSIVE)
// or leave a port the reference sends on empty, and perturb it as a
// correct device may: background frames, frames before time 0, shifts of
// everything within the tolerances, interfaces out of step, ignored and
// masked fields.
func (v *vecInfo) captureMutations(base func() *capture) []mutation {
	var out []mutation
	add := func(rule, kind, what string, c *capture) {
		out = append(out, mutation{rule: rule, kind: kind, what: what, dev: c})
	}
	last := -1
	for i, f := range v.fam {
		if f != famNone && f != famData {
			last = i
		}
	}
	if last >= 0 {
		c := v.exp.clone()
		c.frames = c.frames[:last]
		for len(c.frames) > 0 && !c.frames[len(c.frames)-1].t.Before(v.exp.frames[last].t) {
			c.frames = c.frames[:len(c.frames)-1]
		}
		if len(c.frames) > 0 {
			add("CAP-END", conformance.MutCaptureCut, "capture cut before the last signal", c)
		}
		// A port whose frames are all removed.
		ifc := v.exp.frames[last].iface
		c = base()
		keep := c.frames[:0]
		for _, f := range c.frames {
			if f.iface != ifc {
				keep = append(keep, f)
			}
		}
		c.frames = keep
		add("CAP-PORTS", conformance.MutPortSilent, fmt.Sprintf("interface %d empty", ifc), c)
	}
	// The pcapng says its capture dropped frames; the file is cut in the
	// middle of its last record.
	out = append(out, mutation{rule: "CAP-DROPS", kind: conformance.MutCaptureDrop, what: "an interface statistics block counting 3 dropped frames",
		dev: base(), post: func(t *testing.T, path string) { appendISBDrops(t, path, 3) }})
	out = append(out, mutation{rule: "CAP-END", kind: conformance.MutCaptureCut, what: "the file cut in the middle of its last frame",
		dev: base(), post: func(t *testing.T, path string) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(path, b[:len(b)-20], 0o644)
		}})
	out = append(out, mutation{kind: "capture-drops", what: "an interface statistics block counting no drop",
		dev: base(), post: func(t *testing.T, path string) { appendISBDrops(t, path, 0) }})
	t0 := v.in.frames[0].t
	end := v.exp.frames[len(v.exp.frames)-1].t
	{
		c := base()
		add("", "unperturbed", "the reference's own output", c)
		c = base()
		bg := backgroundFrames()
		for n, b := range bg {
			for ifc := range c.names {
				at := t0.Add(time.Duration(n+1) * end.Sub(t0) / time.Duration(len(bg)+1))
				c.frames = append(c.frames, capFrame{ifc, at, b})
			}
		}
		add("", "background", "ARP, ND, LLDP, STP, ICMP, TCP, UDP and other EtherTypes on every port", c)
		c = base()
		for ifc := range c.names {
			c.frames = append(c.frames, capFrame{ifc, t0.Add(-10 * time.Millisecond), lldpFrame()}, capFrame{ifc, t0.Add(-3 * time.Millisecond), arpFrame()})
		}
		add("", "before-t0", "LLDP and ARP before time 0", c)
		c = base()
		for i := range c.frames {
			c.frames[i].t = c.frames[i].t.Add(mTol)
		}
		add("", "in-tolerance", "every frame late by 1us", c)
		c = base()
		for i := range c.frames {
			c.frames[i].t = c.frames[i].t.Add(-mEarly)
		}
		add("", "in-tolerance", "every frame early by 500ns", c)
		c = base()
		out = append(out, mutation{kind: "reorder-interfaces", what: "the capture written interface by interface (merged by time)", dev: c, unsorted: true})
	}
	// A case with one port of its own (a NIC, whose host side is implicit
	// and may be left out of the device capture, or a one-port switch):
	// the device capture of that port alone as classic pcap is accepted
	// (conformance.md "A vector"); it must pass, and a fault in it fail.
	if len(v.c.Ports) == 1 {
		wire := func(c *capture) *capture {
			keep := c.frames[:0]
			for _, f := range c.frames {
				if v.c.Role != device.RoleNIC || c.names[f.iface] != "host" {
					keep = append(keep, f)
				}
			}
			c.frames = keep
			return c
		}
		classic := func(c *capture) func(t *testing.T, path string) {
			return func(t *testing.T, path string) { writeClassic(t, path, c) }
		}
		c := wire(base())
		out = append(out, mutation{kind: "classic-pcap", what: "the wire port alone as classic pcap", dev: c, post: classic(c)})
		c = wire(base())
		var data []int
		for i, f := range c.frames {
			if m := meta(f.data); m.Kind == device.KindData && m.DstPort == 4791 {
				data = append(data, i)
			}
		}
		if len(data) >= 3 {
			c.frames = slices.Delete(c.frames, data[len(data)/2], data[len(data)/2]+1)
			out = append(out, mutation{rule: "DATA-LOSS", kind: conformance.MutDataDrop, what: "the wire port alone as classic pcap, a data frame dropped", dev: c, post: classic(c)})
		}
	}
	// Ignored: a copy of a data frame with another TTL, which the ignore
	// filter names.
	for i, f := range v.fam {
		if f != famData {
			continue
		}
		m := meta(v.exp.frames[i].data)
		if m.IPVersion != 4 || v.c.Role != device.RoleSwitch {
			continue
		}
		c := base()
		d := append([]byte(nil), v.exp.frames[i].data...)
		d[m.L3+8] = 3
		c.frames = append(c.frames, capFrame{v.exp.frames[i].iface, v.exp.frames[i].t.Add(50 * time.Nanosecond), d})
		out = append(out, mutation{kind: "ignored", what: "an altered data frame the ignore filter names", dev: c, opt: conformance.Options{Ignore: "ip.ttl == 3"}})
		break
	}
	// Masked: every signal's reporter (SFC) or source MAC (others)
	// changed, and masked.
	if fs := v.idx(famSFC); len(fs) > 0 {
		c := base()
		for _, i := range fs {
			m := meta(c.frames[i].data)
			if m.Kind == device.KindBTS {
				c.frames[i].data[m.Payload+7] ^= 0x10
			} else {
				pdu := m.Payload
				if !m.IP() {
					pdu = m.L3
				}
				if tlv := cimTLV(c.frames[i].data, pdu); tlv >= 0 {
					c.frames[i].data[tlv+9] ^= 0x10
				}
			}
			fixChecksums(c.frames[i].data)
		}
		field := "bts.reporter"
		if v.prefix == "SFC-CIM" {
			field = "cim.reporter"
		}
		out = append(out, mutation{kind: "masked", what: "every signal's reporter changed, masked", dev: c, opt: conformance.Options{Mask: []string{field}}})
	}
	var others []int
	for i, f := range v.fam {
		if f == famPFC || f == famPAUSE || f == famBFC || f == famCredit || f == famDstPause {
			others = append(others, i)
		}
	}
	if len(others) > 0 {
		c := base()
		for _, i := range others {
			c.frames[i].data[11] ^= 0x20
		}
		out = append(out, mutation{kind: "masked", what: "every L2 signal's source MAC changed, masked", dev: c, opt: conformance.Options{Mask: []string{"eth.src"}}})
	}
	return out
}

// appendISBDrops appends a little-endian pcapng interface statistics
// block for interface 0 whose isb_ifdrop is n.
func appendISBDrops(t *testing.T, path string, n uint64) { appendISBDropsOn(t, path, 0, n) }

// appendISBDropsOn is appendISBDrops for interface iface.
func appendISBDropsOn(t *testing.T, path string, iface uint32, n uint64) {
	t.Helper()
	b := binary.LittleEndian.AppendUint32(nil, 5)
	b = binary.LittleEndian.AppendUint32(b, 40)
	b = binary.LittleEndian.AppendUint32(b, iface) // interface
	b = binary.LittleEndian.AppendUint32(b, 0)     // timestamp
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint16(b, 5) // isb_ifdrop
	b = binary.LittleEndian.AppendUint16(b, 8)
	b = binary.LittleEndian.AppendUint64(b, n)
	b = binary.LittleEndian.AppendUint32(b, 0) // opt_endofopt
	b = binary.LittleEndian.AppendUint32(b, 40)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

func backgroundFrames() [][]byte {
	mk := func(head []byte, n int) []byte { b := make([]byte, n); copy(b, head); return b }
	mac := []byte{0x02, 0xbb, 0, 0, 0, 9}
	eth := func(dst []byte, et uint16) []byte {
		b := append(append(append([]byte(nil), dst...), mac...), byte(et>>8), byte(et))
		return b
	}
	ip4 := func(proto byte, l4 []byte) []byte {
		ip := []byte{0x45, 0, 0, byte(20 + len(l4)), 0, 1, 0, 0, 64, proto, 0, 0, 192, 0, 2, 1, 192, 0, 2, 2}
		binary.BigEndian.PutUint16(ip[10:], ^sum16(ip, 0))
		return append(ip, l4...)
	}
	bcast := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	var out [][]byte
	out = append(out, arpFrame(), lldpFrame())
	// STP: 802.3 length + LLC to the bridge group address.
	stp := append(append(append([]byte(nil), 0x01, 0x80, 0xc2, 0, 0, 0), mac...), 0, 39, 0x42, 0x42, 0x03)
	out = append(out, mk(stp, 64))
	// ND: IPv6 ICMPv6 neighbour solicitation.
	nd := eth([]byte{0x33, 0x33, 0xff, 0, 0, 1}, 0x86dd)
	ip6 := make([]byte, 40)
	ip6[0], ip6[6], ip6[7] = 0x60, 58, 255
	binary.BigEndian.PutUint16(ip6[4:], 24)
	ip6[8], ip6[9], ip6[23] = 0xfe, 0x80, 1
	ip6[24], ip6[25], ip6[39] = 0xff, 0x02, 1
	nd = append(append(nd, ip6...), make([]byte, 24)...)
	nd[54] = 135
	out = append(out, nd)
	out = append(out, mk(append(eth(bcast, 0x0800), ip4(1, []byte{8, 0, 0, 0, 0, 1, 0, 1})...), 64))
	out = append(out, mk(append(eth(bcast, 0x0800), ip4(6, make([]byte, 20))...), 64))
	udp := []byte{0x00, 0x44, 0x00, 0x43, 0, 8, 0, 0} // DHCP-like
	out = append(out, mk(append(eth(bcast, 0x0800), ip4(17, udp)...), 64))
	out = append(out, mk(eth(bcast, 0x88b6), 64)) // another EtherType
	return out
}

// writeCapture writes c, sorted by time unless unsorted (then interface
// by interface, each in time order).
func writeCapture(t *testing.T, c *capture, path string, unsorted bool) {
	t.Helper()
	if !unsorted {
		c.write(t, path)
		return
	}
	slices.SortStableFunc(c.frames, func(a, b capFrame) int {
		if a.iface != b.iface {
			return b.iface - a.iface // the last interface first
		}
		return a.t.Compare(b.t)
	})
	writeUnsorted(t, path, c)
}

type tally struct{ killed, total int }

// reportJSON is a report as JSON, with its error.
func reportJSON(t *testing.T, rep *conformance.Report, err error) string {
	t.Helper()
	var b strings.Builder
	if rep != nil {
		if e := rep.WriteJSON(&b); e != nil {
			t.Fatal(e)
		}
	}
	if err != nil {
		b.WriteString("error: " + err.Error())
	}
	return b.String()
}

// TestMutationSuite runs every mutation and perturbation of every corpus
// vector and requires a 100 % kill rate per rule with no false alarm.
func TestMutationSuite(t *testing.T) {
	var dirs []string
	filepath.WalkDir(pcaps, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == conformance.CaseFile {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	sort.Strings(dirs)
	tmp := t.TempDir()
	byRule := map[string]*tally{}
	byKind := map[string]*tally{}
	falseAlarms, passes, n := 0, 0, 0
	var escapes []string
	for _, dir := range dirs {
		name := strings.TrimPrefix(filepath.ToSlash(dir), pcaps+"/")
		if strings.HasPrefix(name, "malformed/") {
			continue // malformed inputs: the reference drops them; no device behaviour to mutate
		}
		v := loadVec(t, dir)
		for _, mu := range v.mutations(t) {
			n++
			path := filepath.Join(tmp, fmt.Sprintf("m%d.pcapng", n))
			writeCapture(t, mu.dev, path, mu.unsorted)
			if mu.post != nil {
				mu.post(t, path)
			}
			rep, err := conformance.CheckFiles(filepath.Join(dir, conformance.CaseFile), filepath.Join(dir, conformance.InputFile), path, mu.opt)
			// Device frames judged ahead of their turn are judged as in
			// their turn: the report is the same octets without it.
			conformance.SetJudgeAhead(false)
			rep2, err2 := conformance.CheckFiles(filepath.Join(dir, conformance.CaseFile), filepath.Join(dir, conformance.InputFile), path, mu.opt)
			conformance.SetJudgeAhead(true)
			if a, b := reportJSON(t, rep, err), reportJSON(t, rep2, err2); a != b {
				t.Errorf("%s: %s (%s): the report differs when no frame is judged ahead of its turn:\n%s\nwithout:\n%s", name, mu.what, mu.kind, a, b)
			}
			os.Remove(path)
			if mu.rule == "" {
				passes++
				if err != nil || rep.Verdict != conformance.Pass {
					falseAlarms++
					var b strings.Builder
					rep.WriteText(&b)
					t.Errorf("false alarm: %s: %s (%s):\n%s", name, mu.what, mu.kind, b.String())
				}
				continue
			}
			if conformance.LookupRule(mu.rule) == nil {
				t.Fatalf("%s: mutation %s names no rule %s", name, mu.what, mu.rule)
			}
			tr := byRule[mu.rule]
			if tr == nil {
				tr = &tally{}
				byRule[mu.rule] = tr
			}
			tk := byKind[mu.kind]
			if tk == nil {
				tk = &tally{}
				byKind[mu.kind] = tk
			}
			tr.total++
			tk.total++
			killed := false
			if err == nil {
				if c := rep.Check(mu.rule); c != nil && c.Count > 0 {
					killed = true
				}
			}
			if killed {
				tr.killed++
				tk.killed++
				continue
			}
			var b strings.Builder
			rep.WriteText(&b)
			escapes = append(escapes, fmt.Sprintf("%s: %s (%s) should fail %s:\n%s", name, mu.what, mu.kind, mu.rule, b.String()))
		}
	}
	var ids []string
	for id := range byRule {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	fmt.Fprintf(&b, "mutation suite: %d runs over %d vectors; %d perturbations that must pass, %d false alarm(s)\n", n, len(dirs), passes, falseAlarms)
	fmt.Fprintf(&b, "%-18s %7s %6s\n", "rule", "killed", "rate")
	for _, id := range ids {
		tr := byRule[id]
		fmt.Fprintf(&b, "%-18s %3d/%-3d %5.1f%%\n", id, tr.killed, tr.total, 100*float64(tr.killed)/float64(tr.total))
	}
	var kinds []string
	for k := range byKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	fmt.Fprintf(&b, "by kind:")
	for _, k := range kinds {
		fmt.Fprintf(&b, " %s %d/%d", k, byKind[k].killed, byKind[k].total)
	}
	t.Log(b.String())
	for i, e := range escapes {
		if i >= 40 {
			t.Errorf("... %d more escapes", len(escapes)-40)
			break
		}
		t.Errorf("escape: %s", e)
	}
	// Every rule some corpus vector exercises, and every mutation kind it
	// names, must have been tried.
	for _, r := range conformance.Rules {
		if byRule[r.ID] == nil {
			t.Logf("rule %s: no mutation of the corpus exercises it", r.ID)
		}
		for _, k := range r.Mutations {
			if byKind[k] == nil {
				t.Errorf("mutation kind %s of rule %s never tried", k, r.ID)
			}
		}
	}
}

// nextOfFlow is the index of the next frame after frame i of c on the same
// interface and of the same flow (addresses, protocol, ports, QP), -1
// when there is none.
func nextOfFlow(c *capture, i int) int {
	a := c.frames[i]
	ma := meta(a.data)
	for j := i + 1; j < len(c.frames); j++ {
		b := c.frames[j]
		mb := meta(b.data)
		if b.iface == a.iface && ma.Src == mb.Src && ma.Dst == mb.Dst && ma.Proto == mb.Proto && ma.SrcPort == mb.SrcPort &&
			ma.DstPort == mb.DstPort && ma.QP == mb.QP && ma.HasQP == mb.HasQP && ma.EtherType == mb.EtherType {
			return j
		}
	}
	return -1
}
