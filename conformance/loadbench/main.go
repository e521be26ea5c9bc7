// SPDX-License-Identifier: Apache-2.0

// loadbench reads its CPU time and peak RSS with getrusage as Linux
// counts them (ru_maxrss in KiB) and the load average from /proc.

//go:build linux

// Command loadbench measures replay and comparison speed and memory on
// long captures: it writes a load vector of each size (scenario.WriteLoad:
// an SFC switch, 8 hosts at line rate, an incast every 1000 frame times),
// generates its expected output, then replays it in exact mode and in
// device mode, each in a child process so that the peak resident memory
// is that run's. Memory flat in capture length shows as the same peaks
// for 1M and 5M frames.
//
//	go run ./conformance/loadbench                       # 1M and 5M frames
//	go run ./conformance/loadbench -frames 1000000 -runs 3
//	go run ./conformance/loadbench -dir /var/tmp/lb -keep
//	GOMAXPROCS=1 loadbench -child device -dir /var/tmp/lb/load-1000000 -sequential -cpuprofile cpu.prof
//	GOMAXPROCS=1 loadbench -child device -dir /var/tmp/lb/load-1000000 -sequential -memprofile mem.prof
//
// Output: one line per run with frames, wall time, frames/s (wall),
// frames/s (CPU time of the process), peak Go heap in use (garbage
// included: it follows when the collector happens to run, and device mode
// allocates so little, 5 MB in all for 1M frames, that it runs a few
// times per run), peak live heap (as of the last collection, sampled every
// 5 ms) and peak RSS. For memory flat in capture length, compare 1M with
// 5M frames under GOGC=5, where the heap in use stays close to the live
// heap:
//
//	GOGC=5 loadbench -frames 1000000,5000000 -sequential
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/conformance/scenario"
)

type result struct {
	Mode      string  `json:"mode"`
	Frames    int64   `json:"frames"`
	Wall      float64 `json:"wall_s"`
	CPU       float64 `json:"cpu_s"`
	PeakHeap  uint64  `json:"peak_heap_bytes"`
	PeakLive  uint64  `json:"peak_live_heap_bytes"`
	MaxRSS    int64   `json:"max_rss_bytes"`
	Verdict   string  `json:"verdict"`
	Prefetch  bool    `json:"prefetch"`
	NumCPU    int     `json:"cpus"`
	LoadAvg1m string  `json:"loadavg_1m"`
}

func main() {
	framesF := flag.String("frames", "1000000,5000000", "capture lengths to measure, comma-separated")
	dir := flag.String("dir", "", "where to write the vectors (default a temporary directory)")
	keep := flag.Bool("keep", false, "keep the vectors")
	runs := flag.Int("runs", 1, "runs per size and mode")
	seq := flag.Bool("sequential", false, "read the captures on the replay goroutine")
	child := flag.String("child", "", "internal: run one measurement of mode exact|device on -dir")
	cpuprof := flag.String("cpuprofile", "", "with -child: write the run's CPU profile to this file")
	memprof := flag.String("memprofile", "", "with -child: write the run's allocation profile to this file")
	flag.Parse()
	if *child != "" {
		if *cpuprof != "" {
			f, err := os.Create(*cpuprof)
			if err != nil {
				fail(err)
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				fail(err)
			}
			defer f.Close()
			defer pprof.StopCPUProfile()
		}
		if *memprof != "" {
			runtime.MemProfileRate = 4096
		}
		r, err := measure(*child, *dir, *seq)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if *memprof != "" {
			f, err := os.Create(*memprof)
			if err != nil {
				fail(err)
			}
			if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
				fail(err)
			}
			f.Close()
		}
		json.NewEncoder(os.Stdout).Encode(r)
		return
	}
	root := *dir
	if root == "" {
		var err error
		if root, err = os.MkdirTemp("", "loadbench-"); err != nil {
			fail(err)
		}
	}
	if !*keep {
		defer os.RemoveAll(root)
	}
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	fmt.Printf("%-7s %9s %9s %12s %12s %12s %12s %12s %s\n", "mode", "frames", "wall", "frames/s", "frames/cpu-s", "peak heap", "live heap", "max RSS", "verdict")
	for _, f := range strings.Split(*framesF, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			fail(err)
		}
		vdir := filepath.Join(root, fmt.Sprintf("load-%d", n))
		if _, err := os.Stat(filepath.Join(vdir, conformance.ExpectedFile)); err != nil {
			if err := scenario.WriteLoad(vdir, scenario.LoadConfig{Frames: n}); err != nil {
				fail(err)
			}
			if _, err := conformance.GenerateVector(vdir, false); err != nil {
				fail(err)
			}
		}
		for _, mode := range []string{"exact", "device"} {
			for i := 0; i < *runs; i++ {
				args := []string{"-child", mode, "-dir", vdir}
				if *seq {
					args = append(args, "-sequential")
				}
				out, err := exec.Command(self, args...).Output()
				if err != nil {
					fail(fmt.Errorf("%s run on %s: %v", mode, vdir, err))
				}
				var r result
				if err := json.Unmarshal(out, &r); err != nil {
					fail(err)
				}
				fmt.Printf("%-7s %9d %8.2fs %12.0f %12.0f %10.1fMB %10.1fMB %10.1fMB %s (load %s)\n", r.Mode, r.Frames, r.Wall,
					float64(r.Frames)/r.Wall, float64(r.Frames)/r.CPU, float64(r.PeakHeap)/1e6, float64(r.PeakLive)/1e6, float64(r.MaxRSS)/1e6, r.Verdict, r.LoadAvg1m)
			}
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "loadbench:", err)
	os.Exit(1)
}

func cpuTime() time.Duration {
	var r syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &r)
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

// peakLive is the largest live heap (as of a GC) sampled during a run.
var peakLive atomic.Uint64

// measure runs one comparison while sampling the Go heap.
func measure(mode, dir string, seq bool) (*result, error) {
	stop := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var m runtime.MemStats
		var p uint64
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&m)
			p = max(p, m.HeapInuse)
			metrics.Read(live)
			if v := live[0].Value.Uint64(); v > peakLive.Load() {
				peakLive.Store(v)
			}
			select {
			case <-stop:
				peak <- p
				return
			case <-t.C:
			}
		}
	}()
	opt := conformance.Options{Sequential: seq}
	c0, t0 := cpuTime(), time.Now()
	var rep *conformance.Report
	var err error
	if mode == "device" {
		rep, err = conformance.CheckFiles(filepath.Join(dir, conformance.CaseFile), filepath.Join(dir, conformance.InputFile),
			filepath.Join(dir, conformance.ExpectedFile), opt)
	} else {
		rep, err = conformance.RunVector(dir, opt)
	}
	wall, cpu := time.Since(t0), cpuTime()-c0
	close(stop)
	p := <-peak
	if err != nil {
		return nil, err
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	load := "?"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.Fields(string(b))[0]
	}
	return &result{Mode: mode, Frames: rep.Frames.Input, Wall: wall.Seconds(), CPU: cpu.Seconds(), PeakHeap: p, PeakLive: peakLive.Load(), MaxRSS: int64(ru.Maxrss) * 1024,
		Verdict: rep.Verdict, Prefetch: !seq && runtime.GOMAXPROCS(0) > 1, NumCPU: runtime.NumCPU(), LoadAvg1m: load}, nil
}
