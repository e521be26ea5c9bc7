// SPDX-License-Identifier: Apache-2.0

// Package term answers the one question the commands ask of their
// outputs: is it a terminal (to draw a progress line, or to refuse a
// binary capture on it)?
package term

import (
	"io"
	"os"
)

// IsTerminal reports whether w is a terminal: a character device that
// answers the terminal's own query (a termios ioctl; GetConsoleMode on
// Windows). /dev/null and other character devices are not terminals. A
// writer with a File method (sfcdump's standard output, which wraps the
// file) is asked about that file.
func IsTerminal(w io.Writer) bool {
	if u, ok := w.(interface{ File() *os.File }); ok {
		w = u.File() // a writer that wraps a file: sfcdump's standard output
	}
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	return isTTY(f.Fd())
}
