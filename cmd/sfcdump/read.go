package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/opensfc/sfc/dissect"
	"github.com/opensfc/sfc/layers"
	"github.com/opensfc/sfc/pcapio"
)

type readOptions struct {
	count   int
	verbose bool
	hex     bool
	format  string
	fields  []string
}

func newReadCmd() *cobra.Command {
	var o readOptions
	cmd := &cobra.Command{
		Use:   "read FILE...",
		Short: "Decode captures and print one line, a tree, JSON or fields per frame",
		Example: `  sfcdump read pcaps/sample.pcapng
  sfcdump read -V pcaps/sample.pcapng
  sfcdump read -T json pcaps/sample.pcapng
  sfcdump read -T fields -e frame.number -e bts.pause_us -e flow.src pcaps/sample.pcapng
  zcat big.pcapng.gz | sfcdump read -c 100 -`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRead(cmd.OutOrStdout(), args, &o)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&o.count, "count", "c", 0, "stop after N frames (0: all)")
	f.BoolVarP(&o.verbose, "verbose", "V", false, "print the full tree of every layer and field, warnings included")
	f.BoolVarP(&o.hex, "hex", "x", false, "print a hex dump of each frame")
	f.StringVarP(&o.format, "format", "T", "text", "output format: text, json (JSON Lines) or fields")
	f.StringArrayVarP(&o.fields, "field", "e", nil, "field to print with -T fields (repeatable): frame.number, frame.time, frame.interface, frame.len, or protocol.field")
	return cmd
}

// frameFields are the -e names taken from the frame's metadata.
var frameFields = map[string]func(f *dissect.Frame, dst []byte) []byte{
	"frame.number":    func(f *dissect.Frame, d []byte) []byte { return strconv.AppendInt(d, int64(f.Number), 10) },
	"frame.interface": func(f *dissect.Frame, d []byte) []byte { return strconv.AppendInt(d, int64(f.Interface), 10) },
	"frame.len":       func(f *dissect.Frame, d []byte) []byte { return strconv.AppendInt(d, int64(f.Len), 10) },
	"frame.caplen":    func(f *dissect.Frame, d []byte) []byte { return strconv.AppendInt(d, int64(f.CapLen), 10) },
	"frame.time_epoch": func(f *dissect.Frame, d []byte) []byte {
		d = strconv.AppendInt(d, f.Time.Unix(), 10)
		d = append(d, '.')
		ns := strconv.AppendInt(nil, int64(f.Time.Nanosecond())+1e9, 10)
		return append(d, ns[1:]...)
	},
}

type column struct {
	frame func(f *dissect.Frame, dst []byte) []byte
	field *dissect.Field
}

func runRead(out io.Writer, files []string, o *readOptions) error {
	var cols []column
	switch o.format {
	case "text", "json":
	case "fields":
		if len(o.fields) == 0 {
			return &exitError{2, errors.New("-T fields needs at least one -e FIELD")}
		}
		for _, name := range o.fields {
			if ff, ok := frameFields[name]; ok {
				cols = append(cols, column{frame: ff})
				continue
			}
			fd, ok := dissect.LookupField(name)
			if !ok {
				return &exitError{2, fmt.Errorf("-e %s: unknown field (try `sfcdump fields`)", name)}
			}
			cols = append(cols, column{field: fd})
		}
	default:
		return &exitError{2, fmt.Errorf("-T %s: unknown format (text, json, fields)", o.format)}
	}
	w := bufio.NewWriterSize(out, 1<<16)
	defer w.Flush()
	p := layers.NewParser()
	var enc dissect.Encoder
	var buf []byte
	var first *dissect.Frame
	n := 0
	for _, file := range files {
		r, err := pcapio.Open(file)
		if err != nil {
			return &exitError{2, err}
		}
		showIface := r.IsPcapng()
		for {
			if o.count > 0 && n >= o.count {
				r.Close()
				return nil
			}
			fr, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				w.Flush()
				r.Close()
				return &exitError{1, err}
			}
			n++
			f := dissect.Frame{Number: fr.Number, Time: fr.Time, Interface: fr.Interface, Len: fr.Len, CapLen: len(fr.Data), P: p}
			f.Err = p.Decode(fr.Data)
			if first == nil {
				first = &dissect.Frame{Time: fr.Time}
			}
			buf = buf[:0]
			switch o.format {
			case "json":
				buf = enc.AppendJSON(buf, &f)
				buf = append(buf, '\n')
			case "fields":
				for i, c := range cols {
					if i > 0 {
						buf = append(buf, '\t')
					}
					if c.frame != nil {
						buf = c.frame(&f, buf)
					} else {
						buf = enc.AppendFields(buf, &f, []*dissect.Field{c.field})
					}
				}
				buf = append(buf, '\n')
			default:
				buf = strconv.AppendInt(buf, int64(f.Number), 10)
				buf = append(buf, ' ')
				buf = appendRelTime(buf, f.Time.Sub(first.Time).Nanoseconds())
				buf = append(buf, ' ')
				if showIface {
					name := r.Interface(f.Interface).Name
					if name == "" {
						name = "if" + strconv.Itoa(f.Interface)
					}
					buf = append(buf, name...)
					buf = append(buf, ' ')
				}
				buf = dissect.AppendSummary(buf, &f)
				buf = append(buf, '\n')
				if o.verbose {
					for _, c := range fr.Comments {
						buf = append(buf, "    comment: "...)
						buf = append(buf, strings.ReplaceAll(c, "\n", " ")...)
						buf = append(buf, '\n')
					}
					buf = enc.AppendTree(buf, &f)
				}
			}
			if o.hex {
				buf = dissect.AppendHex(buf, fr.Data)
			}
			if _, err := w.Write(buf); err != nil {
				r.Close()
				return err
			}
		}
		r.Close()
	}
	return nil
}

func appendRelTime(dst []byte, ns int64) []byte {
	if ns < 0 {
		dst = append(dst, '-')
		ns = -ns
	}
	dst = strconv.AppendInt(dst, ns/1e9, 10)
	dst = append(dst, '.')
	frac := strconv.AppendInt(nil, ns%1e9+1e9, 10)
	return append(dst, frac[1:]...)
}

var _ = os.Stdout
