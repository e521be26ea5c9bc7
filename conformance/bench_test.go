// SPDX-License-Identifier: Apache-2.0

package conformance_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/opensfc/sfc/conformance"
	"github.com/opensfc/sfc/conformance/scenario"
)

var (
	loadOnce sync.Once
	loadDir  string
	loadErr  error
)

// loadVector makes, once per test binary, a 200,000-frame load vector (8
// hosts on an SFC switch, incasts to one host every 1000 frame times; see
// scenario.LoadConfig) with its expected output from the model.
func loadVector(b *testing.B) string {
	b.Helper()
	loadOnce.Do(func() {
		loadDir, loadErr = os.MkdirTemp("", "sfc-load-")
		if loadErr != nil {
			return
		}
		if loadErr = scenario.WriteLoad(loadDir, scenario.LoadConfig{Frames: 200_000}); loadErr != nil {
			return
		}
		_, loadErr = conformance.GenerateVector(loadDir, false)
	})
	if loadErr != nil {
		b.Fatal(loadErr)
	}
	return loadDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if loadDir != "" {
		os.RemoveAll(loadDir)
	}
	os.Exit(code)
}

// BenchmarkReplayExactSFC replays a 200,000-frame capture through the SFC
// switch model and compares every output frame with the expected capture
// (exact mode, both captures streamed from disk). frames/s counts input
// frames.
func BenchmarkReplayExactSFC(b *testing.B) {
	dir := loadVector(b)
	b.ReportAllocs()
	b.ResetTimer()
	var frames int64
	for i := 0; i < b.N; i++ {
		rep, err := conformance.RunVector(dir, conformance.Options{})
		if err != nil || rep.Verdict != conformance.Pass {
			b.Fatalf("%v %s", err, rep.Verdict)
		}
		frames += rep.Frames.Input
	}
	b.ReportMetric(float64(frames)/b.Elapsed().Seconds(), "frames/s")
}

// BenchmarkReplayExactSFCSequential is BenchmarkReplayExactSFC reading the
// captures on the replay's goroutine.
func BenchmarkReplayExactSFCSequential(b *testing.B) {
	dir := loadVector(b)
	b.ReportAllocs()
	b.ResetTimer()
	var frames int64
	for i := 0; i < b.N; i++ {
		rep, err := conformance.RunVector(dir, conformance.Options{Sequential: true})
		if err != nil || rep.Verdict != conformance.Pass {
			b.Fatalf("%v %s", err, rep.Verdict)
		}
		frames += rep.Frames.Input
	}
	b.ReportMetric(float64(frames)/b.Elapsed().Seconds(), "frames/s")
}

// BenchmarkCheckDeviceSFC checks the same capture in device mode (the
// expected output standing for a device's): every property check on.
func BenchmarkCheckDeviceSFC(b *testing.B) {
	dir := loadVector(b)
	b.ReportAllocs()
	b.ResetTimer()
	var frames int64
	for i := 0; i < b.N; i++ {
		rep, err := conformance.CheckFiles(filepath.Join(dir, conformance.CaseFile), filepath.Join(dir, conformance.InputFile),
			filepath.Join(dir, conformance.ExpectedFile), conformance.Options{})
		if err != nil || rep.Verdict != conformance.Pass {
			b.Fatalf("%v %s", err, rep.Verdict)
		}
		frames += rep.Frames.Input
	}
	b.ReportMetric(float64(frames)/b.Elapsed().Seconds(), "frames/s")
}
