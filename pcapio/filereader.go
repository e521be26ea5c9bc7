// SPDX-License-Identifier: Apache-2.0

package pcapio

import (
	"io"
	"os"
)

// NewFileReader returns a source for NewReader or NewReaderTee that reads
// f as Open reads a file: a regular file on Linux with raw preadv2 calls
// that the page cache serves without waiting (fileread_linux.go), which
// keep the Go scheduler out of each read (no hand-off of the goroutine's
// P to another thread while the kernel copies 64-128 KiB, no sysmon
// polling every 20 µs to take it back); anything else, and a read the
// page cache cannot serve, through f.Read. It reads at f's offset, as
// f.Read does, and reports f.Read's errors.
func NewFileReader(f *os.File) io.Reader {
	st, err := f.Stat()
	return newFileReader(f, err == nil && st.Mode().IsRegular())
}
