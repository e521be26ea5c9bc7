package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/opensfc/sfc/dissect"
)

func init() { subcommands = append(subcommands, newFieldsCmd) }

func newFieldsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "fields [PROTO...]",
		Short: "List the protocol and field names of filters, JSON and -T fields",
		Long: `fields lists every name sfcdump knows, with its kind: the protocols and
fields of wire.md's table (the JSON keys), plus eth, ip, udp, the frame
metadata (frame.*) and the byte fields for 'contains' (bts.quote, cim.msdu,
bth.payload, ...), marked "filter/-e only".`,
		Example: `  sfcdump fields
  sfcdump fields bts flow
  sfcdump read -T fields $(sfcdump fields pfc | awk 'NR>1 && $1 ~ /time/ {printf "-e %s ", $1}') pcaps/sample.pcapng`,
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			var names []string
			for _, p := range append([]*dissect.Proto{dissect.FrameProto}, dissect.Protos...) {
				names = append(names, p.Name)
			}
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
			return tw.Flush()
		},
	}
}
