// SPDX-License-Identifier: Apache-2.0

// Command gen runs every fidelity reproducer and writes docs/fidelity.md
// (or the file named by -o), through a temporary file renamed when
// complete. Run from the module root: go run ./fidelity/gen
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/opensfc/sfc/fidelity"
)

func main() {
	out := flag.String("o", "docs/fidelity.md", "output file")
	flag.Parse()
	cs, err := fidelity.Run()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var b bytes.Buffer
	if err := fidelity.WriteMarkdown(&b, cs); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tmp, err := os.CreateTemp(filepath.Dir(*out), ".fidelity-*.md")
	if err == nil {
		_, err = tmp.Write(b.Bytes())
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), *out)
		}
		if err != nil {
			os.Remove(tmp.Name())
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bad := 0
	for _, c := range cs {
		if !c.OK() {
			bad++
		}
	}
	fmt.Printf("%s: %d claims, %d not holding\n", *out, len(cs), bad)
}
