// SPDX-License-Identifier: Apache-2.0

package filter

import (
	"fmt"
	"strings"
	"time"

	"github.com/opensfc/sfc/dissect"
)

// parseAbsTime reads an absolute time as Wireshark 4.0 reads one for
// frame.time: "Nov 12, 1999 08:55:44.123", "2011-07-04 12:34:56" (or with
// a T; minutes, hours or the date alone will do), a fraction of up to nine
// digits after the seconds (tshark 4.0 misreads more), then "UTC" for UTC; an ISO 8601 time may end
// in Z or an offset (+01:00). Without a zone it is local time (the TZ
// environment variable), as in tshark: TZ=UTC makes every time UTC.
// Fields out of range are carried over as mktime does (Feb 30 is Mar 2).
func parseAbsTime(s string, loc *time.Location) (dissect.Value, error) {
	if v, ok := parseISO8601(s, loc); ok {
		return v, nil
	}
	bad := fmt.Errorf("%q is not a valid absolute time. Example: \"Nov 12, 1999 08:55:44.123\" or \"2011-07-04 12:34:56\"", s)
	var d [6]int // year, month, day, hour, minute, second
	rest, fields, ok := "", 0, false
	if rest, ok = scanTime(s, "b d, Y H:M:S", &d); ok {
		fields = 6
	} else if rest, ok = scanTime(s, "Y-m-dTH:M:S", &d); ok {
		fields = 6
	} else {
		for _, f := range []struct {
			layout string
			n      int
		}{{"Y-m-d H:M:S", 6}, {"Y-m-d H:M", 5}, {"Y-m-d H", 4}, {"Y-m-d", 3}} {
			if rest, ok = scanTime(s, f.layout, &d); ok {
				fields = f.n
				break
			}
		}
	}
	if !ok {
		return dissect.Value{}, bad
	}
	ns := 0
	if strings.HasPrefix(rest, ".") {
		if fields < 6 {
			return dissect.Value{}, fmt.Errorf("%q: subseconds need seconds", s)
		}
		rest = rest[1:]
		n, k := 0, 0
		for k < len(rest) && rest[k] >= '0' && rest[k] <= '9' {
			if k < 9 {
				n = n*10 + int(rest[k]-'0')
			}
			k++
		}
		if k == 0 {
			return dissect.Value{}, fmt.Errorf("%q: subseconds value is not a number", s)
		}
		if k > 9 {
			return dissect.Value{}, fmt.Errorf("%q: subseconds value is invalid (more than nine digits)", s)
		}
		for i := k; i < 9; i++ {
			n *= 10
		}
		ns, rest = n, rest[k:]
	}
	switch rest = strings.TrimLeft(rest, " \t\n\r\v\f"); rest {
	case "":
	case "UTC":
		loc = time.UTC
	default:
		return dissect.Value{}, fmt.Errorf("%q: unexpected data after the time value (%q)", s, rest)
	}
	t := localDate(d[0], time.Month(d[1]), d[2], d[3], d[4], d[5], ns, loc)
	return dissect.TimeValue(t.Unix(), int64(t.Nanosecond())), nil
}

// localDate is time.Date, but a wall time that does not exist in loc (in
// the gap a change to daylight saving time leaves, 02:30 on the day New
// York springs forward) is read with the offset in force before the gap,
// as glibc's mktime(3) reads it, and so tshark: Go's time.Date uses the
// offset after it, an hour apart.
func localDate(y int, mo time.Month, d, h, mi, sec, ns int, loc *time.Location) time.Time {
	t := time.Date(y, mo, d, h, mi, sec, ns, loc)
	// The wall time asked for, its fields carried over (Feb 30 is Mar 2)
	// as time.Date carries them: t shows another only in a gap.
	u := time.Date(y, mo, d, h, mi, sec, ns, time.UTC)
	if l := t.In(loc); l.Hour() != u.Hour() || l.Minute() != u.Minute() || l.Day() != u.Day() {
		_, before := t.Add(-12 * time.Hour).Zone()
		t = u.Add(-time.Duration(before) * time.Second).In(loc)
	}
	return t
}

var monthAbbr = [...]string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// scanTime matches s against layout as strptime(3) does: b a month's
// three-letter name (any case), Y up to four digits, m d H M S up to two
// (in range: 1-12, 1-31, 0-23, 0-59, 0-61), each after optional white
// space; a space matches any white space, none included; other octets
// match themselves. It returns what follows the match.
func scanTime(s, layout string, d *[6]int) (string, bool) {
	skip := func() { s = strings.TrimLeft(s, " \t\n\r\v\f") }
	num := func(max, lo, hi int) (int, bool) {
		skip()
		n, k := 0, 0
		for k < len(s) && k < max && s[k] >= '0' && s[k] <= '9' {
			n = n*10 + int(s[k]-'0')
			k++
		}
		if k == 0 || n < lo || n > hi {
			return 0, false
		}
		s = s[k:]
		return n, true
	}
	for i := 0; i < len(layout); i++ {
		var ok bool
		switch c := layout[i]; c {
		case 'b':
			skip()
			ok = false
			if len(s) >= 3 {
				for m, a := range monthAbbr {
					if strings.EqualFold(s[:3], a) {
						d[1], s, ok = m+1, s[3:], true
						break
					}
				}
			}
		case 'Y':
			d[0], ok = num(4, 0, 9999)
		case 'm':
			d[1], ok = num(2, 1, 12)
		case 'd':
			d[2], ok = num(2, 1, 31)
		case 'H':
			d[3], ok = num(2, 0, 23)
		case 'M':
			d[4], ok = num(2, 0, 59)
		case 'S':
			d[5], ok = num(2, 0, 61)
		case ' ':
			skip()
			ok = true
		default:
			ok = len(s) > 0 && s[0] == c
			if ok {
				s = s[1:]
			}
		}
		if !ok {
			return "", false
		}
	}
	return s, true
}

// parseISO8601 reads YYYY-MM-DD, T or a space, hh:mm[:ss[.frac or
// ,frac]] and a zone (Z, ±hh, ±hhmm, ±hh:mm; none: loc), the whole of s.
func parseISO8601(s string, loc *time.Location) (dissect.Value, bool) {
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	digits := func(n int) (int, bool) {
		if len(s) < n {
			return 0, false
		}
		v := 0
		for i := 0; i < n; i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
			v = v*10 + int(s[i]-'0')
		}
		s = s[n:]
		return v, true
	}
	lit := func(c byte) bool {
		if len(s) > 0 && s[0] == c {
			s = s[1:]
			return true
		}
		return false
	}
	y, ok1 := digits(4)
	ok2 := lit('-')
	mo, ok3 := digits(2)
	ok4 := lit('-')
	dd, ok5 := digits(2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5) || !lit('T') && !lit(' ') {
		return dissect.Value{}, false
	}
	h, ok1 := digits(2)
	ok2 = lit(':')
	mi, ok3 := digits(2)
	if !(ok1 && ok2 && ok3) || mo < 1 || mo > 12 || dd < 1 || dd > 31 || h > 23 || mi > 59 {
		return dissect.Value{}, false
	}
	sec, ns := 0, 0
	if lit(':') {
		var ok bool
		if sec, ok = digits(2); !ok || sec > 60 {
			return dissect.Value{}, false
		}
		if lit('.') || lit(',') {
			k, n := 0, 0
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				if k < 9 {
					n = n*10 + int(s[k]-'0')
				}
				k++
			}
			if k == 0 || k > 9 {
				return dissect.Value{}, false
			}
			for i := k; i < 9; i++ {
				n *= 10
			}
			ns, s = n, s[k:]
		}
	}
	switch {
	case s == "":
	case s == "Z":
		loc = time.UTC
	case s[0] == '+' || s[0] == '-':
		sign := 1
		if s[0] == '-' {
			sign = -1
		}
		s = s[1:]
		oh, ok := digits(2)
		om := 0
		if ok && s != "" {
			lit(':')
			om, ok = digits(2)
		}
		if !ok || s != "" || oh > 23 || om > 59 {
			return dissect.Value{}, false
		}
		loc = time.FixedZone("", sign*(oh*3600+om*60))
	default:
		return dissect.Value{}, false
	}
	t := localDate(y, time.Month(mo), dd, h, mi, sec, ns, loc)
	return dissect.TimeValue(t.Unix(), int64(t.Nanosecond())), true
}
