// SPDX-License-Identifier: Apache-2.0

// Command sfcdump inspects captures of datacenter flow-control signalling:
// PAUSE, PFC, RoCEv2 (with CNP and ICRC), 802.1Qcz CIM, SFC BTS, PB-FS
// CC-postcards, BFC and Floodgate frames. See `sfcdump --help`.
package main

import (
	"errors"
	"fmt"
	"github.com/opensfc/sfc/atomicfile"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"

	"github.com/opensfc/sfc/dissect"
)

// exitError carries a process exit status out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes sfcdump with args and returns the exit status: 0, 1 for a
// runtime error (a capture broken part-way, a failed live capture, an
// output that cannot be written), 2 for bad usage (an unknown command or
// flag, a flag out of range, an output that is an input) or an unreadable
// input; other statuses (conformance verdicts, 130 for an interrupted
// read) pass through from the command.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(commandNamed(args))
	root.SetArgs(args)
	out := &stdoutWriter{w: stdout}
	root.SetOut(out)
	root.SetErr(stderr)
	initDefaultCommands(root)
	err := root.Execute()
	if err == nil && out.failed() != nil {
		err = &exitError{1, fmt.Errorf("standard output: %w", out.failed())}
	}
	if err == nil {
		return 0
	}
	code := 1
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	} else if isUsageError(err) {
		code = 2
	}
	if err.Error() != "" {
		report(stderr, err)
	}
	return code
}

// stdoutWriter is standard output as the commands write it. It keeps the
// first write error, so that a command whose output was lost (a full
// disk, /dev/full) exits 1 even where it did not look at a write's error
// (a help text, a list, a summary line); File gives the file it wraps to
// what asks whether standard output is a terminal or one of the inputs.
type stdoutWriter struct {
	w   io.Writer
	mu  sync.Mutex
	err error
}

func (s *stdoutWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		s.mu.Lock()
		if s.err == nil {
			s.err = err
		}
		s.mu.Unlock()
	}
	return n, err
}

// File returns the *os.File written to, nil when it is not one.
func (s *stdoutWriter) File() *os.File {
	f, _ := s.w.(*os.File)
	return f
}

// failed returns the first write error, nil when every write succeeded.
func (s *stdoutWriter) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// fileOf returns the *os.File behind w (standard output as stdoutWriter
// wraps it, or a file itself), nil when there is none.
// checkStdoutNotInput refuses (exit 2) a standard output that is one of
// the inputs: `read in.pcap 1<>in.pcap` or `>> in.pcap` would write the
// text over (or after) the capture being read, as `-w -` would.
func checkStdoutNotInput(stdout io.Writer, inputs []string) error {
	if err := atomicfile.CheckNotInputStdio("-", fileOf(stdout), os.Stdin, inputs...); err != nil {
		return usagef("%w", err)
	}
	return nil
}

func fileOf(w io.Writer) *os.File {
	switch f := w.(type) {
	case *os.File:
		return f
	case interface{ File() *os.File }:
		return f.File()
	}
	return nil
}

// isUsageError reports whether cobra rejected the command line.
func isUsageError(err error) bool {
	var u *usageError
	return errors.As(err, &u)
}

// usageError wraps cobra's flag and argument errors.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// minArgs is cobra.MinimumNArgs as a usage error (exit status 2).
func minArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.MinimumNArgs(n)(cmd, args); err != nil {
			return &usageError{fmt.Errorf("%s: %w (see '%s --help')", cmd.CommandPath(), err, cmd.CommandPath())}
		}
		return nil
	}
}

// exactArgs is cobra.ExactArgs as a usage error (exit status 2).
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return &usageError{fmt.Errorf("%s: %w (see '%s --help')", cmd.CommandPath(), err, cmd.CommandPath())}
		}
		return nil
	}
}

// noArgs is cobra.NoArgs as a usage error (exit status 2).
func noArgs(cmd *cobra.Command, args []string) error {
	if err := cobra.NoArgs(cmd, args); err != nil {
		return &usageError{fmt.Errorf("%w (see '%s --help')", err, cmd.CommandPath())}
	}
	return nil
}

// report prints an error on stderr, escaped for the terminal line by line
// (errors may quote what a capture holds: interface names, file names).
// A line after the first starts with a space: a line break in a file
// name cannot forge a line of its own ("sfcdump: ...").
func report(w io.Writer, err error) {
	lines := strings.Split(err.Error(), "\n")
	for i, l := range lines {
		lines[i] = dissect.Escape(l)
		if i > 0 && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "\t") {
			lines[i] = "  " + lines[i]
		}
	}
	fmt.Fprintf(w, "sfcdump: %s\n", strings.Join(lines, "\n"))
}

// usagef returns a usage error (exit status 2).
func usagef(format string, a ...any) error { return &usageError{fmt.Errorf(format, a...)} }

func init() {
	logrus.SetOutput(os.Stderr)
	logrus.SetFormatter(&logrus.TextFormatter{DisableTimestamp: true})
}

// escapeLines is an io.Writer that escapes each line for the terminal
// (dissect.AppendEscaped) and keeps the line breaks: for text reports,
// whose deviations quote what a capture holds. Close writes a last line
// without a break.
type escapeLines struct {
	w    io.Writer
	line []byte
	out  []byte
}

func (e *escapeLines) Write(p []byte) (int, error) {
	for _, c := range p {
		if c != '\n' {
			e.line = append(e.line, c)
			continue
		}
		e.out = append(dissect.AppendEscaped(e.out[:0], string(e.line)), '\n')
		e.line = e.line[:0]
		if _, err := e.w.Write(e.out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Close writes what is left of the last line.
func (e *escapeLines) Close() error {
	if len(e.line) == 0 {
		return nil
	}
	_, err := e.w.Write(dissect.AppendEscaped(nil, string(e.line)))
	e.line = e.line[:0]
	return err
}
