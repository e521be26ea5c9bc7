// SPDX-License-Identifier: Apache-2.0

package term

import (
	"bytes"
	"os"
	"testing"
)

func TestIsTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) || IsTerminal(&bytes.Buffer{}) {
		t.Error("a file or a buffer taken for a terminal")
	}
	// /dev/null is a character device but not a terminal: `-w - >
	// /dev/null` must be allowed, as tshark allows it.
	if null, err := os.OpenFile("/dev/null", os.O_WRONLY, 0); err == nil {
		defer null.Close()
		if IsTerminal(null) {
			t.Error("/dev/null taken for a terminal")
		}
	}
	// A pseudo-terminal is one (where /dev/ptmx can be opened).
	if pt, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0); err == nil {
		defer pt.Close()
		if !IsTerminal(pt) {
			t.Error("a pseudo-terminal (/dev/ptmx) not taken for a terminal")
		}
	} else {
		t.Logf("SKIP part: no /dev/ptmx here: %v", err)
	}
}
