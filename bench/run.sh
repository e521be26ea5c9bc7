#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The whole benchmark run: sfcdump against tcpdump, tshark and the raw
# read floor on the same captures, alternating (bench/compare: table of
# medians and ratios in bench/out/latest.md), then the Go benchmarks
# (bench/gobench.sh: bench/out/gobench.txt), then the conformance load
# benchmark at 1M and 5M frames (memory flat in capture length).
#
#   bench/run.sh             # ~15 min on 2 cores
#   RUNS=5 bench/run.sh
set -eu
cd "$(dirname "$0")/.."
go run ./bench/compare -runs "${RUNS:-3}"
bench/gobench.sh
go run ./conformance/loadbench -frames 1000000,5000000 | tee bench/out/loadbench.txt
