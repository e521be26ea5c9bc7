// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func conform(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"conform"}, args...), &out, &errb)
	return out.String(), errb.String(), code
}

const vec = "../../pcaps/sfc/incast-first-bts"

func copyVec(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"case.yaml", "input.pcapng", "expected.pcapng"} {
		b, err := os.ReadFile(filepath.Join(vec, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
	}
	return dir
}

func TestConformExitStatus(t *testing.T) {
	out, _, code := conform(t, "run", vec)
	if code != 0 || !strings.Contains(out, "verdict: PASS") {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	out, _, code = conform(t, "run", "-T", "json", vec)
	var rep struct {
		Verdict string `json:"verdict"`
		Checks  []struct {
			Name, Verdict string
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || rep.Verdict != "PASS" || len(rep.Checks) != 3 {
		t.Fatalf("json: exit %d err %v\n%s", code, err, out)
	}
	// Device mode with the expected capture as the device's: PASS.
	out, _, code = conform(t, "check", "--case", vec+"/case.yaml", "--input", vec+"/input.pcapng", "--device", vec+"/expected.pcapng")
	if code != 0 || !strings.Contains(out, "SFC-BTS-JUSTIFIED  PASS") {
		t.Fatalf("check: exit %d\n%s", code, out)
	}
	// Deviations: expected output of another vector with as many ports.
	out, _, code = conform(t, "check", "--case", vec+"/case.yaml", "--input", vec+"/input.pcapng", "--device", "../../pcaps/sfc/flow-mix/expected.pcapng")
	if code != 1 || !strings.Contains(out, "verdict: FAIL") {
		t.Fatalf("check deviating: exit %d\n%s", code, out)
	}
	// A capture with fewer interfaces than the case has ports: unusable,
	// with the hint.
	out, _, code = conform(t, "check", "--case", vec+"/case.yaml", "--input", vec+"/input.pcapng", "--device", "../../pcaps/sfc/suppression-reset/expected.pcapng")
	if code != 2 || !strings.Contains(out, "mergecap -I none") {
		t.Fatalf("check merged: exit %d\n%s", code, out)
	}
	// Unusable: a missing file, with the reason on the report.
	dir := copyVec(t)
	os.Remove(filepath.Join(dir, "input.pcapng"))
	out, _, code = conform(t, "run", dir)
	if code != 2 || !strings.Contains(out, "input.pcapng: missing or unreadable") || !strings.Contains(out, "UNUSABLE") {
		t.Fatalf("unusable: exit %d\n%s", code, out)
	}
	// Several vectors: the worst status wins.
	_, _, code = conform(t, "run", "-q", vec, dir)
	if code != 2 {
		t.Fatalf("mixed run: exit %d", code)
	}
	// Usage errors.
	if _, _, code = conform(t, "check", "--case", "x"); code != 2 {
		t.Fatalf("check without files: exit %d", code)
	}
}

// TestConformReports checks the report formats of device mode and the
// rules command: every format names the harness, the device and the
// digests; an unknown format is a usage error; -j keeps the order.
func TestConformReports(t *testing.T) {
	args := []string{"check", "--case", vec + "/case.yaml", "--input", vec + "/input.pcapng", "--device", vec + "/expected.pcapng", "--dut", "Acme 9000 fw 1.2"}
	out, _, code := conform(t, args...)
	if code != 0 || !strings.Contains(out, "device: Acme 9000 fw 1.2") || !strings.Contains(out, "harness: sfcdump") || !strings.Contains(out, "blake3:") || !strings.Contains(out, "tolerances: time 1us, early 0.5us") {
		t.Fatalf("text: exit %d\n%s", code, out)
	}
	out, _, code = conform(t, append(args, "-T", "jsonl")...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || !strings.Contains(lines[0], `"type":"report"`) || !strings.Contains(lines[0], `"dut":"Acme 9000 fw 1.2"`) || !strings.Contains(lines[len(lines)-1], `"type":"verdict"`) {
		t.Fatalf("jsonl: exit %d\n%s", code, out)
	}
	out, _, code = conform(t, append(args, "-T", "junit")...)
	if code != 0 || !strings.HasPrefix(out, "<?xml") || !strings.Contains(out, `<testcase name="SFC-BTS-FIELDS"`) {
		t.Fatalf("junit: exit %d\n%s", code, out)
	}
	if _, _, code = conform(t, append(args, "-T", "yaml")...); code != 2 {
		t.Fatalf("unknown format: exit %d", code)
	}
	// --digest sha256: both digests are SHA-256, the capture's what
	// sha256sum gives; an unknown hash is a usage error.
	out, _, code = conform(t, append(args, "--digest", "sha256")...)
	devOctets, err := os.ReadFile(vec + "/expected.pcapng")
	if err != nil {
		t.Fatal(err)
	}
	devSum := sha256.Sum256(devOctets)
	if code != 0 || !strings.Contains(out, "capture: "+vec+"/expected.pcapng sha256:"+hex.EncodeToString(devSum[:])) || strings.Contains(out, "blake3:") {
		t.Fatalf("--digest sha256: exit %d\n%s", code, out)
	}
	if _, errOut, code := conform(t, append(args, "--digest", "md5")...); code != 2 || !strings.Contains(errOut, "--digest") {
		t.Fatalf("--digest md5: exit %d, %s", code, errOut)
	}
	if _, _, code = conform(t, append(args, "--mask", "no.such")...); code != 2 {
		t.Fatalf("unknown mask field: exit %d", code)
	}
	out, _, code = conform(t, append(args, "--mask", "bts.reporter", "--ignore", "udp.dport == 9")...)
	if code != 0 || !strings.Contains(out, "mask bts.reporter") || !strings.Contains(out, `ignore "udp.dport == 9"`) {
		t.Fatalf("mask and ignore: exit %d\n%s", code, out)
	}
	out, _, code = conform(t, "rules")
	if code != 0 || !strings.Contains(out, "SFC-BTS-FIRST") || !strings.Contains(out, "PFC-XON") {
		t.Fatalf("rules: exit %d\n%s", code, out)
	}
	out, _, code = conform(t, "rules", "-T", "json", "--corpus", "../../pcaps/pfc")
	var rules []struct {
		ID      string   `json:"id"`
		Vectors []string `json:"vectors"`
	}
	if err := json.Unmarshal([]byte(out), &rules); err != nil || code != 0 {
		t.Fatalf("rules json: exit %d %v\n%s", code, err, out)
	}
	found := false
	for _, r := range rules {
		if r.ID == "PFC-XON" && len(r.Vectors) > 0 {
			found = true
		}
	}
	if !found {
		t.Fatalf("no vector exercises PFC-XON: %s", out)
	}
	out, _, code = conform(t, "run", "-q", "-j", "3", "../../pcaps/pfc")
	pfcVectors, _ := filepath.Glob("../../pcaps/pfc/*/case.yaml")
	if n := len(pfcVectors); n < 5 || code != 0 || !strings.Contains(out, fmt.Sprintf("%d of %d vectors pass", n, n)) || strings.Index(out, "nic-receiver") > strings.Index(out, "xoff-refresh-xon") {
		t.Fatalf("run -j 3: exit %d\n%s", code, out)
	}
}

func TestConformScenarioAndGen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "v")
	out, errs, code := conform(t, "scenario", "incast", "--senders", "3", "--burst", "8KB", "--param", "q_th=10KB", "--param", "q_tg=5KB", "--out", dir)
	if code != 0 {
		t.Fatalf("scenario: exit %d\n%s%s", code, out, errs)
	}
	out, _, code = conform(t, "gen", "--dry-run", dir)
	if code != 1 || !strings.Contains(out, "would create") {
		t.Fatalf("gen dry-run: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "expected.pcapng")); err == nil {
		t.Fatal("gen --dry-run wrote expected.pcapng")
	}
	out, _, code = conform(t, "gen", dir)
	if code != 0 || !strings.Contains(out, "created expected.pcapng") {
		t.Fatalf("gen: exit %d\n%s", code, out)
	}
	out, _, code = conform(t, "gen", dir)
	if code != 0 || !strings.Contains(out, "unchanged") {
		t.Fatalf("gen again: exit %d\n%s", code, out)
	}
	// Change the case: gen shows the differences, then rewrites.
	p := filepath.Join(dir, "case.yaml")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(b), "q_th: 10KB", "q_th: 7KB", 1)), 0o644)
	out, _, code = conform(t, "gen", "--dry-run", dir)
	if code != 1 || !strings.Contains(out, "would rewrite") || !strings.Contains(out, "FAIL") {
		t.Fatalf("gen dry-run after a change: exit %d\n%s", code, out)
	}
	out, _, code = conform(t, "gen", dir)
	if code != 0 || !strings.Contains(out, "rewrote") {
		t.Fatalf("gen after a change: exit %d\n%s", code, out)
	}
	if out, _, code = conform(t, "run", dir); code != 0 {
		t.Fatalf("run after gen: exit %d\n%s", code, out)
	}
	// --inputs regenerates the input from the scenario line.
	if out, _, code = conform(t, "gen", "--inputs", dir); code != 0 {
		t.Fatalf("gen --inputs: exit %d\n%s", code, out)
	}
	if out, _, code = conform(t, "scenario", "list"); code != 0 || !strings.Contains(out, "incast") || !strings.Contains(out, "storm") || !strings.Contains(out, "mix") {
		t.Fatalf("scenario list: exit %d\n%s", code, out)
	}
	if out, _, code = conform(t, "scenario", "incast", "--help"); code != 0 || !strings.Contains(out, "-sync") {
		t.Fatalf("scenario help: exit %d\n%s", code, out)
	}
	if _, _, code = conform(t, "scenario", "incast", "--senders", "0", "--out", dir); code != 2 {
		t.Fatalf("bad scenario flag: exit %d", code)
	}
	if _, _, code = conform(t, "scenario", "nosuch", "--out", dir); code != 2 {
		t.Fatalf("unknown scenario: exit %d", code)
	}
}

// Conformance text reports quote what the files hold (paths, interface
// names, frames): escaped before they reach the terminal, line breaks
// kept; --max is range-checked.
func TestConformTextEscapedAndMaxChecked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "evil\x1b]0;owned\x07")
	out, _, code := conform(t, "run", dir)
	if code != 2 || strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, `evil\x1b]0;owned\a`) || !strings.Contains(out, "\nverdict: UNUSABLE\n") {
		t.Fatalf("exit %d, output %q", code, out)
	}
	if _, errs, code := conform(t, "run", "-j", "257", vec); code != 2 || !strings.Contains(errs, "-j 257") {
		t.Errorf("conform run -j 257: exit %d, stderr %q; want 2 naming the flag", code, errs)
	}
	for _, args := range [][]string{{"run", vec}, {"check", "--case", vec + "/case.yaml", "--input", vec + "/input.pcapng", "--device", vec + "/expected.pcapng"}, {"live", vec, "--port", "0=lo"}} {
		_, errs, code := conform(t, append(args, "--max", "-1")...)
		if code != 2 || !strings.Contains(errs, "--max -1") {
			t.Errorf("conform %s --max -1: exit %d, stderr %q; want 2 naming the flag", args[0], code, errs)
		}
	}
}

// TestConformCheckStdin: "-" for a capture (read's standard input) is a
// usage error naming the flag and saying why, not an UNUSABLE report of
// a capture "-" missing.
func TestConformCheckStdin(t *testing.T) {
	files := map[string]string{"--case": vec + "/case.yaml", "--input": vec + "/input.pcapng", "--device": vec + "/expected.pcapng"}
	for _, fl := range []string{"--case", "--input", "--device"} {
		var args []string
		for _, f := range []string{"--case", "--input", "--device"} {
			v := files[f]
			if f == fl {
				v = "-"
			}
			args = append(args, f, v)
		}
		out, errs, code := sfcdump(t, append([]string{"conform", "check"}, args...)...)
		if code != 2 || out != "" || !strings.Contains(errs, fl+" -: conform check reads files, not standard input") {
			t.Errorf("%s -: exit %d, stdout %q, stderr %q", fl, code, out, errs)
		}
	}
	// Its other names too.
	for _, in := range []string{"/dev/stdin", "/dev/fd/0"} {
		out, errs, code := sfcdump(t, "conform", "check", "--case", files["--case"], "--input", files["--input"], "--device", in)
		if code != 2 || out != "" || !strings.Contains(errs, "--device "+in+": conform check reads files") {
			t.Errorf("--device %s: exit %d, stdout %q, stderr %q", in, code, out, errs)
		}
	}
}

// TestConformCheckMaskIgnoreFlags: a bad --mask or --ignore value is a
// usage error (decisions.md: a flag value out of range, exit 2, no report
// on stdout) naming the flag and its value, not the case.yaml it is added
// to; a bad mask or ignore in case.yaml names the file and its line.
func TestConformCheckMaskIgnoreFlags(t *testing.T) {
	args := []string{"conform", "check", "--case", vec + "/case.yaml", "--input", vec + "/input.pcapng", "--device", vec + "/expected.pcapng"}
	for _, tc := range []struct {
		extra []string
		want  string
	}{
		{[]string{"--mask", "bogus.field"}, `--mask bogus.field: unknown field "bogus.field"`},
		{[]string{"--mask", "udp.sport,bogus", "-T", "junit"}, `--mask bogus: unknown field "bogus"`},
		{[]string{"--ignore", "udp.dport =="}, `--ignore "udp.dport ==": not a display filter: filter: column 13`},
		{[]string{"--ignore", "udp.dport ==", "-T", "jsonl"}, `--ignore "udp.dport =="`},
	} {
		a := append(slices.Clone(args), tc.extra...)
		out, errs, code := sfcdump(t, a...)
		if code != 2 || out != "" || !strings.Contains(errs, tc.want) || strings.Contains(errs, "case.yaml") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing, %q and no case.yaml", tc.extra, code, out, errs, tc.want)
		}
	}
	for _, tc := range []struct{ key, want string }{
		{"mask: [bogus.field]\n", `case.yaml:%d: mask: unknown field "bogus.field"`},
		{"ignore: \"udp.dport ==\"\n", `case.yaml:%d: ignore: not a display filter`},
	} {
		dir := copyVec(t)
		cy := filepath.Join(dir, "case.yaml")
		b, _ := os.ReadFile(cy)
		line := bytes.Count(b, []byte("\n")) + 1
		os.WriteFile(cy, append(b, tc.key...), 0o644)
		want := fmt.Sprintf(tc.want, line)
		out, _, code := sfcdump(t, "conform", "check", "--case", cy, "--input", dir+"/input.pcapng", "--device", dir+"/expected.pcapng")
		if code != 2 || !strings.Contains(out, want) || strings.Contains(out, "mask: mask:") {
			t.Errorf("%q in case.yaml: exit %d, %q; want 2 and %q", tc.key, code, out, want)
		}
	}
}

// A line break in a value from outside (--dut, a vector's path, the
// case's description, a deviation's text) is escaped in the text report
// like the other control characters: one value never makes a line of its
// own, so a FAIL or UNUSABLE report cannot show a forged verdict line.
func TestConformTextLineBreakEscaped(t *testing.T) {
	forged := func(out string) bool {
		n := 0
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "verdict: ") {
				n++
			}
		}
		return n != 1 || strings.Contains(out, "\nverdict: PASS")
	}
	dut := "Acme\nverdict: PASS"
	out, _, code := conform(t, "check", "--case", vec+"/case.yaml", "--input", vec+"/input.pcapng", "--device", "../../pcaps/sfc/flow-mix/expected.pcapng", "--dut", dut)
	if code != 1 || forged(out) || !strings.Contains(out, `device: Acme\nverdict: PASS`) {
		t.Fatalf("--dut with a line break: exit %d\n%s", code, out)
	}
	// a vector directory whose name holds a line break, usable and not
	dir := filepath.Join(t.TempDir(), "v\x1b[2Jx\nverdict: PASS")
	os.Mkdir(dir, 0o755)
	for _, f := range []string{"case.yaml", "input.pcapng", "expected.pcapng"} {
		b, _ := os.ReadFile(filepath.Join(vec, f))
		if f == "case.yaml" {
			b = []byte(strings.Replace(string(b), "description:", "description: \"evil\\nverdict: PASS\" #", 1))
		}
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
	}
	out, _, code = conform(t, "run", dir)
	if code != 2 || forged(out) || !strings.Contains(out, `v\x1b[2Jx\nverdict: PASS`) {
		t.Fatalf("run, path and description with line breaks: exit %d\n%s", code, out)
	}
	os.Remove(filepath.Join(dir, "input.pcapng"))
	out, _, code = conform(t, "run", dir)
	if code != 2 || forged(out) {
		t.Fatalf("run, unusable vector whose path has a line break: exit %d\n%s", code, out)
	}
	out, _, code = conform(t, "run", "-q", vec, dir)
	if code != 2 || forged(out) {
		t.Fatalf("run -q: exit %d\n%s", code, out)
	}
}

// An UNUSABLE vector gets no rule verdicts in any format (README: "an
// UNUSABLE vector one `error` case"): JUnit one error case carrying the
// reason, JSON Lines the report and the verdict only, JSON no checks; and
// each report still names the capture and the device.
func TestConformUnusableHasNoRuleVerdicts(t *testing.T) {
	dir := copyVec(t)
	os.Remove(filepath.Join(dir, "input.pcapng"))
	// A bad mask in case.yaml makes the vector unusable (the same value
	// on the command line is a usage error: TestConformCheckMaskIgnoreFlags).
	masked := copyVec(t)
	cb, _ := os.ReadFile(filepath.Join(masked, "case.yaml"))
	os.WriteFile(filepath.Join(masked, "case.yaml"), append(cb, []byte("mask: [bogus.field]\n")...), 0o644)
	for _, args := range [][]string{
		{"check", "--case", masked + "/case.yaml", "--input", vec + "/input.pcapng", "--device", vec + "/expected.pcapng"},
		{"check", "--case", dir + "/nosuch.yaml", "--input", vec + "/input.pcapng", "--device", vec + "/expected.pcapng"},
		{"run", dir},
	} {
		args = append(args, "--dut", "Acme 9000")
		out, _, code := conform(t, append(args, "-T", "junit")...)
		if code != 2 || !strings.Contains(out, `tests="1" failures="0" errors="1"`) || strings.Count(out, "<testcase ") != 1 ||
			!strings.Contains(out, `type="UNUSABLE"`) || !strings.Contains(out, `name="dut" value="Acme 9000"`) {
			t.Errorf("%v junit: exit %d\n%s", args, code, out)
		}
		out, _, code = conform(t, append(args, "-T", "jsonl")...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code != 2 || len(lines) != 2 || !strings.Contains(lines[0], `"dut":"Acme 9000"`) || !strings.Contains(lines[1], `"verdict":"UNUSABLE"`) || strings.Contains(out, `"type":"rule"`) {
			t.Errorf("%v jsonl: exit %d\n%s", args, code, out)
		}
		out, _, code = conform(t, append(args, "-T", "json")...)
		var rep struct {
			Checks   []any  `json:"checks"`
			Compared string `json:"compared"`
			DUT      string `json:"dut"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 2 || len(rep.Checks) != 0 || !strings.HasSuffix(rep.Compared, "expected.pcapng") || rep.DUT != "Acme 9000" {
			t.Errorf("%v json: exit %d %v\n%s", args, code, err, out)
		}
		out, _, code = conform(t, args...)
		if code != 2 || !strings.Contains(out, "device: Acme 9000") || strings.Contains(out, " PASS") {
			t.Errorf("%v text: exit %d\n%s", args, code, out)
		}
	}
}

// Exact-mode reports name the tolerances in force (conformance.md
// "Reports"), in every format: the time tolerance and the volatile fields.
func TestConformRunNamesTolerances(t *testing.T) {
	out, _, code := conform(t, "run", vec)
	if code != 0 || !strings.Contains(out, "\n  tolerances: time 0us\n") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
	out, _, code = conform(t, "run", "-T", "jsonl", vec)
	if code != 0 || !strings.Contains(strings.SplitN(out, "\n", 2)[0], `"tolerances":{"time_ns":0}`) {
		t.Errorf("jsonl: exit %d\n%s", code, out)
	}
	out, _, code = conform(t, "run", "-T", "junit", vec)
	if code != 0 || !strings.Contains(out, `<property name="tolerances" value="time 0us">`) {
		t.Errorf("junit: exit %d\n%s", code, out)
	}
}

// TestScenarioKeepsAVector: conform scenario --out onto a vector refuses
// (exit 2) unless --force, which replaces its inputs and says its expected
// output is stale.
func TestScenarioKeepsAVector(t *testing.T) {
	dir := t.TempDir()
	if _, errs, code := sfcdump(t, "conform", "scenario", "incast", "--senders", "2", "--burst", "4KB", "--out", dir); code != 0 {
		t.Fatal(errs)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "input.pcapng"))
	os.WriteFile(filepath.Join(dir, "expected.pcapng"), []byte("x"), 0o644)
	if _, errs, code := sfcdump(t, "conform", "scenario", "incast", "--senders", "3", "--out", dir); code != 2 || !strings.Contains(errs, "--force") {
		t.Errorf("onto a vector: exit %d, %q", code, errs)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "input.pcapng")); !bytes.Equal(before, after) {
		t.Error("the refused run changed the vector's input")
	}
	if _, errs, code := sfcdump(t, "conform", "scenario", "incast", "--senders", "3", "--out", dir, "--force"); code != 0 || !strings.Contains(errs, "stale") {
		t.Errorf("--force: exit %d, %q", code, errs)
	}
}
