// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"

	"github.com/gopacket/gopacket/pcapgo"
)

// openEthernet opens an AF_PACKET capture on iface: a pcapgo.EthernetHandle.
func openEthernet(iface string, promisc bool, snaplen int) (liveHandle, error) {
	h, err := pcapgo.NewEthernetHandle(iface)
	if err != nil {
		return nil, err
	}
	if promisc {
		if err := h.SetPromiscuous(true); err != nil {
			h.Close()
			return nil, fmt.Errorf("promiscuous mode: %w", err)
		}
	}
	if snaplen > 0 {
		if err := h.SetCaptureLength(snaplen); err != nil {
			h.Close()
			return nil, fmt.Errorf("snaplen %d: %w", snaplen, err)
		}
	}
	return h, nil
}
