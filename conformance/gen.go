// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/opensfc/sfc/atomicfile"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/pcapio"
)

// InterfaceNames returns the capture interface names of a vector for c:
// interface i is port i ("port<i>", or the port's own interface name);
// a NIC's interface 1 is its host side, "host". Ids with no port get a
// placeholder name ("unused<i>") so that indexes stay equal to port ids.
func (c *Case) InterfaceNames() []string {
	if c.Role == device.RoleNIC {
		n := "port0"
		if c.Ports[0].Interface != "" {
			n = c.Ports[0].Interface
		}
		return []string{n, "host"}
	}
	maxID := 0
	for _, p := range c.Ports {
		maxID = max(maxID, p.ID)
	}
	names := make([]string, maxID+1)
	for i := range names {
		names[i] = fmt.Sprintf("unused%d", i)
	}
	for _, p := range c.Ports {
		names[p.ID] = fmt.Sprintf("port%d", p.ID)
		if p.Interface != "" {
			names[p.ID] = p.Interface
		}
	}
	return names
}

// Generate replays input through the reference model of c and writes
// every frame the model sends to w as pcapng: interface = egress port,
// timestamp = epoch + the time its first bit leaves; generated signals
// carry the comment "generated <kind>". It returns the number of frames
// written. The output is byte-identical on every run.
func Generate(c *Case, input string, w io.Writer) (int64, error) {
	m, err := BuildModel(c)
	if err != nil {
		return 0, err
	}
	var ep epochRef
	in, err := openStream(c, input, &ep, true, "")
	if err != nil {
		return 0, err
	}
	defer in.close()
	pw, err := pcapio.NewWriter(w, c.InterfaceNames()...)
	if err != nil {
		return 0, err
	}
	var n, inputs int64
	var werr error
	m.Dev.OnOutput(func(o device.Out) {
		if werr != nil {
			return
		}
		n++
		t := time.Unix(0, ep.ns+o.Time).UTC()
		if o.Generated {
			werr = pw.Write(o.Port, t, o.Frame, len(o.Frame), "generated "+o.Kind.String())
		} else {
			werr = pw.Write(o.Port, t, o.Frame, len(o.Frame))
		}
	})
	if err := replay(m, in, &inputs, nil, nil); err != nil {
		return n, err
	}
	if werr != nil {
		return n, werr
	}
	return n, pw.Flush()
}

// GenResult says what GenerateVector did.
type GenResult struct {
	Dir     string
	Frames  int64
	Changed bool // the new expected.pcapng differs from the old one
	Created bool // there was no expected.pcapng before
	// Diff is the exact-mode comparison of the old expected.pcapng with
	// the model's new output (nil when there was none): its deviations
	// are the differences.
	Diff *Report
}

// GenerateVector regenerates dir/expected.pcapng from the model. It first
// compares the existing expected capture with the model in exact mode (the
// diff), then, unless dryRun, writes the new file when it differs.
func GenerateVector(dir string, dryRun bool) (*GenResult, error) {
	return GenerateVectorWith(dir, GenOptions{DryRun: dryRun})
}

// GenOptions say how GenerateVectorWith regenerates a vector.
type GenOptions struct {
	// DryRun compares and writes nothing.
	DryRun bool
	// Case and Input, when set, stand for the vector's case.yaml and
	// input.pcapng: a new case and input written with the new expected
	// capture (in Group), not in place yet.
	Case  *Case
	Input string
	// Group, when set, takes the new expected.pcapng as one of its files:
	// it is put in place when the group commits, with the others, or not
	// at all. Without it, the file is put in place at once.
	Group *atomicfile.Group
}

// GenerateVectorWith is GenerateVector with options: the case and input
// to generate from, and a Group that the new expected.pcapng joins.
func GenerateVectorWith(dir string, o GenOptions) (*GenResult, error) {
	dryRun := o.DryRun
	c := o.Case
	if c == nil {
		var err error
		if c, err = loadCaseIn(dir); err != nil {
			return nil, err
		}
	}
	res := &GenResult{Dir: dir}
	input, expected := filepath.Join(dir, InputFile), filepath.Join(dir, ExpectedFile)
	// expected.pcapng as a link to input.pcapng is a mistake that a
	// rename would hide (read -w refuses its output being its input too).
	if err := atomicfile.CheckNotInput(expected, input); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if o.Input != "" {
		input = o.Input
	}
	if _, err := os.Stat(expected); err == nil {
		rep, err := RunExact(c, input, expected, Options{MaxShown: 50})
		rep.Vector = dir
		if err != nil && !IsUnusable(err) {
			return nil, err
		}
		if err != nil {
			rep.Verdict, rep.Error = Unusable, err.Error()
		}
		res.Diff = rep
		res.Changed = err != nil || rep.Verdict != Pass
	} else {
		res.Created, res.Changed = true, true
	}
	// Written as every output is (atomicfile): a new file with the
	// umask applied, a replaced one keeping its mode and owner.
	create := atomicfile.Create
	if o.Group != nil {
		create = o.Group.Create
	}
	tmp, err := create(expected, atomicfile.DefaultPerm)
	if err != nil {
		return nil, err
	}
	defer tmp.Abort()
	bw := bufio.NewWriterSize(tmp, 1<<16)
	n, err := Generate(c, input, bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return nil, err
	}
	res.Frames = n
	if !res.Changed {
		// Same frames; keep the file unless its bytes differ (comments,
		// interface names).
		same, err := sameFile(expected, tmp.Name())
		res.Changed = err != nil || !same
	}
	if dryRun || !res.Changed {
		return res, nil
	}
	return res, tmp.Commit()
}

// Decisions replays input through the reference model of c and calls fn
// for every decision of its SFC switch about a data packet that met or
// came near the signalling rule (depth within near octets of Q_th, or a
// live cache entry): the rule fired and a signal was sent or suppressed,
// or it did not fire. It explains a vector ("why did the reference signal
// here?") and gives a test the reference's pause and depth for a packet.
// A decision that sent a signal is reported when the signal is built, at
// Firing.Built (bts_latency after the packet), with the pause and qd_e it
// carries. c must have an SFC switch scheme.
func Decisions(c *Case, input string, near int64, fn func(Firing)) error {
	m, err := BuildModel(c)
	if err != nil {
		return err
	}
	if m.obs == nil {
		return c.errAt("schemes", "no SFC switch scheme (sfc, sfc-cache or cim on a switch)")
	}
	m.obs.fire, m.obs.near = fn, near
	var ep epochRef
	in, err := openStream(c, input, &ep, true, "")
	if err != nil {
		return err
	}
	defer in.close()
	var n int64
	return replay(m, in, &n, nil, nil)
}

// sameFile compares two files chunk by chunk.
func sameFile(a, b string) (bool, error) {
	fa, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	ba, bb := make([]byte, 1<<16), make([]byte, 1<<16)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || string(ba[:na]) != string(bb[:nb]) {
			return false, nil
		}
		if ea == io.EOF || ea == io.ErrUnexpectedEOF {
			return eb == io.EOF || eb == io.ErrUnexpectedEOF, nil
		}
		if ea != nil {
			return false, ea
		}
		if eb != nil {
			return false, eb
		}
	}
}
