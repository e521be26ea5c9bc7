// SPDX-License-Identifier: Apache-2.0

package device

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// Units of behaviour.md §0: K, M, G are powers of 10.
const (
	Nanosecond  int64 = 1
	Microsecond int64 = 1000
	Millisecond int64 = 1000 * 1000
	Second      int64 = 1000 * 1000 * 1000

	KB int64 = 1000
	MB int64 = 1000 * 1000

	Gbps int64 = 1000 * 1000 * 1000
)

// Wire overheads of behaviour.md §0: a frame of captured length n occupies
// the link for max(n, MinFrame) + FCS + Preamble octets.
const (
	MinFrame = 60 // captured octets, without FCS
	FCS      = 4
	Preamble = 20 // preamble, start delimiter and inter-frame gap
)

// WireBits returns the link bits a captured frame of n octets occupies.
func WireBits(n int) int64 {
	if n < MinFrame {
		n = MinFrame
	}
	return int64(n+FCS+Preamble) * 8
}

// fsPerSecond is the resolution of the port transmit clocks: femtoseconds,
// so that bit times at 10 to 800 Gb/s are exact integers.
const fsPerSecond = 1_000_000_000_000_000
const fsPerNs = 1_000_000

// txFs returns the transmit time of n captured octets at bps, in fs,
// rounded up.
func txFs(n int, bps int64) int64 {
	hi, lo := bits.Mul64(uint64(WireBits(n)), fsPerSecond)
	q, r := bits.Div64(hi, lo, uint64(bps))
	if r != 0 {
		q++
	}
	return int64(q)
}

// TxTime returns the time in ns, rounded up, that a frame of n captured
// octets occupies a link of bps bit/s (1,078 octets at 100 Gb/s: 88.16 ns,
// so 89). Ports keep their clocks in femtoseconds, so back-to-back frames do
// not accumulate this rounding.
func TxTime(n int, bps int64) int64 {
	return ceilDiv(txFs(n, bps), fsPerNs)
}

// BytesTime returns the time in ns, rounded up, to drain octets at bps.
func BytesTime(octets, bps int64) int64 {
	if octets <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(octets), 8*uint64(Second))
	q, r := bits.Div64(hi, lo, uint64(bps))
	if r != 0 {
		q++
	}
	return int64(q)
}

func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return a / b
	}
	return (a + b - 1) / b
}

// ErrParam is wrapped by every parameter validation error.
var ErrParam = errors.New("invalid parameter")

// ParamError names a parameter, the value it was given and the allowed
// range. errors.Is(err, ErrParam) holds for it.
type ParamError struct {
	Scope   string // "device", "sfc", "pfc", ...
	Name    string // the parameter name as in behaviour.md, e.g. "q_th"
	Value   string
	Allowed string // e.g. "1..4294967295 octets"
}

// Error says which parameter is wrong, its value and the allowed range.
func (e *ParamError) Error() string {
	return fmt.Sprintf("%s: parameter %s = %s: allowed %s", e.Scope, e.Name, e.Value, e.Allowed)
}

// Unwrap returns ErrParam.
func (e *ParamError) Unwrap() error { return ErrParam }

// CheckRange returns a *ParamError when v is outside [lo, hi].
func CheckRange(scope, name string, v, lo, hi int64, unit string) error {
	if v < lo || v > hi {
		return &ParamError{Scope: scope, Name: name, Value: strconv.FormatInt(v, 10) + unit,
			Allowed: fmt.Sprintf("%d..%d%s", lo, hi, unit)}
	}
	return nil
}

// ErrUnit is wrapped by the errors of ParseBytes, ParseDuration and
// ParseRate.
var ErrUnit = errors.New("bad quantity")

var byteUnits = map[string]int64{"": 1, "B": 1, "KB": 1000, "MB": 1000_000, "GB": 1000_000_000,
	"KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30}
var timeUnits = map[string]int64{"NS": 1, "US": 1000, "µS": 1000, "MS": 1000_000, "S": 1000_000_000}
var rateUnits = map[string]int64{"BPS": 1, "KBPS": 1000, "MBPS": 1000_000, "GBPS": 1000_000_000,
	"TBPS": 1000_000_000_000, "G": 1000_000_000, "GB/S": 1000_000_000, "GBIT/S": 1000_000_000, "MB/S": 1000_000, "MBIT/S": 1000_000}

func parseQty(what, s string, units map[string]int64) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToUpper(strings.TrimSpace(t[i:]))
	mul, ok := units[unit]
	if num == "" || !ok {
		return 0, fmt.Errorf("%w: %s %q", ErrUnit, what, s)
	}
	if !strings.Contains(num, ".") {
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil || v > (1<<62)/mul {
			return 0, fmt.Errorf("%w: %s %q", ErrUnit, what, s)
		}
		return v * mul, nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f*float64(mul) > 1<<62 {
		return 0, fmt.Errorf("%w: %s %q", ErrUnit, what, s)
	}
	return int64(f*float64(mul) + 0.5), nil
}

// ParseBytes parses an octet count with the units of behaviour.md:
// "125KB" = 125,000, "64KiB" = 65,536, "1500" or "1500B" = 1,500.
func ParseBytes(s string) (int64, error) { return parseQty("octets", s, byteUnits) }

// ParseDuration parses a time into ns: "5us", "88ns", "1.5ms", "2s". A
// bare 0 needs no unit (it is 0 in every unit; conformance/README.md:
// "Sizes and times always carry a unit (0 excepted)").
func ParseDuration(s string) (int64, error) {
	if t := strings.TrimSpace(s); t != "" && strings.Trim(t, "0") == "" {
		return 0, nil
	}
	return parseQty("duration", s, timeUnits)
}

// ParseRate parses a link speed into bit/s: "100Gbps", "25G", "400Gb/s".
func ParseRate(s string) (int64, error) { return parseQty("rate", s, rateUnits) }
