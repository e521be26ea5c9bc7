// SPDX-License-Identifier: Apache-2.0

// Command floor is the raw read floor of the benchmarks: it reads a
// capture with gopacket's pcapgo (classic pcap or pcapng, through a 64 KiB
// bufio.Reader) and does nothing with the frames but count them and their
// octets. No decoder can be faster than reading the file, so sfcdump's
// frames per second are reported as a fraction of this one's.
//
//	go run ./bench/floor /tmp/bench-1m.pcap
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/pcapgo"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: floor CAPTURE")
		os.Exit(2)
	}
	n, octets, err := count(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	fmt.Printf("%d frames, %d octets\n", n, octets)
}

func count(path string) (n, octets int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	magic, err := br.Peek(4)
	if err != nil {
		return 0, 0, err
	}
	var src gopacket.ZeroCopyPacketDataSource
	if magic[0] == 0x0a && magic[1] == 0x0d {
		if src, err = pcapgo.NewNgReader(br, pcapgo.DefaultNgReaderOptions); err != nil {
			return 0, 0, err
		}
	} else if src, err = pcapgo.NewReader(br); err != nil {
		return 0, 0, err
	}
	for {
		data, _, err := src.ZeroCopyReadPacketData()
		if err == io.EOF {
			return n, octets, nil
		}
		if err != nil {
			return n, octets, err
		}
		n++
		octets += len(data)
	}
}
