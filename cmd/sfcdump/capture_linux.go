// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gopacket/gopacket/pcapgo"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// notOutgoing is a socket filter that drops the frames the host sends
// (packet type PACKET_OUTGOING) and keeps the rest whole.
var notOutgoing = mustAssemble(
	bpf.LoadExtension{Num: bpf.ExtType},
	bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.PACKET_OUTGOING, SkipFalse: 1},
	bpf.RetConstant{Val: 0},
	bpf.RetConstant{Val: 0xFFFFFFFF},
)

func mustAssemble(ins ...bpf.Instruction) []bpf.RawInstruction {
	raw, err := bpf.Assemble(ins)
	if err != nil {
		panic(err)
	}
	return raw
}

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
	// A packet socket on a loopback interface sees each frame twice: as
	// the host sends it and as it comes back in. libpcap (pcap-linux.c)
	// drops the outgoing copy on loopback only, and so does this.
	if ifi, err := net.InterfaceByName(iface); err == nil && ifi.Flags&net.FlagLoopback != 0 {
		if err := h.SetBPF(notOutgoing); err != nil {
			h.Close()
			return nil, fmt.Errorf("%s is a loopback interface, and its outgoing copies could not be filtered: %w", iface, err)
		}
	}
	return h, nil
}

// sysNet is where Linux describes network interfaces (a variable for
// tests).
var sysNet = "/sys/class/net"

// ifaceSpeed returns the speed of interface iface in bit/s as the kernel
// reports it (/sys/class/net/IFACE/speed, in Mb/s), or 0 when it does not
// know (a loopback, a link that is down: the file is unreadable or -1).
func ifaceSpeed(iface string) uint64 {
	if iface == "" || strings.ContainsAny(iface, "/\x00") || iface == "." || iface == ".." {
		return 0
	}
	b, err := os.ReadFile(filepath.Join(sysNet, iface, "speed"))
	if err != nil {
		return 0
	}
	mbps, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 32)
	if err != nil || mbps == 0 {
		return 0
	}
	return mbps * 1e6
}
