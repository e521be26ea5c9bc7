// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/spf13/cobra"
)

// TestOneCommandTree: run builds the root and the command its arguments
// start with alone (newRootCmd(commandNamed(args))). Each registered name
// is its command's name, and each command's help and a usage error read
// the same from that tree as from the whole one; man, a flag first, help,
// completion and a typo get the whole tree.
func TestOneCommandTree(t *testing.T) {
	execute := func(root *cobra.Command, args ...string) string {
		var out bytes.Buffer
		root.SetArgs(args)
		root.SetOut(&out)
		root.SetErr(&out)
		initDefaultCommands(root)
		err := root.Execute()
		return fmt.Sprintf("%s\nerror: %v", out.String(), err)
	}
	for _, s := range subcommands {
		if got := s.make().Name(); got != s.name {
			t.Errorf("subcommand %q makes a command named %q", s.name, got)
		}
		if s.whole {
			if got := commandNamed([]string{s.name}); got != "" {
				t.Errorf("%s runs over the whole tree, but commandNamed gives %q", s.name, got)
			}
			continue
		}
		if got := commandNamed([]string{s.name, "x"}); got != s.name {
			t.Errorf("commandNamed(%s x) = %q", s.name, got)
		}
		if n := len(newRootCmd(s.name).Commands()); n != 1 {
			t.Errorf("the tree of %s has %d commands", s.name, n)
		}
		for _, args := range [][]string{{s.name, "--help"}, {s.name, "--no-such-flag"}} {
			part, whole := execute(newRootCmd(s.name), args...), execute(newRootCmd(""), args...)
			if part != whole {
				t.Errorf("%q from the one-command tree:\n%s\nfrom the whole tree:\n%s", args, part, whole)
			}
		}
	}
	for _, args := range [][]string{nil, {}, {"--debug", "read"}, {"help", "read"}, {"completion", "bash"}, {"__complete", "re"}, {"reed"}, {"man"}, {"Read"}} {
		if got := commandNamed(args); got != "" {
			t.Errorf("commandNamed(%q) = %q, want the whole tree", args, got)
		}
	}
	if len(subcommands) < 9 {
		t.Fatalf("only %d subcommands registered", len(subcommands))
	}
}
