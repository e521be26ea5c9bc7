// SPDX-License-Identifier: Apache-2.0

package term

import "golang.org/x/sys/windows"

// isTTY asks for the console's mode (NUL has none).
func isTTY(fd uintptr) bool {
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(fd), &mode) == nil
}
