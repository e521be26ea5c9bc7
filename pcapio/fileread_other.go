// SPDX-License-Identifier: Apache-2.0

//go:build !(linux && (amd64 || arm64 || riscv64 || ppc64 || ppc64le || s390x || loong64 || mips64 || mips64le))

package pcapio

import (
	"io"
	"os"
)

// newFileReader returns f: files are read with os.File.Read here (see
// fileread_linux.go).
func newFileReader(f *os.File, regular bool) io.Reader { return f }
