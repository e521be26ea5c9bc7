#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Runs every row of manifest.tsv through `sfcdump conform check` and compares the
verdict (exit status 0 PASS, 1 FAIL, 2 UNUSABLE, 3 INCONCLUSIVE) and, for FAIL, whether
the expected rule id is among the deviations' rule ids.
Usage (repo root): /usr/bin/python3 conformance/testdata/independent/check.py [SFCDUMP]
SFCDUMP defaults to `go run ./cmd/sfcdump`. Prints one TSV line per row."""
import json, os, shlex, subprocess, sys
HERE = os.path.dirname(os.path.abspath(__file__))
cmd = shlex.split(sys.argv[1]) if len(sys.argv) > 1 else ["go", "run", "./cmd/sfcdump"]
V = {0: "PASS", 1: "FAIL", 2: "UNUSABLE", 3: "INCONCLUSIVE"}
rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(HERE, "manifest.tsv"))][1:]
bad = 0
print("capture\texpected\tharness\trules failed\tagree")
for vector, cap, verdict, rule, why in rows:
    v = os.path.join("pcaps", vector)
    p = subprocess.run(cmd + ["conform", "check", "--case", v + "/case.yaml", "--input", v + "/input.pcapng",
                              "--device", os.path.join(HERE, cap), "-T", "jsonl"], capture_output=True, text=True)
    # `go run` turns every non-zero exit status of the program into 1, so the verdict is
    # read from the report's {"type":"verdict"} line; the exit status is checked against it
    # only when the binary is run directly.
    got = V.get(p.returncode, "exit%d" % p.returncode)
    failed, inconc = [], []
    for line in p.stdout.splitlines():
        try:
            o = json.loads(line)
        except ValueError:
            continue
        if o.get("type") == "rule" and o.get("verdict") == "FAIL":
            failed.append(o["rule"])
        if o.get("type") == "rule" and o.get("verdict") == "INCONCLUSIVE":
            inconc.append(o["rule"])
        if o.get("type") == "verdict":
            rep = o.get("verdict")
            if cmd[:2] == ["go", "run"]:
                got = rep
            elif rep != got:
                got += " (report says %s)" % rep
    ok = got == verdict and (rule == "-" or rule in failed)
    bad += not ok
    print("\t".join([cap, verdict + ("" if rule == "-" else " " + rule), got,
                     ",".join(failed + ["(inc) " + r for r in inconc]) or "-", "yes" if ok else "NO"]))
    if not ok and p.stderr:
        print("   stderr: " + p.stderr.strip().replace("\n", " | ")[:300])
sys.exit(1 if bad else 0)
