// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStdoutIsInputRefused: text, JSON or stats written to a standard
// output that is one of the inputs (the shell's `1<> in.pcap` or
// `>> in.pcap`) is refused with exit 2 before anything is written, as
// `-w -` already was; the capture stays whole. A pipe or another file is
// fine.
func TestStdoutIsInputRefused(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.pcapng")
	orig := copyFile(t, sampleCap, in)
	for _, tc := range []struct {
		args []string
		flag int
	}{
		{[]string{"read", in}, os.O_RDWR},
		{[]string{"read", "-T", "json", in}, os.O_RDWR},
		{[]string{"read", "-V", in}, os.O_WRONLY | os.O_APPEND},
		{[]string{"stats", in}, os.O_RDWR},
		{[]string{"stats", "--json", in}, os.O_WRONLY | os.O_APPEND},
	} {
		out, err := os.OpenFile(in, tc.flag, 0)
		if err != nil {
			t.Fatal(err)
		}
		var errs bytes.Buffer
		code := run(tc.args, out, &errs)
		out.Close()
		if code != 2 || !strings.Contains(errs.String(), "standard output is the same file as the input") {
			t.Errorf("%v: exit %d, %q", tc.args, code, errs.String())
		}
		if b, _ := os.ReadFile(in); !bytes.Equal(b, orig) {
			t.Fatalf("%v: the input was changed", tc.args)
		}
	}
	other, err := os.Create(filepath.Join(dir, "out.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if code := run([]string{"read", in}, other, io.Discard); code != 0 {
		t.Errorf("read into another file: exit %d", code)
	}
}
