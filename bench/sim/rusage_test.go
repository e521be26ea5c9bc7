// SPDX-License-Identifier: Apache-2.0

//go:build unix

package sim

import "syscall"

// cpuSeconds returns the process's user + system CPU time, so that the
// benchmark can report events per CPU-second on a machine shared with
// other work (wall-clock events/s then understates one core's speed).
func cpuSeconds() float64 {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(r.Utime) + tv(r.Stime)
}
