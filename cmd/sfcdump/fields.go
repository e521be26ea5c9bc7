// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/opensfc/sfc/dissect"
)

func init() { subcommands = append(subcommands, subcommand{name: "fields", make: newFieldsCmd}) }

func newFieldsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "fields [PROTO...]",
		Short: "List the protocol and field names of filters, JSON and -T fields",
		Long: `fields lists every name sfcdump knows, with its kind: the protocols and
fields of wire.md's table (the JSON keys), plus eth, ip, udp, the frame
metadata (frame.*) and the byte fields for 'contains' (bts.quote, cim.msdu,
bth.payload, ...), marked "filter/-e only", then Wireshark 4.0's names for
the fields both decode (infiniband.bth.destqp, macc.cbfc.pause_time.c3,
ipv6.src, udp.dstport, ...), which filters and -e accept as well, marked
"Wireshark: = OURS" where they stand for one of ours.`,
		Example: `  sfcdump fields
  sfcdump fields bts flow
  sfcdump fields infiniband macc
  sfcdump read -T fields $(sfcdump fields pfc | awk 'NR>1 && $1 ~ /time/ {printf "-e %s ", $1}') pcaps/sample.pcapng`,
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			var names []string
			for _, p := range append([]*dissect.Proto{dissect.FrameProto}, dissect.Protos...) {
				names = append(names, p.Name)
			}
			names = append(names, wiresharkPrefixes()...)
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			want := map[string]bool{}
			for _, a := range args {
				if _, ok := dissect.LookupProto(a); !ok {
					return &usageError{fmt.Errorf("fields: unknown protocol %q", a)}
				}
				want[a] = true
			}
			extra := map[*dissect.Field]bool{}
			for _, fd := range dissect.ExtraFields() {
				extra[fd] = true
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 2, 8, 2, ' ', 0)
			fmt.Fprintln(tw, "name\tkind\tnote")
			for _, name := range dissect.FieldNames() {
				fd, _ := dissect.LookupField(name)
				if len(want) > 0 && !want[fd.Proto().Name] {
					continue
				}
				note := ""
				switch {
				case extra[fd]:
					note = "filter/-e only"
				case fd.Entry:
					note = "one value per entry"
				case fd.Quanta:
					note = "pause quanta"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", name, fd.Kind, note)
			}
			for _, w := range dissect.WiresharkNames() {
				prefix, _, _ := strings.Cut(w.Name, ".")
				if len(want) > 0 && !want[prefix] && !want[w.Name] && (w.Field == nil || !want[w.Field.Proto().Name]) {
					continue
				}
				kind, note := "protocol", "Wireshark"
				if w.Field != nil {
					kind = w.Field.Kind.String()
				}
				if w.Ours != "" {
					note = "Wireshark: = " + w.Ours
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", w.Name, kind, note)
			}
			return tw.Flush()
		},
	}
}

// wiresharkPrefixes returns the protocols of Wireshark's names that are
// not also ours (infiniband, ipv6, macc, vlan).
func wiresharkPrefixes() []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range dissect.WiresharkNames() {
		prefix, _, _ := strings.Cut(w.Name, ".")
		if _, ours := dissect.LookupProto(prefix); !seen[prefix] && (!ours || dissect.IsWiresharkName(prefix)) {
			seen[prefix] = true
			out = append(out, prefix)
		}
	}
	return out
}
