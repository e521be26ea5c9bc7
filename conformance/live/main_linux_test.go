// SPDX-License-Identifier: Apache-2.0

//go:build linux

package live

import (
	"os"
	"testing"

	"github.com/opensfc/sfc/internal/netnstest"
)

// TestMain runs the live tests at a higher scheduling priority where it
// can (netnstest.Prioritize): the tests of other packages running at the
// same time then spoil fewer runs (which are INCONCLUSIVE, and retried).
func TestMain(m *testing.M) {
	netnstest.Prioritize()
	os.Exit(m.Run())
}
