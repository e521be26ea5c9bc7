// SPDX-License-Identifier: Apache-2.0

package main

import (
	"strings"
	"testing"
)

// TestLinkSpeedNameAndIndex: an interface given a speed by its name and by
// its index (sample.pcapng's interface 1 is port1) takes one speed when
// they agree, and is a usage error naming both when they differ; the
// index entry is not reported as matching no interface.
func TestLinkSpeedNameAndIndex(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--link-speed", "port1=10G", "--link-speed", "1=25G"}, 2, "--link-speed port1=... and --link-speed 1=... give interface port1 (index 1) two speeds"},
		{[]string{"--link-speed", "port1=10G", "--link-speed", "1=10G"}, 0, ""},
		{[]string{"--link-speed", "port1=10G", "--link-speed", "7=10G"}, 2, "--link-speed 7=...: no interface of the input has that name or index"},
	} {
		for _, cmd := range []string{"read", "stats"} {
			args := append(append([]string{cmd}, tc.args...), sampleCap)
			_, errs, code := sfcdump(t, args...)
			if code != tc.code || tc.msg != "" && !strings.Contains(errs, tc.msg) || tc.msg == "" && errs != "" {
				t.Errorf("%v: exit %d, %q; want %d, %q", args, code, errs, tc.code, tc.msg)
			}
		}
	}
}
