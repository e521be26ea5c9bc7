// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"path/filepath"
)

// Entry is one vector of the corpus under pcaps/: its directory (relative
// to pcaps/) and the scenario line that makes its case.yaml and input.
type Entry struct {
	Dir  string
	Line string
}

// Corpus lists every vector under pcaps/ (conformance.md "The corpus").
// `sfcdump conform scenario corpus --out pcaps` rewrites their inputs and
// `sfcdump conform gen pcaps` their expected outputs; the conformance
// tests check that each input is exactly what its line makes.
var Corpus = []Entry{
	// SFC switch, behaviour.md §1.
	{"sfc/incast-first-bts", `incast --senders 4 --burst 12KB --sync 500ns --param q_th=20KB --param q_tg=10KB --param reporter=7 --desc "SFC switch, 4-to-1 incast: the first BTS to each sender once the queue passes Q_th (origin queue, C set, depth quoted)"`},
	{"sfc/suppression-reset", `incast --senders 3 --burst 48KB --param q_th=15KB --param q_tg=5KB --param reset=2us --desc "SFC switch, 3-to-1 incast: each flow is signalled once per 2us reset period while the queue stays above Q_th"`},
	{"sfc/incast-ipv6", `incast --ipv6 --senders 3 --flows 2 --burst 8KB --sync 1us --seed 3 --param q_th=16KB --param q_tg=8KB --desc "SFC switch over IPv6, 3 senders with 2 flows each, seeded sync window: BTS per 5-tuple and QP"`},
	{"sfc/incast-estimator", `incast --senders 4 --burst 16KB --sync 300ns --param q_th=200KB --param estimator=true --param estimator_window=2us --desc "SFC switch with the incast estimator: estimate-origin BTS before the queue reaches Q_th"`},
	{"sfc/bts-latency", `incast --senders 4 --burst 12KB --sync 500ns --param q_th=20KB --param q_tg=10KB --param bts_latency=1us --desc "SFC switch with a 1us BTS pipeline latency: the decision at ingress, the BTS built and sent 1us later with the pause and depth of the queue then"`},
	{"sfc/estimator-remote-speed", `incast --senders 4 --burst 32KB --sync 300ns --recv-speed 400G --param q_th=200KB --param q_tg=100KB --param estimator=true --param estimator_window=2us --param remote_speed=200G --desc "SFC incast estimator behind a 400G port: 4 x 100G senders, no local queue, the estimate drains at remote_speed 200G (not the 400G egress port) and fires"`},
	{"sfc/flow-mix", `mix --hosts 5 --receivers 1 --elephants 2 --mice 16 --elephant 32KB --mouse 2KB --duration 10us --seed 5 --param q_th=8KB --param q_tg=4KB --desc "SFC switch, seeded flow mix of 2 elephants and 16 mice from 4 senders to one receiver: every flow that meets the queue above Q_th is signalled, mice included"`},
	{"sfc/nic-pause-resume", `nic --flows 2 --frames 20 --signals 3us@500ns,0@2us --desc "SFC NIC: a BTS pauses one flow for 3us, a pause-0 BTS resumes it early; the other flow keeps the line"`},
	{"sfc/nic-overwrite", `nic --flows 3 --frames 12 --signals 10us@300ns,2us@600ns:1,1us@900ns --desc "SFC NIC: a later BTS overwrites an earlier pause (10us cut to 1us), flows matched by 5-tuple and QP"`},
	// SFC pause cache, behaviour.md §1 (near-source).
	{"sfc-cache/sender-tor-hit", `sender-tor --hosts 2 --signals 20us@5us --duration 30us --desc "SFC sender-side ToR with the pause cache: a remote BTS with C set fills the cache; later packets of both hosts to that receiver get cache-origin BTS"`},
	{"sfc-cache/not-cacheable", `sender-tor --hosts 2 --signals 20us@5us --cacheable=false --duration 20us --desc "SFC sender-side ToR with the pause cache: a remote BTS without C is forwarded but fills no cache entry"`},
	// SFC-P, behaviour.md §3.
	{"sfc-p/bts-to-pfc", `sender-tor --scheme sfc,sfc-p --hosts 2 --signals 20us@3us,50us@6us:1,0@9us --duration 12us --desc "SFC-P at the sender-side ToR: BTS to local hosts are consumed and replaced by PFC frames (time in quanta, pause 0 = resume)"`},
	{"sfc-p/cache-hit-to-pfc", `sender-tor --scheme sfc-cache,sfc-p --hosts 2 --signals 20us@3us --duration 12us --desc "SFC-P with the pause cache: the remote BTS and the cache hits this ToR generates itself for its local hosts all become PFC frames"`},
	// PFC and PAUSE, behaviour.md §4.
	{"pfc/lossless-dynamic-threshold", `incast --scheme pfc --senders 3 --burst 48KB --device buffer=100KB --device dynamic_threshold=true --param xoff=20KB --param xon=10KB --param refresh=2us --param quanta=1000 --desc "PFC switch with a 100KB shared buffer and the egress dynamic threshold, 3-to-1 incast: lossless frames are never dropped by the threshold (XOFF, headroom, every frame forwarded)"`},
	{"pfc/xoff-refresh-xon", `incast --scheme pfc --senders 3 --burst 48KB --param xoff=20KB --param xon=10KB --param refresh=2us --param quanta=1000 --desc "PFC switch, 3-to-1 incast: XOFF when an ingress count passes xoff, refreshed every 2us, XON once it falls to xon"`},
	{"pfc/storm", `storm --senders 2 --frames 40 --pauses 65535@1us,65535@100us,0@150us --param xoff=10KB --param refresh=20us --desc "PFC storm: a host pauses its port's data class; its queue holds, the senders get XOFF and refreshes, the bystander's traffic passes, resume drains"`},
	{"pfc/pause-8023x", `storm --pause --senders 1 --frames 16 --pauses 2000@1us,0@8us --bystander=false --desc "802.3x PAUSE: every class of the pausing host's port stops for 2000 quanta and resumes on a pause of 0"`},
	{"pfc/nic-receiver", `nic --scheme pfc --flows 2 --frames 10 --signals "" --pfc 400@1us,0@3us --inbound 0 --desc "NIC PFC receiver: the data class stops for 400 quanta and resumes on time 0"`},
	// CIM, behaviour.md §5.
	{"cim/incast-sfc-tlv", `incast --scheme cim --senders 4 --burst 12KB --sync 500ns --param q_th=20KB --param q_tg=10KB --param reporter=9 --desc "CIM-signalling switch: an L3 802.1Qcz CIM with the SFC pause TLV where SFC sends a BTS"`},
	{"cim/incast-legacy", `incast --scheme cim --senders 3 --burst 12KB --param q_th=20KB --param q_tg=10KB --param cim_tlv=false --desc "CIM-signalling switch without the SFC extension: plain 802.1Qcz CIMs carrying the offending frame"`},
	{"cim/incast-l2", `incast --scheme cim --senders 3 --burst 12KB --param q_th=20KB --param q_tg=10KB --param cim_l2=true --desc "CIM-signalling switch sending L2 CIMs (EtherType 0x89A2) with the SFC TLV"`},
	{"cim/nic-sfc-tlv", `nic --signal cim --flows 2 --frames 16 --signals 3us@500ns --desc "NIC treats an SFC-extended CIM like its BTS: the quoted flow pauses for 3us"`},
	{"cim/nic-legacy", `nic --signal cim-legacy --flows 2 --frames 16 --signals 3us@500ns --desc "NIC and a plain CIM without the SFC TLV: no pause; the CIM is delivered to the host"`},
	{"cim/sender-tor-cache", `sender-tor --signal cim --hosts 2 --signals 20us@5us --duration 20us --desc "CIM-signalling ToR with the pause cache: an SFC-extended CIM with C fills the cache like a BTS"`},
	// BFC, behaviour.md §6.
	{"bfc/pause-resume", `incast --scheme bfc --senders 3 --flows 2 --burst 16KB --param n_q=4 --end 30us --desc "BFC switch, 3-to-1 incast: flows over Th are paused at their ingress by Bloom-filter pause frames every tau and resumed one per tau"`},
	{"bfc/collisions", `incast --scheme bfc --senders 2 --flows 9 --burst 4KB --param filter_len=1B --param k=1 --param n_q=4 --end 40us --desc "BFC switch with an 8-bit filter and 9 flows per sender: filter collisions pause flows the rule did not pick"`},
	{"bfc/nic-stale-sequence", `nic --scheme bfc --flows 2 --frames 20 --signals "" --bfc 1:0@300ns,2:@1us,1:0@1500ns --inbound 0 --desc "BFC NIC: a pause frame stops flow 0, the next clears it, a later frame with a stale sequence is ignored"`},
	// Floodgate, behaviour.md §7.
	{"floodgate/window-credit-dstpause", `floodgate --hosts 2 --burst 24KB --param tau=2us --param bdp=5KB --param m=1 --param dst_pause=8KB --param delay_credit=10KB --desc "Floodgate ToR: the window to a remote receiver fills, its VOQ holds frames and dst-pauses the hosts; credits from downstream drain it and resume them; credits to upstream are delayed while the VOQ is long"`},
	{"floodgate/credit-at-enqueue", `floodgate --hosts 1 --burst 2KB --upstream 0 --local 60 --param tau=2us --desc "Floodgate ToR: 60 frames from the upstream switch to a local host; each tau's credit frame counts every frame that joined the host port's queue by then, the one still on the wire included"`},
	{"floodgate/nic-dst-pause", `nic --scheme floodgate --flows 2 --frames 20 --signals "" --dstpause 65535us@300ns,0@1500ns --inbound 0 --desc "Floodgate NIC: a dst-pause stops the flow to that destination until a pause of 0 resumes it; the other flow goes on"`},
	// PB-FS, behaviour.md §8.
	{"pbfs/congested", `incast --scheme pbfs --senders 4 --burst 48KB --mark 6 --param dc_rtt=10us --desc "PB-FS switch, 4-to-1 incast with every 6th packet marked: congested assessments answered with CC-postcards to the senders"`},
	{"pbfs/uncongested", `incast --scheme pbfs --senders 1 --burst 64KB --load 0.5 --mark 6 --param dc_rtt=10us --desc "PB-FS switch, one sender at half rate with every 6th packet marked: uncongested assessments, no postcard"`},
	{"pbfs/nic-postcard", `nic --scheme pbfs --flows 2 --frames 30 --signals "" --postcards 1us --inbound 0 --desc "PB-FS sender: marks every 6th packet and cuts flow 0's rate on a CC-postcard before its first ACK"`},
	// Malformed input.
	{"malformed/mixed", `malformed --desc "malformed and truncated frames (runts, cut headers, bad versions and lengths, short quotes, broken TLVs) between good traffic: dropped or forwarded, never fatal"`},
	// Every parameter a vendor sets, with a non-default value (conformance.md
	// "The corpus"; TestCorpusCoverage checks the list).
	{"sfc/speed-10g", `incast --speed 10G --senders 4 --burst 12KB --sync 500ns --param q_th=5KB --param q_tg=2KB --desc "SFC switch with 10G ports, 4-to-1 incast: pause times drain Q_tg at 10 Gb/s"`},
	{"sfc/speed-mix", `incast --speeds 10G,25G,40G,400G --senders 4 --burst 16KB --sync 2us --param q_th=5KB --param q_tg=2KB --desc "SFC switch with senders at 10G, 25G, 40G and 400G into a 100G receiver port: frame times per port speed, pause at the egress port's speed"`},
	{"pfc/xoff-25g", `incast --scheme pfc --speed 25G --senders 3 --burst 32KB --param xoff=10KB --param xon=5KB --desc "PFC switch with 25G ports, 3-to-1 incast: XOFF of 0xFFFF quanta (1.34ms at 25G, refreshed after half of it) and XON when the count falls to xon"`},
	{"sfc-p/bts-to-pfc-40g", `sender-tor --scheme sfc,sfc-p --speed 40G --hosts 2 --signals 20us@3us,50us@6us:1,0@9us --duration 12us --desc "SFC-P with 40G ports: the BTS pause times become PFC quanta at 40 Gb/s"`},
	{"pfc/priority-dscp-map", `incast --scheme pfc --dscp 10 --dscp-class 10=5 --senders 3 --burst 48KB --param xoff=20KB --param xon=10KB --param refresh=2us --param quanta=1000 --desc "PFC switch with a DSCP map (DSCP 10 to class 5): XOFF, refresh and XON on priority 5"`},
	{"sfc-p/dscp-map-priority", `sender-tor --scheme sfc,sfc-p --speed 25G --dscp 34 --dscp-class 34=1 --hosts 2 --signals 20us@3us,50us@6us:1,0@9us --duration 12us --desc "SFC-P with a DSCP map (DSCP 34 to class 1) and 25G ports: PFC frames on priority 1"`},
	{"sfc/incast-vlan", `incast --vlan 100 --senders 3 --burst 12KB --param q_th=20KB --param q_tg=10KB --desc "SFC switch, 3-to-1 incast of 802.1Q-tagged traffic (VLAN 100, PCP 3): tagged data forwarded, BTS to every sender"`},
	{"cim/incast-vlan", `incast --scheme cim --vlan 100 --pcp 5 --senders 3 --burst 12KB --param q_th=20KB --param q_tg=10KB --desc "CIM-signalling switch, tagged traffic (VLAN 100, PCP 5): the CIM carries the offending frame's VLAN id"`},
	{"cim/incast-l2-vlan", `incast --scheme cim --vlan 2001 --senders 3 --burst 12KB --param q_th=20KB --param q_tg=10KB --param cim_l2=true --desc "CIM-signalling switch sending L2 CIMs about tagged traffic: vlan_identifier 2001"`},
	{"sfc/nic-ipv6", `nic --ipv6 --flows 2 --frames 20 --signals 3us@500ns,0@2us --desc "SFC NIC over IPv6: a BTS pauses one flow for 3us, a pause-0 BTS resumes it early"`},
	{"cim/incast-ipv6", `incast --ipv6 --scheme cim --senders 3 --burst 12KB --param q_th=20KB --param q_tg=10KB --desc "CIM-signalling switch over IPv6: L3 CIMs over IPv6/UDP quoting the IPv6 offending frame, with the SFC TLV"`},
	{"cim/nic-ipv6", `nic --ipv6 --signal cim --flows 2 --frames 16 --signals 3us@500ns --desc "NIC over IPv6: an SFC-extended CIM over IPv6 pauses the quoted flow for 3us"`},
	{"sfc-cache/sender-tor-ipv6", `sender-tor --ipv6 --hosts 2 --signals 20us@5us --duration 20us --desc "SFC sender-side ToR over IPv6 with the pause cache: a remote IPv6 BTS fills the cache; later packets get cache-origin BTS"`},
	{"sfc-p/bts-to-pfc-ipv6", `sender-tor --ipv6 --scheme sfc,sfc-p --hosts 2 --signals 20us@3us,50us@6us:1,0@9us --duration 12us --desc "SFC-P over IPv6: IPv6 BTS to local hosts become PFC frames"`},
	{"pbfs/congested-ipv6", `incast --ipv6 --scheme pbfs --senders 4 --burst 48KB --mark 6 --param dc_rtt=10us --desc "PB-FS switch over IPv6, 4-to-1 incast with every 6th packet marked (traffic class bit): CC-postcards over IPv6"`},
	{"pbfs/nic-postcard-ipv6", `nic --ipv6 --scheme pbfs --flows 2 --frames 30 --signals "" --postcards 1us --inbound 0 --desc "PB-FS sender over IPv6: an IPv6 CC-postcard cuts flow 0's rate"`},
	{"floodgate/window-credit-ipv6", `floodgate --ipv6 --hosts 2 --burst 24KB --param tau=2us --param bdp=5KB --param m=1 --param dst_pause=8KB --param delay_credit=10KB --desc "Floodgate ToR over IPv6: credits and dst-pauses with IPv6 destinations (address family 6)"`},
	{"floodgate/nic-dst-pause-ipv6", `nic --ipv6 --scheme floodgate --flows 2 --frames 20 --signals "" --dstpause 65535us@300ns,0@1500ns --inbound 0 --desc "Floodgate NIC over IPv6: a dst-pause for an IPv6 destination stops its flow until a pause of 0"`},
	{"bfc/ipv6-shared-queues", `incast --ipv6 --scheme bfc --senders 2 --flows 4 --burst 12KB --param n_q=2 --end 30us --desc "BFC switch over IPv6 with 8 flows and 2 physical queues: flows share queues, IPv6 flow hashes in the pause filters"`},
	{"sfc/pause-clamp", `incast --senders 1 --burst 128KB --param q_th=200KB --param reset=1us --param estimator=true --param estimator_window=20ms --param remote_speed=10Mbps --desc "SFC incast estimator toward a 10 Mb/s remote receiver (20ms window), one 100G sender: pause times grow past 65535us and are clamped to 65535"`},
	{"sfc-p/quanta-clamp", `sender-tor --scheme sfc,sfc-p --hosts 2 --signals 1000us@3us,0@8us --duration 10us --desc "SFC-P: a 1000us BTS is 195313 quanta at 100G, clamped to 0xFFFF"`},
	{"sfc/uplink-no-c", `incast --remote --senders 3 --burst 12KB --speed 40G --param q_th=10KB --param q_tg=5KB --desc "SFC switch with 40G ports, incast toward a network-facing uplink: BTS with the C flag clear"`},
	{"cim/uplink-no-c", `incast --remote --scheme cim --senders 3 --burst 12KB --param q_th=10KB --param q_tg=5KB --desc "CIM-signalling switch, incast toward a network-facing uplink: the SFC TLV's C flag clear"`},
	{"sfc-cache/cache-estimator", `sender-tor --hosts 2 --uplink-speed 400G --interval 100ns --duration 8us --signals 20us@3us --param estimator=true --param estimator_window=2us --param q_th=20KB --param q_tg=10KB --desc "SFC sender-side ToR with the pause cache and the incast estimator: estimate-origin BTS, then a remote BTS fills the cache and cache-origin BTS follow"`},
	{"sfc-p/port-off", `sender-tor --scheme sfc,sfc-p --sfcp-ports 0 --hosts 2 --signals 20us@3us,20us@4us:1,0@6us,0@7us:1 --duration 8us --desc "SFC-P on for port 0 only: host 0's BTS become PFC frames, host 1's (SFC-P off) are forwarded as BTS"`},
	{"sfc/shared-buffer-dt", `incast --senders 1 --speeds 400G --burst 64KB --device buffer=60KB --device dynamic_threshold=true --device alpha=1 --param q_th=20KB --param q_tg=5KB --desc "SFC switch with a 60KB shared buffer and the dynamic threshold (alpha 1), a 400G sender into a 100G port: the queue is held at alpha x the free buffer and the rest dropped, the BTS as usual"`},
	{"sfc/two-switch-receiver", `two-switch --switch receiver --param q_th=20KB --param q_tg=10KB --param reporter=1 --desc "two switches, receiver-side ToR: 2 local and 2 remote senders (through a 400G uplink) to one receiver; BTS to the remote senders leave on the uplink with C set"`},
	{"sfc-cache/two-switch-sender", `two-switch --switch sender --param q_th=20KB --param q_tg=10KB --param reporter=1 --desc "two switches, sender-side ToR: the receiver-side ToR's BTS (its vector sfc/two-switch-receiver) cross the link, fill the pause cache and cache-origin BTS follow"`},
}

// WriteCorpus writes every corpus vector's case.yaml and input.pcapng
// under root (pcaps/).
func WriteCorpus(root string) error {
	for _, e := range Corpus {
		v, err := MakeLine(e.Line)
		if err != nil {
			return err
		}
		if err := v.Write(filepath.Join(root, filepath.FromSlash(e.Dir))); err != nil {
			return err
		}
	}
	return nil
}
