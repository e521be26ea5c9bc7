// SPDX-License-Identifier: Apache-2.0

// Package liveio sends and captures Ethernet frames on real interfaces for
// the live tools of the project (sfcdump conform live, sfcdump emulate):
// AF_PACKET sockets through golang.org/x/sys/unix, no cgo and no libpcap.
//
//   - Port is one interface: Read returns each frame with its kernel
//     receive timestamp (SO_TIMESTAMPNS) and the VLAN tag the kernel
//     stripped put back (TPID, PCP, DEI and VID, from PACKET_AUXDATA);
//     frames the host itself sends are not read (PACKET_IGNORE_OUTGOING,
//     and the packet type as a fallback). Write sends a frame as it is.
//     Stats reads PACKET_STATISTICS: frames the kernel dropped because the
//     socket's buffer was full.
//   - SendAt sends a frame at a wall-clock instant (sleep, then a short
//     spin) and returns the instant the send began, so that a caller can
//     measure the schedule it achieved.
//   - Capture reads several ports at once into one pcapng stream, one
//     interface block per port (if_name, if_description, if_speed,
//     if_tsresol 9), frames merged in time order, and an interface
//     statistics block per port at the end (isb_ifrecv, isb_ifdrop).
//   - NgWriter is the small pcapng writer behind it (gopacket's pcapgo
//     writer has no if_speed option).
//
// Why not pcapgo.EthernetHandle: it keeps only the VLAN id of a tag the
// kernel stripped (PCP, DEI and TPID are lost, and the tag is not put back
// in the frame), which would turn every tagged PFC or RoCE frame into a
// different frame; and it cannot stop a blocked read without closing the
// socket that the sender still uses. The socket set-up is the same
// (ETH_P_ALL, PACKET_AUXDATA, SO_TIMESTAMPNS, promiscuous membership).
//
// Linux only. Opening a port needs CAP_NET_RAW (usually root).
package liveio
