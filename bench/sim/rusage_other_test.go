//go:build !unix

package sim

func cpuSeconds() float64 { return 0 }
