// SPDX-License-Identifier: Apache-2.0

package live

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// WriteText writes the report for a person: the live verdict and its
// reasons, the schedule achieved, each port, then the device-mode report.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (live, dilate %g)", r.Vector, r.Dilate)
	if r.DUT != "" {
		fmt.Fprintf(&b, ", device %s", r.DUT)
	}
	b.WriteString("\n")
	if r.Error != "" {
		fmt.Fprintf(&b, "  %s\nverdict: %s\n", r.Error, r.Verdict)
		_, err := io.WriteString(w, b.String())
		return err
	}
	for _, x := range r.Reasons {
		fmt.Fprintf(&b, "  INCONCLUSIVE: %s\n", x)
	}
	s := r.Schedule
	fmt.Fprintf(&b, "  schedule: %d frames sent, slip max %s (input frame %d; wall clock %s), mean %s, p99 %s, %d past the %s tolerance\n",
		s.Frames, fmtNs(s.MaxNs), s.WorstFrame, fmtNs(s.WallMaxNs), fmtNs(s.MeanNs), fmtNs(s.P99Ns), s.Late, fmtNs(s.Tolerance))
	for _, p := range r.Ports {
		fmt.Fprintf(&b, "  port %-5s %-12s sent %d, captured %d (reference %d), kernel drops %d\n", p.Port, p.Interface, p.Sent, p.Captured, p.Reference, p.KernelDropped)
	}
	if r.Saved != "" {
		fmt.Fprintf(&b, "  saved: %s\n", r.Saved)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if r.Device != nil {
		if err := r.Device.WriteText(indent{w}); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "verdict: %s\n", r.Verdict)
	return err
}

type indent struct{ w io.Writer }

func (iw indent) Write(p []byte) (int, error) {
	s := "  | " + strings.ReplaceAll(strings.TrimRight(string(p), "\n"), "\n", "\n  | ") + "\n"
	if _, err := io.WriteString(iw.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	e.SetEscapeHTML(false)
	return e.Encode(r)
}

// save writes report.txt and report.json into dir, each through a
// temporary file renamed when complete.
func (r *Report) save(dir string) error {
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{{"report.txt", r.WriteText}, {"report.json", r.WriteJSON}} {
		p := filepath.Join(dir, f.name)
		fh, err := os.Create(p + ".tmp")
		if err != nil {
			return err
		}
		werr := f.write(fh)
		if err := fh.Close(); err != nil && werr == nil {
			werr = err
		}
		if werr != nil {
			os.Remove(p + ".tmp")
			return werr
		}
		if err := os.Rename(p+".tmp", p); err != nil {
			return err
		}
	}
	return nil
}
