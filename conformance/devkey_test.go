// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"encoding/binary"
	"hash/maphash"
	"net/netip"
	"testing"
	"unsafe"

	"github.com/opensfc/sfc/device"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/sample"
)

// sampleFrame returns a copy of the sample frame called name.
func sampleFrame(t *testing.T, name string) []byte {
	t.Helper()
	for _, sf := range sample.Frames() {
		if sf.Name == name {
			return append([]byte(nil), sf.Data...)
		}
	}
	t.Fatalf("no sample frame %q", name)
	return nil
}

// dataKey tells flows apart exactly as the device.FlowKey it replaced
// did (addresses of either family, protocol, ports, QP, the port of the
// device and, for a frame that is not IP, the EtherType), and the
// per-frame work of device mode (key, masked hash, ICRC position)
// allocates nothing.
func TestDataKeyAndNoAllocs(t *testing.T) {
	cp := device.Codepoints{}.WithDefaults()
	write := sampleFrame(t, "RoCEv2 RC RDMA WRITE Only with RETH, IPv4")
	var m device.Meta
	device.Parse(write, &m, &cp)
	if !m.IP() || !m.HasQP {
		t.Fatalf("sample WRITE parsed as %+v", m)
	}
	base := keyOf(&m, 3)
	variants := map[string]func(m *device.Meta){
		"src":         func(m *device.Meta) { m.Src = m.Src.Next() },
		"dst":         func(m *device.Meta) { m.Dst = m.Dst.Next() },
		"src as v6":   func(m *device.Meta) { m.Src = netipMapped(m.Src) },
		"dst as v6":   func(m *device.Meta) { m.Dst = netipMapped(m.Dst) },
		"proto":       func(m *device.Meta) { m.Proto = 6 },
		"sport":       func(m *device.Meta) { m.SrcPort++ },
		"dport":       func(m *device.Meta) { m.DstPort++ },
		"qp":          func(m *device.Meta) { m.QP++ },
		"no qp":       func(m *device.Meta) { m.HasQP, m.QP = false, 0 },
		"not ip":      func(m *device.Meta) { m.IPVersion = 0 },
		"not ip, arp": func(m *device.Meta) { m.IPVersion, m.EtherType = 0, 0x0806 },
	}
	seen := map[dataKey]string{base: "base"}
	for name, change := range variants {
		v := m
		change(&v)
		k := keyOf(&v, 3)
		if prev, ok := seen[k]; ok {
			t.Errorf("%s: same key as %s", name, prev)
		}
		seen[k] = name
	}
	if keyOf(&m, 4) == base {
		t.Error("another port: same key")
	}
	same := m
	same.TTL, same.DSCP, same.ECN = 1, 2, 3 // not part of the flow
	if keyOf(&same, 3) != base {
		t.Error("the same flow: another key")
	}

	k := &devChecker{cp: cp, vol: newVolatile([]string{"bth.icrc"}), onlyICRC: true, seed: maphash.MakeSeed()}
	k.mh.SetSeed(k.seed)
	q := map[dataKey]int{base: 1}
	var sink uint64
	n := testing.AllocsPerRun(100, func() {
		var m device.Meta
		device.Parse(write, &m, &k.cp)
		sink += uint64(q[keyOf(&m, 3)])
		sink += k.hash(write, &m)
		end, _ := icrcEnd(write, &m, &k.cp)
		sink += uint64(end)
	})
	if n != 0 {
		t.Errorf("%v allocations per frame", n)
	}
	// The hash leaves the ICRC out: a frame with another ICRC hashes the
	// same, one with another payload octet does not.
	other := append([]byte(nil), write...)
	end, has := icrcEnd(write, &m, &k.cp)
	if !has {
		t.Fatal("the WRITE has no ICRC")
	}
	binary.LittleEndian.PutUint32(other[end-4:], ^binary.LittleEndian.Uint32(write[end-4:]))
	if k.hash(other, &m) != k.hash(write, &m) {
		t.Error("the hash covers the ICRC")
	}
	// Both ways of hashing around it give the hash of the frame without
	// it: ICRC last, or padding after the IP packet.
	if got, want := k.hash(write, &m), maphash.Bytes(k.seed, write[:end-4]); got != want {
		t.Errorf("ICRC last: hash %x, want %x", got, want)
	}
	padded := append(append([]byte(nil), write...), 0, 0, 0, 0, 0, 0)
	var pm device.Meta
	device.Parse(padded, &pm, &k.cp)
	if got, want := k.hash(padded, &pm), maphash.Bytes(k.seed, append(append([]byte(nil), write[:end-4]...), 0, 0, 0, 0, 0, 0)); got != want {
		t.Errorf("padded: hash %x, want %x", got, want)
	}
	other[end-5] ^= 1
	if k.hash(other, &m) == k.hash(write, &m) {
		t.Error("the hash misses the payload")
	}
	if crc, err := layers.ComputeICRC(write[m.L3:end]); err != nil || crc != binary.LittleEndian.Uint32(write[end-4:]) {
		t.Errorf("icrcEnd: %d is not where the WRITE's ICRC ends (%v)", end, err)
	}
}

// netipMapped is a as an IPv4-mapped IPv6 address.
func netipMapped(a netip.Addr) netip.Addr { return netip.AddrFrom16(a.As16()) }

// TestFlowCache: a flowCache answers only for the key last put in a
// slot, and then with its value: keys that differ in any octet, many
// sharing a slot, never get another's value.
func TestFlowCache(t *testing.T) {
	var c flowCache[int]
	want := map[dataKey]int{}
	var keys []dataKey
	for i := 0; i < 2000; i++ {
		var key dataKey
		b := (*[48]byte)(unsafe.Pointer(&key))
		b[i%48] = byte(i/48 + 1) // one octet differs from the zero key
		keys = append(keys, key)
		c.put(&key, i)
		want[key] = i
	}
	hits := 0
	for _, key := range keys {
		if v, ok := c.get(&key); ok {
			hits++
			if v != want[key] {
				t.Fatalf("key %x: cached %d, want %d", key, v, want[key])
			}
		}
	}
	var zero dataKey
	if _, ok := c.get(&zero); ok {
		t.Error("the zero key, never put, is cached")
	}
	if hits == 0 || hits > 64 {
		t.Errorf("%d keys cached, want 1 to 64", hits)
	}
}

// TestDataItemSize: a reference frame's item in the ring is one cache
// line on a 64-bit machine (its fields are ordered for it).
func TestDataItemSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) == 8 && unsafe.Sizeof(dataItem{}) != 64 {
		t.Errorf("dataItem is %d octets, want 64", unsafe.Sizeof(dataItem{}))
	}
}
