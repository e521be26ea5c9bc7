// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package atomicfile

import (
	"errors"
	"os"
)

// DescriptorOf reports false: only Unix names descriptors by path (see
// the Unix version).
func DescriptorOf(string) (int, bool) { return 0, false }

// openDescriptor is never called where DescriptorOf reports false.
func openDescriptor(int, string) (*os.File, error) {
	return nil, errors.New("atomicfile: no descriptor paths on this system")
}
