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
	if tty, err := os.OpenFile("/dev/null", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		if !IsTerminal(tty) { // a character device, as a terminal is
			t.Error("/dev/null (a character device) not taken for one")
		}
	}
}
