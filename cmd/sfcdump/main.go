// Command sfcdump inspects captures of datacenter flow-control signalling:
// PAUSE, PFC, RoCEv2 (with CNP and ICRC), 802.1Qcz CIM, SFC BTS, PB-FS
// CC-postcards, BFC and Floodgate frames. See `sfcdump --help`.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/sirupsen/logrus"
)

// exitError carries a process exit status out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func main() {
	root := newRootCmd()
	if err := root.Execute(); err != nil {
		code := 1
		var ee *exitError
		if errors.As(err, &ee) {
			code = ee.code
		}
		if err.Error() != "" {
			logrus.Error(err)
		}
		os.Exit(code)
	}
}

func init() {
	logrus.SetOutput(os.Stderr)
	logrus.SetFormatter(&logrus.TextFormatter{DisableTimestamp: true})
	_ = fmt.Sprint
}
