// SPDX-License-Identifier: Apache-2.0

package dissect_test

// The packages that import dissect are linked into this test binary, so
// their initialisation runs before TestMain: TestWiresharkNamesLazy then
// fails when any of them makes Wireshark's names at init (conformance's
// diff fields did, and every sfcdump command paid for it at start-up).
import (
	_ "github.com/opensfc/sfc/conformance"
	_ "github.com/opensfc/sfc/fabric"
	_ "github.com/opensfc/sfc/filter"
	_ "github.com/opensfc/sfc/stats"
	_ "github.com/opensfc/sfc/timeline"
)
