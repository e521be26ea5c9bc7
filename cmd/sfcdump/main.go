// Command sfcdump inspects captures of datacenter flow-control signalling:
// PAUSE, PFC, RoCEv2 (with CNP and ICRC), 802.1Qcz CIM, SFC BTS, PB-FS
// CC-postcards, BFC and Floodgate frames. See `sfcdump --help`.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"
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
// capture broken part-way (or a failed live capture), 2 for bad usage or
// an unreadable file.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
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
		fmt.Fprintf(stderr, "sfcdump: %v\n", err)
	}
	return code
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

// report prints an error that does not stop the run (a broken file among
// several) on stderr.
func report(w io.Writer, err error) { fmt.Fprintf(w, "sfcdump: %v\n", err) }

func init() {
	logrus.SetOutput(os.Stderr)
	logrus.SetFormatter(&logrus.TextFormatter{DisableTimestamp: true})
}
