// SPDX-License-Identifier: Apache-2.0

package sample

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The shipped sample captures are exactly what this package builds, so they
// can always be regenerated with `go run ./sample/gen`.
func TestShippedCapturesAreCurrent(t *testing.T) {
	for name, frames := range map[string][]Frame{"sample.pcapng": Frames(), "malformed.pcapng": Malformed()} {
		var buf bytes.Buffer
		if err := Write(&buf, frames); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("..", "pcaps", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, buf.Bytes()) {
			t.Errorf("pcaps/%s differs from what package sample builds: run `go run ./sample/gen`", name)
		}
	}
}
