// SPDX-License-Identifier: Apache-2.0

package liveio

import (
	"runtime"
	"time"
)

// Spin is how long before its instant SendAt stops sleeping and polls the
// clock instead: timers wake up late by up to a scheduler tick, spinning
// does not (but keeps a core busy for that long).
var Spin = 200 * time.Microsecond

// WaitUntil sleeps until about Spin before at, then polls the clock
// until at.
func WaitUntil(at time.Time) { WaitUntilSpin(at, Spin) }

// WaitUntilSpin sleeps until spin before at, then polls the clock until
// at. A spin of 0 only sleeps: it keeps no core busy, and returns late by
// the timer's slack (tens of microseconds to a scheduler tick), which a
// schedule dilated to tolerances of milliseconds does not notice.
func WaitUntilSpin(at time.Time, spin time.Duration) {
	if d := time.Until(at) - spin; d > 0 {
		time.Sleep(d)
	}
	for time.Now().Before(at) {
		runtime.Gosched()
	}
}

// SendAt waits until at and writes frame on p. It returns the instant the
// write began (the achieved send time: compare it with at to measure the
// schedule) and the write's error.
func SendAt(p *Port, at time.Time, frame []byte) (time.Time, error) {
	WaitUntil(at)
	t := time.Now()
	return t, p.Write(frame)
}
