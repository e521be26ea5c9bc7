// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package main

import (
	"fmt"
	"runtime"
)

// openEthernet: live capture reads an AF_PACKET socket, which only Linux
// has; everything else sfcdump does works here.
func openEthernet(iface string, _ bool, _ int) (liveHandle, error) {
	return nil, fmt.Errorf("capture -i %s: live capture needs Linux (AF_PACKET); this is %s", iface, runtime.GOOS)
}

// ifaceSpeed: no interface speed is known where capture is not.
func ifaceSpeed(string) uint64 { return 0 }
