// SPDX-License-Identifier: Apache-2.0

// Command gen writes the benchmark capture: by default 1,000,000 Ethernet
// frames, 50% RoCEv2 RDMA WRITE Only of 1 KiB (with RETH and a correct
// ICRC), 25% PFC and 25% CNP, over a few hundred queue pairs, one frame per
// microsecond, as classic pcap (or pcapng). It streams: memory does not
// depend on the count.
//
//	go run ./bench/gen -n 1000000 -o /tmp/bench-1m.pcap
//	go run ./bench/gen -n 5000000 -mix 50,25,25 -format pcapng -o /tmp/bench-5m.pcapng
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gopacket/gopacket"
	glayers "github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/sample"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

type options struct {
	n       int
	out     string
	mix     [3]int // write, pfc, cnp weights
	format  string
	qps     int
	payload int
}

func parseMix(s string) ([3]int, error) {
	var m [3]int
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return m, fmt.Errorf("-mix %s: want WRITE,PFC,CNP weights like 50,25,25", s)
	}
	sum := 0
	for i, p := range parts {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v < 0 {
			return m, fmt.Errorf("-mix %s: %q is not a weight", s, p)
		}
		m[i] = v
		sum += v
	}
	if sum == 0 {
		return m, fmt.Errorf("-mix %s: weights add up to 0", s)
	}
	return m, nil
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	var o options
	var mix string
	fs.IntVar(&o.n, "n", 1_000_000, "number of frames")
	fs.StringVar(&o.out, "o", "-", "output file ('-' for stdout)")
	fs.StringVar(&mix, "mix", "50,25,25", "weights of RoCEv2 WRITE, PFC and CNP frames")
	fs.StringVar(&o.format, "format", "pcap", "pcap or pcapng")
	fs.IntVar(&o.qps, "qps", 256, "number of queue pairs the WRITEs and CNPs use")
	fs.IntVar(&o.payload, "payload", 1024, "RDMA WRITE payload octets")
	if err := fs.Parse(args); err != nil {
		return err
	}
	m, err := parseMix(mix)
	if err != nil {
		return err
	}
	o.mix = m
	if o.n < 0 || o.qps < 1 || o.qps > 1<<16 || o.payload < 0 || o.payload > 8192 {
		return fmt.Errorf("-n, -qps (1..65536) or -payload (0..8192) out of range")
	}
	var w io.Writer = stdout
	if o.out != "-" {
		f, err := os.Create(o.out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := generate(bw, &o); err != nil {
		return fmt.Errorf("%s: %w", o.out, err)
	}
	return bw.Flush()
}

// frameWriter is pcap or pcapng.
type frameWriter interface {
	WritePacket(ci gopacket.CaptureInfo, data []byte) error
}

var (
	hostA = netip.MustParseAddr("10.1.0.1")
	hostB = netip.MustParseAddr("10.1.0.2")
	start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
)

// templates are one frame per kind; generate patches QP, PSN and PFC
// times into copies and fixes the ICRC.
type templates struct {
	write, cnp, pfc []byte
}

func makeTemplates(payload int) (*templates, error) {
	write, err := sample.RoCE(hostA, hostB, 26, 49152, &layers.BTH{Opcode: layers.OpcodeRCWriteOnly, PKey: 0xffff, DestQP: 1, AckReq: true,
		RETH: layers.RETH{VA: 0x7f0000000000, RKey: 0x1234, DMALen: uint32(payload)}}, bytes.Repeat([]byte{0x5a}, payload))
	if err != nil {
		return nil, err
	}
	cnp, err := sample.RoCE(hostB, hostA, 48, 49152, &layers.BTH{Opcode: layers.OpcodeCNP, PKey: 0xffff, BECN: true, DestQP: 1}, nil)
	if err != nil {
		return nil, err
	}
	pfc := &layers.PFC{}
	pfc.Enable(3, 0xffff)
	pfcF, err := sample.L2Frame(net.HardwareAddr{0x02, 0, 0, 0, 0, 0x02}, layers.MACControlDst, layers.EthernetTypeMACControl, pfc)
	if err != nil {
		return nil, err
	}
	return &templates{write: write, cnp: cnp, pfc: pfcF}, nil
}

const bthOff = 14 + 20 + 8 // Ethernet, IPv4 without options, UDP

func generate(w io.Writer, o *options) error {
	t, err := makeTemplates(o.payload)
	if err != nil {
		return err
	}
	var fw frameWriter
	if o.format == "pcapng" {
		ng, err := pcapgo.NewNgWriterInterface(w, pcapgo.NgInterface{Name: "port0", LinkType: glayers.LinkTypeEthernet, TimestampResolution: 9},
			pcapgo.NgWriterOptions{SectionInfo: pcapgo.NgSectionInfo{Application: "opensfc bench/gen"}})
		if err != nil {
			return err
		}
		defer ng.Flush()
		fw = ng
	} else if o.format == "pcap" {
		pw := pcapgo.NewWriterNanos(w)
		if err := pw.WriteFileHeader(65535, glayers.LinkTypeEthernet); err != nil {
			return err
		}
		fw = pw
	} else {
		return fmt.Errorf("-format %s: want pcap or pcapng", o.format)
	}
	total := o.mix[0] + o.mix[1] + o.mix[2]
	psn := make([]uint32, o.qps)
	buf := make([]byte, 0, len(t.write))
	// Each run of `total` frames holds the kinds by weight, interleaved
	// (err toward spreading kinds rather than bunching them).
	pattern := make([]int, 0, total)
	acc := [3]int{}
	for len(pattern) < total {
		best := 0
		for k := 1; k < 3; k++ {
			if o.mix[k]*(acc[best]+1) > o.mix[best]*(acc[k]+1) {
				best = k
			}
		}
		acc[best]++
		pattern = append(pattern, best)
	}
	for i := 0; i < o.n; i++ {
		qp := uint32(i*7919) % uint32(o.qps)
		switch pattern[i%total] {
		case 0:
			buf = append(buf[:0], t.write...)
			putQP(buf[bthOff:], 0x100+qp)
			p := psn[qp]
			psn[qp] = (p + 1) & 0xffffff
			buf[bthOff+9], buf[bthOff+10], buf[bthOff+11] = byte(p>>16), byte(p>>8), byte(p)
			if err := layers.FixICRC(buf[14:]); err != nil {
				return err
			}
		case 1:
			buf = append(buf[:0], t.pfc...)
			binary.BigEndian.PutUint16(buf[14+4+2*3:], uint16(0x1000+i%0xf000))
		case 2:
			buf = append(buf[:0], t.cnp...)
			putQP(buf[bthOff:], 0x100+qp)
			if err := layers.FixICRC(buf[14:]); err != nil {
				return err
			}
		}
		ci := gopacket.CaptureInfo{Timestamp: start.Add(time.Duration(i) * time.Microsecond), CaptureLength: len(buf), Length: len(buf)}
		if err := fw.WritePacket(ci, buf); err != nil {
			return fmt.Errorf("frame %d: %w", i+1, err)
		}
	}
	return nil
}

func putQP(bth []byte, qp uint32) { bth[5], bth[6], bth[7] = byte(qp>>16), byte(qp>>8), byte(qp) }
