// SPDX-License-Identifier: Apache-2.0

package term

import "golang.org/x/sys/unix"

// isTTY asks the device for its terminal settings (TCGETS).
func isTTY(fd uintptr) bool {
	_, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
	return err == nil
}
