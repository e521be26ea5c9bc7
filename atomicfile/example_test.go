// SPDX-License-Identifier: Apache-2.0

package atomicfile_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/opensfc/sfc/atomicfile"
)

// Write an output that replaces the old one only when complete, after
// checking it is not the input.
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "in.pcapng")
	out := filepath.Join(dir, "out.pcapng")
	os.WriteFile(in, []byte("capture"), 0o644)

	if err := atomicfile.CheckNotInput(in, in); err != nil {
		fmt.Println("refused:", filepath.Base(err.(*atomicfile.SameFileError).Input))
	}
	f, err := atomicfile.Create(out, atomicfile.DefaultPerm)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Abort() // removes the temporary file unless committed
	fmt.Fprint(f, "filtered capture")
	if err := f.Commit(); err != nil {
		fmt.Println(err)
		return
	}
	b, _ := os.ReadFile(out)
	fmt.Println(string(b))
	// Output:
	// refused: in.pcapng
	// filtered capture
}
