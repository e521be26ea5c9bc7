// SPDX-License-Identifier: Apache-2.0

package conformance

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// CaseError is one problem with a case.yaml: the file, the line, the key
// (a dotted path such as "ports[2].speed" or "params.q_th") and what is
// wrong with it.
type CaseError struct {
	File string
	Line int
	Key  string
	Msg  string
}

// Error says "FILE:LINE: KEY: MESSAGE".
func (e *CaseError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Key != "" {
		b.WriteString(": ")
		b.WriteString(e.Key)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// CaseErrors is every problem found in one case.yaml, in file order. It is
// the error LoadCase and ParseCase return when the file is invalid.
type CaseErrors []*CaseError

// Error gives every problem, one a line.
func (es CaseErrors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap lets errors.As find the individual *CaseError values.
func (es CaseErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// decoder walks a yaml.v3 node tree strictly, collecting errors with lines.
type decoder struct {
	file string
	errs CaseErrors
}

func (d *decoder) errf(line int, key, format string, args ...any) {
	if len(d.errs) >= 50 {
		return
	}
	d.errs = append(d.errs, &CaseError{File: d.file, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)})
}

// mapping is a YAML mapping whose keys are consumed one by one; done
// reports the keys nobody asked for.
type mapping struct {
	d    *decoder
	path string
	node *yaml.Node
	keys map[string]int // key → index of its key node
	used map[string]bool
}

func (d *decoder) mapping(n *yaml.Node, path string) *mapping {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind != yaml.MappingNode {
		d.errf(n.Line, path, "want a mapping of keys, got %s", kindName(n))
		return nil
	}
	m := &mapping{d: d, path: path, node: n, keys: map[string]int{}, used: map[string]bool{}}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode {
			d.errf(k.Line, path, "keys must be plain names")
			continue
		}
		if _, dup := m.keys[k.Value]; dup {
			d.errf(k.Line, m.key(k.Value), "duplicate key")
			continue
		}
		m.keys[k.Value] = i
	}
	return m
}

func (m *mapping) key(k string) string {
	if m.path == "" {
		return k
	}
	return m.path + "." + k
}

// line returns the line of the mapping itself.
func (m *mapping) line() int { return m.node.Line }

// get returns the value node of key, or nil; it marks the key as known.
func (m *mapping) get(k string) *yaml.Node {
	if m == nil {
		return nil
	}
	m.used[k] = true
	i, ok := m.keys[k]
	if !ok {
		return nil
	}
	v := m.node.Content[i+1]
	if v.Kind == yaml.AliasNode {
		v = v.Alias
	}
	return v
}

// must returns the value node of a required key, reporting it missing.
func (m *mapping) must(k string) *yaml.Node {
	if m == nil {
		return nil
	}
	v := m.get(k)
	if v == nil {
		m.d.errf(m.line(), m.key(k), "missing (required)")
	}
	return v
}

// done reports every key that was never asked for as unknown.
func (m *mapping) done(known ...string) {
	if m == nil {
		return
	}
	var unknown []*yaml.Node
	for i := 0; i+1 < len(m.node.Content); i += 2 {
		k := m.node.Content[i]
		if !m.used[k.Value] {
			unknown = append(unknown, k)
		}
	}
	for _, k := range unknown {
		hint := ""
		if len(known) > 0 {
			hint = "; known keys: " + strings.Join(known, ", ")
		}
		m.d.errf(k.Line, m.key(k.Value), "unknown key%s", hint)
	}
}

// names returns the mapping's keys in file order.
func (m *mapping) names() []string {
	if m == nil {
		return nil
	}
	var out []string
	for i := 0; i+1 < len(m.node.Content); i += 2 {
		out = append(out, m.node.Content[i].Value)
	}
	return out
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	case yaml.DocumentNode:
		return "a document"
	}
	return "an alias"
}

// scalar returns a scalar's text, reporting other kinds.
func (d *decoder) scalar(n *yaml.Node, key string) (string, bool) {
	if n == nil {
		return "", false
	}
	if n.Kind != yaml.ScalarNode {
		d.errf(n.Line, key, "want a single value, got %s", kindName(n))
		return "", false
	}
	if n.Tag == "!!null" {
		d.errf(n.Line, key, "empty value")
		return "", false
	}
	return n.Value, true
}

// list returns the items of a sequence (a scalar is a list of one when
// allowOne is set).
func (d *decoder) list(n *yaml.Node, key string) []*yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.errf(n.Line, key, "want a list, got %s", kindName(n))
		return nil
	}
	return n.Content
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
