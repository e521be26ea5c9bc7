// SPDX-License-Identifier: Apache-2.0

// Command gen writes the sample captures of pcaps/ from package sample:
//
//	go run ./sample/gen [-dir pcaps]
package main

import (
	"bytes"
	"flag"
	"log"
	"os"
	"path/filepath"

	"github.com/opensfc/sfc/sample"
)

func main() {
	dir := flag.String("dir", "pcaps", "directory to write sample.pcapng and malformed.pcapng into")
	flag.Parse()
	for name, frames := range map[string][]sample.Frame{"sample.pcapng": sample.Frames(), "malformed.pcapng": sample.Malformed()} {
		var buf bytes.Buffer
		if err := sample.Write(&buf, frames); err != nil {
			log.Fatalf("%s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(*dir, name), buf.Bytes(), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
