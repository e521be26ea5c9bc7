// SPDX-License-Identifier: Apache-2.0

// Package cim implements the IEEE 802.1Qcz congestion isolation message
// with the SFC pause extension (behaviour.md §5, wire.md §4) on top of the
// bts schemes.
//
// Build makes a CIM from the offending frame: Add = 1, the frame's MACs and
// VLAN, its IP packet as the encapsulated MSDU (first 512 octets, padded to
// 48) and, when asked, the SFC pause TLV with the pause time, C flag,
// origin and reporter a BTS would carry. The L3 form (default) is
// addressed like a BTS, from the congested receiver to the sender, UDP
// port 35234; the L2 form uses EtherType 0x89A2.
//
// FromBTS and ToBTS convert between the two carriers without losing the
// SFC fields, the addresses or the quote. Two BTS fields have no CIM field
// (congestion port and queue depth): they come back as unknown (0xFFFF and
// 0); the congestion queue comes back as 0.
//
// NewSwitch is the CIM-signalling switch mode: the SFC switch of package
// bts with an Emitter that sends a CIM where it would send a BTS, and a
// cache fed by CIMs too. NewNIC and NewSFCP make the NIC and SFC-P treat a
// CIM like its BTS. A CIM without the SFC TLV is no pause signal.
package cim
