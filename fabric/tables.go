// SPDX-License-Identifier: Apache-2.0

package fabric

import (
	"net/netip"

	"github.com/opensfc/sfc/bts"
	"github.com/opensfc/sfc/device"
)

// SFCTables is the SFC switches' peak table occupancy over a run (the SFC
// paper's Table 2), measured on the frames the ToRs send: FilterPeak is
// the most BTS one ToR generated in one suppression reset period (each
// inserts its 5-tuple into the filter, so it is the filter's peak
// occupancy), CachePeak the most (destination, DSCP) pause-cache entries
// alive at once on one ToR (filled by BTS with the C flag that the ToR
// forwards toward a local sender), Suppression the share of would-be BTS
// the filter suppressed.
type SFCTables struct {
	FilterPeak  int64   `json:"filter_peak"`
	CachePeak   int64   `json:"cache_peak"`
	Suppression float64 `json:"suppression"`
}

type cacheKey struct {
	dst  netip.Addr
	dscp uint8
}

type sfcTables struct {
	reset      int64
	cacheOn    bool // the ToRs keep a pause cache: without one, nothing fills it
	filterPeak int64
	cachePeak  int64
}

func newSFCTables(reset int64, cache bool) *sfcTables {
	return &sfcTables{reset: max(reset, 1), cacheOn: cache}
}

// watch observes one ToR's output.
func (t *sfcTables) watch(d *device.Device) {
	period, count := int64(-1), int64(0)
	cache := map[cacheKey]int64{}
	d.AlsoOnOutput(func(o device.Out) {
		if o.Kind != device.KindBTS {
			return
		}
		if o.Generated {
			if p := o.Time / t.reset; p != period {
				period, count = p, 0
			}
			count++
			t.filterPeak = max(t.filterPeak, count)
			return
		}
		if !t.cacheOn {
			return
		}
		sig, err := bts.Decode(o.Frame, 0)
		if err != nil || !sig.Cacheable {
			return
		}
		k := cacheKey{sig.Src, sig.Flow.DSCP}
		if e := o.Time + sig.PauseNs(); e > cache[k] {
			cache[k] = e
		}
		for k, e := range cache { // a few dozen entries at most
			if e <= o.Time {
				delete(cache, k)
			}
		}
		t.cachePeak = max(t.cachePeak, int64(len(cache)))
	})
}
