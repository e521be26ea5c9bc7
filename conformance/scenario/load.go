// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/pcapio"
)

// LoadConfig describes a long, sustainable load for speed and memory
// measurements: Hosts hosts on one SFC switch, every host sending at line
// rate. In each period of Period frame times the first tenth is an incast
// (every other host sends to the last host, whose queue grows and draws
// BTS) and the rest a permutation among the other hosts, during which the
// incast queue drains; so queues, and the model's memory, stay bounded
// however long the capture.
type LoadConfig struct {
	Frames int64 // input frames in all
	Hosts  int   // default 8
	Size   int   // captured octets per frame, default 256
	Period int64 // frame times per period, default 1000
}

// WriteLoad writes case.yaml and input.pcapng of a load vector into dir,
// streaming: memory does not grow with the number of frames.
func WriteLoad(dir string, cfg LoadConfig) error {
	if cfg.Hosts == 0 {
		cfg.Hosts = 8
	}
	if cfg.Size == 0 {
		cfg.Size = 256
	}
	if cfg.Period == 0 {
		cfg.Period = 1000
	}
	if cfg.Hosts < 3 || cfg.Hosts > 250 || cfg.Size < 64 || cfg.Frames < 1 || cfg.Period < 10 {
		return fmt.Errorf("%w: load: hosts 3..250, size 64 or more, frames 1 or more, period 10 or more", ErrUsage)
	}
	g := &common{name: "load", args: []string{fmt.Sprintf("frames=%d hosts=%d size=%d period=%d (scenario.WriteLoad)", cfg.Frames, cfg.Hosts, cfg.Size, cfg.Period)}}
	g.speed = &qty{s: "100G", v: 100 * device.Gbps}
	g.end = &qty{}
	g.size = &qty{v: int64(cfg.Size)}
	g.dscp = 26
	d := g.doc("switch", "sfc")
	d.scenario = ""
	for i := 0; i < cfg.Hosts; i++ {
		d.ports = append(d.ports, g.hostPort(i))
	}
	d.params = [][2]string{{"q_th", "60KB"}, {"q_tg", "30KB"}}
	d.desc = fmt.Sprintf("load: %d frames of %d octets, %d hosts at line rate, an incast to host %d every %d frame times", cfg.Frames, cfg.Size, cfg.Hosts, cfg.Hosts-1, cfg.Period)
	text := d.yaml()
	c, err := conformance.ParseCase("case.yaml", text)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, conformance.CaseFile), text, 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, conformance.InputFile))
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	w, err := pcapio.NewWriter(bw, c.InterfaceNames()...)
	if err != nil {
		return err
	}
	n := cfg.Hosts - 1 // senders; the last host is the incast receiver
	// One flow per (sender, destination); frames are rebuilt with a new
	// PSN and IP id each time.
	flows := make([][]*flow, n)
	for i := range flows {
		flows[i] = make([]*flow, cfg.Hosts)
		for j := range flows[i] {
			if j != i {
				flows[i][j] = flowTo(g, i, Host(j, false), HostMAC(i), SwitchMAC(i), i*cfg.Hosts+j)
			}
		}
	}
	wire := device.WireBits(cfg.Size)
	var written int64
	for slot := int64(0); written < cfg.Frames; slot++ {
		t := slot * wire * device.Second / (100 * device.Gbps)
		incast := slot%cfg.Period < cfg.Period/10
		for i := 0; i < n && written < cfg.Frames; i++ {
			dst := cfg.Hosts - 1
			if !incast {
				dst = (i + 1) % n
			}
			b, err := flows[i][dst].next()
			if err != nil {
				return err
			}
			if err := w.Write(i, Epoch.Add(time.Duration(t+int64(i))), b, len(b)); err != nil {
				return err
			}
			written++
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}
