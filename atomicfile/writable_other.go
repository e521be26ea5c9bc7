// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package atomicfile

import "io/fs"

// dirWritable is left to the rename where files have no Unix modes.
func dirWritable(string, fs.FileInfo) error { return nil }
