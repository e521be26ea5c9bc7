// SPDX-License-Identifier: Apache-2.0

package layers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// checkTsharkJSON decodes the differential's capture again with tshark -T
// json and checks that, for every frame and every field of tsharkFields,
// the JSON values (every occurrence, in order) render as tshark -T fields
// rendered them, so both of tshark's outputs are compared with ours. tshark
// 4.0's JSON repeats keys and nests PFC times under a label
// ("CBFC Class Pause Times"); the walk reads tokens, not a map, so it keeps
// every occurrence wherever it sits.
func checkTsharkJSON(t *testing.T, path string, rows []map[string]string) {
	t.Helper()
	args := append([]string{"-n", "-r", path, "-T", "json"}, tsharkQuiet...)
	cmd := exec.Command("tshark", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tshark -T json: %v\n%s", err, stderr.String())
	}
	want := map[string]bool{}
	for _, f := range tsharkFields {
		want[f] = true
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		t.Fatalf("tshark -T json does not start with an array: %v %v", tok, err)
	}
	n, compared := 0, 0
	for dec.More() {
		vals := map[string][]string{}
		if err := walkJSON(dec, "", want, vals); err != nil {
			t.Fatalf("tshark -T json, frame %d: %v", n+1, err)
		}
		if n >= len(rows) {
			t.Fatalf("tshark -T json has more frames than -T fields (%d)", len(rows))
		}
		row := rows[n]
		n++
		for _, f := range tsharkFields {
			got := ""
			if v := vals[f]; len(v) > 0 {
				got = strings.Join(v, "|")
				if f != "_ws.expert.message" && f != "infiniband.vendor" {
					got = tsharkValue(f, got)
				}
			}
			if f == "_ws.expert.message" || f == "infiniband.vendor" {
				// -T fields and -T json list these in different orders
				// and with different separators: compare presence only.
				if (got == "") != (row[f] == "") {
					t.Errorf("frame %d %s: -T json %q, -T fields %q", n, f, got, row[f])
				}
				continue
			}
			if f == "infiniband.immdt" {
				// A byte field: -T json joins its octets with ':',
				// -T fields does not (a rendering difference, asserted).
				if got != "" && !strings.Contains(got, ":") {
					t.Errorf("frame %d %s: -T json %q without ':' separators: tshark changed", n, f, got)
				}
				got = strings.ReplaceAll(got, ":", "")
			}
			if got != row[f] {
				t.Errorf("frame %d %s: -T json %q, -T fields %q", n, f, got, row[f])
			}
			if got != "" {
				compared++
			}
		}
	}
	if n != len(rows) {
		t.Fatalf("tshark -T json has %d frames, -T fields %d", n, len(rows))
	}
	if compared < 30000 {
		t.Errorf("only %d JSON values compared", compared)
	}
	t.Logf("tshark -T json: %d frames, %d field values equal to -T fields", n, compared)
}

// walkJSON reads one JSON value, recording the string leaves whose key is
// in want (arrays pass their key to their elements).
func walkJSON(dec *json.Decoder, key string, want map[string]bool, vals map[string][]string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				ks, ok := k.(string)
				if !ok {
					return fmt.Errorf("object key %v", k)
				}
				if err := walkJSON(dec, ks, want, vals); err != nil {
					return err
				}
			}
		case '[':
			for dec.More() {
				if err := walkJSON(dec, key, want, vals); err != nil {
					return err
				}
			}
		}
		_, err := dec.Token() // the closing delimiter
		return err
	case string:
		if want[key] {
			vals[key] = append(vals[key], v)
		}
	}
	return nil
}
