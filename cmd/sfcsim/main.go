// SPDX-License-Identifier: Apache-2.0

// Command sfcsim runs fabric simulations on the reference device models
// (package fabric): `sfcsim run scenario.yaml` runs one scenario, `sfcsim
// fig NAME` reproduces a paper figure with its acceptance criteria, and
// `sfcsim sweep` runs a parameter sweep as independent seeded jobs.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/version"
	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"
)

// exitError carries an exit status out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usage(format string, a ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, a...)}
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	out := &errWriter{w: stdout}
	root := newRoot(stderr)
	root.SetArgs(args)
	root.SetOut(out)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &exitError{code: 2, err: err} })
	err := root.Execute()
	if err == nil && out.err != nil {
		// The summary or the PASS/FAIL verdicts did not reach their
		// reader (a full disk, a closed pipe): not a success.
		err = fmt.Errorf("writing standard output: %w", out.err)
	}
	if err == nil {
		return 0
	}
	code := 1
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	} else if strings.HasPrefix(err.Error(), "unknown command ") {
		code = 2 // cobra's own usage error for a mistyped command
	}
	// Errors quote inputs (scenario names, CDF and flow file names):
	// escaped, so that no control sequence reaches the terminal.
	// Lines are escaped one by one: a multi-line error (the YAML
	// decoder's) keeps its lines, each after the first indented, so that
	// a newline in a file name cannot make a line that looks like an
	// error of its own.
	lines := strings.Split(err.Error(), "\n")
	for i, l := range lines {
		lines[i] = dissect.Escape(l)
		if i > 0 && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "\t") {
			lines[i] = "  " + lines[i]
		}
	}
	fmt.Fprintf(stderr, "sfcsim: %s\n", strings.Join(lines, "\n"))
	return code
}

func newRoot(stderr io.Writer) *cobra.Command {
	var verbose bool
	root := &cobra.Command{
		Use:           "sfcsim",
		Short:         "Fabric simulator on the SFC/BFC/Floodgate/PB-FS reference models",
		Version:       version.String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRun: func(*cobra.Command, []string) {
			logrus.SetOutput(stderr)
			if verbose {
				logrus.SetLevel(logrus.DebugLevel)
			}
		},
	}
	root.PersistentFlags().BoolVarP(&verbose, "verbose", "v", false, "debug logging")
	root.AddCommand(newRunCmd(), newFigCmd(), newSweepCmd())
	return root
}

// errWriter keeps the first error of the writes to w; later writes are
// dropped.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
