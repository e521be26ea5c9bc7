// SPDX-License-Identifier: Apache-2.0

package main

import (
	"strconv"
	"strings"

	"github.com/opensfc/sfc/dissect"
)

// fieldsStyle is -T fields' layout, set with tshark's -E options:
// bom=y|n, header=y|n, separator=/t|/s|C, quote=d|s|n, occurrence=f|l|a|N,
// aggregator=,|/s|C.
type fieldsStyle struct {
	header bool
	bom    bool // a UTF-8 byte order mark first (-E bom=y)
	sep    string
	quote  byte // 0, '"' or '\''
	occ    int  // 0 all, -1 the last, N the Nth (1-based)
	agg    string
}

var defaultFieldsStyle = fieldsStyle{sep: "\t", agg: ","}

// parseFieldsStyle reads -E options as tshark does; a bad one is a usage
// error naming it.
func parseFieldsStyle(specs []string) (fieldsStyle, error) {
	st := defaultFieldsStyle
	for _, s := range specs {
		key, val, ok := strings.Cut(s, "=")
		if !ok {
			return st, usagef("-E %s: want OPTION=VALUE (bom, header, separator, quote, occurrence, aggregator)", quoteArg(s))
		}
		bad := func(want string) error { return usagef("-E %s: want %s=%s", quoteArg(s), key, want) }
		switch key {
		case "header", "bom":
			var on bool
			switch val {
			case "y":
				on = true
			case "n":
			default:
				return st, bad("y or n")
			}
			if key == "header" {
				st.header = on
			} else {
				st.bom = on
			}
		case "separator", "aggregator":
			var c string
			switch {
			case val == "/t":
				c = "\t"
			case val == "/s":
				c = " "
			case len(val) == 1 && val[0] >= 0x20 && val[0] < 0x7f:
				c = val
			default:
				return st, bad("/t, /s or one printable character")
			}
			if key == "separator" {
				st.sep = c
			} else {
				st.agg = c
			}
		case "quote":
			switch val {
			case "d":
				st.quote = '"'
			case "s":
				st.quote = '\''
			case "n":
				st.quote = 0
			default:
				return st, bad("d, s or n")
			}
		case "occurrence":
			switch val {
			case "a":
				st.occ = 0
			case "f":
				st.occ = 1
			case "l":
				st.occ = -1
			default:
				n, err := strconv.Atoi(val)
				if err != nil || n < 1 || n > 1<<20 {
					return st, bad("f, l, a or a number from 1")
				}
				st.occ = n
			}
		default:
			return st, usagef("-E %s: unknown option %s (bom, header, separator, quote, occurrence, aggregator)", quoteArg(s), quoteArg(key))
		}
	}
	return st, nil
}

// quoteArg quotes a command-line value for a message, escaped.
func quoteArg(s string) string { return strconv.Quote(s) }

// column is one -e field: the field, and how tshark prints it when it was
// asked for by one of Wireshark's names.
type column struct {
	field *dissect.Field
	name  string
	ws    bool
	style dissect.TsharkStyle
}

func newColumn(name string, fd *dissect.Field) column {
	st, ws := dissect.TsharkStyleOf(name)
	return column{field: fd, name: name, ws: ws, style: st}
}

// appendFields appends one -T fields line of frame f (without its
// newline).
func (fm *formatter) appendFields(buf []byte, f *dissect.Frame) []byte {
	st := &fm.fstyle
	for i, c := range fm.cols {
		if i > 0 {
			buf = append(buf, st.sep...)
		}
		if !c.ws && st.occ == 0 && st.agg == "," && st.quote == 0 {
			buf = fm.enc.AppendField(buf, f, c.field) // the common case
			continue
		}
		fm.vals = c.field.Values(f, fm.vals[:0])
		vals := fm.vals
		switch {
		case len(vals) == 0:
			continue
		case st.occ == -1:
			vals = vals[len(vals)-1:]
		case st.occ > 0 && st.occ > len(vals):
			continue
		case st.occ > 0:
			vals = vals[st.occ-1 : st.occ]
		}
		if st.quote != 0 {
			buf = append(buf, st.quote)
		}
		for j, v := range vals {
			if j > 0 {
				buf = append(buf, st.agg...)
			}
			if c.ws {
				buf = dissect.AppendTshark(buf, v, c.style)
			} else {
				buf = dissect.AppendValue(buf, v, false)
			}
		}
		if st.quote != 0 {
			buf = append(buf, st.quote)
		}
	}
	return buf
}

// fieldsHeader is the -E header=y line: the names as given.
func fieldsHeader(cols []column, st *fieldsStyle) string {
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteString(st.sep)
		}
		b.WriteString(dissect.Escape(c.name))
	}
	b.WriteByte('\n')
	return b.String()
}
