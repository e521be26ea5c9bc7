// SPDX-License-Identifier: Apache-2.0

package cim

import (
	"encoding/hex"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/opensfc/sfc/bts"
	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/pfc"
)

// seeds returns valid frames of every kind the schemes parse.
func seeds(t testing.TB) [][]byte {
	data := trigger(t, hostA, hostB, true, 1078)
	v6 := trigger(t, v6a, v6b, false, 200)
	b1, _ := bts.Build(nil, data, bts.Signal{PauseUS: 5, Cacheable: true}, bts.BuildOptions{})
	b2, _ := bts.Build(nil, v6, bts.Signal{PauseUS: 5, Cacheable: true}, bts.BuildOptions{})
	c1, _ := Build(nil, data, &bts.Signal{PauseUS: 5, Cacheable: true}, Options{})
	c2, _ := Build(nil, v6, &bts.Signal{PauseUS: 5}, Options{L2: true})
	return [][]byte{data, v6, b1, b2, c1, c2,
		pfc.AppendFrame(nil, device.MAC{}, 0xff, [8]uint16{1, 2, 3, 4, 5, 6, 7, 8}), pfc.AppendPause(nil, device.MAC{}, 9)}
}

func robustDevices(t testing.TB) (*device.Device, *device.Device) {
	sw, err := device.NewSwitch(device.Config{Name: "tor", Buffer: 200_000, DynamicThreshold: true, Ports: []device.PortConfig{
		{ID: 0, Speed: 100 * device.Gbps, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(hostA, 32), netip.PrefixFrom(v6a, 128)}},
		{ID: 1, Speed: 100 * device.Gbps, ServerFacing: true, Prefixes: []netip.Prefix{netip.PrefixFrom(hostB, 32), netip.PrefixFrom(v6b, 128)}},
		{ID: 2, Speed: 100 * device.Gbps, Prefixes: []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := sw.Attach(NewSwitch(bts.Params{Cache: true, Estimator: true, QTh: 5000, QTg: 1000}, Options{}), NewSFCP(),
		pfc.NewSwitch(pfc.Params{XOFF: 3000, Headroom: 5000}), &pfc.Receiver{}); err != nil {
		t.Fatal(err)
	}
	n, err := device.NewNIC(device.Config{Name: "nic", Ports: []device.PortConfig{{ID: 0, Speed: 100 * device.Gbps}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Attach(NewNIC(), &pfc.Receiver{}); err != nil {
		t.Fatal(err)
	}
	return sw, n
}

// TestRandomInput feeds mutated and truncated frames of every kind to a
// switch and a NIC running every scheme of §1–§5: nothing panics, every
// frame is forwarded, consumed or counted as dropped.
func TestRandomInput(t *testing.T) {
	sw, n := robustDevices(t)
	base := seeds(t)
	rng := rand.New(rand.NewPCG(1, 2))
	var now int64
	for i := 0; i < 20000; i++ {
		f := append([]byte(nil), base[rng.IntN(len(base))]...)
		switch rng.IntN(4) {
		case 0:
			f = f[:rng.IntN(len(f)+1)]
		case 1:
			for k := 0; k < 1+rng.IntN(4); k++ {
				if len(f) > 0 {
					f[rng.IntN(len(f))] ^= byte(1 + rng.IntN(255))
				}
			}
		case 2:
			f = append(f, make([]byte, rng.IntN(64))...)
		}
		now += int64(rng.IntN(50))
		if err := sw.Input(rng.IntN(3), now, f); err != nil {
			t.Fatal(err)
		}
		if err := n.Input(rng.IntN(2), now, f); err != nil {
			t.Fatal(err)
		}
	}
	sw.Flush()
	n.Flush()
	if sw.BufferUsed() != 0 {
		t.Errorf("buffer not empty after flush: %d", sw.BufferUsed())
	}
}

// FuzzSwitch: any frame on any port of a switch and a NIC running every
// scheme must not panic.
func FuzzSwitch(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(uint8(0), s)
	}
	f.Fuzz(func(t *testing.T, port uint8, frame []byte) {
		done := make(chan bool)
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				println("HANG", port, hex.EncodeToString(frame))
			}
		}()
		sw, n := robustDevices(t)
		for k := 0; k < 3; k++ {
			_ = sw.Input(int(port%3), int64(k), frame)
			_ = n.Input(int(port%2), int64(k), frame)
		}
		sw.Flush()
		n.Flush()
		_ = layers.Quote(frame)
	})
}
