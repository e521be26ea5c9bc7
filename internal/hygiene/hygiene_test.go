// SPDX-License-Identifier: Apache-2.0

package hygiene

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const spdx = "SPDX-License-Identifier: Apache-2.0"

// Every Go, Lua, shell and Python source file of the module names its
// license in its first lines (tools such as REUSE and scancode read it).
func TestSPDXHeaders(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found: %v", err)
	}
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "pcaps" || name == "node_modules" || strings.HasPrefix(name, ".") && name != ".ci") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(name) {
		case ".go", ".lua", ".sh", ".py":
		default:
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		head := string(b)
		if len(head) > 400 {
			head = head[:400]
		}
		n++
		if !strings.Contains(head, spdx) {
			t.Errorf("%s: no %q in its first lines", p, spdx)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("only %d source files found: the walk is broken", n)
	}
}
