// SPDX-License-Identifier: Apache-2.0

package liveio

import (
	"testing"
	"time"
)

// WaitUntilSpin never returns before its instant, spinning or not.
func TestWaitUntilSpin(t *testing.T) {
	for _, spin := range []time.Duration{0, 100 * time.Microsecond, time.Hour} {
		at := time.Now().Add(2 * time.Millisecond)
		WaitUntilSpin(at, spin)
		if now := time.Now(); now.Before(at) {
			t.Errorf("spin %s: returned %s before its instant", spin, at.Sub(now))
		}
	}
	WaitUntilSpin(time.Now().Add(-time.Second), 0) // past: at once
}
